/* ui floor 6 */
/* The lanes view: a time axis across, and per lane a flame chart: one row
 * per nesting depth (up to BARS_ROWS, then a "+N deeper" row), spans as
 * bars with their names inside, edges at eighths of a cell; instants are
 * marks, and where more events share a column than can be told apart the
 * column shows their density.  A collapsed lane is one row: bars shown by
 * height (deeper nesting, taller bar).
 *
 * Drawing reads only the events inside the window, sampled when there are
 * more than a few per cell on screen, plus a bounded look-back for spans
 * that began before the window (bars.c): the cost of a frame does not grow
 * with the trace. */
#include <curses.h>
#include <stdlib.h>

#include "src/esc.h"
#include "ui/app.h"
#include "ui/bars.h"
#include "ui/draw.h"
#include "ui/lanes.h"
#include "ui/nav.h"
#include "ui/row.h"
#include "ui/theme.h"

#define SCAN_PER_CELL 8  /* events read per frame: at most this many per cell on screen, */
#define SCAN_MIN 20000   /* but never fewer than this; beyond, the window is sampled */
#define LANE_SCAN 4000000 /* events searched for the next one on a lane (, and .) */
#define NEAR_SCAN 250000  /* ... each way for one near the cursor (moving to a lane: a keystroke's worth) */
#define LOOKBACK 1000000 /* events looked at before the window for spans still open */

/* Lanes between the axis and the selected event's line (above the status
 * line); a terminal too short for that line gives it to the lanes. */
static bool event_line(const struct app *a) { return a->lines >= 6; }
static int rows(const struct app *a) { return a->lines - 2 - event_line(a); }

/* Lanes shown, in display order; returns how many. */
/* (a lane that holds only metadata has no place on the time axis: the list
 * shows its events) */
static bool untimed_lane(struct app *a, uint32_t lane)
{
	const struct lane *l = model_lane_get(a->m, lane);
	return l && l->count && !l->has_span;
}

static size_t shown(struct app *a, uint32_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < a->norder; i++)
		if (lane_shown(a, a->order[i]) && !untimed_lane(a, a->order[i]))
			out[n++] = a->order[i];
	return n;
}

/* This view's own state (view_own). */
struct lanes_view {
	bool made;
	uint64_t cur_for;  /* the selection the cursor was last put on the lane of */
	size_t top, cur;   /* indices into the lanes shown: the first on screen, the cursor */
	uint64_t followed; /* the selection the window last followed */
	int64_t t0, t1;    /* the time window */
	bool window_set;
	/* the selected span as the status line says it (its name; its
	 * duration, self time and depth), and what it was made for */
	char span_name[160], span_tail[80];
	uint64_t span_key[5];
};

static struct lanes_view *lv_of(struct app *a)
{
	struct lanes_view *lv = view_own(a, V_LANES, sizeof *lv);
	if (!lv->made)
		*lv = (struct lanes_view){.made = true, .cur_for = NO_POS};
	return lv;
}

/* The cursor goes to the selection's lane when the selection moved since
 * it was last put there (here, or in another view). */
static void cursor_follows(struct app *a, const uint32_t *lanes, size_t ns)
{
	struct lanes_view *lv = lv_of(a);
	if (a->sel == lv->cur_for)
		return;
	lv->cur_for = a->sel;
	if (a->sel == NO_POS)
		return;
	struct event e;
	model_get(a->m, a->sel, &e);
	for (size_t i = 0; i < ns; i++)
		if (lanes[i] == e.lane)
			lv->cur = i;
}

/* Select p and keep the cursor where it is (on p's lane, or a lane the
 * move went to though no event of it was found). */
static void select_here(struct app *a, uint64_t p)
{
	select_pos(a, p);
	lv_of(a)->cur_for = a->sel;
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

static int64_t col_time(struct app *a, int W, int c)
{
	struct lanes_view *lv = lv_of(a);
	return lv->t0 + (int64_t)((__int128)(lv->t1 - lv->t0) * c / W);
}

static int time_col(struct app *a, int W, int64_t t)
{
	struct lanes_view *lv = lv_of(a);
	if (t < lv->t0)
		return -1;
	if (t >= lv->t1)
		return W;
	return (int)((__int128)(t - lv->t0) * W / (lv->t1 - lv->t0));
}


/* ---- the window ------------------------------------------------------------ */

void lanes_fit(struct app *a)
{
	struct lanes_view *lv = lv_of(a);
	int64_t first, last;
	if (!model_span(a->m, &first, &last))
		first = last = 0;
	__int128 w = (__int128)last - first;
	if (w < 1000)
		w = 1000;
	lv->t0 = clamp_t(first - w / 50);
	lv->t1 = clamp_t(last + w / 50 + 1);
	if (lv->t1 - lv->t0 < 1000)
		lv->t0 = lv->t1 - 1000;
}

void lanes_first_fit(struct app *a)
{
	struct lanes_view *lv = lv_of(a);
	if (lv->window_set || !model_count(a->m))
		return;
	lanes_fit(a);
	lv->window_set = true;
}

static void set_window(struct app *a, __int128 t0, __int128 t1)
{
	struct lanes_view *lv = lv_of(a);
	int W = MAX(1, a->cols - name_width(a));
	t0 = clamp_t(t0);
	t1 = clamp_t(t1);
	if (t1 - t0 < W) { /* at most 1 ns per column */
		t1 = t0 + W;
		if (t1 > T_LIM)
			t1 = T_LIM, t0 = T_LIM - W;
	}
	lv->t0 = (int64_t)t0;
	lv->t1 = (int64_t)t1;
}

/* The window moves to a selection outside it (lanes_draw does it when the
 * selection changed since, so that panning away from it stays put). */
static void follow_sel(struct app *a)
{
	struct lanes_view *lv = lv_of(a);
	if (a->sel == NO_POS || !lv->window_set)
		return;
	int64_t t = model_ts(a->m, a->sel), w = lv->t1 - lv->t0;
	if (t < lv->t0 || t >= lv->t1)
		set_window(a, (__int128)t - w / 2, (__int128)t - w / 2 + w);
}

static void zoom(struct app *a, double f)
{
	struct lanes_view *lv = lv_of(a);
	int64_t c = a->sel != NO_POS ? model_ts(a->m, a->sel) : lv->t0 + (lv->t1 - lv->t0) / 2;
	double w = (double)(lv->t1 - lv->t0) * f;
	int64_t first, last;
	if (model_span(a->m, &first, &last) && w > 4.0 * ((double)last - (double)first + 1000))
		w = 4.0 * ((double)last - (double)first + 1000);
	c = clamp_t(c);
	double left = (double)(c - lv->t0) / (double)(lv->t1 - lv->t0); /* keep the cursor where it is */
	__int128 t0 = c - (__int128)(w * left);
	set_window(a, t0, t0 + (__int128)w);
}

static void pan(struct app *a, double f)
{
	struct lanes_view *lv = lv_of(a);
	__int128 d = (__int128)((double)(lv->t1 - lv->t0) * f);
	if (!d)
		d = f < 0 ? -1 : 1;
	int64_t first, last; /* no further than the trace's ends: its last time at the right edge, its first at the left */
	if (model_span(a->m, &first, &last))
		d = d > 0 ? MIN(d, MAX(0, (__int128)last - lv->t1)) : MAX(d, MIN(0, (__int128)first - lv->t0));
	if (!d) {
		message(a, false, "%s", f > 0 ? "the end of the trace" : "the start of the trace");
		return;
	}
	set_window(a, lv->t0 + d, lv->t1 + d);
	/* the cursor follows: select the visible event nearest the window's middle */
	uint64_t p = vis_nearest(a, model_seek(a->m, lv->t0 + (lv->t1 - lv->t0) / 2));
	if (p != NO_POS) {
		a->sel = lv->followed = lv->cur_for = p; /* (the window stays where it was panned, the cursor on its lane) */
		a->sel_ref = ref_of(a, p);
	}
}

/* ---- the time range ------------------------------------------------------- */

static void range_said(struct app *a)
{
	struct time_range *r = &a->range;
	if (r->has_lo && r->has_hi && r->hi < r->lo) { /* marked backwards: the other way round */
		int64_t t = r->lo;
		r->lo = r->hi, r->hi = t;
	}
	struct buf b = {0};
	if (r->has_lo && r->has_hi) {
		buf_adds(&b, "time range ");
		fmt_dur(&b, (uint64_t)r->hi - (uint64_t)r->lo);
		buf_adds(&b, " (| keeps only it, Esc clears it)");
	} else {
		buf_adds(&b, r->has_lo ? "time range from here: } marks its end" : "time range to here: { marks its start");
	}
	message(a, false, "%s", buf_str(&b));
	buf_free(&b);
}

/* { and }: the range starts where the selected event starts, ends where
 * it ends (a span's end, an instant's time). */
static void range_mark(struct app *a, bool start)
{
	if (a->sel == NO_POS) {
		message(a, false, "nothing selected to mark");
		return;
	}
	struct bar sp;
	int64_t t = model_ts(a->m, a->sel);
	if (!start && span_of(a, a->sel, &sp) && sp.end != INT64_MAX)
		t = sp.end;
	if (start)
		a->range.has_lo = true, a->range.lo = t;
	else
		a->range.has_hi = true, a->range.hi = t;
	range_said(a);
}

/* A mouse drag across the lanes from column col0 to col1: a time range. */
static void lanes_drag(struct app *a, int line, int col0, int col1)
{
	(void)line;
	int NW = name_width(a), W = MAX(1, a->cols - NW);
	col0 = MIN(MAX(col0 - NW, 0), W), col1 = MIN(MAX(col1 - NW, 0), W);
	a->range = (struct time_range){true, true, col_time(a, W, MIN(col0, col1)), col_time(a, W, MAX(col0, col1))};
	range_said(a);
}

/* |: the range as a filter, range:+A..+B (from the trace's first event,
 * in ns: exact, whatever the clock's values). */
static void range_filter(struct app *a)
{
	if (!a->range.has_lo || !a->range.has_hi) {
		message(a, true, "no time range: { and } mark one (or drag across the lanes)");
		return;
	}
	int64_t first = 0, last;
	model_span(a->m, &first, &last);
	struct buf spec = {0};
	buf_printf(&spec, "range:%+lldns..%+lldns", (long long)ts_sub(a->range.lo, first),
		   (long long)ts_sub(a->range.hi, first));
	char *err = NULL;
	if (filterset_add(a->fs, spec.p, &err)) {
		a->undo = (struct filter_undo){UNDO_ADDED, a->fs->n - 1};
		vis_reset(a);
		message(a, false, "filter %s", spec.p);
	} else {
		message(a, true, "%s", err);
	}
	free(err);
	buf_free(&spec);
}

/* The range on the axis: its ends as brackets, what lies between as a line. */
static void range_draw(struct app *a, int x0, int W)
{
	const struct time_range *r = &a->range;
	if (!r->has_lo && !r->has_hi)
		return;
	int c0 = r->has_lo ? time_col(a, W, r->lo) : -1, c1 = r->has_hi ? time_col(a, W, r->hi) : W;
	draw_role(R_MATCH);
	if (r->has_lo && r->has_hi)
		for (int c = MAX(c0 + 1, 0); c < MIN(c1, W); c++)
			mvaddstr(0, x0 + c, a->unicode ? "═" : "=");
	if (c0 >= 0 && c0 < W)
		mvaddstr(0, x0 + c0, "[");
	if (r->has_hi && c1 >= 0 && c1 < W)
		mvaddstr(0, x0 + c1, "]");
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
static void axis(struct app *a, int x0, int W, int cur)
{
	struct lanes_view *lv = lv_of(a);
	draw_role(R_AXIS);
	draw_fill(0, x0, W, " ");
	int64_t first = 0, last;
	model_span(a->m, &first, &last);
	int64_t origin = a->time != TIME_RELATIVE ? 0 : first, wall0;
	if (a->time == TIME_WALL && trace_wall_at(a->t, 0, &wall0))
		origin = wall0 == INT64_MIN ? INT64_MAX : -wall0; /* ticks at round wall-clock times */
	int64_t span = lv->t1 - lv->t0;
	int64_t step = nice_step(span / MAX(1, W / 14));
	__int128 rel0 = (__int128)lv->t0 - origin; /* wide: origin may be any time */
	/* the unit of the labels' size (+143.5ms, not +143500us), with the
	 * decimals the step needs */
	__int128 rel1 = (__int128)lv->t1 - origin;
	__int128 size = MAX(rel0 < 0 ? -rel0 : rel0, rel1 < 0 ? -rel1 : rel1);
	size = MAX(size, step);
	const char *unit = size >= 1000000000 ? "s" : size >= 1000000 ? "ms" : size >= 1000 ? "us" : "ns";
	double div = size >= 1000000000 ? 1e9 : size >= 1000000 ? 1e6 : size >= 1000 ? 1e3 : 1;
	int decimals = 0;
	for (int64_t s = step; (double)s < div && decimals < 9; s *= 10)
		decimals++;
	__int128 t = rel0 - ((rel0 % step) + step) % step;
	int last_end = -1;
	for (; t + origin < lv->t1; t += step) {
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

/* Where t falls on the row, in eighths of a cell (clamped to the row). */
static int64_t time_x8(struct app *a, int W, int64_t t)
{
	struct lanes_view *lv = lv_of(a);
	if (t <= lv->t0)
		return 0;
	if (t >= lv->t1)
		return (int64_t)W * 8;
	return (int64_t)((__int128)(t - lv->t0) * W * 8 / (lv->t1 - lv->t0));
}

/* A bar's cells: reverse video in its colour (the selected one as the
 * selection is everywhere). */
static void bar_attr(enum role role)
{
	draw_role(role);
	if (role != R_SELECTED)
		attron(A_REVERSE);
}

/* A bar's fill: blank in a theme whose span colours differ; in one where
 * they look alike (mono), a pattern chosen by name, as the colour would be. */
static const char *bar_fill(const struct app *a, const struct bar *b, enum role role)
{
	static const char *const u[] = {" ", "░", "▒"}, *const asc[] = {" ", ".", ":"};
	if (role < R_SPAN1 || role > R_SPAN8 || theme_attr(R_SPAN1) != theme_attr(R_SPAN2))
		return " ";
	size_t n;
	const char *s = model_strget(a->m, b->name, &n);
	size_t i = b->name && n ? hash_bytes(s, n) % 3 : 0;
	return a->unicode ? u[i] : asc[i];
}

/* Left blocks, 1/8 to 7/8 of a cell. */
static const char *const eighths[] = {" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};

/* One lane's rows on screen, h of them: which cells hold something (marks
 * go to the first free row of their column). */
struct lane_cells {
	int W, rows;
	bool *busy; /* rows x W */
};

/* A bar on row y: reverse video with its name inside (cut with an
 * ellipsis), its edges drawn to an eighth of a cell; an open begin shows
 * dashes after its name, to the end. */
static void draw_bar(struct app *a, int y, int x0, struct lane_cells *lc, const struct bar *b)
{
	int W = lc->W;
	int64_t s8 = time_x8(a, W, b->ts), e8 = b->end == INT64_MAX ? (int64_t)W * 8 : time_x8(a, W, b->end);
	if (e8 <= s8)
		e8 = s8 + 1;
	int c0 = (int)(s8 / 8), c1 = (int)MIN((e8 - 1) / 8, W - 1);
	if (c0 >= W)
		return;
	enum role role = bar_role(a, b);
	bool *busy = &lc->busy[b->row * W];
	for (int c = c0; c <= c1; c++)
		busy[c] = true;
	int l8 = (int)(s8 % 8), r8 = (int)(e8 - (int64_t)c1 * 8); /* r8: 1..8 of the last cell */
	int t0 = c0, t1 = c1; /* the cells the name may take */
	if (a->unicode && l8 && role != R_SELECTED) {
		bar_attr(role);
		mvaddstr(y, x0 + c0, eighths[l8]); /* its left part blank: the bar starts within */
		t0++;
	}
	if (a->unicode && r8 < 8 && b->end != INT64_MAX && role != R_SELECTED) {
		draw_role(role);
		mvaddstr(y, x0 + c1, eighths[r8]);
		t1--;
	}
	if (t1 < t0)
		return;
	bar_attr(role);
	draw_fill(y, x0 + t0, t1 - t0 + 1, b->kind == BAR_OPEN ? (a->unicode ? "┄" : "-") : bar_fill(a, b, role));
	if (t1 == t0)
		return; /* no room for a name */
	size_t n;
	const char *name = model_strget(a->m, bar_name(a, b), &n);
	struct buf t = {0};
	esc_term(&t, name, n);
	if (b->kind == BAR_OPEN)
		buf_adds(&t, " (open) ");
	draw_clipped(a, y, x0 + t0, t1 - t0 + 1, t.p, t.len);
	buf_free(&t);
}

/* Density of what a column holds: n events (scaled when sampled). */
static void draw_count(struct app *a, int y, int x, uint32_t cell, enum role role)
{
	draw_role(cell & MARK_HIT ? R_MATCH : role);
	mvaddstr(y, x, count_glyph(a, cell & MARK_COUNT));
}

/* Instants and unpaired ends on row r of the lane, where nothing else is. */
static void draw_marks(struct app *a, int y0, int x0, const struct lane_bars *lb, const struct lane_cells *lc, int r)
{
	for (int c = 0; c < lc->W && r < lc->rows; c++) {
		uint32_t m = lb->marks[c];
		if (!(m & MARK_COUNT) || lc->busy[r * lc->W + c])
			continue;
		if (m & MARK_UNOPENED) {
			draw_role(R_WARNING);
			mvaddstr(y0 + r, x0 + c, a->unicode ? "⊣" : "]");
		} else {
			draw_count(a, y0 + r, x0 + c, m, R_DENSITY);
		}
	}
}

/* Is the selection one of the lane's bars (then drawn as selected)? */
static bool lane_has_bar(const struct lane_bars *lb, uint64_t pos)
{
	for (size_t i = 0; i < lb->n; i++)
		if (lb->v[i].pos == pos)
			return true;
	return false;
}

/* The rows of a lane's spans: one per depth up to BARS_ROWS, and a
 * "+N deeper" row beyond. */
static int span_rows(const struct lane_bars *lb) { return lb->rows <= BARS_ROWS ? lb->rows : BARS_ROWS + 1; }

/* How many rows a lane takes: one when folded; else its span rows, and
 * below them a row for its instants (the only row when it has no spans). */
static int lane_height(const struct app *a, const struct lane_bars *lb)
{
	if (a->lane_flags[lb->lane] & LANE_COLLAPSED)
		return 1;
	return MAX(1, span_rows(lb) + (lb->rows && lb->has_marks));
}

/* A folded lane: one row, each column as tall as the deepest span over
 * it, in that span's colour. */
static void draw_collapsed(struct app *a, int y, int x0, const struct lane_bars *lb, struct lane_cells *lc)
{
	int W = lc->W;
	uint8_t *depth = xcalloc((size_t)W, 1), *role = xcalloc((size_t)W, 1);
	for (int r = 0; r <= BARS_ROWS; r++)
		for (int c = 0; c < W; c++)
			if (lb->narrow[r * W + c] & MARK_COUNT) {
				depth[c] = (uint8_t)(r + 1);
				role[c] = lb->narrow[r * W + c] & MARK_HIT ? (uint8_t)R_MATCH : lb->narrow_role[r * W + c];
			}
	for (size_t i = 0; i < lb->n; i++) {
		const struct bar *b = &lb->v[i];
		int c0 = MAX(0, time_col(a, W, b->ts)), c1 = b->end == INT64_MAX ? W - 1 : MIN(W - 1, time_col(a, W, b->end));
		for (int c = c0; c <= c1; c++)
			if (b->row + 1 >= depth[c]) {
				depth[c] = (uint8_t)MIN(b->row + 1, 255);
				role[c] = (uint8_t)bar_role(a, b);
			}
	}
	for (int c = 0; c < W; c++) {
		if (!depth[c])
			continue;
		draw_role((enum role)role[c]);
		mvaddstr(y, x0 + c, span_glyph(a, depth[c]));
		lc->busy[c] = true;
	}
	free(depth);
	free(role);
}

/* An expanded lane: its bars on their rows, spans narrower than a cell as
 * density; spans deeper than BARS_ROWS as density on the row below (h:
 * the rows on screen, fewer when cut). */
static void draw_expanded(struct app *a, int y0, int x0, int h, const struct lane_bars *lb, struct lane_cells *lc)
{
	int W = lc->W;
	for (int r = 0; r < h && r <= BARS_ROWS; r++)
		for (int c = 0; c < W; c++) {
			uint32_t cell = lb->narrow[r * W + c];
			if (!(cell & MARK_COUNT))
				continue;
			enum role role = (enum role)lb->narrow_role[r * W + c];
			if ((cell & MARK_COUNT) == 1) { /* one span narrower than a cell: a sliver of its bar */
				draw_role(cell & MARK_HIT ? R_MATCH : role);
				mvaddstr(y0 + r, x0 + c, a->unicode ? "▏" : "|");
			} else {
				draw_count(a, y0 + r, x0 + c, cell, role);
			}
			lc->busy[r * W + c] = true;
		}
	for (size_t i = 0; i < lb->n; i++) {
		const struct bar *b = &lb->v[i];
		if (b->row < BARS_ROWS && b->row < h) {
			draw_bar(a, y0 + b->row, x0, lc, b);
			continue;
		}
		if (h <= BARS_ROWS)
			continue; /* the "+N deeper" row is cut off */
		int c0 = MAX(0, time_col(a, W, b->ts)), c1 = b->end == INT64_MAX ? W - 1 : MIN(W - 1, time_col(a, W, b->end));
		draw_role(bar_role(a, b));
		for (int c = c0; c <= c1; c++) {
			mvaddstr(y0 + BARS_ROWS, x0 + c, a->unicode ? "░" : ":");
			lc->busy[BARS_ROWS * W + c] = true;
		}
	}
}

/* The name column of a lane's rows: its name on the first, "+N deeper"
 * on the row below BARS_ROWS when spans nest deeper. */
static void lane_label(struct app *a, int y0, int h, int NW, const struct lane_bars *lb, bool selected)
{
	struct buf b = {0};
	size_t n;
	const char *s = model_strget(a->m, model_lane_get(a->m, lb->lane)->name, &n);
	if (a->lane_flags[lb->lane] & LANE_PICKED)
		buf_addc(&b, '*');
	esc_term(&b, s, n);
	enum role role = selected ? R_SELECTED : R_LANE_NAME;
	draw_role(role);
	draw_fill(y0, 0, NW - 1, " ");
	draw_column(a, y0, 0, NW - 1, b.p, b.len, role);
	for (int r = 1; r < h; r++) {
		draw_role(R_DIM);
		draw_fill(y0 + r, 0, NW - 1, " ");
		if (r == BARS_ROWS && lb->rows > BARS_ROWS) {
			buf_reset(&b);
			buf_printf(&b, " +%d deeper", lb->rows - BARS_ROWS);
			draw_text(y0 + r, 0, NW - 1, b.p, b.len);
		} else {
			mvaddstr(y0 + r, 0, a->unicode ? "│" : "|");
		}
	}
	buf_free(&b);
}

/* The lane index `top` and the lanes from it that fit in R rows; the
 * cursor's lane is among them (top moves down until it is). */
static size_t lanes_fit_rows(struct app *a, struct bars *bs, size_t first, int R, size_t *top)
{
	struct lanes_view *lv = lv_of(a);
	for (;;) {
		int used = 0;
		size_t k = *top - first;
		while (k < bs->n && used + lane_height(a, &bs->lane[k]) <= R)
			used += lane_height(a, &bs->lane[k++]);
		if (k == *top - first && k < bs->n)
			k++; /* a lane taller than the screen: shown cut */
		if (lv->cur < first + k || *top >= lv->cur)
			return k - (*top - first);
		(*top)++;
	}
}

static void lanes_header(struct app *a, int NW, int W, int cur, size_t ns, bool approximate)
{
	size_t nl = model_nlanes(a->m);
	struct buf b = {0};
	buf_printf(&b, "%zu lane%s", ns, ns == 1 ? "" : "s");
	if (ns < nl)
		buf_printf(&b, " (%zu hidden)", nl - ns);
	draw_role(R_TITLE);
	draw_fill(0, 0, NW, " ");
	draw_text(0, 0, NW - 1, b.p, b.len);
	buf_free(&b);
	axis(a, NW, W, cur);
	range_draw(a, NW, W);
	if (approximate) {
		draw_role(R_WARNING);
		mvaddstr(0, NW - 1, "~"); /* some span that began long before the window may be missing */
	}
}

static void lanes_draw(struct app *a)
{
	struct lanes_view *lv = lv_of(a);
	if (a->sel != lv->followed) {
		follow_sel(a);
		lv->followed = a->sel;
	}
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	cursor_follows(a, lanes, ns);
	int NW = name_width(a), W = MAX(1, a->cols - NW), R = MAX(1, rows(a));
	if (lv->cur >= ns && ns)
		lv->cur = ns - 1;
	if (lv->cur < lv->top)
		lv->top = lv->cur;
	if (lv->cur >= lv->top + (size_t)R)
		lv->top = lv->cur - (size_t)R + 1;
	/* the bars of every lane that may be on screen (each takes a row at least) */
	size_t first = MIN(lv->top, ns), nb = MIN((size_t)R, ns - first);
	/* (the selection's time before the bars' seeks move the cursors: among
	 * many parts placing one again is a search in each) */
	int cur = a->sel != NO_POS ? time_col(a, W, model_ts(a->m, a->sel)) : -1;
	struct bars bs;
	uint64_t budget = MAX((uint64_t)SCAN_MIN, (uint64_t)SCAN_PER_CELL * (uint64_t)W * (uint64_t)R);
	bars_make(&bs, a, lanes + first, nb, lv->t0, lv->t1, W, budget, LOOKBACK, NULL);
	size_t fit = nb ? lanes_fit_rows(a, &bs, first, R, &lv->top) : 0;
	lanes_header(a, NW, W, cur, ns, bs.approximate);

	int y = 1;
	for (size_t k = lv->top - first; k < lv->top - first + fit && y <= R; k++) {
		const struct lane_bars *lb = &bs.lane[k];
		int h = MIN(lane_height(a, lb), R - y + 1);
		bool selected = first + k == lv->cur;
		lane_label(a, y, h, NW, lb, selected);
		struct lane_cells lc = {.W = W, .rows = h, .busy = xcalloc((size_t)W * (size_t)h, sizeof *lc.busy)};
		bool folded = a->lane_flags[lb->lane] & LANE_COLLAPSED;
		if (lb->sample)
			counter_draw(a, y, NW, W, lb);
		else if (folded)
			draw_collapsed(a, y, NW, lb, &lc);
		else
			draw_expanded(a, y, NW, h, lb, &lc);
		if (!lb->sample)
			draw_marks(a, y, NW, lb, &lc, folded || !lb->rows ? 0 : span_rows(lb));
		if (selected && cur >= 0 && cur < W && !lane_has_bar(lb, a->sel)) {
			draw_role(R_CURSOR);
			mvaddstr(y, NW + cur, a->unicode ? "│" : "|");
		}
		free(lc.busy);
		y += h;
	}
	if (!ns) {
		draw_role(R_DIM);
		draw_str(2, 2, a->cols - 4, model_nlanes(a->m) ? "every lane is hidden (X shows them)" : a->loading ? "reading..." : "no events");
	}
	if (event_line(a) && a->sel != NO_POS && vis_is(a, a->sel))
		row_draw_one(a, a->lines - 2, a->sel); /* what the cursor is on, as the list shows it */
	bars_free(&bs);
	free(lanes);
}

/* ---- moving ---------------------------------------------------------------- */

/* The visible event on `lane` nearest to time t: the first one found each
 * way from t (each search bounded), whichever is closer in time. */
/* An event of the lane the lanes view shows (metadata is not on its axis). */
static bool on_axis(struct app *a, const struct event *e, uint32_t lane, uint64_t p)
{
	return e->lane == lane && !(e->flags & EVF_META) && vis_is(a, p);
}

/* The first event of the lane's axis from mid on (dir > 0) or before it
 * (dir < 0), at most NEAR_SCAN away (the store passes over what is not on
 * the lane: model_lanes_next). */
static uint64_t scan_to_lane(struct app *a, uint32_t lane, uint64_t mid, int dir)
{
	uint64_t n = model_count(a->m), p = mid, found = NO_POS;
	uint64_t end = mid + MIN(NEAR_SCAN, n - MIN(n, mid)), begin = mid - MIN(mid, NEAR_SCAN);
	struct idset one;
	idset_make(&one, &lane, 1);
	struct event e;
	while ((p = dir > 0 ? model_lanes_next(a->m, &one, p, end) : model_lanes_prev(a->m, &one, p, begin)) <
	       (dir > 0 ? end : UINT64_MAX)) {
		model_get(a->m, p, &e);
		if (on_axis(a, &e, lane, p)) {
			found = p;
			break;
		}
		p += dir > 0; /* (back: from p, before it) */
	}
	idset_free(&one);
	return found;
}

static uint64_t nearest_on_lane(struct app *a, uint32_t lane, int64_t t)
{
	const struct lane *l = model_lane_get(a->m, lane);
	if (!l || !l->has_span)
		return NO_POS; /* (nothing on its axis) */
	t = MAX(l->first, MIN(l->last, t)); /* (past its ends: its first or last is the nearest) */
	uint64_t mid = model_seek(a->m, t), fwd = scan_to_lane(a, lane, mid, 1);
	if (fwd != NO_POS && model_ts(a->m, fwd) == t)
		return fwd; /* (none nearer) */
	uint64_t back = scan_to_lane(a, lane, mid, -1);
	if (fwd == NO_POS || back == NO_POS)
		return fwd != NO_POS ? fwd : back;
	return ts_sub(model_ts(a->m, fwd), t) < ts_sub(t, model_ts(a->m, back)) ? fwd : back;
}

/* Can an event of the lane's axis lie at or beyond time t, going dir? (Its
 * timeline events span [first, last]: none when it has none.) */
static bool lane_reaches(const struct lane *l, int64_t t, int dir)
{
	return l->has_span && (dir > 0 ? t <= l->last : t >= l->first);
}

static uint64_t step_on_lane(struct app *a, int dir)
{
	if (a->sel == NO_POS)
		return NO_POS;
	struct event e;
	model_get(a->m, a->sel, &e);
	uint32_t lane = e.lane;
	const struct lane *l = model_lane_get(a->m, lane);
	uint64_t p = a->sel;
	for (uint64_t k = 0; k < LANE_SCAN && l && lane_reaches(l, e.ts, dir); k++) {
		p = dir > 0 ? vis_next(a, p) : vis_prev(a, p);
		if (p == NO_POS)
			break;
		model_get(a->m, p, &e);
		if (e.lane == lane && !(e.flags & EVF_META))
			return p;
	}
	if (p != NO_POS && l && lane_reaches(l, e.ts, dir))
		message(a, true, "no other event on this lane within %d events", LANE_SCAN);
	else
		message(a, false, "no event %s this one on its lane", dir > 0 ? "after" : "before");
	return NO_POS;
}

static void to_lane(struct app *a, size_t idx)
{
	struct lanes_view *lv = lv_of(a);
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	if (!ns) {
		free(lanes);
		return;
	}
	lv->cur = MIN(idx, ns - 1);
	int64_t t = a->sel != NO_POS ? model_ts(a->m, a->sel) : lv->t0;
	uint64_t p = nearest_on_lane(a, lanes[lv->cur], t);
	if (p != NO_POS) {
		select_here(a, p);
	} else {
		message(a, false, "no visible event on this lane near the cursor");
	}
	free(lanes);
}

/* Left/right: the span before/after at the same depth; up/down: the
 * span around it or the first inside it, else the lane above or below. */
static void span_action(struct app *a, enum action act)
{
	struct lanes_view *lv = lv_of(a);
	struct bar sp;
	if (!span_of(a, a->sel, &sp)) { /* an instant: on to the nearest event that way */
		if (act == ACT_SPAN_UP || act == ACT_SPAN_DOWN) {
			to_lane(a, act == ACT_SPAN_DOWN ? lv->cur + 1 : lv->cur ? lv->cur - 1 : 0);
			return;
		}
		uint64_t p = step_on_lane(a, act == ACT_SPAN_NEXT ? 1 : -1);
		if (p != NO_POS)
			select_pos(a, p);
		return;
	}
	uint64_t p = act == ACT_SPAN_UP	  ? span_parent(a, &sp)
		     : act == ACT_SPAN_DOWN ? span_child(a, &sp)
					    : span_step(a, &sp, act == ACT_SPAN_NEXT ? 1 : -1);
	if (p != NO_POS && vis_is(a, p)) {
		select_here(a, p);
	} else if (act == ACT_SPAN_UP || act == ACT_SPAN_DOWN) {
		to_lane(a, act == ACT_SPAN_DOWN ? lv->cur + 1 : lv->cur ? lv->cur - 1 : 0);
	} else {
		message(a, false, "no span %s this one at its depth", act == ACT_SPAN_NEXT ? "after" : "before");
	}
}

/* The selected span for the status line (name, duration, self time,
 * depth) in at most `room` cells, its name cut to fit; false when the
 * selection is not a span or it does not fit. */
static bool lanes_status(struct app *a, struct buf *out, int room)
{
	struct lanes_view *lv = lv_of(a);
	uint64_t key[5] = {a->sel, model_count(a->m), model_generation(a->m), a->vis.done, a->raw_names}; /* (R: names as written) */
	if (memcmp(key, lv->span_key, sizeof key)) {
		memcpy(lv->span_key, key, sizeof key);
		lv->span_name[0] = lv->span_tail[0] = 0;
		struct bar sp;
		if (span_of(a, a->sel, &sp)) {
			struct buf b = {0};
			size_t n;
			const char *name = model_strget(a->m, bar_name(a, &sp), &n);
			esc_term(&b, name, n);
			snprintf(lv->span_name, sizeof lv->span_name, "%s", buf_str(&b));
			buf_reset(&b);
			int depth;
			uint64_t self;
			bool approx;
			span_measure(a, &sp, &depth, &self, &approx);
			if (sp.end == INT64_MAX) {
				buf_printf(&b, "  open, depth %d", depth);
			} else {
				buf_adds(&b, "  ");
				fmt_dur(&b, (uint64_t)sp.end - (uint64_t)sp.ts);
				buf_adds(&b, approx ? " (self about " : " (self ");
				fmt_dur(&b, self);
				buf_printf(&b, ", depth %d)", depth);
			}
			snprintf(lv->span_tail, sizeof lv->span_tail, "%s", buf_str(&b));
			buf_free(&b);
		}
	}
	if (!lv->span_name[0])
		return false;
	int nw = text_width(lv->span_name, strlen(lv->span_name)), tw = text_width(lv->span_tail, strlen(lv->span_tail));
	if (nw + tw <= room) {
		buf_adds(out, lv->span_name);
	} else if (room - tw >= 6) { /* the name cut, the numbers whole */
		size_t keep = text_fit(lv->span_name, strlen(lv->span_name), room - tw - 1);
		buf_add(out, lv->span_name, keep);
		buf_adds(out, a->unicode ? "…" : "~");
	} else {
		return false;
	}
	buf_adds(out, lv->span_tail);
	return true;
}

bool lanes_action(struct app *a, enum action act)
{
	struct lanes_view *lv = lv_of(a);
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	cursor_follows(a, lanes, ns);
	uint32_t cur = ns ? lanes[MIN(lv->cur, ns - 1)] : 0;
	free(lanes);
	int page = MAX(1, rows(a) - 1);
	switch (act) {
	case ACT_MOVE_DOWN: to_lane(a, lv->cur + 1); return true;
	case ACT_MOVE_UP: to_lane(a, lv->cur ? lv->cur - 1 : 0); return true;
	case ACT_HALF_DOWN: to_lane(a, lv->cur + (size_t)page / 2); return true;
	case ACT_HALF_UP: to_lane(a, lv->cur > (size_t)page / 2 ? lv->cur - (size_t)page / 2 : 0); return true;
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
		jump_to(a, act == ACT_FIRST ? vis_first_timed(a) : vis_last_timed(a));
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
			to_lane(a, lv->cur);
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
	case ACT_SPAN_PREV:
	case ACT_SPAN_NEXT:
	case ACT_SPAN_UP:
	case ACT_SPAN_DOWN: span_action(a, act); return true;
	case ACT_RANGE_START:
	case ACT_RANGE_END: range_mark(a, act == ACT_RANGE_START); return true;
	case ACT_RANGE_FILTER: range_filter(a); return true;
	case ACT_COLLAPSE_LANE:
		if (ns)
			a->lane_flags[cur] ^= LANE_COLLAPSED;
		return true;
	case ACT_COLLAPSE_ALL: {
		bool any_open = false; /* fold them all unless all are folded: then unfold */
		for (size_t i = 0; i < a->norder; i++)
			any_open |= !(a->lane_flags[a->order[i]] & LANE_COLLAPSED);
		for (size_t i = 0; i < a->norder; i++)
			a->lane_flags[a->order[i]] = (uint8_t)(any_open ? a->lane_flags[a->order[i]] | LANE_COLLAPSED
								       : a->lane_flags[a->order[i]] & ~LANE_COLLAPSED);
		message(a, false, "%s", any_open ? "every lane folded to one row (again to unfold)" : "every lane unfolded");
		return true;
	}
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
		lv->cur = act == ACT_ITEM_UP ? lv->cur - 1 : lv->cur + 1;
		return true;
	}
	default: return false;
	}
}

static void lanes_click(struct app *a, int line, int col)
{
	struct lanes_view *lv = lv_of(a);
	int NW = name_width(a), W = MAX(1, a->cols - NW);
	if (line < 1 || line > rows(a))
		return;
	size_t idx = lv->top + (size_t)(line - 1);
	uint32_t *lanes = xcalloc(model_nlanes(a->m) + 1, sizeof *lanes);
	size_t ns = shown(a, lanes);
	cursor_follows(a, lanes, ns);
	if (idx < ns) {
		int64_t t = col >= NW ? col_time(a, W, col - NW) : (a->sel != NO_POS ? model_ts(a->m, a->sel) : lv->t0);
		uint64_t p = nearest_on_lane(a, lanes[idx], t);
		lv->cur = idx;
		if (p != NO_POS)
			select_here(a, p);
	}
	free(lanes);
}

static const char *lanes_meaning(enum action act)
{
	switch (act) {
	case ACT_MOVE_DOWN: return "the lane below (the event nearest in time)";
	case ACT_MOVE_UP: return "the lane above (the event nearest in time)";
	case ACT_PAN_LEFT: return "move the time window left";
	case ACT_PAN_RIGHT: return "move the time window right";
	default: return NULL;
	}
}

const struct view_ops lanes_ops = {.state_size = sizeof(struct lanes_view), .draw = lanes_draw, .action = lanes_action, .click = lanes_click, .drag = lanes_drag,
				   .meaning = lanes_meaning, .status = lanes_status};
