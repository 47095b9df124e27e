/* The lanes view: a time axis across, one row per lane.  Spans are bars
 * whose height shows how deeply they nest; instants are marks; where more
 * events share a column than can be drawn, the column shows their density.
 *
 * Drawing reads only the events inside the window, sampled when there are
 * more than a few per cell on screen, plus a bounded look-back for spans that began
 * before the window and are still open: the cost of a frame does not grow
 * with the trace. */
#include <curses.h>
#include <stdlib.h>

#include "src/esc.h"
#include "ui/app.h"

#define SCAN_PER_CELL 8  /* events read per frame: at most this many per cell on screen, */
#define SCAN_MIN 20000   /* but never fewer than this; beyond, the window is sampled */
#define LOOKBACK 1000000 /* events looked at before the window for spans still open */
#define LANE_SCAN 4000000 /* events searched for the next one on a lane */
#define MAX_DEPTH 64

struct cell {
	uint32_t count; /* events starting here (scaled when sampled) */
	uint8_t depth;  /* deepest span covering the column, 0 = none */
	uint8_t role;   /* colour of that span */
	bool hit;       /* an event the search finds starts here */
};

/* Lanes between the axis and the selected event's line (above the status
 * line); a terminal too short for that line gives it to the lanes. */
static bool event_line(const struct app *a) { return a->lines >= 6; }
static int rows(const struct app *a) { return a->lines - 2 - event_line(a); }

/* Lanes shown, in display order; returns how many. */
static size_t shown(struct app *a, uint32_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < a->norder; i++)
		if (lane_shown(a, a->order[i]))
			out[n++] = a->order[i];
	return n;
}

static int name_width(struct app *a)
{
	names_sync(a);
	return MIN(MAX(6, a->lane_w + 1), MAX(8, MIN(28, a->cols / 4)));
}

/* The window stays within ±T_LIM ns (±146 years) so that its arithmetic
 * cannot overflow whatever times a trace holds; events beyond are clipped. */
#define T_LIM (((int64_t)1 << 62) - 1)

static int64_t clamp_t(__int128 v) { return v > T_LIM ? T_LIM : v < -T_LIM ? -T_LIM : (int64_t)v; }

static int64_t col_time(const struct app *a, int W, int c)
{
	return a->lanes.t0 + (int64_t)((__int128)(a->lanes.t1 - a->lanes.t0) * c / W);
}

static int time_col(const struct app *a, int W, int64_t t)
{
	if (t < a->lanes.t0)
		return -1;
	if (t >= a->lanes.t1)
		return W;
	return (int)((__int128)(t - a->lanes.t0) * W / (a->lanes.t1 - a->lanes.t0));
}

static uint8_t span_role(struct app *a, uint32_t type) { return type < a->known_types ? a->type_role[type] : R_SPAN1; }

/* ---- the window ------------------------------------------------------------ */

void lanes_fit(struct app *a)
{
	int64_t first, last;
	if (!model_span(a->m, &first, &last))
		first = last = 0;
	__int128 w = (__int128)last - first;
	if (w < 1000)
		w = 1000;
	a->lanes.t0 = clamp_t(first - w / 50);
	a->lanes.t1 = clamp_t(last + w / 50 + 1);
	if (a->lanes.t1 - a->lanes.t0 < 1000)
		a->lanes.t0 = a->lanes.t1 - 1000;
}

static void set_window(struct app *a, __int128 t0, __int128 t1)
{
	int W = MAX(1, a->cols - name_width(a));
	t0 = clamp_t(t0);
	t1 = clamp_t(t1);
	if (t1 - t0 < W) { /* at most 1 ns per column */
		t1 = t0 + W;
		if (t1 > T_LIM)
			t1 = T_LIM, t0 = T_LIM - W;
	}
	a->lanes.t0 = (int64_t)t0;
	a->lanes.t1 = (int64_t)t1;
}

/* The window moves to a selection outside it (lanes_draw does it when the
 * selection changed since, so that panning away from it stays put). */
static void follow_sel(struct app *a)
{
	if (a->sel == NO_POS || !a->lanes.window_set)
		return;
	int64_t t = model_ts(a->m, a->sel), w = a->lanes.t1 - a->lanes.t0;
	if (t < a->lanes.t0 || t >= a->lanes.t1)
		set_window(a, (__int128)t - w / 2, (__int128)t - w / 2 + w);
}

static void zoom(struct app *a, double f)
{
	int64_t c = a->sel != NO_POS ? model_ts(a->m, a->sel) : a->lanes.t0 + (a->lanes.t1 - a->lanes.t0) / 2;
	double w = (double)(a->lanes.t1 - a->lanes.t0) * f;
	int64_t first, last;
	if (model_span(a->m, &first, &last) && w > 4.0 * ((double)last - (double)first + 1000))
		w = 4.0 * ((double)last - (double)first + 1000);
	c = clamp_t(c);
	double left = (double)(c - a->lanes.t0) / (double)(a->lanes.t1 - a->lanes.t0); /* keep the cursor where it is */
	__int128 t0 = c - (__int128)(w * left);
	set_window(a, t0, t0 + (__int128)w);
}

static void pan(struct app *a, double f)
{
	__int128 d = (__int128)((double)(a->lanes.t1 - a->lanes.t0) * f);
	if (!d)
		d = f < 0 ? -1 : 1;
	set_window(a, a->lanes.t0 + d, a->lanes.t1 + d);
	/* the cursor follows: select the visible event nearest the window's middle */
	uint64_t p = vis_nearest(a, model_seek(a->m, a->lanes.t0 + (a->lanes.t1 - a->lanes.t0) / 2));
	if (p != NO_POS) {
		a->sel = a->lanes.followed = p; /* (the window stays where it was panned) */
		a->sel_ref = ref_of(a, p);
	}
}

/* ---- the grid -------------------------------------------------------------- */

struct open {
	int64_t end;
};

struct grid {
	struct app *a;
	int W, R;
	struct cell *cells;  /* R x W */
	int *row_of;         /* lane id -> row, -1 when not on screen */
	struct open *stack;  /* per row, MAX_DEPTH open spans */
	uint8_t *depth;      /* per row */
	uint32_t scale;
	bool approximate; /* the look-back was cut short: an old span may be missing */
};

/* A span that began before the window and still covers its start. */
struct early {
	int64_t ts, end;
	uint32_t type;
	int row;
	uint32_t input;
	uint64_t off;
};

static int by_start(const void *x, const void *y)
{
	const struct early *a = x, *b = y;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static void span_cells(struct grid *g, int row, int64_t ts, int64_t end, uint32_t type)
{
	/* The bar's height is how many spans are open here: the nesting depth
	 * for nested spans, the concurrency for overlapping ones. */
	uint8_t *d = &g->depth[row], k = 0;
	struct open *st = &g->stack[row * MAX_DEPTH];
	for (uint8_t i = 0; i < *d; i++)
		if (st[i].end > ts)
			st[k++] = st[i];
	*d = k;
	int depth = *d + 1;
	if (*d < MAX_DEPTH)
		st[(*d)++] = (struct open){end};
	int c0 = MAX(0, time_col(g->a, g->W, ts)), c1 = MIN(g->W - 1, time_col(g->a, g->W, end));
	uint8_t role = span_role(g->a, type);
	for (int c = c0; c <= c1; c++) {
		struct cell *cl = &g->cells[row * g->W + c];
		if (depth >= cl->depth) {
			cl->depth = (uint8_t)MIN(depth, 255);
			cl->role = role;
		}
	}
}

static bool is_open(struct app *a, const struct event *e, uint64_t pos)
{
	const uint64_t *open;
	size_t n = model_lane_open(a->m, e->lane, &open);
	for (size_t i = 0; i < n; i++)
		if (open[i] == pos)
			return true;
	return false;
}

/* One event inside the window into the grid. */
static void place(struct grid *g, const struct event *e, uint64_t pos)
{
	if (e->lane >= model_nlanes(g->a->m) || g->row_of[e->lane] < 0 || (e->flags & EVF_META))
		return;
	int row = g->row_of[e->lane];
	int hc = time_col(g->a, g->W, e->ts);
	if (hc >= 0 && hc < g->W && search_hits(g->a, pos))
		g->cells[row * g->W + hc].hit = true;
	enum ev_role r = ev_role(e);
	int64_t end = -1;
	uint64_t other;
	if ((r == ROLE_COMPLETE || r == ROLE_BEGIN) && e->dur != TTV_NODUR)
		end = ts_add(e->ts, e->dur);
	else if (r == ROLE_BEGIN && e->seq && model_partner(g->a->m, pos, &other))
		end = model_ts(g->a->m, other); /* a sequence leaves durations to its partner lookup */
	else if (r == ROLE_BEGIN && !e->seq && is_open(g->a, e, pos))
		return; /* still open: drawn to the window's end with the early spans */
	if (end >= 0) {
		span_cells(g, row, e->ts, end, e->type);
		return;
	}
	if (r == ROLE_END && e->dur != TTV_NODUR)
		return; /* drawn by its begin */
	int c = time_col(g->a, g->W, e->ts);
	if (c >= 0 && c < g->W)
		g->cells[row * g->W + c].count += g->scale;
}

static void add_early(struct early **v, size_t *n, size_t *cap, struct early e)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].ts == e.ts && (*v)[i].input == e.input && (*v)[i].off == e.off && (*v)[i].row == e.row)
			return;
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = e;
}

/* Spans that began before the window and still cover its start: every
 * lane's longest spans, its open begins, and a look-back far enough that any
 * other span covering t0 must start inside it (other spans are no longer than
 * the lanes' `rest` bound). */
static void early_spans(struct grid *g, uint64_t p0, size_t nrows, const uint32_t *lanes)
{
	struct app *a = g->a;
	struct early *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t back = 0;
	struct event e;
	for (size_t r = 0; r < nrows; r++) {
		const struct long_span *ls;
		uint64_t rest, pos;
		size_t nl = model_lane_longest(a->m, lanes[r], &ls, &rest);
		back = MAX(back, rest);
		for (size_t i = 0; i < nl; i++) {
			if (ls[i].ts >= a->lanes.t0 || ts_add(ls[i].ts, ls[i].dur) <= a->lanes.t0)
				continue;
			if (!model_find(a->m, ls[i].ts, ls[i].input, ls[i].off, &pos) || !vis_is(a, pos))
				continue;
			model_get(a->m, pos, &e);
			if (e.dur == ls[i].dur) /* still paired as when it was noted */
				add_early(&v, &n, &cap, (struct early){e.ts, ts_add(e.ts, e.dur), e.type, (int)r, e.input, e.off});
		}
		const uint64_t *open;
		size_t no = model_lane_open(a->m, lanes[r], &open);
		for (size_t i = 0; i < no; i++) {
			if (open[i] >= model_count(a->m) || !vis_is(a, open[i]))
				continue;
			model_get(a->m, open[i], &e);
			if (e.ts < a->lanes.t1)
				add_early(&v, &n, &cap, (struct early){e.ts, a->lanes.t1, e.type, (int)r, e.input, e.off});
		}
	}
	uint64_t from = model_seek(a->m, a->lanes.t0 - (int64_t)MIN(back, (uint64_t)INT64_MAX / 2));
	if (p0 - from > LOOKBACK) {
		from = p0 - LOOKBACK;
		g->approximate = true;
	}
	for (uint64_t p = from; p < p0; p++) {
		model_get(a->m, p, &e);
		enum ev_role r = ev_role(&e);
		if ((r != ROLE_COMPLETE && r != ROLE_BEGIN) || e.dur == TTV_NODUR || ts_add(e.ts, e.dur) <= a->lanes.t0)
			continue;
		if (e.lane < model_nlanes(a->m) && g->row_of[e.lane] >= 0 && vis_is(a, p))
			add_early(&v, &n, &cap, (struct early){e.ts, ts_add(e.ts, e.dur), e.type, g->row_of[e.lane], e.input, e.off});
	}
	if (n)
		qsort(v, n, sizeof *v, by_start);
	for (size_t i = 0; i < n; i++)
		span_cells(g, v[i].row, v[i].ts, v[i].end, v[i].type);
	free(v);
}

static void fill(struct grid *g, size_t nrows, const uint32_t *lanes)
{
	struct app *a = g->a;
	uint64_t p0 = model_seek(a->m, a->lanes.t0), p1 = model_seek(a->m, a->lanes.t1);
	early_spans(g, p0, nrows, lanes);
	uint64_t budget = MAX((uint64_t)SCAN_MIN, (uint64_t)SCAN_PER_CELL * (uint64_t)g->W * (uint64_t)g->R);
	uint64_t n = p1 - p0, step = n > budget ? n / budget : 1;
	g->scale = (uint32_t)MIN(step, UINT32_MAX);
	struct event e;
	for (uint64_t p = p0; p < p1; p += step) {
		if (!vis_is(a, p))
			continue;
		model_get(a->m, p, &e);
		place(g, &e, p);
	}
}

/* ---- drawing --------------------------------------------------------------- */

static const char *span_glyph(const struct app *a, int depth)
{
	static const char *const u[] = {"▂", "▃", "▄", "▅", "▆", "▇", "█"};
	static const char *const asc[] = {"_", "=", "#"};
	return a->unicode ? u[MIN(depth, 7) - 1] : asc[MIN(depth, 3) - 1];
}

static const char *count_glyph(const struct app *a, uint32_t n)
{
	static const char *const u[] = {"·", "░", "▒", "▓"};
	static const char *const asc[] = {".", ":", "*", "#"};
	int i = n <= 1 ? 0 : n <= 4 ? 1 : n <= 19 ? 2 : 3;
	return a->unicode ? u[i] : asc[i];
}

/* The smallest of 1, 2, 5 x 10^k ns that is at least min. */
static int64_t nice_step(int64_t min)
{
	for (int64_t p = 1;; p *= 10)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3)
			if (p * m >= min || p > INT64_MAX / 50)
				return p * m;
}

/* A tick's label: its offset from the origin, or the wall-clock time of
 * day to as many decimals as the step needs. */
static void tick_label(struct app *a, struct buf *b, __int128 t, int64_t origin, int64_t step, int decimals, double div,
		       const char *unit)
{
	int64_t wall;
	if (a->time == TIME_WALL && trace_wall_at(a->t, (int64_t)(t + origin), &wall)) {
		struct buf w = {0};
		fmt_wallclock(&w, wall, false); /* HH:MM:SS.nnnnnnnnn */
		int keep = 0;
		for (int64_t s = step; s < 1000000000 && keep < 9; s *= 10)
			keep++;
		buf_add(b, w.p, 8 + (keep ? 1 + (size_t)keep : 0));
		buf_free(&w);
		return;
	}
	buf_printf(b, "%s%.*f%s", a->time != TIME_RELATIVE ? "@" : t < 0 ? "" : "+", decimals, (double)t / div, unit);
}

/* Tick labels: steps of 1, 2, 5 x 10^k ns, far enough apart to read. */
static void axis(struct app *a, int x0, int W)
{
	draw_role(R_AXIS);
	draw_fill(0, x0, W, " ");
	int64_t first = 0, last;
	model_span(a->m, &first, &last);
	int64_t origin = a->time != TIME_RELATIVE ? 0 : first, wall0;
	if (a->time == TIME_WALL && trace_wall_at(a->t, 0, &wall0))
		origin = wall0 == INT64_MIN ? INT64_MAX : -wall0; /* ticks at round wall-clock times */
	int64_t span = a->lanes.t1 - a->lanes.t0;
	int64_t step = nice_step(span / MAX(1, W / 14));
	const char *unit = step >= 1000000000 ? "s" : step >= 1000000 ? "ms" : step >= 1000 ? "us" : "ns";
	double div = step >= 1000000000 ? 1e9 : step >= 1000000 ? 1e6 : step >= 1000 ? 1e3 : 1;
	int decimals = 0;
	for (int64_t s = step; (double)s < div && decimals < 9; s *= 10)
		decimals++;
	int cur = a->sel != NO_POS ? time_col(a, W, model_ts(a->m, a->sel)) : -1;
	__int128 rel0 = (__int128)a->lanes.t0 - origin; /* wide: origin may be any time */
	__int128 t = rel0 - ((rel0 % step) + step) % step;
	int last_end = -1;
	for (; t + origin < a->lanes.t1; t += step) {
		int c = time_col(a, W, (int64_t)(t + origin));
		if (c < 0 || c >= W)
			continue;
		struct buf b = {0};
		tick_label(a, &b, t, origin, step, decimals, div, unit);
		if (c > last_end && c + 1 + (int)b.len <= W && (cur < c || cur > c + (int)b.len)) {
			mvaddstr(0, x0 + c, a->unicode ? "╷" : "|");
			draw_text(0, x0 + c + 1, W - c - 1, b.p, b.len);
			last_end = c + (int)b.len + 1;
		}
		buf_free(&b);
	}
	if (cur >= 0 && cur < W) {
		draw_role(R_CURSOR);
		mvaddstr(0, x0 + cur, a->unicode ? "▼" : "v");
	}
}

void lanes_draw(struct app *a)
{
	if (a->sel != a->lanes.followed) {
		follow_sel(a);
		a->lanes.followed = a->sel;
	}
	size_t nl = model_nlanes(a->m);
	uint32_t *lanes = xcalloc(nl + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	int NW = name_width(a), W = MAX(1, a->cols - NW), R = MAX(1, rows(a));
	if (a->lanes.cur >= ns && ns)
		a->lanes.cur = ns - 1;
	if (a->lanes.cur < a->lanes.top)
		a->lanes.top = a->lanes.cur;
	if (a->lanes.cur >= a->lanes.top + (size_t)R)
		a->lanes.top = a->lanes.cur - (size_t)R + 1;
	if (a->lanes.top + (size_t)R > ns)
		a->lanes.top = ns > (size_t)R ? ns - (size_t)R : 0;

	/* header: lane count and the axis */
	draw_role(R_TITLE);
	struct buf b = {0};
	buf_printf(&b, "%zu lane%s", ns, ns == 1 ? "" : "s");
	if (ns < nl)
		buf_printf(&b, " (%zu hidden)", nl - ns);
	draw_fill(0, 0, NW, " ");
	draw_text(0, 0, NW - 1, b.p, b.len);
	axis(a, NW, W);

	struct grid g = {.a = a, .W = W, .R = R};
	g.cells = xcalloc((size_t)R * (size_t)W, sizeof *g.cells);
	g.row_of = xmalloc((nl + 1) * sizeof *g.row_of);
	for (size_t i = 0; i < nl; i++)
		g.row_of[i] = -1;
	g.stack = xcalloc((size_t)R * MAX_DEPTH, sizeof *g.stack);
	g.depth = xcalloc((size_t)R, 1);
	size_t nrows = MIN((size_t)R, ns - MIN(ns, a->lanes.top));
	for (size_t r = 0; r < nrows; r++)
		g.row_of[lanes[a->lanes.top + r]] = (int)r;
	if (model_count(a->m))
		fill(&g, nrows, lanes + a->lanes.top);
	if (g.approximate) {
		draw_role(R_WARNING);
		mvaddstr(0, NW - 1, "~"); /* some span that began long before the window may be missing */
	}

	int cur = a->sel != NO_POS ? time_col(a, W, model_ts(a->m, a->sel)) : -1;
	for (int r = 0; r < R && a->lanes.top + (size_t)r < ns; r++) {
		uint32_t lane = lanes[a->lanes.top + (size_t)r];
		bool selected = a->lanes.top + (size_t)r == a->lanes.cur;
		int y = r + 1;
		buf_reset(&b);
		size_t n;
		const char *s = model_strget(a->m, model_lane_get(a->m, lane)->name, &n);
		if (a->lane_flags[lane] & LANE_PICKED)
			buf_addc(&b, '*');
		esc_term(&b, s, n);
		draw_role(selected ? R_SELECTED : R_LANE_NAME);
		draw_fill(y, 0, NW - 1, " ");
		draw_column(a, y, 0, NW - 1, b.p, b.len, selected ? R_SELECTED : R_LANE_NAME);
		for (int c = 0; c < W; c++) {
			const struct cell *cl = &g.cells[r * W + c];
			if (cl->depth) {
				draw_role(cl->hit ? R_MATCH : (enum role)cl->role);
				mvaddstr(y, NW + c, span_glyph(a, cl->depth));
			} else if (cl->count) {
				draw_role(cl->hit ? R_MATCH : R_DENSITY);
				mvaddstr(y, NW + c, count_glyph(a, cl->count));
			}
			if (c == cur && selected) {
				draw_role(R_CURSOR);
				mvaddstr(y, NW + c, cl->depth ? span_glyph(a, cl->depth) : cl->count ? count_glyph(a, cl->count) : "│");
			}
		}
	}
	if (!ns) {
		draw_role(R_DIM);
		draw_str(2, 2, a->cols - 4, model_nlanes(a->m) ? "every lane is hidden (X shows them)" : a->loading ? "reading..." : "no events");
	}
	if (event_line(a) && a->sel != NO_POS && vis_is(a, a->sel))
		row_draw_one(a, a->lines - 2, a->sel); /* what the cursor is on, as the list shows it */
	buf_free(&b);
	free(g.cells);
	free(g.row_of);
	free(g.stack);
	free(g.depth);
	free(lanes);
}

/* ---- moving ---------------------------------------------------------------- */

/* The visible event on `lane` nearest to time t: the first one found each
 * way from t (each search bounded), whichever is closer in time. */
static uint64_t nearest_on_lane(struct app *a, uint32_t lane, int64_t t)
{
	uint64_t mid = model_seek(a->m, t), n = model_count(a->m), fwd = NO_POS, back = NO_POS;
	struct event e;
	for (uint64_t p = mid, k = 0; p < n && k < LANE_SCAN; p++, k++) {
		model_get(a->m, p, &e);
		if (e.lane == lane && vis_is(a, p)) {
			fwd = p;
			break;
		}
	}
	for (uint64_t p = mid, k = 0; p > 0 && k < LANE_SCAN; k++) {
		model_get(a->m, --p, &e);
		if (e.lane == lane && vis_is(a, p)) {
			back = p;
			break;
		}
	}
	if (fwd == NO_POS || back == NO_POS)
		return fwd != NO_POS ? fwd : back;
	return model_ts(a->m, fwd) - t < t - model_ts(a->m, back) ? fwd : back;
}

static uint64_t step_on_lane(struct app *a, int dir)
{
	if (a->sel == NO_POS)
		return NO_POS;
	struct event e;
	model_get(a->m, a->sel, &e);
	uint32_t lane = e.lane;
	uint64_t p = a->sel;
	for (uint64_t k = 0; k < LANE_SCAN; k++) {
		p = dir > 0 ? vis_next(a, p) : vis_prev(a, p);
		if (p == NO_POS)
			return NO_POS;
		model_get(a->m, p, &e);
		if (e.lane == lane)
			return p;
	}
	message(a, true, "no other event on this lane within %d events", LANE_SCAN);
	return NO_POS;
}

static void to_lane(struct app *a, size_t idx)
{
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	if (!ns) {
		free(lanes);
		return;
	}
	a->lanes.cur = MIN(idx, ns - 1);
	int64_t t = a->sel != NO_POS ? model_ts(a->m, a->sel) : a->lanes.t0;
	uint64_t p = nearest_on_lane(a, lanes[a->lanes.cur], t);
	if (p != NO_POS) {
		size_t keep = a->lanes.cur;
		select_pos(a, p);
		a->lanes.cur = keep;
	} else {
		message(a, false, "no visible event on this lane near the cursor");
	}
	free(lanes);
}

bool lanes_action(struct app *a, enum action act)
{
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	uint32_t cur = ns ? lanes[MIN(a->lanes.cur, ns - 1)] : 0;
	free(lanes);
	int page = MAX(1, rows(a) - 1);
	switch (act) {
	case ACT_MOVE_DOWN: to_lane(a, a->lanes.cur + 1); return true;
	case ACT_MOVE_UP: to_lane(a, a->lanes.cur ? a->lanes.cur - 1 : 0); return true;
	case ACT_HALF_DOWN: to_lane(a, a->lanes.cur + (size_t)page / 2); return true;
	case ACT_HALF_UP: to_lane(a, a->lanes.cur > (size_t)page / 2 ? a->lanes.cur - (size_t)page / 2 : 0); return true;
	case ACT_PAGE_DOWN: pan(a, 0.75); return true;
	case ACT_PAGE_UP: pan(a, -0.75); return true;
	case ACT_PAN_LEFT: pan(a, -0.25); return true;
	case ACT_PAN_RIGHT: pan(a, 0.25); return true;
	case ACT_ZOOM_IN: zoom(a, 0.5); return true;
	case ACT_ZOOM_OUT: zoom(a, 2.0); return true;
	case ACT_ZOOM_ALL: lanes_fit(a); return true;
	case ACT_ZOOM_SPAN: {
		struct event e;
		uint64_t other;
		if (a->sel == NO_POS)
			return true;
		model_get(a->m, a->sel, &e);
		int64_t s = e.ts, t = e.dur != TTV_NODUR ? ts_add(e.ts, e.dur) : e.ts;
		if (e.dur == TTV_NODUR && model_partner(a->m, a->sel, &other)) {
			t = model_ts(a->m, other);
			if (t < s) {
				int64_t x = s;
				s = t, t = x;
			}
		}
		if (t == s) {
			message(a, false, "not a span: zooming in instead");
			zoom(a, 0.5);
			return true;
		}
		__int128 m = ((__int128)t - s) / 20 + 1; /* wide: s and t may be any times */
		set_window(a, s - m, t + m);
		return true;
	}
	case ACT_FIRST:
	case ACT_LAST:
		jump_to(a, act == ACT_FIRST ? vis_first(a) : vis_last(a));
		follow_sel(a);
		return true;
	case ACT_PREV_ON_LANE:
	case ACT_NEXT_ON_LANE: {
		uint64_t p = step_on_lane(a, act == ACT_NEXT_ON_LANE ? 1 : -1);
		if (p != NO_POS)
			select_pos(a, p);
		return true;
	}
	case ACT_HIDE_LANE:
		if (!ns)
			return true;
		a->lane_flags[cur] |= LANE_HIDDEN;
		vis_reset(a);
		message(a, false, "lane hidden (X shows every lane again)");
		if (a->sel != NO_POS && !vis_is(a, a->sel))
			to_lane(a, a->lanes.cur);
		return true;
	case ACT_SHOW_LANES:
		for (size_t i = 0; i < a->caplaneflags; i++)
			a->lane_flags[i] &= (uint8_t)~LANE_HIDDEN;
		vis_reset(a);
		return true;
	case ACT_PICK_LANE:
		if (!ns)
			return true;
		a->lane_flags[cur] ^= LANE_PICKED;
		vis_reset(a);
		message(a, false, "%s", a->lane_flags[cur] & LANE_PICKED ? "lane picked: the list shows picked lanes"
									   : "lane unpicked");
		return true;
	case ACT_ITEM_UP:
	case ACT_ITEM_DOWN: {
		/* swap with the neighbour in the display order */
		size_t i = 0;
		while (i < a->norder && a->order[i] != cur)
			i++;
		size_t j = i;
		do
			j = act == ACT_ITEM_UP ? j - 1 : j + 1;
		while (j < a->norder && !lane_shown(a, a->order[j]));
		if (i >= a->norder || j >= a->norder)
			return true;
		a->order[i] = a->order[j];
		a->order[j] = cur;
		a->lanes.cur = act == ACT_ITEM_UP ? a->lanes.cur - 1 : a->lanes.cur + 1;
		return true;
	}
	default: return false;
	}
}

void lanes_click(struct app *a, int line, int col)
{
	int NW = name_width(a), W = MAX(1, a->cols - NW);
	if (line < 1 || line > rows(a))
		return;
	size_t idx = a->lanes.top + (size_t)(line - 1);
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	if (idx < ns) {
		int64_t t = col >= NW ? col_time(a, W, col - NW) : (a->sel != NO_POS ? model_ts(a->m, a->sel) : a->lanes.t0);
		uint64_t p = nearest_on_lane(a, lanes[idx], t);
		a->lanes.cur = idx;
		if (p != NO_POS) {
			select_pos(a, p);
			a->lanes.cur = idx;
		}
	}
	free(lanes);
}
