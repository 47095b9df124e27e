/* The list view: one visible event per row, in time order.  Only the rows
 * on screen are read from the model. */
#include <curses.h>

#include "src/batch.h"
#include "src/esc.h"
#include "ui/app.h"

#define LANE_COL_MAX 28
#define TYPE_COL_MAX 28

static int rows(const struct app *a) { return a->lines - 2; /* header and status line */ }

/* Width of the time column: the widest of the first and last times. */
static int time_width(struct app *a)
{
	uint64_t n = model_count(a->m);
	if (!n)
		return 12;
	struct event first, last;
	model_get(a->m, 0, &first);
	model_get(a->m, n - 1, &last);
	struct buf b = {0};
	fmt_time(a, &b, &first);
	size_t w = text_width(b.p, b.len);
	buf_reset(&b);
	fmt_time(a, &b, &last);
	w = MAX(w, (size_t)text_width(b.p, b.len));
	buf_free(&b);
	return (int)MAX(w, (size_t)8); /* "metadata" */
}

/* Column widths from the names in use (bounded), so columns line up. */
static void widths(struct app *a, int tmw, int *lw, int *tw)
{
	names_sync(a);
	*lw = MIN(MAX(4, a->lane_w), LANE_COL_MAX);
	*tw = MIN(MAX(4, a->type_w), TYPE_COL_MAX);
	int room = a->cols - tmw - 3; /* time column and gaps */
	if (*lw + *tw > room / 2) { /* narrow terminal: leave the summary half */
		*lw = MAX(8, MIN(*lw, room / 4));
		*tw = MAX(8, MIN(*tw, room / 4));
	}
}

/* ---- damage where it happened ---------------------------------------------- */

/* A marker row for each damage report, after the last event before it on
 * the timeline (a report with no place: after the last event).  `draw`:
 * from screen row y on; returns the rows they take. */
static int markers_after(struct app *a, uint64_t p, uint64_t next, int y, bool draw)
{
	struct event e, n;
	model_get(a->m, p, &e);
	if (next != NO_POS)
		model_get(a->m, next, &n);
	int used = 0;
	for (size_t i = 0; i < a->t->nsrc; i++) {
		const struct source *s = a->t->src[i];
		for (size_t k = 0; k < s->ndmg; k++) {
			const struct damage *d = &s->dmg[k];
			bool here = d->has_ts ? d->ts >= e.ts && (next == NO_POS || d->ts < n.ts) : next == NO_POS;
			if (!here)
				continue;
			if (draw && y + used <= rows(a)) {
				struct buf b = {0};
				const char *name = d->path + strlen(d->path);
				for (int slashes = 0; name > d->path; name--) /* the file and its folder */
					if (name[-1] == '/' && ++slashes == 2)
						break;
				buf_adds(&b, a->unicode ? "── damaged: " : "-- damaged: ");
				esc_term(&b, name, strlen(name));
				if (d->has_off)
					buf_printf(&b, ": offset %llu", (unsigned long long)d->off);
				buf_adds(&b, ": ");
				esc_term(&b, d->msg, strlen(d->msg));
				draw_role(R_WARNING);
				draw_fill(y + used, 0, a->cols, " ");
				draw_clipped(a, y + used, 0, a->cols, b.p, b.len);
				buf_free(&b);
			}
			used++;
		}
	}
	return used;
}

/* Rows from event `from` through event `to` (both shown), markers included. */
static uint64_t rows_to(struct app *a, uint64_t from, uint64_t to, uint64_t most)
{
	uint64_t n = 0;
	for (uint64_t p = from; p != NO_POS && n <= most; p = vis_next(a, p)) {
		n++;
		if (p == to)
			break;
		n += (uint64_t)markers_after(a, p, vis_next(a, p), 0, false);
	}
	return n;
}

/* Keep the selection on screen. */
static void scroll_to_sel(struct app *a)
{
	if (a->sel == NO_POS)
		return;
	if (a->list_top == NO_POS || !vis_is(a, a->list_top))
		a->list_top = vis_first(a);
	if (a->list_top > a->sel)
		a->list_top = a->sel;
	uint64_t r = vis_rank(a, a->sel), t = vis_rank(a, a->list_top);
	if (r - t >= (uint64_t)rows(a)) {
		uint64_t p = a->sel;
		for (int i = 1; i < rows(a); i++) {
			uint64_t q = vis_prev(a, p);
			if (q == NO_POS)
				break;
			p = q;
		}
		a->list_top = p;
	}
	/* damage markers above it take rows; after the last event, its own */
	uint64_t tail = vis_next(a, a->sel) == NO_POS ? (uint64_t)markers_after(a, a->sel, NO_POS, 0, false) : 0;
	while (a->list_top != a->sel && rows_to(a, a->list_top, a->sel, (uint64_t)rows(a)) + tail > (uint64_t)rows(a))
		a->list_top = vis_next(a, a->list_top);
}

static void draw_row(struct app *a, int y, uint64_t pos, int tmw, int lw, int tw)
{
	struct event e;
	model_get(a->m, pos, &e);
	bool sel = pos == a->sel;
	enum role base = sel ? R_SELECTED : R_NORMAL;
	draw_role(base);
	if (sel)
		draw_fill(y, 0, a->cols, " ");
	struct buf b = {0};
	fmt_time(a, &b, &e);
	int x = 0;
	draw_role(sel ? R_SELECTED : R_DIM);
	draw_text(y, x, tmw, b.p, b.len);
	x += tmw + 1;
	buf_reset(&b);
	size_t n;
	const char *s = model_strget(a->m, model_lane_get(a->m, e.lane)->name, &n);
	esc_term(&b, s, n);
	draw_column(a, y, x, lw, b.p, b.len, sel ? R_SELECTED : R_LANE_NAME);
	x += lw + 1;
	buf_reset(&b);
	s = model_strget(a->m, model_type_get(a->m, e.type)->name, &n);
	esc_term(&b, s, n);
	enum ev_role r = ev_role(&e);
	bool warn = (r == ROLE_BEGIN || r == ROLE_END) && e.dur == TTV_NODUR;
	draw_column(a, y, x, tw, b.p, b.len, sel ? R_SELECTED : warn || (e.flags & EVF_DAMAGED) ? R_WARNING : R_KEY);
	x += tw + 1;
	buf_reset(&b);
	event_summary(a->t, &e, &b);
	if (r == ROLE_BEGIN || r == ROLE_END) {
		if (e.dur == TTV_NODUR)
			buf_adds(&b, r == ROLE_BEGIN ? " [unclosed]" : " [unopened]");
		else {
			buf_adds(&b, " [");
			fmt_dur(&b, e.dur);
			buf_addc(&b, ']');
		}
	}
	if (e.flags & EVF_COPY)
		buf_adds(&b, " [copy]");
	if (e.flags & EVF_NO_TS)
		buf_adds(&b, " [no timestamp]");
	size_t skip = text_skip(buf_str(&b), b.len, a->list_shift);
	draw_matched(a, y, x, a->cols - x, buf_str(&b) + skip, b.len - skip, base);
	buf_free(&b);
}

void list_draw_row(struct app *a, int y, uint64_t pos)
{
	int tmw = time_width(a), lw, tw;
	widths(a, tmw, &lw, &tw);
	draw_row(a, y, pos, tmw, lw, tw);
}

void list_draw(struct app *a)
{
	int tmw = time_width(a), lw, tw;
	widths(a, tmw, &lw, &tw);
	scroll_to_sel(a);
	draw_role(R_TITLE);
	draw_fill(0, 0, a->cols, " ");
	draw_str(0, 0, tmw, "TIME");
	draw_str(0, tmw + 1, lw, "LANE");
	draw_str(0, tmw + 2 + lw, tw, "TYPE");
	char head[48] = "SUMMARY";
	if (a->list_shift)
		snprintf(head, sizeof head, "SUMMARY (scrolled %d cells)", a->list_shift);
	draw_str(0, tmw + 3 + lw + tw, a->cols - tmw - 3 - lw - tw, head);
	uint64_t p = a->list_top;
	if (p == NO_POS || !vis_is(a, p))
		p = vis_first(a);
	for (int y = 1; y <= rows(a) && p != NO_POS; y++) {
		draw_row(a, y, p, tmw, lw, tw);
		uint64_t next = vis_next(a, p);
		y += markers_after(a, p, next, y + 1, true);
		p = next;
	}
	if (!model_count(a->m)) {
		draw_role(R_DIM);
		draw_str(2, 2, a->cols - 4, a->loading ? "reading..." : "no events");
	} else if (!vis_count(a) && !a->loading && a->vis.done >= model_count(a->m)) {
		draw_role(R_DIM);
		draw_str(2, 2, a->cols - 4, "no event passes the filters (\\ shows them)");
	}
}

/* Move the selection by n visible events (negative: back). */
static void move_by(struct app *a, int64_t n)
{
	uint64_t p = a->sel == NO_POS ? vis_first(a) : a->sel;
	for (; n > 0 && p != NO_POS; n--) {
		uint64_t q = vis_next(a, p);
		if (q == NO_POS)
			break;
		p = q;
	}
	for (; n < 0 && p != NO_POS; n++) {
		uint64_t q = vis_prev(a, p);
		if (q == NO_POS)
			break;
		p = q;
	}
	select_pos(a, p);
}

/* Movement shared with the detail view. */
bool move_action(struct app *a, enum action act)
{
	int page = MAX(1, rows(a) - 1);
	switch (act) {
	case ACT_MOVE_DOWN: move_by(a, 1); return true;
	case ACT_MOVE_UP: move_by(a, -1); return true;
	case ACT_PAGE_DOWN:
		move_by(a, page);
		a->list_top = a->sel;
		return true;
	case ACT_PAGE_UP: move_by(a, -page); return true;
	case ACT_HALF_DOWN: move_by(a, page / 2); return true;
	case ACT_HALF_UP: move_by(a, -page / 2); return true;
	case ACT_FIRST: jump_to(a, vis_first(a)); return true;
	case ACT_LAST: jump_to(a, vis_last(a)); return true;
	default: return false;
	}
}

/* Sideways: the summaries move by half their column, as less -S does. */
#define SHIFT_MAX 4096

bool list_action(struct app *a, enum action act)
{
	int tmw = time_width(a), lw, tw;
	widths(a, tmw, &lw, &tw);
	int step = MAX(8, (a->cols - tmw - 3 - lw - tw) / 2);
	switch (act) {
	case ACT_PAN_LEFT: a->list_shift = MAX(0, a->list_shift - step); return true;
	case ACT_PAN_RIGHT: a->list_shift = MIN(SHIFT_MAX, a->list_shift + step); return true;
	default: return move_action(a, act);
	}
}

void list_click(struct app *a, int line, int col)
{
	(void)col;
	if (line < 1 || line > rows(a))
		return;
	uint64_t p = a->list_top == NO_POS || !vis_is(a, a->list_top) ? vis_first(a) : a->list_top;
	for (int y = 1; p != NO_POS; p = vis_next(a, p)) {
		if (y == line) {
			select_pos(a, p);
			return;
		}
		y += 1 + markers_after(a, p, vis_next(a, p), 0, false);
		if (y > line)
			return; /* a damage marker: nothing to select */
	}
}
