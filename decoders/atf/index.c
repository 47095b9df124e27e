/* atf/index.c: index.atf: records in time order, call/return pairing, the model sequence, feeding */
#include <stdatomic.h>

#include "decoders/atf/atf.h"

/* ---- index records: access and time order --------------------------------- */

static inline int64_t irec_ts(const struct idx *x, uint64_t r) { return (int64_t)ld64le(irec(x, r)); }

/* The chunk holding position i (file order and time order agree on it). */
static size_t chunk_of(struct idx *x, uint64_t i)
{
	size_t h = x->hint;
	if (h < x->nch && x->ch[h].start <= i && i < chunk_end(x, h))
		return h;
	size_t lo = 0, hi = x->nch;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->ch[mid].start <= i)
			lo = mid;
		else
			hi = mid;
	}
	return x->hint = lo;
}

/* Stable sort of a chunk's records by time: natural merge sort of record
 * numbers (a detail-lane batch makes a chunk a few sorted runs). */
static void sort_chunk(const struct idx *x, uint64_t start, uint32_t *a, uint64_t n)
{
	const uint8_t *base = irec(x, start);
#define TS(k) ((int64_t)ld64le(base + (uint64_t)REC * (k)))
	for (uint64_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	uint32_t *tmp = xmalloc(n * sizeof *tmp), *src = a, *dst = tmp;
	for (;;) {
		uint64_t runs = 0, p = 0;
		while (p < n) {
			uint64_t e1 = p + 1;
			while (e1 < n && TS(src[e1]) >= TS(src[e1 - 1]))
				e1++;
			uint64_t e2 = e1;
			if (e2 < n) {
				e2++;
				while (e2 < n && TS(src[e2]) >= TS(src[e2 - 1]))
					e2++;
			}
			uint64_t i = p, j = e1, k = p;
			while (i < e1 && j < e2)
				dst[k++] = TS(src[j]) < TS(src[i]) ? src[j++] : src[i++];
			while (i < e1)
				dst[k++] = src[i++];
			while (j < e2)
				dst[k++] = src[j++];
			runs++;
			p = e2;
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
		if (runs <= 1)
			break;
	}
#undef TS
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	free(tmp);
}

/* The time order of chunk c (built on demand, a few kept). */
static const uint32_t *chunk_perm(struct idx *x, size_t c)
{
	uint64_t start = x->ch[c].start, n = chunk_end(x, c) - start;
	struct perm *victim = NULL;
	for (int k = 0; k < PERM_CACHE; k++) {
		struct perm *p = &x->cache[k];
		if (p->p && p->start == start && p->n == n) {
			p->used = ++x->tick;
			return p->p;
		}
		if (!victim || (victim->p && (!p->p || p->used < victim->used)))
			victim = p;
	}
	if (victim->p && victim->p == x->cur_perm)
		x->cur_start = x->cur_end = 0; /* rec_at()'s shortcut goes with it */
	free(victim->p);
	victim->p = xmalloc(n * sizeof *victim->p);
	victim->start = start;
	victim->n = n;
	victim->used = ++x->tick;
	sort_chunk(x, start, victim->p, n);
	return victim->p;
}

/* Record number (file order) of time-order position i.  Walks go chunk by
 * chunk: the last chunk used is kept at hand. */
static uint64_t rec_at(struct idx *x, uint64_t i)
{
	if (i < x->cur_start || i >= x->cur_end) {
		size_t c = chunk_of(x, i);
		x->cur_start = x->ch[c].start;
		x->cur_end = chunk_end(x, c);
		x->cur_perm = x->ch[c].sorted ? NULL : chunk_perm(x, c);
	}
	return x->cur_perm ? x->cur_start + x->cur_perm[i - x->cur_start] : i;
}

/* Time-order position of record r. */
uint64_t atf_pos_of_rec(struct idx *x, uint64_t r)
{
	size_t c = chunk_of(x, r);
	const struct chunk *ch = &x->ch[c];
	if (ch->sorted)
		return r;
	const uint32_t *perm = chunk_perm(x, c);
	uint64_t n = chunk_end(x, c) - ch->start, lo = 0, hi = n;
	int64_t t = irec_ts(x, r);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (irec_ts(x, ch->start + perm[mid]) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t k = lo; k < n; k++)
		if (perm[k] == r - ch->start)
			return ch->start + k;
	return r; /* not reached: every record is in its chunk's order */
}

/* Add record r (time t) to the chunk table. */
static void chunk_add(struct idx *x, uint64_t r, int64_t t)
{
	struct chunk *l = x->nch ? &x->ch[x->nch - 1] : NULL;
	if (!l || (r - l->start >= CHUNK_MIN && t >= l->max)) {
		xgrow(&x->ch, &x->capch, x->nch + 1, sizeof *x->ch);
		x->ch[x->nch++] = (struct chunk){r, t, t, t, t, true};
		return;
	}
	l->sorted &= t >= l->last;
	l->last = t;
	l->min = MIN(l->min, t);
	l->max = MAX(l->max, t);
	/* t may be earlier than records of previous chunks: those boundaries go */
	while (x->nch >= 2 && x->ch[x->nch - 2].max > t) {
		struct chunk *a = &x->ch[x->nch - 2], *b = &x->ch[x->nch - 1];
		a->sorted = a->sorted && b->sorted && a->last <= b->first;
		a->last = b->last;
		a->min = MIN(a->min, b->min);
		a->max = MAX(a->max, b->max);
		x->nch--;
	}
}

/* ---- pairing -------------------------------------------------------------- */

static inline bool in_stream(const struct idx *x, uint32_t kind, uint32_t link)
{
	return (kind == K_CALL || kind == K_RETURN) && !(x->drain && link != NO_LINK);
}

/* One step of the pairing pass over record r: close what it ends, keep far
 * pairs, open a call.  Gives exactly the pairs partner_scan() finds. */
static void pair_step(struct idx *x, uint64_t r, uint32_t kind, uint32_t depth, int64_t ts)
{
	while (x->nstk && x->stk[x->nstk - 1].depth >= depth) {
		struct frame f = x->stk[--x->nstk];
		if (r - f.rec <= PAIR_NEAR)
			continue;
		if (kind == K_RETURN && f.depth == depth && ts >= f.ts) {
			hmap_put(&x->far, f.rec, r);
			hmap_put(&x->far, r, f.rec);
			x->far_pairs++;
		} else { /* decided far away, and not a pair: no scan need look */
			hmap_put(&x->far, f.rec, FAR_NONE);
		}
	}
	if (kind != K_CALL)
		return;
	if (x->nstk >= STACK_MAX) {
		x->stk_full++;
		return;
	}
	xgrow(&x->stk, &x->capstk, x->nstk + 1, sizeof *x->stk);
	x->stk[x->nstk++] = (struct frame){r, ts, depth};
}

/* The first time steps back: linked records are copies, not part of the
 * call stream; pair records [0, upto) again under that rule. */
static void become_drain(struct idx *x, uint64_t upto)
{
	x->drain = true;
	x->pc_gen = 0;
	if (!x->linked)
		return; /* no linked record yet: the pairs stay the same */
	hmap_clear(&x->far);
	x->far_pairs = 0;
	x->nstk = 0;
	for (uint64_t r = 0; r < upto; r++) {
		const uint8_t *q = irec(x, r);
		uint32_t kind = ld32le(q + 20), link = ld32le(q + 28);
		if (in_stream(x, kind, link))
			pair_step(x, r, kind, ld32le(q + 24), (int64_t)ld64le(q));
	}
}

/* The other end of the call or return at record r: the first later (for a
 * call) or earlier (for a return) record of the stream at a depth not
 * deeper decides; it pairs when it is the opposite kind at the same depth,
 * in time order. */
static bool partner_scan(struct idx *x, uint64_t r, uint64_t *out)
{
	const uint8_t *q = irec(x, r);
	uint32_t kind = ld32le(q + 20), depth = ld32le(q + 24);
	if (!in_stream(x, kind, ld32le(q + 28)))
		return false;
	/* decided far away (a long span): known without a scan */
	uint64_t v;
	if (x->far.n && hmap_get(&x->far, r, &v)) {
		*out = v;
		return v != FAR_NONE;
	}
	int64_t ts = (int64_t)ld64le(q);
	bool fwd = kind == K_CALL;
	for (uint64_t k = 1; k <= PAIR_NEAR; k++) {
		if (fwd ? r + k >= x->n : k > r)
			break;
		uint64_t s = fwd ? r + k : r - k;
		const uint8_t *o = irec(x, s);
		uint32_t ok = ld32le(o + 20), od = ld32le(o + 24);
		if (!in_stream(x, ok, ld32le(o + 28)) || od > depth)
			continue;
		int64_t ots = (int64_t)ld64le(o);
		if (od == depth && ok == (fwd ? K_RETURN : K_CALL) && (fwd ? ots >= ts : ots <= ts)) {
			*out = s;
			return true;
		}
		return false;
	}
	return false; /* nothing decided within PAIR_NEAR records, nor far away yet */
}

/* Recent answers of partner_rec(), each thread's own, for every thread
 * index at once (a session of many processes has thousands: a cache
 * each would cost more than their records): a call's return is asked
 * for soon after it.  An answer holds its index's generation, unique
 * among all indexes and renewed when records are added. */
static _Thread_local struct pcache pcache[PCACHE];
static _Atomic uint64_t pcache_gens;

static struct pcache *pcache_slot(const struct idx *x, uint64_t r)
{
	return &pcache[(r + x->pc_gen * 0x9e3779b97f4a7c15ull) % PCACHE];
}

static bool partner_rec(struct idx *x, uint64_t r, uint64_t *out)
{
	if (!x->pc_gen)
		x->pc_gen = atomic_fetch_add(&pcache_gens, 1) + 1;
	struct pcache *c = pcache_slot(x, r);
	if (c->gen == x->pc_gen && c->rec == r) {
		*out = c->other;
		return c->paired;
	}
	bool paired = partner_scan(x, r, out);
	*c = (struct pcache){r, paired ? *out : 0, x->pc_gen, paired};
	if (paired) /* the other end will be asked for too */
		*pcache_slot(x, *out) = (struct pcache){*out, r, x->pc_gen, true};
	return paired;
}

/* ---- the sequence (model view of one thread's index) ---------------------- */

static void index_event(struct thread *th, uint64_t r, struct event *e)
{
	struct idx *x = &th->ix;
	struct session *ss = th->ss;
	const uint8_t *q = irec(x, r);
	int64_t ts = (int64_t)ld64le(q);
	uint64_t fid = ld64le(q + 8);
	uint32_t kind = ld32le(q + 20), link = ld32le(q + 28);
	e->ts = ts;
	e->dur = TTV_NODUR;
	e->lane = th->lane;
	e->type = atf_kind_type(ss, kind, false);
	e->name = atf_name_of(ss, fid);
	e->input = x->in->id;
	e->off = x->E + REC * r;
	uint32_t flags = 0;
	if (link != NO_LINK) {
		flags |= atf_link_ok(th, r, link) ? EVF_LINK : atf_unchecked(th) ? 0 : EVF_DAMAGED;
		if (x->drain)
			flags |= EVF_COPY;
	}
	if (!atf_kind_name(kind))
		flags |= EVF_DAMAGED;
	if (in_stream(x, kind, link)) {
		flags |= kind == K_CALL ? ROLE_BEGIN : ROLE_END;
		uint64_t p;
		if (partner_rec(x, r, &p)) {
			uint64_t pts = (uint64_t)irec_ts(x, p); /* unsigned: no overflow on hostile times */
			e->dur = kind == K_CALL ? pts - (uint64_t)ts : (uint64_t)ts - pts;
		}
	}
	e->flags = flags;
}

static uint64_t sq_count(void *c) { return ((struct thread *)c)->ix.n; }
static int64_t sq_ts(void *c, uint64_t i)
{
	struct idx *x = &((struct thread *)c)->ix;
	return irec_ts(x, rec_at(x, i));
}

static uint64_t sq_bound(struct idx *x, int64_t t, bool upper)
{
	size_t lo = 0, hi = x->nch;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->ch[mid].max < t || (upper && x->ch[mid].max == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == x->nch)
		return x->n;
	const struct chunk *c = &x->ch[lo];
	if (c->min > t || (!upper && c->min == t))
		return c->start;
	uint64_t a = 0, b = chunk_end(x, lo) - c->start, start = c->start;
	const uint32_t *perm = c->sorted ? NULL : chunk_perm(x, lo);
	while (a < b) {
		uint64_t mid = a + (b - a) / 2;
		int64_t v = irec_ts(x, start + (perm ? perm[mid] : mid));
		if (v < t || (upper && v == t))
			a = mid + 1;
		else
			b = mid;
	}
	return start + a;
}
static uint64_t sq_lower(void *c, int64_t t) { return sq_bound(&((struct thread *)c)->ix, t, false); }
static uint64_t sq_upper(void *c, int64_t t) { return sq_bound(&((struct thread *)c)->ix, t, true); }

static void sq_get(void *c, uint64_t i, struct event *e)
{
	struct thread *th = c;
	index_event(th, rec_at(&th->ix, i), e);
}

static bool sq_partner(void *c, uint64_t off, uint64_t *j)
{
	struct thread *th = c;
	struct idx *x = &th->ix;
	if (off < x->E || (off - x->E) % REC || (off - x->E) / REC >= x->n)
		return false;
	uint64_t p;
	if (!partner_rec(x, (off - x->E) / REC, &p))
		return false;
	*j = atf_pos_of_rec(x, p);
	return true;
}

static uint32_t sq_lane(void *c) { return ((struct thread *)c)->lane; }

const struct seq_ops atf_seq_ops = {sq_count, sq_ts, sq_lower, sq_upper, sq_get, sq_partner, sq_lane};

/* ---- feeding index.atf ---------------------------------------------------- */

static bool idx_header(struct idx *x, const uint8_t *h)
{
	struct input *in = x->in;
	if (memcmp(h, "ATI2", 4)) {
		dec_fatal(in, 0, "not an ATF v2 index (magic is not \"ATI2\"): file skipped");
		return false;
	}
	x->endian = h[4];
	x->version = h[5];
	x->arch = h[6];
	x->os = h[7];
	x->flags = ld32le(h + 8);
	x->hdr_tid = ld32le(h + 12);
	x->clock = h[16];
	uint32_t esize = ld32le(h + 24);
	x->hdr_count = ld32le(h + 28);
	x->raw_E = ld64le(h + 32);
	x->hdr_footer = ld64le(h + 40);
	x->hdr_t0 = ld64le(h + 48);
	x->hdr_t1 = ld64le(h + 56);
	if (x->endian != 1) {
		dec_fatal(in, 4, "endian byte is %u (only 1, little-endian, is defined): file skipped", x->endian);
		return false;
	}
	if (x->version != 1) {
		dec_fatal(in, 5, "version %u (only 1 is defined): file skipped", x->version);
		return false;
	}
	if (esize != REC) {
		dec_fatal(in, 24, "event_size %u (only 32 is defined): file skipped", esize);
		return false;
	}
	x->E = x->raw_E;
	if (x->E < HDR || x->E > in->size) {
		dec_damage(in, 32, "events_offset %llu is outside the file: using 64", (unsigned long long)x->raw_E);
		x->E = HDR;
	}
	x->have_hdr = true;
	return true;
}

/* How many records the file holds, by the recovery policy of the notes
 * (3.1).  Before the end is known, a possible footer is left unread. */
static uint64_t idx_policy(struct idx *x, bool final)
{
	const uint8_t *map = x->in->map;
	uint64_t size = x->in->size, E = x->E;
	/* the header is read again: finalize rewrites it */
	uint64_t hfo = ld64le(map + 40), hcount = ld32le(map + 28);
	uint64_t cand[3] = {hfo > E ? hfo : UINT64_MAX, size >= 64 ? size - 64 : UINT64_MAX,
			    size >= 68 ? size - 68 : UINT64_MAX};
	for (int i = 0; i < 3; i++) {
		uint64_t c = cand[i];
		if (c == UINT64_MAX || c < E || c > size - 64 || memcmp(map + c, "2ITA", 4))
			continue;
		uint64_t cnt = ld64le(map + c + 8), bytes = ld64le(map + c + 32);
		if (cnt > size / REC || bytes != REC * cnt || E + bytes != c)
			continue;
		x->footer = true;
		x->footer_at = c;
		x->footer_len = i == 2 && hfo != c ? 68 : 64;
		x->footer_crc = ld32le(map + c + 4);
		x->footer_count = cnt;
		x->footer_t0 = ld64le(map + c + 16);
		x->footer_t1 = ld64le(map + c + 24);
		x->footer_bytes = bytes;
		x->hdr_footer = hfo;
		x->hdr_count = (uint32_t)hcount;
		if (hfo == c) {
			x->state = cnt ? "finalized" : "finalized-empty";
			x->from = "footer at footer_offset";
		} else {
			x->state = "footer found, header not rewritten";
			x->from = i == 2 ? "footer at end of file (68-byte spec footer)" : "footer at end of file";
		}
		return cnt;
	}
	x->footer = false;
	if (!final) {
		/* A footer starts at a record boundary with "2ITA": the records
		 * before the first such boundary near the end are records. */
		uint64_t lim = (size - E) / REC;
		for (uint64_t r = size >= E + 68 ? (size - 68 - E) / REC : 0; r < lim; r++)
			if (!memcmp(map + E + REC * r, "2ITA", 4))
				lim = r;
		if (hfo > E)
			lim = MIN(lim, (hfo - E) / REC);
		return lim;
	}
	x->hdr_footer = hfo;
	x->hdr_count = (uint32_t)hcount;
	if (E < hfo && hfo <= size && hfo == E + REC * hcount) {
		x->state = "finalized, footer missing or damaged";
		x->from = "finalized header";
		return hcount;
	}
	x->state = "unfinalized (recovered from file size)";
	x->from = "file size (whole records present)";
	return (size - E) / REC;
}

static void idx_records(struct idx *x, const uint8_t *p, uint64_t upto)
{
	struct session *ss = x->th->ss;
	uint64_t from = x->n;
	int64_t bmin = INT64_MAX, bmax = INT64_MIN;
	for (uint64_t r = x->n; r < upto; r++, p += REC) {
		int64_t ts = (int64_t)ld64le(p);
		uint32_t kind = ld32le(p + 20), depth = ld32le(p + 24), link = ld32le(p + 28);
		if (r == 0) {
			x->first = x->min = x->max = ts;
		} else if (ts < x->last) {
			x->backsteps++;
			if (!x->drain)
				become_drain(x, r);
		}
		x->last = ts;
		x->min = MIN(x->min, ts);
		x->max = MAX(x->max, ts);
		bmin = MIN(bmin, ts);
		bmax = MAX(bmax, ts);
		chunk_add(x, r, ts);
		if (link != NO_LINK) {
			x->linked++;
			x->link_max = MAX(x->link_max, link);
		}
		if (kind == K_CALL)
			x->calls++;
		else if (kind == K_RETURN)
			x->returns++;
		else if (kind == K_EXCEPTION)
			x->exceptions++;
		else {
			if (!x->unknown++) {
				x->unknown_first = r;
				x->unknown_kind = kind;
			}
			atf_kind_type(ss, kind, true);
		}
		if (in_stream(x, kind, link))
			pair_step(x, r, kind, depth, ts);
		x->n = r + 1;
	}
	if (upto > from) {
		dec_lane_count(x->in, x->th->lane, upto - from, bmin, bmax);
		x->cur_start = x->cur_end = 0; /* chunks changed */
		x->pc_gen = 0;                  /* calls may have found their returns */
		model_seq_changed(ss->m);
	}
}

static void idx_finish(struct idx *x)
{
	struct input *in = x->in;
	x->size = in->size;
	/* the count the file size gives, a recognised footer set aside */
	x->size_count = ((x->footer ? x->footer_at : x->size) - x->E) / REC;
	uint64_t end = x->E + REC * x->n;
	if (x->footer) {
		uint64_t fend = x->footer_at + x->footer_len;
		x->trailing = x->size > fend ? x->size - fend : 0;
		if (x->hdr_footer != x->footer_at)
			dec_damage(in, 0,
				   "header not rewritten (count %u, footer_offset %llu) although a complete footer is at "
				   "%llu: killed while finalizing; %llu records from the footer",
				   x->hdr_count, (unsigned long long)x->hdr_footer, (unsigned long long)x->footer_at,
				   (unsigned long long)x->footer_count);
		else if (x->hdr_count != x->footer_count)
			dec_damage(in, 28, "header counts %u records, the footer %llu: using the footer", x->hdr_count,
				   (unsigned long long)x->footer_count);
		if (x->trailing)
			dec_damage(in, fend, "%llu bytes after the footer", (unsigned long long)x->trailing);
		if (x->footer_crc) {
			uLong crc = crc32_z(0, in->map + x->E, (z_size_t)(REC * x->footer_count));
			x->crc_calc = (uint32_t)crc;
			x->crc = x->crc_calc == x->footer_crc ? 1 : 2;
			if (x->crc == 2)
				dec_damage(in, x->footer_at + 4,
					   "checksum mismatch: footer says 0x%08x, CRC-32 of the records is 0x%08x",
					   x->footer_crc, x->crc_calc);
		}
	} else if (!strcmp(x->from, "finalized header")) {
		dec_damage(in, x->hdr_footer,
			   "no valid footer at footer_offset %llu (%llu bytes there): footer missing or damaged; %u "
			   "records from the finalized header",
			   (unsigned long long)x->hdr_footer, (unsigned long long)(x->size - x->hdr_footer),
			   x->hdr_count);
	} else {
		x->partial = x->size - end;
		if (x->partial)
			dec_damage(in, end,
				   "not finalized (placeholder header, no footer): %llu records recovered from the file "
				   "size; the last %llu bytes (a torn record) dropped",
				   (unsigned long long)x->n, (unsigned long long)x->partial);
		else
			dec_damage(in, end,
				   "not finalized (placeholder header, no footer): %llu records recovered from the file "
				   "size",
				   (unsigned long long)x->n);
	}
	if (x->unknown)
		dec_damage(in, x->E + REC * x->unknown_first,
			   "%llu records with an unknown event_kind (first: %u), shown as KIND(n)",
			   (unsigned long long)x->unknown, x->unknown_kind);
}

static void idx_done(struct idx *x)
{
	x->final = true;
	if (!x->size)
		x->size = x->in->size;
	atf_settle(x->th);
}

size_t atf_idx_feed(struct idx *x, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct input *in = x->in;
	size_t used = 0;
	if (x->final)
		return n;
	if (!x->have_hdr) {
		if (off + n < HDR) {
			if (!final)
				return 0;
			x->state = n ? "shorter than the header" : "empty / no header";
			x->from = "nothing";
			if (n)
				dec_damage(in, 0, "%zu bytes: shorter than the 64-byte header, no records", n);
			else
				dec_damage(in, 0, "0 bytes: no header, no records (normal after a crash: the writer's "
						  "buffer never reached the disk)");
			idx_done(x);
			return n;
		}
		if (!idx_header(x, p)) {
			x->rejected = true;
			x->state = "not an ATF v2 index";
			x->from = "nothing";
			idx_done(x);
			return 0;
		}
	}
	uint64_t pos = off;
	if (pos < x->E) {
		uint64_t k = MIN(x->E - pos, (uint64_t)n);
		used += (size_t)k;
		pos += k;
		if (pos < x->E)
			return used;
	}
	uint64_t limit = idx_policy(x, final);
	uint64_t avail = (off + n - pos) / REC;
	uint64_t upto = x->n + MIN(avail, limit > x->n ? limit - x->n : 0);
	if (upto > MAX_RECORDS) {
		upto = MAX_RECORDS;
		dec_fatal(in, x->E + REC * upto, "more than 2^32-1 records: index_seq cannot address the rest");
	}
	idx_records(x, p + (pos - off), upto);
	used = (size_t)(x->E + REC * x->n - off);
	/* finalized (footer written, header rewritten): nothing more comes */
	bool sealed = x->footer && x->hdr_footer == x->footer_at && x->n == x->footer_count;
	if (final || in->done || sealed) {
		idx_finish(x);
		idx_done(x);
		return n;
	}
	return used;
}
