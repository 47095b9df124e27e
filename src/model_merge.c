/* model_merge.c: the parts made one store (the viewer's, once everything is
 * read: a jump among many parts bisects them all) and the merges of parts
 * that settling piles uses, in steps or at once. */
#include "src/model_int.h"

/* A part read in order, a run at a time. */
#define FEED_RUN 1024
struct feed {
	const struct evstore *st;
	uint64_t next, n; /* the next to read into the run, and how many there are */
	struct cev run[FEED_RUN];
	size_t at, len;
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
	return true;
}

static inline skey part_key(const struct cev *c) { return (skey)((uint64_t)c->ts ^ (1ull << 63)) << 64 | c->loc; }

/* A merge of parts' events into one store, in the order they are read in,
 * done in steps (merger_run): the parts are only read meanwhile. */
struct merger {
	struct evstore *into;
	struct feed *f;
	struct tourney t;
	struct cev *out;
	size_t nout;
	uint64_t left;
	struct model *m;
	struct part *pairing; /* into's part, paired afresh as it fills (NULL: not paired) */
};

static void merger_init(struct merger *mg, struct part *const *ps, size_t k, struct evstore *into)
{
	*mg = (struct merger){.into = into, .f = xcalloc(k, sizeof *mg->f), .out = xmalloc(EVS_BLOCK * sizeof *mg->out)};
	tourney_init(&mg->t, k);
	for (size_t s = 0; s < k; s++) {
		struct feed *f = &mg->f[s];
		*f = (struct feed){.st = &ps[s]->store, .n = pcount(ps[s]), .at = SIZE_MAX};
		mg->t.key[s] = feed_on(f) ? part_key(&f->run[0]) : NO_KEY;
		mg->left += f->n;
	}
	tourney_play(&mg->t);
}

/* The merged events so far into the store (paired there, while they are
 * still unpacked, when it pairs). */
static void merger_flush(struct merger *mg)
{
	evs_merge(mg->into, mg->out, mg->nout);
	if (mg->pairing)
		pair_range(mg->m, mg->pairing, evs_count(mg->into) - mg->nout, PAIR_AFRESH);
	evs_pack(mg->into);
	mg->nout = 0;
}

/* Merge on until done (true) or, at a block's end, past the deadline. */
static bool merger_run(struct merger *mg, uint64_t deadline)
{
	for (; mg->left; mg->left--) {
		struct feed *w = &mg->f[mg->t.top];
		mg->out[mg->nout++] = w->run[w->at];
		if (mg->nout == EVS_BLOCK) {
			merger_flush(mg);
			if (deadline != UINT64_MAX && now_ns() >= deadline) {
				mg->left--;
				mg->t.key[mg->t.top] = feed_on(w) ? part_key(&w->run[w->at]) : NO_KEY;
				tourney_replay(&mg->t);
				return !mg->left;
			}
		}
		mg->t.key[mg->t.top] = feed_on(w) ? part_key(&w->run[w->at]) : NO_KEY;
		tourney_replay(&mg->t);
	}
	merger_flush(mg);
	return true;
}

static void merger_free(struct merger *mg)
{
	free(mg->out);
	tourney_free(&mg->t);
	free(mg->f);
}

/* The events of parts ps[0..k) merged at once into part into's store,
 * paired afresh as they land when pairing. */
void merge_stores(struct model *m, struct part *const *ps, size_t k, struct part *into, bool pairing)
{
	struct merger mg;
	merger_init(&mg, ps, k, &into->store);
	mg.m = m;
	mg.pairing = pairing ? into : NULL;
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

void model_merge_parts(struct model *m)
{
	model_commit(m);
	while (merge_run(m, UINT64_MAX, true))
		;
}
