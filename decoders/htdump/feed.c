/* htdump/feed.c: probing, feeding: descriptions, data events, names and lanes; the decoder */
#include "decoders/htdump/htdump.h"

/* The name an int-labelled event gets: its mapping when known now, else the number. */
static uint32_t int_label_name(struct ht *h, uint64_t v)
{
	struct icache *c = &h->icache[(v * 0x9e3779b97f4a7c15ull) >> 58];
	if (c->name && c->v == v)
		return c->name;
	uint64_t s;
	if (hmap_get(&h->names, v, &s)) {
		*c = (struct icache){v, (uint32_t)s};
		return (uint32_t)s;
	}
	char num[24];
	int n = snprintf(num, sizeof num, "%llu", (unsigned long long)v);
	s = dec_str(h->in, num, (size_t)n);
	hmap_put(&h->names, v, s);
	*c = (struct icache){v, (uint32_t)s};
	return (uint32_t)s;
}

/* Intern a string label, through a small cache keyed by its first bytes. */
static inline uint32_t label_str(struct ht *h, const uint8_t *v, size_t len, const uint8_t *end)
{
	/* the first (up to) 8 bytes as a little-endian number */
	uint64_t head = 0;
	if (LIKELY(end - v >= 8)) {
		head = ld64le(v);
		if (len < 8)
			head &= (1ull << (8 * len)) - 1;
	} else {
		for (size_t i = 0; i < len && i < 8; i++)
			head |= (uint64_t)v[i] << (8 * i);
	}
	struct scache *c = &h->scache[((head ^ len) * 0x9e3779b97f4a7c15ull) >> 56];
	if (c->p && c->len == len && c->head == head && (len <= 8 || !memcmp(c->p + 8, v + 8, len - 8)))
		return c->id;
	uint32_t id = dec_str(h->in, v, len);
	*c = (struct scache){head, model_strget(dec_model(h->in), id, NULL), (uint32_t)len, id};
	return id;
}

static void add_mapping(struct ht *h, uint64_t ident, const uint8_t *label, size_t n)
{
	uint32_t s = dec_str(h->in, label, n);
	uint64_t old;
	h->mappings++;
	if (hmap_get(&h->map, ident, &old)) {
		if (old != s)
			h->conflicts++;
		return;
	}
	hmap_put(&h->map, ident, s);
	hmap_put(&h->names, ident, s);
	struct icache *c = &h->icache[(ident * 0x9e3779b97f4a7c15ull) >> 58];
	if (c->v == ident)
		c->name = s;
}

static uint32_t thread_lane(struct ht *h, uint64_t tid)
{
	uint64_t v;
	if (tid < FAST_TIDS && h->tlane[tid])
		return h->tlane[tid] - 1;
	if (tid >= FAST_TIDS && hmap_get(&h->tlanes, tid, &v))
		return (uint32_t)v;
	char name[32];
	snprintf(name, sizeof name, "thread %llu", (unsigned long long)tid);
	uint32_t lane = dec_lane(h->in, tid, name);
	if (tid < FAST_TIDS)
		h->tlane[tid] = lane + 1;
	else
		hmap_put(&h->tlanes, tid, lane);
	h->nthreads++;
	return lane;
}

static uint32_t fixed_lane(struct ht *h, uint32_t *slot, uint64_t key, const char *name)
{
	if (!*slot)
		*slot = dec_lane(h->in, key, name) + 1;
	return *slot - 1;
}
/* Keys no thread id takes (thread ids are the library's u32 counter). */
#define PROC_LANE(h) fixed_lane(h, &(h)->proc_lane, UINT64_MAX, "process")
#define META_LANE(h) fixed_lane(h, &(h)->meta_lane, UINT64_MAX - 1, "metadata")

/* ---- probing and feeding ---------------------------------------------------- */

int ht_probe(const uint8_t *p, size_t n, bool final)
{
	for (size_t i = 0; i < n && i < HDR; i++)
		if (p[i])
			return PROBE_NO;
	if (n < HDR + 1)
		return final ? PROBE_NO : PROBE_MORE;
	if (p[HDR] > 1)
		return PROBE_NO;
	bool be = p[HDR];
	/* Cut after the endianness event, or inside the event after it: an
	 * empty trace, or a damaged one (the decoder says where). */
	if (n < HDR + 5)
		return final ? PROBE_GOOD : PROBE_MORE;
	/* A klass-info event follows: klass id 2 first (real files), or last (the spec's header order). */
	if (ld32(p + HDR + 1, be) == K_KLASS_INFO)
		return PROBE_MAGIC;
	if (n < HDR + 1 + HDR)
		return final ? PROBE_NO : PROBE_MORE;
	return ld32(p + HDR + 1 + 16, be) == K_KLASS_INFO ? PROBE_MAGIC : PROBE_NO;
}

void *ht_open(struct input *in)
{
	struct ht *h = xcalloc(1, sizeof *h);
	h->in = in;
	h->s_event = intern(h, "HT_Event");
	h->s_csbase = intern(h, "HT_CallstackBaseEvent");
	h->s_mapping = intern(h, "HT_StringMappingEvent");
	h->s_sysinfo = intern(h, "HT_SystemInfoEvent");
	h->s_duration = intern(h, "duration");
	h->s_thread_id = intern(h, "thread_id");
	h->s_label = intern(h, "label");
	h->s_name = intern(h, "name");
	h->s_identifier = intern(h, "identifier");
	return h;
}

void ht_close(void *vst)
{
	struct ht *h = vst;
	for (size_t i = 0; i < h->nkd; i++)
		free(h->kd[i].f);
	for (size_t i = 0; i < h->nlists; i++)
		free(h->lists[i].v);
	for (size_t i = 0; i < FAST_IDS; i++)
		if (h->fast[i]) {
			ht_layout_free(h->fast[i]);
			free(h->fast[i]);
		}
	for (size_t i = 0; i < h->nslow; i++) {
		ht_layout_free(h->slowl[i]);
		free(h->slowl[i]);
	}
	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < LAZY_SLOTS; i++)
			ht_layout_free(&h->lazy[t][i]);
	free(h->slowl);
	free(h->kd);
	free(h->lists);
	free(h->st);
	free(h->chg);
	hmap_free(&h->by_id);
	hmap_free(&h->by_name);
	hmap_free(&h->slow);
	hmap_free(&h->map);
	hmap_free(&h->names);
	hmap_free(&h->tlanes);
	free(h);
}

static bool emit_meta(struct ht *h, uint64_t P, const struct hdr *hd, uint32_t k)
{
	struct model *m = dec_model(h->in);
	uint32_t type = model_type(m, &(struct type){.name = intern(h, ht_hard_names[k]),
						     .category = k == K_EVENT ? 0 : intern(h, "metadata"),
						     .owner = &htdump_decoder});
	struct event e = {.ts = (int64_t)hd->ts,
			  .dur = TTV_NODUR,
			  .lane = k == K_EVENT ? PROC_LANE(h) : META_LANE(h),
			  .type = type,
			  .flags = k == K_EVENT ? 0 : EVF_META,
			  .off = P};
	h->hard_events[k]++;
	return dec_emit(h->in, &e);
}

/* A klass-info or field-info event: parse, register.  Returns its length,
 * 0 when it is not all there yet. */
static size_t description(struct ht *h, struct hstream *s, const uint8_t *q, size_t n, uint64_t P, uint32_t k)
{
	size_t at = HDR + 4;
	if (n < at)
		return 0;
	uint32_t id = ld32(q + HDR, s->be);
	int64_t l1 = cstr(q + at, n - at);
	if (l1 < 0)
		return 0;
	const uint8_t *name = q + at;
	at += (size_t)l1 + 1;
	if (k == K_KLASS_INFO) {
		if (n < at + 1)
			return 0;
		uint8_t count = q[at];
		ht_changed(h, P);
		int64_t old = ht_kd_at(h, &h->by_id, id, P, h->nst - 1);
		if (old >= 0 && !h->kd[old].builtin)
			h->redefined++;
		ht_kd_new(h, P, id, dec_str(h->in, name, (size_t)l1), count, false);
		return at + 1;
	}
	int64_t l2 = cstr(q + at, n - at);
	if (l2 < 0)
		return 0;
	const uint8_t *fname = q + at;
	at += (size_t)l2 + 1;
	if (n < at + 9)
		return 0;
	uint64_t size = ld64(q + at, s->be);
	uint8_t dt = q[at + 8];
	ht_changed(h, P);
	if (dt == 0 && s->first0 == UINT64_MAX)
		s->first0 = P;
	if (dt == 99 && s->first99 == UINT64_MAX)
		s->first99 = P;
	int64_t kd = ht_kd_at(h, &h->by_id, id, P, h->nst - 1);
	if (kd < 0 || h->kd[kd].builtin) {
		if (!h->orphan_fields++)
			dec_damage(h->in, P, "field info for klass %u, which this stream has not described: ignored", id);
	} else if (h->kd[kd].nf >= MAX_FIELDS) {
		if (!h->too_many_fields++)
			dec_damage(h->in, P, "klass %u: more than %d field descriptions: the rest are ignored", id,
				   MAX_FIELDS);
	} else {
		ht_kd_field(h, (uint32_t)kd, P, (const char *)name, (size_t)l1, (const char *)fname, (size_t)l2, size, dt,
			 false);
	}
	return at + 9;
}

static void truncated(struct ht *h, uint64_t P, size_t avail)
{
	dec_fatal(h->in, P, "truncated: partial event at offset %llu (%zu bytes)", (unsigned long long)P, avail);
}

static void unknown_klass(struct ht *h, uint64_t P, uint32_t k)
{
	/* Say what may have led here: an event before it with a string field that
	 * the library wrote from a NULL pointer (no bytes, not even the NUL). */
	struct buf b = {0};
	uint64_t pn;
	const uint8_t *pq = h->have_prev ? input_bytes(h->in, h->prev_off, &pn) : NULL;
	if (pq && pn >= HDR) {
		struct hdr ph;
		rd_hdr(pq, &h->st[ht_stream_at(h, h->prev_off)], &ph);
		bool strings = ph.k == K_KLASS_INFO || ph.k == K_FIELD_INFO;
		if (ph.k >= K_HARD) {
			const struct layout *L = ht_layout_at(h, ph.k, h->prev_off);
			strings = L->kd && L->nruns > 1;
		}
		if (strings)
			buf_printf(&b, "; if a string of the event before it (klass %u at offset %llu) was written from a "
				       "NULL pointer, it lacks its NUL and everything after it is misread",
				   ph.k, (unsigned long long)h->prev_off);
	}
	dec_fatal(h->in, P,
		  "unknown klass %u at offset %llu: a klass registered after the stream began, or misread bytes; "
		  "the format has no lengths, so the rest of the stream (%zu bytes) cannot be decoded%s",
		  k, (unsigned long long)P, (size_t)(h->in->size - P), buf_str(&b));
	buf_free(&b);
}

/* The library version in a system-info event. */
void ht_version_of(const struct layout *L, const uint8_t *body, uint64_t n, bool be, uint8_t v[3])
{
	static const char *const names[3] = {"version_major", "version_minor", "version_patch"};
	struct walk w = {body, n, 0};
	uint64_t st, len;
	v[0] = v[1] = v[2] = 0;
	for (size_t i = 0; i < L->nops && op_next(&L->ops[i], &w, &st, &len); i++)
		for (int j = 0; j < 3; j++)
			if (L->ops[i].kind == OP_UINT && !strcmp(L->ops[i].name, names[j]))
				v[j] = (uint8_t)rd_uint(body + st, L->ops[i].size, be);
}

/* Mappings and the library version: what the decoder keeps from events. */
static void remember(struct ht *h, const struct layout *L, const uint8_t *body, uint64_t blen, const uint64_t *sp,
		     bool be)
{
	if (L->mapping) {
		const uint8_t *v = body + sp[SP_LABEL];
		add_mapping(h, rd_uint(body + sp[SP_IDENT], L->spsize[SP_IDENT], be), v, strlen((const char *)v));
	}
	if (L->sysinfo && !h->have_version) {
		ht_version_of(L, body, blen, be, h->version);
		h->have_version = true;
	}
}

/* An event of a described class at q (avail bytes, up to end): emit it.
 * Returns its length, 0 when it is not all there, SIZE_MAX when decoding
 * stops here. */
static inline size_t data_event(struct ht *h, struct hstream *s, const uint8_t *q, size_t avail, uint64_t P,
				const struct hdr *hd, const uint8_t *end)
{
	struct layout *L = ht_layout_now(h, hd->k, P);
	if (UNLIKELY(!L->kd)) {
		unknown_klass(h, P, hd->k);
		return SIZE_MAX;
	}
	if (UNLIKELY(L->err[0])) {
		dec_fatal(h->in, P, "%s: its events cannot be decoded, nor anything after them", L->err);
		return SIZE_MAX;
	}
	const uint8_t *body = q + HDR;
	uint64_t blen = ht_body_len(L, body, avail - HDR);
	if (blen == NOT_WHOLE)
		return 0;
	bool be = s->be;
	/* where the fields the decoder reads start: fixed, unless a string comes before */
	uint64_t walked[SP_N];
	const uint64_t *sp = L->spat;
	if (UNLIKELY(L->walk_to)) {
		specials(L, body, blen, walked);
		sp = walked;
	}
	struct event e = {.ts = (int64_t)hd->ts, .dur = TTV_NODUR, .type = L->type,
			  .flags = (uint32_t)L->role | L->flags, .off = P};
	if (L->sp[SP_TID] >= 0)
		e.lane = thread_lane(h, rd_uint(body + sp[SP_TID], L->spsize[SP_TID], be));
	else
		e.lane = L->sysinfo ? META_LANE(h) : PROC_LANE(h);
	if (L->role == ROLE_COMPLETE) {
		uint64_t d = rd_uint(body + sp[SP_DUR], L->spsize[SP_DUR], be);
		/* keep ts + dur within int64 (the end of the span) */
		uint64_t lim = (uint64_t)INT64_MAX - (e.ts > 0 ? (uint64_t)e.ts : 0);
		e.dur = d > lim ? lim : d;
	}
	if (L->sp[SP_LABEL] >= 0) {
		const uint8_t *v = body + sp[SP_LABEL];
		if (L->label_int)
			e.name = int_label_name(h, rd_uint(v, L->spsize[SP_LABEL], be));
		else if (L->label_last) /* the last string: its NUL is where the fixed tail begins */
			e.name = label_str(h, v, blen - L->runs[L->nruns - 1] - 1 - sp[SP_LABEL], end);
		else
			e.name = label_str(h, v, strlen((const char *)v), end);
	}
	if (UNLIKELY(L->mapping || L->sysinfo))
		remember(h, L, body, blen, sp, be);
	h->kd[L->kd - 1].events++;
	if (!dec_emit(h->in, &e))
		return SIZE_MAX;
	return HDR + (size_t)blen;
}

size_t ht_feed(void *vst, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct ht *h = vst;
	size_t at = 0;
	while (at < n && !h->in->done) {
		const uint8_t *q = p + at;
		size_t avail = n - at;
		uint64_t P = off + at;
		if (avail < HDR)
			break;
		if (UNLIKELY(!h->nst)) {
			/* The first event: the stream's byte order, if it says. */
			ht_new_stream(h, P, false, ld32(q, false) == 0);
			if (!h->st[0].has_endianness)
				dec_damage(h->in, P, "the stream does not start with an endianness event; "
						     "assuming little-endian");
		}
		struct hstream *s = &h->st[h->nst - 1];
		if (UNLIKELY(!s->hdr_known && s->events == 1)) {
			/* The second event is a klass-info event: klass id 2 first, or in the
			 * spec's order (timestamp, id, klass id) at bytes 16..19. */
			s->spec_hdr = ld32(q, s->be) != K_KLASS_INFO && ld32(q + 16, s->be) == K_KLASS_INFO;
			s->hdr_known = true;
		}
		struct hdr hd;
		rd_hdr(q, s, &hd);
		size_t len;
		if (LIKELY(hd.k >= K_HARD)) {
			len = data_event(h, s, q, avail, P, &hd, p + n);
			if (UNLIKELY(len == 0 || len == SIZE_MAX))
				break;
		} else if (hd.k == K_ENDIANNESS) {
			if (avail < HDR + 1)
				break;
			uint8_t b = q[HDR];
			if (P > s->start) {
				/* A second stream (e.g. a capture appended to a file): new byte order, new classes. */
				ht_new_stream(h, P, b == 1, true);
				s = &h->st[h->nst - 1];
			} else {
				s->be = b == 1;
			}
			if (b > 1)
				dec_damage(h->in, P + HDR, "endianness byte %u is neither 0 (little) nor 1 (big); "
							   "assuming little-endian", b);
			len = HDR + 1;
			rd_hdr(q, s, &hd);
			if (!emit_meta(h, P, &hd, K_ENDIANNESS))
				break;
		} else if (hd.k == K_EVENT) {
			len = HDR; /* a bare HT_Event */
			if (!emit_meta(h, P, &hd, K_EVENT))
				break;
		} else {
			len = description(h, s, q, avail, P, hd.k);
			if (!len)
				break;
			if (!emit_meta(h, P, &hd, hd.k))
				break;
		}
		if (hd.k != K_KLASS_INFO && hd.k != K_FIELD_INFO)
			h->data_since_chg = true;
		s->events++;
		h->prev_off = P;
		h->have_prev = true;
		at += len;
	}
	if (final && at < n && !h->in->done)
		truncated(h, off + at, n - at);
	return at;
}

/* (an event cut short at the end is damage: a source with damage is not
 * read on) */
bool ht_resumable(void *st)
{
	(void)st;
	return true;
}

const struct decoder htdump_decoder = {
	.name = "htdump",
	.title = "HawkTracer HTDUMP",
	/* fields compile earlier stretches' layouts into a per-thread cache;
	 * the types and names that makes were all made when the events were
	 * read, so the model is only looked up */
	.reentrant = true,
	.probe = ht_probe,
	.open = ht_open,
	.feed = ht_feed,
	.fields = ht_fields,
	.summary = ht_summary,
	.save = ht_save,
	.restore = ht_restore,
	.resumable = ht_resumable,
	.info = ht_info,
	.close = ht_close,
};
