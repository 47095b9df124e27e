/* ui floor 4 */
/* The lanes view's window as bars: every span, open begin, unpaired end and
 * instant of some lanes inside [t0, t1).  Spans are taken in start order and
 * each goes to the lowest row of its lane free at its start: nested spans go
 * one row deeper than their parent, overlapping ones side by side.  A span
 * that names its parent (trace_span_ids) goes to the lowest row free below
 * that parent's, so concurrent trees do not pass for one.  Spans a
 * cell wide or more are kept as bars; narrower ones, instants and unpaired
 * ends are counted per column, so a frame keeps at most a few bars per cell.
 *
 * It reads the spans that began before the window and still cover its start
 * (each lane's longest spans, its open begins, and a bounded look-back),
 * then the window's events, sampled when there are more than the budget:
 * the cost does not grow with the trace. */
#include <stdlib.h>

#include "ui/bars.h"
#include "ui/nav.h"

enum role bar_role(struct app *a, const struct bar *b)
{
	if (b->pos == a->sel)
		return R_SELECTED;
	if (search_hits(a, b->pos))
		return R_MATCH;
	size_t n;
	const char *s = b->name ? model_strget(a->m, b->name, &n) : NULL;
	if (s && n)
		return (enum role)(R_SPAN1 + hash_bytes(s, n) % SPAN_ROLES);
	return b->type < a->known_types ? (enum role)a->type_role[b->type] : R_SPAN1;
}

uint32_t bar_name(const struct app *a, const struct bar *b)
{
	if (!b->name)
		return model_type_get(a->m, b->type)->name;
	return a->raw_names ? model_name_raw(a->m, b->name) : b->name;
}

#define SAMPLE_RUN 256 /* events read in a row when the window is sampled */
#define SEEK_READS 8   /* a seek's search of one stream costs about as much as reading 8 events */
#define MIN_RUNS 16    /* runs at least, however many streams a seek searches */
#define EARLY_RUN 256  /* events read at once (model_read), most on lanes not asked for */
#define SEQ_LOOKBACK 65536 /* events looked at before the window on lanes of sequences */

/* The column of time t (-1 before the window, W after it). */
static int bars_col(const struct bars *bs, int64_t t)
{
	if (t < bs->t0)
		return -1;
	if (t >= bs->t1 || !bs->W)
		return bs->W;
	uint64_t d = (uint64_t)t - (uint64_t)bs->t0, span = (uint64_t)bs->t1 - (uint64_t)bs->t0;
	if (d < (1ull << 47) && bs->W < (1 << 16)) /* (the product fits: no 128-bit division, 39 h of window) */
		return (int)(d * (uint64_t)bs->W / span);
	return (int)((unsigned __int128)d * (unsigned)bs->W / span);
}

static struct lane_bars *lane_of(struct bars *bs, uint32_t lane)
{
	return lane < bs->nindex && bs->index[lane] >= 0 ? &bs->lane[bs->index[lane]] : NULL;
}

static bool is_open(struct model *m, const struct event *e, uint64_t pos)
{
	const uint64_t *open;
	size_t n = model_lane_open(m, e->lane, &open);
	for (size_t i = 0; i < n; i++)
		if (open[i] == pos)
			return true;
	return false;
}

static struct bar bar_of(struct app *a, const struct event *e, uint64_t pos, int64_t end, enum bar_kind kind)
{
	struct bar b = {
		.ts = e->ts, .end = end, .pos = pos, .lane = e->lane, .name = e->name, .type = e->type, .kind = kind};
	if (!trace_span_ids(a->t, e, &b.id, &b.parent_id))
		b.id = b.parent_id = 0;
	return b;
}

/* bar_role, a name's hash taken once a window (a dense one holds
 * thousands of narrow spans of a few names). */
static uint8_t narrow_role(struct bars *bs, struct app *a, const struct bar *b)
{
	if (!b->name || b->pos == a->sel || search_hits(a, b->pos))
		return (uint8_t)bar_role(a, b);
	size_t k = b->name % (sizeof bs->name_roles / sizeof bs->name_roles[0]);
	if (bs->name_roles[k].name != b->name) {
		bs->name_roles[k].name = b->name;
		bs->name_roles[k].role = (uint8_t)bar_role(a, b);
	}
	return bs->name_roles[k].role;
}

/* A span, in start order: the lowest row free at its start; a bar when
 * it is a cell wide or more, else counted on its row. */
static void add_span(struct bars *bs, struct app *a, struct lane_bars *lb, struct bar b)
{
	int r = 0;
	uint64_t up;
	if (b.parent_id && hmap_get(&lb->ids, b.parent_id, &up)) { /* below its parent */
		r = (int)(up & 0xffff) + 1;
		b.linked = true;
		b.parent = (up >> 16) - 1;
	}
	while (r < lb->rows && lb->row_end[r] > b.ts)
		r++;
	if (r >= BARS_MAX_ROWS)
		r = BARS_MAX_ROWS - 1; /* deeper than can be told apart: on the last row */
	else
		for (; lb->rows <= r; lb->rows++) /* (rows skipped below a parent stay free) */
			lb->row_end[lb->rows] = INT64_MIN;
	lb->row_end[r] = b.end;
	b.row = (uint16_t)r;
	if (b.id)
		hmap_put(&lb->ids, b.id, (uint64_t)r | (b.pos + 1) << 16);
	int c0 = MAX(0, bars_col(bs, b.ts)), c1 = b.end == INT64_MAX ? bs->W - 1 : MIN(bs->W - 1, bars_col(bs, b.end));
	if (c0 >= bs->W && bs->W)
		return;
	if (c0 == c1 && b.kind == BAR_SPAN && bs->W) {
		size_t at = (size_t)MIN(r, BARS_ROWS) * (size_t)bs->W + (size_t)c0;
		uint32_t *cell = &lb->narrow[at];
		if (!(*cell & MARK_COUNT)) /* the first one gives the colour */
			lb->narrow_role[at] = narrow_role(bs, a, &b);
		*cell = (*cell & ~MARK_COUNT) | MIN((*cell & MARK_COUNT) + bs->scale, MARK_COUNT);
		if (search_hits(a, b.pos))
			*cell |= MARK_HIT;
		return;
	}
	xgrow(&lb->v, &lb->cap, lb->n + 1, sizeof *lb->v);
	lb->v[lb->n++] = b;
}

static void add_mark(struct bars *bs, struct app *a, struct lane_bars *lb, const struct event *e, uint64_t pos)
{
	if (!bs->W)
		return;
	int c = bars_col(bs, e->ts);
	if (c < 0 || c >= bs->W)
		return;
	uint32_t *cell = &lb->marks[c];
	lb->has_marks = true;
	if (lb->sample)
		lb->sample[c] = pos; /* (read in time order: the column's last) */
	*cell = (*cell & ~MARK_COUNT) | MIN((*cell & MARK_COUNT) + bs->scale, MARK_COUNT);
	if (search_hits(a, pos))
		*cell |= MARK_HIT;
	if (ev_role(e) == ROLE_END)
		*cell |= MARK_UNOPENED;
}

static int by_start(const void *x, const void *y)
{
	const struct bar *a = x, *b = y;
	return a->ts < b->ts ? -1 : a->ts > b->ts ? 1 : a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The same span found twice (a long span that is also in the look-back). */
static bool have(const struct bar *v, size_t n, uint64_t pos)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pos == pos)
			return true;
	return false;
}

static void early_add(struct bar **v, size_t *n, size_t *cap, struct bar b)
{
	if (have(*v, *n, b.pos))
		return;
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = b;
}

bool span_end(struct model *m, const struct event *e, uint64_t p, int64_t *end)
{
	enum ev_role r = ev_role(e);
	uint64_t other;
	if ((r == ROLE_COMPLETE || r == ROLE_BEGIN) && e->dur != TTV_NODUR)
		*end = ts_add(e->ts, e->dur);
	else if (r == ROLE_BEGIN && e->seq && model_partner(m, p, &other)) /* (durations by partner) */
		*end = model_ts(m, other);
	else if (r == ROLE_BEGIN && (e->seq || is_open(m, e, p)))
		*end = INT64_MAX;
	else
		return false;
	return true;
}

typedef void on_event_fn(struct bars *bs, struct app *a, const struct event *e, uint64_t pos, void *ctx);

/* fn on each event of [from, to) on the bars' lanes, in order: all events
 * read in runs, or, for a few lanes among many, only theirs (the store
 * passes over the rest: model_lanes_next). */
static void each_on_lanes(struct bars *bs, struct app *a, uint64_t from, uint64_t to, on_event_fn *fn, void *ctx)
{
	if (bs->sought.n) {
		struct event e;
		for (uint64_t p = from; (p = model_lanes_next(a->m, &bs->sought, p, to)) < to; p++) {
			model_get(a->m, p, &e);
			fn(bs, a, &e, p, ctx);
		}
		return;
	}
	struct event run[EARLY_RUN];
	for (uint64_t p = from; p < to;) {
		size_t n = (size_t)MIN((uint64_t)EARLY_RUN, to - p);
		model_read(a->m, p, n, run);
		for (size_t i = 0; i < n; i++)
			if (lane_of(bs, run[i].lane))
				fn(bs, a, &run[i], p + i, ctx);
		p += n;
	}
}

struct early_bars {
	struct bar *v;
	size_t n, cap;
};

/* A span of the look-back that still covers the window's start. */
static void early_seen(struct bars *bs, struct app *a, const struct event *e, uint64_t pos, void *ctx)
{
	struct early_bars *eb = ctx;
	int64_t end;
	if (span_end(a->m, e, pos, &end) && end > bs->t0 && (bs->all_shown || vis_is(a, pos)))
		early_add(&eb->v, &eb->n, &eb->cap, bar_of(a, e, pos, end, end == INT64_MAX ? BAR_OPEN : BAR_SPAN));
}

/* Spans that began before the window and still cover its start: every
 * lane's longest spans and open begins, and a look-back far enough that any
 * other span covering t0 must start inside it (other spans are no longer
 * than the lanes' `rest` bound).  Given their rows in start order. */
static void early(struct bars *bs, struct app *a, uint64_t p0, uint64_t lookback, struct bars_early *keep)
{
	struct model *m = a->m;
	if (keep && keep->kept && keep->t0 == bs->t0 && bs->n == 1 && keep->lane == bs->lane[0].lane) {
		bs->approximate = keep->approximate;
		for (size_t i = 0; i < keep->n; i++)
			add_span(bs, a, lane_of(bs, keep->v[i].lane), keep->v[i]);
		return;
	}
	struct bar *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t back = 0, pos;
	struct event e;
	for (size_t r = 0; r < bs->n; r++) {
		uint32_t lane = bs->lane[r].lane;
		const struct long_span *ls;
		uint64_t rest;
		size_t nl = model_lane_longest(m, lane, &ls, &rest);
		back = MAX(back, rest);
		for (size_t i = 0; i < nl; i++) {
			if (ls[i].ts >= bs->t0 || ts_add(ls[i].ts, ls[i].dur) <= bs->t0)
				continue;
			if (!model_find(m, ls[i].ts, ls[i].input, ls[i].off, &pos) || !vis_is(a, pos))
				continue;
			model_get(m, pos, &e);
			if (e.dur == ls[i].dur) /* still paired as when it was noted */
				early_add(&v, &n, &cap, bar_of(a, &e, pos, ts_add(e.ts, e.dur), BAR_SPAN));
		}
		const uint64_t *open;
		size_t no = model_lane_open(m, lane, &open);
		for (size_t i = 0; i < no; i++) {
			if (open[i] >= model_count(m) || !vis_is(a, open[i]))
				continue;
			model_get(m, open[i], &e);
			if (e.ts < bs->t0) /* (those inside the window come in order with it) */
				early_add(&v, &n, &cap, bar_of(a, &e, open[i], INT64_MAX, BAR_OPEN));
		}
	}
	/* (a lane of sequences bounds none of its spans: a shorter look-back) */
	if (back == UINT64_MAX)
		lookback = MIN(lookback, SEQ_LOOKBACK);
	uint64_t from = model_seek(m, ts_sub(bs->t0, (int64_t)MIN(back, (uint64_t)INT64_MAX / 2)));
	if (p0 - from > lookback) {
		from = p0 - lookback;
		bs->approximate = true;
	}
	struct early_bars eb = {v, n, cap};
	each_on_lanes(bs, a, from, p0, early_seen, &eb);
	v = eb.v, n = eb.n;
	if (n)
		qsort(v, n, sizeof *v, by_start);
	for (size_t i = 0; i < n; i++)
		add_span(bs, a, lane_of(bs, v[i].lane), v[i]);
	if (keep && bs->n == 1) {
		bars_early_free(keep);
		*keep = (struct bars_early){v, n, bs->t0, bs->lane[0].lane, bs->approximate, true};
		return;
	}
	free(v);
}

void bars_early_free(struct bars_early *k)
{
	free(k->v);
	*k = (struct bars_early){0};
}

/* One event inside the window (they come in time order). */
static void place(struct bars *bs, struct app *a, const struct event *e, uint64_t pos)
{
	struct lane_bars *lb = lane_of(bs, e->lane);
	if (!lb || (e->flags & EVF_META))
		return;
	int64_t end;
	if (span_end(a->m, e, pos, &end))
		add_span(bs, a, lb, bar_of(a, e, pos, end, end == INT64_MAX ? BAR_OPEN : BAR_SPAN));
	else if (ev_role(e) != ROLE_END || e->dur == TTV_NODUR) /* (a paired end is drawn by its begin) */
		add_mark(bs, a, lb, e, pos);
}

static void place_seen(struct bars *bs, struct app *a, const struct event *e, uint64_t pos, void *ctx)
{
	(void)ctx;
	if (bs->all_shown || vis_is(a, pos))
		place(bs, a, e, pos);
}

/* The events of [from, to) on the bars' lanes, unless filtered out. */
static void place_range(struct bars *bs, struct app *a, uint64_t from, uint64_t to)
{
	each_on_lanes(bs, a, from, to, place_seen, NULL);
}

/* A few lanes among many (an eighth or fewer) are looked for alone
 * (model_lanes_next): one store passes over blocks without them, a merge
 * of streams looks at each event's lane alone, reading no more of it. */
static void seek_few(struct bars *bs, const uint32_t *lanes, size_t n, uint32_t nl)
{
	if ((uint64_t)n * 8 > nl)
		return;
	uint32_t *known = xmalloc((n + 1) * sizeof *known);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (lanes[i] < nl)
			known[k++] = lanes[i];
	idset_make(&bs->sought, known, k);
	free(known);
}

void bars_make(struct bars *bs, struct app *a, const uint32_t *lanes, size_t n, int64_t t0, int64_t t1, int W,
	       uint64_t budget, uint64_t lookback, struct bars_early *keep)
{
	*bs = (struct bars){.n = n, .t0 = t0, .t1 = t1, .W = W, .scale = 1, .all_shown = a->vis.all};
	bs->lane = xcalloc(n + 1, sizeof *bs->lane);
	uint32_t nl = model_nlanes(a->m);
	bs->index = xmalloc(((size_t)nl + 1) * sizeof *bs->index);
	for (uint32_t i = 0; i < nl; i++)
		bs->index[i] = -1;
	bs->nindex = nl;
	for (size_t i = 0; i < n; i++) {
		struct lane_bars *lb = &bs->lane[i];
		lb->lane = lanes[i];
		if (W) {
			lb->narrow = xcalloc((size_t)(BARS_ROWS + 1) * (size_t)W, sizeof *lb->narrow);
			lb->narrow_role = xcalloc((size_t)(BARS_ROWS + 1) * (size_t)W, 1);
			lb->marks = xcalloc((size_t)W, sizeof *lb->marks);
			if (lanes[i] < nl && model_lane_get(a->m, lanes[i])->counter) {
				lb->sample = xmalloc((size_t)W * sizeof *lb->sample);
				for (int c = 0; c < W; c++)
					lb->sample[c] = NO_POS;
			}
		}
		if (lanes[i] < nl)
			bs->index[lanes[i]] = (int)i;
	}
	seek_few(bs, lanes, n, nl);
	if (!model_count(a->m))
		return;
	uint64_t p0 = model_seek(a->m, t0), p1 = model_seek(a->m, t1);
	early(bs, a, p0, lookback, keep);
	uint64_t step = p1 - p0 > budget ? (p1 - p0) / budget : 1;
	if (step == 1) {
		place_range(bs, a, p0, p1);
		return;
	}
	/* sampled: runs of SAMPLE_RUN events read in order, at times evenly
	 * apart (a seek by time is cheap in ATF's merged sequences, a seek by
	 * position bisects them); a run costs its reads or its seek's search
	 * of every stream, whichever is more: among many fewer runs, each
	 * event read standing for more */
	uint64_t runs = (p1 - p0) / (step * SAMPLE_RUN) + 1, span = ts_span(t0, t1), done = p0;
	uint64_t searches = (uint64_t)SEEK_READS * model_streams(a->m);
	if (searches > SAMPLE_RUN && runs > MIN_RUNS) {
		runs = MAX(runs * SAMPLE_RUN / searches, MIN_RUNS);
		step = MAX((p1 - p0) / (runs * SAMPLE_RUN), 1);
	}
	bs->scale = (uint32_t)MIN(step, UINT32_MAX);
	bs->sampled = true;
	for (uint64_t k = 0; k < runs; k++) {
		int64_t t = ts_add(t0, (uint64_t)((unsigned __int128)span * k / runs));
		uint64_t at = model_seek(a->m, t); /* (not inside MAX: it would seek twice) */
		at = MAX(at, done);
		done = MIN(at + SAMPLE_RUN, p1);
		place_range(bs, a, at, done);
	}
}

void bars_free(struct bars *bs)
{
	for (size_t i = 0; i < bs->n; i++) {
		free(bs->lane[i].v);
		free(bs->lane[i].narrow);
		free(bs->lane[i].narrow_role);
		free(bs->lane[i].marks);
		free(bs->lane[i].sample);
		hmap_free(&bs->lane[i].ids);
	}
	free(bs->lane);
	free(bs->index);
	idset_free(&bs->sought);
}
