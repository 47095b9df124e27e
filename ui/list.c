/* ui floor 5 */
/* The list view: one visible event per row, in time order.  Only the rows
 * on screen are read from the model. */
#include <curses.h>

#include "src/batch.h"
#include "src/esc.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/row.h"

static int rows(const struct app *a) { return a->lines - 2; /* header and status line */ }

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

/* This view's own state (view_own). */
struct list_view {
	bool made;
	uint64_t top; /* the event on the first row */
};

static struct list_view *lv_of(struct app *a)
{
	struct list_view *lv = view_own(a, V_LIST, sizeof *lv);
	if (!lv->made)
		*lv = (struct list_view){.made = true, .top = NO_POS};
	return lv;
}

/* Keep the selection on screen. */
static void scroll_to_sel(struct app *a)
{
	struct list_view *lv = lv_of(a);
	if (a->sel == NO_POS)
		return;
	if (lv->top == NO_POS || !vis_is(a, lv->top))
		lv->top = vis_first(a);
	if (lv->top > a->sel)
		lv->top = a->sel;
	uint64_t r = vis_rank(a, a->sel), t = vis_rank(a, lv->top);
	if (r - t >= (uint64_t)rows(a)) {
		uint64_t p = a->sel;
		for (int i = 1; i < rows(a); i++) {
			uint64_t q = vis_prev(a, p);
			if (q == NO_POS)
				break;
			p = q;
		}
		lv->top = p;
	}
	/* damage markers above it take rows; after the last event, its own */
	uint64_t tail = vis_next(a, a->sel) == NO_POS ? (uint64_t)markers_after(a, a->sel, NO_POS, 0, false) : 0;
	while (lv->top != a->sel && rows_to(a, lv->top, a->sel, (uint64_t)rows(a)) + tail > (uint64_t)rows(a))
		lv->top = vis_next(a, lv->top);
}

static void list_draw(struct app *a)
{
	int tmw, lw, tw;
	row_widths(a, &tmw, &lw, &tw);
	scroll_to_sel(a);
	draw_role(R_TITLE);
	draw_fill(0, 0, a->cols, " ");
	draw_str(0, 0, tmw, "TIME");
	draw_str(0, tmw + 1, lw, "LANE");
	draw_str(0, tmw + 2 + lw, tw, "TYPE");
	char head[48] = "SUMMARY";
	if (a->row_shift)
		snprintf(head, sizeof head, "SUMMARY (scrolled %d cells)", a->row_shift);
	draw_str(0, tmw + 3 + lw + tw, a->cols - tmw - 3 - lw - tw, head);
	uint64_t p = lv_of(a)->top;
	if (p == NO_POS || !vis_is(a, p))
		p = vis_first(a);
	for (int y = 1; y <= rows(a) && p != NO_POS; y++) {
		row_draw(a, y, p, tmw, lw, tw);
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

/* Sideways: the summaries move by half their column, as less -S does. */
#define SHIFT_MAX 4096

static bool list_action(struct app *a, enum action act)
{
	int tmw, lw, tw;
	row_widths(a, &tmw, &lw, &tw);
	int step = MAX(8, (a->cols - tmw - 3 - lw - tw) / 2);
	switch (act) {
	case ACT_PAN_LEFT: a->row_shift = MAX(0, a->row_shift - step); return true;
	case ACT_PAN_RIGHT: a->row_shift = MIN(SHIFT_MAX, a->row_shift + step); return true;
	case ACT_PAGE_DOWN: /* a page on: the selection at the top */
		move_action(a, act);
		lv_of(a)->top = a->sel;
		return true;
	default: return move_action(a, act);
	}
}

static void list_click(struct app *a, int line, int col)
{
	(void)col;
	if (line < 1 || line > rows(a))
		return;
	uint64_t top = lv_of(a)->top, p = top == NO_POS || !vis_is(a, top) ? vis_first(a) : top;
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

static const char *list_meaning(enum action act)
{
	switch (act) {
	case ACT_MOVE_DOWN: return "next event";
	case ACT_MOVE_UP: return "previous event";
	case ACT_PAN_LEFT: return "shift the summaries left";
	case ACT_PAN_RIGHT: return "shift the summaries right";
	default: return NULL;
	}
}

const struct view_ops list_ops = {.state_size = sizeof(struct list_view), .draw = list_draw, .action = list_action, .click = list_click, .meaning = list_meaning};
