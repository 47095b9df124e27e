/* htdump/saved.c: the saved index: what the decoder keeps, written and read back */
#include "decoders/htdump/htdump.h"

/* What decoding learnt; the compiled layouts are not kept (they are
 * compiled again when used). */
void ht_save(void *vst, struct buf *out)
{
	struct ht *h = vst;
	put_array(out, h->st, h->nst, sizeof *h->st);
	put_u64(out, h->nkd);
	for (size_t i = 0; i < h->nkd; i++) {
		const struct kdesc *k = &h->kd[i];
		put_u64(out, k->off);
		put_u64(out, (uint64_t)k->id << 32 | k->name);
		put_u64(out, (uint64_t)k->stream << 16 | (uint64_t)k->declared << 8 | k->builtin);
		put_u64(out, k->events);
		put_array(out, k->f, k->nf, sizeof *k->f);
	}
	put_array(out, h->chg, h->nchg, sizeof *h->chg);
	hmap_save(&h->map, out);
	hmap_save(&h->names, out);
	put_array(out, h->tlane, FAST_TIDS, sizeof *h->tlane);
	hmap_save(&h->tlanes, out);
	uint64_t v[] = {h->data_since_chg, h->mappings, h->conflicts, h->nthreads, h->proc_lane, h->meta_lane,
			h->redefined, h->orphan_fields, h->too_many_fields, h->have_version, h->version[0],
			h->version[1], h->version[2], h->prev_off, h->have_prev};
	put_array(out, v, ARRAY_LEN(v), sizeof *v);
	put_array(out, h->hard_events, K_HARD, sizeof *h->hard_events);
}

static bool restore_klasses(struct ht *h, struct blob *r, uint32_t nstr)
{
	uint64_t n = get_below(r, (uint64_t)(r->end - r->p) / 32 + 1);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t off = get_u64(r), a = get_u64(r), b = get_u64(r), events = get_u64(r);
		struct kdesc k = {.off = off, .id = (uint32_t)(a >> 32), .name = (uint32_t)a, .stream = (uint32_t)(b >> 16),
				  .declared = (uint8_t)(b >> 8), .builtin = b & 1, .events = events};
		k.f = get_copy(r, &k.nf, sizeof *k.f);
		k.capf = k.nf;
		xgrow(&h->kd, &h->capkd, h->nkd + 1, sizeof *h->kd);
		h->kd[h->nkd++] = k;
		if (k.name >= nstr || k.stream >= h->nst || k.nf > MAX_FIELDS)
			return false;
		for (size_t j = 0; j < k.nf; j++) {
			fix_bool(&h->kd[i].f[j].canon);
			if (k.f[j].type >= nstr || k.f[j].name >= nstr)
				return false;
		}
		ht_list_add(h, &h->by_id, k.id, (uint32_t)i);
		ht_list_add(h, &h->by_name, k.name, (uint32_t)i);
	}
	return !r->bad;
}

bool ht_restore(void *vst, struct blob *r)
{
	struct ht *h = vst;
	struct model *m = dec_model(h->in);
	uint32_t nstr = strtab_count(model_strings(m)), nlanes = model_nlanes(m);
	h->st = get_copy(r, &h->nst, sizeof *h->st);
	h->capst = h->nst;
	for (size_t i = 0; i < h->nst; i++) {
		bool *flags[] = {&h->st[i].be, &h->st[i].spec_hdr, &h->st[i].hdr_known, &h->st[i].has_endianness};
		for (size_t j = 0; j < ARRAY_LEN(flags); j++)
			fix_bool(flags[j]);
	}
	if (!restore_klasses(h, r, nstr))
		return false;
	h->chg = get_copy(r, &h->nchg, sizeof *h->chg);
	h->capchg = h->nchg;
	if (!hmap_restore(&h->map, r, nstr) || !hmap_restore(&h->names, r, nstr))
		return false;
	size_t n;
	const void *tl = get_array(r, &n, sizeof *h->tlane);
	if (n != FAST_TIDS)
		return false;
	memcpy(h->tlane, tl, sizeof h->tlane);
	uint64_t v[15];
	if (!hmap_restore(&h->tlanes, r, nlanes))
		return false;
	const void *vals = get_array(r, &n, sizeof *v);
	if (n != ARRAY_LEN(v))
		return false;
	memcpy(v, vals, sizeof v);
	h->data_since_chg = v[0] & 1, h->mappings = v[1], h->conflicts = v[2], h->nthreads = v[3];
	h->proc_lane = (uint32_t)v[4], h->meta_lane = (uint32_t)v[5], h->redefined = v[6], h->orphan_fields = v[7];
	h->too_many_fields = v[8], h->have_version = v[9] & 1;
	for (int i = 0; i < 3; i++)
		h->version[i] = (uint8_t)v[10 + i];
	h->prev_off = v[13], h->have_prev = v[14] & 1;
	const void *hard = get_array(r, &n, sizeof *h->hard_events);
	if (n != K_HARD || v[4] > nlanes || v[5] > nlanes)
		return false;
	memcpy(h->hard_events, hard, sizeof h->hard_events);
	uint64_t threads = h->tlanes.n; /* (info lists them: it must be their count) */
	for (size_t i = 0; i < FAST_TIDS; i++) {
		threads += h->tlane[i] != 0;
		if (h->tlane[i] > nlanes)
			return false;
	}
	return !r->bad && threads == h->nthreads;
}
