/* model_merge.c: the parts made one store (the viewer's, once everything is
 * read: a jump among many parts bisects them all) and the merges of parts
 * that settling piles uses, in steps or at once. */
#include "src/model_int.h"

/* A part read in order, a run at a time: short runs, so that every part's
 * next events stay in the cache (256 parts' runs of 1,024 were 7 MB, and
 * each event taken was a miss: the viewer's load of 256 instances, their
 * one store made, 0.44 -> 0.35 s with 64) */
#define FEED_RUN 64
struct feed {
	const struct evstore *st;
	uint64_t next, n; /* the next to read into the run, and how many there are */
	struct cev run[FEED_RUN];
	size_t at, len;
	struct evs_drain drain; /* (when the merge consumes its parts) */
};

static bool feed_on(struct feed *f)
{
	if (++f->at < f->len)
		return true;
	if (f->next >= f->n)
		return false;
	f->len = (size_t)MIN(FEED_RUN, f->n - f->next);
	evs_copy(f->st, f->next, f->len, f->run);
	f->next += f->len;
	f->at = 0;
	if (f->drain.s)
		evs_drain_to(&f->drain, f->next);
	return true;
}

static inline skey part_key(const struct cev *c) { return (skey)((uint64_t)c->ts ^ (1ull << 63)) << 64 | c->loc; }

/* A merge of parts' events into one store, in the order they are read in,
 * done in steps (merger_run): the parts are only read meanwhile. */
struct merger {
	struct evstore *into;
	struct feed *f;
	size_t nf;
	struct tourney t;
	struct cev *out;
	uint64_t left;
	struct model *m;
	struct part *pairing; /* into's part, paired afresh as it fills (NULL: not paired) */
};

static void merger_init(struct merger *mg, struct part *const *ps, size_t k, struct evstore *into)
{
	*mg = (struct merger){.into = into, .f = xcalloc(k, sizeof *mg->f), .nf = k, .out = xmalloc(EVS_BLOCK * sizeof *mg->out)};
	tourney_init(&mg->t, k);
	for (size_t s = 0; s < k; s++) {
		struct feed *f = &mg->f[s];
		*f = (struct feed){.st = &ps[s]->store, .n = pcount(ps[s]), .at = SIZE_MAX};
		mg->t.key[s] = feed_on(f) ? part_key(&f->run[0]) : NO_KEY;
		mg->left += f->n;
	}
	tourney_play(&mg->t);
}

/* Up to EVS_BLOCK merged events into out; how many. */
static size_t merger_take(struct merger *mg, struct cev *out)
{
	size_t n = 0;
	for (; mg->left && n < EVS_BLOCK; mg->left--) {
		struct feed *w = &mg->f[mg->t.top];
		out[n++] = w->run[w->at];
		mg->t.key[mg->t.top] = feed_on(w) ? part_key(&w->run[w->at]) : NO_KEY;
		tourney_replay(&mg->t);
	}
	return n;
}

/* Merged events a[0..n) into the store (paired there, while they are
 * still unpacked, when it pairs), packed at once: they come in order, so
 * nothing lands among them (and a large open run would be pages to fault
 * in and events to move). */
static void merger_store(struct merger *mg, const struct cev *a, size_t n)
{
	evs_merge(mg->into, a, n, NULL);
	if (mg->pairing)
		pair_range(mg->m, mg->pairing, evs_count(mg->into) - n, PAIR_AFRESH);
	evs_pack_whole(mg->into);
}

/* Merge on until done (true) or, at a block's end, past the deadline. */
static bool merger_run(struct merger *mg, uint64_t deadline)
{
	while (mg->left) {
		merger_store(mg, mg->out, merger_take(mg, mg->out));
		if (deadline != UINT64_MAX && now_ns() >= deadline)
			break;
	}
	return !mg->left;
}

/* A merge at once on two threads: this one reads the parts in order (the
 * tournament: unpacking, comparing), a second stores, pairs and packs
 * what it is handed, a block at a time, through a ring of blocks. */
#define HAND_RING 8
struct handover {
	struct merger *mg;
	struct cev *run[HAND_RING];
	size_t n[HAND_RING];
	uint64_t given, stored; /* blocks handed over and stored so far */
	bool done;
	pthread_mutex_t lock;
	pthread_cond_t moved;
};

static void *storer(void *arg)
{
	struct handover *h = arg;
	for (;;) {
		pthread_mutex_lock(&h->lock);
		while (h->stored == h->given && !h->done)
			pthread_cond_wait(&h->moved, &h->lock);
		bool more = h->stored < h->given;
		pthread_mutex_unlock(&h->lock);
		if (!more)
			return NULL;
		size_t r = h->stored % HAND_RING;
		merger_store(h->mg, h->run[r], h->n[r]);
		pthread_mutex_lock(&h->lock);
		h->stored++;
		pthread_cond_signal(&h->moved);
		pthread_mutex_unlock(&h->lock);
	}
}

/* The whole merge with a storer beside this thread; false (nothing done)
 * when there is no thread to be had. */
static bool merger_run_two(struct merger *mg)
{
	struct handover h = {.mg = mg};
	pthread_t t;
	pthread_mutex_init(&h.lock, NULL);
	pthread_cond_init(&h.moved, NULL);
	for (size_t r = 0; r < HAND_RING; r++)
		h.run[r] = xmalloc(EVS_BLOCK * sizeof *h.run[r]);
	bool two = !pthread_create(&t, NULL, storer, &h);
	while (two && mg->left) {
		pthread_mutex_lock(&h.lock);
		while (h.given - h.stored == HAND_RING)
			pthread_cond_wait(&h.moved, &h.lock);
		pthread_mutex_unlock(&h.lock);
		size_t r = h.given % HAND_RING;
		h.n[r] = merger_take(mg, h.run[r]);
		pthread_mutex_lock(&h.lock);
		h.given++;
		pthread_cond_signal(&h.moved);
		pthread_mutex_unlock(&h.lock);
	}
	if (two) {
		pthread_mutex_lock(&h.lock);
		h.done = true;
		pthread_cond_signal(&h.moved);
		pthread_mutex_unlock(&h.lock);
		pthread_join(t, NULL);
	}
	for (size_t r = 0; r < HAND_RING; r++)
		free(h.run[r]);
	pthread_cond_destroy(&h.moved);
	pthread_mutex_destroy(&h.lock);
	return two;
}

static void merger_free(struct merger *mg)
{
	for (size_t s = 0; s < mg->nf; s++)
		evs_drain_free(&mg->f[s].drain);
	free(mg->out);
	tourney_free(&mg->t);
	free(mg->f);
}

/* The events of parts ps[0..k) merged at once into part into's store,
 * paired afresh as they land when pairing; the parts are freed after
 * (their pages go as they are read). */
void merge_stores(struct model *m, struct part *const *ps, size_t k, struct part *into, bool pairing)
{
	struct merger mg;
	merger_init(&mg, ps, k, &into->store);
	for (size_t s = 0; s < k; s++)
		evs_drain_init(&mg.f[s].drain, &ps[s]->store);
	mg.m = m;
	mg.pairing = pairing ? into : NULL;
	if (mg.left < 4 * EVS_BLOCK || !merger_run_two(&mg))
		merger_run(&mg, UINT64_MAX);
	merger_free(&mg);
}

/* The parts becoming one (model_merge_step): the store they merge into. */
struct merging {
	struct merger mg;
	struct part *one;
};

void merging_end(struct model *m)
{
	if (!m->merging)
		return;
	merger_free(&m->merging->mg);
	if (m->merging->one)
		part_free(m->merging->one);
	free(m->merging);
	m->merging = NULL;
}

/* Every source's lanes in part 0, the one store, from now on. */
void sources_in_one(struct model *m)
{
	for (size_t li = 0; li < m->nlanes; li++)
		m->lp[li].part = 0;
	for (size_t i = 0; i < m->capsource_part; i++)
		m->source_part[i] = !!m->source_part[i];
}

/* The one store's stacks, paired as it filled, become the lanes' (the
 * parts' had the same spans open, at their own positions), and it pairs
 * in the lanes' from now on. */
static void stacks_from(struct model *m, struct part *one)
{
	for (size_t li = 0; li < one->nstacks; li++) {
		struct lane_pairs *l = &m->lp[li], *o = &one->stacks[li];
		free(l->stk);
		l->stk = o->stk;
		l->cap = o->cap;
		l->depth = o->depth;
		free(o->longest); /* (the lanes' own were kept as their parts paired) */
	}
	for (size_t li = one->nstacks; li < m->nlanes; li++)
		m->lp[li].depth = 0;
	free(one->stacks);
	one->stacks = NULL;
	one->nstacks = 0;
}

/* The one store done: it takes the parts' place; the stacks are its own
 * (paired as it filled) or the parts' begins found again in it. */
static void merging_done(struct model *m)
{
	struct part *one = m->merging->one;
	m->merging->one = NULL;
	one->one = true;
	merging_end(m);
	m->clanes = m->nlanes;
	struct held *held = NULL;
	size_t nheld = 0, cap = 0;
	if (!one->stacks)
		hold_stacks(m, NULL, 0, &held, &nheld, &cap);
	for (size_t i = 0; i < m->nparts; i++)
		part_free(m->parts[i]);
	m->parts[0] = one;
	m->nparts = m->cparts = 1;
	sources_in_one(m);
	if (one->stacks)
		stacks_from(m, one);
	else
		find_held(held, nheld, &one->store);
	lanes_at_home(m);
	bigmem_free(&m->restored); /* (what a saved index lent the parts) */
	snap_take(m, one, pcount(one));
	m->epoch++;
}

/* Once every source is read (or caught up), the parts become one: reading
 * a merged order costs a tournament per event, and finding a position
 * asks every part, while one store answers at once.  Sources that go on
 * growing append at the end of the one, where the newest events lie.
 * In steps, the parts read as they are meanwhile; events committed
 * meanwhile (seal) make it start again.  growing: sources will go on
 * growing, so the one is paired as it fills, in stacks of its own: its
 * snapshots let a late batch pair again from near where it lands, not
 * from the start of every source (a tenth more time, spent only then). */
static bool merge_run(struct model *m, uint64_t budget_ns, bool growing)
{
	if (!m->merging) {
		finish_commit(m);
		if (m->npend)
			return false;
		piles_settle(m); /* (piles pair with their source first) */
		if (m->nparts < 2)
			return false;
		m->merging = xcalloc(1, sizeof *m->merging);
		struct part *one = m->merging->one = xcalloc(1, sizeof *m->merging->one); /* (with a packer of its own) */
		merger_init(&m->merging->mg, m->parts, m->nparts, &one->store);
		for (size_t i = 0; i < m->nparts; i++)
			one->has_pairs |= m->parts[i]->has_pairs;
		if (growing && one->has_pairs) {
			one->nstacks = m->nlanes;
			one->stacks = xcalloc(one->nstacks, sizeof *one->stacks);
			m->merging->mg.m = m;
			m->merging->mg.pairing = one;
		}
	}
	uint64_t deadline = budget_ns == UINT64_MAX ? UINT64_MAX : now_ns() + budget_ns;
	if (!merger_run(&m->merging->mg, deadline))
		return true;
	merging_done(m);
	return false;
}

bool model_merge_step(struct model *m, uint64_t budget_ns) { return merge_run(m, budget_ns, false); }

bool model_merging(const struct model *m) { return m->merging; }

bool model_merge_wanted(const struct model *m) { return m->merging || m->nparts > 1; }

void model_merge_parts(struct model *m)
{
	model_commit(m);
	while (merge_run(m, UINT64_MAX, true))
		;
}
