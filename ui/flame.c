/* ui floor 13 */
/* The flame graph view (an icicle, as Perfetto and speedscope draw it):
 * the call tree the call tree view shows (viewtree.c: built once for
 * both), each call path a bar as wide as its share of the total,
 * its callees under it, largest first.  A bar is selected and moved
 * between (Left/Right along its row, Up to the caller, Down to the
 * callees); + zooms into it and - back out, the path there said on the
 * first line; Enter goes to its longest span as in the call tree. */
#include <curses.h>
#include <stdlib.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/occur.h"
#include "ui/view.h"
#include "ui/viewtree.h"

/* The bar zoomed into (0: all) and the selected one, of the tree made
 * `made`-th: when the tree is made afresh, its bars are new. */
struct flame_view {
	uint32_t root, sel;
	uint64_t made;
};

static struct flame_view *fv_of(struct app *a)
{
	struct flame_view *fv = view_state(a, V_FLAME);
	if (fv->made != viewtree_made(a))
		*fv = (struct flame_view){.made = viewtree_made(a)};
	return fv;
}

static bool flame_open(struct app *a)
{
	viewtree_open(a); /* (the same tree: made when its scope changed) */
	struct flame_view *fv = fv_of(a);
	if (!viewtree_building(a) && !fv->root)
		fv->sel = 0;
	return true;
}

static enum role role_of(struct app *a, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(a->m, sid, &n);
	return (enum role)(R_SPAN1 + hash_bytes(s, n) % SPAN_ROLES);
}

/* The bars, row by row under the zoomed node, x in cells from x0 to x1. */
struct layout {
	struct app *a;
	bool draw;
	uint32_t find_x, find_y; /* (not drawing: the bar there) */
	uint32_t found;
};

static void bar(struct layout *L, uint32_t v, double x0, double x1, int y)
{
	struct app *a = L->a;
	const struct calltree *ct = viewtree(a);
	int c0 = (int)(x0 + 0.5), c1 = (int)(x1 + 0.5);
	if (y >= a->lines - 1 || c1 <= c0)
		return; /* (narrower than a cell: its callees too) */
	if (!L->draw) {
		if ((uint32_t)y == L->find_y && L->find_x >= (uint32_t)c0 && L->find_x < (uint32_t)c1)
			L->found = v;
	} else {
		bool sel = v == fv_of(a)->sel;
		uint32_t sid = v ? calltree_sid(ct, ct->node[v].sym) : 0;
		draw_role(sel ? R_SELECTED : v ? role_of(a, sid) : R_TITLE);
		if (!sel)
			attron(A_REVERSE);
		draw_fill(y, c0, c1 - c0 - (c1 - c0 > 1), " "); /* (the last cell apart: bars side by side stay two) */
		struct buf b = {0};
		if (v)
			term_sid(&b, a->m, sid);
		else
			buf_adds(&b, "all");
		if (c1 - c0 > 1)
			draw_clipped(a, y, c0, c1 - c0 - 1, b.p, b.len);
		buf_free(&b);
		attroff(A_REVERSE);
	}
	uint64_t all = ct->node[v].total;
	double x = x0;
	size_t n = 0;
	uint32_t *kids = all ? viewtree_children(ct, v, SORT_TOTAL, &n) : NULL;
	for (size_t i = 0; i < n; i++) {
		double w = (x1 - x0) * (double)ct->node[kids[i]].total / (double)all;
		bar(L, kids[i], x, MIN(x + w, x1), y + 1);
		x += w;
	}
	free(kids);
}

static void lay_out(struct app *a, struct layout *L)
{
	bar(L, fv_of(a)->root, 0, a->cols, 1);
}

/* The first line: the path to the zoomed bar. */
static void crumbs(struct app *a)
{
	const struct calltree *ct = viewtree(a);
	struct buf b = {0};
	buf_adds(&b, "FLAME GRAPH: ");
	uint32_t path[64];
	size_t n = 0;
	for (uint32_t v = fv_of(a)->root; v && n < ARRAY_LEN(path); v = ct->node[v].parent)
		path[n++] = v;
	buf_adds(&b, "all");
	while (n--) {
		buf_adds(&b, a->unicode ? " › " : " > ");
		term_sid(&b, a->m, calltree_sid(ct, ct->node[path[n]].sym));
	}
	buf_adds(&b, "  (+ zooms in, - out, Enter: the longest)");
	draw_role(R_TITLE);
	draw_fill(0, 0, a->cols, " ");
	draw_clipped(a, 0, 0, a->cols, b.p, b.len);
	buf_free(&b);
}

static void flame_draw(struct app *a)
{
	crumbs(a);
	if (!viewtree_ready(a)) {
		viewtree_draw_waiting(a);
		return;
	}
	struct layout L = {a, true, 0, 0, 0};
	lay_out(a, &L);
}

/* The status line's part: the selected bar (once the tree is built). */
static bool flame_status(struct app *a, struct buf *out, int room)
{
	(void)room; /* (cut to fit by the status line) */
	if (!viewtree_ready(a))
		return false;
	const struct calltree *ct = viewtree(a);
	const struct flame_view *fv = fv_of(a);
	const struct ct_node *n = &ct->node[fv->sel];
	if (fv->sel)
		term_sid(out, a->m, calltree_sid(ct, n->sym));
	else
		buf_adds(out, "all");
	buf_adds(out, ": ");
	fmt_dur(out, n->total);
	uint64_t all = ct->node[fv->root].total;
	buf_printf(out, " (%.1f%%), self ", all ? 100.0 * (double)n->total / (double)all : 0.0);
	fmt_dur(out, n->self);
	buf_printf(out, ", %llu calls", (unsigned long long)n->calls);
	return true;
}

/* The bar beside the selected one on its row (dir -1 or 1), if one is drawn. */
static uint32_t beside(struct app *a, int dir)
{
	const struct calltree *ct = viewtree(a);
	const struct flame_view *fv = fv_of(a);
	uint32_t v = fv->sel, p = ct->node[v].parent;
	if (!v || v == fv->root || p == CT_NONE)
		return v;
	size_t n, i = 0;
	uint32_t *kids = viewtree_children(ct, p, SORT_TOTAL, &n);
	while (i < n && kids[i] != v)
		i++;
	uint32_t w = v;
	if (dir < 0 && i > 0)
		w = kids[i - 1];
	else if (dir > 0 && i + 1 < n)
		w = kids[i + 1];
	free(kids);
	return w;
}

static bool flame_action(struct app *a, enum action act)
{
	struct flame_view *fv = fv_of(a);
	const struct calltree *ct = viewtree(a);
	if (act == ACT_DETAIL) { /* the selected bar's calls */
		if (viewtree_ready(a))
			occur_of(a, ct, fv->sel, true);
		return true;
	}
	if (viewtree_action(a, act))
		return true;
	if (!viewtree_ready(a))
		return false;
	switch (act) {
	case ACT_PAN_LEFT: fv->sel = beside(a, -1); return true;
	case ACT_PAN_RIGHT: fv->sel = beside(a, 1); return true;
	case ACT_MOVE_UP:
		if (fv->sel != fv->root)
			fv->sel = ct->node[fv->sel].parent;
		return true;
	case ACT_MOVE_DOWN: {
		size_t n;
		uint32_t *kids = viewtree_children(ct, fv->sel, SORT_TOTAL, &n);
		if (n)
			fv->sel = kids[0];
		free(kids);
		return true;
	}
	case ACT_ZOOM_IN: fv->root = fv->sel; return true;
	case ACT_ZOOM_OUT:
		if (fv->root)
			fv->root = ct->node[fv->root].parent;
		return true;
	case ACT_ZOOM_ALL: fv->root = 0; return true;
	default: return false;
	}
}

static void flame_click(struct app *a, int line, int col)
{
	if (!viewtree_ready(a))
		return;
	struct layout L = {a, false, (uint32_t)MAX(col, 0), (uint32_t)MAX(line, 0), CT_NONE};
	lay_out(a, &L);
	if (L.found != CT_NONE)
		fv_of(a)->sel = L.found;
}

static const char *flame_meaning(enum action act)
{
	switch (act) {
	case ACT_MOVE_DOWN: return "the selected bar's first callee";
	case ACT_MOVE_UP: return "the selected bar's caller";
	case ACT_PAN_LEFT: return "the bar to the left";
	case ACT_PAN_RIGHT: return "the bar to the right";
	case ACT_ZOOM_IN: return "make the selected bar the whole width";
	case ACT_ZOOM_OUT: return "widen to its caller again";
	default: return NULL;
	}
}

static bool flame_pending(const struct app *a) { return viewtree_pending(a, V_FLAME); }

const struct view_ops flame_ops = {.state_size = sizeof(struct flame_view), .open = flame_open, .draw = flame_draw, .action = flame_action, .click = flame_click,
				   .meaning = flame_meaning, .status = flame_status, .pending = flame_pending, .step = viewtree_step};
