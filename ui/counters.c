/* ui floor 5 */
/* ui/counters.c: a counter track's row in the lanes view.
 *
 * A lane whose events are samples of one number (a dial9 field annotated
 * as a gauge or counter) is drawn as its value over time: each column the
 * last sample in it, held until the next one, as a bar of eighths between
 * the least and the greatest value in the window; the range is written at
 * the row's right end. */
#include <curses.h>
#include <stdlib.h>

#include "src/query.h"
#include "ui/app.h"
#include "ui/bars.h"
#include "ui/draw.h"

static const char *const levels_u[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
static const char *const levels_a[] = {"_", ".", "-", "~", "=", "+", "*", "#"};

/* Each column's value (held from the sample before); false where no sample
 * has come yet. */
static void column_values(struct app *a, const struct lane_bars *lb, int W, double *v, bool *has)
{
	bool held = false;
	double last = 0;
	struct event e;
	for (int c = 0; c < W; c++) {
		if (lb->sample[c] != NO_POS) {
			model_get(a->m, lb->sample[c], &e);
			held = event_value(a->t, &e, &last) || held;
		}
		v[c] = last;
		has[c] = held;
	}
}

void counter_draw(struct app *a, int y, int x0, int W, const struct lane_bars *lb)
{
	if (!lb->sample || W <= 0)
		return;
	double *v = xmalloc((size_t)W * sizeof *v), lo = 0, hi = 0;
	bool *has = xmalloc((size_t)W), any = false;
	column_values(a, lb, W, v, has);
	for (int c = 0; c < W; c++)
		if (has[c]) {
			lo = any ? MIN(lo, v[c]) : v[c];
			hi = any ? MAX(hi, v[c]) : v[c];
			any = true;
		}
	struct buf range = {0};
	if (any) {
		fmt_double(&range, lo);
		buf_adds(&range, "..");
		fmt_double(&range, hi);
	}
	int room = (int)range.len + 1 < W / 3 ? W - (int)range.len - 1 : W; /* the range when it fits */
	draw_role(R_DENSITY);
	for (int c = 0; c < room; c++) {
		if (!has[c])
			continue;
		int level = hi > lo ? (int)((v[c] - lo) / (hi - lo) * 7.0 + 0.5) : 3;
		mvaddstr(y, x0 + c, (a->unicode ? levels_u : levels_a)[MAX(0, MIN(7, level))]);
	}
	if (room < W) {
		draw_role(R_DIM);
		draw_text(y, x0 + room + 1, W - room - 1, range.p, range.len);
	}
	buf_free(&range);
	free(v);
	free(has);
}
