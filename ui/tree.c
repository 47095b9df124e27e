/* ui floor 12 */
/* The call tree view: where the time went in what the views show (the
 * filters, the lanes not hidden, the time range), as uftrace's tui shows
 * it: call paths with their total, self time and calls, folded and
 * unfolded, sorted by total, self or calls; every lane merged or each on
 * its own (a); top-down or bottom-up (i).  The tree is viewtree.c's (built
 * in steps, shared with the flame graph and the butterfly); this view
 * keeps its rows.  Enter lists the node's calls (occur.c); b the
 * butterfly, of the function at the cursor; D compares two scopes. */
#include <curses.h>
#include <stdlib.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "src/esc.h"
#include "src/report.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/occur.h"
#include "ui/page.h"
#include "ui/scope.h"
#include "ui/view.h"
#include "ui/viewtree.h"

static const char *const sort_names[SORT_COUNT] = {"total", "self", "calls"};

#define OPEN_ALL_UNDER 2000 /* nodes: a tree this small opens whole, a larger one two levels deep */

static int rows(const struct app *a) { return a->lines - 2; /* header and status line */ }

/* The tree shown as rows of unfolded nodes. */
struct tree_row {
	uint32_t node, depth;
};

struct tree_view {
	uint64_t gen, made;  /* of the tree (viewtree.c) the rows were made of */
	struct calltree inv; /* bottom-up (made when first shown) */
	bool inverted;       /* shown: inv */
	struct diff *diff_a; /* D: the names of the tree remembered as A */
	struct buf diff_a_scope; /* what A was of */

	enum tree_sort sort;
	uint8_t *open, *inv_open; /* per node: unfolded */
	size_t open_n;            /* nodes open has room for */
	struct tree_row *row;
	size_t nrows, caprow, cur, top;
};

/* v: the first file's spans against the others', a tree of side A's then
 * one of B's built in steps */
struct files_diff {
	struct calltree ct;
	struct diff_side side;
	struct diff *d;
	uint64_t spans_a;
	bool building;
};

/* This view's own state (view_state). */
struct tree_state {
	struct tree_view tv;
	struct files_diff files;
};

static struct tree_view *tv_of(struct app *a) { return &((struct tree_state *)view_state(a, V_TREE))->tv; }
static struct files_diff *files_of(struct app *a) { return &((struct tree_state *)view_state(a, V_TREE))->files; }

/* The tree shown (top-down or bottom-up) and its nodes' unfolding. */
static const struct calltree *shown_ct(struct app *a, struct tree_view *tv)
{
	return tv->inverted ? &tv->inv : viewtree(a);
}
static uint8_t *shown_open(struct tree_view *tv) { return tv->inverted ? tv->inv_open : tv->open; }

static bool tree_open(struct app *a)
{
	viewtree_open(a);
	return true;
}

/* The rows: every node whose callers are all unfolded, depth first. */
static void make_rows(struct app *a, struct tree_view *tv)
{
	const struct calltree *ct = shown_ct(a, tv);
	const uint8_t *open = shown_open(tv);
	struct frame {
		uint32_t *kids;
		size_t n, i;
	} *st = NULL;
	size_t depth = 0, cap = 0;
	tv->nrows = 0;
	xgrow(&st, &cap, 1, sizeof *st);
	st[depth].kids = viewtree_children(ct, 0, tv->sort, &st[depth].n);
	st[depth++].i = 0;
	while (depth) {
		struct frame *f = &st[depth - 1];
		if (f->i == f->n) {
			free(f->kids);
			depth--;
			continue;
		}
		uint32_t v = f->kids[f->i++];
		xgrow(&tv->row, &tv->caprow, tv->nrows + 1, sizeof *tv->row);
		tv->row[tv->nrows++] = (struct tree_row){v, (uint32_t)(depth - 1)};
		if (open[v] && ct->node[v].child != CT_NONE) {
			xgrow(&st, &cap, depth + 1, sizeof *st);
			st[depth].kids = viewtree_children(ct, v, tv->sort, &st[depth].n);
			st[depth++].i = 0;
		}
	}
	free(st);
	tv->cur = MIN(tv->cur, tv->nrows ? tv->nrows - 1 : 0);
}

static uint32_t depth_of(const struct calltree *ct, uint32_t v)
{
	uint32_t d = 0;
	while (ct->node[v].parent)
		v = ct->node[v].parent, d++;
	return d;
}

/* Unfolded at first: a small tree whole, a larger one two levels deep. */
static uint8_t *first_open(const struct calltree *ct)
{
	uint8_t *open = xcalloc(ct->n + 1, 1);
	for (uint32_t v = 1; v < ct->n; v++)
		open[v] = ct->n <= OPEN_ALL_UNDER || depth_of(ct, v) < 2;
	return open;
}

static void make_inverted(struct app *a, struct tree_view *tv)
{
	if (tv->inv.node)
		return;
	calltree_invert(viewtree(a), &tv->inv);
	tv->inv_open = first_open(&tv->inv);
}

static bool tree_pending(const struct app *a)
{
	const struct tree_state *st = view_state_made(a, V_TREE);
	return (st && st->files.building) || viewtree_pending(a, V_TREE);
}

static bool files_step(struct app *a, uint64_t budget_ns);

static bool tree_step(struct app *a, uint64_t budget_ns)
{
	if (files_of(a)->building)
		return files_step(a, budget_ns) || viewtree_building(a);
	return viewtree_step(a, budget_ns);
}

/* The bottom-up tree forgotten (made again of the tree when shown). */
static void forget_inverted(struct tree_view *tv)
{
	calltree_free(&tv->inv);
	free(tv->inv_open);
	tv->inv_open = NULL;
}

/* The rows forgotten (the tree is made afresh: its nodes are new). */
static void forget_rows(struct tree_view *tv)
{
	forget_inverted(tv);
	free(tv->open);
	tv->open = NULL;
	tv->open_n = tv->nrows = tv->cur = tv->top = 0;
}

/* The function at the cursor is the one selected (the butterfly's). */
static void tell_selected(struct app *a, struct tree_view *tv)
{
	if (tv->nrows) /* (syms are the same in both trees) */
		viewtree_select(a, shown_ct(a, tv)->node[tv->row[tv->cur].node].sym);
}

/* The rows of the tree as it is now: new nodes unfolded as at first, the
 * others as they were left; the bottom-up tree made again. */
static struct tree_view *synced(struct app *a)
{
	struct tree_view *tv = tv_of(a);
	if (tv->made != viewtree_made(a)) {
		forget_rows(tv);
		tv->made = viewtree_made(a);
	}
	if (tv->gen == viewtree_gen(a) || !viewtree(a)->node || viewtree_building(a))
		return tv;
	tv->gen = viewtree_gen(a);
	const struct calltree *ct = viewtree(a);
	uint8_t *open = first_open(ct);
	if (tv->open)
		memcpy(open, tv->open, tv->open_n);
	free(tv->open);
	tv->open = open;
	tv->open_n = ct->n;
	uint32_t at = tv->nrows ? tv->row[tv->cur].node : CT_NONE;
	if (tv->inv.node) {
		forget_inverted(tv);
		at = CT_NONE;
	}
	if (tv->inverted)
		make_inverted(a, tv);
	make_rows(a, tv);
	for (size_t i = 0; at != CT_NONE && i < tv->nrows; i++) /* the cursor stays on its node */
		if (tv->row[i].node == at)
			tv->cur = i;
	tell_selected(a, tv);
	return tv;
}

static void files_free(struct app *a);

static void tree_free(struct app *a)
{
	files_free(a);
	forget_rows(tv_of(a));
	free(tv_of(a)->row);
	tv_of(a)->row = NULL;
}

/* ---- drawing -------------------------------------------------------------- */

/* Room for a call's least, greatest and mean too. */
static bool wide(const struct app *a) { return a->cols >= 120; }

static void draw_row(struct app *a, int y, const struct tree_row *r, bool sel)
{
	struct tree_view *tv = tv_of(a);
	const struct calltree *ct = shown_ct(a, tv);
	const struct ct_node *n = &ct->node[r->node];
	uint64_t all = ct->node[0].total;
	struct buf b = {0};
	fmt_dur_cell(&b, n->total, 10);
	buf_printf(&b, " %5.1f%%", all ? 100.0 * (double)n->total / (double)all : 0.0);
	fmt_dur_cell(&b, n->self, 10);
	buf_printf(&b, " %9llu", (unsigned long long)n->calls);
	if (wide(a)) { /* a call's least, greatest and mean (a node of calls: not a lane, not bottom-up) */
		if (!tv->inverted && n->calls && ct->sym[n->sym].type != CT_LANE) {
			fmt_dur_cell(&b, n->min, 10);
			fmt_dur_cell(&b, n->max, 10);
			fmt_dur_cell(&b, n->total / n->calls, 10);
		} else {
			buf_printf(&b, "%30s", "");
		}
	}
	buf_adds(&b, "  ");
	for (uint32_t i = 0; i < r->depth && b.len < 400; i++)
		buf_adds(&b, "  ");
	if (n->child == CT_NONE)
		buf_adds(&b, "  ");
	else
		buf_adds(&b, shown_open(tv)[r->node] ? (a->unicode ? "▾ " : "- ") : (a->unicode ? "▸ " : "+ "));
	term_sid(&b, a->m, calltree_sid(ct, n->sym));
	draw_role(sel ? R_SELECTED : R_NORMAL);
	draw_fill(y, 0, a->cols, " ");
	draw_clipped(a, y, 0, a->cols, b.p, b.len);
	buf_free(&b);
}

static void tree_draw(struct app *a)
{
	struct tree_view *tv = synced(a);
	draw_role(R_TITLE);
	draw_fill(0, 0, a->cols, " ");
	char head[160];
	snprintf(head, sizeof head, "%10s %6s%10s %9s%s  %s by %s (s, i, Enter)", "TOTAL", "", "SELF", "CALLS",
		 wide(a) ? "       MIN       MAX      MEAN" : "", tv->inverted ? "BOTTOM-UP" : "CALL TREE",
		 sort_names[tv->sort]);
	draw_str(0, 0, a->cols, head);
	if (!viewtree_ready(a) || !tv->nrows) {
		viewtree_draw_waiting(a);
		return;
	}
	cursor_in_sight(&tv->top, tv->cur, rows(a));
	for (int y = 1; y <= rows(a) && tv->top + (size_t)(y - 1) < tv->nrows; y++) {
		size_t i = tv->top + (size_t)(y - 1);
		draw_row(a, y, &tv->row[i], i == tv->cur);
	}
}

/* The status line's part: the scope and where the cursor is. */
static bool tree_status(struct app *a, struct buf *out, int room)
{
	(void)room; /* (cut to fit by the status line) */
	struct tree_view *tv = synced(a);
	buf_printf(out, "call tree of %llu spans", (unsigned long long)viewtree(a)->spans);
	if (vis_count(a) != model_count(a->m))
		buf_adds(out, ", filtered");
	if (a->range.has_lo || a->range.has_hi)
		buf_adds(out, ", in the time range");
	if (tv->nrows)
		buf_printf(out, "  %zu/%zu", tv->cur + 1, tv->nrows);
	return true;
}

/* ---- actions -------------------------------------------------------------- */

/* Fold or unfold the node at the cursor; Left on a folded one goes to its caller. */
static void fold(struct app *a, struct tree_view *tv, bool open)
{
	const struct tree_row *r = &tv->row[tv->cur];
	uint32_t v = r->node;
	uint8_t *opened = shown_open(tv);
	if (shown_ct(a, tv)->node[v].child != CT_NONE && opened[v] != open) {
		opened[v] = open;
		make_rows(a, tv);
		return;
	}
	if (open || !r->depth)
		return;
	while (tv->cur && tv->row[tv->cur].depth >= r->depth)
		tv->cur--;
}

/* Enter: the selected node's calls, on top */
static bool tree_occurrences(struct app *a)
{
	struct tree_view *tv = synced(a);
	if (!viewtree_ready(a) || !tv->nrows)
		return false;
	return occur_of(a, shown_ct(a, tv), tv->row[tv->cur].node, !tv->inverted);
}

static bool tree_diff(struct app *a);
static bool tree_diff_files(struct app *a);

/* Enter (a node's calls), D and v, which open views of their own over the
 * tree; false: not one of them.  (b: the butterfly's own opener.) */
static bool tree_opens(struct app *a, enum action act)
{
	switch (act) {
	case ACT_DETAIL: tree_occurrences(a); return true;
	case ACT_DIFF:
		if (tree_diff(a))
			view_open(a, V_DIFF);
		return true;
	case ACT_DIFF_FILES:
		if (tree_diff_files(a))
			view_open(a, V_DIFF);
		return true;
	default: return false;
	}
}

/* s and i: another order, the other tree (while it is built: once it is). */
static bool reorder(struct app *a, struct tree_view *tv, enum action act)
{
	if (act == ACT_SORT) {
		uint32_t v = tv->nrows ? tv->row[tv->cur].node : CT_NONE;
		tv->sort = (tv->sort + 1) % SORT_COUNT;
		if (!tv->nrows)
			return true;
		make_rows(a, tv);
		for (size_t i = 0; i < tv->nrows; i++) /* the cursor stays on its node */
			if (tv->row[i].node == v)
				tv->cur = i;
		message(a, false, "call tree sorted by %s", sort_names[tv->sort]);
		return true;
	}
	tv->inverted = !tv->inverted;
	if (!tv->nrows)
		return true;
	if (tv->inverted)
		make_inverted(a, tv);
	tv->cur = tv->top = 0;
	make_rows(a, tv);
	message(a, false, "%s", tv->inverted ? "bottom-up: where the time was spent, and who called it"
					     : "top-down: the call tree");
	return true;
}

static bool tree_action(struct app *a, enum action act)
{
	struct tree_view *tv = synced(a);
	if (tree_opens(a, act))
		return true;
	if (viewtree_action(a, act))
		return true;
	if (act == ACT_SORT || act == ACT_INVERT)
		return reorder(a, tv, act);
	if (!viewtree_ready(a) || !tv->nrows)
		return false;
	if (act == ACT_PAN_RIGHT || act == ACT_PAN_LEFT)
		fold(a, tv, act == ACT_PAN_RIGHT);
	else if (!cursor_move(&tv->cur, tv->nrows, rows(a), act))
		return false;
	tell_selected(a, tv);
	return true;
}

/* ---- D: two scopes compared ------------------------------------------------ */

/* What a tree of `spans` spans is of, in words. */
static void scope_words(struct app *a, uint64_t spans, struct buf *b)
{
	buf_printf(b, "%llu spans", (unsigned long long)spans);
	if (a->range.has_lo || a->range.has_hi) {
		buf_adds(b, ", the time range ");
		if (a->range.has_lo && a->range.has_hi)
			fmt_dur(b, (uint64_t)a->range.hi - (uint64_t)a->range.lo);
		int64_t first = 0, last;
		if (a->range.has_lo && model_span(a->m, &first, &last))
			buf_printf(b, " from %+.6fs", (double)(a->range.lo - first) / 1e9);
	}
	size_t nf = 0;
	for (size_t i = 0; i < a->fs->n; i++)
		nf += a->fs->f[i].enabled;
	for (size_t i = 0; i < a->fs->n; i++)
		if (a->fs->f[i].enabled) {
			buf_adds(b, i ? ", " : ", filters: ");
			esc_typed(b, a->fs->f[i].spec, strlen(a->fs->f[i].spec));
		}
	if (vis_count(a) != model_count(a->m) && !nf)
		buf_adds(b, ", some lanes only");
}

static bool tree_diff(struct app *a)
{
	struct tree_view *tv = tv_of(a);
	const struct calltree *ct = viewtree(a);
	if (viewtree_building(a) || !ct->node) {
		message(a, true, "the call tree is not all there yet");
		return false;
	}
	if (!tv->diff_a) {
		tv->diff_a = diff_new();
		diff_add(tv->diff_a, ct, false);
		buf_reset(&tv->diff_a_scope);
		scope_words(a, ct->spans, &tv->diff_a_scope);
		message(a, false, "this is A: change what is shown (a time range, filters, lanes), then D compares");
		return false;
	}
	diff_add(tv->diff_a, ct, true);
	struct buf *p = page_diff_text(a);
	buf_reset(p);
	buf_adds(p, "A: ");
	buf_add(p, tv->diff_a_scope.p, tv->diff_a_scope.len);
	buf_adds(p, "\nB: ");
	scope_words(a, ct->spans, p);
	buf_adds(p, "\nper name, the largest change of total first\n\n");
	diff_table(tv->diff_a, a->m, false, p, NULL);
	diff_free(tv->diff_a);
	tv->diff_a = NULL;
	return true;
}

/* ---- v: the first file against the others ---------------------------------- */

/* The PATHs given among sources [from, to) (a directory's are its own). */
static void given_paths(struct app *a, uint32_t from, uint32_t to, struct buf *b)
{
	const char *sep = "";
	for (uint32_t i = from; i < to; i++)
		if (a->t->src[i]->given) {
			buf_adds(b, sep);
			esc_typed(b, a->t->src[i]->given, strlen(a->t->src[i]->given));
			sep = ", ";
		}
}

static void files_free(struct app *a)
{
	calltree_free(&files_of(a)->ct);
	diff_free(files_of(a)->d);
	*files_of(a) = (struct files_diff){0};
}

/* Begin the tree of one side: what the views show, of the first file (A) or the others (B). */
static void files_side(struct app *a, bool b)
{
	struct ct_scope base, sc;
	scope_fill(a, &base);
	base.per_lane = false;
	diff_side_scope(&files_of(a)->side, &base, b, &sc);
	calltree_begin(&files_of(a)->ct, &sc);
}

static void files_said(struct app *a)
{
	struct files_diff *fd = files_of(a);
	struct buf *p = page_diff_text(a);
	uint64_t n = model_count(a->m);
	buf_reset(p);
	if (fd->building) {
		buf_printf(p, "comparing the first file with the others: %s, %.0f%% of the events\n",
			   fd->side.b ? "B" : "A", n ? 100.0 * (double)fd->ct.at / (double)n : 100.0);
		return;
	}
	buf_adds(p, "A: ");
	given_paths(a, 0, a->t->nsrc_first, p);
	buf_adds(p, ", ");
	scope_words(a, fd->spans_a, p);
	buf_adds(p, "\nB: ");
	given_paths(a, a->t->nsrc_first, (uint32_t)a->t->nsrc, p);
	buf_adds(p, ", ");
	scope_words(a, fd->ct.spans, p);
	buf_adds(p, "\nper name, the largest change of total first\n\n");
	diff_table(fd->d, a->m, false, p, NULL);
}

static bool tree_diff_files(struct app *a)
{
	if (!a->t->nsrc_first || a->t->nsrc_first >= a->t->nsrc) {
		message(a, true, "v compares files: open two (ttv A B)");
		return false;
	}
	files_free(a);
	files_of(a)->d = diff_new();
	files_of(a)->building = true;
	files_side(a, false);
	files_said(a);
	return true;
}

/* A step of the comparison; it stops when its page is left. */
static bool files_step(struct app *a, uint64_t budget_ns)
{
	struct files_diff *fd = files_of(a);
	if (view_top(a) != V_DIFF) {
		files_free(a);
		message(a, false, "comparison stopped");
		return false;
	}
	bool more = calltree_step(&fd->ct, now_ns() + budget_ns, false);
	if (!more) {
		diff_add(fd->d, &fd->ct, fd->side.b);
		if (!fd->side.b) {
			fd->spans_a = fd->ct.spans;
			calltree_free(&fd->ct);
			files_side(a, true);
			more = true;
		} else {
			fd->building = false;
		}
	}
	files_said(a);
	if (!more)
		files_free(a);
	return more;
}

static const char *tree_meaning(enum action act)
{
	switch (act) {
	case ACT_MOVE_DOWN: return "next node";
	case ACT_MOVE_UP: return "previous node";
	case ACT_PAN_LEFT: return "fold the selected node";
	case ACT_PAN_RIGHT: return "unfold the selected node";
	default: return NULL;
	}
}

/* The viewer ends: the tree, and the A remembered for D. */
static void tree_end(struct app *a)
{
	tree_free(a);
	diff_free(tv_of(a)->diff_a);
	buf_free(&tv_of(a)->diff_a_scope);
}

const struct view_ops tree_ops = {.state_size = sizeof(struct tree_state), .open = tree_open, .draw = tree_draw, .action = tree_action, .meaning = tree_meaning,
				  .status = tree_status, .pending = tree_pending, .step = tree_step, .free = tree_end};
