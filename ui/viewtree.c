/* ui floor 11 */
/* The call tree of what the views show (the filters, the lanes not
 * hidden, the time range; every lane merged or each apart), built in steps
 * from the loop (src/calltree.h) and on as the trace grows.  The call tree
 * view, the flame graph and the butterfly show this one tree, so it is
 * built once for them all; each keeps only how it shows it. */
#include <stdlib.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/scope.h"
#include "ui/view.h"
#include "ui/viewtree.h"

struct viewtree {
	struct calltree ct;
	uint64_t scope; /* what it was built of (scope_hash) */
	bool building;  /* made afresh, not all there yet */
	uint64_t gen, made;
	bool selected; /* a function said (viewtree_select) of the tree made `made`: */
	uint32_t sym;
};

static struct viewtree *vt_of(struct app *a)
{
	if (!a->viewtree)
		a->viewtree = xcalloc(1, sizeof *a->viewtree);
	return a->viewtree;
}

void viewtree_open(struct app *a)
{
	struct viewtree *vt = vt_of(a);
	uint64_t scope = scope_hash(a);
	if (vt->ct.node && vt->scope == scope)
		return;
	calltree_free(&vt->ct);
	*vt = (struct viewtree){.scope = scope, .building = true, .gen = vt->gen + 1, .made = vt->made + 1};
	struct ct_scope sc;
	scope_fill(a, &sc);
	calltree_begin(&vt->ct, &sc);
}

const struct calltree *viewtree(struct app *a) { return &vt_of(a)->ct; }
bool viewtree_building(struct app *a) { return vt_of(a)->building; }
uint64_t viewtree_gen(struct app *a) { return vt_of(a)->gen; }
uint64_t viewtree_made(struct app *a) { return vt_of(a)->made; }

/* A node no span was counted in (a path a span was taken for before the
 * span that holds it came: calltree.c add_span) is not shown. */
static bool counted(const struct ct_node *n) { return n->calls || n->total; }

bool viewtree_ready(struct app *a)
{
	const struct calltree *ct = &vt_of(a)->ct;
	if (vt_of(a)->building || !ct->node)
		return false;
	for (uint32_t c = ct->node[0].child; c != CT_NONE; c = ct->node[c].next)
		if (counted(&ct->node[c]))
			return true;
	return false;
}

static uint64_t key_of(const struct ct_node *n, enum tree_sort sort)
{
	return sort == SORT_SELF ? n->self : sort == SORT_CALLS ? n->calls : n->total;
}

static const struct ct_node *sort_nodes; /* (qsort has no context) */
static enum tree_sort sort_key;

static int by_key(const void *x, const void *y)
{
	const struct ct_node *a = &sort_nodes[*(const uint32_t *)x], *b = &sort_nodes[*(const uint32_t *)y];
	uint64_t u = key_of(a, sort_key), v = key_of(b, sort_key);
	if (u != v)
		return u < v ? 1 : -1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

uint32_t *viewtree_children(const struct calltree *ct, uint32_t v, enum tree_sort sort, size_t *n)
{
	*n = 0;
	for (uint32_t c = ct->node[v].child; c != CT_NONE; c = ct->node[c].next)
		*n += counted(&ct->node[c]);
	uint32_t *kids = xmalloc((*n + 1) * sizeof *kids);
	size_t i = 0;
	for (uint32_t c = ct->node[v].child; c != CT_NONE; c = ct->node[c].next)
		if (counted(&ct->node[c]))
			kids[i++] = c;
	sort_nodes = ct->node;
	sort_key = sort;
	qsort(kids, *n, sizeof *kids, by_key);
	return kids;
}

void viewtree_select(struct app *a, uint32_t sym)
{
	vt_of(a)->selected = true;
	vt_of(a)->sym = sym;
}

bool viewtree_selected(struct app *a, uint32_t *sym)
{
	struct viewtree *vt = vt_of(a);
	if (!viewtree_ready(a))
		return false;
	if (!vt->selected || vt->sym >= vt->ct.nsym) { /* (none said of this tree: the largest) */
		size_t n;
		uint32_t *kids = viewtree_children(&vt->ct, 0, SORT_TOTAL, &n);
		vt->selected = true;
		vt->sym = vt->ct.node[kids[0]].sym;
		free(kids);
	}
	*sym = vt->sym;
	return true;
}

void viewtree_draw_waiting(struct app *a)
{
	struct viewtree *vt = vt_of(a);
	if (vt->building) {
		draw_progress(a, "nesting spans", vt->ct.at);
		return;
	}
	draw_role(R_DIM);
	draw_str(2, 2, a->cols - 4, "no span in what is shown (filters, hidden lanes, the time range)");
}

bool viewtree_action(struct app *a, enum action act)
{
	struct viewtree *vt = vt_of(a);
	if (vt->building && (act == ACT_BACK || act == ACT_QUIT || act == ACT_INTERRUPT)) {
		calltree_free(&vt->ct); /* stopped: built afresh when opened again */
		*vt = (struct viewtree){.gen = vt->gen + 1, .made = vt->made + 1};
		message(a, false, "call tree stopped");
		return act == ACT_INTERRUPT;
	}
	if (act != ACT_BY_LANE)
		return false;
	a->per_lane = !a->per_lane;
	bool was_building = vt->building;
	viewtree_open(a); /* (built afresh) */
	if (!was_building)
		message(a, false, "%s", a->per_lane ? "each lane on its own" : "every lane merged");
	return true;
}

/* The trace may still grow: it is being read, or followed. */
static bool live(const struct app *a) { return a->loading || a->follow; }

bool viewtree_pending(const struct app *a, enum view_id v)
{
	const struct viewtree *vt = a->viewtree;
	if (!vt)
		return false; /* (never opened) */
	if (vt->building)
		return true;
	if (!vt->ct.node || view_top(a) != v)
		return false;
	if (vt->scope != scope_hash((struct app *)a)) /* (another scope, or the order changed: built afresh) */
		return true;
	/* events appended, or the end reached (the open spans count) */
	return !vt->ct.done && (model_count(a->m) > vt->ct.at || !live(a));
}

bool viewtree_step(struct app *a, uint64_t budget_ns)
{
	struct viewtree *vt = vt_of(a);
	if (!vt->building && vt->scope != scope_hash(a)) {
		viewtree_open(a); /* (built afresh) */
		return true;
	}
	if (calltree_step(&vt->ct, now_ns() + budget_ns, live(a)))
		return true;
	vt->building = false;
	vt->gen++;
	return false;
}

void viewtree_free(struct app *a)
{
	if (a->viewtree)
		calltree_free(&a->viewtree->ct);
	free(a->viewtree);
	a->viewtree = NULL;
}
