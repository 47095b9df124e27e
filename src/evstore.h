/* The model's committed events in time order, stored compactly.
 *
 * An event is a struct cev while it is being sorted, merged and paired.
 * Once committed, runs of up to EVS_BLOCK of them are packed into blocks:
 * per block a first time, a least byte offset and two small dictionaries
 * (the (input, type, lane, flags) combinations and the names its events
 * use); per event the time and offset as differences from those, and the
 * two dictionary indices, each in as few bits as the block needs, plus the
 * duration (32 bits, written in place when spans pair); and which lanes
 * the block holds, so that a look for a few lanes passes over the blocks
 * without them (evs_lanes_next).  Typical traces take 8-13 bytes per event
 * this way instead of 28.
 *
 * Blocks hold between EVS_PACK / 2 and EVS_BLOCK events (the last one
 * fewer), so that events arriving late (symbols at time 0, a scope
 * written when it ends) rewrite only the blocks they land in; they are
 * packed with EVS_PACK, so that a few late ones that fit a block as it is
 * (its widths, lanes and dictionaries: a fleet followed, each instance's
 * batch landing among the others' events) are written into it in place,
 * its events' bits copied around theirs.  The newest
 * events (an eighth, or twice as many as late events reach back, each
 * counting for EVS_BLOCK at most, from EVS_OPEN_MIN to EVS_OPEN_MAX) stay
 * unpacked, the "open" run:
 * appending, pairing and most late events (overlapping batches) work on
 * them directly. */
#ifndef TTV_EVSTORE_H
#define TTV_EVSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/bigmem.h"

/* 28 bytes.  loc packs input (12 bits), byte offset (36 bits: 64 GiB per
 * input) and type (16 bits); comparing (ts, loc) orders events by time and
 * then by file position, which is unique per event. */
struct cev {
	int64_t ts;
	uint64_t loc;
	uint32_t dur;   /* ns; DUR_NONE; or DUR_LONG + index into the model's long durations */
	uint32_t name;
	uint32_t lanef; /* lane:24 | flags:8 */
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(struct cev) == 28, "compact event must stay 28 bytes");

#define IN_BITS 12
#define OFF_BITS 36
#define TYPE_BITS 16

static inline uint32_t cev_type(const struct cev *c) { return (uint32_t)(c->loc & 0xffff); }
static inline uint32_t cev_lane(const struct cev *c) { return c->lanef >> 8; }
static inline uint32_t cev_flags(const struct cev *c) { return c->lanef & 0xff; }
static inline uint32_t cev_input(const struct cev *c) { return (uint32_t)(c->loc >> (OFF_BITS + TYPE_BITS)); }
static inline uint64_t cev_off(const struct cev *c) { return c->loc >> TYPE_BITS & ((1ull << OFF_BITS) - 1); }
static inline bool cev_less(const struct cev *a, const struct cev *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->loc < b->loc);
}

/* How many of sorted a[0..n) come before key. */
size_t cevs_before(const struct cev *a, size_t n, const struct cev *key);

/* Merge sorted a[0..na) and b[0..nb) into out (out may overlap b when
 * out + na == b). */
void cev_merge(const struct cev *a, size_t na, const struct cev *b, size_t nb, struct cev *out);

#define EVS_BLOCK 4096
#define EVS_PACK (EVS_BLOCK - 64) /* events a block is packed with: room for a few late ones written in place */
#define EVS_OPEN_MIN (1u << 18)
#define EVS_OPEN_MAX (1u << 20)

struct evblock;
struct packer;

/* Bytes that blocks live in: mem's, or borrowed (a slice of a saved
 * index's mapping that several stores share: copied to mem of its own
 * before it grows). */
struct evpool {
	uint8_t *p;
	size_t n, cap;
	struct bigmem mem;
	bool borrowed;
};

struct evstore {
	struct evblock *blk; /* in time order */
	size_t nblk, capblk;
	uint32_t *coarse; /* coarse[k]: the block holding position k * EVS_BLOCK / 2 */
	size_t capcoarse;
	struct evpool pool; /* the blocks' bytes */
	size_t garbage;     /* of them, those no block uses any more */
	uint64_t npacked; /* events in blocks: positions [0, npacked) */
	struct cev *open; /* positions [npacked, npacked + nopen), unpacked */
	size_t nopen, capopen, open0; /* open is open0 events into open_mem */
	uint64_t reach; /* how far back (events from the end) late events landed lately */
	struct bigmem open_mem;
	struct cev *tmp; /* merge space */
	size_t captmp;
	struct bigmem tmp_mem;
	struct packer *pk; /* packing's dictionaries (maybe lent: evs_lend_packer) */
	bool pk_lent;
	uint64_t version; /* changes when packed events do (unique among stores) */
	uint64_t in_place; /* late events written into their blocks as they were (tests) */
	struct insertion *insertion; /* (its room) */
};

void evs_free(struct evstore *s);
static inline uint64_t evs_count(const struct evstore *s) { return s->npacked + s->nopen; }

/* Readers that go event by event (filters, batch writers) get runs of
 * EVS_RUN unpacked at once: the thread's last run, valid while the
 * store's version is the one it was unpacked at. */
#define EVS_RUN 256
struct evs_run {
	const struct evstore *s;
	uint64_t version, start, n, next; /* next: the position after the last one read */
	struct cev ev[EVS_RUN];
};
extern _Thread_local struct evs_run evs_run;

/* (evs_at() when the event is not at hand) */
const struct cev *evs_unpack(const struct evstore *s, uint64_t i, struct cev *room);
/* Event i (i < evs_count), read where it lies (the open run, the thread's
 * unpacked run) or else unpacked into *room.  Valid until this thread
 * reads the store again: take what you need at once. */
static inline const struct cev *evs_at(const struct evstore *s, uint64_t i, struct cev *room)
{
	const struct evs_run *r = &evs_run;
	if (i >= s->npacked)
		return &s->open[i - s->npacked];
	if (r->s == s && r->version == s->version && i - r->start < r->n) {
		evs_run.next = i + 1;
		return &r->ev[i - r->start];
	}
	return evs_unpack(s, i, room);
}
/* Event i (i < evs_count), copied. */
static inline void evs_get(const struct evstore *s, uint64_t i, struct cev *c)
{
	const struct cev *at = evs_at(s, i, c);
	if (at != c)
		*c = *at;
}
/* Events from i on, read where they lie (the open run, the thread's run,
 * unpacked into it when need be): returns how many lie together at *at
 * (at least 1, at most n; n at most what is left).  Valid as evs_at's. */
size_t evs_span(const struct evstore *s, uint64_t i, size_t n, const struct cev **at);
/* Event i read where it lies when unpacked, else unpacked into *room:
 * unlike evs_at(), not moved by reading other events. */
static inline const struct cev *evs_peek(const struct evstore *s, uint64_t i, struct cev *room)
{
	if (i >= s->npacked)
		return &s->open[i - s->npacked];
	evs_get(s, i, room);
	return room;
}
/* Events [i, i + n) copied into out, unpacked (n at most what is left):
 * touches no thread's run, so readers on several threads may. */
void evs_copy(const struct evstore *s, uint64_t i, size_t n, struct cev *out);
int64_t evs_ts(const struct evstore *s, uint64_t i);
void evs_set_dur(struct evstore *s, uint64_t i, uint32_t dur);
/* What merging sorted a[0..n) in costs, in events rewritten: the blocks
 * they land in (found by their first times alone, nothing unpacked, each
 * unpacked and packed again), and the open events from where the first
 * of them lands on, each an eighth (only moved up). */
uint64_t evs_rewrite(const struct evstore *s, const struct cev *a, size_t n);

/* First position whose event is not before key (upper: after key). */
uint64_t evs_bound(const struct evstore *s, const struct cev *key, bool upper);
/* First position whose time is not before t (upper: after t). */
uint64_t evs_time_bound(const struct evstore *s, int64_t t, bool upper);

/* The first position in [i, end) whose event is on one of the lanes of
 * the set, else end (at most evs_count); the last in [begin, i), else
 * UINT64_MAX.  Blocks without them are passed over whole and in the others
 * only lanes are read: a few lanes among thousands are found without
 * reading the rest. */
struct idset;
uint64_t evs_lanes_next(const struct evstore *s, uint64_t i, uint64_t end, const struct idset *set);
uint64_t evs_lanes_prev(const struct evstore *s, uint64_t i, uint64_t begin, const struct idset *set);

/* Merge sorted a[0..n) into the store.  Those after every packed event
 * stay unpacked until evs_pack().  ins (unless NULL): where each of a
 * went, as how many of the store's events before the merge are before it
 * (an event there now is at its old position plus the a's that went
 * at or before it). */
void evs_merge(struct evstore *s, const struct cev *a, size_t n, uint64_t *ins);
/* Pack the open run's older whole blocks, keeping the newest unpacked. */
void evs_pack(struct evstore *s);
/* Pack all of its whole blocks (a store nothing is added to for now),
 * and give back its room for merging. */
void evs_pack_all(struct evstore *s);
/* Pack all of its whole blocks, keeping that room (a store merged into
 * again soon: new room would be new pages, each a fault, every time). */
void evs_pack_whole(struct evstore *s);
/* Pack every event, the last block however few it holds, and give back
 * the open run's room: a store read to its end, nothing more to come (an
 * unpacked event takes 28 bytes; the open runs of a fleet's parts held a
 * quarter of its events).  A step at a time: true once it is done. */
bool evs_seal_step(struct evstore *s);
/* A store read once, in order, and freed after (a merge that consumes
 * it): the pages of its pool that no block from position i on uses are
 * given back as i goes on (evs_drain_to), so that what it is merged into
 * can grow in their stead (a pool borrowed from a saved index is left as
 * it is: its pages are the file's). */
struct evs_drain {
	struct evstore *s;
	uint64_t *least; /* least[b]: the first pool byte blocks b.. use */
	size_t blk;      /* the first block not read past yet */
	size_t given;    /* pool bytes given back so far */
};
void evs_drain_init(struct evs_drain *d, struct evstore *s);
void evs_drain_to(struct evs_drain *d, uint64_t i);
void evs_drain_free(struct evs_drain *d);
/* s packs with from's dictionaries (300 KB), which from keeps: stores
 * that never pack at once (a model's parts) need one between them. */
void evs_lend_packer(struct evstore *s, struct evstore *from);
/* Keep only the events keep() accepts. */
void evs_filter(struct evstore *s, bool (*keep)(void *ctx, const struct cev *c), void *ctx);
/* Bytes the store takes now. */
uint64_t evs_bytes(const struct evstore *s);

/* The saved index (src/saved.h): the store without its pool's bytes, which
 * are saved apart (s->pool.p[0..pool.n)) and handed back, mapped, to
 * evs_restore().  That checks every block against the pool and the
 * limits (ids that exist) and takes the mapping over (freed with the
 * store); false when anything does not hold (the store is then unusable:
 * only evs_free() it). */
struct buf;
struct blob;
struct evs_limits {
	uint64_t inputs, types, lanes, names;
};
/* (the pool's bytes, saved as pool[0..npool), lent to the store: the
 * caller keeps them mapped while the store is used) */
void evs_save(const struct evstore *s, struct buf *out);
bool evs_restore(struct evstore *s, struct blob *r, uint8_t *pool, size_t npool, const struct evs_limits *lim);

#endif
