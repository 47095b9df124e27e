/* How spans nest: the one rule behind every answer about a span's depth,
 * parent and self time (the lanes view's status line and keys, the call
 * tree, flame graph, --report, --diff, the spans table and the exports).
 *
 * Per lane, spans are added in start order.  A span is the child of the
 * innermost open span that contains it; of spans that start together the
 * longer holds the shorter, whichever the file wrote first (of two alike,
 * the first written holds the other).  A span that outlasts what is open
 * without nesting in it (the calls of several threads of one process on
 * one lane) closes those first and goes beside them.
 *
 * A span that names itself (trace_span_ids: dial9's spans) nests by name
 * instead: under the span of the lane it names as its parent while that
 * one is open, else as a root; it neither holds nor is held by the spans
 * nested by time (concurrent trees do not pass for one).
 *
 * A span's self time is its length less its children's.  Spans of a
 * grouped type (struct type: podtrace's operations, a syscall capture's
 * calls) are side by side: they nest in nothing and hold nothing (depth 0,
 * self = length); they never come here. */
#ifndef TTV_NEST_H
#define TTV_NEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/hmap.h"

/* A span open on its lane.  A caller's own record about it begins with
 * this (struct nest.size bytes in all). */
struct nest_open {
	int64_t start, end;
	uint64_t child; /* its children's time so far */
};

/* A span closes (its lane has passed its end, or the trace ended): told
 * with its depth and its parent (NULL: a root), still there; then it is
 * gone and its length is charged to its parent. */
typedef void nest_close_fn(void *ctx, struct nest_open *span, size_t depth, struct nest_open *parent);

struct nest_named; /* (nest.c) */

/* A lane's open spans. */
struct nest {
	size_t size; /* of a caller's record */
	nest_close_fn *fn;
	void *ctx;
	/* nested by time: a stack, innermost last */
	unsigned char *s;
	size_t n, cap;
	/* nested by name: slots (records after them), a heap of the open ones
	 * by end, and their ids */
	struct nest_named *named;
	size_t nnamed, capnamed, free_slot;
	size_t *heap;
	size_t nheap, capheap;
	struct hmap ids;
};

void nest_init(struct nest *st, size_t size, nest_close_fn *fn, void *ctx);
static inline struct nest_open *nest_at(const struct nest *st, size_t i)
{
	return (struct nest_open *)(void *)(st->s + i * st->size);
}
/* Add a span nested by time (start order): rec, st->size bytes, begins with
 * its struct nest_open (start, end).  What ended by its start closes
 * first; it is placed at depth j (returned), its parent nest_at(j - 1).
 * Spans that were above j are now its children (a caller that keeps
 * something by parent looks again at j + 1 .. n - 1). */
size_t nest_add(struct nest *st, const void *rec);
/* Add a span that names itself (id) and its parent (0: none): where it
 * went, its depth, and its parent (NULL: a root). */
struct nest_open *nest_add_named(struct nest *st, const void *rec, uint64_t id, uint64_t parent_id, size_t *depth,
				 struct nest_open **parent);
/* Where a span starting at t would go by time, holding nothing (a begin no
 * end has closed yet: the call tree leaves it out): its depth and parent. */
size_t nest_depth_at(struct nest *st, int64_t t, struct nest_open **parent);
/* Close every span still open (the end of the trace or of the scope). */
void nest_close_all(struct nest *st);
/* A span's self time: its length less its children's (never below 0). */
uint64_t nest_self(const struct nest_open *o);
void nest_free(struct nest *st);

#endif
