#include "src/model.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "src/bigmem.h"
#include "src/blob.h"
#include "src/evstore.h"
#include "src/hmap.h"
#include "src/util.h"

/* ---- compact events ------------------------------------------------------ */

_Static_assert(TTV_OFF_LIMIT == 1ull << OFF_BITS && TTV_INPUT_LIMIT == 1u << IN_BITS, "limits match the packing");
#define DUR_NONE 0xffffffffu
#define DUR_LONG 0xf0000000u
#define MAX_LANES (1u << 24)
#define NO_EXAMPLE UINT32_MAX /* struct event.input of a type none of whose events was added */

static inline enum ev_role cev_role(const struct cev *c) { return (enum ev_role)(c->lanef & EVF_ROLE); }

/* ---- the model ----------------------------------------------------------- */

struct seqent {
	const struct seq_ops *ops;
	void *ctx;
};

/* A position in the merge of all sequences: idx[s] events of sequence s
 * come before `pos`.  Sequence 0 is the compact array.  Kept at hand,
 * so that a step forward asks the sequences for one time, not all: each
 * one's count and the time of the event at idx[s] (valid when idx[s] <
 * n[s]); one allocation, idx's. */
struct cursor {
	uint64_t pos;
	uint64_t *idx, *n;
	int64_t *head;
	bool valid;
};

/* Pairing state saved at a position, so late events can be re-paired from
 * there instead of from the start. */
struct snap {
	uint64_t pos;
	uint64_t *data; /* lane, depth, positions... for every lane with depth > 0 */
	size_t n;
};

#define SNAP_EVERY 65536
#define SNAP_MAX 32
#define MATCH_DEPTH 64
#define STACK_MAX (1u << 20)

/* Room a sort works in (one per thread that sorts). */
struct sortbuf {
	struct cev *scratch;
	size_t capscratch;
	uint64_t *rkeys; /* radix_sort's keys */
	size_t caprkeys;
	struct bigmem scratch_mem, rkeys_mem;
};

/* A lane's spans: the longest seen and the pairing stack.  The committer's
 * while it runs, so apart from struct lane (which the main thread writes
 * as it adds events): the two threads never write one cache line. */
struct lane_pairs {
	/* the LONG_SPANS longest spans seen, and the longest of all others */
	struct long_span *longest;
	uint8_t nlongest;
	uint64_t other_max;
	/* pairing stack (begin positions): the spans still open */
	uint64_t *stk;
	size_t cap;
	uint32_t depth;
};

/* What a batch of added events holds. */
struct batch_kind {
	bool pairs; /* begins or ends */
	bool spans; /* complete spans (with a duration) */
};

struct type_seen {
	struct event ex; /* .input NO_EXAMPLE: none yet */
	uint64_t count;
};

struct model {
	struct strtab *st;

	struct lane *lanes;
	size_t nlanes, caplanes;
	struct lane_pairs *lp; /* by lane, as lanes */
	size_t caplp;
	uint64_t lane_renames; /* views that measured names measure again */
	struct hmap raw_names;  /* a name shown (demangled) -> the name as written */
	uint32_t *lane_slot; /* hash (source, key) -> lane id + 1 */
	size_t nlane_slot;

	struct type *types;
	size_t ntypes, captypes;
	uint32_t *type_slot; /* hash of the type's identity -> type id + 1 */
	size_t ntype_slot;
	/* by type: the first event of it added (model_examples), and how many
	 * of its events the compact array holds (model_type_count) */
	struct type_seen *seen;
	size_t capseen;

	struct evstore store; /* committed, in time order */
	struct cev *pend;     /* added, not yet committed */
	size_t npend, cappend;
	struct bigmem pend_mem; /* where pend lives */
	/* model_commit_some(): pend, sorted, is merged, paired and packed on
	 * another thread meanwhile (the committer), which then owns the store,
	 * the pairing state (lanes' stacks and long spans, snapshots), the long
	 * durations and the cursors; what is added in that time waits in next.
	 * Anything else that would touch those, or grow the lane or type
	 * tables, waits for it first (finish_commit). */
	pthread_t commit_thread;
	bool committing;
	struct batch_kind sealed; /* what the events being committed hold */
	struct cev *next;
	size_t nnext, capnext;
	struct bigmem next_mem;
	struct sortbuf sort_main, sort_committer; /* each thread's room to sort in */
	_Atomic bool commit_done; /* the committer has finished its batch */
	bool sealed_sorted;       /* the batch it was given is sorted already */
	uint64_t *longdur;
	size_t nlong, caplong;
	uint64_t reach_seen; /* the store's reach after the last commit (model_late_reach) */

	bool have_span;
	int64_t first, last;
	bool has_pairs; /* some committed event is a begin or an end */
	struct batch_kind tail; /* what the events added since the last commit hold */

	struct snap snaps[SNAP_MAX];
	size_t nsnaps;

	struct seqent *seqs; /* [0] is the compact array */
	size_t nseqs, capseqs;
	struct cursor cur[2];
	unsigned cur_next;

	uint64_t generation;
	uint64_t changed_from; /* lowest position changed since model_take_changed() */
	uint64_t serial;       /* model_serial() */
};

static const struct seq_ops compact_ops;
static void finish_commit(struct model *m);
static void release_sortbuf(struct sortbuf *b, uint64_t events);

struct model *model_new(void)
{
	static uint64_t models;
	struct model *m = xcalloc(1, sizeof *m);
	m->serial = __atomic_add_fetch(&models, 1, __ATOMIC_RELAXED);
	m->st = strtab_new();
	/* type 0: what an event gets when the type table is full */
	model_type(m, &(struct type){.name = strtab_intern_cstr(m->st, "(unknown type)")});
	xgrow(&m->seqs, &m->capseqs, 1, sizeof *m->seqs);
	m->seqs[0] = (struct seqent){&compact_ops, m};
	m->nseqs = 1;
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	if (m->committing) /* a commit under way uses pend and the store */
		pthread_join(m->commit_thread, NULL);
	for (size_t i = 0; i < m->nlanes; i++) {
		free(m->lp[i].stk);
		free(m->lp[i].longest);
	}
	for (size_t i = 0; i < m->nsnaps; i++)
		free(m->snaps[i].data);
	free(m->cur[0].idx);
	free(m->cur[1].idx);
	hmap_free(&m->raw_names);
	free(m->lanes);
	free(m->lp);
	free(m->lane_slot);
	free(m->types);
	free(m->type_slot);
	free(m->seen);
	evs_free(&m->store);
	bigmem_free(&m->pend_mem);
	bigmem_free(&m->next_mem);
	release_sortbuf(&m->sort_main, 0);
	release_sortbuf(&m->sort_committer, 0);
	free(m->longdur);
	free(m->seqs);
	strtab_free(m->st);
	free(m);
}

struct strtab *model_strings(struct model *m) { return m->st; }
uint32_t model_str(struct model *m, const void *p, size_t n) { return strtab_intern(m->st, p, n); }
const char *model_strget(const struct model *m, uint32_t id, size_t *len) { return strtab_get(m->st, id, len); }

/* ---- lanes ---------------------------------------------------------------- */

static uint64_t lane_hash(uint32_t source, uint64_t key) { return hash_bytes(&key, 8) ^ (source * 0x9e3779b97f4a7c15ull); }

static void lane_rehash(struct model *m)
{
	size_t n = m->nlane_slot ? m->nlane_slot * 2 : 256;
	uint32_t *s = xcalloc(n, sizeof *s);
	for (size_t id = 0; id < m->nlanes; id++) {
		size_t i = lane_hash(m->lanes[id].source, m->lanes[id].key) & (n - 1);
		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)id + 1;
	}
	free(m->lane_slot);
	m->lane_slot = s;
	m->nlane_slot = n;
}

uint32_t model_lane(struct model *m, uint32_t source, uint64_t key, uint32_t name)
{
	if (!m->nlane_slot)
		lane_rehash(m);
	size_t mask = m->nlane_slot - 1, i = lane_hash(source, key) & mask;
	for (; m->lane_slot[i]; i = (i + 1) & mask) {
		struct lane *l = &m->lanes[m->lane_slot[i] - 1];
		if (l->source == source && l->key == key)
			return m->lane_slot[i] - 1;
	}
	if (m->nlanes >= MAX_LANES - 1)
		return (uint32_t)m->nlanes - 1; /* full: share the last lane rather than fail */
	finish_commit(m); /* (the committer reads the table) */
	xgrow(&m->lanes, &m->caplanes, m->nlanes + 1, sizeof *m->lanes);
	m->lanes[m->nlanes] = (struct lane){.name = name, .source = source, .key = key};
	xgrow(&m->lp, &m->caplp, m->nlanes + 1, sizeof *m->lp);
	m->lp[m->nlanes] = (struct lane_pairs){0};
	m->lane_slot[i] = (uint32_t)++m->nlanes;
	if (m->nlanes * 2 > m->nlane_slot)
		lane_rehash(m);
	return (uint32_t)m->nlanes - 1;
}

void model_lane_set_counter(struct model *m, uint32_t lane)
{
	if (lane < m->nlanes)
		m->lanes[lane].counter = true;
}

void model_lane_rename(struct model *m, uint32_t lane, uint32_t name)
{
	if (lane < m->nlanes && m->lanes[lane].name != name) {
		m->lanes[lane].name = name;
		m->lane_renames++;
	}
}

uint64_t model_lane_renames(const struct model *m) { return m->lane_renames; }

void model_name_alias(struct model *m, uint32_t shown, uint32_t raw)
{
	if (shown != raw)
		hmap_put(&m->raw_names, shown, raw);
}

uint32_t model_name_raw(const struct model *m, uint32_t shown)
{
	uint64_t v;
	return m->raw_names.n && hmap_get(&m->raw_names, shown, &v) ? (uint32_t)v : shown;
}

uint32_t model_nlanes(const struct model *m) { return (uint32_t)m->nlanes; }
const struct lane *model_lane_get(const struct model *m, uint32_t lane) { return lane < m->nlanes ? &m->lanes[lane] : NULL; }
static inline void lane_span(struct lane *l, int64_t first, int64_t last)
{
	if (!l->has_span || first < l->first)
		l->first = first;
	if (!l->has_span || last > l->last)
		l->last = last;
	l->has_span = true;
}

void model_lane_count(struct model *m, uint32_t lane, uint64_t n, int64_t first, int64_t last)
{
	if (lane >= m->nlanes)
		return;
	m->lanes[lane].count += n;
	if (n)
		lane_span(&m->lanes[lane], first, last);
	m->lp[lane].other_max = UINT64_MAX; /* its spans are the sequence's: no bound on them is known */
}

void model_lane_uncount(struct model *m, uint32_t lane, uint64_t n)
{
	if (lane < m->nlanes)
		m->lanes[lane].count -= MIN(n, m->lanes[lane].count);
}

/* ---- types ---------------------------------------------------------------- */

static bool type_eq(const struct type *a, const struct type *b)
{
	return a->owner == b->owner && a->source == b->source && a->name == b->name && a->category == b->category &&
	       a->role == b->role && a->pair == b->pair && a->name_field == b->name_field && a->keyed == b->keyed &&
	       a->grouped == b->grouped;
}

static size_t type_hash(const struct type *t)
{
	uint64_t k[5] = {(uint64_t)(uintptr_t)t->owner, t->source, (uint64_t)t->name << 32 | t->category,
			 (uint64_t)t->pair << 32 | t->name_field, t->role};
	return (size_t)hash_bytes(k, sizeof k);
}

static void type_rehash(struct model *m)
{
	size_t n = m->ntype_slot ? m->ntype_slot * 2 : 256;
	uint32_t *s = xcalloc(n, sizeof *s);
	for (size_t id = 0; id < m->ntypes; id++) {
		size_t i = type_hash(&m->types[id]) & (n - 1);
		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)id + 1;
	}
	free(m->type_slot);
	m->type_slot = s;
	m->ntype_slot = n;
}

uint32_t model_type(struct model *m, const struct type *t)
{
	if (!m->ntype_slot)
		type_rehash(m);
	size_t mask = m->ntype_slot - 1, i = type_hash(t) & mask;
	for (; m->type_slot[i]; i = (i + 1) & mask)
		if (type_eq(&m->types[m->type_slot[i] - 1], t))
			return m->type_slot[i] - 1;
	if (m->ntypes >= (1u << TYPE_BITS))
		return 0;
	finish_commit(m); /* (the committer reads the table) */
	xgrow(&m->types, &m->captypes, m->ntypes + 1, sizeof *m->types);
	xgrow(&m->seen, &m->capseen, m->ntypes + 1, sizeof *m->seen);
	m->types[m->ntypes] = *t;
	m->seen[m->ntypes] = (struct type_seen){.ex = {.type = (uint32_t)m->ntypes, .input = NO_EXAMPLE}};
	m->type_slot[i] = (uint32_t)++m->ntypes;
	if (m->ntypes * 2 > m->ntype_slot)
		type_rehash(m);
	return (uint32_t)m->ntypes - 1;
}

uint32_t model_ntypes(const struct model *m) { return (uint32_t)m->ntypes; }
const struct type *model_type_get(const struct model *m, uint32_t type) { return &m->types[type < m->ntypes ? type : 0]; }

/* ---- durations ------------------------------------------------------------ */

static uint32_t dur_encode(struct model *m, uint64_t d)
{
	if (d == TTV_NODUR)
		return DUR_NONE;
	if (d < DUR_LONG)
		return (uint32_t)d;
	if (m->nlong >= DUR_NONE - DUR_LONG)
		return DUR_LONG - 1; /* side table full: clamp (never happens in practice) */
	xgrow(&m->longdur, &m->caplong, m->nlong + 1, sizeof *m->longdur);
	m->longdur[m->nlong] = d;
	return DUR_LONG + (uint32_t)m->nlong++;
}

static inline uint64_t dur_decode(const struct model *m, uint32_t v)
{
	if (v == DUR_NONE)
		return TTV_NODUR;
	if (v >= DUR_LONG) /* (checked: a saved index's durations are not trusted) */
		return v - DUR_LONG < m->nlong ? m->longdur[v - DUR_LONG] : TTV_NODUR;
	return v;
}

/* Keep the lane's longest spans; anything else only raises other_max. */
static void note_span(struct lane_pairs *l, int64_t ts, uint64_t dur, uint64_t loc)
{
	if (!l->longest)
		l->longest = xcalloc(LONG_SPANS, sizeof *l->longest);
	struct cev c = {.loc = loc};
	struct long_span s = {ts, dur, cev_input(&c), cev_off(&c)};
	for (uint8_t i = 0; i < l->nlongest; i++)
		if (l->longest[i].ts == s.ts && l->longest[i].input == s.input && l->longest[i].off == s.off) {
			/* re-paired: drop the old entry and place it again */
			memmove(l->longest + i, l->longest + i + 1, (size_t)(l->nlongest - i - 1) * sizeof s);
			l->nlongest--;
			break;
		}
	uint8_t at = l->nlongest;
	while (at > 0 && l->longest[at - 1].dur < dur)
		at--;
	if (at == LONG_SPANS) {
		l->other_max = MAX(l->other_max, dur);
		return;
	}
	if (l->nlongest == LONG_SPANS)
		l->other_max = MAX(l->other_max, l->longest[LONG_SPANS - 1].dur);
	else
		l->nlongest++;
	memmove(l->longest + at + 1, l->longest + at, (size_t)(l->nlongest - 1 - at) * sizeof s);
	l->longest[at] = s;
}

size_t model_lane_longest(const struct model *m, uint32_t lane, const struct long_span **out, uint64_t *rest)
{
	if (lane >= m->nlanes) {
		*rest = 0;
		return 0;
	}
	*out = m->lp[lane].longest;
	*rest = m->lp[lane].other_max;
	return m->lp[lane].nlongest;
}

size_t model_lane_open(const struct model *m, uint32_t lane, const uint64_t **pos)
{
	if (lane >= m->nlanes)
		return 0;
	*pos = m->lp[lane].stk;
	return m->lp[lane].depth;
}

/* ---- adding and committing ------------------------------------------------ */

/* Where an added event goes: after the pending ones, or while they are
 * committed (model_commit_some), into next. */
static struct cev *add_slot(struct model *m)
{
	if (UNLIKELY(m->committing)) {
		if (m->nnext == m->capnext)
			m->next = bigmem_grow(&m->next_mem, &m->capnext, m->nnext + 1, sizeof *m->next);
		return &m->next[m->nnext++];
	}
	if (UNLIKELY(m->npend == m->cappend))
		m->pend = bigmem_grow(&m->pend_mem, &m->cappend, m->npend + 1, sizeof *m->pend);
	return &m->pend[m->npend++];
}

void model_add(struct model *m, const struct event *e)
{
	if (UNLIKELY(e->dur >= DUR_LONG && e->dur != TTV_NODUR))
		finish_commit(m); /* a long duration goes in the committer's table */
	struct cev *c = add_slot(m);
	uint32_t type = e->type < m->ntypes ? e->type : 0;
	uint32_t lane = e->lane < m->nlanes ? e->lane : 0;
	c->ts = e->ts;
	c->loc = (uint64_t)(e->input & ((1u << IN_BITS) - 1)) << (OFF_BITS + TYPE_BITS) |
		 (e->off & ((1ull << OFF_BITS) - 1)) << TYPE_BITS | type;
	c->dur = LIKELY(e->dur < DUR_LONG) ? (uint32_t)e->dur : dur_encode(m, e->dur);
	c->name = e->name;
	c->lanef = lane << 8 | (e->flags & 0xff);
	if ((e->flags & EVF_ROLE) >= ROLE_BEGIN)
		m->tail.pairs = true;
	struct type_seen *seen = &m->seen[type];
	if (UNLIKELY(seen->ex.input == NO_EXAMPLE)) {
		seen->ex = *e;
		seen->ex.type = type;
		seen->ex.seq = 0;
	}
	seen->count++;
	struct lane *l = m->nlanes ? &m->lanes[lane] : NULL;
	if (l)
		l->count++;
	if ((e->flags & EVF_ROLE) == ROLE_COMPLETE && e->dur != TTV_NODUR)
		m->tail.spans = true; /* noted among the lane's long spans when committed */
	if (!(e->flags & EVF_META)) {
		/* the timeline reaches the end of a complete span, not just its start */
		bool whole = (e->flags & EVF_ROLE) == ROLE_COMPLETE && e->dur != TTV_NODUR;
		int64_t end = whole ? ts_add(e->ts, e->dur) : e->ts;
		if (l)
			lane_span(l, e->ts, end);
		if (!m->have_span || e->ts < m->first)
			m->first = e->ts;
		if (!m->have_span || end > m->last)
			m->last = end;
		m->have_span = true;
	}
}

uint64_t model_pending(const struct model *m) { return m->committing ? m->nnext : m->npend; }

/* (the store's own figure belongs to the committer while it runs: this is
 * the one its last commit left) */
uint64_t model_late_reach(const struct model *m) { return m->reach_seen; }

static struct cev *scratch(struct sortbuf *b, size_t n)
{
	return b->scratch = bigmem_grow(&b->scratch_mem, &b->capscratch, n, sizeof *b->scratch);
}

/* Give back a sort's room when it is big beside `events` (0: always);
 * else keep it for the next commit (a fresh one costs page faults). */
static void release_sortbuf(struct sortbuf *b, uint64_t events)
{
	if (!events || (b->capscratch * sizeof *b->scratch > (16u << 20) && b->capscratch > events / 4)) {
		bigmem_free(&b->scratch_mem);
		bigmem_free(&b->rkeys_mem);
		*b = (struct sortbuf){0};
	}
}

/* Decoders deliver events mostly in order (a few records a little late, as
 * from a ring buffer shared by CPUs).  Insertion sort handles that in one
 * pass.  Records that belong far back (batches that overlap in time, as
 * dial9 writes them) are left where they are, so that what insertion sort
 * leaves is a few long runs; a natural merge sort then merges them. */
#define INSERTION_REACH 256
static bool insertion_sort(struct cev *a, size_t n)
{
	size_t run = 0; /* where the current run starts */
	for (size_t i = 1; i < n; i++) {
		if (!cev_less(&a[i], &a[i - 1]))
			continue;
		struct cev x = a[i];
		size_t lo = i > run + INSERTION_REACH ? i - INSERTION_REACH : run;
		if (cev_less(&x, &a[lo])) {
			run = i; /* far back: leave it, it starts a run for the merge sort */
			continue;
		}
		size_t j = i;
		while (j > lo && cev_less(&x, &a[j - 1])) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
	return run == 0;
}

static int cev_cmp(const void *x, const void *y)
{
	const struct cev *a = x, *b = y;
	return cev_less(a, b) ? -1 : cev_less(b, a);
}

/* Batches far out of order (podtrace events placed at their start, scopes
 * written when they end): an LSD radix sort of (time, index) by the bits
 * in which the batch's times differ, 11 at a time, then one gather.  Equal
 * times keep the batch's order; runs of them are put in file order after. */
#define RADIX_BITS 8
/* Keys x[0, n) sorted stably by their bits [from, to), least significant
 * digit first, tmp as room; the sorted keys end in x. */
static void lsd_sort(uint64_t *x, uint64_t *tmp, size_t n, unsigned from, unsigned to)
{
	uint64_t *k = x, *o = tmp;
	for (unsigned shift = from; shift < to; shift += RADIX_BITS) {
		size_t count[1u << RADIX_BITS] = {0};
		for (size_t i = 0; i < n; i++)
			count[k[i] >> shift & ((1u << RADIX_BITS) - 1)]++;
		size_t sum = 0;
		for (size_t d = 0; d < ARRAY_LEN(count); d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			o[count[k[i] >> shift & ((1u << RADIX_BITS) - 1)]++] = k[i];
		uint64_t *t = k;
		k = o;
		o = t;
	}
	if (k != x)
		memcpy(x, k, n * sizeof *x);
}

/* By time, stably: the times less the batch's least in the high bits of
 * 8-byte keys, the events' places in the low.  First by the times' top
 * RADIX_BITS into buckets small enough to stay in cache, then each bucket
 * by the rest, least significant digit first (all of it that way when
 * the times differ in few bits).  False when the keys do not fit (a batch
 * spanning years): the caller sorts otherwise. */
static bool radix_sort(struct sortbuf *b, struct cev *a, size_t n)
{
	int64_t lo = a[0].ts, hi = a[0].ts;
	for (size_t i = 1; i < n; i++) {
		lo = MIN(lo, a[i].ts);
		hi = MAX(hi, a[i].ts);
	}
	unsigned ibits = 1, tbits = 0;
	while (ibits < 64 && (size_t)1 << ibits < n)
		ibits++;
	uint64_t range = (uint64_t)hi - (uint64_t)lo;
	while (tbits < 64 && range >> tbits)
		tbits++;
	if (ibits + tbits > 64)
		return false;
	b->rkeys = bigmem_grow(&b->rkeys_mem, &b->caprkeys, 2 * n, sizeof *b->rkeys);
	uint64_t *k = b->rkeys, *o = b->rkeys + n;
	for (size_t i = 0; i < n; i++)
		k[i] = ((uint64_t)a[i].ts - (uint64_t)lo) << ibits | i;
	if (tbits <= 3 * RADIX_BITS) {
		lsd_sort(k, o, n, ibits, ibits + tbits);
	} else { /* the top digit: into buckets */
		unsigned top = ibits + tbits - RADIX_BITS;
		size_t start[(1u << RADIX_BITS) + 1] = {0};
		for (size_t i = 0; i < n; i++)
			start[(k[i] >> top) + 1]++;
		for (size_t d = 1; d <= 1u << RADIX_BITS; d++)
			start[d] += start[d - 1];
		size_t at[1u << RADIX_BITS];
		memcpy(at, start, sizeof at);
		for (size_t i = 0; i < n; i++)
			o[at[k[i] >> top]++] = k[i];
		for (size_t d = 0; d < 1u << RADIX_BITS; d++)
			lsd_sort(o + start[d], k + start[d], start[d + 1] - start[d], ibits, top);
		k = o;
	}
	struct cev *tmp = scratch(b, n);
	uint64_t imask = ((uint64_t)1 << ibits) - 1;
	for (size_t i = 0; i < n; i++)
		tmp[i] = a[k[i] & imask];
	memcpy(a, tmp, n * sizeof *a);
	for (size_t g = 0, h; g < n; g = h) { /* equal times: by file position */
		bool ordered = true;
		for (h = g + 1; h < n && a[h].ts == a[g].ts; h++)
			ordered &= a[h - 1].loc < a[h].loc;
		if (!ordered)
			qsort(a + g, h - g, sizeof *a, cev_cmp);
	}
	return true;
}

static void sort_events(struct sortbuf *b, struct cev *a, size_t n)
{
	/* how far out of order: judged by the batch's first events */
	size_t descents = 0, probe = MIN(n, 8192);
	for (size_t i = 1; i < probe; i++)
		descents += cev_less(&a[i], &a[i - 1]);
	if (descents > probe / 64 && radix_sort(b, a, n))
		return;
	if (insertion_sort(a, n))
		return;
	/* the runs' starts, found once; then merge neighbours pass after pass */
	size_t *run = NULL, nrun = 0, caprun = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || cev_less(&a[i], &a[i - 1])) {
			xgrow(&run, &caprun, nrun + 2, sizeof *run);
			run[nrun++] = i;
		}
	run[nrun] = n;
	struct cev *tmp = scratch(b, n);
	struct cev *src = a, *dst = tmp;
	while (nrun > 1) {
		size_t k = 0;
		for (size_t r = 0; r < nrun; r += 2) {
			size_t s = run[r], mid = run[MIN(r + 1, nrun)], e = run[MIN(r + 2, nrun)];
			cev_merge(src + s, mid - s, src + mid, e - mid, dst + s);
			run[k++] = s;
		}
		run[k] = n;
		nrun = k;
		struct cev *t = src;
		src = dst;
		dst = t;
	}
	free(run);
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

static inline uint64_t nev(const struct model *m) { return evs_count(&m->store); }
static inline struct cev ev_at(const struct model *m, uint64_t i)
{
	struct cev c;
	evs_get(&m->store, i, &c);
	return c;
}

/* ---- span pairing --------------------------------------------------------- */

static bool compatible(const struct model *m, const struct cev *b, const struct cev *e)
{
	const struct type *bt = &m->types[cev_type(b)];
	if (bt->pair && bt->pair != cev_type(e))
		return false;
	return !b->name || !e->name || b->name == e->name;
}

static void set_dur(struct model *m, uint64_t i, uint64_t d) { evs_set_dur(&m->store, i, dur_encode(m, d)); }

static bool cev_keyed(const struct model *m, const struct cev *c) { return m->types[cev_type(c)].keyed; }
/* A keyed end its decoder paired: its dur is the distance to its begin. */
static bool cev_hinted(const struct model *m, const struct cev *c)
{
	return (cev_flags(c) & EVF_MARK) && cev_keyed(m, c) && c->dur != DUR_NONE;
}

/* A span closed at stack entry j: what was above stays unpaired, except
 * the begins of keyed types (they wait for their own ends). */
static void stack_close(const struct model *m, struct lane_pairs *l, uint32_t j)
{
	uint32_t k = j;
	for (uint32_t i = j + 1; i < l->depth; i++) {
		struct cev b = ev_at(m, l->stk[i]);
		if (cev_keyed(m, &b))
			l->stk[k++] = l->stk[i];
	}
	l->depth = k;
}

/* The stack entry of keyed end e's begin (-1: none): the one its dur
 * points back to, or else the latest compatible one of another input.
 * The stack holds begins in time order. */
static int64_t keyed_begin(const struct model *m, const struct lane_pairs *l, const struct cev *e)
{
	if (cev_hinted(m, e)) {
		int64_t t = (int64_t)((uint64_t)e->ts - dur_decode(m, e->dur));
		uint32_t lo = 0, hi = l->depth;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (evs_ts(&m->store, l->stk[mid]) < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t j = lo; j < l->depth; j++) {
			struct cev b = ev_at(m, l->stk[j]);
			if (b.ts != t)
				break;
			if (cev_input(&b) == cev_input(e) && compatible(m, &b, e))
				return j;
		}
		return -1;
	}
	uint32_t lim = l->depth > MATCH_DEPTH ? l->depth - MATCH_DEPTH : 0;
	for (uint32_t j = l->depth; j-- > lim;) {
		struct cev b = ev_at(m, l->stk[j]);
		if (cev_input(&b) != cev_input(e) && compatible(m, &b, e))
			return j;
	}
	return -1;
}

/* Keyed end e, at position i. */
static void pair_keyed(struct model *m, struct lane_pairs *l, const struct cev *e, uint64_t i)
{
	int64_t j = keyed_begin(m, l, e);
	if (j < 0)
		return;
	struct cev b = ev_at(m, l->stk[j]);
	uint64_t d = (uint64_t)e->ts - (uint64_t)b.ts;
	set_dur(m, l->stk[j], d);
	if (!cev_hinted(m, e))
		set_dur(m, i, d);
	note_span(l, b.ts, d, b.loc);
	memmove(l->stk + j, l->stk + j + 1, (l->depth - (size_t)j - 1) * sizeof *l->stk);
	l->depth--;
}

/* End e, at position i: pair it with the latest compatible begin. */
static void pair_end(struct model *m, struct lane_pairs *l, const struct cev *e, uint64_t i)
{
	uint32_t lim = l->depth > MATCH_DEPTH ? l->depth - MATCH_DEPTH : 0;
	for (uint32_t j = l->depth; j-- > lim;) {
		struct cev b = ev_at(m, l->stk[j]);
		if (!compatible(m, &b, e))
			continue;
		uint64_t d = (uint64_t)e->ts - (uint64_t)b.ts; /* e comes later: exact, even for hostile times */
		set_dur(m, l->stk[j], d);
		set_dur(m, i, d);
		note_span(l, b.ts, d, b.loc);
		stack_close(m, l, j);
		return;
	}
}

static void snap_take(struct model *m, uint64_t pos);

/* Pair the begins and ends from position from on; `again`: they were
 * paired before late events came (what they were paired with is let go). */
static void pair_range(struct model *m, uint64_t from, bool again)
{
	if (!m->has_pairs)
		return; /* nothing to pair: skip the scan */
	uint64_t next = (m->nsnaps ? m->snaps[m->nsnaps - 1].pos : 0) + SNAP_EVERY, n = nev(m);
	for (uint64_t i = from; i < n; i++) {
		if (UNLIKELY(i >= next)) { /* snapshots as we go: late events re-pair from near them */
			snap_take(m, i);
			next = m->snaps[m->nsnaps - 1].pos + SNAP_EVERY;
		}
		struct cev room;
		const struct cev *e = evs_peek(&m->store, i, &room);
		enum ev_role r = cev_role(e);
		if (r != ROLE_BEGIN && r != ROLE_END)
			continue;
		if (again && e->dur != DUR_NONE && !cev_hinted(m, e))
			evs_set_dur(&m->store, i, DUR_NONE); /* (e's other fields stay) */
		struct lane_pairs *l = &m->lp[cev_lane(e)];
		if (r == ROLE_BEGIN) {
			if (l->depth < STACK_MAX) {
				xgrow(&l->stk, &l->cap, l->depth + 1, sizeof *l->stk);
				l->stk[l->depth++] = i;
			}
		} else if (UNLIKELY(cev_keyed(m, e))) {
			pair_keyed(m, l, e, i);
		} else {
			pair_end(m, l, e, i);
		}
	}
}

/* Save the stacks as the state before position pos.  When the table is
 * full, the older half is thinned: snapshots stay dense near the end (where
 * late events usually land) and sparse further back. */
static void snap_take(struct model *m, uint64_t pos)
{
	uint64_t last = m->nsnaps ? m->snaps[m->nsnaps - 1].pos : 0;
	if (pos - last < SNAP_EVERY)
		return;
	if (m->nsnaps == SNAP_MAX) {
		size_t k = 0;
		for (size_t i = 0; i < SNAP_MAX; i++) {
			if (i < SNAP_MAX / 2 && i % 2) {
				free(m->snaps[i].data);
				continue;
			}
			m->snaps[k++] = m->snaps[i];
		}
		m->nsnaps = k;
	}
	struct snap *s = &m->snaps[m->nsnaps++];
	*s = (struct snap){.pos = pos};
	size_t cap = 0;
	for (size_t li = 0; li < m->nlanes; li++) {
		const struct lane_pairs *l = &m->lp[li];
		if (!l->depth)
			continue;
		xgrow(&s->data, &cap, s->n + 2 + l->depth, sizeof *s->data);
		s->data[s->n++] = li;
		s->data[s->n++] = l->depth;
		memcpy(s->data + s->n, l->stk, l->depth * sizeof *l->stk);
		s->n += l->depth;
	}
}

/* Late events landed at position p, before already paired events: re-pair
 * from the last snapshot at or before p. */
static void repair_from(struct model *m, uint64_t p)
{
	while (m->nsnaps && m->snaps[m->nsnaps - 1].pos > p)
		free(m->snaps[--m->nsnaps].data);
	const struct snap *s = m->nsnaps ? &m->snaps[m->nsnaps - 1] : NULL;
	uint64_t from = s ? s->pos : 0;
	for (size_t li = 0; li < m->nlanes; li++)
		m->lp[li].depth = 0;
	for (size_t i = 0; s && i < s->n;) {
		struct lane_pairs *l = &m->lp[s->data[i]];
		uint32_t depth = (uint32_t)s->data[i + 1];
		i += 2;
		xgrow(&l->stk, &l->cap, depth, sizeof *l->stk);
		for (uint32_t j = 0; j < depth; j++) {
			l->stk[j] = s->data[i + j];
			evs_set_dur(&m->store, l->stk[j], DUR_NONE);
		}
		l->depth = depth;
		i += depth;
	}
	pair_range(m, from, true);
}

/* A position in the pairing stacks or the snapshots that late events will
 * move: the event it names, to find it again after the merge. */
struct held {
	uint64_t *where;
	struct cev key;
	bool after; /* the position just after key (a snapshot at the old end) */
};

static void hold(struct held **h, size_t *n, size_t *cap, const struct model *m, uint64_t *where, uint64_t old)
{
	xgrow(h, cap, *n + 1, sizeof **h);
	(*h)[(*n)++] = (struct held){where, ev_at(m, *where < old ? *where : old - 1), *where >= old};
}

/* Late events will be merged in at p, moving the committed events at
 * [p, old) up.  Hold every position at or after p that the stacks and the
 * snapshots keep, so that they follow their events: then late events that
 * neither begin nor end a span (a thread's samples, symbols at time 0)
 * need no re-pairing. */
static size_t hold_moved(struct model *m, uint64_t p, uint64_t old, struct held **h)
{
	size_t n = 0, cap = 0;
	for (size_t li = 0; li < m->nlanes; li++) {
		struct lane_pairs *l = &m->lp[li];
		for (uint32_t j = 0; j < l->depth; j++)
			if (l->stk[j] >= p)
				hold(h, &n, &cap, m, &l->stk[j], old);
	}
	for (size_t s = 0; s < m->nsnaps; s++) {
		struct snap *sn = &m->snaps[s];
		if (sn->pos < p)
			continue;
		hold(h, &n, &cap, m, &sn->pos, old); /* the state before an event stays before it */
		for (size_t i = 0; i < sn->n;) {
			uint64_t depth = sn->data[i + 1];
			for (uint64_t k = 0; k < depth; k++)
				if (sn->data[i + 2 + k] >= p)
					hold(h, &n, &cap, m, &sn->data[i + 2 + k], old);
			i += 2 + depth;
		}
	}
	return n;
}

/* Merge the pending events, sorted, before the last committed one; keep
 * the positions held in the stacks and snapshots on their events and
 * pair what changed. */
static void merge_late(struct model *m, struct batch_kind k)
{
	uint64_t old = nev(m), p = evs_bound(&m->store, &m->pend[0], true);
	struct cev last_old = ev_at(m, old - 1);
	m->changed_from = MIN(m->changed_from, m->nseqs == 1 ? p : 0);
	/* the first late begin or end: pairing changes from there on */
	struct cev first_pair = {0};
	bool late_pairs = false;
	for (size_t i = 0; k.pairs && i < m->npend && cev_less(&m->pend[i], &last_old); i++)
		if (cev_role(&m->pend[i]) >= ROLE_BEGIN) {
			first_pair = m->pend[i];
			late_pairs = true;
			break;
		}
	struct held *held = NULL;
	size_t nheld = hold_moved(m, p, old, &held);
	evs_merge(&m->store, m->pend, m->npend);
	for (size_t i = 0; i < nheld; i++)
		*held[i].where = evs_bound(&m->store, &held[i].key, false) + held[i].after;
	free(held);
	m->generation++;
	if (late_pairs)
		repair_from(m, evs_bound(&m->store, &first_pair, false));
	else /* nothing late pairs: pair what is new after the last old event */
		pair_range(m, evs_bound(&m->store, &last_old, false) + 1, false);
}

/* Merge the pending events, sorted, into place, pair and note their long
 * spans. */
static void merge_sorted(struct model *m, struct batch_kind k)
{
	if (!m->npend)
		return;
	m->has_pairs |= k.pairs;
	for (size_t i = 0; k.spans && i < m->npend; i++) {
		const struct cev *c = &m->pend[i];
		if (cev_role(c) == ROLE_COMPLETE && c->dur != DUR_NONE)
			note_span(&m->lp[cev_lane(c)], c->ts, dur_decode(m, c->dur), c->loc);
	}
	uint64_t old = nev(m);
	/* (with sequences, compact positions are not global ones) */
	m->changed_from = MIN(m->changed_from, m->nseqs == 1 ? old : 0);
	struct cev last = old ? ev_at(m, old - 1) : (struct cev){0};
	if (old && cev_less(&m->pend[0], &last)) {
		merge_late(m, k);
	} else {
		evs_merge(&m->store, m->pend, m->npend);
		pair_range(m, old, false);
	}
	m->npend = 0;
	snap_take(m, nev(m));
	m->cur[0].valid = m->cur[1].valid = false;
}

/* The pending events, sorted (what k says they hold), merged, paired, and
 * the open run packed. */
static void commit_sorted(struct model *m, struct batch_kind k)
{
	merge_sorted(m, k);
	evs_pack(&m->store);
}

/* On the committer thread (while the main thread decodes on). */
static void *committer(void *arg)
{
	struct model *m = arg;
	if (!m->sealed_sorted)
		sort_events(&m->sort_committer, m->pend, m->npend);
	commit_sorted(m, m->sealed);
	atomic_store_explicit(&m->commit_done, true, memory_order_release);
	return NULL;
}

/* The commit under way done: what was added meanwhile becomes pending. */
static void finish_commit(struct model *m)
{
	if (!m->committing)
		return;
	pthread_join(m->commit_thread, NULL);
	m->committing = false;
	m->reach_seen = m->store.reach;
	release_sortbuf(&m->sort_committer, nev(m));
	struct cev *p = m->pend;
	size_t cap = m->cappend;
	struct bigmem mem = m->pend_mem;
	m->pend = m->next, m->cappend = m->capnext, m->pend_mem = m->next_mem, m->npend = m->nnext;
	m->next = p, m->capnext = cap, m->next_mem = mem, m->nnext = 0;
}

/* The events added so far, as the committer will take them. */
static struct batch_kind seal(struct model *m)
{
	struct batch_kind k = m->tail;
	m->tail = (struct batch_kind){0};
	return k;
}

void model_commit(struct model *m)
{
	finish_commit(m);
	sort_events(&m->sort_main, m->pend, m->npend);
	release_sortbuf(&m->sort_main, nev(m) + m->npend);
	commit_sorted(m, seal(m));
}

void model_sync(struct model *m) { finish_commit(m); }

/* Who sorts a batch balances the two threads: when the committer is still
 * busy with the last one, this thread sorts the next meanwhile (decoding
 * is the lighter side); when it is idle, it sorts too. */
void model_commit_some(struct model *m)
{
	bool sorted = m->committing && !atomic_load_explicit(&m->commit_done, memory_order_acquire);
	if (sorted)
		sort_events(&m->sort_main, m->next, m->nnext);
	finish_commit(m);
	if (!m->npend)
		return;
	release_sortbuf(&m->sort_main, nev(m) + m->npend);
	m->sealed = seal(m);
	m->sealed_sorted = sorted;
	m->commit_done = false;
	m->committing = !pthread_create(&m->commit_thread, NULL, committer, m);
	if (!m->committing) { /* no thread to be had: commit here */
		if (!sorted)
			sort_events(&m->sort_main, m->pend, m->npend);
		commit_sorted(m, m->sealed);
	}
}

/* ---- the compact array as sequence 0 -------------------------------------- */

static uint64_t c_count(void *ctx) { return nev(ctx); }
static int64_t c_ts(void *ctx, uint64_t i) { return evs_ts(&((struct model *)ctx)->store, i); }
static uint64_t c_lower(void *ctx, int64_t t) { return evs_time_bound(&((struct model *)ctx)->store, t, false); }
static uint64_t c_upper(void *ctx, int64_t t) { return evs_time_bound(&((struct model *)ctx)->store, t, true); }

static inline void cev_event(const struct model *m, const struct cev *c, struct event *e)
{
	e->ts = c->ts;
	e->dur = dur_decode(m, c->dur);
	e->lane = cev_lane(c);
	e->type = cev_type(c);
	e->name = c->name;
	e->flags = cev_flags(c);
	e->input = cev_input(c);
	e->off = cev_off(c);
}

static void c_get(void *ctx, uint64_t i, struct event *e)
{
	const struct model *m = ctx;
	struct cev room;
	cev_event(m, evs_at(&m->store, i, &room), e);
}

static const struct seq_ops compact_ops = {c_count, c_ts, c_lower, c_upper, c_get, NULL};

/* ---- sequences and the global order --------------------------------------- */

uint32_t model_add_seq(struct model *m, const struct seq_ops *ops, void *ctx)
{
	finish_commit(m);
	xgrow(&m->seqs, &m->capseqs, m->nseqs + 1, sizeof *m->seqs);
	m->seqs[m->nseqs] = (struct seqent){ops, ctx};
	for (int i = 0; i < 2; i++) {
		free(m->cur[i].idx); /* (and n and head) */
		m->cur[i] = (struct cursor){0};
	}
	m->generation++;
	m->changed_from = 0;
	return (uint32_t)m->nseqs++;
}

struct dropping {
	struct model *m;
	uint32_t input;
};

static bool keep_input(void *ctx, const struct cev *c)
{
	struct dropping *d = ctx;
	if (cev_input(c) != d->input)
		return true;
	struct lane *l = &d->m->lanes[cev_lane(c)];
	if (l->count)
		l->count--;
	d->m->seen[cev_type(c)].count--;
	return false;
}

uint64_t model_drop_input(struct model *m, uint32_t input)
{
	model_commit(m);
	uint64_t n = nev(m);
	evs_filter(&m->store, keep_input, &(struct dropping){m, input});
	uint64_t dropped = n - nev(m);
	if (!dropped)
		return 0;
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->seen[i].ex.input == input)
			m->seen[i].ex.input = NO_EXAMPLE; /* the next one added takes its place */
	/* pair again from scratch, and forget long spans that may be gone */
	for (size_t i = 0; i < m->nlanes; i++)
		m->lp[i].nlongest = 0;
	while (m->nsnaps)
		free(m->snaps[--m->nsnaps].data);
	repair_from(m, 0);
	evs_pack(&m->store);
	n = nev(m);
	for (uint64_t i = 0; i < n; i++) {
		struct cev c = ev_at(m, i);
		if (cev_role(&c) == ROLE_COMPLETE && c.dur != DUR_NONE)
			note_span(&m->lp[cev_lane(&c)], c.ts, dur_decode(m, c.dur), c.loc);
	}
	m->cur[0].valid = m->cur[1].valid = false;
	m->generation++;
	m->changed_from = 0;
	return dropped;
}

void model_seq_changed(struct model *m)
{
	finish_commit(m);
	m->cur[0].valid = m->cur[1].valid = false;
	m->generation++;
	m->changed_from = 0;
}

uint64_t model_take_changed(struct model *m)
{
	uint64_t p = MIN(m->changed_from, model_count(m));
	m->changed_from = UINT64_MAX;
	return p;
}

uint64_t model_generation(const struct model *m) { return m->generation; }

uint64_t model_serial(const struct model *m) { return m->serial; }

#define SEQ(m, s, op, ...) ((m)->seqs[s].ops->op((m)->seqs[s].ctx, ##__VA_ARGS__))

uint64_t model_type_count(const struct model *m, uint32_t type)
{
	return type < m->ntypes ? m->seen[type].count : 0;
}

bool model_type_meta(const struct model *m, uint32_t type)
{
	return type < m->ntypes && m->seen[type].ex.input != NO_EXAMPLE && m->seen[type].ex.flags & EVF_META;
}

void model_examples(struct model *m, void (*fn)(void *ctx, const struct event *e), void *ctx)
{
	model_sync(m);
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->seen[i].ex.input != NO_EXAMPLE)
			fn(ctx, &m->seen[i].ex);
	for (uint32_t s = 1; s < m->nseqs; s++)
		if (SEQ(m, s, count)) {
			struct event e = {0};
			SEQ(m, s, get, 0, &e);
			e.seq = s;
			fn(ctx, &e);
		}
}

uint64_t model_count(const struct model *m)
{
	uint64_t n = nev(m);
	for (size_t s = 1; s < m->nseqs; s++)
		n += SEQ(m, s, count);
	return n;
}

/* The least recently chosen cursor, to be placed anew. */
static struct cursor *cursor_slot(struct model *m)
{
	struct cursor *c = &m->cur[m->cur_next];
	m->cur_next ^= 1;
	if (!c->idx) {
		c->idx = xcalloc(3 * m->nseqs, sizeof *c->idx);
		c->n = c->idx + m->nseqs;
		c->head = (int64_t *)(c->idx + 2 * m->nseqs);
	}
	return c;
}

static void cursor_head_of(struct model *m, struct cursor *c, size_t s)
{
	if (c->idx[s] < c->n[s])
		c->head[s] = SEQ(m, s, ts, c->idx[s]);
}

/* The cursor placed (idx and pos set): what it keeps at hand. */
static void cursor_placed(struct model *m, struct cursor *c)
{
	for (size_t s = 0; s < m->nseqs; s++) {
		c->n[s] = SEQ(m, s, count);
		cursor_head_of(m, c, s);
	}
	c->valid = true;
}

uint64_t model_seek(struct model *m, int64_t t)
{
	if (m->nseqs == 1)
		return c_lower(m, t);
	/* a cursor there too: reading on from a seek needs no bisection */
	struct cursor *c = cursor_slot(m);
	c->pos = 0;
	for (size_t s = 0; s < m->nseqs; s++)
		c->pos += c->idx[s] = SEQ(m, s, lower, t);
	cursor_placed(m, c);
	return c->pos;
}

/* Place cursor c at global position p by bisection on time: find the
 * smallest t with more than p events at or before t. */
static void cursor_bisect(struct model *m, struct cursor *c, uint64_t p)
{
	/* the time of event p lies between the earliest and the latest time
	 * of the sequences: bisect there, not over all 64 bits */
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t s = 0; s < m->nseqs; s++) {
		uint64_t n = SEQ(m, s, count);
		if (n) {
			lo = MIN(lo, SEQ(m, s, ts, 0));
			hi = MAX(hi, SEQ(m, s, ts, n - 1));
		}
	}
	if (lo > hi)
		lo = hi = 0; /* no events */
	while (lo < hi) {
		int64_t mid = (lo & hi) + ((lo ^ hi) >> 1); /* floor average, no overflow */
		uint64_t le = 0;
		for (size_t s = 0; s < m->nseqs; s++)
			le += SEQ(m, s, upper, mid);
		if (le > p)
			hi = mid;
		else
			lo = mid + 1;
	}
	uint64_t before = 0;
	for (size_t s = 0; s < m->nseqs; s++)
		before += (c->idx[s] = SEQ(m, s, lower, lo));
	uint64_t r = p - before;
	for (size_t s = 0; s < m->nseqs; s++) {
		uint64_t same = SEQ(m, s, upper, lo) - c->idx[s];
		if (r < same) {
			c->idx[s] += r;
			break;
		}
		c->idx[s] += same;
		r -= same;
	}
	c->pos = p;
	cursor_placed(m, c);
}

/* The sequence holding the event at the cursor (the smallest head). */
static size_t cursor_head(const struct model *m, const struct cursor *c)
{
	size_t best = SIZE_MAX;
	for (size_t s = 0; s < m->nseqs; s++)
		if (c->idx[s] < c->n[s] && (best == SIZE_MAX || c->head[s] < c->head[best]))
			best = s;
	return best;
}

/* (A sequence that breaks its time order, read back from a damaged saved
 * index, can leave a position with no record at it: NO_HEAD.  Its answers
 * are wrong, never a read outside the sequences.) */
#define NO_HEAD SIZE_MAX

static void cursor_forth(struct model *m, struct cursor *c)
{
	size_t s = cursor_head(m, c);
	c->pos++;
	if (s == NO_HEAD)
		return;
	c->idx[s]++;
	cursor_head_of(m, c, s);
}

static void cursor_back(struct model *m, struct cursor *c)
{
	size_t best = SIZE_MAX;
	int64_t bt = 0;
	for (size_t s = 0; s < m->nseqs; s++) {
		if (!c->idx[s])
			continue;
		int64_t t = SEQ(m, s, ts, c->idx[s] - 1);
		if (best == SIZE_MAX || t >= bt)
			best = s, bt = t;
	}
	c->pos--;
	if (best == NO_HEAD)
		return;
	c->idx[best]--;
	c->head[best] = bt;
}

#define STEP_LIMIT 4096

static struct cursor *cursor_at(struct model *m, uint64_t p)
{
	struct cursor *c = NULL;
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 2; i++) {
		struct cursor *k = &m->cur[i];
		if (!k->valid)
			continue;
		uint64_t d = k->pos > p ? k->pos - p : p - k->pos;
		if (d < best)
			best = d, c = k;
	}
	if (!c || best > STEP_LIMIT) {
		c = cursor_slot(m);
		cursor_bisect(m, c, p);
		return c;
	}
	while (c->pos < p)
		cursor_forth(m, c);
	while (c->pos > p)
		cursor_back(m, c);
	return c;
}

void model_get(struct model *m, uint64_t pos, struct event *e)
{
	if (m->nseqs == 1) {
		c_get(m, pos, e);
		e->seq = 0;
		e->pos = pos;
		return;
	}
	struct cursor *c = cursor_at(m, pos);
	size_t s = cursor_head(m, c);
	if (s == NO_HEAD) {
		*e = (struct event){.ts = m->last, .dur = TTV_NODUR, .flags = EVF_DAMAGED, .input = UINT32_MAX, .pos = pos};
		return;
	}
	SEQ(m, s, get, c->idx[s], e);
	e->seq = (uint32_t)s;
	e->pos = pos;
}

void model_read(struct model *m, uint64_t pos, size_t n, struct event *e)
{
	if (m->nseqs != 1) {
		for (size_t k = 0; k < n; k++)
			model_get(m, pos + k, &e[k]);
		return;
	}
	while (n) {
		const struct cev *c;
		size_t k = evs_span(&m->store, pos, n, &c);
		for (size_t j = 0; j < k; j++, e++) {
			cev_event(m, &c[j], e);
			e->seq = 0;
			e->pos = pos++;
		}
		n -= k;
	}
}

bool model_get_shared(const struct model *m) { return m->nseqs == 1; }

int64_t model_ts(struct model *m, uint64_t pos)
{
	if (m->nseqs == 1)
		return evs_ts(&m->store, pos);
	struct cursor *c = cursor_at(m, pos);
	size_t s = cursor_head(m, c);
	return s == NO_HEAD ? m->last : SEQ(m, s, ts, c->idx[s]);
}

bool model_find(struct model *m, int64_t ts, uint32_t input, uint64_t off, uint64_t *pos)
{
	uint64_t n = model_count(m);
	struct event e;
	for (uint64_t p = model_seek(m, ts); p < n; p++) {
		model_get(m, p, &e);
		if (e.ts != ts)
			break;
		if (e.input == input && e.off == off) {
			*pos = p;
			return true;
		}
	}
	return false;
}

/* Global position of record j of sequence s. */
static uint64_t pos_of(struct model *m, size_t s, uint64_t j)
{
	int64_t t = SEQ(m, s, ts, j);
	uint64_t p = j;
	for (size_t o = 0; o < m->nseqs; o++) {
		if (o < s)
			p += SEQ(m, o, upper, t);
		else if (o > s)
			p += SEQ(m, o, lower, t);
	}
	return p;
}

static bool compact_partner(struct model *m, uint64_t i, uint64_t *j)
{
	struct cev e = ev_at(m, i);
	enum ev_role r = cev_role(&e);
	if ((r != ROLE_BEGIN && r != ROLE_END) || e.dur == DUR_NONE)
		return false;
	uint64_t d = dur_decode(m, e.dur), n = nev(m);
	int64_t t = (int64_t)(r == ROLE_BEGIN ? (uint64_t)e.ts + d : (uint64_t)e.ts - d);
	enum ev_role want = r == ROLE_BEGIN ? ROLE_END : ROLE_BEGIN;
	for (uint64_t k = evs_time_bound(&m->store, t, false); k < n; k++) {
		struct cev o = ev_at(m, k);
		if (o.ts != t)
			break;
		if (cev_role(&o) == want && cev_lane(&o) == cev_lane(&e) && dur_decode(m, o.dur) == d &&
		    compatible(m, r == ROLE_BEGIN ? &e : &o, r == ROLE_BEGIN ? &o : &e)) {
			*j = k;
			return true;
		}
	}
	return false;
}

uint64_t model_seq_pos(struct model *m, uint32_t seq, uint64_t j)
{
	return m->nseqs == 1 ? j : pos_of(m, seq, j);
}

bool model_partner(struct model *m, uint64_t pos, uint64_t *other)
{
	struct event e;
	model_get(m, pos, &e);
	uint64_t j;
	if (e.seq == 0) {
		uint64_t i = m->nseqs == 1 ? pos : cursor_at(m, pos)->idx[0];
		if (!compact_partner(m, i, &j))
			return false;
	} else {
		const struct seqent *se = &m->seqs[e.seq];
		if (!se->ops->partner || !se->ops->partner(se->ctx, e.off, &j))
			return false;
	}
	*other = m->nseqs == 1 ? j : pos_of(m, e.seq, j);
	return true;
}

bool model_span(const struct model *m, int64_t *first, int64_t *last)
{
	bool have = m->have_span;
	int64_t f = m->first, l = m->last;
	for (size_t s = 1; s < m->nseqs; s++) {
		uint64_t n = SEQ(m, s, count);
		if (!n)
			continue;
		int64_t a = SEQ(m, s, ts, 0), b = SEQ(m, s, ts, n - 1);
		if (!have || a < f)
			f = a;
		if (!have || b > l)
			l = b;
		have = true;
	}
	*first = f;
	*last = l;
	return have;
}

/* ---- the saved index ------------------------------------------------------- */

bool model_savable(struct model *m)
{
	finish_commit(m);
	return !m->npend;
}

const uint8_t *model_pool(const struct model *m, size_t *n)
{
	*n = m->store.pool.n;
	return m->store.pool.p;
}

static uint32_t owner_index(const void *owner, const void *const *owners, size_t nowners)
{
	for (size_t i = 0; i < nowners; i++)
		if (owners[i] == owner)
			return (uint32_t)i;
	return UINT32_MAX; /* (none: type 0) */
}

static void save_lanes(const struct model *m, struct buf *out)
{
	put_u64(out, m->nlanes);
	for (size_t i = 0; i < m->nlanes; i++) {
		const struct lane *l = &m->lanes[i];
		const struct lane_pairs *p = &m->lp[i];
		put_u64(out, l->source);
		put_u64(out, l->key);
		put_u64(out, l->name);
		put_u64(out, l->count);
		put_i64(out, l->first);
		put_i64(out, l->last);
		put_u64(out, (uint64_t)l->has_span | (uint64_t)l->counter << 1);
		put_array(out, p->longest, p->nlongest, sizeof *p->longest);
		put_u64(out, p->other_max);
		put_array(out, p->stk, p->depth, sizeof *p->stk);
	}
}

static void save_types(const struct model *m, struct buf *out, const void *const *owners, size_t nowners)
{
	put_u64(out, m->ntypes);
	for (size_t i = 0; i < m->ntypes; i++) {
		const struct type *t = &m->types[i];
		put_u64(out, (uint64_t)t->name << 32 | t->category);
		put_u64(out, (uint64_t)t->name_field << 32 | t->pair);
		put_u64(out, (uint64_t)t->source << 32 | t->value_field);
		put_u64(out, (uint64_t)owner_index(t->owner, owners, nowners) << 32 | (uint64_t)t->grouped << 9 |
				   (uint64_t)t->keyed << 8 | t->role);
		const struct event *e = &m->seen[i].ex;
		put_u64(out, m->seen[i].count);
		put_u64(out, (uint64_t)e->input << 32 | e->lane);
		put_u64(out, e->off);
		put_i64(out, e->ts);
		put_u64(out, e->dur);
		put_u64(out, (uint64_t)e->name << 32 | e->flags);
	}
}

void model_save(const struct model *m, struct buf *out, struct buf *strings, const void *const *owners,
		size_t nowners)
{
	strtab_save(m->st, strings);
	put_u64(out, m->nseqs);
	save_lanes(m, out);
	save_types(m, out, owners, nowners);
	put_u64(out, m->raw_names.n);
	for (size_t i = 0; i < m->raw_names.cap; i++)
		if (m->raw_names.used[i])
			put_u64(out, m->raw_names.keys[i] << 32 | m->raw_names.vals[i]);
	put_array(out, m->longdur, m->nlong, sizeof *m->longdur);
	put_u64(out, (uint64_t)m->have_span | (uint64_t)m->has_pairs << 1);
	put_i64(out, m->first);
	put_i64(out, m->last);
	evs_save(&m->store, out);
	put_u64(out, m->nsnaps);
	for (size_t i = 0; i < m->nsnaps; i++) {
		put_u64(out, m->snaps[i].pos);
		put_array(out, m->snaps[i].data, m->snaps[i].n, sizeof *m->snaps[i].data);
	}
}

/* Lanes and types are made again as their first run made them, each one
 * checked to get the id it had: what the decoders' open() made before
 * (the same, in the same order) is found, the rest added.  (The stacks'
 * positions are checked once the events are there.) */
static bool restore_lanes(struct model *m, struct blob *r, uint64_t nsources)
{
	uint64_t n = get_below(r, MAX_LANES - 1);
	uint32_t nstr = strtab_count(m->st);
	for (uint64_t id = 0; id < n && !r->bad; id++) {
		uint32_t source = (uint32_t)get_below(r, nsources);
		uint64_t key = get_u64(r);
		uint32_t name = (uint32_t)get_below(r, nstr);
		if (r->bad || model_lane(m, source, key, name) != id)
			return false;
		struct lane *l = &m->lanes[id];
		l->name = name; /* (renamed after open() made it) */
		l->count = get_u64(r);
		l->first = get_i64(r);
		l->last = get_i64(r);
		uint64_t flags = get_u64(r);
		l->has_span = flags & 1;
		l->counter = flags >> 1 & 1;
		struct lane_pairs *p = &m->lp[id];
		size_t nlong, depth;
		p->longest = xcalloc(LONG_SPANS, sizeof *p->longest);
		const void *longest = get_array(r, &nlong, sizeof *p->longest);
		if (nlong > LONG_SPANS)
			return false;
		if (nlong)
			memcpy(p->longest, longest, nlong * sizeof *p->longest);
		p->nlongest = (uint8_t)nlong;
		p->other_max = get_u64(r);
		p->stk = get_copy(r, &depth, sizeof *p->stk);
		p->cap = p->depth = (uint32_t)depth;
	}
	return !r->bad;
}

/* (lanes first: an example's lane is checked against them; its input once
 * the inputs are known: model_restore) */
static bool restore_example(struct model *m, struct blob *r, uint32_t type)
{
	uint64_t count = get_u64(r), a = get_u64(r), off = get_u64(r);
	int64_t ts = get_i64(r);
	uint64_t dur = get_u64(r), b = get_u64(r);
	struct event e = {.input = (uint32_t)(a >> 32), .lane = (uint32_t)a, .off = off, .ts = ts, .dur = dur,
			  .type = type, .name = (uint32_t)(b >> 32), .flags = (uint32_t)b};
	if (e.input != NO_EXAMPLE && (e.lane >= m->nlanes || e.name >= strtab_count(m->st)))
		return false;
	m->seen[type] = (struct type_seen){e, count};
	return true;
}

static bool restore_types(struct model *m, struct blob *r, const void *const *owners, size_t nowners)
{
	uint64_t n = get_below(r, 1u << TYPE_BITS);
	uint32_t nstr = strtab_count(m->st);
	for (uint64_t id = 0; id < n && !r->bad; id++) {
		uint64_t a = get_u64(r), b = get_u64(r), c = get_u64(r), d = get_u64(r);
		uint32_t owner = (uint32_t)(d >> 32);
		struct type t = {.name = (uint32_t)(a >> 32), .category = (uint32_t)a, .name_field = (uint32_t)(b >> 32),
				 .pair = (uint32_t)b, .source = (uint32_t)(c >> 32), .value_field = (uint32_t)c,
				 .keyed = d >> 8 & 1, .grouped = d >> 9 & 1, .role = (uint8_t)d, .owner = owner < nowners ? owners[owner] : NULL};
		if (r->bad || t.name >= nstr || t.category >= nstr || t.name_field >= nstr || t.value_field >= nstr ||
		    t.pair >= n || t.role > ROLE_END || (owner >= nowners && owner != UINT32_MAX) ||
		    model_type(m, &t) != id || !restore_example(m, r, id))
			return false;
	}
	return !r->bad;
}

static bool restore_snaps(struct model *m, struct blob *r, uint64_t nev)
{
	uint64_t n = get_below(r, SNAP_MAX + 1);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		struct snap *s = &m->snaps[m->nsnaps++];
		s->pos = get_u64(r);
		s->data = get_copy(r, &s->n, sizeof *s->data);
		if (s->pos > nev || (i && s->pos <= s[-1].pos))
			return false;
		for (size_t k = 0; k + 2 <= s->n;) { /* lane, depth, positions */
			uint64_t lane = s->data[k], depth = s->data[k + 1];
			if (lane >= m->nlanes || depth > s->n - k - 2)
				return false;
			for (k += 2; depth--; k++)
				if (s->data[k] >= nev)
					return false;
			if (k == s->n)
				break;
		}
	}
	return !r->bad;
}

bool model_restore(struct model *m, struct blob *r, struct bigmem *pool, size_t npool, struct bigmem *strings,
		   size_t nstrings, uint64_t nsources, uint64_t ninputs, const void *const *owners, size_t nowners)
{
	/* (sequences: their decoders' open() registered them again) */
	if (!strtab_adopt(m->st, strings, nstrings) || get_u64(r) != m->nseqs || !restore_lanes(m, r, nsources) ||
	    !restore_types(m, r, owners, nowners))
		return false;
	uint64_t nraw = get_below(r, UINT32_MAX);
	uint32_t nstr = strtab_count(m->st);
	for (uint64_t i = 0; i < nraw && !r->bad; i++) {
		uint64_t v = get_u64(r);
		if (v >> 32 >= nstr || (uint32_t)v >= nstr)
			return false;
		model_name_alias(m, (uint32_t)(v >> 32), (uint32_t)v);
	}
	m->longdur = get_copy(r, &m->nlong, sizeof *m->longdur);
	m->caplong = m->nlong;
	uint64_t flags = get_u64(r);
	m->have_span = flags & 1;
	m->has_pairs = flags >> 1 & 1;
	m->first = get_i64(r);
	m->last = get_i64(r);
	struct evs_limits lim = {ninputs, m->ntypes, m->nlanes, nstr};
	if (r->bad || !evs_restore(&m->store, r, pool, npool, &lim))
		return false;
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->seen[i].ex.input != NO_EXAMPLE && m->seen[i].ex.input >= ninputs)
			return false;
	uint64_t n = nev(m);
	for (size_t i = 0; i < m->nlanes; i++)
		for (uint32_t j = 0; j < m->lp[i].depth; j++)
			if (m->lp[i].stk[j] >= n)
				return false;
	if (!restore_snaps(m, r, n))
		return false;
	m->cur[0].valid = m->cur[1].valid = false;
	m->changed_from = 0;
	m->generation++;
	return true;
}
