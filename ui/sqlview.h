/* sqlview.c: ; SQL over the trace, its result as a table. */
#ifndef TTV_UI_SQLVIEW_H
#define TTV_UI_SQLVIEW_H

#include "ui/app.h"

/* Run query (empty: the last result again), its result on top or its end
 * said; -1, or where SQLite could not read it with *error its words (for
 * the prompt to go back to the place). */
long sql_run(struct app *a, const char *query, char **error);

#endif
