/* viewtree.c: The call tree of what the views show, built in steps and
 * shared: the call tree view shows it as rows, the flame graph as bars,
 * the butterfly one function of it. */
#ifndef TTV_UI_VIEWTREE_H
#define TTV_UI_VIEWTREE_H

#include "src/calltree.h"
#include "ui/app.h"

/* Built again when what the views show changed (filters, hidden lanes, the
 * time range, each lane apart or merged), else as it is. */
void viewtree_open(struct app *a);
/* The top-down tree: being built, or built (no nodes before it is opened). */
const struct calltree *viewtree(struct app *a);
bool viewtree_building(struct app *a);
bool viewtree_ready(struct app *a); /* built, with a span in it */
/* Changes when its nodes do (what is made of them is made again). */
uint64_t viewtree_gen(struct app *a);
/* Changes when it is made afresh: its nodes' and syms' ids are new. */
uint64_t viewtree_made(struct app *a);

/* The order of a node's callees. */
enum tree_sort { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_COUNT };
/* The callees of node v of ct with a span counted in them, largest first
 * by sort (a fresh array); how many in *n. */
uint32_t *viewtree_children(const struct calltree *ct, uint32_t v, enum tree_sort sort, size_t *n);

/* The function the user is on (the call tree's cursor; a sym of the tree
 * made now): what the butterfly shows.  Until one is said, the largest. */
void viewtree_select(struct app *a, uint32_t sym);
bool viewtree_selected(struct app *a, uint32_t *sym);

/* Below the title line while it is not ready: how far it is, or that there is nothing. */
void viewtree_draw_waiting(struct app *a);
/* What any of its views does alike: a (each lane apart or merged), and
 * Esc, q or C-c while it is being built (stopped).  False: none of them. */
bool viewtree_action(struct app *a, enum action act);
/* Work in the background: while being built, and when view v (one of
 * its views) is on top, as the trace grows or what is shown changes. */
bool viewtree_pending(const struct app *a, enum view_id v);
bool viewtree_step(struct app *a, uint64_t budget_ns);
void viewtree_free(struct app *a);

#endif
