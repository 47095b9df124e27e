/* dial9/streams.c: sub-streams and their tables (schemas, pools); lanes, and
 * thread events held until their worker is known */
#include "decoders/dial9/dial9.h"

/* ---- sub-streams ---------------------------------------------------------- */

/* A header: forget the current sub-stream's types and pool ids (in time
 * proportional to what it defined) and start a new one. */
void d9_sub_begin(struct d9 *d, uint64_t off)
{
	if (d->nsubs) {
		const struct sub *s = &d->subs[d->nsubs - 1];
		for (size_t i = s->t0; i < d->ntents; i++)
			d->page[d->tents[i].id >> 8][d->tents[i].id & 255].s = NULL;
		for (int k = 0; k < 2; k++)
			for (size_t i = s->p0[k]; i < d->npool[k]; i++)
				d9_ids_put(&d->cur[k], d->pools[k][i].id, 0);
	}
	d->base = 0;
	d->frames[FR_HEADER]++;
	struct sub *last = d->nsubs ? &d->subs[d->nsubs - 1] : NULL;
	if (last && last->t0 == d->ntents && last->p0[0] == d->npool[0] && last->p0[1] == d->npool[1]) {
		last->off = off; /* it defined nothing, so no event is in it: reuse its record */
		return;
	}
	xgrow(&d->subs, &d->capsubs, d->nsubs + 1, sizeof *d->subs);
	d->subs[d->nsubs++] = (struct sub){.off = off,
					   .t0 = (uint32_t)d->ntents,
					   .tsorted = 0,
					   .p0 = {(uint32_t)d->npool[0], (uint32_t)d->npool[1]}};
}

static size_t sub_end_t(const struct d9 *d, size_t i) { return i + 1 < d->nsubs ? d->subs[i + 1].t0 : d->ntents; }
static size_t sub_end_p(const struct d9 *d, size_t i, int k)
{
	return i + 1 < d->nsubs ? d->subs[i + 1].p0[k] : d->npool[k];
}

const struct sub *d9_sub_of(const struct d9 *d, uint64_t off)
{
	size_t lo = 0, hi = d->nsubs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->subs[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &d->subs[lo - 1] : NULL;
}

static int by_tent(const void *a, const void *b)
{
	const struct tent *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_pent(const void *a, const void *b)
{
	const struct pent *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sub-stream s's schema and pool tables are sorted on first use after they
 * grew (d9_settle sorts them all). */
void d9_sort_sub_schemas(struct d9 *d, struct sub *s)
{
	size_t n = sub_end_t(d, (size_t)(s - d->subs)) - s->t0;
	if (s->tsorted != n) {
		qsort(d->tents + s->t0, n, sizeof *d->tents, by_tent);
		s->tsorted = (uint32_t)n;
	}
}

void d9_sort_sub_pool(struct d9 *d, struct sub *s, int k)
{
	size_t n = sub_end_p(d, (size_t)(s - d->subs), k) - s->p0[k];
	if (s->psorted[k] != n) {
		qsort(d->pools[k] + s->p0[k], n, sizeof *d->pools[k], by_pent);
		s->psorted[k] = (uint32_t)n;
	}
}

/* The schema of type id in sub-stream s. */
const struct schema *d9_sub_schema(struct d9 *d, const struct sub *cs, uint32_t id)
{
	struct sub *s = &d->subs[cs - d->subs];
	d9_sort_sub_schemas(d, s);
	size_t lo = s->t0, end = sub_end_t(d, (size_t)(s - d->subs)), hi = end;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->tents[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && d->tents[lo].id == id ? d->sch[d->tents[lo].schema] : NULL;
}

/* The last definition of a pool id in sub-stream s before offset `at`. */
const struct pent *d9_sub_pool(struct d9 *d, const struct sub *cs, int k, uint32_t id, uint64_t at)
{
	struct sub *s = &d->subs[cs - d->subs];
	d9_sort_sub_pool(d, s, k);
	size_t lo = s->p0[k], end = sub_end_p(d, (size_t)(s - d->subs), k), hi = end;
	const struct pent *v = d->pools[k];
	while (lo < hi) { /* first entry > (id, at) */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].id < id || (v[mid].id == id && v[mid].off < at))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > s->p0[k] && v[lo - 1].id == id ? &v[lo - 1] : NULL;
}

uint32_t d9_pool_add(struct d9 *d, int k, uint32_t id, uint32_t val, uint64_t off)
{
	xgrow(&d->pools[k], &d->cappool[k], d->npool[k] + 1, sizeof *d->pools[k]);
	d->pools[k][d->npool[k]] = (struct pent){id, val, off};
	d9_ids_put(&d->cur[k], id, (uint32_t)++d->npool[k]);
	return (uint32_t)d->npool[k];
}

/* ---- lanes ---------------------------------------------------------------- */

/* A lane's name: the tree's trace it is in (when the tree holds several),
 * then its own, in d->tmp. */
static const char *lane_name(struct d9 *d, const char *own)
{
	buf_reset(&d->tmp);
	if (d->lane_prefix)
		buf_adds(&d->tmp, d->lane_prefix);
	buf_adds(&d->tmp, own);
	return buf_str(&d->tmp);
}

uint32_t d9_fixed_lane(struct d9 *d, uint32_t *slot, uint64_t key, const char *name)
{
	if (!*slot)
		*slot = dec_lane(d->in, key, lane_name(d, name)) + 1;
	return *slot - 1;
}

uint32_t d9_worker_lane(struct d9 *d, uint64_t w)
{
	if (w == WORKER_NONE || w > 0xffffffffu)
		return d9_fixed_lane(d, &d->other_lane, LKEY(LK_OTHER, 0), "not a worker");
	if (w < 256 && d->wlane[w])
		return d->wlane[w] - 1;
	char name[32];
	if (w == WORKER_BLOCKING)
		snprintf(name, sizeof name, "blocking");
	else
		snprintf(name, sizeof name, "worker %llu", (unsigned long long)w);
	uint32_t lane = dec_lane(d->in, w, lane_name(d, name));
	if (w < 256)
		d->wlane[w] = lane + 1;
	return lane;
}

/* A thread that is not (known as) a worker: "thread 46021 (name)". */
static uint32_t thread_lane(struct d9 *d, uint64_t tid, uint32_t name)
{
	uint64_t v;
	bool have = hmap_get(&d->tlane, tid, &v);
	if (have && ((v & 1) || !name))
		return (uint32_t)(v >> 1);
	d->tmp.len = 0;
	if (d->lane_prefix)
		buf_adds(&d->tmp, d->lane_prefix);
	buf_printf(&d->tmp, "thread %llu", (unsigned long long)tid);
	if (name) {
		size_t n;
		const char *s = model_strget(d->m, name, &n);
		buf_adds(&d->tmp, " (");
		buf_add(&d->tmp, s, n);
		buf_addc(&d->tmp, ')');
	}
	uint32_t sid = model_str(d->m, d->tmp.p, d->tmp.len), lane;
	if (have) {
		lane = (uint32_t)(v >> 1);
		model_lane_rename(d->m, lane, sid);
	} else {
		lane = dec_lane_sid(dec_source(d->in), LKEY(LK_THREAD, tid & 0xffffffffu), sid);
	}
	hmap_put(&d->tlane, tid, (uint64_t)lane << 1 | (name != 0));
	return lane;
}

/* Events of a thread not yet known as a worker wait here (a worker's
 * WorkerPark events carry its tid, often later in the file than CPU
 * samples of that thread); they go out when the thread is known, at the
 * end of the data, or when too many wait.  Each thread's waiting events are
 * chained (pend_head: tid -> last index + 1), so knowing a thread costs only
 * its own events. */
static void pend_release(struct d9 *d, struct pend *p)
{
	if (p->dead)
		return;
	p->dead = true;
	struct event e = p->e;
	uint64_t w;
	if (hmap_get(&d->tid_worker, p->tid, &w)) {
		e.lane = d9_worker_lane(d, w);
		d->mapped_samples++;
	} else {
		e.lane = thread_lane(d, p->tid, p->thread_name);
	}
	emit(d, &e);
}

/* Release the oldest n (all when n >= npend), then drop the released. */
void d9_pend_flush(struct d9 *d, size_t n)
{
	n = MIN(n, d->npend);
	for (size_t i = 0; i < n; i++)
		pend_release(d, &d->pend[i]);
	size_t k = 0;
	hmap_clear(&d->pend_head);
	for (size_t i = n; i < d->npend; i++) {
		if (d->pend[i].dead)
			continue;
		uint64_t *head = hmap_ref(&d->pend_head, d->pend[i].tid);
		d->pend[k] = d->pend[i];
		d->pend[k].prev = (uint32_t)*head;
		*head = ++k;
	}
	d->npend = k;
}

void d9_pend_add(struct d9 *d, const struct event *e, uint32_t tid, uint32_t thread_name)
{
	if (d->npend == PENDING_MAX)
		d9_pend_flush(d, PENDING_MAX / 2);
	xgrow(&d->pend, &d->cappend, d->npend + 1, sizeof *d->pend);
	uint64_t *head = hmap_ref(&d->pend_head, tid);
	d->pend[d->npend] = (struct pend){*e, tid, thread_name, (uint32_t)*head, false};
	*head = ++d->npend;
}

/* tid runs worker `worker` (from an event that carries both). */
void d9_learn_tid(struct d9 *d, uint64_t tid, uint64_t worker)
{
	uint64_t old, head;
	bool known = hmap_get(&d->tid_worker, tid, &old);
	if (known && old == worker)
		return;
	hmap_put(&d->tid_worker, tid, worker); /* block_in_place moves a worker to another thread */
	if (tid > UINT32_MAX || !hmap_get(&d->pend_head, tid, &head) || !head)
		return;
	for (uint64_t i = head; i; i = d->pend[i - 1].prev)
		pend_release(d, &d->pend[i - 1]);
	hmap_put(&d->pend_head, tid, 0);
}
