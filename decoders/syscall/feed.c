/* syscall/feed.c: the records as the writer lays them out; probing and feeding
 * (the writer's page bookkeeping replayed); the decoder */
#include "decoders/syscall/syscall.h"

/* Do the IEs in v[0..len) fill it exactly? */
static bool ies_exact(const uint8_t *v, size_t len, bool be)
{
	size_t o = 0;
	struct ie ie;
	while (ie_next(v, len, &o, be, &ie))
		if (ie.cut)
			return false;
	return true;
}

static bool seg_tag_known(uint32_t t) { return t >= SEG_VARHDR && t <= SEG_FILLER; }

/* The header length (20 or 28) and segment width of a stream at q.
 * Returns 1 decided, 0 more bytes needed, -1 truncated. */
static int hdr_layout(const uint8_t *q, size_t left, bool final, unsigned *hlen, bool *seg16)
{
	if (left < HDR_LEN)
		return final ? -1 : 0;
	bool be = q[5] & 1;
	*hlen = HDR_LEN;
	*seg16 = false;
	/* A 20-byte header: a tag-1 segment at 20 whose IEs end exactly where a
	 * tag-2/3 segment, a magic or the end of the file begins. */
	if (ld32(q + 20, be) == SEG_VARHDR && (left < 32 || ld32(q + 28, be) != SEG_VARHDR)) {
		uint32_t len = ld32(q + 24, be);
		size_t end = 28 + pad4(len);
		if (len <= 65536) {
			if (left < end + 4 && !final)
				return 0;
			if (end <= left && ies_exact(q + 28, len, be) &&
			    (end == left || (end + 4 <= left && (!memcmp(q + end, MAGIC, 4) ||
								  ld32(q + end, be) == SEG_SYSCALL ||
								  ld32(q + end, be) == SEG_FILLER))))
				*hlen = SHORT_HDR_LEN;
		}
	}
	size_t h = *hlen;
	if (left < h + 4)
		return final ? 1 : 0;
	if (seg_tag_known(ld32(q + h, be)) || ld16(q + h, be) != SEG_VARHDR)
		return 1;
	/* 16-bit segment tags and lengths (the spec's TLV): a tag-1 header part whose IEs fit exactly. */
	size_t len = ld16(q + h + 2, be);
	if (left < h + 4 + len)
		return final ? 1 : 0;
	*seg16 = ies_exact(q + h + 4, len, be);
	return 1;
}

/* ---- the record ----------------------------------------------------------- */

static bool take(size_t len, size_t o, size_t k, struct rec *r)
{
	if (o + k > len) {
		r->cut = true;
		return false;
	}
	return true;
}

/* Parse a record value; the spec-literal layout (tag-1 segments) when literal. */
void sc_parse_rec(const struct stream *s, const uint8_t *v, size_t len, bool literal, struct rec *r)
{
	bool be = s->be;
	*r = (struct rec){.literal = literal};
	if (len < 4) {
		r->cut = true;
		r->args = len;
		if (len >= 2)
			r->nr = ld16(v, be);
		return;
	}
	r->nr = ld16(v, be);
	r->flags = v[2];
	size_t o = 4;
	uint8_t f = r->flags;
	/* bits: real 0x01 ret, 0x02 tid, 0x04 ts, 0x08 dur, 0x10 errno; literal: ret always, B0..B3 tid ts dur errno */
	bool want_ret = literal || (f & 0x01), want_tid = literal ? f & 0x01 : f & 0x02;
	bool want_ts = literal ? f & 0x02 : f & 0x04, want_dur = literal ? f & 0x04 : f & 0x08;
	bool want_err = literal ? f & 0x08 : f & 0x10;
	if (want_ret && take(len, o, 8, r)) {
		r->ret = (int64_t)ld64(v + o, be);
		r->has_ret = true;
		o += 8;
	}
	if (!r->cut && want_tid && take(len, o, 4, r)) {
		r->tid = (int32_t)ld32(v + o, be);
		r->has_tid = true;
		o += 4;
	}
	if (!r->cut && want_ts && take(len, o, 8, r)) {
		int64_t t = (int64_t)ld64(v + o, be);
		r->ts = literal ? (int64_t)((uint64_t)t + (uint64_t)(s->has_ref && !s->ref_from_record ? s->ref : 0)) : t;
		r->has_ts = true;
		o += 8;
	}
	if (!r->cut && want_dur && take(len, o, 4, r)) {
		r->dur_raw = ld32(v + o, be);
		r->has_dur = true;
		o += 4;
	}
	if (!r->cut && want_err && take(len, o, 4, r)) {
		r->err = (int32_t)ld32(v + o, be);
		r->has_err = true;
		o += 4;
	}
	r->args = r->cut ? len : o;
}

/* Duration in ns (TTV_NODUR when absent or not a duration). */
static uint64_t dur_ns(const struct rec *r, bool multi)
{
	if (!r->has_dur)
		return TTV_NODUR;
	uint32_t d = r->dur_raw;
	if (r->literal) /* MSB 0: ns in the low 31 bits; 1: ms */
		return (d >> 31) ? (uint64_t)(d & 0x7fffffff) * 1000000 : d;
	if (multi)
		return (uint64_t)(d & 0x3fffffff) * unit_ns[d >> 30];
	float f;
	memcpy(&f, &d, 4);
	if (!(f >= 0) || f >= 1.8e19f)
		return TTV_NODUR;
	return (uint64_t)llroundf(f);
}

/* ---- model objects -------------------------------------------------------- */

void sc_type_set(struct sc *sc, uint32_t key, uint32_t type1)
{
	uint32_t nr = key & 0xffff;
	if (nr < TYPES_DENSE)
		sc->types[key >> 16][nr] = type1;
	else
		hmap_put(&sc->types_far, key, type1);
}

static uint32_t type_for(struct sc *sc, uint16_t nr, bool x86)
{
	uint64_t far = 0;
	if (nr < TYPES_DENSE ? sc->types[x86][nr] : hmap_get(&sc->types_far, (uint64_t)x86 << 16 | nr, &far))
		return (nr < TYPES_DENSE ? sc->types[x86][nr] : (uint32_t)far) - 1;
	struct model *m = dec_model(sc->in);
	char tmp[32];
	const char *name = x86 && nr < ARRAY_LEN(sc_names) ? sc_names[nr] : NULL;
	if (!name) {
		snprintf(tmp, sizeof tmp, "syscall_%u", nr);
		name = tmp;
	}
	uint32_t id = model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
						   .category = model_str(m, "syscall", 7),
						   .name_field = model_str(m, "path", 4),
						   .role = ROLE_COMPLETE,
						   .owner = &syscall_decoder, .grouped = true});
	sc_type_set(sc, (uint32_t)x86 << 16 | nr, id + 1);
	return id;
}

static void lane_name(struct sc *sc, uint32_t si, int32_t tid, struct buf *b)
{
	const struct stream *s = &sc->s[si];
	buf_reset(b);
	buf_printf(b, "%s %d", tid == s->tid ? "pid" : "tid", tid);
	if (sc->ns > 1)
		buf_printf(b, " (stream %u%s)", si + 1, s->child ? ", child" : "");
	else if (s->child)
		buf_adds(b, " (child)");
}

static uint32_t lane_for(struct sc *sc, uint32_t si, int32_t tid)
{
	uint64_t key = (uint64_t)si << 32 | (uint32_t)tid, v;
	if (sc->lane_cached && sc->lane_key == key)
		return sc->lane_val;
	if (!hmap_get(&sc->lanes, key, &v)) {
		struct model *m = dec_model(sc->in);
		lane_name(sc, si, tid, &sc->tmp);
		v = dec_lane_sid(dec_source(sc->in), key, model_str(m, sc->tmp.p, sc->tmp.len));
		hmap_put(&sc->lanes, key, v);
	}
	sc->lane_cached = true;
	sc->lane_key = key;
	sc->lane_val = (uint32_t)v;
	return (uint32_t)v;
}

/* Rename the lanes of a stream (a second stream appeared, or it is a child). */
static void relabel(struct sc *sc, uint32_t si)
{
	struct model *m = dec_model(sc->in);
	for (size_t i = 0; i < sc->lanes.cap; i++) {
		if (!sc->lanes.used[i] || sc->lanes.keys[i] >> 32 != si)
			continue;
		lane_name(sc, si, (int32_t)(uint32_t)sc->lanes.keys[i], &sc->tmp);
		model_lane_rename(m, (uint32_t)sc->lanes.vals[i], model_str(m, sc->tmp.p, sc->tmp.len));
	}
}

static void list_area(struct stream *s, bool gap, uint64_t off, uint64_t len)
{
	uint8_t *n = gap ? &s->nlisted_gaps : &s->nlisted_fillers;
	if (*n >= MAX_LISTED)
		return;
	if (!s->listed)
		s->listed = xcalloc(2 * MAX_LISTED, sizeof *s->listed);
	s->listed[(gap ? 0 : MAX_LISTED) + (*n)++] = (struct area){off, len};
}

int sc_probe(const uint8_t *p, size_t n, bool final)
{
	if (n >= 4)
		return memcmp(p, MAGIC, 4) ? PROBE_NO : PROBE_MAGIC;
	return !final && (!n || !memcmp(p, MAGIC, n)) ? PROBE_MORE : PROBE_NO; /* p may be NULL when n is 0 */
}

void *sc_open(struct input *in)
{
	struct sc *sc = xcalloc(1, sizeof *sc);
	sc->in = in;
	return sc;
}

void sc_close(void *st)
{
	struct sc *sc = st;
	for (size_t i = 0; i < sc->ns; i++)
		free(sc->s[i].listed);
	free(sc->s);
	hmap_free(&sc->types_far);
	free(sc->unflushed);
	hmap_free(&sc->lanes);
	hmap_free(&sc->families);
	hmap_free(&sc->fprints);
	buf_free(&sc->tmp);
	free(sc);
}

static void stale_tail(struct sc *sc, uint64_t pos, const char *fmt)
{
	uint64_t rest = sc->in->size > pos ? sc->in->size - pos : 0;
	sc->has_stale = true;
	sc->stale = (struct area){pos, rest};
	dec_fatal(sc->in, pos, fmt, (unsigned long long)pos, (unsigned long long)rest);
}

/* A stream header at q.  Returns the bytes it takes, 0 when more are needed. */
static size_t open_stream(struct sc *sc, const uint8_t *q, size_t left, uint64_t pos, bool final)
{
	unsigned hlen;
	bool seg16;
	int r = hdr_layout(q, left, final, &hlen, &seg16);
	if (r < 0)
		dec_fatal(sc->in, pos, "truncated stream header: %zu of %d bytes", left, HDR_LEN);
	if (r <= 0)
		return 0;
	xgrow(&sc->s, &sc->caps, sc->ns + 1, sizeof *sc->s);
	uint32_t si = (uint32_t)sc->ns++;
	struct stream *s = &sc->s[si];
	bool be = q[5] & 1;
	*s = (struct stream){.off = pos, .be = be, .seg16 = seg16, .version = q[4], .hdr_len = (uint8_t)hlen,
			     .tid = (int32_t)ld32(q + 8, be), .epoch = (int64_t)ld64(q + 12, be), .x86 = true,
			     .cap = PAGE_BYTES, .work = hlen, .first = true};
	if (hlen == HDR_LEN) {
		s->ref = (int64_t)ld64(q + 20, be);
		s->has_ref = true;
		if (s->epoch > 0 && s->epoch < INT64_MAX / 1000000000)
			dec_clock_anchor(sc->in, s->ref, s->epoch * 1000000000);
	}
	if (s->version != 1)
		dec_damage(sc->in, pos + 4, "stream header version %u (expected 1): decoded as version 1", s->version);
	uint64_t h = hash_bytes(q + 4, hlen - 4), fam;
	if (hmap_get(&sc->families, h, &fam)) {
		s->family = (uint32_t)fam;
	} else {
		s->family = si;
		hmap_put(&sc->families, h, si);
	}
	sc->nunflushed = 0;
	sc->lane_cached = false;
	if (si == 1)
		relabel(sc, 0);
	return hlen;
}

static void varhdr(struct stream *s, const uint8_t *v, size_t len, uint64_t voff)
{
	size_t o = 0;
	struct ie ie;
	while (ie_next(v, len, &o, s->be, &ie)) {
		if (ie.tag != 1 || ie.cut)
			continue;
		s->uname_off = voff + (size_t)(ie.v - v);
		s->uname_len = (uint32_t)ie.n;
		/* machine: the fifth string */
		const uint8_t *p = ie.v, *end = ie.v + ie.n;
		for (int k = 0; k < 4 && p < end; k++) {
			const uint8_t *z = memchr(p, 0, (size_t)(end - p));
			p = z ? z + 1 : end;
		}
		size_t ml = p < end ? strnlen((const char *)p, (size_t)(end - p)) : 0;
		s->x86 = !ml || (ml == 6 && !memcmp(p, "x86_64", 6));
		return;
	}
}

static uint64_t fingerprint(const struct stream *s, const struct rec *r)
{
	uint64_t k[6] = {s->family, (uint64_t)r->nr << 8 | r->flags, (uint64_t)r->ret, (uint64_t)r->ts,
			 (uint64_t)(uint32_t)r->tid << 32 | r->dur_raw, 0x5c};
	return hash_bytes(k, sizeof k);
}

static bool is_clone(uint16_t nr) { return nr == NR_CLONE || nr == NR_FORK || nr == NR_VFORK || nr == NR_CLONE3; }

/* A first data IE names the event: the path of open, stat and lstat. */
bool sc_names_path(const struct stream *s, uint16_t nr) { return s->x86 && (nr == 2 || nr == 4 || nr == 6); }

bool sc_first_path(const struct stream *s, const struct rec *r, const uint8_t *v, size_t len, const uint8_t **p,
		       size_t *n)
{
	if (!sc_names_path(s, r->nr))
		return false;
	size_t o = r->args;
	struct ie ie;
	if (!ie_next(v, len, &o, s->be, &ie))
		return false;
	if (ie.tag == IE_DATA) {
		*p = ie.v, *n = ie.n;
		return true;
	}
	if (ie.tag == IE_TRUNC && ie.n >= 4) {
		*p = ie.v + 4, *n = ie.n - 4;
		return true;
	}
	return false;
}

/* Decode one syscall segment and add its event.  False: stop (stale data). */
static bool record(struct sc *sc, uint32_t si, const uint8_t *seg, size_t hs, size_t len, uint64_t pos, bool literal,
		   bool flushed)
{
	struct stream *s = &sc->s[si];
	const uint8_t *v = seg + hs;
	struct rec r;
	sc_parse_rec(s, v, len, literal, &r);
	if (r.has_ts && s->has_ref && !s->ref_from_record && r.ts < s->ref) {
		stale_tail(sc, pos,
			   "entry time before the stream's start at offset %llu (%llu bytes): likely the stale tail "
			   "of an older capture");
		return false;
	}
	if (r.has_ts && !s->has_ref) { /* 20-byte header: times relative to the first record */
		s->ref = r.ts;
		s->has_ref = s->ref_from_record = true;
	}
	uint32_t flags = 0;
	if (r.cut) {
		flags |= EVF_DAMAGED;
		dec_damage(sc->in, pos, "syscall record too short for its flagged fields (%zu bytes)", len);
	} else {
		size_t o = r.args;
		struct ie ie;
		while (ie_next(v, len, &o, s->be, &ie)) {
			if (ie.cut) {
				flags |= EVF_DAMAGED;
				dec_damage(sc->in, pos + hs + ie.off,
					   "argument IE runs past its record (claims %u bytes, %zu present): shown as a "
					   "truncated argument",
					   ie.len, ie.n);
			}
		}
	}
	/* Durations: f32 in current files, "multi-unit" in older ones (majority per stream). */
	if (r.has_err)
		s->errno_seen = true;
	if (r.has_dur && !literal) {
		uint32_t top = r.dur_raw >> 30;
		if (top == 1)
			s->votes_f32++;
		else if (r.dur_raw)
			s->votes_mu++;
	}
	bool multi = !literal && (s->errno_seen || s->votes_mu > s->votes_f32);
	if (multi && r.has_dur)
		flags |= EVF_MARK;
	s->records++;
	s->literal += literal;
	s->damaged += (flags & EVF_DAMAGED) != 0;

	struct event e = {.dur = dur_ns(&r, multi), .off = pos};
	e.flags = flags | (e.dur == TTV_NODUR ? ROLE_INSTANT : ROLE_COMPLETE);
	if (r.has_ts) {
		e.ts = r.ts;
		sc->last_ts = r.ts;
		sc->have_ts = true;
	} else {
		e.ts = sc->have_ts ? sc->last_ts : s->has_ref ? s->ref : 0;
		e.flags |= EVF_NO_TS;
	}
	const uint8_t *path;
	size_t npath;
	if (sc_first_path(s, &r, v, len, &path, &npath))
		e.name = dec_str(sc->in, path, npath);
	/* Records from before a fork are in the parent's stream and the child's. */
	if (flushed) {
		sc->nunflushed = sc->nput = 0;
		if (sc->capunflushed > UNFLUSHED_KEEP) { /* (a file read to its end keeps only its last page's) */
			free(sc->unflushed);
			sc->unflushed = NULL;
			sc->capunflushed = 0;
		}
	}
	if (r.has_ts) {
		uint64_t fp = fingerprint(s, &r), owner;
		if (hmap_get(&sc->fprints, fp, &owner) && owner != si + 1) {
			e.flags |= EVF_COPY;
			s->dups++;
			s->dup_of = (uint32_t)owner;
		}
		if (is_clone(r.nr) && r.ret >= 0 && !sc->fprints_full) {
			/* (a process forking again before its next flush: what it put
			 * last time stands, unless another put since) */
			size_t i = sc->last_putter == si + 1 ? sc->nput : 0;
			for (; i < sc->nunflushed; i++)
				hmap_put(&sc->fprints, sc->unflushed[i], si + 1);
			sc->nput = sc->nunflushed;
			sc->last_putter = si + 1;
			sc->fprints_full = sc->fprints.n >= MAX_FPRINTS;
		}
		if (sc->nunflushed < MAX_UNFLUSHED) {
			xgrow(&sc->unflushed, &sc->capunflushed, sc->nunflushed + 1, sizeof *sc->unflushed);
			sc->unflushed[sc->nunflushed++] = fp;
		}
	}
	if (is_clone(r.nr) && (r.has_ret || !literal) && r.ret == 0 && !s->child) {
		s->child = true;
		relabel(sc, si);
	}
	e.lane = lane_for(sc, si, r.has_tid ? r.tid : s->tid);
	e.type = type_for(sc, r.nr, s->x86);
	return dec_emit(sc->in, &e);
}

/* Replay the writer's bookkeeping (byte counts, notes §3.1) for a segment
 * of sod bytes: whether a page went out before it (flushed), and how many
 * bytes the writer left unwritten up to the next page (0: none). */
static uint64_t replay_pages(struct stream *s, uint32_t tag, uint64_t sod, bool *flushed)
{
	uint64_t gap = 0;
	*flushed = false;
	if (!s->seg16 && tag != SEG_FILLER) {
		s->work += sod;
		if (s->first && tag == SEG_VARHDR) {
			s->last = 0;
		} else {
			if (s->work + SWAP_ROOM > s->cap) { /* the writer swapped its buffers */
				uint64_t t = s->work;
				s->work = s->stby;
				s->stby = t;
				s->cap = PAGE_BYTES;
				s->last = s->work;
			}
			if (s->stby + s->work >= PAGE_BYTES - 8) { /* a page went out; this record opens the next */
				gap = s->last;
				s->stby = 0;
				s->cap = s->cap > s->last ? s->cap - s->last : 0;
				*flushed = true;
			}
			s->last = s->work;
		}
	}
	/* Only the real writer pages, and it ends each page with a filler. */
	if (*flushed && !s->after_filler) {
		if (gap)
			s->unpaged++;
		gap = 0;
	}
	return gap;
}

size_t sc_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct sc *sc = st;
	size_t at = 0;
	if (!sc->ns && !off && !n && final) {
		dec_fatal(sc->in, 0,
			  "capture is empty: the writer was killed before its first 1 MiB flush, or the traced "
			  "program crashed (e.g. a multi-threaded program)");
		return 0;
	}
	for (;;) {
		if (sc->skip) {
			uint64_t k = MIN(sc->skip, (uint64_t)(n - at));
			at += (size_t)k;
			sc->skip -= k;
			if (sc->skip) {
				if (final) /* killed right after a page began: nothing lost */
					sc->gap_past_end = sc->skip;
				return at;
			}
		}
		if (at == n)
			return at;
		const uint8_t *q = p + at;
		size_t left = n - at;
		uint64_t pos = off + at;
		if (!sc->ns && (left < 4 ? memcmp(q, MAGIC, left) || final : memcmp(q, MAGIC, 4) != 0)) {
			if (left >= 4 || final)
				dec_fatal(sc->in, pos, "not a syscall capture: no magic 78 06 17 a5 here");
			return at;
		}
		if (!sc->ns && left < 4)
			return at; /* the first magic is not all here yet */
		if (left >= 4 && !memcmp(q, MAGIC, 4)) {
			size_t used = open_stream(sc, q, left, pos, final);
			if (!used)
				return at;
			at += used;
			continue;
		}
		uint32_t si = (uint32_t)sc->ns - 1;
		struct stream *s = &sc->s[si];
		size_t hs = s->seg16 ? 4 : 8;
		if (left < hs) {
			if (final)
				dec_fatal(sc->in, pos, "partial segment header (%zu of %zu bytes)", left, hs);
			return at;
		}
		uint32_t tag = s->seg16 ? ld16(q, s->be) : ld32(q, s->be);
		uint32_t len = s->seg16 ? ld16(q + 2, s->be) : ld32(q + 4, s->be);
		if (!seg_tag_known(tag)) {
			stale_tail(sc, pos,
				   "unrecognised data at offset %llu (%llu bytes), likely the stale tail of an older "
				   "capture");
			return at;
		}
		if (len > left - hs) {
			if (final)
				dec_fatal(sc->in, pos, "segment runs past the end of the file (claims %u bytes, %zu present)",
					  len, left - hs);
			return at;
		}
		uint64_t sod = hs + pad4(len);
		if (sod > left && !final)
			return at; /* wait for the padding */
		bool flushed;
		uint64_t gap = replay_pages(s, tag, sod, &flushed);
		bool first = s->first;
		s->first = false;
		s->after_filler = tag == SEG_FILLER;
		if (tag == SEG_FILLER) {
			s->fillers++;
			s->filler_bytes += len;
			s->since_filler = 0;
			list_area(s, false, pos, len);
		} else {
			s->since_filler += sod;
		}
		if (tag == SEG_VARHDR && first) {
			varhdr(s, q + hs, len, pos + hs);
		} else if (tag != SEG_FILLER) {
			if (!record(sc, si, q, hs, len, pos, tag == SEG_VARHDR, flushed))
				return at;
		}
		at += (size_t)MIN(sod, (uint64_t)left);
		if (gap) {
			s->gaps++;
			s->gap_bytes += gap;
			list_area(s, true, off + at, gap);
			sc->skip = gap;
		}
	}
}

/* Not while a page's gap was still being skipped (the end came inside it). */
bool sc_resumable(void *st)
{
	const struct sc *sc = st;
	return !sc->skip && !sc->gap_past_end;
}

const struct decoder syscall_decoder = {
	.name = "syscall",
	.title = "syscall capture (TLV, magic 0x780617a5)",
	.reentrant = true,
	.probe = sc_probe,
	.open = sc_open,
	.feed = sc_feed,
	.fields = sc_fields,
	.summary = sc_summary,
	.save = sc_save,
	.restore = sc_restore,
	.resumable = sc_resumable,
	.info = sc_info,
	.close = sc_close,
};
