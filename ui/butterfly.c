/* ui floor 13 */
/* The butterfly view (b in the call tree): one function, who called it
 * and whom it called, over every call path it is on (the call tree's,
 * viewtree.c; the function selected there).  Callers above it with the time spent in it through them,
 * callees below with the time they took in it; Enter on one of them makes
 * it the function; Esc goes back to the call tree. */
#include <curses.h>
#include <stdlib.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/view.h"
#include "ui/viewtree.h"

struct bf_row {
	int kind;     /* a heading, a caller, the function, a callee */
	uint32_t sym; /* CT_NONE: none (a heading, or no caller: outermost) */
	uint64_t total, self, calls;
};

struct butterfly_view {
	bool focused; /* on a function: */
	uint32_t sym; /* the function */
	uint64_t tree_gen; /* the tree's gen it was made of */
	struct bf_row *row;
	size_t nrows, caprow, cur, top;
};

enum { BF_HEAD, BF_CALLER, BF_FOCUS, BF_CALLEE };

static int rows(const struct app *a) { return a->lines - 2; }

static struct butterfly_view *bv_of(struct app *a) { return view_state(a, V_BUTTERFLY); }

static void add_row(struct butterfly_view *bv, int kind, uint32_t sym)
{
	xgrow(&bv->row, &bv->caprow, bv->nrows + 1, sizeof *bv->row);
	bv->row[bv->nrows++] = (struct bf_row){.kind = kind, .sym = sym};
}

/* The row of sym among rows [from, nrows) of this kind (made when new). */
static struct bf_row *row_of(struct butterfly_view *bv, size_t from, int kind, uint32_t sym)
{
	for (size_t i = from; i < bv->nrows; i++)
		if (bv->row[i].sym == sym)
			return &bv->row[i];
	add_row(bv, kind, sym);
	return &bv->row[bv->nrows - 1];
}

static int by_total(const void *x, const void *y)
{
	const struct bf_row *a = x, *b = y;
	return a->total < b->total ? 1 : a->total > b->total ? -1 : (a->sym > b->sym) - (a->sym < b->sym);
}

/* Does a caller of v have its name too (its time is in the outer call's)? */
static bool nested_in_itself(const struct calltree *ct, uint32_t v)
{
	for (uint32_t u = ct->node[v].parent; u; u = ct->node[u].parent)
		if (ct->node[u].sym == ct->node[v].sym)
			return true;
	return false;
}

/* The rows for function sym: callers, it, callees, each part by total. */
static void focus(struct app *a, uint32_t sym)
{
	struct butterfly_view *bv = bv_of(a);
	const struct calltree *ct = viewtree(a);
	bv->focused = true;
	bv->sym = sym;
	bv->tree_gen = viewtree_gen(a);
	bv->nrows = bv->cur = bv->top = 0;
	add_row(bv, BF_HEAD, CT_NONE); /* "called by" */
	size_t callers = bv->nrows;
	struct bf_row self = {.kind = BF_FOCUS, .sym = sym};
	for (uint32_t v = 1; v < ct->n; v++) {
		const struct ct_node *n = &ct->node[v];
		if (n->sym != sym)
			continue;
		if (!nested_in_itself(ct, v))
			self.total += n->total;
		self.self += n->self;
		self.calls += n->calls;
		struct bf_row *c = row_of(bv, callers, BF_CALLER, n->parent ? ct->node[n->parent].sym : CT_NONE);
		c->total += n->total, c->calls += n->calls;
	}
	qsort(bv->row + callers, bv->nrows - callers, sizeof *bv->row, by_total);
	xgrow(&bv->row, &bv->caprow, bv->nrows + 1, sizeof *bv->row);
	bv->row[bv->nrows++] = self;
	bv->cur = bv->nrows - 1;
	add_row(bv, BF_HEAD, CT_NONE); /* "calls" */
	size_t callees = bv->nrows;
	for (uint32_t v = 1; v < ct->n; v++) {
		if (ct->node[v].sym != sym)
			continue;
		for (uint32_t c = ct->node[v].child; c != CT_NONE; c = ct->node[c].next) {
			struct bf_row *r = row_of(bv, callees, BF_CALLEE, ct->node[c].sym);
			r->total += ct->node[c].total, r->self += ct->node[c].self, r->calls += ct->node[c].calls;
		}
	}
	qsort(bv->row + callees, bv->nrows - callees, sizeof *bv->row, by_total);
}

static void butterfly_close(struct app *a)
{
	struct butterfly_view *bv = bv_of(a);
	free(bv->row);
	*bv = (struct butterfly_view){0};
}

/* The function selected in the call tree, once the tree is built; rows
 * made of a tree that changed since go (made again of the one selected). */
static void focus_selected(struct app *a)
{
	if (bv_of(a)->focused && bv_of(a)->tree_gen != viewtree_gen(a))
		butterfly_close(a);
	uint32_t sym;
	if (!bv_of(a)->focused && viewtree_selected(a, &sym))
		focus(a, sym);
}

/* b in the call tree: of the function at its cursor */
static bool butterfly_open(struct app *a)
{
	butterfly_close(a);
	viewtree_open(a);
	focus_selected(a);
	return true;
}

/* back on top: as it was left, if the tree is */
static bool butterfly_back(struct app *a)
{
	focus_selected(a);
	return true;
}

static void butterfly_draw(struct app *a)
{
	struct butterfly_view *bv = bv_of(a);
	const struct calltree *ct = viewtree(a);
	focus_selected(a); /* (asked for while the tree was being built) */
	draw_role(R_TITLE);
	draw_fill(0, 0, a->cols, " ");
	char head[160];
	snprintf(head, sizeof head, "%10s %6s%10s %9s  CALLERS AND CALLEES (Enter: that one)", "TOTAL", "", "SELF",
		 "CALLS");
	draw_str(0, 0, a->cols, head);
	if (!bv->focused) {
		viewtree_draw_waiting(a);
		return;
	}
	cursor_in_sight(&bv->top, bv->cur, rows(a));
	uint64_t all = ct->node[0].total;
	for (int y = 1; y <= rows(a) && bv->top + (size_t)(y - 1) < bv->nrows; y++) {
		size_t i = bv->top + (size_t)(y - 1);
		const struct bf_row *r = &bv->row[i];
		struct buf b = {0};
		if (r->kind == BF_HEAD) {
			buf_printf(&b, "%38s%s", "", i ? "calls:" : "called by:");
		} else {
			fmt_dur_cell(&b, r->total, 10);
			buf_printf(&b, " %5.1f%%", all ? 100.0 * (double)r->total / (double)all : 0.0);
			if (r->kind == BF_CALLER)
				buf_printf(&b, "%10s", "");
			else
				fmt_dur_cell(&b, r->self, 10);
			buf_printf(&b, " %9llu  %s", (unsigned long long)r->calls, r->kind == BF_FOCUS ? "" : "  ");
			if (r->sym == CT_NONE)
				buf_adds(&b, "(nothing: it was outermost)");
			else
				term_sid(&b, a->m, calltree_sid(ct, r->sym));
		}
		draw_role(i == bv->cur ? R_SELECTED : r->kind == BF_HEAD ? R_DIM : r->kind == BF_FOCUS ? R_KEY : R_NORMAL);
		draw_fill(y, 0, a->cols, " ");
		draw_clipped(a, y, 0, a->cols, b.p, b.len);
		buf_free(&b);
	}
}

/* The next row that is a function (dir 1) or the one before (-1), if any:
 * the headings are passed over. */
static void step(struct butterfly_view *bv, int dir)
{
	for (size_t i = bv->cur; dir > 0 ? i + 1 < bv->nrows : i > 0;) {
		i = dir > 0 ? i + 1 : i - 1;
		if (bv->row[i].kind != BF_HEAD) {
			bv->cur = i;
			return;
		}
	}
}

static bool butterfly_action(struct app *a, enum action act)
{
	struct butterfly_view *bv = bv_of(a);
	if (viewtree_action(a, act))
		return true;
	focus_selected(a);
	size_t last = bv->nrows ? bv->nrows - 1 : 0;
	if (!bv->focused)
		return false;
	switch (act) {
	case ACT_MOVE_DOWN: step(bv, 1); return true;
	case ACT_MOVE_UP: step(bv, -1); return true;
	case ACT_FIRST: bv->cur = 0, step(bv, 1); return true;
	case ACT_LAST:
		bv->cur = last;
		if (bv->row[last].kind == BF_HEAD)
			step(bv, -1);
		return true;
	case ACT_DETAIL:
		if (bv->nrows && bv->row[bv->cur].kind != BF_HEAD && bv->row[bv->cur].sym != CT_NONE)
			focus(a, bv->row[bv->cur].sym);
		return true;
	default: return false;
	}
}

static bool butterfly_pending(const struct app *a) { return viewtree_pending(a, V_BUTTERFLY); }

const struct view_ops butterfly_ops = {.state_size = sizeof(struct butterfly_view), .open = butterfly_open, .back = butterfly_back, .draw = butterfly_draw,
				       .action = butterfly_action, .pending = butterfly_pending, .step = viewtree_step,
				       .free = butterfly_close};
