/* A map from 64-bit keys to 64-bit values (open addressing, linear probing).
 * Decoders use it for pid -> lane, pool id -> string, address -> symbol. */
#ifndef TTV_HMAP_H
#define TTV_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *keys, *vals;
	uint8_t *used;
	size_t n, cap; /* cap is 0 or a power of two */
};

/* Insert or replace. */
void hmap_put(struct hmap *h, uint64_t key, uint64_t val);
/* The value for key, inserted as 0 when absent (valid until the next insert). */
uint64_t *hmap_ref(struct hmap *h, uint64_t key);
/* Value for key; false when absent. */
bool hmap_get(const struct hmap *h, uint64_t key, uint64_t *val);
void hmap_del(struct hmap *h, uint64_t key);
void hmap_clear(struct hmap *h);
void hmap_free(struct hmap *h);
/* The saved index (src/saved.h): every entry, and back (added to h; each
 * value checked to be below val_limit). */
struct buf;
struct blob;
void hmap_save(const struct hmap *h, struct buf *out);
bool hmap_restore(struct hmap *h, struct blob *r, uint64_t val_limit);

#endif
