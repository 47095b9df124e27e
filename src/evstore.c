#include "src/evstore.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "src/blob.h"
#include "src/util.h"

/* A block's bytes in the pool: the (input, type, flags) combinations
 * (u64 each), the durations (u32 each), the names (u32 each), then per
 * event w bits: time - ts0, offset - off0, lane - lane0, combination
 * index, name index; then the lanes it holds (so that a look for a few
 * lanes among thousands passes over the blocks without them): a bit per
 * lane from lane0 to lane0 + lspan, or, when fewer bits, their sorted
 * list (lane - lane0, wlane bits each). */
struct evblock {
	uint64_t start; /* position of its first event */
	int64_t ts0;    /* its first (least) time */
	uint64_t off0;  /* its least byte offset */
	uint64_t data;  /* where its bytes start in the pool */
	uint32_t lane0; /* its least lane */
	uint32_t lspan; /* its greatest lane - lane0 */
	uint16_t n, ntrip, nname, nlane; /* nlane: how many distinct lanes */
	uint8_t wts, woff, wlane, wtrip, wname, w;
};

#define HALF (EVS_BLOCK / 2)
#define LOAD_BITS 57 /* what one 8-byte load at any bit gives whole */
#define DICT_SLOTS (2 * EVS_BLOCK)
#define LANE_MAP_BITS (EVS_BLOCK * 24) /* a block's lanes as a map up to this span (a list is never longer) */

/* The values one block uses, each given the next index when first seen.
 * Slots are valid when their stamp is this block's, so nothing is cleared
 * between blocks. */
struct dict {
	uint64_t key[DICT_SLOTS];
	uint32_t stamp[DICT_SLOTS];
	uint16_t idx[DICT_SLOTS];
	uint64_t val[EVS_BLOCK];
	uint16_t n;
};

struct packer {
	struct dict trips, names;
	uint32_t gen;
	uint16_t ti[EVS_BLOCK], ni[EVS_BLOCK];
	uint32_t lanes[EVS_BLOCK]; /* the block's distinct lanes - lane0, sorted */
	uint64_t lane_map[LANE_MAP_BITS / 64];
};

void cev_merge(const struct cev *a, size_t na, const struct cev *b, size_t nb, struct cev *out)
{
	size_t i = 0, j = 0, k = 0;
	/* without branches: runs of overlapping batches interleave finely */
	while (i < na && j < nb) {
		bool t = (b[j].ts < a[i].ts) | ((b[j].ts == a[i].ts) & (b[j].loc < a[i].loc));
		out[k++] = *(t ? &b[j] : &a[i]);
		j += t;
		i += !t;
	}
	if (i < na) /* (either may be empty, even NULL) */
		memmove(out + k, a + i, (na - i) * sizeof *a);
	k += na - i;
	if (j < nb)
		memmove(out + k, b + j, (nb - j) * sizeof *b);
}

/* ---- bits ------------------------------------------------------------------ */

static unsigned width(uint64_t v) { return v ? 64 - (unsigned)__builtin_clzll(v) : 0; }

/* w (<= 64) bits at bit `at` of p; p has 9 readable bytes from at / 8. */
static inline uint64_t get_bits(const uint8_t *p, uint64_t at, unsigned w)
{
	if (!w)
		return 0;
	uint64_t x;
	memcpy(&x, p + (at >> 3), 8);
	unsigned sh = at & 7;
	x >>= sh;
	if (w + sh > 64)
		x |= (uint64_t)p[(at >> 3) + 8] << (64 - sh);
	return w == 64 ? x : x & ((1ull << w) - 1);
}

struct bitw {
	uint8_t *p;
	uint64_t acc;
	unsigned fill;
};

static inline void put_bits(struct bitw *b, uint64_t v, unsigned w)
{
	if (!w)
		return;
	b->acc |= v << b->fill;
	if (b->fill + w < 64) {
		b->fill += w;
		return;
	}
	memcpy(b->p, &b->acc, 8);
	b->p += 8;
	b->acc = b->fill ? v >> (64 - b->fill) : 0;
	b->fill = b->fill + w - 64;
}

static inline uint64_t mask(unsigned w) { return (1ull << w) - 1; } /* w < 64 */

/* LOAD_BITS bits (and more) at bit `at` of p. */
static inline uint64_t load(const uint8_t *p, uint64_t at)
{
	uint64_t x;
	memcpy(&x, p + (at >> 3), 8);
	return x >> (at & 7);
}

/* ---- block layout ------------------------------------------------------------ */

static size_t dur_at(const struct evblock *b) { return (size_t)b->ntrip * 8; }
static size_t name_at(const struct evblock *b) { return dur_at(b) + (size_t)b->n * 4; }
static size_t bits_at(const struct evblock *b) { return name_at(b) + (size_t)b->nname * 4; }
static size_t lanes_at(const struct evblock *b) { return bits_at(b) + ((size_t)b->n * b->w + 7) / 8; }
/* Its lanes as a map (else a list): whichever takes fewer bits. */
static bool lanes_mapped(const struct evblock *b) { return (uint64_t)b->lspan + 1 <= (uint64_t)b->nlane * b->wlane; }
static size_t lanes_bytes(const struct evblock *b)
{
	return lanes_mapped(b) ? ((size_t)b->lspan + 8) / 8 : ((size_t)b->nlane * b->wlane + 7) / 8;
}
static size_t block_bytes(const struct evblock *b)
{
	/* 16 spare bytes: get_bits reads 9 from any bit's byte */
	return (lanes_at(b) + lanes_bytes(b) + 16 + 7) & ~(size_t)7;
}

/* The time and offset in one load, the rest in another (the usual case). */
static bool two_loads(const struct evblock *b)
{
	return b->wts + b->woff <= LOAD_BITS && b->wlane + b->wtrip + b->wname <= LOAD_BITS;
}

static uint64_t trip_key(const struct cev *c)
{
	return (uint64_t)cev_input(c) << 24 | (uint64_t)cev_type(c) << 8 | cev_flags(c);
}

/* Events j..j+n of block b into c[0..n).  (The block's widths and bases
 * are read once, into locals: the stores into c could alias b, and the
 * compiler would read them again for every event.) */
static void unpack_run(const struct evstore *s, const struct evblock *b, size_t j, size_t n, struct cev *c)
{
	const uint8_t *d = s->pool.p + b->data, *bits = d + bits_at(b), *durs = d + dur_at(b), *names = d + name_at(b);
	const unsigned w = b->w, wts = b->wts, woff = b->woff, wlane = b->wlane, wtrip = b->wtrip, wname = b->wname;
	const unsigned wx = wts + woff, sl = wlane, sn = wlane + wtrip;
	bool two = two_loads(b);
	/* (the time may take 64 bits when not in two loads: no mask then) */
	const uint64_t mts = two ? mask(wts) : 0, moff = mask(woff), mlane = mask(wlane), mtrip = mask(wtrip),
		       mname = mask(wname);
	const uint64_t ts0 = (uint64_t)b->ts0, off0 = b->off0;
	const uint32_t lane0 = b->lane0;
	uint64_t at = (uint64_t)j * w;
	for (size_t e = 0; e < n; e++, at += w) {
		uint64_t dts, off, lane, ti, ni, k;
		if (two) { /* the usual case: two loads, then shifts */
			uint64_t x = load(bits, at), y = load(bits, at + wx);
			dts = x & mts;
			off = x >> wts & moff;
			lane = y & mlane;
			ti = y >> sl & mtrip;
			ni = y >> sn & mname;
		} else {
			dts = get_bits(bits, at, wts);
			off = get_bits(bits, at + wts, woff);
			lane = get_bits(bits, at + wx, wlane);
			ti = get_bits(bits, at + wx + sl, wtrip);
			ni = get_bits(bits, at + wx + sn, wname);
		}
		memcpy(&k, d + ti * 8, 8);
		c[e].ts = (int64_t)(ts0 + dts);
		c[e].loc = (k >> 24) << (OFF_BITS + TYPE_BITS) | (off0 + off) << TYPE_BITS | (k >> 8 & 0xffff);
		c[e].lanef = (uint32_t)(lane0 + lane) << 8 | (uint32_t)(k & 0xff);
		memcpy(&c[e].dur, durs + (j + e) * 4, 4);
		memcpy(&c[e].name, names + ni * 4, 4);
	}
}

static void unpack_at(const struct evstore *s, const struct evblock *b, size_t j, struct cev *c)
{
	unpack_run(s, b, j, 1, c);
}

static uint16_t dict_index(struct dict *d, uint32_t gen, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 51) & (DICT_SLOTS - 1);
	for (;; i = (i + 1) & (DICT_SLOTS - 1)) {
		if (d->stamp[i] != gen) {
			d->stamp[i] = gen;
			d->key[i] = key;
			d->val[d->n] = key;
			return d->idx[i] = d->n++;
		}
		if (d->key[i] == key)
			return d->idx[i];
	}
}

static struct packer *packer_next(struct evstore *s)
{
	if (!s->pk)
		s->pk = xcalloc(1, sizeof *s->pk);
	struct packer *pk = s->pk;
	if (!++pk->gen) { /* stamps wrapped: clear them once */
		memset(pk->trips.stamp, 0, sizeof pk->trips.stamp);
		memset(pk->names.stamp, 0, sizeof pk->names.stamp);
		pk->gen = 1;
	}
	pk->trips.n = pk->names.n = 0;
	return pk;
}

/* Index every event's values; the block's widths from them. */
static void pack_scan(struct packer *pk, const struct cev *a, size_t n, struct evblock *b)
{
	uint64_t omin = UINT64_MAX, omax = 0, lastk = UINT64_MAX, lastn = UINT64_MAX;
	uint32_t lmin = UINT32_MAX, lmax = 0;
	uint16_t ti = 0, ni = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t off = cev_off(&a[i]), k = trip_key(&a[i]);
		omin = MIN(omin, off);
		omax = MAX(omax, off);
		lmin = MIN(lmin, cev_lane(&a[i]));
		lmax = MAX(lmax, cev_lane(&a[i]));
		if (k != lastk)
			ti = dict_index(&pk->trips, pk->gen, lastk = k);
		if (a[i].name != lastn)
			ni = dict_index(&pk->names, pk->gen, lastn = a[i].name);
		pk->ti[i] = ti;
		pk->ni[i] = ni;
	}
	b->ts0 = a[0].ts;
	b->off0 = omin;
	b->lane0 = lmin;
	b->lspan = lmax - lmin;
	b->n = (uint16_t)n;
	b->ntrip = pk->trips.n;
	b->nname = pk->names.n;
	b->wts = (uint8_t)width((uint64_t)a[n - 1].ts - (uint64_t)a[0].ts);
	b->woff = (uint8_t)width(omax - omin);
	b->wlane = (uint8_t)width(lmax - lmin);
	b->wtrip = (uint8_t)width(pk->trips.n - 1u);
	b->wname = (uint8_t)width(pk->names.n - 1u);
	b->w = (uint8_t)(b->wts + b->woff + b->wlane + b->wtrip + b->wname);
}

/* The block's distinct lanes into pk->lanes, sorted (b->nlane of them):
 * through a map of its span, or sorted when that is wide. */
static void pack_lanes(struct packer *pk, const struct cev *a, size_t n, struct evblock *b)
{
	size_t k = 0;
	if (b->lspan < LANE_MAP_BITS) {
		size_t words = b->lspan / 64 + 1;
		memset(pk->lane_map, 0, words * 8);
		for (size_t i = 0; i < n; i++) {
			uint32_t x = cev_lane(&a[i]) - b->lane0;
			pk->lane_map[x / 64] |= 1ull << (x % 64);
		}
		for (size_t w = 0; w < words; w++)
			for (uint64_t m = pk->lane_map[w]; m; m &= m - 1)
				pk->lanes[k++] = (uint32_t)(w * 64 + (unsigned)__builtin_ctzll(m));
	} else {
		for (size_t i = 0; i < n; i++)
			pk->lanes[i] = cev_lane(&a[i]) - b->lane0;
		k = sort_distinct_u32(pk->lanes, n);
	}
	b->nlane = (uint16_t)k;
}

/* The block's lanes (lane - lane0, sorted: b->nlane of them) at p. */
static void write_lanes(const uint32_t *lanes, const struct evblock *b, uint8_t *p)
{
	if (lanes_mapped(b)) {
		memset(p, 0, lanes_bytes(b));
		for (size_t i = 0; i < b->nlane; i++)
			p[lanes[i] / 8] |= (uint8_t)(1u << (lanes[i] % 8));
		return;
	}
	struct bitw w = {p, 0, 0};
	for (size_t i = 0; i < b->nlane; i++)
		put_bits(&w, lanes[i], b->wlane);
	memcpy(w.p, &w.acc, 8);
}

/* Room for `bytes` more at the end of the pool (it may move): where. */
static uint64_t pool_take(struct evpool *pool, size_t bytes)
{
	if (pool->borrowed) { /* its own bytes before it grows */
		uint8_t *lent = pool->p;
		pool->cap = 0;
		pool->p = bigmem_grow(&pool->mem, &pool->cap, pool->n + bytes, 1);
		memcpy(pool->p, lent, pool->n);
		pool->borrowed = false;
	}
	pool->p = bigmem_grow(&pool->mem, &pool->cap, pool->n + bytes, 1);
	uint64_t at = pool->n;
	pool->n += bytes;
	return at;
}

/* One event's w bits, as the block's widths say (inlined: packing calls
 * it for every event). */
static inline __attribute__((always_inline)) void put_record(struct bitw *w, const struct evblock *b, const struct cev *c, uint64_t ti, uint64_t ni)
{
	uint64_t dts = (uint64_t)c->ts - (uint64_t)b->ts0, off = cev_off(c) - b->off0, lane = cev_lane(c) - b->lane0;
	if (two_loads(b)) {
		put_bits(w, dts | off << b->wts, b->wts + b->woff);
		put_bits(w, lane | ti << b->wlane | ni << (b->wlane + b->wtrip), b->wlane + b->wtrip + b->wname);
	} else {
		put_bits(w, dts, b->wts);
		put_bits(w, off, b->woff);
		put_bits(w, lane, b->wlane);
		put_bits(w, ti, b->wtrip);
		put_bits(w, ni, b->wname);
	}
}

/* Pack sorted a[0..n) (n <= EVS_BLOCK) as a block at the end of pool. */
static void pack_block(struct evstore *s, struct evpool *pool, const struct cev *a, size_t n, uint64_t start,
		       struct evblock *b)
{
	struct packer *pk = packer_next(s);
	pack_scan(pk, a, n, b);
	pack_lanes(pk, a, n, b);
	b->start = start;
	b->data = pool_take(pool, block_bytes(b));
	uint8_t *d = pool->p + b->data;
	memcpy(d, pk->trips.val, (size_t)b->ntrip * 8);
	for (size_t i = 0; i < n; i++)
		memcpy(d + dur_at(b) + i * 4, &a[i].dur, 4);
	for (size_t i = 0; i < b->nname; i++) {
		uint32_t name = (uint32_t)pk->names.val[i];
		memcpy(d + name_at(b) + i * 4, &name, 4);
	}
	struct bitw w = {d + bits_at(b), 0, 0};
	for (size_t i = 0; i < n; i++)
		put_record(&w, b, &a[i], pk->ti[i], pk->ni[i]);
	memcpy(w.p, &w.acc, 8);
	write_lanes(pk->lanes, b, d + lanes_at(b));
}

/* ---- finding events ---------------------------------------------------------- */

static size_t find_block(const struct evstore *s, uint64_t i)
{
	size_t b = s->coarse[i / HALF];
	while (s->blk[b].start + s->blk[b].n <= i)
		b++;
	return b;
}

_Thread_local struct evs_run evs_run;

static uint64_t new_version(void)
{
	static uint64_t versions;
	return __atomic_add_fetch(&versions, 1, __ATOMIC_RELAXED);
}

/* The packed events changed: runs unpacked before are stale. */
static void packed_changed(struct evstore *s) { s->version = new_version(); }

const struct cev *evs_unpack(const struct evstore *s, uint64_t i, struct cev *room)
{
	const struct evblock *b = &s->blk[find_block(s, i)];
	bool in_turn = i == evs_run.next;
	evs_run.next = i + 1;
	if (!in_turn) { /* a jump: this one event */
		unpack_at(s, b, i - b->start, room);
		return room;
	}
	size_t j = i - b->start, n = MIN(EVS_RUN, b->n - j);
	unpack_run(s, b, j, n, evs_run.ev);
	evs_run.s = s;
	evs_run.version = s->version;
	evs_run.start = i;
	evs_run.n = n;
	return &evs_run.ev[0];
}

size_t evs_span(const struct evstore *s, uint64_t i, size_t n, const struct cev **at)
{
	struct evs_run *r = &evs_run;
	if (i >= s->npacked) {
		*at = &s->open[i - s->npacked];
		return n;
	}
	if (!(r->s == s && r->version == s->version && i - r->start < r->n)) {
		r->next = i; /* in turn: unpack a run */
		evs_unpack(s, i, NULL);
	}
	r->next = i + 1;
	*at = &r->ev[i - r->start];
	return (size_t)MIN(n, r->start + r->n - i);
}

void evs_copy(const struct evstore *s, uint64_t i, size_t n, struct cev *out)
{
	while (n && i < s->npacked) {
		const struct evblock *b = &s->blk[find_block(s, i)];
		size_t k = (size_t)MIN(n, b->start + b->n - i);
		unpack_run(s, b, i - b->start, k, out);
		i += k, out += k, n -= k;
	}
	if (n)
		memcpy(out, &s->open[i - s->npacked], n * sizeof *out);
}

int64_t evs_ts(const struct evstore *s, uint64_t i)
{
	if (i >= s->npacked)
		return s->open[i - s->npacked].ts;
	const struct evblock *b = &s->blk[find_block(s, i)];
	const uint8_t *bits = s->pool.p + b->data + bits_at(b);
	return (int64_t)((uint64_t)b->ts0 + get_bits(bits, (i - b->start) * b->w, b->wts));
}

void evs_set_dur(struct evstore *s, uint64_t i, uint32_t dur)
{
	if (i >= s->npacked) {
		s->open[i - s->npacked].dur = dur;
		return;
	}
	const struct evblock *b = &s->blk[find_block(s, i)];
	memcpy(s->pool.p + b->data + dur_at(b) + (i - b->start) * 4, &dur, 4);
	/* other threads' runs are stale now; this thread's is mended */
	bool mine = evs_run.s == s && evs_run.version == s->version;
	packed_changed(s);
	if (mine) {
		evs_run.version = s->version;
		if (i - evs_run.start < evs_run.n)
			evs_run.ev[i - evs_run.start].dur = dur;
	}
}

uint64_t evs_bound(const struct evstore *s, const struct cev *key, bool upper)
{
	uint64_t lo = 0, hi = evs_count(s);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		struct cev c;
		evs_get(s, mid, &c);
		if (upper ? !cev_less(key, &c) : cev_less(&c, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t evs_rewrite(const struct evstore *s, const struct cev *a, size_t n)
{
	uint64_t rewritten = 0;
	size_t last = SIZE_MAX, lo = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->nopen && !cev_less(&a[i], &s->open[0])) { /* (the rest land among the open events) */
			rewritten += (s->nopen - cevs_before(s->open, s->nopen, &a[i])) / 8;
			break;
		}
		/* the block it lands in: the last starting at or before its time
		 * (a is sorted: the search starts where the last one ended) */
		size_t hi = s->nblk;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->blk[mid].ts0 <= a[i].ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t blk = lo ? lo - 1 : 0;
		if (s->nblk && blk != last)
			rewritten += s->blk[blk].n;
		last = blk;
	}
	return rewritten;
}

/* (within block b: how many of its events are before t, or at it when upper) */
static size_t block_time_bound(const struct evstore *s, const struct evblock *b, int64_t t, bool upper)
{
	const uint8_t *bits = s->pool.p + b->data + bits_at(b);
	size_t lo = 0, hi = b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t m = (int64_t)((uint64_t)b->ts0 + get_bits(bits, mid * b->w, b->wts));
		if (m < t || (upper && m == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t evs_time_bound(const struct evstore *s, int64_t t, bool upper)
{
	/* the block first, by its first time; then within it (or the open run past the last) */
	size_t lo = 0, hi = s->nblk;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->blk[mid].ts0 < t || (upper && s->blk[mid].ts0 == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		const struct evblock *b = &s->blk[lo - 1];
		size_t j = block_time_bound(s, b, t, upper);
		if (j < b->n || lo < s->nblk)
			return b->start + j;
	} else if (s->nblk) {
		return 0;
	}
	size_t from = 0, to = s->nopen;
	while (from < to) {
		size_t mid = from + (to - from) / 2;
		if (s->open[mid].ts < t || (upper && s->open[mid].ts == t))
			from = mid + 1;
		else
			to = mid;
	}
	return s->npacked + from;
}

/* ---- looking for lanes --------------------------------------------------------- */

/* Is lane lane0 + x one of block b's? */
static bool block_has_lane(const struct evstore *s, const struct evblock *b, uint32_t x)
{
	if (x > b->lspan)
		return false;
	const uint8_t *p = s->pool.p + b->data + lanes_at(b);
	if (lanes_mapped(b))
		return p[x / 8] >> (x % 8) & 1;
	size_t lo = 0, hi = b->nlane;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (get_bits(p, (uint64_t)mid * b->wlane, b->wlane) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nlane && get_bits(p, (uint64_t)lo * b->wlane, b->wlane) == x;
}

/* The first of the set's ids not below lane. */
static size_t ids_from(const struct idset *set, uint32_t lane)
{
	size_t lo = 0, hi = set->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (set->v[mid] < lane)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool block_has_any(const struct evstore *s, const struct evblock *b, const struct idset *set)
{
	for (size_t k = ids_from(set, b->lane0); k < set->n && set->v[k] - b->lane0 <= b->lspan; k++)
		if (block_has_lane(s, b, set->v[k] - b->lane0))
			return true;
	return false;
}

/* The first of events [i, stop) of block b on one of the lanes, else
 * stop; the last of [stop, i), else UINT64_MAX: only their lanes read. */
static uint64_t block_next(const struct evstore *s, const struct evblock *b, uint64_t i, uint64_t stop,
			   const struct idset *set)
{
	const uint8_t *bits = s->pool.p + b->data + bits_at(b);
	uint64_t m = mask(b->wlane), at = (i - b->start) * b->w + b->wts + b->woff;
	for (; i < stop; i++, at += b->w) /* (a lane is at most 24 bits: one load) */
		if (idset_has(set, b->lane0 + (uint32_t)(load(bits, at) & m)))
			return i;
	return stop;
}

static uint64_t block_prev(const struct evstore *s, const struct evblock *b, uint64_t i, uint64_t stop,
			   const struct idset *set)
{
	const uint8_t *bits = s->pool.p + b->data + bits_at(b);
	uint64_t m = mask(b->wlane);
	for (; i > stop; i--)
		if (idset_has(set, b->lane0 + (uint32_t)(load(bits, (i - 1 - b->start) * b->w + b->wts + b->woff) & m)))
			return i - 1;
	return UINT64_MAX;
}

uint64_t evs_lanes_next(const struct evstore *s, uint64_t i, uint64_t end, const struct idset *set)
{
	end = MIN(end, evs_count(s));
	if (!set->n)
		return end;
	for (size_t bi = i < MIN(end, s->npacked) ? find_block(s, i) : 0; i < MIN(end, s->npacked); bi++) {
		const struct evblock *b = &s->blk[bi];
		uint64_t stop = MIN(end, b->start + b->n);
		if (block_has_any(s, b, set) && (i = block_next(s, b, i, stop, set)) < stop)
			return i;
		i = stop;
	}
	for (; i < end; i++)
		if (idset_has(set, cev_lane(&s->open[i - s->npacked])))
			return i;
	return end;
}

uint64_t evs_lanes_prev(const struct evstore *s, uint64_t i, uint64_t begin, const struct idset *set)
{
	i = MIN(i, evs_count(s));
	if (!set->n)
		return UINT64_MAX;
	for (; i > MAX(begin, s->npacked); i--)
		if (idset_has(set, cev_lane(&s->open[i - 1 - s->npacked])))
			return i - 1;
	for (size_t bi = i > begin ? find_block(s, i - 1) : 0; i > begin; bi--) {
		const struct evblock *b = &s->blk[bi];
		uint64_t stop = MAX(begin, b->start), found;
		if (block_has_any(s, b, set) && (found = block_prev(s, b, i, stop, set)) != UINT64_MAX)
			return found;
		i = stop;
	}
	return UINT64_MAX;
}

/* ---- changing the store ------------------------------------------------------ */

/* coarse[] for the positions that blocks b... hold. */
static void index_from(struct evstore *s, size_t b)
{
	xgrow(&s->coarse, &s->capcoarse, s->npacked / HALF + 1, sizeof *s->coarse);
	for (; b < s->nblk; b++) {
		const struct evblock *k = &s->blk[b];
		for (uint64_t q = (k->start + HALF - 1) / HALF; q * HALF < k->start + k->n; q++)
			s->coarse[q] = (uint32_t)b;
	}
}

static int by_data(const void *x, const void *y)
{
	const struct evblock *a = *(struct evblock *const *)x, *b = *(struct evblock *const *)y;
	return (a->data > b->data) - (a->data < b->data);
}

/* Rewritten blocks leave their old bytes behind: when those are a quarter
 * of the pool, slide the blocks down over them, in pool order. */
static void compact(struct evstore *s)
{
	if (s->garbage < (1u << 20) || s->garbage < s->pool.n / 4)
		return;
	struct evblock **order = xcalloc(s->nblk, sizeof *order);
	for (size_t i = 0; i < s->nblk; i++)
		order[i] = &s->blk[i];
	qsort(order, s->nblk, sizeof *order, by_data);
	size_t at = 0;
	for (size_t i = 0; i < s->nblk; i++) {
		size_t bytes = block_bytes(order[i]);
		memmove(s->pool.p + at, s->pool.p + order[i]->data, bytes);
		order[i]->data = at;
		at += bytes;
	}
	free(order);
	s->pool.n = at;
	s->garbage = 0;
}

static void *tmp_room(struct evstore *s, size_t n)
{
	return s->tmp = bigmem_grow(&s->tmp_mem, &s->captmp, n, sizeof *s->tmp);
}

static void push_block(struct evblock **v, size_t *n, size_t *cap, const struct evblock *b)
{
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = *b;
}

/* Pack a[0..n) as blocks of EVS_PACK / 2 to EVS_PACK events. */
static void pack_even(struct evstore *s, const struct cev *a, size_t n, uint64_t start, struct evblock **v, size_t *nv,
		      size_t *cap)
{
	size_t k = (n + EVS_PACK - 1) / EVS_PACK;
	for (size_t i = 0, at = 0; i < k; i++) {
		size_t len = n / k + (i < n % k);
		struct evblock b;
		pack_block(s, &s->pool, a + at, len, start + at, &b);
		push_block(v, nv, cap, &b);
		at += len;
	}
}

size_t cevs_before(const struct cev *a, size_t n, const struct cev *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cev_less(&a[mid], key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last block whose first event is not after key (0 when none). */
static size_t block_for(const struct evstore *s, const struct cev *key)
{
	size_t lo = 1, hi = s->nblk;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct cev f;
		unpack_at(s, &s->blk[mid], 0, &f);
		if (cev_less(key, &f))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 1;
}

/* How many of the sorted t[0..n) are not after key (it goes after them). */
static size_t cevs_upto(const struct cev *t, size_t n, const struct cev *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cev_less(key, &t[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Merge sorted a[0..n) into the block b (its events and a's go to tmp)
 * and pack the result in its place; ins (unless NULL): where each of a
 * goes among the store's events before the merge. */
static void rewrite_block(struct evstore *s, size_t b, const struct cev *a, size_t n, uint64_t start, struct evblock **v,
			  size_t *nv, size_t *cap, uint64_t *ins)
{
	const struct evblock *k = &s->blk[b];
	struct cev *t = tmp_room(s, 2 * (size_t)k->n + n);
	unpack_run(s, k, 0, k->n, t);
	for (size_t i = 0; ins && i < n; i++)
		ins[i] = k->start + cevs_upto(t, k->n, &a[i]);
	cev_merge(t, k->n, a, n, t + k->n);
	s->garbage += block_bytes(k);
	pack_even(s, t + k->n, k->n + n, start, v, nv, cap);
}

/* The index of v among a block's n dictionary values of `size` bytes at
 * p, or -1. */
static long dict_find(const uint8_t *p, size_t n, size_t size, uint64_t v)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = 0;
		memcpy(&x, p + i * size, size);
		if (x == v)
			return (long)i;
	}
	return -1;
}

/* nbits bits of src from bit `from`, written on. */
static void copy_bits(struct bitw *w, const uint8_t *src, uint64_t from, uint64_t nbits)
{
	for (; nbits >= LOAD_BITS; from += LOAD_BITS, nbits -= LOAD_BITS)
		put_bits(w, load(src, from) & mask(LOAD_BITS), LOAD_BITS);
	if (nbits)
		put_bits(w, load(src, from) & mask((unsigned)nbits), (unsigned)nbits);
}

#define INSERT_MAX (EVS_BLOCK - EVS_PACK) /* late events written into a block in place, at most */

/* What a few late events add to a block written in place: where each
 * goes, its dictionaries' indices, and the values and lanes new to it. */
struct insertion {
	size_t at[INSERT_MAX];
	uint16_t ti[INSERT_MAX], ni[INSERT_MAX];
	uint64_t trips[INSERT_MAX];
	uint32_t names[INSERT_MAX], lanes[INSERT_MAX]; /* lanes - lane0 */
	size_t ntrips, nnames, nlanes;
	uint32_t lspan;
};

/* v's index in the block's dictionary (n values of `size` bytes at p)
 * followed by those new ones, added when its index fits `w` bits; -1
 * when it does not. */
static long dict_index_at(const uint8_t *p, size_t n, size_t size, uint64_t v, void *more, size_t *nmore, unsigned w)
{
	long i = dict_find(p, n, size, v);
	if (i >= 0)
		return i;
	i = dict_find(more, *nmore, size, v);
	if (i >= 0)
		return (long)n + i;
	if (width(n + *nmore) > w)
		return -1;
	memcpy((uint8_t *)more + *nmore * size, &v, size);
	return (long)(n + (*nmore)++);
}

/* Whether a[0..n) fit block b as its widths are (its dictionaries and
 * lanes may grow within them), and what they add (*ins).  The cheap
 * questions first, for all of them: most that do not fit fail there. */
static bool fits_block(const struct evstore *s, const struct evblock *b, const struct cev *a, size_t n,
		       struct insertion *ins)
{
	if (n > INSERT_MAX || b->n + n > EVS_BLOCK)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct cev *c = &a[i];
		uint32_t lane = cev_lane(c);
		if (c->ts < b->ts0 || width((uint64_t)c->ts - (uint64_t)b->ts0) > b->wts || cev_off(c) < b->off0 ||
		    width(cev_off(c) - b->off0) > b->woff || lane < b->lane0 || width(lane - b->lane0) > b->wlane)
			return false;
	}
	const uint8_t *d = s->pool.p + b->data;
	ins->ntrips = ins->nnames = ins->nlanes = 0;
	ins->lspan = b->lspan;
	for (size_t i = 0; i < n; i++) {
		const struct cev *c = &a[i];
		long t = dict_index_at(d, b->ntrip, 8, trip_key(c), ins->trips, &ins->ntrips, b->wtrip);
		long m = dict_index_at(d + name_at(b), b->nname, 4, c->name, ins->names, &ins->nnames, b->wname);
		if (t < 0 || m < 0)
			return false;
		ins->ti[i] = (uint16_t)t, ins->ni[i] = (uint16_t)m;
		uint32_t x = cev_lane(c) - b->lane0;
		if (!block_has_lane(s, b, x) && dict_find((const uint8_t *)ins->lanes, ins->nlanes, 4, x) < 0) {
			ins->lanes[ins->nlanes++] = x;
			ins->lspan = MAX(ins->lspan, x);
		}
	}
	for (size_t i = 0; i < n; i++) { /* where each goes: after the events not after it */
		size_t lo = i ? ins->at[i - 1] : 0, hi = b->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			struct cev e;
			unpack_at(s, b, mid, &e);
			if (cev_less(&a[i], &e))
				hi = mid;
			else
				lo = mid + 1;
		}
		ins->at[i] = lo;
	}
	return true;
}

static int by_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* Block b's lanes and the new ones, sorted, written as nb holds them. */
static void write_more_lanes(const struct evstore *s, const struct evblock *b, const struct insertion *ins,
			     const struct evblock *nb, uint8_t *p)
{
	uint32_t *v = xmalloc(((size_t)nb->nlane + 1) * sizeof *v);
	size_t k = 0;
	const uint8_t *old = s->pool.p + b->data + lanes_at(b);
	if (lanes_mapped(b)) {
		for (uint32_t x = 0; x <= b->lspan; x++)
			if (old[x / 8] >> (x % 8) & 1)
				v[k++] = x;
	} else {
		for (size_t i = 0; i < b->nlane; i++)
			v[k++] = (uint32_t)get_bits(old, (uint64_t)i * b->wlane, b->wlane);
	}
	memcpy(v + k, ins->lanes, ins->nlanes * sizeof *v);
	qsort(v, k + ins->nlanes, sizeof *v, by_u32);
	write_lanes(v, nb, p);
	free(v);
}

/* Sorted a[0..n) written into block b when they fit it (fits_block: a
 * few late events among thousands, a fleet followed): the old events'
 * bits copied around theirs, not unpacked and packed again.  The block,
 * moved to start, in *out; ins as for rewrite_block.  False: nothing
 * done. */
static bool insert_in_block(struct evstore *s, size_t bi, const struct cev *a, size_t n, uint64_t start,
			    struct evblock *out, uint64_t *ins)
{
	const struct evblock *b = &s->blk[bi];
	struct insertion *in = s->insertion ? s->insertion : (s->insertion = xmalloc(sizeof *in));
	if (!fits_block(s, b, a, n, in))
		return false;
	struct evblock nb = *b;
	nb.n = (uint16_t)(b->n + n);
	nb.start = start;
	nb.ntrip = (uint16_t)(b->ntrip + in->ntrips);
	nb.nname = (uint16_t)(b->nname + in->nnames);
	nb.nlane = (uint16_t)(b->nlane + in->nlanes);
	nb.lspan = in->lspan;
	nb.data = pool_take(&s->pool, block_bytes(&nb));
	const uint8_t *d = s->pool.p + b->data;
	uint8_t *e = s->pool.p + nb.data;
	memcpy(e, d, (size_t)b->ntrip * 8);
	memcpy(e + (size_t)b->ntrip * 8, in->trips, in->ntrips * 8);
	memcpy(e + name_at(&nb), d + name_at(b), (size_t)b->nname * 4);
	memcpy(e + name_at(&nb) + (size_t)b->nname * 4, in->names, in->nnames * 4);
	struct bitw w = {e + bits_at(&nb), 0, 0};
	for (size_t i = 0, from = 0; i <= n; i++) {
		size_t to = i < n ? in->at[i] : b->n;
		memcpy(e + dur_at(&nb) + (from + i) * 4, d + dur_at(b) + from * 4, (to - from) * 4);
		copy_bits(&w, d + bits_at(b), (uint64_t)from * b->w, (uint64_t)(to - from) * b->w);
		if (i < n) {
			memcpy(e + dur_at(&nb) + (to + i) * 4, &a[i].dur, 4);
			put_record(&w, &nb, &a[i], in->ti[i], in->ni[i]);
			if (ins)
				ins[i] = b->start + to;
		}
		from = to;
	}
	memcpy(w.p, &w.acc, 8);
	/* (after the bits' last word) */
	if (in->nlanes || nb.lspan != b->lspan)
		write_more_lanes(s, b, in, &nb, e + lanes_at(&nb));
	else
		memcpy(e + lanes_at(&nb), d + lanes_at(b), lanes_bytes(b));
	s->garbage += block_bytes(b);
	s->in_place += n;
	*out = nb;
	return true;
}

/* Merge sorted a[0..n), all before the last packed event, into the blocks. */
static void insert_packed(struct evstore *s, const struct cev *a, size_t n, uint64_t *ins)
{
	size_t b0 = block_for(s, &a[0]), nv = 0, cap = 0, j = 0;
	struct evblock *v = NULL, in_place;
	uint64_t start = s->blk[b0].start;
	for (size_t b = b0; b < s->nblk; b++) {
		size_t k = n;
		if (j < n && b + 1 < s->nblk) {
			struct cev f;
			unpack_at(s, &s->blk[b + 1], 0, &f);
			k = j + cevs_before(a + j, n - j, &f);
		}
		if (k == j) {
			struct evblock moved = s->blk[b];
			moved.start = start;
			push_block(&v, &nv, &cap, &moved);
		} else if (insert_in_block(s, b, a + j, k - j, start, &in_place, ins ? ins + j : NULL)) {
			push_block(&v, &nv, &cap, &in_place);
		} else {
			rewrite_block(s, b, a + j, k - j, start, &v, &nv, &cap, ins ? ins + j : NULL);
		}
		start += s->blk[b].n + (k - j);
		j = k;
	}
	s->nblk = b0;
	xgrow(&s->blk, &s->capblk, b0 + nv, sizeof *s->blk);
	memcpy(s->blk + b0, v, nv * sizeof *v);
	s->nblk += nv;
	free(v);
	s->npacked += n;
	index_from(s, b0);
	compact(s);
	packed_changed(s);
}

/* Room for `more` events after the open run. */
static void open_room(struct evstore *s, size_t more)
{
	if (s->open0 + s->nopen + more > s->capopen) {
		/* what was packed is let go in whole pages that hold whole events
		 * (1,024 events in 7 pages), the open run staying where it is */
		size_t page = (size_t)sysconf(_SC_PAGESIZE), g = page, r = sizeof *s->open;
		while (r) { /* (the greatest common divisor) */
			size_t t = g % r;
			g = r;
			r = t;
		}
		size_t unit = page / g, drop = s->open0 / unit * unit;
		if (drop && bigmem_drop_front(&s->open_mem, drop * sizeof *s->open)) {
			s->open0 -= drop;
			s->capopen -= drop;
		} else if (s->open0 && s->open0 >= s->nopen) {
			/* (in a file: moved down once what was packed is as much as
			 * what is left, so each event moves at most once) */
			memmove(s->open_mem.p, s->open, s->nopen * sizeof *s->open);
			s->open0 = 0;
		}
	}
	struct cev *base = bigmem_grow(&s->open_mem, &s->capopen, s->open0 + s->nopen + more, sizeof *s->open);
	s->open = base + s->open0;
}

/* Merge sorted a[0..n), all after the last packed event, into the open
 * run (ins as for rewrite_block, the open run's first event at `base`
 * before the merge); returns how many of its events were behind a's
 * first. */
static size_t merge_open(struct evstore *s, const struct cev *a, size_t n, uint64_t *ins, uint64_t base)
{
	open_room(s, n);
	struct cev *o = s->open;
	size_t i = s->nopen, j = n, k = s->nopen + n;
	/* from the end, in place: what is written never passes what is unread */
	while (j > 0 && i > 0) {
		bool late = cev_less(&a[j - 1], &o[i - 1]);
		if (!late && ins)
			ins[j - 1] = base + i;
		o[--k] = late ? o[--i] : a[--j];
	}
	for (size_t q = 0; ins && q < j; q++)
		ins[q] = base;
	memcpy(o, a, j * sizeof *a);
	s->nopen += n;
	return s->nopen - n - i;
}

void evs_merge(struct evstore *s, const struct cev *a, size_t n, uint64_t *ins)
{
	size_t late = 0;
	uint64_t reach = 0, before = evs_count(s);
	if (n && s->npacked) {
		struct cev last;
		evs_get(s, s->npacked - 1, &last);
		late = cevs_before(a, n, &last);
	}
	uint64_t open_at = s->npacked; /* (before the late ones packed go in) */
	/* How far back late events land decides how much stays open, but a
	 * few reaching far (a quiet thread's batch drained late) cost a block
	 * rewritten each in the packed events: the open run is kept no longer
	 * than EVS_BLOCK events for each late one, which they would rewrite */
	if (late) {
		reach = MIN(before - s->blk[block_for(s, &a[0])].start, (uint64_t)late * EVS_BLOCK);
		insert_packed(s, a, late, ins);
	}
	if (n > late) {
		size_t behind = s->nopen ? cevs_before(a + late, n - late, &s->open[s->nopen - 1]) : 0;
		size_t moved = merge_open(s, a + late, n - late, ins ? ins + late : NULL, open_at);
		reach = MAX(reach, MIN(moved, (uint64_t)behind * EVS_BLOCK));
	}
	s->reach = MAX(s->reach - s->reach / 8, reach);
}

/* (the whole pages inside p[0..n): their bytes are not needed again) */
static void give_back(const void *p, size_t n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + n) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* The open run's first n events packed, EVS_PACK a block (the last may
 * hold fewer); their pages given back at once (the room itself goes when
 * open_room next wants room: late events reaching far back keep a million
 * events open, and that room touched too was 1.7x a source's memory). */
static void pack_open(struct evstore *s, size_t n)
{
	if (!n)
		return;
	size_t b0 = s->nblk;
	xgrow(&s->blk, &s->capblk, s->nblk + (n + EVS_PACK - 1) / EVS_PACK, sizeof *s->blk);
	for (size_t at = 0; at < n; at += EVS_PACK)
		pack_block(s, &s->pool, s->open + at, MIN(EVS_PACK, n - at), s->npacked + at, &s->blk[s->nblk++]);
	s->npacked += n;
	s->nopen -= n;
	give_back(s->open, n * sizeof *s->open);
	s->open += n; /* moved down when room is wanted (open_room) */
	s->open0 += n;
	index_from(s, b0);
	if (!s->version) /* (earlier packed events stay as they were) */
		packed_changed(s);
}

static void pack_keeping(struct evstore *s, size_t keep)
{
	pack_open(s, s->nopen > keep ? (s->nopen - keep) / EVS_PACK * EVS_PACK : 0);
}


void evs_pack(struct evstore *s)
{
	/* the newest events stay unpacked, where late ones usually land:
	 * an eighth of them, or twice as far back as late ones have landed
	 * lately, from EVS_OPEN_MIN to EVS_OPEN_MAX */
	pack_keeping(s, (size_t)MIN(EVS_OPEN_MAX, MAX(MAX(evs_count(s) / 8, 2 * s->reach), EVS_OPEN_MIN)));
}

/* (and the open run's room given back: it may have grown large) */
void evs_lend_packer(struct evstore *s, struct evstore *from)
{
	if (!from->pk)
		from->pk = xcalloc(1, sizeof *from->pk);
	if (!s->pk_lent)
		free(s->pk);
	s->pk = from->pk;
	s->pk_lent = true;
}

void evs_pack_whole(struct evstore *s) { pack_keeping(s, 0); }

/* (the room merges use, given back) */
static void free_tmp(struct evstore *s)
{
	bigmem_free(&s->tmp_mem);
	s->tmp = NULL;
	s->captmp = 0;
}

void evs_pack_all(struct evstore *s)
{
	pack_keeping(s, 0);
	free_tmp(s);
	if (s->capopen <= 2 * EVS_BLOCK)
		return;
	struct bigmem mem = {0};
	size_t cap = 0;
	struct cev *o = bigmem_grow(&mem, &cap, MAX(s->nopen, 1), sizeof *o);
	memcpy(o, s->open, s->nopen * sizeof *o);
	bigmem_free(&s->open_mem);
	s->open_mem = mem;
	s->capopen = cap;
	s->open = o;
	s->open0 = 0;
}

#define SEAL_STEP (8 * EVS_PACK) /* (about half a millisecond) */

bool evs_seal_step(struct evstore *s)
{
	if (s->nopen) { /* (the open run's pages given back as they are packed: no higher peak) */
		pack_open(s, MIN(s->nopen, SEAL_STEP));
		if (s->nopen)
			return false;
	}
	free_tmp(s);
	bigmem_free(&s->open_mem);
	s->open = NULL;
	s->capopen = s->open0 = 0;
	return true;
}

void evs_drain_init(struct evs_drain *d, struct evstore *s)
{
	*d = (struct evs_drain){.s = s};
	if (s->pool.borrowed || !s->nblk)
		return;
	d->least = xmalloc(s->nblk * sizeof *d->least);
	uint64_t least = s->pool.n;
	for (size_t b = s->nblk; b-- > 0;)
		d->least[b] = least = MIN(least, s->blk[b].data);
}

#define DRAIN_STEP (1u << 20) /* (given back a megabyte or more at a time) */

void evs_drain_to(struct evs_drain *d, uint64_t i)
{
	struct evstore *s = d->s;
	if (!d->least)
		return;
	while (d->blk < s->nblk && s->blk[d->blk].start + s->blk[d->blk].n <= i)
		d->blk++;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), used = d->blk < s->nblk ? d->least[d->blk] : s->pool.n;
	size_t to = used / page * page; /* (the pool's mapping starts on a page) */
	if (to < d->given + DRAIN_STEP)
		return;
	madvise(s->pool.p + d->given, to - d->given, MADV_DONTNEED);
	d->given = to;
}

void evs_drain_free(struct evs_drain *d)
{
	free(d->least);
	*d = (struct evs_drain){0};
}

void evs_filter(struct evstore *s, bool (*keep)(void *ctx, const struct cev *c), void *ctx)
{
	struct evstore t = {.pk = s->pk, .pk_lent = s->pk_lent}; /* (what it lends or was lent stays) */
	s->pk = NULL;
	uint64_t n = evs_count(s);
	for (uint64_t i = 0; i < n; i++) {
		struct cev c;
		evs_get(s, i, &c);
		if (!keep(ctx, &c))
			continue;
		open_room(&t, 1);
		t.open[t.nopen++] = c;
		if (t.nopen >= 2 * EVS_OPEN_MAX)
			evs_pack(&t);
	}
	evs_pack(&t);
	evs_free(s);
	*s = t;
}

uint64_t evs_bytes(const struct evstore *s)
{
	return s->pool.n + s->nblk * sizeof *s->blk + s->nopen * sizeof *s->open;
}

void evs_free(struct evstore *s)
{
	free(s->blk);
	free(s->coarse);
	if (!s->pk_lent)
		free(s->pk);
	free(s->insertion);
	bigmem_free(&s->pool.mem);
	bigmem_free(&s->open_mem);
	bigmem_free(&s->tmp_mem);
	*s = (struct evstore){0};
}

/* ---- the saved index ----------------------------------------------------------- */

void evs_save(const struct evstore *s, struct buf *out)
{
	put_array(out, s->blk, s->nblk, sizeof *s->blk);
	put_u64(out, s->garbage);
	put_u64(out, s->reach);
	put_array(out, s->open, s->nopen, sizeof *s->open);
}

static bool cev_valid(const struct cev *c, const struct evs_limits *lim)
{
	return cev_input(c) < lim->inputs && cev_type(c) < lim->types && cev_lane(c) < lim->lanes &&
	       c->name < lim->names;
}

/* A block that lies within the pool, whose widths add up and whose
 * dictionaries name what exists. */
static bool block_valid(const struct evstore *s, const struct evblock *b, uint64_t start, const struct evs_limits *lim)
{
	if (b->start != start || !b->n || b->n > EVS_BLOCK || !b->ntrip || b->ntrip > b->n || !b->nname ||
	    b->nname > b->n || b->wts > 64 || b->woff > OFF_BITS || b->wlane != width(b->lspan) || b->wlane > 24 ||
	    !b->nlane || b->nlane > b->n || b->lspan >= lim->lanes - MIN(b->lane0, lim->lanes) ||
	    b->wtrip != width(b->ntrip - 1u) || b->wname != width(b->nname - 1u) ||
	    b->w != b->wts + b->woff + b->wlane + b->wtrip + b->wname || b->data > s->pool.n ||
	    block_bytes(b) > s->pool.n - b->data || b->lane0 >= lim->lanes)
		return false;
	const uint8_t *d = s->pool.p + b->data;
	for (size_t i = 0; i < b->ntrip; i++) {
		uint64_t k;
		memcpy(&k, d + i * 8, 8);
		if (k >> 24 >= lim->inputs || (k >> 8 & 0xffff) >= lim->types)
			return false;
	}
	for (size_t i = 0; i < b->nname; i++) {
		uint32_t name;
		memcpy(&name, d + name_at(b) + i * 4, 4);
		if (name >= lim->names)
			return false;
	}
	return true;
}

bool evs_restore(struct evstore *s, struct blob *r, uint8_t *pool, size_t npool, const struct evs_limits *lim)
{
	evs_free(s);
	s->pool = (struct evpool){.p = pool, .n = npool, .cap = npool, .borrowed = true};
	s->blk = get_copy(r, &s->nblk, sizeof *s->blk);
	s->capblk = s->nblk;
	s->garbage = get_below(r, npool + 1);
	s->reach = get_u64(r);
	size_t nopen;
	const struct cev *open = get_array(r, &nopen, sizeof *open);
	if (r->bad || s->nblk > UINT32_MAX)
		return false;
	/* (the check reads a few bytes of each block: the caller has the
	 * kernel bring in only those pages, not their usual neighbours) */
	bool valid = true;
	for (size_t i = 0; valid && i < s->nblk; i++) {
		valid = block_valid(s, &s->blk[i], s->npacked, lim);
		s->npacked += s->blk[i].n;
	}
	if (!valid)
		return false;
	if (nopen) {
		open_room(s, nopen);
		memcpy(s->open, open, nopen * sizeof *open);
	}
	s->nopen = nopen;
	for (size_t i = 0; i < nopen; i++)
		if (!cev_valid(&s->open[i], lim) || (i && cev_less(&s->open[i], &s->open[i - 1])))
			return false;
	index_from(s, 0);
	packed_changed(s);
	return true;
}
