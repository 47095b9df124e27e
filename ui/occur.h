/* occur.c: A call tree node's calls, longest first. */
#ifndef TTV_UI_OCCUR_H
#define TTV_UI_OCCUR_H

#include "src/calltree.h"
#include "ui/app.h"

bool occur_of(struct app *a, const struct calltree *ct, uint32_t node, bool whole); /* (on top; false: none) */

#endif
