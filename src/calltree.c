/* Where the time went: spans nested per lane into a tree of call paths
 * (src/calltree.h says how they nest). */
#include "src/calltree.h"

#include <stdlib.h>

#include "src/batch.h"
#include "src/nest.h"

/* A span open on its lane's stack. */
struct open {
	struct nest_open n; /* (first: struct nest's record) */
	uint32_t node, sym;
	struct ct_ref ref;
	uint64_t pos; /* its event's position (calltree.spanned) */
};

/* Read apart, spans come in their part's order: of two equally long, the
 * one the merged order has first is the longest (as when read merged). */
static bool ref_before(const struct ct_ref *a, const struct ct_ref *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->input != b->input ? a->input < b->input : a->off < b->off;
}

struct ct_stack {
	struct nest nest;
	struct calltree *ct;
	uint32_t root; /* what its outermost spans are under: the root, or (per lane) the lane's node */
};

static struct open *open_at(const struct nest *n, size_t i) { return (struct open *)nest_at(n, i); }

/* The sym of type and name, made when new; at: the place of the event
 * that asks (read apart, the first of them in the merged order may come
 * after others). */
static uint32_t sym_of(struct calltree *ct, uint32_t type, uint32_t name, place_t at)
{
	uint64_t *v = hmap_ref(&ct->sym_of, (uint64_t)type << 32 | name);
	if (!*v) {
		xgrow(&ct->sym, &ct->capsym, ct->nsym + 1, sizeof *ct->sym);
		ct->sym[ct->nsym] = (struct ct_sym){type, name, at};
		*v = ++ct->nsym;
	}
	struct ct_sym *y = &ct->sym[*v - 1];
	y->first = MIN(y->first, at);
	return (uint32_t)(*v - 1);
}

static uint32_t new_node(struct calltree *ct, uint32_t parent, uint32_t sym, place_t at)
{
	xgrow(&ct->node, &ct->cap, ct->n + 1, sizeof *ct->node);
	struct ct_node *p = parent == CT_NONE ? NULL : &ct->node[parent];
	ct->node[ct->n] = (struct ct_node){.parent = parent, .sym = sym, .child = CT_NONE,
					   .next = p ? p->child : CT_NONE, .first = at};
	if (p)
		p->child = (uint32_t)ct->n;
	return (uint32_t)ct->n++;
}

/* The child of parent called sym (made when new), reached at place at. */
static uint32_t child_of(struct calltree *ct, uint32_t parent, uint32_t sym, place_t at)
{
	uint64_t *v = hmap_ref(&ct->node_of, (uint64_t)parent << 32 | sym);
	if (!*v)
		*v = (uint64_t)new_node(ct, parent, sym, at) + 1;
	struct ct_node *nd = &ct->node[*v - 1];
	nd->first = MIN(nd->first, at);
	return (uint32_t)(*v - 1);
}

/* An outermost span of d ns: the time the root (and its lane's node) covers. */
static void outermost(struct calltree *ct, uint32_t root, uint64_t d)
{
	ct->node[0].total += d;
	if (root) {
		ct->node[root].total += d;
		ct->node[root].calls++;
	}
}

/* A span of d ns counted in node v, self of them its own. */
static void count_in(struct calltree *ct, uint32_t v, uint64_t d, uint64_t self, const struct ct_ref *ref)
{
	struct ct_node *nd = &ct->node[v];
	nd->min = nd->calls && nd->min < d ? nd->min : d;
	if (!nd->calls || d > nd->max || (ct->apart && d == nd->max && ref_before(ref, &nd->longest)))
		nd->longest = *ref;
	nd->max = MAX(nd->max, d);
	nd->calls++;
	nd->total += d;
	nd->self += self;
	if (ct->counted)
		ct->counted(ct->counted_ctx, v, d, self, ref);
}

/* A span of a lane ends: counted (src/nest.c charges its time to its
 * parent). */
static void finish(void *ctx, struct nest_open *span, size_t depth, struct nest_open *parent)
{
	struct ct_stack *st = ctx;
	struct calltree *ct = st->ct;
	const struct open *o = (const struct open *)span;
	uint64_t d = ts_span(o->n.start, o->n.end), self = nest_self(&o->n);
	count_in(ct, o->node, d, self, &o->ref);
	if (ct->spanned) {
		struct ct_sym y = ct->sym[o->sym];
		uint64_t up = parent ? ((const struct open *)parent)->pos : CT_NO_SPAN;
		ct->spanned(ct->spanned_ctx, &(struct ct_span){o->pos, up, (uint32_t)depth, o->ref.lane, y.type, y.name,
							       o->n.start, d, self});
	}
	if (!parent)
		outermost(ct, st->root, d);
}

static uint32_t node_below(const struct ct_stack *st, size_t j)
{
	return j ? open_at(&st->nest, j - 1)->node : st->root;
}

/* Span [start, end) called sym, in lane order (src/nest.h: where it goes). */
static void add_span(struct calltree *ct, struct ct_stack *st, const struct event *e, int64_t start, int64_t end,
		     uint32_t sym, place_t at)
{
	struct open o = {.n = {start, end, 0}, .sym = sym, .ref = {e->ts, e->input, e->lane, e->off}, .pos = e->pos};
	uint64_t id, parent_id;
	if (trace_span_ids(ct->t, e, &id, &parent_id)) {
		size_t depth;
		struct nest_open *up;
		struct open *in = (struct open *)nest_add_named(&st->nest, &o, id, parent_id, &depth, &up);
		in->node = child_of(ct, up ? ((struct open *)up)->node : st->root, sym, at);
		return;
	}
	size_t j = nest_add(&st->nest, &o);
	for (size_t k = j; k < st->nest.n; k++) /* (it, and its new children: their paths go through it) */
		open_at(&st->nest, k)->node = child_of(ct, node_below(st, k), open_at(&st->nest, k)->sym, at);
}

/* The filters keep a span's event, or for a pair its end. */
static bool filters_keep(const struct ct_scope *sc, uint64_t pos, const struct event *e)
{
	struct trace *t = sc->t;
	trace_scan(t, e);
	if (filterset_match(sc->fs, t, e))
		return true;
	struct event o;
	if (ev_role(e) != ROLE_BEGIN || !model_partner_event(t->m, pos, &o))
		return false;
	trace_scan(t, &o);
	return filterset_match(sc->fs, t, &o);
}

void ct_scope_filters(struct ct_scope *sc, struct trace *t, struct filterset *fs)
{
	*sc = (struct ct_scope){.t = t, .fs = fs, .lo = INT64_MIN, .hi = INT64_MAX};
	if (filterset_active(fs))
		sc->keep = filters_keep;
}

#define PIECE 4096

/* The spans among events [at, at + k) of ev: fn(ctx, event, its start and end clipped to the scope). */
static void spans_in(const struct ct_scope *sc, const struct event *ev, uint64_t at, size_t k,
		     void (*fn)(void *ctx, const struct event *e, int64_t start, int64_t end), void *ctx)
{
	uint32_t nl = model_nlanes(sc->t->m);
	for (size_t i = 0; i < k; i++) {
		const struct event *e = &ev[i];
		enum ev_role r = ev_role(e);
		if (e->dur == TTV_NODUR || r == ROLE_END || r == ROLE_INSTANT || e->flags & EVF_META || e->lane >= nl)
			continue;
		int64_t start = MAX(e->ts, sc->lo), end = MIN(ts_add(e->ts, e->dur), sc->hi);
		if (start > end || (start == end && e->dur) || (sc->keep && !sc->keep(sc, at + i, e)))
			continue;
		fn(ctx, e, start, end);
	}
}

/* Run fn over the spans of positions [*at, model_count), PIECE at a time,
 * until now_ns() passes deadline (0: none).  True when all are done. */
static bool spans_walk(const struct ct_scope *sc, uint64_t *at, uint64_t deadline,
		       void (*fn)(void *ctx, const struct event *e, int64_t start, int64_t end), void *ctx)
{
	struct model *m = sc->t->m;
	struct event *ev = xmalloc(PIECE * sizeof *ev);
	uint64_t n = model_count(m);
	while (*at < n) {
		size_t k = (size_t)MIN(PIECE, n - *at);
		if (*at && *at % (16 * PIECE) == 0)
			trace_release(sc->t); /* (sequences read their records where they are) */
		model_read(m, *at, k, ev);
		spans_in(sc, ev, *at, k, fn, ctx);
		*at += k;
		if (deadline && now_ns() >= deadline)
			break;
	}
	free(ev);
	return *at >= n;
}

struct each {
	span_fn *fn;
	void *ctx;
};

static void each_span(void *ctx, const struct event *e, int64_t start, int64_t end)
{
	(void)start, (void)end;
	struct each *x = ctx;
	x->fn(x->ctx, e);
}

void spans_each(struct trace *t, struct filterset *fs, span_fn *fn, void *ctx)
{
	struct ct_scope sc;
	ct_scope_filters(&sc, t, fs);
	uint64_t at = 0;
	spans_walk(&sc, &at, 0, each_span, &(struct each){fn, ctx});
}

/* A span of a grouped type (struct type): under its type, then its name. */
static void group_span(struct calltree *ct, uint32_t root, const struct event *e, int64_t start, uint64_t d,
		       const struct ct_ref *ref, place_t at)
{
	if (ct->spanned)
		ct->spanned(ct->spanned_ctx,
			    &(struct ct_span){e->pos, CT_NO_SPAN, 0, e->lane, e->type, e->name, start, d, d});
	uint32_t by_type = child_of(ct, root, sym_of(ct, e->type, 0, at), at);
	count_in(ct, by_type, d, e->name ? 0 : d, ref);
	if (e->name)
		count_in(ct, child_of(ct, by_type, sym_of(ct, e->type, e->name, at), at), d, d, ref);
	outermost(ct, root, d);
}

static void build_span(void *ctx, const struct event *e, int64_t start, int64_t end)
{
	struct calltree *ct = ctx;
	struct ct_stack *st = &ct->lanes[e->lane];
	ct->spans++;
	struct ct_ref ref = {e->ts, e->input, e->lane, e->off};
	place_t at = event_place(e);
	if (ct->scope.per_lane && !st->root) /* the lane's own node over its spans */
		st->root = child_of(ct, 0, sym_of(ct, CT_LANE, lane_name(ct->t->m, e->lane), at), at);
	if (model_type_get(ct->t->m, e->type)->grouped)
		group_span(ct, st->root, e, start, ts_span(start, end), &ref, at);
	else
		add_span(ct, st, e, start, end, sym_of(ct, e->type, e->name, at), at);
}

void calltree_begin(struct calltree *ct, const struct ct_scope *scope)
{
	*ct = (struct calltree){.t = scope->t, .scope = *scope};
	new_node(ct, CT_NONE, CT_NONE, 0);
	ct->nlanes = model_nlanes(scope->t->m);
	ct->lanes = xcalloc(ct->nlanes + 1, sizeof *ct->lanes);
	for (uint32_t l = 0; l <= ct->nlanes; l++)
		nest_init(&ct->lanes[l].nest, sizeof(struct open), finish, &ct->lanes[l]);
}

/* The spans still open counted: the tree is done. */
static void tree_done(struct calltree *ct)
{
	for (uint32_t l = 0; l < ct->nlanes; l++) {
		nest_close_all(&ct->lanes[l].nest);
		nest_free(&ct->lanes[l].nest);
	}
	free(ct->lanes);
	ct->lanes = NULL;
	ct->node[0].calls = ct->spans;
	ct->done = true;
}

static void lanes_to(struct calltree *ct)
{
	for (uint32_t l = 0; l <= ct->nlanes; l++) /* (the lanes' way back to the tree, wherever it is now) */
		ct->lanes[l].ct = ct;
}

bool calltree_step(struct calltree *ct, uint64_t deadline, bool more_may_come)
{
	if (ct->done)
		return false;
	lanes_to(ct);
	if (!spans_walk(&ct->scope, &ct->at, deadline, build_span, ct))
		return true;
	if (!more_may_come) /* (else spans still open count once they end) */
		tree_done(ct);
	return false;
}

/* The spans of every part in its own order (model_parts: each holds whole
 * lanes, and spans nest per lane): no merged order followed, which costs
 * a tournament per event among many sources. */
static void spans_walk_apart(const struct ct_scope *sc, size_t np,
			     void (*fn)(void *ctx, const struct event *e, int64_t start, int64_t end), void *ctx)
{
	struct model *m = sc->t->m;
	struct event *ev = xmalloc(PIECE * sizeof *ev);
	struct release_pace pace = {0};
	for (size_t k = 0; k < np; k++) {
		uint64_t n = model_part_count(m, k);
		for (uint64_t i = 0; i < n; i += PIECE) {
			size_t got = (size_t)MIN(PIECE, n - i);
			model_part_read(m, k, i, got, ev);
			spans_in(sc, ev, 0, got, fn, ctx);
			trace_release_as_read(sc->t, &pace, &ev[got - 1], got, i + got == n);
		}
	}
	free(ev);
}

struct sibling {
	uint32_t parent, node;
	place_t first;
};

/* Children first reached later come first in their parent's list (it is
 * made by putting each new child in front). */
static int sibling_cmp(const void *a, const void *b)
{
	const struct sibling *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->first != y->first)
		return x->first > y->first ? -1 : 1;
	return x->node > y->node ? -1 : x->node < y->node;
}

/* Read apart, nodes were made in another order: every parent's children
 * put in the order the merged order makes (the folded export's lines). */
static void order_siblings(struct calltree *ct)
{
	size_t n = ct->n - 1;
	struct sibling *s = xmalloc((n + 1) * sizeof *s);
	for (uint32_t v = 1; v < ct->n; v++)
		s[v - 1] = (struct sibling){ct->node[v].parent, v, ct->node[v].first};
	qsort(s, n, sizeof *s, sibling_cmp);
	for (size_t i = 0; i < ct->n; i++)
		ct->node[i].child = CT_NONE;
	for (size_t i = n; i-- > 0;) {
		struct ct_node *p = &ct->node[s[i].parent];
		ct->node[s[i].node].next = p->child;
		p->child = s[i].node;
	}
	free(s);
}

void calltree_build(struct calltree *ct, struct trace *t, struct filterset *fs)
{
	struct ct_scope sc;
	ct_scope_filters(&sc, t, fs);
	calltree_begin(ct, &sc);
	size_t np = sc.keep ? 0 : model_parts(t->m);
	if (np < 2) {
		calltree_step(ct, 0, false);
		return;
	}
	ct->apart = true;
	lanes_to(ct);
	spans_walk_apart(&sc, np, build_span, ct);
	tree_done(ct);
	order_siblings(ct);
}

void calltree_invert(const struct calltree *ct, struct calltree *inv)
{
	*inv = (struct calltree){.t = ct->t, .scope = ct->scope, .spans = ct->spans, .done = true, .nsym = ct->nsym,
				 .capsym = ct->nsym};
	inv->sym = xmalloc((ct->nsym + 1) * sizeof *inv->sym);
	memcpy(inv->sym, ct->sym, ct->nsym * sizeof *inv->sym);
	new_node(inv, CT_NONE, CT_NONE, 0);
	for (uint32_t v = 1; v < ct->n; v++) {
		const struct ct_node *from = &ct->node[v];
		if (!from->self)
			continue;
		uint32_t p = 0;
		for (uint32_t u = v; u; u = ct->node[u].parent) { /* the function, then its callers */
			p = child_of(inv, p, ct->node[u].sym, ct->node[u].first);
			struct ct_node *d = &inv->node[p];
			d->total += from->self;
			d->self += u == v ? from->self : 0;
			d->calls += from->calls;
			if (from->max > d->max) {
				d->max = from->max;
				d->longest = from->longest;
			}
		}
		inv->node[0].total += from->self;
	}
	inv->node[0].calls = ct->spans;
}

void calltree_free(struct calltree *ct)
{
	for (uint32_t l = 0; ct->lanes && l < ct->nlanes; l++)
		nest_free(&ct->lanes[l].nest);
	free(ct->lanes);
	free(ct->node);
	free(ct->sym);
	hmap_free(&ct->node_of);
	hmap_free(&ct->sym_of);
	*ct = (struct calltree){0};
}

uint32_t ct_sym_sid(struct model *m, struct ct_sym s)
{
	return s.name || s.type == CT_LANE ? s.name : model_type_get(m, s.type)->name;
}

uint32_t calltree_sid(const struct calltree *ct, uint32_t sym) { return ct_sym_sid(ct->t->m, ct->sym[sym]); }

void calltree_walk(const struct calltree *ct, void (*enter)(void *ctx, uint32_t node),
		   void (*leave)(void *ctx, uint32_t node), void *ctx)
{
	uint32_t v = ct->node[0].child;
	while (v != CT_NONE) {
		enter(ctx, v);
		if (ct->node[v].child != CT_NONE) {
			v = ct->node[v].child;
			continue;
		}
		for (;;) { /* up until there is a next sibling */
			leave(ctx, v);
			if (ct->node[v].next != CT_NONE) {
				v = ct->node[v].next;
				break;
			}
			v = ct->node[v].parent;
			if (!v) {
				v = CT_NONE;
				break;
			}
		}
	}
}
