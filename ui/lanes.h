/* lanes.c: The lanes view: a time axis, and per thread a flame chart. */
#ifndef TTV_UI_LANES_H
#define TTV_UI_LANES_H

#include "ui/app.h"

bool lanes_action(struct app *a, enum action act);
void lanes_fit(struct app *a); /* window around the whole trace */
void lanes_first_fit(struct app *a); /* the first events read: the window around them (once) */

#endif
