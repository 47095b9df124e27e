/* script.c: TTV_SCRIPT: the viewer driven by steps from a file (ui/ui.h). */
#ifndef TTV_UI_SCRIPT_H
#define TTV_UI_SCRIPT_H

#include "ui/app.h"

void run_script(struct app *a, const char *script);

#endif
