/* The one sanitizer between trace bytes and any output.
 *
 * Trace strings are untrusted: they may hold escape sequences, C0/C1
 * controls, bidi overrides and invalid UTF-8.  Every string that came from a
 * trace goes through one of these functions before it is printed or drawn.
 *
 *  - printable ASCII passes as is, `\` becomes `\\`;
 *  - \n \r \t become the two-character escapes;
 *  - other C0 controls, DEL and bytes that are not valid UTF-8 become \xNN;
 *  - valid UTF-8 passes, except code points that can reorder, hide or drive
 *    the display (C1 controls, bidi marks and overrides, line/paragraph
 *    separators, zero-width and other format characters), which become
 *    \uXXXX.
 */
#ifndef TTV_ESC_H
#define TTV_ESC_H

#include "src/util.h"

/* Append s[0..n) made safe for a terminal. */
void esc_term(struct buf *b, const void *s, size_t n);
/* Same, for a NUL-terminated string (field names: one walk, no strlen). */
void esc_term_cstr(struct buf *b, const char *s);
/* Same, for what the user typed (a pattern, a message quoting one): a
 * backslash is regex syntax there and shows as itself; everything else is
 * escaped as above. */
void esc_typed(struct buf *b, const void *s, size_t n);
/* Same, inside double quotes, with `"` escaped as well. */
void esc_quoted(struct buf *b, const void *s, size_t n);
/* A complete JSON string literal (with quotes).  Control and format
 * characters become \uXXXX; bytes that are not UTF-8 become the visible
 * text \xNN (so the JSON stays valid UTF-8 and never carries a raw control). */
void esc_json(struct buf *b, const void *s, size_t n);

/* Decode one UTF-8 sequence at s (n bytes available).  Returns its length
 * and stores the code point, or returns 0 when the bytes are not valid
 * UTF-8 (overlong, surrogate, out of range, truncated). */
size_t utf8_decode(const uint8_t *s, size_t n, uint32_t *cp);
/* True for code points that must never reach the terminal as themselves. */
bool cp_is_unsafe(uint32_t cp);
/* Bytes of sanitized text that fit in maxw terminal cells (wcwidth: the
 * locale's LC_CTYPE); *cells gets their width.  Stops at a character that
 * cannot be drawn as it is. */
size_t esc_fit(const char *s, size_t n, int maxw, int *cells);
/* Its width in cells (as far as it can be drawn). */
int esc_width(const char *s, size_t n);

#endif
