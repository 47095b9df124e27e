/* Interned strings.  Every distinct byte string gets a small integer id, so
 * events store 4 bytes instead of a string, and a regex over a string field
 * runs once per distinct string, not once per event.  Id 0 is the empty
 * string.  Strings are raw bytes (not sanitized, not necessarily UTF-8) and
 * are stored NUL-terminated for convenience; they may contain NULs. */
#ifndef TTV_STRTAB_H
#define TTV_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab_new(void);
void strtab_free(struct strtab *st);
uint32_t strtab_intern(struct strtab *st, const void *p, size_t n);
uint32_t strtab_intern_cstr(struct strtab *st, const char *s);
/* Intern n strings (s[i], len[i]) at once, their ids in id[i]: the table
 * sized for them first, each one's slot fetched ahead (the saved index
 * interns millions). */
void strtab_intern_all(struct strtab *st, const char *const *s, const size_t *len, size_t n, uint32_t *id);
const char *strtab_get(const struct strtab *st, uint32_t id, size_t *len);
uint32_t strtab_count(const struct strtab *st);

#endif
