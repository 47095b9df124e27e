/* ui floor 11 */
/* The calls of one node of the call tree (Enter there, or in the flame
 * graph): its spans, longest first, with their self time, start and lane;
 * Enter goes to one in the lanes view.  A tree keeps no span of its own,
 * so they are found by nesting the spans of the same scope again
 * (calltree.h's counted()) and taking those whose call path is the
 * node's: the whole path for a node of the top-down tree, its callers as
 * far as they go for one of the bottom-up tree.  Built in steps (Esc
 * stops); built again when the scope changes while it is shown. */
#include <curses.h>
#include <stdlib.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/occur.h"
#include "ui/scope.h"
#include "ui/view.h"

/* the calls found, longest first */
struct occurrence {
	struct ct_ref ref;
	uint64_t dur, self;
};

struct occur_view {
	struct calltree ct;  /* the spans of the tree's scope nested again */
	struct ct_sym *path; /* the node's name, then its callers' outward */
	size_t npath, cappath;
	bool whole;          /* the path goes up to the root (top-down); else as far as it goes (bottom-up) */
	uint8_t *verdict;    /* per node of ct: 0 not asked yet, 1 on the path, 2 not */
	size_t nverdict;
	struct occurrence *o; /* a min-heap by length while built; then longest first */
	size_t n, cap, cur, top;
	uint64_t calls, tree_calls; /* found (more than n when not all were kept); the tree's count */
	uint64_t scope;            /* the tree's scope it was found in (scope_hash) */
	bool building;
};

#define OCCUR_KEEP 100000 /* the longest kept: a node may have millions of calls */

static int rows(const struct app *a) { return a->lines - 2; }

static struct occur_view *ov_of(const struct app *a) { return view_state((struct app *)a, V_OCCUR); }

static void occur_free(struct app *a)
{
	struct occur_view *ov = ov_of(a);
	calltree_free(&ov->ct);
	free(ov->path);
	free(ov->verdict);
	free(ov->o);
	*ov = (struct occur_view){0};
}

/* Is node v of the tree being built on the path (as far as it goes, or
 * up to the root when whole)?  Asked once per node. */
static bool on_path(struct occur_view *ov, uint32_t v)
{
	if (v >= ov->nverdict) {
		size_t n = ov->nverdict;
		xgrow(&ov->verdict, &ov->nverdict, (size_t)v + 1, 1);
		memset(ov->verdict + n, 0, ov->nverdict - n);
	}
	if (!ov->verdict[v]) {
		const struct calltree *ct = &ov->ct;
		size_t i = 0;
		uint32_t u = v;
		for (; i < ov->npath && u; i++, u = ct->node[u].parent) {
			const struct ct_sym *s = &ct->sym[ct->node[u].sym];
			if (s->type != ov->path[i].type || s->name != ov->path[i].name)
				break;
		}
		ov->verdict[v] = i == ov->npath && (!ov->whole || !u) ? 1 : 2;
	}
	return ov->verdict[v] == 1;
}

static bool shorter(const struct occurrence *x, const struct occurrence *y) { return x->dur < y->dur; }

/* The heap's root (its shortest) sinks to its place. */
static void sift_down(struct occurrence *h, size_t n)
{
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && shorter(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && shorter(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct occurrence t = h[i];
		h[i] = h[m], h[m] = t, i = m;
	}
}

/* A span counted in node v: kept if it is on the path and among the longest. */
static void counted(void *ctx, uint32_t v, uint64_t d, uint64_t self, const struct ct_ref *ref)
{
	struct occur_view *ov = ctx;
	if (!on_path(ov, v))
		return;
	ov->calls++;
	struct occurrence o = {*ref, d, self};
	if (ov->n < OCCUR_KEEP) { /* a min-heap: the shortest kept at its root */
		size_t i = ov->n++;
		xgrow(&ov->o, &ov->cap, ov->n, sizeof *ov->o);
		for (; i && shorter(&o, &ov->o[(i - 1) / 2]); i = (i - 1) / 2)
			ov->o[i] = ov->o[(i - 1) / 2];
		ov->o[i] = o;
	} else if (d > ov->o[0].dur) {
		ov->o[0] = o;
		sift_down(ov->o, ov->n);
	}
}

static void build(struct app *a)
{
	struct occur_view *ov = ov_of(a);
	calltree_free(&ov->ct);
	free(ov->verdict);
	ov->verdict = NULL;
	ov->nverdict = ov->n = ov->calls = ov->cur = ov->top = 0;
	ov->scope = scope_hash(a);
	ov->building = true;
	struct ct_scope sc;
	scope_fill(a, &sc); /* (the tree's scope) */
	calltree_begin(&ov->ct, &sc);
	ov->ct.counted = counted;
	ov->ct.counted_ctx = ov;
}

bool occur_of(struct app *a, const struct calltree *ct, uint32_t node, bool whole)
{
	const struct ct_node *n = &ct->node[node];
	if (!node || ct->sym[n->sym].type == CT_LANE) {
		message(a, false, "%s", node ? "a lane: its spans are under it" : "nothing selected");
		return false;
	}
	struct ct_sym *path = NULL;
	size_t npath = 0, cap = 0;
	for (uint32_t u = node; u; u = ct->node[u].parent) {
		xgrow(&path, &cap, npath + 1, sizeof *path);
		path[npath++] = ct->sym[ct->node[u].sym];
	}
	for (size_t i = 0; !whole && i < npath / 2; i++) { /* bottom-up: the function is outermost, its callers in */
		struct ct_sym t = path[i];
		path[i] = path[npath - 1 - i], path[npath - 1 - i] = t;
	}
	struct occur_view *ov = ov_of(a);
	if (ov->npath == npath && ov->whole == whole && !memcmp(ov->path, path, npath * sizeof *path) &&
	    ov->scope == scope_hash(a)) { /* the same calls: as they were left */
		free(path);
	} else {
		occur_free(a);
		*ov = (struct occur_view){.path = path, .npath = npath, .cappath = cap, .whole = whole,
					  .tree_calls = n->calls};
		build(a);
	}
	view_open(a, V_OCCUR);
	return true;
}

static int by_length(const void *x, const void *y)
{
	const struct occurrence *a = x, *b = y;
	if (a->dur != b->dur)
		return a->dur < b->dur ? 1 : -1;
	return a->ref.ts < b->ref.ts ? -1 : a->ref.ts > b->ref.ts;
}

static bool occur_pending(const struct app *a)
{
	const struct occur_view *ov = ov_of(a);
	return ov->building || (ov->npath && view_top(a) == V_OCCUR && ov->scope != scope_hash((struct app *)a));
}

static bool occur_step(struct app *a, uint64_t budget_ns)
{
	struct occur_view *ov = ov_of(a);
	if (!occur_pending(a))
		return false;
	if (!ov->building) /* the scope changed while shown */
		build(a);
	if (calltree_step(&ov->ct, now_ns() + budget_ns, false))
		return true;
	ov->building = false;
	qsort(ov->o, ov->n, sizeof *ov->o, by_length);
	calltree_free(&ov->ct);
	return false;
}

/* ---- drawing -------------------------------------------------------------- */

static void draw_occurrence(struct app *a, int y, const struct occurrence *o, bool sel)
{
	struct buf b = {0};
	fmt_dur_cell(&b, o->dur, 10);
	fmt_dur_cell(&b, o->self, 10);
	buf_adds(&b, "  ");
	struct event e = {.ts = o->ref.ts, .input = o->ref.input, .lane = o->ref.lane};
	size_t at = b.len;
	fmt_time(a, &b, &e);
	buf_printf(&b, "%*s  ", (int)MAX(0, 16 - (int)(b.len - at)), "");
	term_sid(&b, a->m, lane_name(a->m, o->ref.lane));
	draw_role(sel ? R_SELECTED : R_NORMAL);
	draw_fill(y, 0, a->cols, " ");
	draw_clipped(a, y, 0, a->cols, b.p, b.len);
	buf_free(&b);
}

static void occur_draw(struct app *a)
{
	struct occur_view *ov = ov_of(a);
	draw_role(R_TITLE);
	draw_fill(0, 0, a->cols, " ");
	char head[160];
	snprintf(head, sizeof head, "%10s%10s  %-16s  %s", "DURATION", "SELF", "START", "LANE   longest first (Enter: go there)");
	draw_str(0, 0, a->cols, head);
	if (ov->building) {
		draw_progress(a, "finding the calls", ov->ct.at);
		return;
	}
	if (!ov->n) {
		draw_role(R_DIM);
		draw_str(2, 2, a->cols - 4, "none of its calls is in what is shown now");
		return;
	}
	cursor_in_sight(&ov->top, ov->cur, rows(a));
	for (int y = 1; y <= rows(a) && ov->top + (size_t)(y - 1) < ov->n; y++) {
		size_t i = ov->top + (size_t)(y - 1);
		draw_occurrence(a, y, &ov->o[i], i == ov->cur);
	}
}

/* The status line's part: whose calls, and where the cursor is. */
static bool occur_status(struct app *a, struct buf *out, int room)
{
	(void)room; /* (cut to fit by the status line) */
	struct occur_view *ov = ov_of(a);
	buf_printf(out, "%llu calls of ", (unsigned long long)(ov->building ? ov->tree_calls : ov->calls));
	for (size_t i = 0; i < ov->npath; i++) {
		if (i)
			buf_adds(out, ov->whole ? " in " : " from ");
		term_sid(out, a->m, ct_sym_sid(a->m, ov->path[i]));
	}
	if (!ov->building && ov->calls > ov->n)
		buf_printf(out, " (the %zu longest)", ov->n);
	if (!ov->building && ov->n)
		buf_printf(out, "  %zu/%zu", ov->cur + 1, ov->n);
	return true;
}

/* ---- actions -------------------------------------------------------------- */

static bool occur_action(struct app *a, enum action act)
{
	struct occur_view *ov = ov_of(a);
	if (ov->building && (act == ACT_BACK || act == ACT_QUIT || act == ACT_INTERRUPT)) {
		occur_free(a);
		message(a, false, "stopped finding the calls");
		return act == ACT_INTERRUPT; /* (else: closed as every page is) */
	}
	if (ov->building || !ov->n)
		return false;
	if (cursor_move(&ov->cur, ov->n, rows(a), act))
		return true;
	if (act != ACT_DETAIL)
		return false;
	const struct occurrence *o = &ov->o[ov->cur];
	scope_go_span(a, &o->ref, ov->path[0], ov->cur, ov->calls, o->dur);
	return true;
}

const struct view_ops occur_ops = {.state_size = sizeof(struct occur_view), .draw = occur_draw, .action = occur_action, .status = occur_status,
				   .pending = occur_pending, .step = occur_step, .free = occur_free};
