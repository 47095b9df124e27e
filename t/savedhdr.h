/* A saved index damaged on purpose (t/rehash.c, the fuzz harness): the
 * layout src/saved.c writes is a 64-byte header (magic, version, byte
 * order, key, meta bytes at 32, meta hash at 40, pool offset, pool bytes;
 * 8 bytes each), then the meta.  index_damage() xors the byte at `off` of
 * the meta (taken modulo its size) and writes the meta's hash again, so the
 * damage passes the hash and reaches the checks of every value read back. */
#ifndef TTV_T_SAVEDHDR_H
#define TTV_T_SAVEDHDR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "src/util.h"

#define SAVED_HEADER 64

/* The meta's size of the index at p[0..size); 0 when it is not one. */
static inline uint64_t index_meta(const uint8_t *p, uint64_t size)
{
	uint64_t n;
	if (size < SAVED_HEADER)
		return 0;
	memcpy(&n, p + 32, 8);
	return n <= size - SAVED_HEADER ? n : 0;
}

static inline bool index_damage(uint8_t *p, uint64_t size, uint64_t off, uint8_t x)
{
	uint64_t n = index_meta(p, size);
	if (!n)
		return false;
	p[SAVED_HEADER + off % n] ^= x;
	uint64_t h = hash_big(p + SAVED_HEADER, n);
	memcpy(p + 40, &h, 8);
	return true;
}

#endif
