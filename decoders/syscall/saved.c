/* syscall/saved.c: the saved index: what the decoder keeps, written and read back */
#include "decoders/syscall/syscall.h"

void sc_save(void *st, struct buf *out)
{
	struct sc *sc = st;
	put_u64(out, sc->ns);
	for (size_t i = 0; i < sc->ns; i++) {
		struct stream s = sc->s[i];
		s.listed = NULL;
		put_array(out, &s, 1, sizeof s);
		put_array(out, sc->s[i].listed, sc->s[i].listed ? 2 * MAX_LISTED : 0, sizeof *s.listed);
	}
	size_t ntypes = sc->types_far.n;
	for (size_t x86 = 0; x86 < 2; x86++)
		for (size_t nr = 0; nr < TYPES_DENSE; nr++)
			ntypes += sc->types[x86][nr] != 0;
	put_u64(out, ntypes);
	for (size_t x86 = 0; x86 < 2; x86++)
		for (size_t nr = 0; nr < TYPES_DENSE; nr++)
			if (sc->types[x86][nr])
				put_u64(out, (uint64_t)(x86 << 16 | nr) << 32 | sc->types[x86][nr]);
	for (size_t i = 0; i < sc->types_far.cap; i++)
		if (sc->types_far.used[i])
			put_u64(out, sc->types_far.keys[i] << 32 | sc->types_far.vals[i]);
	hmap_save(&sc->lanes, out);
	hmap_save(&sc->families, out);
	hmap_save(&sc->fprints, out);
	put_array(out, sc->unflushed, sc->nunflushed, sizeof *sc->unflushed);
	uint64_t v[] = {sc->skip, (uint64_t)sc->last_ts, sc->have_ts, sc->fprints_full, sc->stale.off, sc->stale.len,
			sc->has_stale, sc->gap_past_end};
	put_array(out, v, ARRAY_LEN(v), sizeof *v);
}

static bool restore_streams(struct sc *sc, struct blob *r)
{
	uint64_t n = get_below(r, (uint64_t)(r->end - r->p) / sizeof(struct stream) + 1);
	sc->s = xcalloc(n, sizeof *sc->s);
	sc->caps = n;
	while (sc->ns < n && !r->bad) {
		size_t one, nl;
		const void *p = get_array(r, &one, sizeof *sc->s);
		if (one != 1)
			return false;
		struct stream *s = &sc->s[sc->ns++]; /* (counted now: what it holds is freed with the rest) */
		memcpy(s, p, sizeof *s);
		bool *flags[] = {&s->be, &s->seg16, &s->has_ref, &s->ref_from_record, &s->x86, &s->child, &s->first,
				 &s->after_filler, &s->errno_seen};
		for (size_t i = 0; i < ARRAY_LEN(flags); i++)
			fix_bool(flags[i]);
		s->listed = get_copy(r, &nl, sizeof *s->listed);
		if ((nl && nl != 2 * MAX_LISTED) || s->nlisted_gaps > MAX_LISTED || s->nlisted_fillers > MAX_LISTED ||
		    (!nl && (s->nlisted_gaps || s->nlisted_fillers)) || s->family >= n || s->dup_of > n ||
		    s->uname_off > sc->in->size || s->uname_len > sc->in->size - s->uname_off)
			return false;
	}
	return !r->bad;
}

bool sc_restore(void *st, struct blob *r)
{
	struct sc *sc = st;
	struct model *m = dec_model(sc->in);
	if (!restore_streams(sc, r))
		return false;
	uint64_t n = get_below(r, (2u << 16) + 1);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t v = get_u64(r);
		if (v >> 32 >= 2u << 16 || !(uint32_t)v || (uint32_t)v > model_ntypes(m))
			return false;
		sc_type_set(sc, (uint32_t)(v >> 32), (uint32_t)v);
	}
	if (!hmap_restore(&sc->lanes, r, model_nlanes(m)) || !hmap_restore(&sc->families, r, sc->ns) ||
	    !hmap_restore(&sc->fprints, r, sc->ns + 1))
		return false;
	sc->unflushed = get_copy(r, &sc->nunflushed, sizeof *sc->unflushed);
	sc->capunflushed = sc->nunflushed;
	size_t k;
	const uint64_t *v = get_array(r, &k, sizeof *v);
	if (k != 8)
		return false;
	uint64_t w[8];
	memcpy(w, v, sizeof w);
	sc->skip = w[0], sc->last_ts = (int64_t)w[1], sc->have_ts = w[2] & 1, sc->fprints_full = w[3] & 1;
	sc->stale = (struct area){w[4], w[5]};
	sc->has_stale = w[6] & 1, sc->gap_past_end = w[7];
	return !r->bad;
}
