/* A saved index damaged on purpose (t/rehash.c, the fuzz harness): the
 * layout src/saved.c writes is a 1080-byte header (magic, version, byte
 * order, key, meta bytes at 32, meta hash at 40, parts at 48, then the
 * offset and bytes of each of 64 parts: the pool's at 56, the strings' at
 * 72; 8 bytes each), then the meta.  index_damage() xors the byte at `off` of
 * the meta (taken modulo its size) and writes the meta's hash again, so the
 * damage passes the hash and reaches the checks of every value read back;
 * index_damage_strings() damages the strings part (src/strtab.c), which
 * no hash covers. */
#ifndef TTV_T_SAVEDHDR_H
#define TTV_T_SAVEDHDR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "src/util.h"

#define SAVED_HEADER 1080

/* The meta's size of the index at p[0..size); 0 when it is not one. */
static inline uint64_t index_meta(const uint8_t *p, uint64_t size)
{
	uint64_t n;
	if (size < SAVED_HEADER)
		return 0;
	memcpy(&n, p + 32, 8);
	return n <= size - SAVED_HEADER ? n : 0;
}

/* The strings part of the index at p[0..size): its bytes, and where it
 * starts in *at; 0 when there is none. */
static inline uint64_t index_strings(const uint8_t *p, uint64_t size, uint64_t *at)
{
	uint64_t off, n;
	if (size < SAVED_HEADER)
		return 0;
	memcpy(&off, p + 72, 8);
	memcpy(&n, p + 80, 8);
	*at = off;
	return off <= size && n <= size - off ? n : 0;
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

/* xor the byte at `off` (modulo its size) of the strings part, which no
 * hash covers. */
static inline bool index_damage_strings(uint8_t *p, uint64_t size, uint64_t off, uint8_t x)
{
	uint64_t at, n = index_strings(p, size, &at);
	if (!n)
		return false;
	p[at + off % n] ^= x;
	return true;
}

#endif
