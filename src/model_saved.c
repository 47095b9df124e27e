/* model_saved.c: the model in a saved index (model_save) and read back from one
 * (model_restore), every value checked against what the rest allows. */
#include <sys/mman.h>

#include "src/model_int.h"

bool model_savable(struct model *m)
{
	finish_commit(m);
	if (m->npend)
		return false;
	piles_settle(m); /* (what is saved has no piles) */
	return true;
}

size_t model_npools(const struct model *m) { return m->nparts; }

const uint8_t *model_pool(const struct model *m, size_t i, size_t *n)
{
	*n = m->parts[i]->store.pool.n;
	return m->parts[i]->store.pool.p;
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
		/* its part: its source's, or (| 1) the part its own pile became */
		put_u64(out, (uint64_t)p->part << 1 | (p->part != m->source_part[l->source] - 1));
		put_array(out, p->longest, p->nlongest, sizeof *p->longest);
		put_u64(out, p->other_max);
		put_i64(out, p->pairs_until);
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
	put_u64(out, m->have_span);
	put_i64(out, m->first);
	put_i64(out, m->last);
	put_u64(out, m->nparts); /* (each one's pool: model_pool, one after another) */
	for (size_t k = 0; k < m->nparts; k++) {
		const struct part *p = m->parts[k];
		put_u64(out, p->store.pool.n);
		put_u64(out, p->has_pairs);
		evs_save(&p->store, out);
		put_u64(out, p->nsnaps);
		for (size_t i = 0; i < p->nsnaps; i++) {
			put_u64(out, p->snaps[i].pos);
			put_array(out, p->snaps[i].data, p->snaps[i].n, sizeof *p->snaps[i].data);
		}
	}
}

/* Lanes and types are made again as their first run made them, each one
 * checked to get the id it had: what the decoders' open() made before
 * (the same, in the same order) is found, the rest added.  (The stacks'
 * positions are checked once the events are there.) */
static bool restore_lanes(struct model *m, struct blob *r, uint64_t nsources, uint32_t **saved_parts)
{
	uint64_t n = get_below(r, MAX_LANES - 1);
	uint32_t *saved_part = *saved_parts = xcalloc(n + 1, sizeof *saved_part);
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
		saved_part[id] = (uint32_t)get_below(r, UINT32_MAX); /* (map_parts) */
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
		p->pairs_until = get_i64(r);
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

/* (positions in part p, checked against its events; lanes its own) */
static bool restore_snaps(struct model *m, struct part *p, struct blob *r)
{
	uint64_t n = get_below(r, SNAP_MAX + 1), nev = pcount(p);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		struct snap *s = &p->snaps[p->nsnaps++];
		s->pos = get_u64(r);
		s->data = get_copy(r, &s->n, sizeof *s->data);
		if (s->pos > nev || (i && s->pos <= s[-1].pos))
			return false;
		for (size_t k = 0; k + 2 <= s->n;) { /* lane, depth, positions */
			uint64_t lane = s->data[k], depth = s->data[k + 1];
			if (lane >= m->nlanes || !lane_in(m, lane, p) || depth > s->n - k - 2)
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

/* A model saved as one store (a viewer's, its sources' parts merged) is
 * restored as one: the sources' parts made at open give way to part 0. */
static void restore_as_one(struct model *m, const uint32_t *saved_part, uint64_t nsaved)
{
	bool one = nsaved == 1 && m->nparts > 1;
	for (size_t l = 0; l < m->nlanes && one; l++)
		one = saved_part[l] == 0;
	if (!one)
		return;
	for (size_t i = 1; i < m->nparts; i++)
		part_free(m->parts[i]);
	m->nparts = m->cparts = 1;
	m->parts[0]->one = true;
	sources_in_one(m);
}

/* Saved part k is the model's part map[k]: the lanes made their sources'
 * parts again (in the order they came; saved_part: k << 1), and the parts
 * own piles became (| 1) are made anew.  False when they do not fit. */
static bool map_parts(struct model *m, const uint32_t *saved_part, uint64_t nsaved, uint32_t *map)
{
	restore_as_one(m, saved_part, nsaved);
	uint8_t *mapped = xcalloc(m->nparts + 1, 1); /* (a part is one saved part's) */
	bool fit = true;
	for (uint64_t k = 0; k < nsaved; k++)
		map[k] = UINT32_MAX;
	for (size_t l = 0; l < m->nlanes && fit; l++) {
		uint32_t k = saved_part[l] >> 1, home = m->lp[l].part;
		fit = k < nsaved && !(saved_part[l] & 1) ? map[k] == home || (map[k] == UINT32_MAX && !mapped[home])
							 : k < nsaved;
		if (fit && !(saved_part[l] & 1) && map[k] == UINT32_MAX)
			map[k] = home, mapped[home] = 1;
	}
	free(mapped);
	for (size_t l = 0; l < m->nlanes && fit; l++) {
		uint32_t k = saved_part[l] >> 1;
		if (!(saved_part[l] & 1))
			continue;
		if (map[k] == UINT32_MAX) {
			add_part(m);
			map[k] = (uint32_t)m->nparts - 1;
		}
		m->lp[l].part = map[k];
	}
	for (uint64_t k = 0; k < nsaved && fit; k++)
		fit = map[k] != UINT32_MAX;
	return fit && m->nparts == nsaved;
}

/* The parts, their pools lent from the saved ones (pool[0..npool), one
 * after another), which the model keeps. */
static bool restore_parts(struct model *m, struct blob *r, struct bigmem *pool, size_t npool, uint64_t ninputs,
			  const uint32_t *saved_part)
{
	m->restored = *pool;
	*pool = (struct bigmem){0};
	uint64_t nsaved = get_below(r, (uint64_t)m->nparts + m->nlanes);
	uint32_t *map = xcalloc(nsaved + 1, sizeof *map);
	if (r->bad || !map_parts(m, saved_part, nsaved, map)) {
		free(map);
		return false;
	}
	struct evs_limits lim = {ninputs, m->ntypes, m->nlanes, strtab_count(m->st)};
	size_t at = 0;
	bool fit = true;
	/* checking each block reads a few bytes of it: only those pages, not
	 * the kernel's usual neighbours (the whole pool, in memory at once);
	 * advised once for every part's pool */
	if (m->restored.p)
		madvise(m->restored.p, m->restored.bytes, MADV_RANDOM);
	for (size_t k = 0; k < nsaved && fit && !r->bad; k++) {
		struct part *p = m->parts[map[k]];
		uint64_t n = get_below(r, npool - at + 1);
		p->has_pairs = get_u64(r) & 1;
		uint8_t *pool_at = m->restored.p ? (uint8_t *)m->restored.p + at : NULL; /* (none: no events packed) */
		fit = !r->bad && evs_restore(&p->store, r, pool_at, (size_t)n, &lim) && restore_snaps(m, p, r);
		at += (size_t)n;
	}
	if (m->restored.p)
		madvise(m->restored.p, m->restored.bytes, MADV_NORMAL);
	free(map);
	m->ncompact = nev_in(m, m->nparts);
	return fit && !r->bad;
}

static bool restore_model(struct model *m, struct blob *r, struct bigmem *pool, size_t npool,
			  struct bigmem *strings, size_t nstrings, uint64_t nsources, uint64_t ninputs,
			  const void *const *owners, size_t nowners, uint32_t **saved_part)
{
	/* (sequences: their decoders' open() registered them again) */
	if (!strtab_adopt(m->st, strings, nstrings) || get_u64(r) != m->nseqs ||
	    !restore_lanes(m, r, nsources, saved_part) || !restore_types(m, r, owners, nowners))
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
	m->have_span = get_u64(r) & 1;
	m->first = get_i64(r);
	m->last = get_i64(r);
	if (r->bad || !restore_parts(m, r, pool, npool, ninputs, *saved_part))
		return false;
	for (size_t i = 0; i < m->ntypes; i++)
		if (m->seen[i].ex.input != NO_EXAMPLE && m->seen[i].ex.input >= ninputs)
			return false;
	for (size_t i = 0; i < m->nlanes; i++)
		for (uint32_t j = 0; j < m->lp[i].depth; j++)
			if (m->lp[i].stk[j] >= pcount(m->parts[m->lp[i].part]))
				return false;
	lanes_at_home(m);
	m->epoch++;
	m->changed_from = 0;
	m->generation++;
	return true;
}

bool model_restore(struct model *m, struct blob *r, struct bigmem *pool, size_t npool, struct bigmem *strings,
		   size_t nstrings, uint64_t nsources, uint64_t ninputs, const void *const *owners, size_t nowners)
{
	uint32_t *saved_part = NULL;
	bool ok = restore_model(m, r, pool, npool, strings, nstrings, nsources, ninputs, owners, nowners, &saved_part);
	free(saved_part);
	return ok;
}
