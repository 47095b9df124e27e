/* Unit tests of the packed event store against a plain sorted array:
 * appends, late batches landing in the middle and at the front, hostile
 * times and offsets (fields of 64 and 36 bits), blocks with thousands of
 * distinct names and lanes, durations written in place, bounds by event
 * and by time, looks for a few lanes, filtering, and giving back what a
 * reading has passed. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "src/evstore.h"
#include "src/util.h"
#include "t/tap.h"

static uint64_t rng = 99;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static struct evstore s;
static struct cev *ref;
static size_t nref, serial;

static int cmp(const void *x, const void *y)
{
	const struct cev *a = x, *b = y;
	return cev_less(a, b) ? -1 : cev_less(b, a);
}

static bool same(const struct cev *a, const struct cev *b)
{
	return a->ts == b->ts && a->loc == b->loc && a->dur == b->dur && a->name == b->name && a->lanef == b->lanef;
}

enum kind { APPEND, MIDDLE, FRONT, HOSTILE, VARIED, FEW };

/* A time in [lo, hi] from r, without overflow. */
static int64_t between(int64_t lo, int64_t hi, uint64_t r)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	return (int64_t)((uint64_t)lo + (span ? r % span : r));
}

static struct cev make(enum kind k, int64_t lo, int64_t hi)
{
	struct cev c = {0};
	uint64_t r = rnd();
	if (k == FEW && nref) { /* late, near an event of the same file, lane, type and name (a fleet followed) */
		c = ref[r % nref]; /* (all else the same: two copies the same in all are in either order) */
		c.ts = c.ts < INT64_MAX - 1000 ? c.ts + 1 + (int64_t)(r >> 40) % 1000 : c.ts;
		return c;
	}
	switch (k) {
	case APPEND: c.ts = hi + (int64_t)(r % 1000); break;
	case MIDDLE: c.ts = between(lo, hi, r); break;
	case FRONT: c.ts = lo - 1 - (int64_t)(r % 10); break;
	case HOSTILE: c.ts = r % 3 == 0 ? INT64_MIN + (int64_t)(r >> 40) : r % 3 == 1 ? INT64_MAX - (int64_t)(r >> 40) : (int64_t)r; break;
	case VARIED:
	case FEW: c.ts = between(lo, hi, r); break;
	}
	/* offsets unique per event; the hostile ones up to 2^36 - 1 */
	uint64_t off = k == HOSTILE && r % 2 ? ((1ull << OFF_BITS) - 1 - serial) : serial;
	serial++;
	uint64_t input = k == VARIED ? r % 4096 : r % 3, type = k == VARIED ? rnd() % 65536 : r % 5;
	c.loc = input << (OFF_BITS + TYPE_BITS) | off << TYPE_BITS | type;
	c.name = k == VARIED ? (uint32_t)rnd() : (uint32_t)(r >> 50) % 20;
	c.lanef = (k == VARIED ? (uint32_t)rnd() % (1u << 24) : (uint32_t)(r >> 30) % 7) << 8 | (uint32_t)(r >> 20) % 256;
	c.dur = r % 4 ? 0xffffffffu : (uint32_t)(r >> 8);
	return c;
}

static void merge_made(enum kind k, int64_t lo, int64_t hi, size_t n);
static bool places_said = true; /* each merged event's place among the old ones, as evs_merge said it */

static void merge_batch(enum kind k, size_t n)
{
	int64_t lo = nref ? ref[0].ts : 0, hi = nref ? ref[nref - 1].ts : 1000;
	if (k == FRONT && lo < INT64_MIN + 20)
		k = MIDDLE;
	if (k == APPEND && hi > INT64_MAX - 1000)
		k = MIDDLE;
	merge_made(k, lo, hi, n);
}

/* n events of kind k between lo and hi merged into the store (and ref). */
static void merge_made(enum kind k, int64_t lo, int64_t hi, size_t n)
{
	struct cev *a = malloc(n * sizeof *a);
	for (size_t i = 0; i < n; i++)
		a[i] = make(k, lo, hi);
	qsort(a, n, sizeof *a, cmp);
	uint64_t *ins = malloc(n * sizeof *ins);
	evs_merge(&s, a, n, ins);
	for (size_t i = 0, before = 0; i < n; i++) { /* (a sorted: its places do not go back) */
		while (before < nref && !cev_less(&a[i], &ref[before]))
			before++;
		places_said &= ins[i] == before;
	}
	free(ins);
	struct cev *both = malloc((nref + n) * sizeof *both);
	cev_merge(ref, nref, a, n, both);
	free(ref);
	ref = both;
	nref += n;
	free(a);
}

static bool agrees(void)
{
	if (evs_count(&s) != nref)
		return false;
	for (size_t i = 0; i < nref; i++) {
		struct cev c;
		evs_get(&s, i, &c);
		if (!same(&c, &ref[i]) || evs_ts(&s, i) != ref[i].ts)
			return false;
	}
	return true;
}

static bool bounds_agree(void)
{
	if (nref && (evs_time_bound(&s, ref[0].ts - 1, true) != 0 ||
		     evs_time_bound(&s, ref[nref - 1].ts + 1, false) != nref))
		return false; /* (before the first, after the last) */
	for (int k = 0; k < 200 && nref; k++) {
		const struct cev *key = &ref[rnd() % nref];
		size_t lo = 0, up = 0, tlo = 0, tup = 0;
		while (lo < nref && cev_less(&ref[lo], key))
			lo++;
		up = lo + 1;
		while (tlo < nref && ref[tlo].ts < key->ts)
			tlo++;
		for (tup = tlo; tup < nref && ref[tup].ts == key->ts;)
			tup++;
		if (evs_bound(&s, key, false) != lo || evs_bound(&s, key, true) != up ||
		    evs_time_bound(&s, key->ts, false) != tlo || evs_time_bound(&s, key->ts, true) != tup)
			return false;
	}
	return true;
}

/* A few lanes in any order, maybe twice, some the store has, some not. */
static size_t some_lanes(uint32_t *v)
{
	size_t n = 1 + rnd() % 4;
	for (size_t i = 0; i < n; i++)
		v[i] = rnd() % 2 || !nref ? (uint32_t)rnd() % 9 : cev_lane(&ref[rnd() % nref]);
	return n;
}

static bool among(uint32_t lane, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == lane)
			return true;
	return false;
}

/* The next and previous events on a few lanes, as a look at every event
 * finds them (near and far, into the open run and from it). */
static bool lanes_agree(void)
{
	for (int k = 0; k < 100 && nref; k++) {
		uint32_t v[4];
		size_t n = some_lanes(v), i = rnd() % (nref + 1), reach = k % 25 ? rnd() % 20000 : nref;
		size_t end = i + MIN(reach, nref - i), begin = i - MIN(reach, i), next = end;
		uint64_t prev = UINT64_MAX;
		for (size_t j = i; j < end && next == end; j++)
			if (among(cev_lane(&ref[j]), v, n))
				next = j;
		for (size_t j = i; j > begin && prev == UINT64_MAX; j--)
			if (among(cev_lane(&ref[j - 1]), v, n))
				prev = j - 1;
		struct idset set;
		idset_make(&set, v, n);
		bool agree = evs_lanes_next(&s, i, end, &set) == next && evs_lanes_prev(&s, i, begin, &set) == prev;
		idset_free(&set);
		if (!agree)
			return false;
	}
	return true;
}

static void set_durs(void)
{
	for (int k = 0; k < 500 && nref; k++) {
		size_t i = rnd() % nref;
		ref[i].dur = (uint32_t)rnd();
		evs_set_dur(&s, i, ref[i].dur);
	}
}

static bool odd_name(void *ctx, const struct cev *c)
{
	(void)ctx;
	return c->name % 2;
}

/* Pages of [p, p + bytes) (p on a page) in memory. */
static size_t resident(const uint8_t *p, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (bytes + page - 1) / page, in = 0;
	unsigned char *vec = malloc(n ? n : 1);
	if (mincore((void *)p, bytes, vec))
		return SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

/* A store read once in order (a merge that consumes it): what lies
 * before the reading's place goes back, and everything after it still
 * reads as it was, blocks rewritten out of place by late events too. */
static void test_drain(void)
{
	s = (struct evstore){0};
	nref = 0;
	merge_batch(APPEND, 600000);
	evs_pack_all(&s);
	/* late events in the middle's block: it is written again at the
	 * pool's end, past the blocks after it */
	size_t half = nref / 2;
	merge_made(MIDDLE, ref[half].ts, ref[half].ts, 10);
	struct evs_drain d;
	evs_drain_init(&d, &s);
	for (size_t i = 0; i <= half; i += 1000)
		evs_drain_to(&d, i);
	bool after = true;
	for (size_t i = half; i < nref && after; i++) {
		struct cev c;
		evs_copy(&s, i, 1, &c);
		after = same(&c, &ref[i]);
	}
	ok(d.given >= (1u << 20) && resident(s.pool.p, d.given) == 0 && after,
	   "drained to the middle: %zu KB of %zu given back, the rest reads as it was", d.given >> 10,
	   s.pool.n >> 10);
	evs_drain_to(&d, nref);
	ok(resident(s.pool.p, d.given) == 0 && d.given + (1u << 20) + 4096 > s.pool.n,
	   "... and to the end: all but the last megabyte");
	evs_drain_free(&d);
	evs_free(&s);
}

/* The open run after a batch of `late` events spread over the store's
 * first half, then more appended and packed: how many stay unpacked. */
static size_t open_after_late(size_t late)
{
	enum { N = 1200000, STEP = 65536 };
	struct evstore st = {0};
	struct cev *a = xcalloc(STEP, sizeof *a);
	size_t at = 0;
	for (int round = 0; round < 2; round++) {
		for (size_t end = at + N / 2; at < end; at += STEP) {
			for (size_t i = 0; i < STEP; i++)
				a[i] = (struct cev){.ts = (int64_t)(at + i) * 10, .loc = (uint64_t)(at + i) << TYPE_BITS,
						    .name = 1, .lanef = 1u << 8};
			evs_merge(&st, a, STEP, NULL);
			evs_pack(&st);
		}
		for (size_t i = 0; round == 0 && i < late; i++) /* (between two events: offsets past the rest) */
			a[i] = (struct cev){.ts = (int64_t)(i * (N / 2 / late)) * 10 + 5, .loc = (uint64_t)(N + i) << TYPE_BITS,
					    .name = 1, .lanef = 1u << 8};
		if (round == 0)
			evs_merge(&st, a, late, NULL);
	}
	size_t open = st.nopen;
	evs_free(&st);
	free(a);
	return open;
}

static void test_open_run(void)
{
	size_t few = open_after_late(3), many = open_after_late(50000);
	ok(few <= EVS_OPEN_MIN + 65536,
	   "3 late events reaching far back: the open run stays short (%zu events unpacked)", few);
	ok(many > few + 65536, "50,000 of them: it is kept longer, for more such (%zu events unpacked)", many);
}

int main(void)
{
	static const char *kinds[] = {"appended", "in the middle", "at the front", "hostile", "varied", "a few late"};
	static const enum kind order[] = {APPEND, APPEND, MIDDLE, FEW, APPEND, FRONT, MIDDLE, FEW, VARIED, APPEND,
					  HOSTILE, FEW, MIDDLE, FRONT, APPEND, FEW};
	bool all = true, sealed = true;
	for (size_t r = 0; r < 3 * ARRAY_LEN(order); r++) {
		enum kind k = order[r % ARRAY_LEN(order)];
		/* more than EVS_OPEN_MIN events: most of them packed */
		size_t n = k == APPEND ? 1 + rnd() % 150000 : k == FEW ? 1 + rnd() % 300 : 1 + rnd() % 40000;
		if (k == FEW) /* (landing among packed events) */
			evs_pack_whole(&s);
		merge_batch(k, n);
		if (r % 2)
			evs_pack(&s);
		set_durs();
		bool good = agrees() && bounds_agree() && lanes_agree();
		if (!good || r < ARRAY_LEN(order))
			ok(good, "batch %zu of %zu events %s: every event, bound, written duration and look for lanes agrees",
			   r, n, kinds[k]);
		all &= good;
		if (r % 7 == 6) { /* sealed as if read to its end; the next batches merge into it all the same */
			while (!evs_seal_step(&s))
				;
			sealed &= s.nopen == 0 && agrees() && bounds_agree() && lanes_agree();
		}
	}
	ok(sealed, "sealed: every event packed (the last block however few it holds), all agree, and merges go on");
	ok(all, "%zu events in %zu merges agree with a sorted array", nref, 3 * ARRAY_LEN(order));
	ok(places_said, "each merged event's place among the events before it is said (packed ones and the open run)");
	ok(s.in_place > 0, "a few late events among packed ones are written into their blocks in place (%llu of them)",
	   (unsigned long long)s.in_place);
	ok(evs_bytes(&s) < nref * sizeof(struct cev), "packed: %.1f bytes per event (hostile and varied ones included)",
	   (double)evs_bytes(&s) / (double)nref);

	evs_filter(&s, odd_name, NULL);
	size_t k = 0;
	for (size_t i = 0; i < nref; i++)
		if (ref[i].name % 2)
			ref[k++] = ref[i];
	nref = k;
	ok(agrees() && bounds_agree() && lanes_agree(), "filtered: %zu events kept, in order", nref);

	evs_free(&s);
	free(ref);
	ref = NULL;
	test_drain();
	test_open_run();
	free(ref);
	return done_testing();
}
