#include "src/strtab.h"

#include <stdlib.h>

#include "src/bigmem.h"
#include "src/util.h"

#define CHUNK (1u << 20)
#define FIRST_CHUNK 4096 /* chunks double from here to CHUNK: small traces stay small */

/* An entry is saved as it is (strtab_save), so its layout is fixed. */
struct entry {
	uint64_t at; /* the string's address; for an adopted one, its offset in the adopted bytes */
	uint32_t len;
	uint32_t hash;
};
_Static_assert(sizeof(struct entry) == 16, "a saved entry is 16 bytes");

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
	/* a saved table taken over (strtab_adopt): its entries and slots are
	 * used where they are mapped until they grow, its strings stay there */
	struct bigmem saved;
	bool ent_adopted, slot_adopted;
	size_t nadopted; /* entries [0, nadopted) are the saved table's */
	const char *bytes;
	size_t nbytes;
};

/* String id's bytes ("" for an adopted one that lies outside the adopted
 * bytes: a damaged index never makes it read past them). */
static const char *text(const struct strtab *st, size_t id, uint32_t *len)
{
	const struct entry *e = &st->ent[id];
	*len = e->len;
	if (id >= st->nadopted)
		return (const char *)(uintptr_t)e->at;
	if (e->at < st->nbytes && e->len < st->nbytes - e->at && !st->bytes[e->at + e->len])
		return st->bytes + e->at;
	*len = 0;
	return "";
}

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
	if (!st->slot_adopted)
		free(st->slot);
	st->slot_adopted = false;
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
	if (!st->ent_adopted)
		free(st->ent);
	if (!st->slot_adopted)
		free(st->slot);
	bigmem_free(&st->saved);
	free(st);
}

/* String p[0, n) of hash h: its id + 1, or 0 and where it goes in *at
 * (SIZE_MAX: nowhere, a damaged adopted table has no free slot).  An
 * adopted table's slots are checked as they are used. */
static uint32_t lookup(const struct strtab *st, const void *p, size_t n, uint32_t h, size_t *at)
{
	size_t mask = st->nslot - 1, i = h & mask;
	for (size_t k = 0; k < st->nslot && st->slot[i]; k++, i = (i + 1) & mask) {
		uint64_t v = st->slot[i];
		uint32_t id1 = (uint32_t)v, len;
		if ((uint32_t)(v >> 32) != h || id1 - 1 >= st->nent)
			continue;
		const char *s = text(st, id1 - 1, &len);
		if (len == n && memcmp(s, p, n) == 0)
			return id1;
	}
	*at = st->slot[i] ? SIZE_MAX : i;
	return 0;
}

/* The entries in memory of their own, to grow. */
static void own_entries(struct strtab *st)
{
	struct entry *e = xmalloc((st->nent + 1) * sizeof *e);
	memcpy(e, st->ent, st->nent * sizeof *e);
	st->ent = e;
	st->capent = st->nent + 1;
	st->ent_adopted = false;
}

static uint32_t intern_hashed(struct strtab *st, const void *p, size_t n, uint32_t h)
{
	size_t at = 0; /* set by lookup when it finds nothing */
	uint32_t found = lookup(st, p, n, h, &at);
	if (!found && at == SIZE_MAX) { /* (the slots made again from the entries) */
		resize(st, st->nslot);
		found = lookup(st, p, n, h, &at);
	}
	if (found)
		return found - 1;
	if (st->nent >= UINT32_MAX - 1)
		return 0; /* table full: degrade to the empty string, never crash */
	if (st->ent_adopted)
		own_entries(st);
	xgrow(&st->ent, &st->capent, st->nent + 1, sizeof *st->ent);
	st->ent[st->nent] = (struct entry){(uintptr_t)store(st, p, n), (uint32_t)n, h};
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
		uint32_t len;
		const char *s = text(st, *r - 1, &len);
		if (len == n && memcmp(s, p, n) == 0)
			return *r - 1;
	}
	uint32_t id = intern_hashed(st, p, n, hash_of(p, &n));
	*r = id + 1;
	return id;
}

uint32_t strtab_intern_cstr(struct strtab *st, const char *s) { return strtab_intern(st, s, strlen(s)); }

const char *strtab_get(const struct strtab *st, uint32_t id, size_t *len)
{
	if (id >= st->nent)
		id = 0;
	uint32_t n;
	const char *s = text(st, id, &n);
	if (len)
		*len = n;
	return s;
}

uint32_t strtab_count(const struct strtab *st) { return (uint32_t)st->nent; }

/* ---- the saved index ------------------------------------------------------ */

/* Saved: a header (entries, slots, bytes of strings), the entries (each
 * string's offset among the bytes), the slots, the strings (each
 * NUL-terminated). */
struct saved_head {
	uint64_t nent, nslot, nbytes;
};

void strtab_save(const struct strtab *st, struct buf *out)
{
	struct saved_head h = {st->nent, st->nslot, 0};
	size_t at = out->len;
	buf_add(out, &h, sizeof h);
	for (size_t id = 0; id < st->nent; id++) {
		struct entry e = {h.nbytes, 0, st->ent[id].hash};
		text(st, id, &e.len);
		buf_add(out, &e, sizeof e);
		h.nbytes += e.len + 1u;
	}
	memcpy(out->p + at, &h, sizeof h);
	buf_add(out, st->slot, st->nslot * sizeof *st->slot);
	for (size_t id = 0; id < st->nent; id++) {
		uint32_t len;
		const char *s = text(st, id, &len);
		buf_add(out, s, len);
		buf_addc(out, 0);
	}
}

bool strtab_adopt(struct strtab *st, struct bigmem *saved, size_t n)
{
	struct saved_head h;
	if (n < sizeof h)
		return false;
	memcpy(&h, saved->p, sizeof h);
	size_t room = n - sizeof h;
	if (!h.nent || h.nent >= UINT32_MAX - 1 || h.nslot < 1024 || h.nslot & (h.nslot - 1) || h.nslot / 2 < h.nent ||
	    h.nslot > room / sizeof *st->slot || h.nent > (room - h.nslot * sizeof *st->slot) / sizeof(struct entry) ||
	    h.nbytes != room - h.nslot * sizeof *st->slot - h.nent * sizeof(struct entry))
		return false;
	const uint8_t *p = (const uint8_t *)saved->p + sizeof h;
	struct strtab a = {.ent = (struct entry *)p, .nent = h.nent, .slot = (uint64_t *)(p + h.nent * sizeof(struct entry)),
			   .nslot = h.nslot, .bytes = (const char *)p + h.nent * sizeof(struct entry) + h.nslot * sizeof(uint64_t),
			   .nadopted = h.nent, .nbytes = h.nbytes};
	/* what the table holds now (the decoders' open() made it) at the same ids */
	if (st->nent > a.nent)
		return false;
	for (uint32_t id = 0; id < st->nent; id++) {
		uint32_t la, lb;
		const char *sa = text(&a, id, &la), *sb = text(st, id, &lb);
		if (la != lb || memcmp(sa, sb, la))
			return false;
	}
	for (size_t i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st->ent);
	free(st->slot);
	*st = a;
	st->ent_adopted = st->slot_adopted = true;
	st->saved = *saved;
	*saved = (struct bigmem){0};
	return true;
}
