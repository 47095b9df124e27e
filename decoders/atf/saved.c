/* atf/saved.c: the saved index (src/saved.h): what an index and a detail
 * file hold once read, so that a session opened again is not read again.
 *
 * open_dir() has made the session, its threads, lanes, sequences and the
 * manifests' names as before; what feeding made is read back here: the
 * chunks of each index, its far pairs, the detail records' offsets, the
 * counts and findings --info shows.  Every value that addresses the files
 * is checked against them (a damaged index file gives wrong answers at
 * worst, never a read outside a file).  Not resumable: a session whose
 * files grew is read afresh. */
#include "decoders/atf/atf.h"

#include "src/blob.h"

/* Scalars of struct idx and struct det that only count or report: any
 * value is safe. */
#define IDX_SCALARS(X)                                                                                              \
	X(arch) X(os) X(clock) X(endian) X(version) X(flags) X(hdr_tid) X(hdr_count) X(raw_E) X(hdr_footer) X(hdr_t0) \
	X(hdr_t1) X(footer_at) X(footer_count) X(footer_bytes) X(footer_t0) X(footer_t1) X(footer_crc) X(footer_len)  \
	X(size_count) X(partial) X(trailing) X(crc) X(crc_calc) X(calls) X(returns) X(exceptions) X(unknown)          \
	X(linked) X(unknown_first) X(link_max) X(unknown_kind) X(first) X(last) X(min) X(max) X(backsteps)           \
	X(far_pairs) X(stk_full) X(have_hdr) X(final) X(rejected) X(footer) X(drain)
#define DET_SCALARS(X)                                                                                              \
	X(arch) X(os) X(endian) X(version) X(flags) X(hdr_tid) X(raw_S) X(hdr_count) X(hdr_bytes) X(seq_start)       \
	X(seq_end) X(footer_count) X(footer_bytes) X(footer_t0) X(footer_t1) X(footer_crc) X(end) X(partial) X(crc) \
	X(crc_calc) X(calls) X(returns) X(other_types) X(spec_layout) X(odd_layout) X(tid) X(tid_other) X(seq_min)  \
	X(seq_max) X(tmin) X(tmax) X(bad_len) X(bad_len_at) X(have_hdr) X(final) X(rejected) X(footer) X(tid_known)
#define THREAD_SCALARS(X) \
	X(settled) X(name_tid) X(fwd_ok) X(fwd_dangling) X(fwd_mismatch) X(back_past) X(back_mismatch)

#define PUT(f) put_u64(out, (uint64_t)s->f);
#define GET(f) s->f = get_u64(r);

/* A recovery state: one of the decoder's own strings, or NULL.  Read back
 * it is kept in the model's strings, which live as long as the session. */
static void put_text(struct buf *out, const char *text)
{
	put_u64(out, text != NULL);
	if (text)
		put_array(out, text, strlen(text), 1);
}

static const char *get_text(struct session *ss, struct blob *r)
{
	if (!get_u64(r))
		return NULL;
	size_t n;
	const char *p = get_array(r, &n, 1);
	return r->bad ? NULL : model_strget(ss->m, atf_intern(ss, p, n), NULL);
}

static void put_thread(const struct thread *s, struct buf *out)
{
	THREAD_SCALARS(PUT)
	put_array(out, s->ex_fwd, s->nex_fwd, sizeof *s->ex_fwd);
	put_array(out, s->ex_back, s->nex_back, sizeof *s->ex_back);
}

static bool get_examples(struct blob *r, struct link_ex *ex, size_t *n)
{
	const void *p = get_array(r, n, sizeof *ex);
	if (*n > EXAMPLES)
		return false;
	if (*n)
		memcpy(ex, p, *n * sizeof *ex);
	return !r->bad;
}

static bool get_thread(struct thread *s, struct blob *r)
{
	THREAD_SCALARS(GET)
	return get_examples(r, s->ex_fwd, &s->nex_fwd) && get_examples(r, s->ex_back, &s->nex_back);
}

/* ---- index.atf ------------------------------------------------------------ */

static void idx_save(const struct idx *s, struct buf *out)
{
	IDX_SCALARS(PUT)
	put_u64(out, s->E);
	put_u64(out, s->n);
	put_u64(out, s->size);
	put_text(out, s->state);
	put_text(out, s->from);
	put_array(out, s->ch, s->nch, sizeof *s->ch);
	hmap_save(&s->far, out);
	hmap_save(&s->th->ss->kinds, out);
	put_thread(s->th, out);
}

/* The chunks cut [0, n) in order, each its records' time order. */
static bool chunks_hold(struct idx *x)
{
	if (!x->nch != !x->n || (x->nch && x->ch[0].start))
		return false;
	for (size_t c = 0; c < x->nch; c++) {
		fix_bool(&x->ch[c].sorted);
		if (x->ch[c].start >= x->n || (c && x->ch[c].start <= x->ch[c - 1].start))
			return false;
	}
	return true;
}

/* Far pairs: records of the file, or "decided unpaired". */
static bool far_holds(struct idx *x, struct blob *r)
{
	uint64_t n = get_below(r, (uint64_t)(r->end - r->p) / 16 + 1);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t k = get_below(r, x->n), v = get_u64(r);
		if (v >= x->n && v != FAR_NONE)
			return false;
		hmap_put(&x->far, k, v);
	}
	return !r->bad;
}

static bool idx_restore(struct idx *s, struct blob *r)
{
	struct session *ss = s->th->ss;
	uint64_t size = s->in->size;
	IDX_SCALARS(GET)
	s->E = get_below(r, size + 1);
	s->n = get_below(r, (size - s->E) / REC + 1);
	s->size = get_below(r, size + 1);
	s->state = get_text(ss, r);
	s->from = get_text(ss, r);
	s->ch = get_copy(r, &s->nch, sizeof *s->ch);
	s->capch = s->nch;
	if (r->bad || !s->final || (s->n && s->E < HDR) || !chunks_hold(s) || !far_holds(s, r) ||
	    !hmap_restore(&ss->kinds, r, model_ntypes(ss->m)) || !get_thread(s->th, r))
		return false;
	model_seq_changed(ss->m);
	return true;
}

/* ---- detail.atf ----------------------------------------------------------- */

static void det_save(const struct det *s, struct buf *out)
{
	DET_SCALARS(PUT)
	put_u64(out, s->S);
	put_u64(out, s->size);
	put_u64(out, s->n);
	put_u64(out, s->nuni);
	put_u64(out, s->len0);
	put_u64(out, s->checked);
	put_text(out, s->state);
	put_array(out, s->offs, s->noffs, sizeof *s->offs);
	put_thread(s->th, out);
}

/* A whole record at off, as feeding took it. */
static bool record_at(const struct det *d, uint64_t off)
{
	uint64_t size = d->in->size;
	if (off < d->S || off > size || size - off < DREC_HDR)
		return false;
	uint32_t len = ld32le(d->in->map + off);
	return len >= DREC_HDR && len <= size - off;
}

/* Records [0, nuni) of length len0 from S, then one at each offset. */
static bool offsets_hold(const struct det *d)
{
	uint64_t room = d->in->size - d->S;
	if (d->nuni > d->n || d->noffs != d->n - d->nuni || d->checked > d->n ||
	    (d->nuni && (d->len0 < DREC_HDR || d->nuni > room / d->len0)))
		return false;
	for (size_t i = 0; i < d->noffs; i++)
		if (!record_at(d, d->offs[i]))
			return false;
	return true;
}

static bool det_restore(struct det *s, struct blob *r)
{
	uint64_t size = s->in->size;
	DET_SCALARS(GET)
	s->S = get_below(r, size + 1);
	s->size = get_below(r, size + 1);
	s->n = get_below(r, MAX_RECORDS + 1);
	s->nuni = get_u64(r);
	s->len0 = (uint32_t)get_below(r, UINT32_MAX + 1ull);
	s->checked = get_u64(r);
	s->state = get_text(s->th->ss, r);
	s->offs = get_copy(r, &s->noffs, sizeof *s->offs);
	s->capoffs = s->noffs;
	return !r->bad && s->final && offsets_hold(s) && get_thread(s->th, r);
}

/* ---- the decoder's ops ---------------------------------------------------- */

void atf_save(void *st, struct buf *out)
{
	switch (*(enum tag *)st) {
	case T_INDEX: idx_save(st, out); break;
	case T_DETAIL: det_save(st, out); break;
	default: break; /* JSON: parsed when opened */
	}
}

bool atf_restore(void *st, struct blob *r)
{
	switch (*(enum tag *)st) {
	case T_INDEX: return idx_restore(st, r);
	case T_DETAIL: return det_restore(st, r);
	default: return true;
	}
}
