/* tree.c: The call tree view (the flame graph and the butterfly show its tree). */
#ifndef TTV_UI_TREE_H
#define TTV_UI_TREE_H

#include "src/calltree.h"
#include "ui/app.h"

bool tree_open(struct app *a); /* (the flame graph and the butterfly show its tree too) */
void tree_draw(struct app *a);
bool tree_action(struct app *a, enum action act);
/* D: the tree is A, or (A remembered) B, compared in diff_page: true then */
bool tree_diff(struct app *a);
bool tree_diff_files(struct app *a); /* v: the first file against the rest (true: compared in diff_page) */
/* v's callees, largest total first (a fresh array in *kids); how many */
size_t tree_children(struct app *a, uint32_t v, uint32_t **kids);
bool tree_occurrences(struct app *a); /* Enter: the selected node's calls, on top */

/* What the flame graph and the butterfly read of the tree (tree.c keeps it):
 * the top-down tree (being built or built); whether it is being built;
 * built with rows to show (ready); its generation, which changes when its
 * nodes do (what is made of them is made again), and `made`, which changes
 * when it is made afresh (its nodes' ids are new); the function at its
 * cursor (a symbol of either tree; false when not ready). */
const struct calltree *tree_calltree(struct app *a);
bool tree_building(struct app *a);
bool tree_ready(struct app *a);
uint64_t tree_gen(struct app *a);
uint64_t tree_made(struct app *a);
bool tree_cursor_sym(struct app *a, uint32_t *sym);

#endif
