/* dial9/saved.c: the saved index (src/saved.h): the state of one input,
 * kept for the next run and read back, each value checked against what
 * exists (schemas are built again from their identity, itself checked as a
 * schema frame is). */
#include "decoders/dial9/dial9.h"

static void put_ids(struct buf *out, const struct ids *t)
{
	put_array(out, t->v, t->hi, sizeof *t->v);
	hmap_save(&t->big, out);
}

static void put_pages(struct buf *out, const struct d9 *d)
{
	size_t n = 0;
	for (unsigned p = 0; p < 256; p++)
		n += d->page[p] != NULL;
	put_u64(out, n);
	for (unsigned p = 0; p < 256; p++) {
		if (!d->page[p])
			continue;
		put_u64(out, p);
		for (unsigned i = 0; i < 256; i++) {
			const struct slot *sl = &d->page[p][i];
			uint64_t si = 0;
			while (sl->s && d->sch[si] != sl->s)
				si++;
			put_u64(out, (sl->s ? si + 1 : 0) << 32 | sl->tent);
		}
	}
}

void d9_save(void *st, struct buf *out)
{
	struct d9 *d = st;
	put_u64(out, d->nsch);
	for (size_t i = 0; i < d->nsch; i++) {
		put_u64(out, d->sch[i]->nraw);
		put_array(out, d->sch[i]->key, d->sch[i]->nkey, 1);
	}
	put_array(out, d->tents, d->ntents, sizeof *d->tents);
	for (int k = 0; k < 2; k++) {
		put_array(out, d->pools[k], d->npool[k], sizeof *d->pools[k]);
		put_ids(out, &d->cur[k]);
	}
	put_array(out, d->subs, d->nsubs, sizeof *d->subs);
	put_pages(out, d);
	put_u64(out, d->base);
	put_i64(out, d->last_ts);
	put_i64(out, d->prev_ts);
	put_u64(out, (uint64_t)d->started | (uint64_t)d->have_min << 1 | (uint64_t)d->let_go << 2);
	put_array(out, d->wlane, 256, sizeof *d->wlane);
	hmap_save(&d->tlane, out);
	hmap_save(&d->metric_lanes, out);
	hmap_save(&d->tid_worker, out);
	hmap_save(&d->pend_head, out);
	put_u64(out, (uint64_t)d->runtime_lane << 32 | d->meta_lane);
	put_u64(out, (uint64_t)d->other_lane << 32 | d->spans_lane);
	put_array(out, d->pend, d->npend, sizeof *d->pend);
	hmap_save(&d->open_top, out);
	put_array(out, d->opens, d->nopens, sizeof *d->opens);
	put_u64(out, d->free_open);
	put_array(out, d->links, d->nlinks, sizeof *d->links);
	put_array(out, d->syms, d->nsyms, sizeof *d->syms);
	put_u64(out, d->syms_sorted);
	put_array(out, d->clocks, d->nclocks, sizeof *d->clocks);
	put_u64(out, d->clocks_sorted);
	put_array(out, d->frames, FR_KINDS, sizeof *d->frames);
	uint64_t counts[] = {d->no_ts, d->back_steps, d->unres_str, d->unres_stk, d->schema_repeats,
			     d->annot_skipped, d->nested_opt, d->mapped_samples, d->ts_beyond, d->bad_spans};
	put_array(out, counts, ARRAY_LEN(counts), sizeof *counts);
	put_i64(out, d->min_ts);
}

/* Events held for their thread's worker were let go at the end (more data
 * might have named it): a fresh decode of more would place them otherwise. */
bool d9_resumable(void *st) { return !((struct d9 *)st)->let_go; }

/* ---- reading it back --------------------------------------------------------- */

/* A schema's identity as schema_frame() and annot_frame() check it: the
 * frame's body (name, has_ts, fields and their types) to nraw, then whole
 * annotation entries to nkey. */
static bool key_ok(const uint8_t *k, size_t nkey, size_t nraw)
{
	const uint8_t *p, *e = k + nkey;
	unsigned fi;
	if (nraw > nkey || schema_body(k, k + nraw, &p, &fi) != V_OK || p != k + nraw)
		return false;
	while (p < e) {
		if (left(p, e) < 4 || left(p + 4, e) < ld16le(p + 2) + 4u)
			return false;
		p += 4 + ld16le(p + 2);
		uint32_t vl = ld32le(p);
		if (left(p + 4, e) < vl)
			return false;
		p += 4 + vl;
	}
	return true;
}

static bool get_schemas(struct d9 *d, struct blob *r)
{
	uint64_t n = get_below(r, (uint64_t)(r->end - r->p) / 16 + 1);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t nraw = get_u64(r);
		size_t nkey;
		const uint8_t *key = get_array(r, &nkey, 1);
		if (r->bad || nkey > UINT32_MAX || !key_ok(key, nkey, nraw) ||
		    d9_schema_get(d, key, (uint32_t)nkey, (uint32_t)nraw) != i)
			return false;
	}
	return !r->bad;
}

/* A table read back into *v (its count in *n, its room in *cap). */
static void *get_table(struct blob *r, size_t *n, size_t *cap, size_t size)
{
	void *v = get_copy(r, n, size);
	*cap = *n;
	return v;
}

static bool get_ids(struct blob *r, struct ids *t, size_t npool)
{
	t->v = get_table(r, &t->hi, &t->cap, sizeof *t->v);
	if (t->hi > DENSE_IDS || !hmap_restore(&t->big, r, npool + 1))
		return false;
	for (size_t i = 0; i < t->hi; i++)
		if (t->v[i] > npool)
			return false;
	return true;
}

static bool get_pools(struct d9 *d, struct blob *r)
{
	uint32_t nstr = strtab_count(model_strings(d->m));
	for (int k = 0; k < 2; k++) {
		d->pools[k] = get_table(r, &d->npool[k], &d->cappool[k], sizeof *d->pools[k]);
		for (size_t i = 0; i < d->npool[k]; i++) {
			const struct pent *pe = &d->pools[k][i];
			if (k == POOL_STR ? pe->val >= nstr : pe->off > d->in->size || pe->val > (d->in->size - pe->off) / 8)
				return false;
		}
		if (!get_ids(r, &d->cur[k], d->npool[k]))
			return false;
	}
	return !r->bad;
}

static bool get_subs(struct d9 *d, struct blob *r)
{
	d->subs = get_table(r, &d->nsubs, &d->capsubs, sizeof *d->subs);
	for (size_t i = 0; i < d->nsubs; i++) {
		const struct sub *s = &d->subs[i], *prev = i ? s - 1 : NULL;
		size_t tend = i + 1 < d->nsubs ? s[1].t0 : d->ntents;
		if (s->t0 > d->ntents || (prev && (s->off <= prev->off || s->t0 < prev->t0)) ||
		    s->tsorted > tend - MIN(tend, s->t0))
			return false;
		for (int k = 0; k < 2; k++) {
			size_t pend = i + 1 < d->nsubs ? s[1].p0[k] : d->npool[k];
			if (s->p0[k] > d->npool[k] || (prev && s->p0[k] < prev->p0[k]) || s->psorted[k] > pend - MIN(pend, s->p0[k]))
				return false;
		}
	}
	return !r->bad;
}

static bool get_pages(struct d9 *d, struct blob *r)
{
	uint64_t n = get_below(r, 257);
	for (uint64_t j = 0; j < n && !r->bad; j++) {
		uint64_t p = get_below(r, 256);
		if (d->page[p])
			return false;
		d->page[p] = xcalloc(256, sizeof(struct slot));
		for (unsigned i = 0; i < 256; i++) {
			uint64_t v = get_u64(r), si = v >> 32;
			if (si > d->nsch || (uint32_t)v > d->ntents)
				return false;
			d->page[p][i] = (struct slot){si ? d->sch[si - 1] : NULL, (uint32_t)v};
		}
	}
	return !r->bad;
}

/* Lane ids + 1 (0: none) that exist. */
static bool lanes_ok(const struct d9 *d, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] > model_nlanes(d->m))
			return false;
	return true;
}

static bool get_lanes(struct d9 *d, struct blob *r)
{
	size_t n;
	const void *w = get_array(r, &n, sizeof *d->wlane);
	if (n != 256)
		return false;
	memcpy(d->wlane, w, sizeof d->wlane);
	uint64_t nlanes = model_nlanes(d->m);
	if (!hmap_restore(&d->tlane, r, nlanes << 1) || !hmap_restore(&d->metric_lanes, r, nlanes) ||
	    !hmap_restore(&d->tid_worker, r, UINT64_MAX) || !hmap_restore(&d->pend_head, r, UINT32_MAX))
		return false;
	uint64_t a = get_u64(r), b = get_u64(r);
	uint32_t fixed[] = {(uint32_t)(a >> 32), (uint32_t)a, (uint32_t)(b >> 32), (uint32_t)b};
	d->runtime_lane = fixed[0], d->meta_lane = fixed[1], d->other_lane = fixed[2], d->spans_lane = fixed[3];
	return !r->bad && lanes_ok(d, d->wlane, 256) && lanes_ok(d, fixed, 4);
}

/* Events held back for their thread's lane: what the model holds. */
static bool get_pend(struct d9 *d, struct blob *r)
{
	d->pend = get_table(r, &d->npend, &d->cappend, sizeof *d->pend);
	for (size_t i = 0; i < d->npend; i++) {
		const struct event *e = &d->pend[i].e;
		fix_bool(&d->pend[i].dead);
		if (e->input != d->in->id || e->lane >= model_nlanes(d->m) || e->type >= model_ntypes(d->m) ||
		    e->name >= strtab_count(model_strings(d->m)) || d->pend[i].prev > d->npend ||
		    d->pend[i].thread_name >= strtab_count(model_strings(d->m)))
			return false;
	}
	/* (pend_head's values: indices + 1 of pend) */
	for (size_t i = 0; i < d->pend_head.cap; i++)
		if (d->pend_head.used[i] && d->pend_head.vals[i] > d->npend)
			return false;
	return !r->bad;
}

static bool get_spans(struct d9 *d, struct blob *r)
{
	if (!hmap_restore(&d->open_top, r, UINT32_MAX))
		return false;
	d->opens = get_table(r, &d->nopens, &d->capopens, sizeof *d->opens);
	d->free_open = (uint32_t)get_below(r, d->nopens + 1);
	d->links = get_table(r, &d->nlinks, &d->caplinks, sizeof *d->links);
	for (size_t i = 0; i < d->nopens; i++)
		if (d->opens[i].below > d->nopens)
			return false;
	for (size_t i = 0; i < d->open_top.cap; i++)
		if (d->open_top.used[i] && (d->open_top.vals[i] == 0 || d->open_top.vals[i] > d->nopens))
			return false;
	return !r->bad;
}

static bool get_tables(struct d9 *d, struct blob *r)
{
	uint32_t nstr = strtab_count(model_strings(d->m));
	d->syms = get_table(r, &d->nsyms, &d->capsyms, sizeof *d->syms);
	d->syms_sorted = get_below(r, d->nsyms + 1);
	for (size_t i = 0; i < d->nsyms; i++)
		if (d->syms[i].name >= nstr || d->syms[i].file >= nstr)
			return false;
	d->clocks = get_table(r, &d->nclocks, &d->capclocks, sizeof *d->clocks);
	d->clocks_sorted = get_below(r, d->nclocks + 1);
	size_t n;
	const void *frames = get_array(r, &n, sizeof *d->frames);
	if (n != FR_KINDS)
		return false;
	memcpy(d->frames, frames, sizeof d->frames);
	uint64_t c[10];
	const void *counts = get_array(r, &n, sizeof *c);
	if (n != ARRAY_LEN(c))
		return false;
	memcpy(c, counts, sizeof c);
	d->no_ts = c[0], d->back_steps = c[1], d->unres_str = c[2], d->unres_stk = c[3], d->schema_repeats = c[4];
	d->annot_skipped = c[5], d->nested_opt = c[6], d->mapped_samples = c[7], d->ts_beyond = c[8];
	d->bad_spans = c[9];
	d->min_ts = get_i64(r);
	return !r->bad;
}

bool d9_restore(void *st, struct blob *r)
{
	struct d9 *d = st;
	if (!get_schemas(d, r))
		return false;
	d->tents = get_table(r, &d->ntents, &d->captents, sizeof *d->tents);
	for (size_t i = 0; i < d->ntents; i++)
		if (d->tents[i].schema >= d->nsch)
			return false;
	if (!get_pools(d, r) || !get_subs(d, r) || !get_pages(d, r))
		return false;
	d->base = get_u64(r);
	d->last_ts = get_i64(r);
	d->prev_ts = get_i64(r);
	uint64_t flags = get_u64(r);
	d->started = flags & 1;
	d->have_min = flags >> 1 & 1;
	d->let_go = flags >> 2 & 1;
	return get_lanes(d, r) && get_pend(d, r) && get_spans(d, r) && get_tables(d, r);
}
