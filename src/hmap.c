#include "src/hmap.h"

#include <stdlib.h>

#include "src/blob.h"
#include "src/util.h"

static size_t slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static void grow(struct hmap *h)
{
	struct hmap g = {.cap = h->cap ? h->cap * 2 : 64};
	g.keys = xmalloc(g.cap * sizeof *g.keys);
	g.vals = xmalloc(g.cap * sizeof *g.vals);
	g.used = xcalloc(g.cap, 1);
	for (size_t i = 0; i < h->cap; i++)
		if (h->used[i])
			hmap_put(&g, h->keys[i], h->vals[i]);
	hmap_free(h);
	*h = g;
}

uint64_t *hmap_ref(struct hmap *h, uint64_t key)
{
	if ((h->n + 1) * 2 > h->cap)
		grow(h);
	size_t i = slot(key, h->cap);
	while (h->used[i] && h->keys[i] != key)
		i = (i + 1) & (h->cap - 1);
	if (!h->used[i]) {
		h->used[i] = 1;
		h->keys[i] = key;
		h->vals[i] = 0;
		h->n++;
	}
	return &h->vals[i];
}

void hmap_put(struct hmap *h, uint64_t key, uint64_t val) { *hmap_ref(h, key) = val; }

bool hmap_get(const struct hmap *h, uint64_t key, uint64_t *val)
{
	if (!h->cap)
		return false;
	for (size_t i = slot(key, h->cap); h->used[i]; i = (i + 1) & (h->cap - 1))
		if (h->keys[i] == key) {
			*val = h->vals[i];
			return true;
		}
	return false;
}

/* Backward-shift deletion: the entries after it in its probe run move up
 * into the gap when their home slot allows, so no tombstones build up. */
void hmap_del(struct hmap *h, uint64_t key)
{
	if (!h->cap)
		return;
	size_t mask = h->cap - 1, i = slot(key, h->cap);
	while (h->used[i] && h->keys[i] != key)
		i = (i + 1) & mask;
	if (!h->used[i])
		return;
	for (size_t j = (i + 1) & mask; h->used[j]; j = (j + 1) & mask) {
		size_t home = slot(h->keys[j], h->cap);
		/* j may fill the gap at i unless its home lies cyclically in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			h->keys[i] = h->keys[j];
			h->vals[i] = h->vals[j];
			i = j;
		}
	}
	h->used[i] = 0;
	h->n--;
}

void hmap_clear(struct hmap *h)
{
	if (h->cap)
		memset(h->used, 0, h->cap);
	h->n = 0;
}

void hmap_free(struct hmap *h)
{
	free(h->keys);
	free(h->vals);
	free(h->used);
	*h = (struct hmap){0};
}

void hmap_save(const struct hmap *h, struct buf *out)
{
	put_u64(out, h->n);
	for (size_t i = 0; i < h->cap; i++)
		if (h->used[i]) {
			put_u64(out, h->keys[i]);
			put_u64(out, h->vals[i]);
		}
}

bool hmap_restore(struct hmap *h, struct blob *r, uint64_t val_limit)
{
	uint64_t n = get_u64(r);
	if (n > (uint64_t)(r->end - r->p) / 16)
		r->bad = true;
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t k = get_u64(r);
		hmap_put(h, k, get_below(r, val_limit));
	}
	return !r->bad;
}
