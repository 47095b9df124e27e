/* Values written for a later run to read back (the saved index,
 * src/saved.h): put into a buffer, then got again from bytes that may be
 * anything (a cache file is not trusted: a short or damaged one must not
 * make its reader read past it or allocate what it does not hold).
 * Native byte order: the file's header says which (saved.c). */
#ifndef TTV_BLOB_H
#define TTV_BLOB_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "src/util.h"

static inline void put_u64(struct buf *b, uint64_t v) { buf_add(b, &v, 8); }
static inline void put_i64(struct buf *b, int64_t v) { buf_add(b, &v, 8); }
/* n elements of `size` bytes, after their count. */
static inline void put_array(struct buf *b, const void *p, size_t n, size_t size)
{
	put_u64(b, n);
	if (n)
		buf_add(b, p, n * size);
}

/* Bytes being read back; `bad` once anything asked for was not there. */
struct blob {
	const uint8_t *p, *end;
	bool bad;
};

/* The next n bytes (NULL, and bad, when fewer are left). */
static inline const void *get_raw(struct blob *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	const void *at = r->p;
	r->p += n;
	return at;
}

static inline uint64_t get_u64(struct blob *r)
{
	const void *at = get_raw(r, 8);
	uint64_t v = 0;
	if (at)
		memcpy(&v, at, 8);
	return v;
}

static inline int64_t get_i64(struct blob *r) { return (int64_t)get_u64(r); }

/* A value that must be below `limit` (bad otherwise; 0 returned). */
static inline uint64_t get_below(struct blob *r, uint64_t limit)
{
	uint64_t v = get_u64(r);
	if (v >= limit)
		r->bad = true;
	return r->bad ? 0 : v;
}

/* What put_array() wrote: its elements (in place, maybe unaligned: copy
 * them out) and their count in *n; NULL with *n = 0 when bad.  The count
 * is checked against the bytes left before anything is done with it. */
static inline const void *get_array(struct blob *r, size_t *n, size_t size)
{
	uint64_t k = get_u64(r);
	*n = 0;
	if (r->bad || k > (uint64_t)(r->end - r->p) / size) {
		r->bad = true;
		return NULL;
	}
	*n = (size_t)k;
	return get_raw(r, (size_t)k * size);
}

/* A bool of a struct copied from saved bytes: 0 or 1 after this, whatever
 * byte was there (any other is no bool at all). */
static inline void fix_bool(bool *b)
{
	unsigned char c;
	memcpy(&c, b, 1);
	c = c != 0;
	memcpy(b, &c, 1);
}

/* The same, copied into a fresh allocation (NULL when empty or bad). */
static inline void *get_copy(struct blob *r, size_t *n, size_t size)
{
	const void *at = get_array(r, n, size);
	if (!at || !*n)
		return NULL;
	void *p = xmalloc(*n * size);
	memcpy(p, at, *n * size);
	return p;
}

#endif
