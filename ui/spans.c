/* The selection as a span in the lanes view: its depth, parent, first
 * child, the spans before and after it at the same depth, and its self
 * time.  Each answer lays out the spans of its lane around the selection
 * (bars.c, every span kept), so it agrees with what the lanes view draws. */
#include "ui/bars.h"

#define NAV_BUDGET 1000000 /* events read per look; beyond, sampled */
#define MEASURE_BUDGET 100000 /* ... to measure a span's self time (a keystroke's worth) */
#define NAV_LOOKBACK 65536  /* events looked at before it for spans around it (a keystroke's worth) */
#define NAV_TRIES 16       /* each try looks 4 times further, from a 64th of the window */

/* The selected event as a span: its lane, start, end (INT64_MAX: open),
 * name and type; false when it is not one. */
bool span_of(struct app *a, uint64_t pos, struct bar *out)
{
	if (pos == NO_POS || pos >= model_count(a->m))
		return false;
	struct event e;
	uint64_t other;
	model_get(a->m, pos, &e);
	enum ev_role r = ev_role(&e);
	int64_t end;
	if ((r == ROLE_COMPLETE || r == ROLE_BEGIN) && e.dur != TTV_NODUR && e.dur)
		end = ts_add(e.ts, e.dur);
	else if (r == ROLE_BEGIN && e.dur == TTV_NODUR && model_partner(a->m, pos, &other))
		end = model_ts(a->m, other);
	else if (r == ROLE_BEGIN && e.dur == TTV_NODUR)
		end = INT64_MAX;
	else
		return false;
	*out = (struct bar){.ts = e.ts, .end = end, .pos = pos, .lane = e.lane, .name = e.name, .type = e.type,
			    .kind = end == INT64_MAX ? BAR_OPEN : BAR_SPAN};
	return true;
}

/* The spans of one lane in [t0, t1), every one a bar with its row. */
static struct lane_bars *lay_out(struct app *a, struct bars *bs, uint32_t lane, int64_t t0, int64_t t1, uint64_t budget)
{
	bars_make(bs, a, &lane, 1, t0, MAX(t1, ts_add(t0, 1)), 0, budget, NAV_LOOKBACK);
	return &bs->lane[0];
}

static const struct bar *find(const struct lane_bars *lb, uint64_t pos)
{
	for (size_t i = 0; i < lb->n; i++)
		if (lb->v[i].pos == pos)
			return &lb->v[i];
	return NULL;
}

static int depth_of(struct app *a, const struct bar *sp)
{
	struct bars bs;
	const struct bar *b = find(lay_out(a, &bs, sp->lane, sp->ts, ts_add(sp->ts, 1), NAV_BUDGET), sp->pos);
	int depth = b ? b->row : 0;
	bars_free(&bs);
	return depth;
}

/* c is a child of b: the span it names as its parent, or (a span that
 * names none) one row deeper, starting inside it. */
static bool is_child(const struct bar *c, const struct bar *b)
{
	if (c->id)
		return c->parent_id && c->parent_id == b->id;
	return c->row == b->row + 1 && c->ts >= b->ts;
}

uint64_t span_parent(struct app *a, const struct bar *sp)
{
	struct bars bs;
	struct lane_bars *lb = lay_out(a, &bs, sp->lane, sp->ts, ts_add(sp->ts, 1), NAV_BUDGET);
	const struct bar *b = find(lb, sp->pos);
	uint64_t found = b && b->linked ? b->parent : NO_POS;
	for (size_t i = 0; b && !b->id && b->row && i < lb->n; i++)
		if (lb->v[i].row == b->row - 1 && lb->v[i].ts <= sp->ts && lb->v[i].end >= sp->end)
			found = lb->v[i].pos; /* (the latest to start: the innermost) */
	bars_free(&bs);
	return found;
}

/* The first child: looked for from the span's start, in a window that
 * grows 4 times at each try (a first child is near its parent's start,
 * mostly: a long span is not laid out whole for it). */
uint64_t span_child(struct app *a, const struct bar *sp)
{
	int64_t first, last;
	if (!model_span(a->m, &first, &last))
		return NO_POS;
	int64_t end = sp->end == INT64_MAX ? ts_add(last, 1) : sp->end;
	uint64_t w = MAX(ts_span(sp->ts, end) / 4096, 1000);
	for (int t = 0; t < NAV_TRIES; t++, w = MIN(w * 4, (uint64_t)INT64_MAX / 4)) {
		int64_t to = t == NAV_TRIES - 1 ? end : MIN(ts_add(sp->ts, w), end);
		struct bars bs;
		struct lane_bars *lb = lay_out(a, &bs, sp->lane, sp->ts, to, NAV_BUDGET);
		const struct bar *b = find(lb, sp->pos);
		uint64_t found = NO_POS;
		for (size_t i = 0; b && i < lb->n && found == NO_POS; i++)
			if (is_child(&lb->v[i], b))
				found = lb->v[i].pos; /* (in start order: the first) */
		bars_free(&bs);
		if (found != NO_POS || !b || to >= end)
			return found;
	}
	return NO_POS;
}

/* The span before (dir < 0) or after (dir > 0) at the same depth, looking
 * further each try (the lanes view's window width, then 4 times more). */
uint64_t span_step(struct app *a, const struct bar *sp, int dir, int64_t width)
{
	int depth = depth_of(a, sp);
	int64_t first, last;
	if (!model_span(a->m, &first, &last))
		return NO_POS;
	int64_t w = MAX(width / 64, 1000); /* the span next door is near, mostly */
	for (int t = 0; t < NAV_TRIES; t++, w = (int64_t)MIN((__int128)w * 4, INT64_MAX / 4)) {
		int64_t from = dir > 0 ? (sp->end == INT64_MAX ? sp->ts : sp->end) : ts_sub(sp->ts, w);
		int64_t to = dir > 0 ? ts_add(from, (uint64_t)w) : sp->ts;
		struct bars bs;
		struct lane_bars *lb = lay_out(a, &bs, sp->lane, from, to, NAV_BUDGET);
		uint64_t found = NO_POS;
		for (size_t i = 0; i < lb->n; i++) {
			const struct bar *b = &lb->v[i];
			if (b->row != depth || b->pos == sp->pos)
				continue;
			if (dir > 0 ? b->ts >= from && found == NO_POS : b->ts < sp->ts)
				found = b->pos; /* forward: the first; back: the last to start */
		}
		bars_free(&bs);
		if (found != NO_POS || (dir > 0 ? to >= last : from <= first))
			return found;
	}
	return NO_POS;
}

void span_measure(struct app *a, const struct bar *sp, int *depth, uint64_t *self, bool *approx)
{
	struct bars bs;
	struct lane_bars *lb = lay_out(a, &bs, sp->lane, sp->ts, sp->end == INT64_MAX ? ts_add(sp->ts, 1) : sp->end,
				       MEASURE_BUDGET);
	*approx = bs.sampled;
	const struct bar *b = find(lb, sp->pos);
	uint64_t total = (uint64_t)sp->end - (uint64_t)sp->ts, inner = 0; /* (unsigned: no overflow) */
	for (size_t i = 0; b && sp->end != INT64_MAX && i < lb->n; i++) {
		const struct bar *c = &lb->v[i];
		if (!is_child(c, b))
			continue;
		int64_t e = MIN(c->end, sp->end);
		if (e > c->ts)
			inner += (uint64_t)e - (uint64_t)c->ts;
	}
	*depth = b ? b->row : 0;
	*self = sp->end == INT64_MAX ? 0 : inner < total ? total - inner : 0;
	bars_free(&bs);
}
