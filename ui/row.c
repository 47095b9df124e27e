/* ui floor 4 */
/* One event as a row: the list's rows, and the lanes view's line for the
 * selected event.  Columns: time, lane, type, summary. */
#include <curses.h>

#include "src/batch.h"
#include "src/esc.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/row.h"

#define LANE_COL_MAX 28
#define TYPE_COL_MAX 28

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

void row_widths(struct app *a, int *tmw, int *lw, int *tw)
{
	*tmw = time_width(a);
	names_sync(a);
	*lw = MIN(MAX(4, a->lane_w), LANE_COL_MAX);
	*tw = MIN(MAX(4, a->type_w), TYPE_COL_MAX);
	int room = a->cols - *tmw - 3; /* time column and gaps */
	if (*lw + *tw > room / 2) { /* narrow terminal: leave the summary half */
		*lw = MAX(8, MIN(*lw, room / 4));
		*tw = MAX(8, MIN(*tw, room / 4));
	}
}

/* Names as written (R): the demangled name in a summary gives way to the
 * symbol it was made from. */
static void raw_name(struct app *a, const struct event *e, struct buf *b)
{
	uint32_t raw = model_name_raw(a->m, e->name);
	if (raw == e->name)
		return;
	size_t ns, nr;
	const char *shown = model_strget(a->m, e->name, &ns), *as_written = model_strget(a->m, raw, &nr);
	const char *at = ns ? memmem(buf_str(b), b->len, shown, ns) : NULL;
	if (!at)
		return;
	struct buf t = {0};
	buf_add(&t, b->p, (size_t)(at - b->p));
	esc_term(&t, as_written, nr);
	buf_add(&t, at + ns, b->len - (size_t)(at - b->p) - ns);
	buf_free(b);
	*b = t;
}

/* Spaces from column x to `to`, in role r's colours. */
static void pad(int y, int x, int to, enum role r)
{
	draw_role(r);
	if (to > x)
		draw_fill(y, x, to - x, " ");
}

void row_draw(struct app *a, int y, uint64_t pos, int tmw, int lw, int tw)
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
	/* each column's rest and the gap after it in its own colours: the
	 * next column's, where they are the same, follow without a change
	 * (fewer bytes to the terminal).  The time in the text's colour and
	 * the names in one other: two changes a row (t/bench.md, bytes per key). */
	enum role col = base;
	draw_role(col);
	pad(y, x + draw_text(y, x, tmw, b.p, b.len), x + tmw + 1, col);
	x += tmw + 1;
	buf_reset(&b);
	size_t n;
	const char *s = model_strget(a->m, model_lane_get(a->m, e.lane)->name, &n);
	esc_term(&b, s, n);
	col = sel ? R_SELECTED : R_LANE_NAME;
	pad(y, x + draw_column(a, y, x, lw, b.p, b.len, col), x + lw + 1, col);
	x += lw + 1;
	buf_reset(&b);
	s = model_strget(a->m, model_type_get(a->m, e.type)->name, &n);
	esc_term(&b, s, n);
	enum ev_role r = ev_role(&e);
	bool warn = (r == ROLE_BEGIN || r == ROLE_END) && e.dur == TTV_NODUR;
	col = sel ? R_SELECTED : warn || (e.flags & EVF_DAMAGED) ? R_WARNING : R_KEY;
	pad(y, x + draw_column(a, y, x, tw, b.p, b.len, col), x + tw + 1, col);
	x += tw + 1;
	buf_reset(&b);
	event_summary(a->t, &e, &b);
	if (a->raw_names)
		raw_name(a, &e, &b);
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
	size_t skip = text_skip(buf_str(&b), b.len, a->row_shift);
	draw_matched(a, y, x, a->cols - x, buf_str(&b) + skip, b.len - skip, base);
	buf_free(&b);
}

void row_draw_one(struct app *a, int y, uint64_t pos)
{
	int tmw, lw, tw;
	row_widths(a, &tmw, &lw, &tw);
	row_draw(a, y, pos, tmw, lw, tw);
}
