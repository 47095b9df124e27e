/* The viewer's shared state and the pieces that operate on it.
 *
 * One selected event is shared by every view.  The lanes view and the list
 * are the two base views (Tab switches); detail, info, help and filters open
 * on top of them and close with Esc or q.  Views read the model only through
 * the visible set (lanes shown, filters), and draw only the rows on screen. */
#ifndef TTV_APP_H
#define TTV_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/cli.h"
#include "src/query.h"
#include "src/trace.h"
#include "ui/actions.h"

#define NO_POS UINT64_MAX

/* An event's identity, stable when late events shift positions. */
struct evref {
	int64_t ts;
	uint32_t input;
	uint64_t off;
	bool set;
};

/* Which events are shown: lanes not hidden (and picked, when any is
 * picked), passing every enabled filter.  A bitmap over positions with a
 * rank directory, computed in slices. */
struct visible {
	bool all;           /* nothing hidden: identity, no bitmap */
	uint64_t n;         /* positions covered */
	uint64_t done;      /* positions evaluated so far */
	uint64_t *bits;
	uint64_t *rank;     /* visible events before each 512-position block */
	size_t capbits, caprank;
	uint64_t gen;       /* model generation it was computed for */
};

/* What a view does.  Each view's file defines its own (as tig's
 * view_ops); any may be NULL:
 * open: it comes on top, or back on top (false: it has nothing to show,
 *   and does not come);  back: it comes back on top when the one over it
 *   closes (NULL: open);  draw;  action (false: not here, the shared
 *   actions then);  click;  drag: the mouse dragged from one column to
 *   another (the lanes take the range between);
 * meaning: what a shared action does in it, for ?, when its own words say
 *   it better than the action's help;
 * status: the status line's left part while it is on top, in place of the
 *   file names, in at most room cells (false: the names);
 * where: the right part's position (false: the selected event's);
 * pending, step: work it does in the background, on top or not (step: a
 *   slice of about budget_ns; true while more is left);
 * free: what its state holds let go when the viewer ends. */
struct app;
struct buf;
struct view_ops {
	size_t state_size; /* its own state, kept in its file (view_state) */
	bool (*open)(struct app *a);
	bool (*back)(struct app *a);
	void (*draw)(struct app *a);
	bool (*action)(struct app *a, enum action act);
	void (*click)(struct app *a, int line, int col);
	void (*drag)(struct app *a, int line, int col0, int col1);
	const char *(*meaning)(enum action act);
	bool (*status)(struct app *a, struct buf *out, int room);
	bool (*where)(struct app *a, struct buf *out);
	bool (*pending)(const struct app *a);
	bool (*step)(struct app *a, uint64_t budget_ns);
	void (*free)(struct app *a);
};

/* Every view, once: X(enum name, its context word in keymap files, the
 * action that opens it from any view (ACT_NONE: its own file opens it),
 * its ops).  It yields the view enum, the keymap contexts and the dispatch
 * table (view.c).  Lanes and list are the base views; the others come on
 * top of them, in a stack (view_open). */
#define VIEWS(X)                                          \
	X(LANES, "lanes", ACT_NONE, lanes_ops)            \
	X(LIST, "list", ACT_NONE, list_ops)               \
	X(DETAIL, "detail", ACT_DETAIL, detail_ops)       \
	X(INFO, "info", ACT_INFO, info_ops)               \
	X(HELP, "help", ACT_HELP, help_ops)               \
	X(FILTERS, "filters", ACT_FILTERS, filters_ops)   \
	X(RECORD, "record", ACT_NONE, record_ops)         \
	X(MESSAGES, "messages", ACT_MESSAGES, messages_ops) \
	X(LEGEND, "legend", ACT_LEGEND, legend_ops)       \
	X(TREE, "tree", ACT_CALL_TREE, tree_ops)          \
	X(FLAME, "flame", ACT_FLAME_GRAPH, flame_ops)     \
	X(BUTTERFLY, "butterfly", ACT_BUTTERFLY, butterfly_ops) \
	X(DIFF, "diff", ACT_NONE, diff_ops)               \
	X(OCCUR, "calls", ACT_NONE, occur_ops)            \
	X(SQL, "sql", ACT_NONE, sql_ops)
#define X(id, word, opener, ops) extern const struct view_ops ops;
VIEWS(X)
#undef X
enum view_id {
#define X(id, ...) V_##id,
	VIEWS(X)
#undef X
	V_COUNT
};

/* Colour roles; themes/ give each one colours and attributes. */
#define ROLES(X)                                                                       \
	X(NORMAL, "normal") X(AXIS, "axis") X(LANE_NAME, "lane-name") X(SELECTED, "selected") \
	X(CURSOR, "cursor") X(INSTANT, "instant") X(DENSITY, "density") X(MATCH, "match")   \
	X(WARNING, "warning") X(STATUS, "status") X(STATUS_MSG, "status-message")          \
	X(ERROR, "error") X(KEY, "key") X(TITLE, "title") X(DIM, "dim") X(SPAN1, "span-1")   \
	X(SPAN2, "span-2") X(SPAN3, "span-3") X(SPAN4, "span-4") X(SPAN5, "span-5")          \
	X(SPAN6, "span-6") X(SPAN7, "span-7") X(SPAN8, "span-8") X(BAR, "bar")
enum role {
#define X(id, word) R_##id,
	ROLES(X)
#undef X
	R_COUNT
};
#define SPAN_ROLES 8

struct keymap;
struct viewtree;

enum prompt_kind { PROMPT_NONE, PROMPT_SEARCH, PROMPT_SEARCH_BACK, PROMPT_FILTER, PROMPT_COMMAND, PROMPT_SQL };

struct prompt {
	enum prompt_kind kind;
	struct buf text;
	size_t cursor; /* byte offset in text */
	bool pasting;  /* between bracketed-paste markers */
	char *error;   /* compile error shown while typing */
	long editing;  /* the filter being edited, -1 for a new one */
	uint64_t origin; /* the selection when a search prompt opened */
	char **hist;   /* earlier entries of this kind, oldest first */
	size_t nhist, hist_at;
	struct buf draft; /* what was typed before walking the history */
};

/* What the last filter change did, so Esc can take it back while it runs. */
struct filter_undo {
	enum { UNDO_NONE, UNDO_ADDED, UNDO_TOGGLED } what;
	size_t index;
};

/* Each view's own state (the views are listed in VIEWS). */

struct app {
	struct trace *t;
	struct model *m;
	struct filterset *fs;
	struct keymap *km;
	int cols, lines;
	bool scripted;
	bool unicode; /* the terminal takes UTF-8: block characters for bars */
	/* asked while a task runs (loop.c): reads keys (they wait; Esc and C-c
	 * stop it), signals and resizes, and says on the status line that it
	 * runs; true when it is to stop */
	bool (*busy)(struct app *a);
	/* a long piece of work on the loop's thread (a SQL query), which asks
	 * busy() now and then */
	struct task {
		const char *what;             /* "SQL": said on the status line */
		bool running, stop;           /* it runs; Esc or C-c asked it to stop */
		uint64_t started, drawn;      /* when it began, when the screen was drawn */
		void (*abandon)(struct app *a); /* (left at once: a file shrank under it) */
	} task;

	enum view_id base;     /* V_LANES or V_LIST */
	enum view_id stack[8]; /* views opened on top of the base */
	int depth;

	struct visible vis;
	uint64_t sel; /* selected event (position), NO_POS when none */
	struct evref sel_ref;

	int row_shift; /* summaries scrolled sideways by this many cells (the list's Left and Right;
	                * the lanes view's row of the selected event shows it too) */
	void *state[V_COUNT]; /* each view's own, as its file has it (view_state) */
	struct viewtree *viewtree; /* the call tree the tree, flame graph and butterfly show (viewtree.c) */

	/* lanes in display order, and their flags (nav.c keeps them in step
	 * with the model; the lanes view and the list read them) */
	uint32_t *order; /* lane ids in display order */
	size_t norder, caporder;
	uint8_t *lane_flags; /* LANE_HIDDEN | LANE_PICKED | LANE_COLLAPSED, by lane id */
	size_t caplaneflags;
	/* per-frame facts that only change when lanes or types are added */
	uint32_t known_lanes, known_types;
	uint64_t known_renames;
	int lane_w, type_w;  /* widest lane and type name (display cells) */
	uint8_t *type_role;  /* span colour by type */
	size_t captyperole;
	enum time_mode time; /* relative, the trace's clock, or wall clock (t cycles) */
	bool raw_names;      /* function names as written, not demangled (R) */
	/* a time range (model times): marked in the lanes view ({ } or a mouse
	 * drag), a range: filter on |, the scope of what measures time */
	struct time_range {
		bool has_lo, has_hi;
		int64_t lo, hi;
	} range;
	bool per_lane; /* ... in which the call tree counts each lane apart (its a) */
	struct {
		bool on;
		int line, col;
	} press; /* the mouse button held since there (a drag) */
	bool clocks_said; /* the warning about unrelated clocks, once loaded */

	/* jumps and marks */
	struct evref *hist;
	size_t nhist, caphist, hist_at;
	struct evref marks[26];
	char *mark_note[26]; /* what SQL wrote beside a mark (NULL: nothing) */
	enum action pending; /* SET_MARK / GOTO_MARK waiting for a letter */
	enum action command_act; /* a : command that is an action (:messages): done after the prompt */

	/* search: what is searched for (the filter syntax; spec NULL: nothing),
	 * the accepted text, and a search running in steps from the loop */
	struct filter search;
	char *search_text;
	struct seek {
		bool on, forward, wrapped;
		bool preview; /* while typing: selects, no jump, no message, looks near only */
		uint64_t from, at; /* where it began; the last event looked at */
		uint64_t looked;
	} seek;
	/* every event the search finds, marked in steps (for "match 3 of 9") */
	struct hits {
		uint64_t *bits;
		size_t cap;
		uint64_t done, gen;
	} hits;

	struct prompt prompt;
	struct filter_undo undo;
	char msg[512];
	bool msg_error;
	/* what went wrong with how ttv was started (keymap, theme, config):
	 * said again whenever the status line is free, until Esc or M */
	char setup_error[512];
	struct buf messages; /* every message said, one a line with its time (the messages view) */

	bool loading;
	bool fields_checked; /* the -e filters against the fields read (filters_check_fields) */
	bool load_waits;    /* its last step read nothing: a stream (a pipe, the far side) is slow */
	bool follow;
	bool paused;        /* following, but the user scrolled away */
	bool end_held;      /* following at the end when a file was looked at (a truncation may drop the event) */
	struct evref pause_mark; /* the last event there when following paused: what is after it is new */
	uint64_t notices;   /* the trace's notices already shown */
	uint64_t damage_told; /* damage reports already told on the status line */
	bool quit;
	bool touched; /* a key or click came: the first screen's choices stop */
	bool hinted;  /* the first screen's counts and keys were said */
};

#define LANE_HIDDEN 1
#define LANE_PICKED 2
#define LANE_COLLAPSED 4 /* the lanes view shows it as one row */

/* View v's own state, `size` bytes zeroed at first (ui/view.c frees it):
 * for the base views, below the view stack; the others use view_state(). */
static inline void *view_own(struct app *a, enum view_id v, size_t size)
{
	if (!a->state[v])
		a->state[v] = xcalloc(1, size);
	return a->state[v];
}

#endif
