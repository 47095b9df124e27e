/* tree.c: The call tree view (the flame graph and the butterfly show its tree). */
#ifndef TTV_UI_TREE_H
#define TTV_UI_TREE_H

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

#endif
