/* loop.c: The terminal and the loop, and the parts of it that script.c drives
 * too (run.c sets them up and runs one or the other). */
#ifndef TTV_UI_LOOP_H
#define TTV_UI_LOOP_H

#include <termkey.h>

#include "ui/app.h"

#define SLICE_NS 15000000      /* decode at most this long between looks at the keyboard */
#define FIRST_SLICE_NS 3000000 /* less before the first screen: it should come at once */
bool ui_term_open(struct app *a);
void ui_term_close(void);
TermKey *ui_termkey(void);
int ui_fatal_signal(void); /* the signal that ended the loop, or 0 */
void ui_loop(struct app *a);
bool ui_busy(struct app *a); /* (app.busy) */
void ui_draw(struct app *a);
void ui_key(struct app *a, TermKeyKey *k);
bool ui_feed(struct app *a, const char *p, size_t n); /* terminal input (true: a key begun, not finished) */
bool ui_check_files(struct app *a, bool woken);     /* following: look at the files (true: something changed) */
void ui_load_step(struct app *a, uint64_t budget_ns, bool wait);
void ui_dump_screen(const char *path);
void ui_dump_attrs(const char *path);
void ui_dump_looks(const char *path);
void ui_toggle_follow(struct app *a);

#endif
