/* Where the time went: the spans of a trace nested per lane into one tree
 * of call paths, every lane's merged (src/calltree.c).  What the call tree
 * and flame graph views, --report and the folded export read.
 *
 * A span is an event with a duration: a complete event, or a begin/end
 * pair (taken once, at its begin; in when either end passes the filters).
 * Per lane, a span is the child of the innermost open span that contains
 * it; spans that start together nest longest first, whichever the file
 * wrote first (of two alike, the first written holds the other).  One
 * that outlasts what is open without nesting in it (the calls of several
 * threads of one process on one lane) closes those first and goes beside
 * them.  A node is a call path: its spans' count, total
 * and self time (total less its children's), least and greatest.  Spans
 * of a grouped type (struct type: podtrace's, a syscall capture's) do not
 * nest: they go under a node of their type, then one of their name. */
#ifndef TTV_CALLTREE_H
#define TTV_CALLTREE_H

#include <stdio.h>

#include "src/hmap.h"
#include "src/query.h"
#include "src/trace.h"

#define CT_NONE UINT32_MAX
#define CT_LANE (UINT32_MAX - 1) /* a sym's type: a lane (per lane: its name the lane's) */

/* An event's identity (its place moves when late events come). */
struct ct_ref {
	int64_t ts;
	uint32_t input;
	uint32_t lane; /* (where it is drawn: not part of its identity) */
	uint64_t off;
};

struct ct_node {
	uint32_t parent; /* CT_NONE: the root */
	uint32_t sym;    /* index into syms: what it is called */
	uint32_t child, next; /* first child, next sibling (CT_NONE: none) */
	uint64_t calls, total, self, min, max;
	struct ct_ref longest; /* the event of its longest span */
	place_t first;         /* of the first event that reached it: the order of siblings */
};

/* A name a node has: a span's type and principal string. */
struct ct_sym {
	uint32_t type, name;
	place_t first; /* of its first span: the order of rows otherwise equal */
};

/* What the tree is of: the spans whose events keep() keeps (NULL: all;
 * pos is the event's position; ctx is its caller's), clipped to [lo, hi]. */
struct ct_scope {
	struct trace *t;
	struct filterset *fs;
	bool (*keep)(const struct ct_scope *sc, uint64_t pos, const struct event *e);
	void *ctx;
	int64_t lo, hi;
	bool per_lane; /* each lane a node of its own over its spans (else every lane merged) */
};

struct ct_stack;

/* A span as it is counted (calltree.spanned): its event's position and
 * its parent span's (CT_NO_SPAN: none; a span of a grouped type has none),
 * its depth (0: outermost), its start, length in the scope and self time,
 * its lane, type and name. */
#define CT_NO_SPAN UINT64_MAX
struct ct_span {
	uint64_t pos, parent;
	uint32_t depth, lane, type, name;
	int64_t start;
	uint64_t dur, self;
};

struct calltree {
	struct trace *t;
	struct ct_scope scope;
	struct ct_node *node; /* [0]: the root, the whole scope */
	size_t n, cap;
	struct ct_sym *sym;
	size_t nsym, capsym;
	struct hmap node_of; /* parent << 32 | sym -> node + 1 */
	struct hmap sym_of;  /* type << 32 | name -> sym + 1 */
	uint64_t spans;
	/* building: the next position, the lanes' open spans */
	uint64_t at;
	struct ct_stack *lanes;
	uint32_t nlanes;
	bool done;
	bool apart; /* built from the model's parts read apart (calltree_build) */
	/* when set: every span as it is counted in a node (its length in the
	 * scope, its self time, its event); a span of a grouped type is
	 * counted in its type's node and its name's */
	void (*counted)(void *ctx, uint32_t node, uint64_t d, uint64_t self, const struct ct_ref *ref);
	void *counted_ctx;
	/* when set: every span once, as it is counted (SQL's spans table) */
	void (*spanned)(void *ctx, const struct ct_span *s);
	void *spanned_ctx;
};

/* The scope of the batch modes: what the filters keep, all the time. */
void ct_scope_filters(struct ct_scope *sc, struct trace *t, struct filterset *fs);
/* Build in steps (the viewer): calltree_step() goes on until now_ns()
 * passes deadline and says whether there is more.  At the model's end,
 * with more_may_come (a trace still read or followed), the spans still
 * open stay open: a later step goes on from there with the events that
 * came (appended: a model whose order changed is built afresh); without,
 * they are counted and the tree is done. */
void calltree_begin(struct calltree *ct, const struct ct_scope *scope);
bool calltree_step(struct calltree *ct, uint64_t deadline, bool more_may_come);
/* ... or at once: when the model's parts hold whole lanes, read apart
 * (no merged order followed), siblings then put in the order the merged
 * order makes. */
void calltree_build(struct calltree *ct, struct trace *t, struct filterset *fs);
/* Every span in scope, in time order: fn(ctx, its event) (a pair's begin). */
typedef void span_fn(void *ctx, const struct event *e);
void spans_each(struct trace *t, struct filterset *fs, span_fn *fn, void *ctx);
void calltree_free(struct calltree *ct);
/* Bottom-up: the tree of who called what the time was spent in.  Its
 * roots are the names with self time, each as much of it as it had; under
 * a node, its callers, each with the part of that time spent in calls from
 * it (and their calls), and so on up to the outermost. */
void calltree_invert(const struct calltree *ct, struct calltree *inv);
/* The string a node is called by: its name, or its type's when it has none. */
uint32_t calltree_sid(const struct calltree *ct, uint32_t sym);
uint32_t ct_sym_sid(struct model *m, struct ct_sym s);
/* Every node below the root, depth first: enter() on the way down, leave()
 * on the way back up. */
void calltree_walk(const struct calltree *ct, void (*enter)(void *ctx, uint32_t node),
		   void (*leave)(void *ctx, uint32_t node), void *ctx);

#endif
