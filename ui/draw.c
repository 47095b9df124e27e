/* ui floor 2 */
/* Drawing helpers.  Text given here has already been through the
 * sanitizer (src/esc.c); these functions only measure and clip it, and still
 * refuse to pass a control character should one slip through. */
#include <curses.h>
#include <wchar.h>

#include "src/esc.h"
#include "src/batch.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/theme.h"

void draw_role(enum role r) { attrset(theme_attr(r)); }

/* Bytes of the character at s (1 for a byte that starts none). */
static size_t char_len(const char *s, size_t n)
{
	uint32_t cp;
	size_t len = utf8_decode((const uint8_t *)s, n, &cp);
	return len ? len : 1;
}

size_t text_fit(const char *s, size_t n, int cells)
{
	int w;
	size_t i = esc_fit(s, n, cells, &w);
	return i || !n ? i : char_len(s, n); /* a character that cannot fit still moves on */
}

size_t text_wrap(const char *s, size_t n, int cells)
{
	size_t fit = text_fit(s, n, cells);
	if (fit >= n || s[fit] == ' ')
		return fit;
	size_t i = fit;
	while (i > 0 && s[i - 1] != ' ')
		i--;
	return i ? i : fit; /* a word longer than the line is cut */
}

size_t text_skip(const char *s, size_t n, int cells)
{
	int w;
	size_t i = esc_fit(s, n, cells, &w);
	if (w < cells && i < n) /* a wide character straddles the edge: skip it too */
		i += char_len(s + i, n - i);
	return i;
}

int text_width(const char *s, size_t n) { return esc_width(s, n); }

int draw_text(int y, int x, int maxw, const char *s, size_t n)
{
	if (maxw <= 0)
		return 0;
	int cells;
	size_t bytes = esc_fit(s, n, maxw, &cells);
	if (bytes)
		mvaddnstr(y, x, s, (int)bytes);
	return cells;
}

int draw_str(int y, int x, int maxw, const char *s) { return draw_text(y, x, maxw, s, strlen(s)); }

void draw_fill(int y, int x, int w, const char *cell)
{
	move(y, x);
	for (int i = 0; i < w; i++)
		addstr(cell);
}

int draw_matched(struct app *a, int y, int x, int w, const char *s, size_t n, enum role base)
{
	size_t at = 0, ms, me;
	int c = 0;
	struct pattern *re = a->search.exclude ? NULL : a->search.re; /* `/!re` finds what does not match */
	while (re && at <= n && c < w && pattern_find(re, s, n, at, &ms, &me) > 0) {
		if (me == ms) { /* an empty match: step on */
			if (ms >= n)
				break;
			me = ms + 1;
		}
		draw_role(base);
		c += draw_text(y, x + c, w - c, s + at, ms - at);
		draw_role(R_MATCH);
		c += draw_text(y, x + c, w - c, s + ms, me - ms);
		at = me;
	}
	draw_role(base);
	if (at < n)
		c += draw_text(y, x + c, w - c, s + at, n - at);
	return c;
}

int draw_clipped(struct app *a, int y, int x, int w, const char *s, size_t n)
{
	if (w < 2 || text_width(s, n) <= w)
		return draw_text(y, x, w, s, n);
	int c = draw_text(y, x, w - 1, s, n);
	mvaddstr(y, x + c, a->unicode ? "…" : "~");
	return c + 1;
}

int draw_column(struct app *a, int y, int x, int w, const char *s, size_t n, enum role base)
{
	int total = text_width(s, n);
	if (w < 3 || total <= w)
		return draw_matched(a, y, x, w, s, n, base);
	/* cut in the middle: names that differ only at the end ("pid 7
	 * (stream 1, child)", "pid 7 (stream 2)") stay told apart */
	int c = draw_matched(a, y, x, (w - 1) / 2, s, n, base);
	draw_role(base);
	mvaddstr(y, x + c++, a->unicode ? "…" : "~");
	size_t from = text_skip(s, n, total - (w - c));
	return c + draw_matched(a, y, x + c, w - c, s + from, n - from, base);
}

void fmt_time(struct app *a, struct buf *b, const struct event *e)
{
	int64_t first = 0, last;
	model_span(a->m, &first, &last);
	event_time(a->t, e, first, a->time, false, b);
}

/* A cursor over n rows, `rows` of them shown at a time (the call tree, a
 * node's calls): moved by the shared movement actions (false: act is not
 * one), and the first row shown kept so that the cursor is in sight. */
bool cursor_move(size_t *cur, size_t n, int rows, enum action act)
{
	size_t page = (size_t)MAX(1, rows - 1), last = n ? n - 1 : 0;
	switch (act) {
	case ACT_MOVE_DOWN: *cur = MIN(last, *cur + 1); return true;
	case ACT_MOVE_UP: *cur -= *cur > 0; return true;
	case ACT_PAGE_DOWN: *cur = MIN(last, *cur + page); return true;
	case ACT_PAGE_UP: *cur -= MIN(*cur, page); return true;
	case ACT_HALF_DOWN: *cur = MIN(last, *cur + page / 2); return true;
	case ACT_HALF_UP: *cur -= MIN(*cur, page / 2); return true;
	case ACT_FIRST: *cur = 0; return true;
	case ACT_LAST: *cur = last; return true;
	default: return false;
	}
}

void cursor_in_sight(size_t *top, size_t cur, int rows)
{
	if (cur < *top)
		*top = cur;
	if (cur >= *top + (size_t)MAX(1, rows))
		*top = cur - (size_t)MAX(1, rows) + 1;
}

/* Work done in steps over the events, how far it is: "WHAT... N% of the events". */
void draw_progress(struct app *a, const char *what, uint64_t at)
{
	uint64_t n = model_count(a->m);
	char msg[120];
	snprintf(msg, sizeof msg, "%s... %.0f%% of the events", what, n ? 100.0 * (double)MIN(at, n) / (double)n : 100.0);
	draw_role(R_DIM);
	draw_str(2, 2, a->cols - 4, msg);
}
