/* The lanes view's window as bars in rows (bars.c). */
#ifndef TTV_UI_BARS_H
#define TTV_UI_BARS_H

#include "src/hmap.h"
#include "ui/app.h"

#define BARS_MAX_ROWS 64 /* rows told apart; deeper spans share the last */
#define BARS_ROWS 8      /* rows an expanded lane shows; below, one row for the rest */

enum bar_kind {
	BAR_SPAN, /* a span: begin to end, or a complete event */
	BAR_OPEN, /* a begin no end closed (a crash, the end of the file): to the end */
};

struct bar {
	int64_t ts, end;  /* end: INT64_MAX for an open begin */
	uint64_t pos;     /* the event (a span's begin) */
	uint32_t lane, name, type;
	uint16_t row;     /* the row of its lane (0 = the outermost) */
	uint8_t kind;     /* enum bar_kind */
	bool linked;      /* its parent is known (below): it is drawn beneath it */
	uint64_t id, parent_id; /* when the trace names the span and its parent (trace_span_ids), else 0 */
	uint64_t parent;  /* the parent's event, when linked */
};

/* Per column: what else is there besides bars a cell wide or more. */
#define MARK_HIT 0x80000000u      /* (in narrow and marks) the search finds one of them */
#define MARK_UNOPENED 0x40000000u /* (in marks) an end that no begin opened */
#define MARK_COUNT 0x3fffffffu

struct lane_bars {
	uint32_t lane;
	struct bar *v; /* spans a cell wide or more, in start order */
	size_t n, cap;
	int rows;      /* rows its spans take */
	int64_t row_end[BARS_MAX_ROWS];
	struct hmap ids;  /* the id of a span laid out (bar.id) -> its row | (its event + 1) << 16 */
	uint32_t *narrow; /* (BARS_ROWS + 1) x W: spans narrower than a cell, by row (the last: deeper) */
	uint8_t *narrow_role; /* the colour of the first of them */
	uint32_t *marks;  /* W: instants and unpaired ends */
	bool has_marks;
	uint64_t *sample; /* W, counter tracks only: each column's last sample (NO_POS: none) */
};

struct bars {
	struct lane_bars *lane; /* one per lane asked for, in that order */
	size_t n;
	int *index;             /* lane id -> index into lane, -1 */
	uint32_t nindex;
	struct idset sought;    /* the lanes, when few among many (else none) */
	int64_t t0, t1;
	int W;
	uint32_t scale;   /* events each one read stands for (sampled) */
	bool sampled;     /* more events than the budget: some were not read */
	bool approximate; /* the look-back was cut short: an old span may be missing */
	bool all_shown;   /* no filter hides an event (each need not be asked) */
	struct {
		uint32_t name;
		uint8_t role;
	} name_roles[64]; /* the colours of names met in this window (0: none yet) */
};

/* A span's colour: by its name (a stable hash), or its type's when it has
 * none; the selected one and what the search finds stand out. */
enum role bar_role(struct app *a, const struct bar *b);
/* Its name as shown: its own (as written when the user asked, R), else its
 * type's. */
uint32_t bar_name(const struct app *a, const struct bar *b);

/* What a look-back found, kept (bars_make's `keep`, NULL: not) for the
 * next bars of the same lane from the same start: moving to the next span
 * looks ever further on from one place, and each look went back as far
 * again (among 1,024 sequences, 65,536 events stepped each time). */
struct bars_early {
	struct bar *v; /* in start order */
	size_t n;
	int64_t t0;
	uint32_t lane;
	bool approximate, kept;
};

/* The bars of `lanes` in [t0, t1) drawn W cells wide, reading at most
 * about `budget` events of the window (beyond, it is sampled) and
 * `lookback` before it for spans that cover its start.  W = 0: every span
 * is a bar, whatever its width, and nothing else is kept (for moving
 * between spans); `keep`: above. */
void bars_make(struct bars *bs, struct app *a, const uint32_t *lanes, size_t n, int64_t t0, int64_t t1, int W,
	       uint64_t budget, uint64_t lookback, struct bars_early *keep);
void bars_free(struct bars *bs);
void bars_early_free(struct bars_early *k);
/* Where the span that e (at pos) begins ends (INT64_MAX: open, no end
 * yet); false when it begins none (an instant, an end, an unpaired begin). */
bool span_end(struct model *m, const struct event *e, uint64_t pos, int64_t *end);

/* counters.c: a counter track's row (lb->sample): each column's value as a
 * bar of eighths between the least and greatest value in the window, held
 * until the next sample; the range at the row's end. */
void counter_draw(struct app *a, int y, int x0, int W, const struct lane_bars *lb);

/* spans.c: the selection as a span (its lane, start, end, name; false:
 * not a span), and the spans around it, as the lanes view lays them out.
 * NO_POS when there is none. */
bool span_of(struct app *a, uint64_t pos, struct bar *out);
/* Its depth and self time (src/nest.h: as the call tree has them); approx:
 * too many events inside it to read them all. */
void span_measure(struct app *a, const struct bar *sp, int *depth, uint64_t *self, bool *approx);
uint64_t span_parent(struct app *a, const struct bar *sp);
uint64_t span_child(struct app *a, const struct bar *sp);
/* The span before (dir < 0) or after at the same depth, looking a few
 * thousand events away, then further. */
uint64_t span_step(struct app *a, const struct bar *sp, int dir);

#endif
