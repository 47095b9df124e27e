/* Where the time went: spans nested per lane into a tree of call paths
 * (src/calltree.h says how they nest). */
#include "src/calltree.h"

#include <stdlib.h>

/* A span open on its lane's stack. */
struct open {
	int64_t start, end;
	uint32_t node, sym;
	uint64_t child; /* its children's time so far */
};

struct stack {
	struct open *s;
	size_t n, cap;
};

static uint32_t sym_of(struct calltree *ct, const struct event *e)
{
	uint64_t *v = hmap_ref(&ct->sym_of, (uint64_t)e->type << 32 | e->name);
	if (!*v) {
		xgrow(&ct->sym, &ct->capsym, ct->nsym + 1, sizeof *ct->sym);
		ct->sym[ct->nsym] = (struct ct_sym){e->type, e->name};
		*v = ++ct->nsym;
	}
	return (uint32_t)(*v - 1);
}

static uint32_t new_node(struct calltree *ct, uint32_t parent, uint32_t sym)
{
	xgrow(&ct->node, &ct->cap, ct->n + 1, sizeof *ct->node);
	struct ct_node *p = parent == CT_NONE ? NULL : &ct->node[parent];
	ct->node[ct->n] = (struct ct_node){.parent = parent, .sym = sym, .child = CT_NONE,
					   .next = p ? p->child : CT_NONE};
	if (p)
		p->child = (uint32_t)ct->n;
	return (uint32_t)ct->n++;
}

/* The child of parent called sym (made when new). */
static uint32_t child_of(struct calltree *ct, uint32_t parent, uint32_t sym)
{
	uint64_t *v = hmap_ref(&ct->node_of, (uint64_t)parent << 32 | sym);
	if (!*v)
		*v = (uint64_t)new_node(ct, parent, sym) + 1;
	return (uint32_t)(*v - 1);
}

/* The top span of the stack ends: counted, and its time charged to its
 * parent. */
static void finish(struct calltree *ct, struct stack *st)
{
	struct open o = st->s[--st->n];
	uint64_t d = ts_span(o.start, o.end), self = d > o.child ? d - o.child : 0;
	struct ct_node *nd = &ct->node[o.node];
	nd->min = nd->calls && nd->min < d ? nd->min : d;
	nd->max = MAX(nd->max, d);
	nd->calls++;
	nd->total += d;
	nd->self += self;
	if (st->n)
		st->s[st->n - 1].child += d;
	else
		ct->node[0].total += d; /* (the root: the time its top-level spans cover) */
}

static uint32_t node_below(const struct stack *st, size_t j) { return j ? st->s[j - 1].node : 0; }

/* Span [start, end) called sym, in lane order. */
static void add_span(struct calltree *ct, struct stack *st, int64_t start, int64_t end, uint32_t sym)
{
	while (st->n && st->s[st->n - 1].end <= start)
		finish(ct, st);
	size_t j = st->n;
	if (j && end > st->s[j - 1].end) {
		/* open spans that start with it and end within it came first: they
		 * are its children (writers that emit a scope when it ends) */
		while (j && st->s[j - 1].start == start && st->s[j - 1].end < end)
			j--;
		if (j && end > st->s[j - 1].end) { /* it outlasts what holds it: what it outlasts closes */
			while (st->n && end > st->s[st->n - 1].end)
				finish(ct, st);
			j = st->n;
		}
	}
	xgrow(&st->s, &st->cap, st->n + 1, sizeof *st->s);
	memmove(st->s + j + 1, st->s + j, (st->n - j) * sizeof *st->s);
	st->n++;
	st->s[j] = (struct open){start, end, child_of(ct, node_below(st, j), sym), sym, 0};
	for (size_t k = j + 1; k < st->n; k++) /* (its new children: their paths go through it) */
		st->s[k].node = child_of(ct, st->s[k - 1].node, st->s[k].sym);
}

/* A span's event in scope: it, or for a pair its end, passes the filters. */
static bool in_scope(struct trace *t, struct filterset *fs, uint64_t pos, const struct event *e)
{
	if (!filterset_active(fs))
		return true;
	trace_scan(t, e);
	if (filterset_match(fs, t, e))
		return true;
	struct event o;
	if (ev_role(e) != ROLE_BEGIN || !model_partner(t->m, pos, &o.pos))
		return false;
	model_get(t->m, o.pos, &o);
	trace_scan(t, &o);
	return filterset_match(fs, t, &o);
}

#define PIECE 4096

void spans_each(struct trace *t, struct filterset *fs, span_fn *fn, void *ctx)
{
	struct model *m = t->m;
	uint32_t nl = model_nlanes(m);
	struct event *ev = xmalloc(PIECE * sizeof *ev);
	uint64_t n = model_count(m);
	for (uint64_t at = 0; at < n; at += PIECE) {
		size_t k = (size_t)MIN(PIECE, n - at);
		if (at && at % (16 * PIECE) == 0)
			trace_release(t); /* (sequences read their records where they are) */
		model_read(m, at, k, ev);
		for (size_t i = 0; i < k; i++) {
			const struct event *e = &ev[i];
			enum ev_role r = ev_role(e);
			if (e->dur != TTV_NODUR && r != ROLE_END && r != ROLE_INSTANT && !(e->flags & EVF_META) &&
			    e->lane < nl && in_scope(t, fs, at + i, e))
				fn(ctx, e);
		}
	}
	free(ev);
}

struct building {
	struct calltree *ct;
	struct stack *lanes;
};

static void build_span(void *ctx, const struct event *e)
{
	struct building *b = ctx;
	b->ct->spans++;
	add_span(b->ct, &b->lanes[e->lane], e->ts, ts_add(e->ts, e->dur), sym_of(b->ct, e));
}

void calltree_build(struct calltree *ct, struct trace *t, struct filterset *fs)
{
	*ct = (struct calltree){.t = t};
	new_node(ct, CT_NONE, CT_NONE);
	uint32_t nl = model_nlanes(t->m);
	struct building b = {ct, xcalloc(nl + 1, sizeof *b.lanes)};
	spans_each(t, fs, build_span, &b);
	for (uint32_t l = 0; l < nl; l++) {
		while (b.lanes[l].n)
			finish(ct, &b.lanes[l]);
		free(b.lanes[l].s);
	}
	ct->node[0].calls = ct->spans;
	free(b.lanes);
}

void calltree_free(struct calltree *ct)
{
	free(ct->node);
	free(ct->sym);
	hmap_free(&ct->node_of);
	hmap_free(&ct->sym_of);
	*ct = (struct calltree){0};
}

uint32_t calltree_sid(const struct calltree *ct, uint32_t sym)
{
	const struct ct_sym *s = &ct->sym[sym];
	return s->name ? s->name : model_type_get(ct->t->m, s->type)->name;
}

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
