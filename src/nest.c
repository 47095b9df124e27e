/* How spans nest (src/nest.h says the rule). */
#include "src/nest.h"

#include <stdlib.h>
#include <string.h>

#include "src/util.h"

#define NONE SIZE_MAX

/* A span nested by name; its record is nrec(st, slot). */
struct nest_named {
	uint64_t id;
	size_t parent, parent_gen; /* its parent's slot and what that slot's gen was (NONE: a root) */
	size_t gen;                /* moves on when the slot is let go */
	size_t depth;
	size_t next_free;
	bool open;
};

/* (a named span's record lives beside its slot, in the same allocation) */
static struct nest_open *nrec(const struct nest *st, size_t slot)
{
	return (struct nest_open *)(void *)((unsigned char *)(st->named + st->capnamed) + slot * st->size);
}

void nest_init(struct nest *st, size_t size, nest_close_fn *fn, void *ctx)
{
	*st = (struct nest){.size = (size + 7) / 8 * 8, .fn = fn, .ctx = ctx, .free_slot = NONE};
}

uint64_t nest_self(const struct nest_open *o)
{
	uint64_t d = ts_span(o->start, o->end);
	return d > o->child ? d - o->child : 0;
}

/* ---- nested by time -------------------------------------------------------- */

static void close_top(struct nest *st)
{
	size_t d = st->n - 1;
	struct nest_open *o = nest_at(st, d), *parent = d ? nest_at(st, d - 1) : NULL;
	st->fn(st->ctx, o, d, parent);
	if (parent)
		parent->child += ts_span(o->start, o->end);
	st->n--;
}

/* ---- nested by name ------------------------------------------------------- */

static bool before(const struct nest *st, size_t a, size_t b) /* a closes first: it ends first, or deeper */
{
	const struct nest_open *x = nrec(st, a), *y = nrec(st, b);
	return x->end != y->end ? x->end < y->end : st->named[a].depth > st->named[b].depth;
}

static void heap_push(struct nest *st, size_t slot)
{
	xgrow(&st->heap, &st->capheap, st->nheap + 1, sizeof *st->heap);
	size_t i = st->nheap++;
	for (; i && before(st, slot, st->heap[(i - 1) / 2]); i = (i - 1) / 2)
		st->heap[i] = st->heap[(i - 1) / 2];
	st->heap[i] = slot;
}

static size_t heap_pop(struct nest *st)
{
	size_t top = st->heap[0], last = st->heap[--st->nheap], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= st->nheap)
			break;
		if (c + 1 < st->nheap && before(st, st->heap[c + 1], st->heap[c]))
			c++;
		if (!before(st, st->heap[c], last))
			break;
		st->heap[i] = st->heap[c];
		i = c;
	}
	if (st->nheap)
		st->heap[i] = last;
	return top;
}

/* The open span in a slot that a child names (NULL: gone since). */
static struct nest_open *named_parent(const struct nest *st, const struct nest_named *n)
{
	if (n->parent == NONE || !st->named[n->parent].open || st->named[n->parent].gen != n->parent_gen)
		return NULL;
	return nrec(st, n->parent);
}

static void close_named(struct nest *st, size_t slot)
{
	struct nest_named *n = &st->named[slot];
	struct nest_open *o = nrec(st, slot), *parent = named_parent(st, n);
	st->fn(st->ctx, o, n->depth, parent);
	if (parent)
		parent->child += ts_span(o->start, o->end);
	uint64_t at;
	if (hmap_get(&st->ids, n->id, &at) && at == slot + 1)
		hmap_del(&st->ids, n->id);
	n->open = false;
	n->gen++;
	n->next_free = st->free_slot;
	st->free_slot = slot;
}

static size_t new_slot(struct nest *st)
{
	if (st->free_slot != NONE) {
		size_t s = st->free_slot;
		st->free_slot = st->named[s].next_free;
		return s;
	}
	if (st->nnamed == st->capnamed) { /* slots, then records: both grow */
		size_t cap = st->capnamed ? st->capnamed * 2 : 16;
		unsigned char *p = xmalloc(cap * (sizeof *st->named + st->size));
		if (st->nnamed) {
			memcpy(p, st->named, st->nnamed * sizeof *st->named);
			memcpy(p + cap * sizeof *st->named, nrec(st, 0), st->nnamed * st->size);
		}
		free(st->named);
		st->named = (struct nest_named *)(void *)p;
		st->capnamed = cap;
	}
	st->named[st->nnamed].gen = 0;
	return st->nnamed++;
}

/* ---- both ----------------------------------------------------------------- */

/* Close what ended by t. */
static void pass(struct nest *st, int64_t t)
{
	while (st->n && nest_at(st, st->n - 1)->end <= t)
		close_top(st);
	while (st->nheap && nrec(st, st->heap[0])->end <= t)
		close_named(st, heap_pop(st));
}

size_t nest_add(struct nest *st, const void *rec)
{
	const struct nest_open *o = rec;
	int64_t start = o->start, end = o->end;
	pass(st, start);
	size_t j = st->n;
	if (j && end > nest_at(st, j - 1)->end) {
		/* open spans that start with it and end within it came first: they
		 * are its children (writers that emit a scope when it ends) */
		while (j && nest_at(st, j - 1)->start == start && nest_at(st, j - 1)->end < end)
			j--;
		if (j && end > nest_at(st, j - 1)->end) { /* it outlasts what holds it: what it outlasts closes */
			while (st->n && end > nest_at(st, st->n - 1)->end)
				close_top(st);
			j = st->n;
		}
	}
	xgrow(&st->s, &st->cap, (st->n + 1) * st->size, 1);
	memmove(st->s + (j + 1) * st->size, st->s + j * st->size, (st->n - j) * st->size);
	memcpy(st->s + j * st->size, rec, st->size);
	nest_at(st, j)->child = 0;
	st->n++;
	return j;
}

struct nest_open *nest_add_named(struct nest *st, const void *rec, uint64_t id, uint64_t parent_id, size_t *depth,
				 struct nest_open **parent)
{
	pass(st, ((const struct nest_open *)rec)->start);
	uint64_t p = 0;
	if (!parent_id || !hmap_get(&st->ids, parent_id, &p))
		p = 0;
	size_t slot = new_slot(st);
	struct nest_named *n = &st->named[slot];
	*n = (struct nest_named){.id = id, .parent = p ? p - 1 : NONE, .parent_gen = p ? st->named[p - 1].gen : 0,
				 .gen = n->gen, .depth = p ? st->named[p - 1].depth + 1 : 0, .open = true};
	struct nest_open *o = nrec(st, slot);
	memcpy(o, rec, st->size);
	o->child = 0;
	hmap_put(&st->ids, id, slot + 1);
	heap_push(st, slot);
	*depth = n->depth;
	*parent = named_parent(st, n);
	return o;
}

size_t nest_depth_at(struct nest *st, int64_t t, struct nest_open **parent)
{
	pass(st, t);
	*parent = st->n ? nest_at(st, st->n - 1) : NULL;
	return st->n;
}

void nest_close_all(struct nest *st)
{
	while (st->n)
		close_top(st);
	while (st->nheap)
		close_named(st, heap_pop(st));
}

void nest_free(struct nest *st)
{
	free(st->s);
	free(st->named);
	free(st->heap);
	hmap_free(&st->ids);
	nest_init(st, st->size, st->fn, st->ctx);
}
