#include "src/model_int.h"

static void release_sortbuf(struct sortbuf *b, uint64_t events);

/* ---- parts ---------------------------------------------------------------- */

void part_free(struct part *p)
{
	for (size_t i = 0; i < p->nsnaps; i++)
		free(p->snaps[i].data);
	for (size_t i = 0; i < p->nstacks; i++) {
		free(p->stacks[i].stk);
		free(p->stacks[i].longest);
	}
	free(p->stacks);
	evs_free(&p->store);
	free(p->piles);
	free(p);
}

void add_part(struct model *m)
{
	if (m->nparts == m->capparts)
		finish_commit(m); /* (the committer reads the table) */
	xgrow(&m->parts, &m->capparts, m->nparts + 1, sizeof *m->parts);
	struct part *p = m->parts[m->nparts++] = xcalloc(1, sizeof **m->parts);
	if (m->nparts > 1) /* (parts pack one at a time) */
		evs_lend_packer(&p->store, &m->parts[0]->store);
	m->epoch++;
}

/* The piles the committer made become parts (and streams). */
static void add_new_piles(struct model *m)
{
	if (!m->nnewpiles)
		return;
	xgrow(&m->parts, &m->capparts, m->nparts + m->nnewpiles, sizeof *m->parts);
	memcpy(m->parts + m->nparts, m->newpiles, m->nnewpiles * sizeof *m->parts);
	m->nparts += m->nnewpiles;
	m->nnewpiles = 0;
	m->epoch++;
}

/* The part of a source's lanes: the first source's is part 0 (there from
 * the start), every other source's one of its own. */
uint32_t source_part(struct model *m, uint32_t source)
{
	if (source < m->capsource_part && m->source_part[source])
		return m->source_part[source] - 1;
	size_t had = m->capsource_part;
	xgrow(&m->source_part, &m->capsource_part, (size_t)source + 1, sizeof *m->source_part);
	memset(m->source_part + had, 0, (m->capsource_part - had) * sizeof *m->source_part);
	bool first = !m->part0_given;
	if (!first)
		add_part(m);
	m->part0_given = true;
	m->source_part[source] = first ? 1 : (uint32_t)m->nparts;
	return m->source_part[source] - 1;
}

struct model *model_new(void)
{
	static uint64_t models;
	struct model *m = xcalloc(1, sizeof *m);
	m->serial = __atomic_add_fetch(&models, 1, __ATOMIC_RELAXED);
	m->st = strtab_new();
	/* type 0: what an event gets when the type table is full */
	model_type(m, &(struct type){.name = strtab_intern_cstr(m->st, "(unknown type)")});
	add_part(m);
	xgrow(&m->seqs, &m->capseqs, 1, sizeof *m->seqs);
	m->seqs[0] = (struct seqent){NULL, m}; /* (the parts) */
	m->nseqs = 1;
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	if (m->committing) /* a commit under way uses pend and the store */
		pthread_join(m->commit_thread, NULL);
	add_new_piles(m);
	free(m->newpiles);
	merging_end(m);
	for (size_t i = 0; i < m->nlanes; i++) {
		free(m->lp[i].stk);
		free(m->lp[i].longest);
		free(m->lp[i].open);
	}
	for (size_t i = 0; i < m->nparts; i++)
		part_free(m->parts[i]);
	free(m->parts);
	free(m->source_part);
	bigmem_free(&m->restored);
	cursors_let_go(m);
	hmap_free(&m->raw_names);
	free(m->lanes);
	free(m->lp);
	free(m->lane_slot);
	free(m->types);
	free(m->type_slot);
	free(m->seen);
	bigmem_free(&m->pend_mem);
	bigmem_free(&m->next_mem);
	free(m->next_by_part.at), free(m->next_by_part.kind);
	free(m->pend_by_part.at), free(m->pend_by_part.kind);
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
	if (m->nlanes == m->caplp)
		finish_commit(m); /* (the committer reads the table) */
	xgrow(&m->lanes, &m->caplanes, m->nlanes + 1, sizeof *m->lanes);
	m->lanes[m->nlanes] = (struct lane){.name = name, .source = source, .key = key};
	xgrow(&m->lp, &m->caplp, m->nlanes + 1, sizeof *m->lp);
	m->lp[m->nlanes] = (struct lane_pairs){.part = source_part(m, source), .pairs_until = INT64_MIN};
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
	if (m->ntypes == m->captypes)
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
	c->loc = loc_of(e->input, e->off, type);
	c->dur = LIKELY(e->dur < DUR_LONG) ? (uint32_t)e->dur : dur_encode(m, e->dur);
	c->name = e->name;
	c->lanef = lane << 8 | (e->flags & 0xff);
	if ((e->flags & EVF_ROLE) >= ROLE_BEGIN) {
		m->tail.pairs = true;
		if (m->nlanes && e->ts > m->lp[lane].pairs_until)
			__atomic_store_n(&m->lp[lane].pairs_until, e->ts, __ATOMIC_RELAXED);
	}
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
/* Fewer keys than this are sorted by insertion: a pass of counting costs
 * its 256 counts whatever the keys (a batch of many sources over one
 * period sorts each source's apart, in many small buckets). */
#define SMALL_SORT 64
/* Keys x[0, n) sorted stably by their bits [from, to), least significant
 * digit first, tmp as room; the sorted keys end in x. */
static void lsd_sort(uint64_t *x, uint64_t *tmp, size_t n, unsigned from, unsigned to)
{
	if (n <= SMALL_SORT) { /* (the keys' other bits keep the order stable: the index low, the same above) */
		for (size_t i = 1; i < n; i++) {
			uint64_t v = x[i];
			size_t j = i;
			for (; j && x[j - 1] > v; j--)
				x[j] = x[j - 1];
			x[j] = v;
		}
		return;
	}
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
static bool radix_sort(struct sortbuf *b, struct cev *a, size_t n, struct cev *tmp)
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

/* Sort a[0..n), with room for n more at tmp (NULL: b's scratch, taken
 * only when wanted). */
static void sort_in(struct sortbuf *b, struct cev *a, size_t n, struct cev *tmp)
{
	/* how far out of order: judged by the batch's first events */
	size_t descents = 0, probe = MIN(n, 8192);
	for (size_t i = 1; i < probe; i++)
		descents += cev_less(&a[i], &a[i - 1]);
	if (descents > probe / 64 && radix_sort(b, a, n, tmp ? tmp : scratch(b, n)))
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
	struct cev *src = a, *dst = tmp ? tmp : scratch(b, n);
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

static void sort_events(struct sortbuf *b, struct cev *a, size_t n) { sort_in(b, a, n, NULL); }


/* ---- piles ------------------------------------------------------------------ */

/* Late events go to a pile when merging them in would rewrite PILE_REACH
 * times as many, and at least PILE_MIN and a PILE_SHARE of their source;
 * a source has at most MAX_PILES. */
#define PILE_REACH 2
#define PILE_MIN (1u << 16)
#define PILE_SHARE 8
#define MAX_PILES 16

/* What merging sorted late events a[0..n) into part p rewrites: the
 * blocks they land in, and when some begin or end a span, the pairing of
 * everything after them; for a pile (it pairs nothing), what lies after
 * them (a late chain's own pile costs nothing more). */
/* What merging a[0, n) into p rewrites: the blocks they land in, as far
 * as they do not pair; from the first that does, everything after it
 * (paired again).  (A pile is merged whole, and pairs nothing.) */
static uint64_t merge_cost(const struct part *p, const struct cev *a, size_t n, bool pairs)
{
	uint64_t count = pcount(p), at = evs_bound(&p->store, &a[0], false), moved = count - at;
	if (p->home && moved)
		return moved;
	size_t j = 0; /* the first that pairs (symbols at time 0 that a writer appends pair nothing) */
	while (pairs && !p->home && j < n && cev_role(&a[j]) < ROLE_BEGIN)
		j++;
	uint64_t repaired = pairs && !p->home ? count - evs_bound(&p->store, &a[MIN(j, n - 1)], false) : 0;
	size_t k = pairs && !p->home ? j : n; /* those merely merged */
	return MIN(moved, evs_rewrite(&p->store, a, k) + repaired);
}

/* (on the committer's thread: the pile joins the parts when it is done) */
static struct part *new_pile(struct model *m, struct part *home)
{
	struct part *p = xcalloc(1, sizeof *p);
	p->home = home;
	evs_lend_packer(&p->store, &m->parts[0]->store);
	xgrow(&home->piles, &home->cappiles, home->npiles + 1, sizeof *home->piles);
	home->piles[home->npiles++] = p;
	xgrow(&m->newpiles, &m->capnewpiles, m->nnewpiles + 1, sizeof *m->newpiles);
	m->newpiles[m->nnewpiles++] = p;
	return p;
}

#define OWN_REACH 16 /* late events on lanes of their own: rewriting this many times as many */

/* Do late events on lanes p holds nothing of cost enough to give those
 * lanes a pile of their own?  (a[0, n): the late ones.)  Only when few
 * and far back (OWN_REACH), as a quiet thread's batch drained late or a
 * forked parent's stream; not a thread's first batch arriving after the
 * others' (that would make a part of such lanes, for the viewer to merge
 * again). */
static bool fresh_lanes_late(struct model *m, struct part *p, const struct cev *a, size_t n)
{
	struct cev *fresh = NULL;
	size_t k = 0;
	bool pairs = false;
	for (size_t i = 0; i < n; i++) {
		const struct lane_pairs *l = &m->lp[cev_lane(&a[i])];
		if (l->in_home || l->own)
			continue;
		if (!fresh)
			fresh = xmalloc((n - i) * sizeof *fresh);
		fresh[k++] = a[i];
		pairs |= p->kind.pairs && cev_role(&a[i]) >= ROLE_BEGIN;
	}
	uint64_t cost = k ? merge_cost(p, fresh, k, pairs) : 0;
	free(fresh);
	return cost >= PILE_MIN && cost / OWN_REACH >= k && cost >= pcount(p) / PILE_SHARE;
}

/* Events of p's batch on lanes of their own go to its own pile (made for
 * late events on lanes p holds nothing of, when merging them would cost
 * PILE_MIN); the rest stay, in order.  True when some went. */
static bool route_own(struct model *m, struct part *p, size_t nl)
{
	bool owned = false, worth = false;
	for (size_t i = 0; i < p->nbatch && !owned; i++)
		owned = m->lp[cev_lane(&p->batch[i])].own;
	if (!owned && (!nl || !(worth = fresh_lanes_late(m, p, p->batch, nl))))
		return false;
	if (worth && !p->own_pile)
		p->own_pile = new_pile(m, p);
	for (size_t i = 0; worth && i < nl; i++) {
		struct lane_pairs *l = &m->lp[cev_lane(&p->batch[i])];
		if (!l->in_home)
			l->own = p->own_pile;
	}
	/* (a stable partition: the own lanes' events first) */
	struct cev *tmp = xmalloc(p->nbatch * sizeof *tmp);
	size_t a = 0, b = p->nbatch;
	for (size_t i = 0; i < p->nbatch; i++)
		if (m->lp[cev_lane(&p->batch[i])].own)
			tmp[a++] = p->batch[i];
	for (size_t i = p->nbatch; i-- > 0;)
		if (!m->lp[cev_lane(&p->batch[i])].own)
			tmp[--b] = p->batch[i];
	memcpy(p->batch, tmp, p->nbatch * sizeof *tmp);
	free(tmp);
	struct part *own = p->own_pile;
	for (size_t i = 0; i < a; i++)
		own->has_pairs |= cev_role(&p->batch[i]) >= ROLE_BEGIN;
	evs_merge(&own->store, p->batch, a, NULL);
	evs_pack_all(&own->store);
	p->batch += a;
	p->nbatch -= a;
	return a > 0;
}

/* The events of p's batch that come before its last one go where merging
 * them costs least: p itself (false: they stay in the batch), one of its
 * piles, or, when that would rewrite many times as many, a new pile. */
static bool pile_late(struct model *m, struct part *p)
{
	uint64_t old = pcount(p);
	if (!old || p->one)
		return false;
	struct cev last = pev(p, old - 1);
	size_t nl = cevs_before(p->batch, p->nbatch, &last);
	bool routed = route_own(m, p, nl);
	if (routed)
		nl = cevs_before(p->batch, p->nbatch, &last);
	if (!nl)
		return routed;
	bool pairs = false;
	for (size_t i = 0; p->kind.pairs && i < nl && !pairs; i++)
		pairs = cev_role(&p->batch[i]) >= ROLE_BEGIN;
	struct part *pile = NULL;
	uint64_t least = merge_cost(p, p->batch, nl, pairs), all = old;
	for (size_t i = 0; i < p->npiles; i++) {
		if (p->piles[i] == p->own_pile)
			continue; /* (its lanes' alone) */
		uint64_t cost = merge_cost(p->piles[i], p->batch, nl, pairs);
		if (cost < least)
			pile = p->piles[i], least = cost;
		all += pcount(p->piles[i]);
	}
	/* (piles are merged and paired again whole: worth it when late events
	 * would rewrite much of the source at a time, and go on coming: a late
	 * chain's second batch makes the pile, a lone one is merged) */
	bool far = least >= PILE_MIN && least / PILE_REACH >= nl && least >= all / PILE_SHARE;
	bool chain = far && p->far_seen && cev_less(&p->far_start, &p->batch[0]);
	if (far) {
		p->far_start = p->batch[0];
		p->far_seen = true;
	}
	if (chain && p->npiles < MAX_PILES)
		pile = new_pile(m, p);
	if (!pile)
		return routed;
	pile->has_pairs |= pairs;
	evs_merge(&pile->store, p->batch, nl, NULL);
	evs_pack_all(&pile->store); /* (late events land near a pile's end, if at all) */
	p->batch += nl;
	p->nbatch -= nl;
	return true;
}

/* Merge p's batch, sorted, into place, pair and note their long spans;
 * true when some landed before its last event. */
static bool merge_part(struct model *m, struct part *p)
{
	if (!p->nbatch)
		return false;
	p->has_pairs |= p->kind.pairs;
	for (size_t i = 0; p->kind.spans && i < p->nbatch; i++) {
		const struct cev *c = &p->batch[i];
		if (cev_role(c) == ROLE_COMPLETE && c->dur != DUR_NONE)
			note_span(&m->lp[cev_lane(c)], c->ts, dur_decode(m, c->dur), c->loc);
	}
	bool piled = pile_late(m, p);
	if (!p->nbatch)
		return true;
	for (size_t i = 0; i < p->nbatch; i++)
		m->lp[cev_lane(&p->batch[i])].in_home = true;
	uint64_t old = pcount(p);
	struct cev last = old ? pev(p, old - 1) : (struct cev){0};
	bool late = old && cev_less(&p->batch[0], &last);
	if (late) {
		merge_late(m, p);
	} else {
		evs_merge(&p->store, p->batch, p->nbatch, NULL);
		pair_range(m, p, old, PAIR_NEW);
	}
	p->nbatch = 0;
	snap_take(m, p, pcount(p));
	evs_pack(&p->store);
	return late || piled;
}

/* How many compact events come before key, in all parts. */
static uint64_t parts_bound(const struct model *m, const struct cev *key)
{
	uint64_t n = 0;
	for (size_t i = 0; i < m->cparts; i++)
		n += evs_bound(&m->parts[i]->store, key, false);
	return n;
}

/* src[0..n) scattered by part into dst (stably: a sorted batch stays
 * sorted in each group), the first nparts parts' lanes below nlanes (the
 * lane table as the calling thread sees it). */
static void group_parts(const struct model *m, size_t nlanes, size_t nparts, const struct cev *src, size_t n,
			struct cev *dst, struct grouping *g)
{
	if (nparts + 1 > g->cap) {
		g->cap = nparts + 1;
		g->at = xrealloc(g->at, g->cap * sizeof *g->at);
		g->kind = xrealloc(g->kind, g->cap * sizeof *g->kind);
	}
	g->nparts = nparts;
	memset(g->at, 0, (nparts + 1) * sizeof *g->at);
	memset(g->kind, 0, nparts * sizeof *g->kind);
	for (size_t i = 0; i < n; i++) {
		uint32_t l = cev_lane(&src[i]);
		g->at[(l < nlanes ? m->lp[l].part : 0) + 1]++;
	}
	for (size_t i = 0; i < nparts; i++)
		g->at[i + 1] += g->at[i];
	for (size_t i = 0; i < n; i++) {
		const struct cev *c = &src[i];
		uint32_t l = cev_lane(c), pi = l < nlanes ? m->lp[l].part : 0;
		dst[g->at[pi]++] = *c;
		g->kind[pi].pairs |= cev_role(c) >= ROLE_BEGIN;
		g->kind[pi].spans |= cev_role(c) == ROLE_COMPLETE && c->dur != DUR_NONE;
	}
	memmove(g->at + 1, g->at, nparts * sizeof *g->at); /* (each at[i] had moved to the group's end) */
	g->at[0] = 0;
}

/* Each of g's groups of a sorted, with room as large as a at tmp. */
static void sort_groups(struct sortbuf *b, struct cev *a, struct cev *tmp, const struct grouping *g)
{
	for (size_t i = 0; i < g->nparts; i++)
		if (g->at[i + 1] > g->at[i])
			sort_in(b, a + g->at[i], g->at[i + 1] - g->at[i], tmp + g->at[i]);
}

/* The batch the main thread adds to meanwhile (next), made ready for the
 * committer while it is busy: sorted (with several parts, each part's on
 * its own: a batch from many sources over one period merged whole would
 * cost pass after pass for nothing). */
static void presort_next(struct model *m)
{
	if (m->nparts == 1) {
		sort_events(&m->sort_main, m->next, m->nnext);
		return;
	}
	struct cev *room = scratch(&m->sort_main, m->nnext);
	group_parts(m, m->nlanes, m->nparts, m->next, m->nnext, room, &m->next_by_part);
	memcpy(m->next, room, m->nnext * sizeof *m->next); /* (the room stays this thread's) */
	sort_groups(&m->sort_main, m->next, room, &m->next_by_part);
}

/* Share the pending events out to their parts, each with what it holds:
 * grouped by part already (presort_next) or here (into b's scratch, each
 * part's sorted unless the batch was).  The least of them (NULL: none). */
static const struct cev *share_out(struct model *m, struct sortbuf *b, struct batch_kind k, bool sorted)
{
	struct grouping *g = &m->pend_by_part;
	if (!sorted)
		g->nparts = 0; /* (made for an earlier batch) */
	if (m->cparts == 1 && !g->nparts) {
		if (!sorted)
			sort_events(b, m->pend, m->npend);
		m->parts[0]->batch = m->pend;
		m->parts[0]->nbatch = m->npend;
		m->parts[0]->kind = k;
		return m->npend ? &m->pend[0] : NULL;
	}
	struct cev *base = m->pend;
	if (!g->nparts) {
		base = scratch(b, m->npend);
		group_parts(m, m->clanes, m->cparts, m->pend, m->npend, base, g);
		if (!sorted)
			sort_groups(b, base, m->pend, g);
	}
	const struct cev *least = NULL;
	for (size_t i = 0; i < m->cparts; i++) { /* (parts after g's: piles made since, given nothing) */
		struct part *p = m->parts[i];
		bool in = i < g->nparts;
		p->batch = base + (in ? g->at[i] : 0);
		p->nbatch = in ? g->at[i + 1] - g->at[i] : 0;
		p->kind = in ? g->kind[i] : (struct batch_kind){0};
		if (p->nbatch && (!least || cev_less(&p->batch[0], least)))
			least = &p->batch[0];
	}
	g->nparts = 0;
	return least;
}

/* The pending events (sorted already or not) merged into their parts,
 * paired and packed (what k says they hold).  Positions before the
 * batch's first event keep their events; when that is not at the end,
 * the order changed behind committed positions (the generation).  (With
 * sequences, whose records interleave, every position may have changed:
 * they are not asked here, on the committer's thread.) */
static void commit_pending(struct model *m, struct sortbuf *b, struct batch_kind k, bool sorted)
{
	if (!m->npend)
		return;
	bool seqs = m->nseqs > 1;
	uint64_t old = nev_in(m, m->cparts);
	const struct cev *least = share_out(m, b, k, sorted);
	uint64_t first = seqs ? 0 : parts_bound(m, least);
	m->changed_from = MIN(m->changed_from, first);
	bool late = false;
	for (size_t i = 0; i < m->cparts; i++) {
		struct part *p = m->parts[i];
		if (p->nbatch)
			late |= merge_part(m, p);
		else if (m->cparts > 1 && !p->home) /* (a source read before: its newest are not where events land now) */
			evs_pack_all(&p->store);
	}
	if (seqs ? late : first < old)
		m->generation++;
	m->npend = 0;
	m->ncompact = nev_in(m, m->cparts);
	for (size_t i = 0; i < m->nnewpiles; i++)
		m->ncompact += pcount(m->newpiles[i]);
}

/* On the committer thread (while the main thread decodes on). */
static void *committer(void *arg)
{
	struct model *m = arg;
	commit_pending(m, &m->sort_committer, m->sealed, m->sealed_sorted);
	atomic_store_explicit(&m->commit_done, true, memory_order_release);
	return NULL;
}

/* The store's reach: the greatest of the parts'. */
static uint64_t reach_of(const struct model *m)
{
	uint64_t r = 0;
	for (size_t i = 0; i < m->nparts; i++)
		r = MAX(r, m->parts[i]->store.reach);
	return r;
}

/* The commit under way done: what was added meanwhile becomes pending. */
void finish_commit(struct model *m)
{
	if (!m->committing)
		return;
	pthread_join(m->commit_thread, NULL);
	m->committing = false;
	add_new_piles(m);
	m->epoch++;
	m->reach_seen = reach_of(m);
	release_sortbuf(&m->sort_committer, nev(m));
	struct cev *p = m->pend;
	size_t cap = m->cappend;
	struct bigmem mem = m->pend_mem;
	m->pend = m->next, m->cappend = m->capnext, m->pend_mem = m->next_mem, m->npend = m->nnext;
	m->next = p, m->capnext = cap, m->next_mem = mem, m->nnext = 0;
	struct grouping g = m->pend_by_part;
	m->pend_by_part = m->next_by_part, m->next_by_part = g;
}

/* The events added so far, as the committer will take them (and the
 * lanes and parts they may name). */
static struct batch_kind seal(struct model *m)
{
	if (m->npend)
		merging_end(m); /* (the parts change: a merge under way starts again) */
	struct batch_kind k = m->tail;
	m->tail = (struct batch_kind){0};
	m->clanes = m->nlanes;
	m->cparts = m->nparts;
	return k;
}

/* Room for the lanes, types and parts that sources opened while the
 * committer runs will make, so that it need not be waited for. */
#define ROOM_LANES 256
#define ROOM_TYPES 64
#define ROOM_PARTS 16
static void keep_room(struct model *m)
{
	xgrow(&m->lp, &m->caplp, m->nlanes + ROOM_LANES, sizeof *m->lp);
	xgrow(&m->types, &m->captypes, m->ntypes + ROOM_TYPES, sizeof *m->types);
	xgrow(&m->parts, &m->capparts, m->nparts + ROOM_PARTS, sizeof *m->parts);
}

/* Everything added so far committed (on this thread), piles and all. */
static void commit_now(struct model *m)
{
	finish_commit(m);
	release_sortbuf(&m->sort_main, nev(m) + m->npend);
	commit_pending(m, &m->sort_main, seal(m), false);
	add_new_piles(m);
	m->epoch++;
}

void model_commit(struct model *m)
{
	commit_now(m);
	piles_settle(m);
}

void model_sync(struct model *m) { finish_commit(m); }

bool model_seal(struct model *m, uint64_t deadline)
{
	finish_commit(m);
	for (size_t i = 0; i < m->nparts; i++)
		while (!evs_seal_step(&m->parts[i]->store))
			if (now_ns() >= deadline)
				return true;
	return false;
}

/* Who sorts a batch balances the two threads: when the committer is still
 * busy with the last one, this thread sorts the next meanwhile (decoding
 * is the lighter side: presort_next); when it is idle, it sorts too. */
void model_commit_some(struct model *m)
{
	bool sorted = m->committing && !atomic_load_explicit(&m->commit_done, memory_order_acquire);
	if (sorted)
		presort_next(m);
	finish_commit(m);
	if (!m->npend)
		return;
	release_sortbuf(&m->sort_main, nev(m) + m->npend);
	m->sealed = seal(m);
	m->sealed_sorted = sorted;
	m->commit_done = false;
	keep_room(m);
	m->committing = !pthread_create(&m->commit_thread, NULL, committer, m);
	if (!m->committing) { /* no thread to be had: commit here */
		commit_pending(m, &m->sort_main, m->sealed, sorted);
		add_new_piles(m);
		m->epoch++;
	}
}

/* ---- streams: the parts, then the sequences -------------------------------- */



uint64_t stream_count(const struct model *m, size_t s)
{
	return is_part(m, s) ? pcount(m->parts[s]) : SEQ(m, stream_seq(m, s), count);
}

int64_t stream_ts(const struct model *m, size_t s, uint64_t i)
{
	return is_part(m, s) ? evs_ts(&m->parts[s]->store, i) : SEQ(m, stream_seq(m, s), ts, i);
}

uint64_t stream_bound(const struct model *m, size_t s, int64_t t, bool upper)
{
	if (is_part(m, s))
		return evs_time_bound(&m->parts[s]->store, t, upper);
	return upper ? SEQ(m, stream_seq(m, s), upper, t) : SEQ(m, stream_seq(m, s), lower, t);
}

uint32_t model_add_seq(struct model *m, const struct seq_ops *ops, void *ctx)
{
	finish_commit(m);
	xgrow(&m->seqs, &m->capseqs, m->nseqs + 1, sizeof *m->seqs);
	m->seqs[m->nseqs] = (struct seqent){ops, ctx};
	m->epoch++;
	m->generation++;
	m->changed_from = 0;
	return (uint32_t)m->nseqs++;
}

/* Part p's pairs forgotten: its lanes' stacks, their long spans that may
 * be gone, its snapshots. */
static void unpair(struct model *m, struct part *p)
{
	for (size_t li = 0; li < m->clanes; li++)
		if (lane_in(m, li, p)) {
			m->lp[li].nlongest = 0;
			m->lp[li].depth = 0;
		}
	while (p->nsnaps)
		free(p->snaps[--p->nsnaps].data);
}

/* Part p's lanes paired again from scratch. */
static void pair_afresh(struct model *m, struct part *p)
{
	unpair(m, p);
	pair_range(m, p, 0, PAIR_AFRESH);
	evs_pack(&p->store);
}

/* Home's piles merged into it.  Pairs change only when a pile holds
 * begins or ends (then they are made afresh as the merged events land);
 * otherwise the stacks' begins are found again. */
static void settle_home(struct model *m, struct part *home)
{
	size_t k = home->npiles + 1;
	struct part **ps = xmalloc(k * sizeof *ps);
	bool pairs = false;
	for (size_t i = 0; i < home->npiles; i++) {
		ps[i + 1] = home->piles[i];
		pairs |= home->piles[i]->has_pairs;
	}
	struct held *held = NULL;
	size_t nheld = 0, cap = 0;
	if (!pairs)
		hold_stacks(m, home, 0, &held, &nheld, &cap);
	struct part was = {.store = home->store}; /* (read by the merge, freed after) */
	ps[0] = &was;
	home->store = (struct evstore){.pk = was.store.pk, .pk_lent = was.store.pk_lent};
	was.store.pk = NULL;
	if (pairs)
		unpair(m, home);
	merge_stores(m, ps, k, home, pairs);
	evs_free(&was.store);
	home->npiles = 0;
	home->has_pairs |= pairs;
	free(ps);
	find_held(held, nheld, &home->store);
	if (!pairs) {
		while (home->nsnaps)
			free(home->snaps[--home->nsnaps].data);
		snap_take(m, home, pcount(home));
	}
}

/* Once piles are settled (or the parts merged, or restored), every lane
 * with events has them in its part. */
void lanes_at_home(struct model *m)
{
	for (size_t l = 0; l < m->nlanes; l++) {
		m->lp[l].in_home = m->lanes[l].count > 0;
		m->lp[l].own = NULL;
	}
}

/* Home's own pile becomes a part of its own: its lanes', paired alone. */
static void own_part(struct model *m, struct part *home)
{
	struct part *own = home->own_pile;
	size_t k = 0;
	for (size_t i = 0; i < home->npiles; i++)
		if (home->piles[i] != own)
			home->piles[k++] = home->piles[i];
	home->npiles = k;
	home->own_pile = NULL;
	own->home = NULL;
	uint32_t at = 0;
	while (m->parts[at] != own)
		at++;
	for (size_t li = 0; li < m->nlanes; li++)
		if (m->lp[li].own == own) {
			m->lp[li].own = NULL;
			m->lp[li].part = at;
		}
	pair_afresh(m, own);
}

/* Every source's piles merged into their homes (and paired with them):
 * late chains cost one merge, not one each batch. */
void piles_settle(struct model *m)
{
	m->clanes = m->nlanes;
	uint64_t from = UINT64_MAX; /* (found before any pile is merged: its events would count twice) */
	for (size_t i = 0; i < m->nparts; i++)
		for (size_t j = 0; j < m->parts[i]->npiles; j++) {
			struct cev first = pev(m->parts[i]->piles[j], 0);
			from = MIN(from, parts_bound(m, &first));
		}
	if (from == UINT64_MAX)
		return;
	for (size_t i = 0; i < m->nparts; i++)
		if (m->parts[i]->own_pile)
			own_part(m, m->parts[i]);
	for (size_t i = 0; i < m->nparts; i++)
		if (m->parts[i]->npiles)
			settle_home(m, m->parts[i]);
	uint32_t *to = xmalloc(m->nparts * sizeof *to);
	size_t k = 0;
	for (size_t i = 0; i < m->nparts; i++) {
		to[i] = (uint32_t)k;
		if (m->parts[i]->home)
			part_free(m->parts[i]);
		else
			m->parts[k++] = m->parts[i];
	}
	for (size_t li = 0; li < m->nlanes; li++)
		m->lp[li].part = to[m->lp[li].part];
	for (size_t i = 0; i < m->capsource_part; i++)
		if (m->source_part[i])
			m->source_part[i] = to[m->source_part[i] - 1] + 1;
	free(to);
	m->nparts = m->cparts = k;
	lanes_at_home(m);
	m->epoch++;
	m->generation++;
	m->changed_from = MIN(m->changed_from, from);
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
	model_commit(m); /* (clanes and cparts: all of them; no piles) */
	merging_end(m);
	uint64_t n = nev(m);
	for (size_t i = 0; i < m->nparts; i++)
		evs_filter(&m->parts[i]->store, keep_input, &(struct dropping){m, input});
	m->ncompact = nev_in(m, m->nparts);
	uint64_t dropped = n - nev(m);
	if (!dropped)
		return 0;
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->seen[i].ex.input == input)
			m->seen[i].ex.input = NO_EXAMPLE; /* the next one added takes its place */
	for (size_t k = 0; k < m->nparts; k++)
		pair_afresh(m, m->parts[k]);
	m->epoch++;
	m->generation++;
	m->changed_from = 0;
	return dropped;
}

void model_seq_changed(struct model *m)
{
	finish_commit(m);
	m->epoch++;
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
