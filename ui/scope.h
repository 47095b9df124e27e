/* scope.c: What the call-tree views (the tree, the flame graph, the butterfly,
 * a node's calls) are of, and going from them to a span. */
#ifndef TTV_UI_SCOPE_H
#define TTV_UI_SCOPE_H

#include "ui/app.h"

uint64_t scope_hash(struct app *a); /* what the views show, as a hash: a tree of another is built afresh */
void scope_fill(struct app *a, struct ct_scope *sc); /* what the views show, as a call tree's scope */
/* Go to a span in the lanes view (n and N: the others of its name), saying which of calls it is. */
void scope_go_span(struct app *a, const struct ct_ref *ref, struct ct_sym s, size_t rank, uint64_t calls, uint64_t dur);

#endif
