/* view.c: The views (app.h VIEWS) and their stack over the base view (lanes or
 * list), and the work they do in the background. */
#ifndef TTV_UI_VIEW_H
#define TTV_UI_VIEW_H

#include "ui/app.h"

/* What a shared action does in view v, in its words (NULL: its help says it). */
const char *view_meaning(enum view_id v, enum action act);
const struct view_ops *view_ops_of(enum view_id v);
enum view_id view_top(const struct app *a);   /* the one shown */
enum view_id view_under(const struct app *a); /* the one under it */
void view_open(struct app *a, enum view_id v); /* v on top (a full stack: in the top one's place) */
void view_close(struct app *a);                /* the top one closed: the one under it opened again */
void view_close_all(struct app *a);            /* back to the base view */
void view_switch_base(struct app *a);          /* the other base view (lanes, list) under the stack */
bool view_open_by(struct app *a, enum action act); /* the view act opens from anywhere (false: none) */
bool views_pending(const struct app *a);           /* some view has work to do in the background */
bool views_step(struct app *a, uint64_t budget_ns); /* a slice of their work (true while more) */
void views_free(struct app *a);
void *view_state(struct app *a, enum view_id v); /* v's own state, as its file has it */
const void *view_state_made(const struct app *a, enum view_id v); /* the same, NULL before it is made */

#endif
