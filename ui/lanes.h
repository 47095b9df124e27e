/* lanes.c: The lanes view: a time axis, and per thread a flame chart. */
#ifndef TTV_UI_LANES_H
#define TTV_UI_LANES_H

#include "ui/app.h"

bool lanes_action(struct app *a, enum action act);
void lanes_fit(struct app *a); /* window around the whole trace */
/* The selected span for the status line (name, duration, self time,
 * depth) in at most `room` cells, its name cut to fit; false when the
 * selection is not a span or it does not fit. */
/* A mouse drag across the lanes from column col0 to col1: a time range. */
void lanes_drag(struct app *a, int line, int col0, int col1);

#endif
