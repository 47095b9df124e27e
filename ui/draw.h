/* draw.c: Drawing helpers: text that is made safe, columns cut to fit, roles
 * (colours), cursors and progress. */
#ifndef TTV_UI_DRAW_H
#define TTV_UI_DRAW_H

#include "ui/app.h"

/* drawing helpers (draw.c) */
void draw_role(enum role r);
int draw_text(int y, int x, int maxw, const char *s, size_t n); /* UTF-8, sanitized; returns cells */
int draw_str(int y, int x, int maxw, const char *s);
/* Draw s with every match of the search highlighted. */
int draw_matched(struct app *a, int y, int x, int w, const char *s, size_t n, enum role base);
/* A name in a column w cells wide; cut short, its middle gives way to "…"
 * ("~" without UTF-8), so that a clipped name is not taken for a whole one
 * and names that differ at the end stay apart. */
int draw_column(struct app *a, int y, int x, int w, const char *s, size_t n, enum role base);
/* Text w cells wide; cut short, it ends in "…" (no search matches shown). */
int draw_clipped(struct app *a, int y, int x, int w, const char *s, size_t n);
void draw_fill(int y, int x, int w, const char *cell);
bool cursor_move(size_t *cur, size_t n, int rows, enum action act);
void cursor_in_sight(size_t *top, size_t cur, int rows);
void draw_progress(struct app *a, const char *what, uint64_t at);
int text_width(const char *s, size_t n);
/* Bytes of s that fit in `cells` cells, at least one character (for
 * wrapping, which must move on). */
size_t text_fit(const char *s, size_t n, int cells);
/* The same, broken after a space where one is (a line of text wrapped at
 * word boundaries; the spaces that start the next line are the caller's). */
size_t text_wrap(const char *s, size_t n, int cells);
/* Bytes of s that make its first `cells` cells (for scrolling sideways). */
size_t text_skip(const char *s, size_t n, int cells);
void fmt_time(struct app *a, struct buf *b, const struct event *e); /* as the t key chose */

#endif
