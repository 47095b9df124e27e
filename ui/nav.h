/* nav.c: The selection, the visible set (the filters), jumps, marks, the
 * search's matches, and what the status line says. */
#ifndef TTV_UI_NAV_H
#define TTV_UI_NAV_H

#include "ui/app.h"

void vis_reset(struct app *a);
bool vis_step(struct app *a, uint64_t budget_ns); /* true while more to evaluate */
bool vis_step_events(struct app *a, uint64_t count); /* the same, by count (scripted runs: deterministic) */
/* Filters still have events to look at (with none, there is nothing to do). */
bool vis_pending(const struct app *a);
bool vis_is(struct app *a, uint64_t pos);
uint64_t vis_next(struct app *a, uint64_t pos); /* first visible > pos, or NO_POS */
uint64_t vis_prev(struct app *a, uint64_t pos); /* last visible < pos, or NO_POS */
uint64_t vis_first(struct app *a);
uint64_t vis_last(struct app *a);
/* The same, past metadata (symbol tables, class and string definitions):
 * the first and last events on the time axis (g, G, the first screen). */
uint64_t vis_first_timed(struct app *a);
uint64_t vis_last_timed(struct app *a);
uint64_t vis_count(struct app *a);
uint64_t vis_rank(struct app *a, uint64_t pos);  /* visible events before pos */
uint64_t vis_nearest(struct app *a, uint64_t pos); /* pos if visible, else the next, else the previous */
void select_pos(struct app *a, uint64_t pos);
void jump_to(struct app *a, uint64_t pos); /* select, remembering where we were */
bool move_action(struct app *a, enum action act); /* next/previous/page through visible events */
bool at_end(struct app *a); /* the selection is the last visible event */
uint64_t follow_new(struct app *a); /* following, paused: the events that came since */
void jump_history(struct app *a, int dir);
void set_mark(struct app *a, int letter);
void goto_mark(struct app *a, int letter);
void refresh_selection(struct app *a); /* after the model changed */
struct evref ref_of(struct app *a, uint64_t pos);
bool ref_pos(struct app *a, const struct evref *r, uint64_t *pos);
void lanes_sync(struct app *a); /* new lanes join the display order */
bool lane_shown(const struct app *a, uint32_t lane);
/* Refresh the cached name widths and colours when lanes or types appeared. */
void names_sync(struct app *a);
void message(struct app *a, bool error, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* nav.c: every event the search finds, marked in steps (the filters do not
 * change it; counts are taken with the visible set) */
bool hits_pending(const struct app *a);
bool search_hits(const struct app *a, uint64_t pos); /* the search finds the event at pos (as far as marked) */
uint64_t hits_before(struct app *a, uint64_t pos); /* shown events it found before pos */
bool hits_step(struct app *a, uint64_t budget_ns); /* true while more to mark */

#endif
