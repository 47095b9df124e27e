/* ui floor 5 */
/* The selection as a span in the lanes view: its depth, parent, first
 * child, the spans before and after it at the same depth, and its self
 * time.  Each answer lays out the spans of its lane around the selection
 * (bars.c, every span kept) and nests them by the rule every view and
 * writer uses (src/nest.h), so the status line and the keys say what the
 * call tree, --report and the spans table say. */
#include <stdlib.h>

#include "src/nest.h"
#include "ui/bars.h"
#include "ui/nav.h"

#define NAV_BUDGET 1000000 /* events read per look; beyond, sampled */
#define MEASURE_BUDGET 100000 /* ... to measure a span's self time (a keystroke's worth) */
#define NAV_LOOKBACK 65536  /* events looked at before it for spans around it (a keystroke's worth) */
#define NAV_TRIES 16       /* each try looks 4 times further */
#define STEP_FIRST 4096    /* events the span next door is looked for among first */

bool span_of(struct app *a, uint64_t pos, struct bar *out)
{
	if (pos == NO_POS || pos >= model_count(a->m))
		return false;
	struct event e;
	model_get(a->m, pos, &e);
	int64_t end;
	if (!span_end(a->m, &e, pos, &end) || end == e.ts) /* (an instant in all but name) */
		return false;
	*out = (struct bar){.ts = e.ts, .end = end, .pos = pos, .lane = e.lane, .name = e.name, .type = e.type,
			    .kind = end == INT64_MAX ? BAR_OPEN : BAR_SPAN};
	return true;
}

/* How one bar of a lane nests among the others laid out with it. */
struct nested {
	int depth;
	long parent; /* index of its parent's bar, -1: none */
	uint64_t self;
};

/* A bar as it nests. */
struct nest_bar {
	struct nest_open n;
	size_t i; /* its index in the lane's bars */
};

static void nested_close(void *ctx, struct nest_open *span, size_t depth, struct nest_open *parent)
{
	struct nested *out = ctx;
	const struct nest_bar *b = (const struct nest_bar *)span;
	out[b->i] = (struct nested){(int)depth, parent ? (long)((const struct nest_bar *)parent)->i : -1,
				    nest_self(span)};
}

/* The lane's bars nested (src/nest.h): spans of grouped types beside
 * everything, open ones (no end yet) holding nothing, as the call tree
 * leaves them out. */
static struct nested *nest_lane(struct app *a, const struct lane_bars *lb)
{
	struct nested *out = xcalloc(lb->n + 1, sizeof *out);
	struct nest st;
	nest_init(&st, sizeof(struct nest_bar), nested_close, out);
	for (size_t i = 0; i < lb->n; i++) {
		const struct bar *b = &lb->v[i];
		struct nest_bar nb = {{b->ts, b->end, 0}, i};
		size_t depth;
		struct nest_open *up;
		if (model_type_get(a->m, b->type)->grouped)
			out[i] = (struct nested){0, -1, ts_span(b->ts, b->end)};
		else if (b->end == INT64_MAX) { /* open: where it would go, holding nothing */
			depth = nest_depth_at(&st, b->ts, &up);
			out[i] = (struct nested){(int)depth, up ? (long)((struct nest_bar *)up)->i : -1, 0};
		}
		else if (b->id)
			nest_add_named(&st, &nb, b->id, b->parent_id, &depth, &up);
		else
			nest_add(&st, &nb);
	}
	nest_close_all(&st);
	nest_free(&st);
	return out;
}

/* The spans of one lane in [t0, t1), every one a bar, nested. */
struct around {
	struct bars bs;
	struct lane_bars *lb;
	struct nested *nest;
	long at; /* the span asked about (-1: not among them) */
};

/* (keep: the look-back before t0 kept for the next look from there, or NULL) */
static void around(struct app *a, struct around *ar, const struct bar *sp, int64_t t0, int64_t t1, uint64_t budget,
		   struct bars_early *keep)
{
	bars_make(&ar->bs, a, &sp->lane, 1, t0, MAX(t1, ts_add(t0, 1)), 0, budget, NAV_LOOKBACK, keep);
	ar->lb = &ar->bs.lane[0];
	ar->nest = nest_lane(a, ar->lb);
	ar->at = -1;
	for (size_t i = 0; i < ar->lb->n && ar->at < 0; i++)
		if (ar->lb->v[i].pos == sp->pos)
			ar->at = (long)i;
}

static void around_free(struct around *ar)
{
	free(ar->nest);
	bars_free(&ar->bs);
}

/* A span of a grouped type sits beside the others (src/nest.h): depth 0,
 * no parent, no children, all its time its own; nothing to read. */
static bool beside(struct app *a, const struct bar *sp) { return model_type_get(a->m, sp->type)->grouped; }

static int depth_of(struct app *a, const struct bar *sp)
{
	if (beside(a, sp))
		return 0;
	struct around ar;
	around(a, &ar, sp, sp->ts, ts_add(sp->ts, 1), NAV_BUDGET, NULL);
	int depth = ar.at >= 0 ? ar.nest[ar.at].depth : 0;
	around_free(&ar);
	return depth;
}

uint64_t span_parent(struct app *a, const struct bar *sp)
{
	if (beside(a, sp))
		return NO_POS;
	struct around ar;
	around(a, &ar, sp, sp->ts, ts_add(sp->ts, 1), NAV_BUDGET, NULL);
	long p = ar.at >= 0 ? ar.nest[ar.at].parent : -1;
	uint64_t found = p >= 0 ? ar.lb->v[p].pos : NO_POS;
	around_free(&ar);
	return found;
}

/* When the next span of the span's lane inside it starts (the store
 * passes over other lanes' events): false when there is none, true with
 * *at = INT64_MIN when NAV_BUDGET events did not tell. */
static bool next_inside(struct app *a, const struct bar *sp, int64_t end, int64_t *at)
{
	uint64_t n = model_count(a->m), from = model_seek(a->m, sp->ts);
	uint64_t stop = from + MIN(NAV_BUDGET, n - MIN(n, from));
	struct idset one;
	idset_make(&one, &sp->lane, 1);
	struct event e;
	*at = INT64_MIN;
	uint64_t p = from;
	for (; (p = model_lanes_next(a->m, &one, p, stop)) < stop; p++) {
		model_get(a->m, p, &e);
		int64_t e_end;
		if (e.ts >= end || (p != sp->pos && !(e.flags & EVF_META) && span_end(a->m, &e, p, &e_end) && vis_is(a, p)))
			break;
	}
	idset_free(&one);
	if (p < stop) { /* (a span inside it, or the lane's first event past its end) */
		if (e.ts < end)
			*at = e.ts;
		return e.ts < end;
	}
	/* (none within the budget: none at all when the trace or the span ends
	 * there) */
	return stop < n && model_ts(a->m, stop) < end;
}

/* The first child: looked for from the span's start, in a window that
 * grows 4 times at each try (a first child is near its parent's start,
 * mostly: a long span is not laid out whole for it), from where the
 * lane's next event inside it starts (none: a leaf, told at once). */
uint64_t span_child(struct app *a, const struct bar *sp)
{
	int64_t first, last, next;
	if (beside(a, sp) || !model_span(a->m, &first, &last))
		return NO_POS;
	int64_t end = sp->end == INT64_MAX ? ts_add(last, 1) : sp->end;
	if (!next_inside(a, sp, end, &next))
		return NO_POS;
	uint64_t w = MAX(ts_span(sp->ts, end) / 4096, 1000);
	if (next != INT64_MIN)
		w = MAX(w, ts_span(sp->ts, next) + 1);
	struct bars_early keep = {0};
	uint64_t found = NO_POS;
	bool done = false;
	for (int t = 0; t < NAV_TRIES && !done; t++, w = MIN(w * 4, (uint64_t)INT64_MAX / 4)) {
		int64_t to = t == NAV_TRIES - 1 ? end : MIN(ts_add(sp->ts, w), end);
		struct around ar;
		around(a, &ar, sp, sp->ts, to, NAV_BUDGET, &keep);
		for (size_t i = 0; ar.at >= 0 && i < ar.lb->n && found == NO_POS; i++)
			if (ar.nest[i].parent == ar.at)
				found = ar.lb->v[i].pos; /* (in start order: the first) */
		done = found != NO_POS || ar.at < 0 || to >= end;
		around_free(&ar);
	}
	bars_early_free(&keep);
	return found;
}

/* Where a look STEP events of the store from time `at` ends (dir > 0:
 * after it, past the last event when the trace ends first; dir < 0:
 * before it, at the first event when it starts first). */
static int64_t events_away(struct app *a, int64_t at, int dir, uint64_t step, int64_t first, int64_t last)
{
	uint64_t n = model_count(a->m), p = model_seek(a->m, at);
	if (dir > 0 ? p + step >= n : p <= step)
		return dir > 0 ? ts_add(last, 1) : first;
	int64_t t = model_ts(a->m, dir > 0 ? p + step : p - step); /* (once: MIN and MAX take their arguments twice) */
	return dir > 0 ? MAX(t, ts_add(at, 1)) : MIN(t, ts_sub(at, 1));
}

/* The span before (dir < 0) or after (dir > 0) at the same depth, looking
 * further each try: STEP_FIRST events of the store, then 4 times more (by
 * events, not time: a keystroke's worth where the trace is dense, and far
 * enough where it is sparse). */
uint64_t span_step(struct app *a, const struct bar *sp, int dir)
{
	int depth = depth_of(a, sp);
	int64_t first, last;
	if (!model_span(a->m, &first, &last))
		return NO_POS;
	uint64_t step = STEP_FIRST, found = NO_POS;
	struct bars_early keep = {0}; /* (forward, each look starts where the span ends) */
	bool done = false;
	for (int t = 0; t < NAV_TRIES && !done; t++, step = MIN(step * 4, UINT64_MAX / 8)) {
		int64_t from, to;
		if (dir > 0) {
			from = sp->end == INT64_MAX ? sp->ts : sp->end;
			to = events_away(a, from, 1, step, first, last);
		} else {
			to = sp->ts;
			from = events_away(a, to, -1, step, first, last);
		}
		struct around ar;
		around(a, &ar, sp, from, to, NAV_BUDGET, &keep);
		for (size_t i = 0; i < ar.lb->n; i++) {
			const struct bar *b = &ar.lb->v[i];
			if (ar.nest[i].depth != depth || b->pos == sp->pos)
				continue;
			if (dir > 0 ? b->ts >= from && found == NO_POS : b->ts < sp->ts)
				found = b->pos; /* forward: the first; back: the last to start */
		}
		around_free(&ar);
		done = found != NO_POS || (dir > 0 ? to > last : from <= first);
	}
	bars_early_free(&keep);
	return found;
}

void span_measure(struct app *a, const struct bar *sp, int *depth, uint64_t *self, bool *approx)
{
	if (beside(a, sp)) {
		*depth = 0;
		*self = sp->end != INT64_MAX ? ts_span(sp->ts, sp->end) : 0;
		*approx = false;
		return;
	}
	struct around ar;
	around(a, &ar, sp, sp->ts, sp->end == INT64_MAX ? ts_add(sp->ts, 1) : sp->end, MEASURE_BUDGET, NULL);
	*approx = ar.bs.sampled;
	*depth = ar.at >= 0 ? ar.nest[ar.at].depth : 0;
	*self = ar.at >= 0 && sp->end != INT64_MAX ? ar.nest[ar.at].self : 0;
	around_free(&ar);
}
