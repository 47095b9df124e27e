/* row.c: One event as a row (the list, the lanes view's selected line). */
#ifndef TTV_UI_ROW_H
#define TTV_UI_ROW_H

#include "ui/app.h"

/* row.c: one event as a row (the list, the lanes view's selected line):
 * the column widths, then a row at screen line y. */
void row_widths(struct app *a, int *tmw, int *lw, int *tw);
void row_draw(struct app *a, int y, uint64_t pos, int tmw, int lw, int tw);
void row_draw_one(struct app *a, int y, uint64_t pos);

#endif
