#include "src/strtab.h"

#include <stdlib.h>

#include "src/util.h"

#define CHUNK (1u << 20)
#define FIRST_CHUNK 4096 /* chunks double from here to CHUNK: small traces stay small */

struct entry {
	const char *p;
	uint32_t len;
	uint32_t hash;
};

#define RECENT_BITS 10
#define RECENT (1u << RECENT_BITS)

struct strtab {
	/* id + 1 of a string interned lately, by quick_key: a trace repeats a
	 * few strings (targets, names) in most of its events, and finding
	 * those here costs less than hashing them whole */
	uint32_t recent[RECENT];
	struct entry *ent; /* by id */
	size_t nent, capent;
	uint64_t *slot; /* open addressing: hash << 32 | (id + 1); 0 = empty */
	size_t nslot;   /* power of two */
	char **chunks;
	size_t nchunks, capchunks;
	size_t used, size; /* bytes used in the last chunk, and its size */
};

static char *store(struct strtab *st, const void *p, size_t n)
{
	if (!st->nchunks || st->used + n + 1 > st->size) {
		size_t next = st->nchunks ? MIN(2 * st->size, (size_t)CHUNK) : FIRST_CHUNK;
		size_t sz = MAX(n + 1, next);
		xgrow(&st->chunks, &st->capchunks, st->nchunks + 1, sizeof *st->chunks);
		char *c = xmalloc(sz);
		if (n + 1 > next && st->nchunks) {
			/* A big string gets its own chunk; keep filling the current one. */
			char *last = st->chunks[st->nchunks - 1];
			st->chunks[st->nchunks - 1] = c;
			st->chunks[st->nchunks++] = last;
			memcpy(c, p, n);
			c[n] = 0;
			return c;
		}
		st->chunks[st->nchunks++] = c;
		st->used = 0;
		st->size = sz;
	}
	char *d = st->chunks[st->nchunks - 1] + st->used;
	memcpy(d, p, n);
	d[n] = 0;
	st->used += n + 1;
	return d;
}

/* The slots made room for at least `want` (a power of two), the entries
 * placed again. */
static void resize(struct strtab *st, size_t want)
{
	size_t n = st->nslot ? st->nslot : 1024;
	while (n < want)
		n *= 2;
	uint64_t *s = xcalloc(n, sizeof *s);
	for (size_t id = 0; id < st->nent; id++) {
		size_t i = st->ent[id].hash & (n - 1);
		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint64_t)st->ent[id].hash << 32 | ((uint32_t)id + 1);
	}
	free(st->slot);
	st->slot = s;
	st->nslot = n;
}

static void rehash(struct strtab *st) { resize(st, st->nslot ? st->nslot * 2 : 1024); }

struct strtab *strtab_new(void)
{
	struct strtab *st = xcalloc(1, sizeof *st);
	rehash(st);
	strtab_intern(st, "", 0);
	return st;
}

void strtab_free(struct strtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st->ent);
	free(st->slot);
	free(st);
}

static uint32_t lookup(const struct strtab *st, const void *p, size_t n, uint32_t h, size_t *at)
{
	size_t i = h & (st->nslot - 1);
	for (; st->slot[i]; i = (i + 1) & (st->nslot - 1)) {
		if ((uint32_t)(st->slot[i] >> 32) != h)
			continue;
		uint32_t id1 = (uint32_t)st->slot[i];
		const struct entry *e = &st->ent[id1 - 1];
		if (e->len == n && memcmp(e->p, p, n) == 0)
			return id1;
	}
	*at = i;
	return 0;
}

static uint32_t intern_hashed(struct strtab *st, const void *p, size_t n, uint32_t h)
{
	size_t at = 0; /* set by lookup when it finds nothing */
	uint32_t found = lookup(st, p, n, h, &at);
	if (found)
		return found - 1;
	if (st->nent >= UINT32_MAX - 1)
		return 0; /* table full: degrade to the empty string, never crash */
	xgrow(&st->ent, &st->capent, st->nent + 1, sizeof *st->ent);
	st->ent[st->nent] = (struct entry){store(st, p, n), (uint32_t)n, h};
	st->slot[at] = (uint64_t)h << 32 | (uint32_t)++st->nent;
	if (st->nent * 2 > st->nslot)
		rehash(st);
	return (uint32_t)st->nent - 1;
}

static uint32_t hash_of(const void *p, size_t *n)
{
	if (*n > UINT32_MAX)
		*n = UINT32_MAX;
	return (uint32_t)hash_bytes(p, *n);
}

/* Where a string may be in `recent`: its length and its first and last 8 bytes. */
static size_t quick_key(const uint8_t *p, size_t n)
{
	uint64_t a = 0, b = 0;
	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
	} else {
		for (size_t i = 0; i < n; i++)
			a = a << 8 | p[i];
	}
	return (size_t)(((a ^ n) * 0x9e3779b97f4a7c15ull ^ b) * 0xe7037ed1a0b428dbull >> (64 - RECENT_BITS));
}

uint32_t strtab_intern(struct strtab *st, const void *p, size_t n)
{
	n = MIN(n, (size_t)UINT32_MAX);
	uint32_t *r = &st->recent[quick_key(p, n)];
	if (*r) {
		const struct entry *e = &st->ent[*r - 1];
		if (e->len == n && memcmp(e->p, p, n) == 0)
			return *r - 1;
	}
	uint32_t id = intern_hashed(st, p, n, hash_of(p, &n));
	*r = id + 1;
	return id;
}

#define AHEAD 8 /* strings hashed, their slots fetched, before they are interned */

void strtab_intern_all(struct strtab *st, const char *const *s, const size_t *len, size_t n, uint32_t *id)
{
	if (!n)
		return;
	resize(st, 2 * (st->nent + n) + 2);
	uint32_t h[AHEAD];
	size_t l[AHEAD];
	for (size_t i = 0; i < n + AHEAD; i++) {
		if (i >= AHEAD) { /* (string i - AHEAD: its place in h and l is i's next) */
			size_t k = i - AHEAD;
			id[k] = intern_hashed(st, s[k], l[k % AHEAD], h[k % AHEAD]);
		}
		if (i < n) {
			l[i % AHEAD] = len[i];
			h[i % AHEAD] = hash_of(s[i], &l[i % AHEAD]);
			__builtin_prefetch(&st->slot[h[i % AHEAD] & (st->nslot - 1)]);
		}
	}
}

uint32_t strtab_intern_cstr(struct strtab *st, const char *s) { return strtab_intern(st, s, strlen(s)); }

const char *strtab_get(const struct strtab *st, uint32_t id, size_t *len)
{
	if (id >= st->nent)
		id = 0;
	if (len)
		*len = st->ent[id].len;
	return st->ent[id].p;
}

uint32_t strtab_count(const struct strtab *st) { return (uint32_t)st->nent; }
