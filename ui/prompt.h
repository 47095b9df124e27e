/* prompt.c: The prompts (search, filter, command, SQL) and the status line. */
#ifndef TTV_UI_PROMPT_H
#define TTV_UI_PROMPT_H

#include "ui/app.h"

/* search and prompt (prompt.c) */
void prompt_open(struct app *a, enum prompt_kind kind, const char *initial);
void prompt_edit_filter(struct app *a, size_t i); /* the & prompt with filter i, Enter puts it in its place */
/* A filter given with -e whose field the trace has not: taken out and
 * shown at the & prompt with the error (once the trace is read). */
void filters_check_fields(struct app *a);
bool prompt_key(struct app *a, const void *key); /* a TermKeyKey */
void prompt_draw(struct app *a);
void status_draw(struct app *a);
void search_next(struct app *a, bool forward); /* starts it: search_step runs it */
bool search_for(struct app *a, const char *spec); /* what n and N look for next (false: a bad spec) */
bool search_step(struct app *a, uint64_t budget_ns); /* true while it runs on */
bool search_cancel(struct app *a); /* false when none was running */
void prompt_free(struct app *a);
/* Esc while a filter is still being applied takes the change back. */
bool filter_cancel(struct app *a);

#endif
