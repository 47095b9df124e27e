/* page.c: the views that are one scrolling page of text (detail, info,
 * help, filters, record, messages, a comparison). */
#ifndef TTV_UI_PAGE_H
#define TTV_UI_PAGE_H

#include "ui/app.h"

/* The text the comparison page shows (the call tree's D and v write it). */
struct buf *page_diff_text(struct app *a);

#endif
