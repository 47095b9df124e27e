/* Interned strings.  Every distinct byte string gets a small integer id, so
 * events store 4 bytes instead of a string, and a regex over a string field
 * runs once per distinct string, not once per event.  Id 0 is the empty
 * string.  Strings are raw bytes (not sanitized, not necessarily UTF-8) and
 * are stored NUL-terminated for convenience; they may contain NULs. */
#ifndef TTV_STRTAB_H
#define TTV_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab_new(void);
void strtab_free(struct strtab *st);
uint32_t strtab_intern(struct strtab *st, const void *p, size_t n);
uint32_t strtab_intern_cstr(struct strtab *st, const char *s);
const char *strtab_get(const struct strtab *st, uint32_t id, size_t *len);
uint32_t strtab_count(const struct strtab *st);

/* The saved index (src/saved.h): the table as one array, appended to out
 * (its entries, its hash slots, its strings), for a later run to take
 * over mapped, nothing hashed or copied again: strtab_adopt() on a table
 * that holds only what the same decoders' open() made (checked), taking
 * over `saved` (n bytes).  Whatever the array holds, reading its strings
 * stays inside it (a damaged one gives wrong strings, never a crash).
 * False when its sizes do not hold. */
struct buf;
struct bigmem;
void strtab_save(const struct strtab *st, struct buf *out);
bool strtab_adopt(struct strtab *st, struct bigmem *saved, size_t n);

#endif
