/* syscall_capture TLV files (magic 78 06 17 a5): a 28-byte header, then
 * segments (u32 tag, u32 length, padded to 4): 1 the variable header (uname),
 * 2 a captured system call, 3 a filler that ends each 1 MiB page.  See
 * specs/syscall-tlv.md and, for what real files hold, specs/syscall-tlv-notes.md.
 *
 * The real writer leaves a gap of stale bytes after the first record of
 * every page from the second on; its size follows only from the writer's
 * buffer bookkeeping, which feed() replays exactly (notes §3.1).  A file may
 * hold several streams (a forked child appends its own), and a stale tail
 * of an older, longer capture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "decoders/decoder.h"
#include "src/esc.h"
#include "src/hmap.h"

static const uint8_t MAGIC[4] = {0x78, 0x06, 0x17, 0xa5};
#define HDR_LEN 28
#define SHORT_HDR_LEN 20 /* before 2019-09-18: no mono_ref_ns */
#define PAGE_BYTES (1u << 20)
#define SWAP_ROOM (128u << 10)
#define MAX_LISTED 32          /* gaps and fillers listed per stream in --info */
#define MAX_FPRINTS (1u << 20) /* fingerprints kept to find records duplicated by fork */
#define MAX_UNFLUSHED (1u << 18)
#define SHOW_BYTES 32  /* data shown in a summary, extended to the end of its line... */
#define SHOW_LINE 128  /* ...when that ends within this many bytes */
#define HEX_BYTES 4096 /* hex dump of a buffer in the fields */

enum { SEG_VARHDR = 1, SEG_SYSCALL = 2, SEG_FILLER = 3 };
enum { IE_INT = 1, IE_DATA, IE_TRUNC, IE_STAT, IE_POLL, IE_SIGACT, IE_INTPTR };
enum { NR_MMAP = 9, NR_BRK = 12, NR_READV = 19, NR_MREMAP = 25, NR_SHMAT = 30, NR_CLONE = 56, NR_FORK = 57,
       NR_VFORK = 58, NR_CLONE3 = 435 };

static const char *const sc_names[] = {
#define SYSCALL(nr, name) [nr] = #name,
#include "decoders/syscalls_x86_64.def"
#undef SYSCALL
};

/* Argument names of the calls the writer describes (numbers 0..19). */
static const char *const arg_names[20][6] = {
	{"fd", "buf", "count"}, {"fd", "buf", "count"}, {"path", "flags", "mode"}, {"fd"},
	{"path", "statbuf"}, {"fd", "statbuf"}, {"path", "statbuf"}, {"fds", "nfds", "timeout"},
	{"fd", "offset", "whence"}, {"addr", "length", "prot", "flags", "fd", "offset"}, {"addr", "len", "prot"},
	{"addr", "length"}, {"addr"}, {"sig", "act", "oact", "sigsetsize"}, {"how", "set", "oset", "sigsetsize"},
	{"unused"}, {"fd", "cmd", "arg"}, {"fd", "buf", "count", "pos"}, {"fd", "buf", "count", "pos"},
	{"fd", "iov", "iovcnt", "junk", "junk", "junk"},
};

struct area {
	uint64_t off, len;
};

struct stream {
	uint64_t off; /* of its magic */
	int32_t tid;
	int64_t epoch, ref; /* ref: mono_ref_ns, or the first record's time (20-byte header) */
	bool be, seg16, has_ref, ref_from_record, x86, child;
	uint8_t version, hdr_len;
	uint64_t uname_off;
	uint32_t uname_len; /* 0: no uname */
	/* the writer's bookkeeping (notes §3.1): byte counts only */
	uint64_t cap, work, stby, last;
	bool first, after_filler;
	/* findings */
	uint64_t records, damaged, literal, fillers, filler_bytes, gaps, gap_bytes, since_filler, dups, unpaged;
	uint64_t votes_mu, votes_f32;
	bool errno_seen;
	uint32_t family; /* first stream with the same header */
	uint32_t dup_of; /* stream (+1) that holds the originals of its duplicates */
	struct area *listed; /* gaps then fillers: up to MAX_LISTED of each */
	uint8_t nlisted_gaps, nlisted_fillers;
};

struct sc {
	struct input *in;
	struct stream *s;
	size_t ns, caps;
	uint64_t skip; /* gap bytes still to skip */
	int64_t last_ts;
	bool have_ts;
	uint32_t *types; /* (x86 << 16 | nr) -> model type + 1 */
	struct hmap lanes;    /* stream << 32 | tid -> lane */
	uint64_t lane_key;    /* cache of the last lookup */
	uint32_t lane_val;
	bool lane_cached;
	struct hmap families; /* header hash -> stream index */
	struct hmap fprints;  /* record fingerprint -> stream + 1 that holds it */
	uint64_t *unflushed;  /* fingerprints of the current stream's records not yet flushed */
	size_t nunflushed, capunflushed;
	bool fprints_full;
	struct area stale;
	bool has_stale;
	uint64_t gap_past_end;
	struct buf tmp;
};

/* A parsed syscall record. */
struct rec {
	uint16_t nr;
	uint8_t flags;
	bool literal, cut;
	bool has_ret, has_tid, has_ts, has_dur, has_err;
	int64_t ret, ts; /* ts: absolute */
	int32_t tid, err;
	uint32_t dur_raw;
	size_t args; /* offset of the first argument IE in the value */
};

struct ie {
	uint16_t tag;
	uint32_t len;       /* as claimed */
	const uint8_t *v;   /* value */
	size_t n;           /* value bytes present */
	size_t off;         /* of the IE in the record value */
	bool cut;           /* runs past its record */
};

extern const struct decoder syscall_decoder;

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* ---- layout helpers ------------------------------------------------------- */

/* Next IE of v[0..len) at *o.  False at the end. */
static bool ie_next(const uint8_t *v, size_t len, size_t *o, bool be, struct ie *ie)
{
	if (*o >= len)
		return false;
	size_t rest = len - *o;
	if (rest < 4) {
		bool zero = true; /* padding the length did not count */
		for (size_t i = *o; i < len; i++)
			zero &= v[i] == 0;
		if (zero)
			return false;
		*ie = (struct ie){.off = *o, .cut = true, .v = v + *o, .n = 0};
		*o = len;
		return true;
	}
	const uint8_t *q = v + *o;
	*ie = (struct ie){.tag = ld16(q, be), .len = ld16(q + 2, be), .v = q + 4, .off = *o};
	if (ie->len > rest - 4) {
		ie->cut = true;
		ie->n = rest - 4;
		*o = len;
	} else {
		ie->n = ie->len;
		*o += MIN(4 + pad4(ie->len), rest);
	}
	return true;
}

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
static void parse_rec(const struct stream *s, const uint8_t *v, size_t len, bool literal, struct rec *r)
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

static const uint64_t unit_ns[4] = {1, 1000, 1000000, 1000000000};
static const char *const unit_name[4] = {"ns", "us", "ms", "s"};

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

static uint32_t type_for(struct sc *sc, uint16_t nr, bool x86)
{
	if (!sc->types)
		sc->types = xcalloc(2u << 16, sizeof *sc->types);
	uint32_t *slot = &sc->types[(uint32_t)x86 << 16 | nr];
	if (*slot)
		return *slot - 1;
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
	*slot = id + 1;
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

/* ---- probing and feeding -------------------------------------------------- */

static int sc_probe(const uint8_t *p, size_t n, bool final)
{
	if (n >= 4)
		return memcmp(p, MAGIC, 4) ? PROBE_NO : PROBE_MAGIC;
	return !final && (!n || !memcmp(p, MAGIC, n)) ? PROBE_MORE : PROBE_NO; /* p may be NULL when n is 0 */
}

static void *sc_open(struct input *in)
{
	struct sc *sc = xcalloc(1, sizeof *sc);
	sc->in = in;
	return sc;
}

static void sc_close(void *st)
{
	struct sc *sc = st;
	for (size_t i = 0; i < sc->ns; i++)
		free(sc->s[i].listed);
	free(sc->s);
	free(sc->types);
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
static bool names_path(const struct stream *s, uint16_t nr) { return s->x86 && (nr == 2 || nr == 4 || nr == 6); }

static bool first_path(const struct stream *s, const struct rec *r, const uint8_t *v, size_t len, const uint8_t **p,
		       size_t *n)
{
	if (!names_path(s, r->nr))
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
	parse_rec(s, v, len, literal, &r);
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
	if (first_path(s, &r, v, len, &path, &npath))
		e.name = dec_str(sc->in, path, npath);
	/* Records from before a fork are in the parent's stream and the child's. */
	if (flushed)
		sc->nunflushed = 0;
	if (r.has_ts) {
		uint64_t fp = fingerprint(s, &r), owner;
		if (hmap_get(&sc->fprints, fp, &owner) && owner != si + 1) {
			e.flags |= EVF_COPY;
			s->dups++;
			s->dup_of = (uint32_t)owner;
		}
		if (is_clone(r.nr) && r.ret >= 0 && !sc->fprints_full) {
			for (size_t i = 0; i < sc->nunflushed; i++)
				hmap_put(&sc->fprints, sc->unflushed[i], si + 1);
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

static size_t sc_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
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

/* ---- lazy decoding -------------------------------------------------------- */

static const struct stream *stream_of(const struct sc *sc, uint64_t off)
{
	size_t lo = 0, hi = sc->ns;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (sc->s[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return sc->ns ? &sc->s[lo] : NULL;
}

struct loaded {
	const struct stream *s;
	uint32_t si;
	const uint8_t *v;
	size_t len;
	struct rec r;
	bool multi;
};

static bool load(const struct sc *sc, const struct event *e, struct loaded *l)
{
	l->s = stream_of(sc, e->off);
	if (!l->s)
		return false;
	l->si = (uint32_t)(l->s - sc->s);
	uint64_t avail;
	const uint8_t *p = input_bytes(sc->in, e->off, &avail);
	size_t hs = l->s->seg16 ? 4 : 8;
	if (!p || avail < hs)
		return false;
	bool be = l->s->be;
	uint32_t tag = l->s->seg16 ? ld16(p, be) : ld32(p, be);
	uint32_t len = l->s->seg16 ? ld16(p + 2, be) : ld32(p + 4, be);
	if (len > avail - hs)
		return false;
	l->v = p + hs;
	l->len = len;
	parse_rec(l->s, l->v, len, tag == SEG_VARHDR, &l->r);
	l->multi = e->flags & EVF_MARK;
	return true;
}

static const char *sc_name(const struct stream *s, uint16_t nr, char *tmp, size_t n)
{
	if (s->x86 && nr < ARRAY_LEN(sc_names) && sc_names[nr])
		return sc_names[nr];
	snprintf(tmp, n, "syscall_%u", nr);
	return tmp;
}

static bool addr_result(const struct stream *s, uint16_t nr)
{
	return s->x86 && (nr == NR_MMAP || nr == NR_BRK || nr == NR_MREMAP || nr == NR_SHMAT);
}

static bool is_error(int64_t ret) { return ret >= -4095 && ret <= -1; }

static void result_text(struct buf *b, const struct loaded *l)
{
	int64_t ret = l->r.ret;
	if (is_error(ret)) {
		const char *en = errno_name((int)-ret);
		if (en)
			buf_printf(b, "-1 %s (%lld)", en, (long long)ret);
		else
			buf_printf(b, "-1 errno %lld (%lld)", (long long)-ret, (long long)ret);
	} else if (addr_result(l->s, l->r.nr) && ret) {
		buf_printf(b, "0x%llx", (unsigned long long)ret);
	} else {
		buf_printf(b, "%lld", (long long)ret);
	}
}

/* An int IE: i32 when the value fitted, else i64. */
static bool ie_int(const struct ie *ie, bool be, int64_t *v)
{
	if (ie->cut)
		return false;
	if (ie->n == 4)
		*v = (int32_t)ld32(ie->v, be);
	else if (ie->n == 8)
		*v = (int64_t)ld64(ie->v, be);
	else
		return false;
	return true;
}

static void int_text(struct buf *b, int64_t v)
{
	if (v > (int64_t)UINT32_MAX || v < INT32_MIN)
		buf_printf(b, "0x%llx", (unsigned long long)v);
	else
		buf_printf(b, "%lld", (long long)v);
}

/* Bytes shown of a buffer: SHOW_BYTES, extended to the end of that line
 * when it is text. */
static size_t shown_len(const uint8_t *p, size_t n)
{
	if (n <= SHOW_BYTES)
		return n;
	if (p[SHOW_BYTES - 1] == '\n')
		return SHOW_BYTES;
	const uint8_t *nl = memchr(p + SHOW_BYTES, '\n', MIN(n, SHOW_LINE) - SHOW_BYTES);
	if (!nl)
		return SHOW_BYTES;
	for (const uint8_t *q = p; q < nl; q++)
		if ((*q < 0x20 && *q != '\n' && *q != '\t') || *q == 0x7f)
			return SHOW_BYTES;
	return (size_t)(nl - p) + 1;
}

/* A buffer as a quoted string; paths in full, other data cut for display. */
static void data_text(struct buf *b, const uint8_t *p, size_t n, bool whole)
{
	size_t k = whole ? n : shown_len(p, n);
	struct buf t = {0};
	esc_quoted(&t, p, k);
	if (k < n) { /* the ellipsis goes inside the quotes */
		t.len--;
		buf_adds(&t, "…\"");
	}
	buf_add(b, t.p, t.len);
	buf_free(&t);
}

static const int stat_fields_off[] = {16, 44, 8}; /* st_mode, st_size, st_ino */

static void arg_text(struct buf *b, const struct loaded *l, const struct ie *ie, unsigned i)
{
	bool be = l->s->be;
	bool path = i == 0 && names_path(l->s, l->r.nr);
	int64_t v;
	if (ie->cut) {
		buf_adds(b, "<truncated argument>");
		return;
	}
	switch (ie->tag) {
	case IE_INT:
		if (ie_int(ie, be, &v))
			int_text(b, v);
		else
			buf_printf(b, "<int of %zu bytes>", ie->n);
		return;
	case IE_DATA: data_text(b, ie->v, ie->n, path); return;
	case IE_TRUNC:
		if (ie->n < 4) {
			buf_adds(b, "<truncated argument>");
			return;
		}
		if (ie->n > 4) {
			data_text(b, ie->v + 4, ie->n - 4, path);
			buf_addc(b, ' ');
		}
		buf_printf(b, "<%zu of %u bytes>", ie->n - 4, ld32(ie->v, be));
		return;
	case IE_STAT:
		if (ie->n < 116) {
			buf_printf(b, "<struct stat of %zu bytes>", ie->n);
			return;
		}
		buf_printf(b, "{st_mode=0%o, st_size=%lld, st_ino=%llu}", ld32(ie->v + stat_fields_off[0], be),
			   (long long)ld64(ie->v + stat_fields_off[1], be),
			   (unsigned long long)ld64(ie->v + stat_fields_off[2], be));
		if (is_error(l->r.ret))
			buf_adds(b, " /* stale */");
		return;
	case IE_POLL:
		buf_addc(b, '[');
		for (size_t i = 0; i + 8 <= ie->n; i += 8) {
			if (i == 16 * 8) {
				buf_printf(b, ", …%zu more", ie->n / 8 - 16);
				break;
			}
			buf_printf(b, "%s{fd=%d, events=0x%x, revents=0x%x}", i ? ", " : "", (int32_t)ld32(ie->v + i, be),
				   ld16(ie->v + i + 4, be), ld16(ie->v + i + 6, be));
		}
		buf_addc(b, ']');
		return;
	case IE_SIGACT:
		if (!ie->n) {
			buf_adds(b, "NULL");
		} else if (ie->n >= 24) {
			buf_printf(b, "{handler=0x%llx, flags bytes ", (unsigned long long)ld64(ie->v, be));
			for (int i = 16; i < 24; i++)
				buf_printf(b, "%02x", ie->v[i]);
			buf_addc(b, '}');
		} else {
			buf_printf(b, "<sigaction of %zu bytes>", ie->n);
		}
		return;
	case IE_INTPTR:
		if (ie->n >= 16)
			buf_printf(b, "[%lld]", (long long)ld64(ie->v + 8, be));
		else
			buf_printf(b, "<int pointer of %zu bytes>", ie->n);
		return;
	default: buf_printf(b, "<IE %u: %zu bytes>", ie->tag, ie->n); return;
	}
}

static void sc_summary(void *st, const struct event *e, struct buf *b)
{
	struct sc *sc = st;
	struct loaded l;
	if (!load(sc, e, &l)) {
		buf_adds(b, "(record not readable)");
		return;
	}
	const struct stream *s = l.s;
	/* (no time of its own: the row's time column says it, one clock for all) */
	if (l.r.has_tid)
		buf_printf(b, "[tid %d] ", l.r.tid);
	char tmp[32];
	buf_printf(b, "%s(", sc_name(s, l.r.nr, tmp, sizeof tmp));
	size_t o = l.r.args;
	struct ie ie;
	unsigned i = 0;
	bool junk = s->x86 && l.r.nr == NR_READV;
	while (ie_next(l.v, l.len, &o, s->be, &ie)) {
		if (junk && i == 3)
			buf_adds(b, " /* junk: ");
		else if (i)
			buf_adds(b, ", ");
		arg_text(b, &l, &ie, i);
		i++;
	}
	if (junk && i > 3)
		buf_adds(b, " */");
	buf_adds(b, ") = ");
	result_text(b, &l);
	if (l.r.has_err) {
		const char *en = errno_name(l.r.err);
		buf_printf(b, " errno=%d%s%s", l.r.err, en ? " " : "", en ? en : "");
	}
	uint64_t d = e->dur;
	if (d != TTV_NODUR) {
		if (d < 1000000)
			buf_printf(b, " <%lluns>", (unsigned long long)d);
		else {
			buf_adds(b, " <");
			fmt_dur(b, d);
			buf_addc(b, '>');
		}
	}
	if (l.r.cut)
		buf_adds(b, " <record truncated>");
}

/* ---- fields --------------------------------------------------------------- */

struct flagname {
	uint64_t bit;
	const char *name;
};

static const char *flags_name(struct buf *b, uint64_t v, const struct flagname *t, size_t n)
{
	buf_reset(b);
	for (size_t i = 0; i < n; i++)
		if (t[i].bit && (v & t[i].bit) == t[i].bit) {
			buf_printf(b, "%s%s", b->len ? "|" : "", t[i].name);
			v &= ~t[i].bit;
		}
	if (v)
		buf_printf(b, "%s0x%llx", b->len ? "|" : "", (unsigned long long)v);
	return buf_str(b);
}

static const struct flagname open_flags[] = {
	{0100, "O_CREAT"}, {0200, "O_EXCL"}, {0400, "O_NOCTTY"}, {01000, "O_TRUNC"}, {02000, "O_APPEND"},
	{04000, "O_NONBLOCK"}, {04010000, "O_SYNC"}, {010000, "O_DSYNC"}, {020000, "O_ASYNC"}, {040000, "O_DIRECT"},
	{0100000, "O_LARGEFILE"}, {0200000, "O_DIRECTORY"}, {0400000, "O_NOFOLLOW"}, {01000000, "O_NOATIME"},
	{02000000, "O_CLOEXEC"}, {010000000, "O_PATH"}, {020000000, "O_TMPFILE"},
};
static const struct flagname prot_flags[] = {{1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}};
static const struct flagname map_flags[] = {
	{3, "MAP_SHARED_VALIDATE"}, {1, "MAP_SHARED"}, {2, "MAP_PRIVATE"}, {0x10, "MAP_FIXED"}, {0x20, "MAP_ANONYMOUS"},
	{0x100, "MAP_GROWSDOWN"}, {0x800, "MAP_DENYWRITE"}, {0x1000, "MAP_EXECUTABLE"}, {0x2000, "MAP_LOCKED"},
	{0x4000, "MAP_NORESERVE"}, {0x8000, "MAP_POPULATE"}, {0x10000, "MAP_NONBLOCK"}, {0x20000, "MAP_STACK"},
	{0x40000, "MAP_HUGETLB"}, {0x100000, "MAP_FIXED_NOREPLACE"},
};
static const struct flagname poll_flags[] = {
	{0x1, "POLLIN"}, {0x2, "POLLPRI"}, {0x4, "POLLOUT"}, {0x8, "POLLERR"}, {0x10, "POLLHUP"}, {0x20, "POLLNVAL"},
	{0x40, "POLLRDNORM"}, {0x80, "POLLRDBAND"}, {0x100, "POLLWRNORM"}, {0x200, "POLLWRBAND"}, {0x2000, "POLLRDHUP"},
};
static const struct flagname sa_flags[] = {
	{1, "SA_NOCLDSTOP"}, {2, "SA_NOCLDWAIT"}, {4, "SA_SIGINFO"}, {0x04000000, "SA_RESTORER"},
	{0x08000000, "SA_ONSTACK"}, {0x10000000, "SA_RESTART"}, {0x40000000, "SA_NODEFER"}, {0x80000000, "SA_RESETHAND"},
};

static const char *const signames[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1",
	"SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP",
	"SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

static const char *ioctl_name(int64_t cmd)
{
	static const struct {
		uint32_t cmd;
		const char *name;
	} t[] = {{0x5401, "TCGETS"},     {0x5402, "TCSETS"},     {0x5403, "TCSETSW"},  {0x5404, "TCSETSF"},
		 {0x540f, "TIOCGPGRP"},  {0x5410, "TIOCSPGRP"},  {0x5413, "TIOCGWINSZ"}, {0x5414, "TIOCSWINSZ"},
		 {0x541b, "FIONREAD"},   {0x5421, "FIONBIO"},    {0x5450, "FIONCLEX"}, {0x5451, "FIOCLEX"}};
	for (size_t i = 0; i < ARRAY_LEN(t); i++)
		if (cmd == t[i].cmd)
			return t[i].name;
	return NULL;
}

static const char *mode_name(struct buf *b, uint32_t mode)
{
	static const char *const types[16] = {[1] = "fifo", [2] = "character device", [4] = "directory",
					      [6] = "block device", [8] = "regular file", [10] = "symbolic link",
					      [12] = "socket"};
	const char *t = types[(mode >> 12) & 15];
	buf_reset(b);
	buf_printf(b, "%s%s0%04o", t ? t : "", t ? ", " : "", mode & 07777);
	return buf_str(b);
}

/* The name of an int argument's value, by call and position (NULL: none;
 * b: room for text). */
static const char *int_name(struct buf *b, const struct loaded *l, unsigned i, int64_t v)
{
	if (!l->s->x86)
		return NULL;
	uint16_t nr = l->r.nr;
	const char *an = nr < 20 && i < 6 ? arg_names[nr][i] : NULL;
	if (!an)
		return NULL;
	if (nr == NR_READV && i >= 3)
		return NULL;
	if (!strcmp(an, "fd"))
		return v == 0 ? "stdin" : v == 1 ? "stdout" : v == 2 ? "stderr" : v == -100 ? "AT_FDCWD" : NULL;
	if (nr == 2 && i == 1) {
		const char *acc = (v & 3) == 0 ? "O_RDONLY" : (v & 3) == 1 ? "O_WRONLY" : (v & 3) == 2 ? "O_RDWR" : "O_ACCMODE";
		struct buf t = {0};
		flags_name(&t, (uint64_t)v & ~3ull, open_flags, ARRAY_LEN(open_flags));
		buf_reset(b);
		buf_printf(b, "%s%s%s", acc, t.len ? "|" : "", buf_str(&t));
		buf_free(&t);
		return buf_str(b);
	}
	if (nr == 8 && i == 2) {
		static const char *const w[] = {"SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA", "SEEK_HOLE"};
		return v >= 0 && v < 5 ? w[v] : NULL;
	}
	if ((nr == 9 || nr == 10) && i == 2)
		return v ? flags_name(b, (uint64_t)v, prot_flags, ARRAY_LEN(prot_flags)) : "PROT_NONE";
	if (nr == 9 && i == 3)
		return flags_name(b, (uint64_t)v, map_flags, ARRAY_LEN(map_flags));
	if (nr == 13 && i == 0)
		return v > 0 && v < (int64_t)ARRAY_LEN(signames) ? signames[v] : NULL;
	if (nr == 14 && i == 0)
		return v == 0 ? "SIG_BLOCK" : v == 1 ? "SIG_UNBLOCK" : v == 2 ? "SIG_SETMASK" : NULL;
	if (nr == 16 && i == 1)
		return ioctl_name(v);
	return NULL;
}

/* A note on an int argument (NULL: none; b: room for text). */
static const char *int_note(struct buf *b, const struct loaded *l, unsigned i, int64_t v)
{
	uint16_t nr = l->r.nr;
	if (!l->s->x86 || nr >= 20 || i >= 6 || !arg_names[nr][i])
		return NULL;
	if (nr == NR_READV && i >= 3)
		return "junk: register contents (the writer's argument table overruns for readv)";
	if (!strcmp(arg_names[nr][i], "fd") && (v == -1 || v == 4294967295))
		return nr == NR_MMAP ? "-1: no file" : "-1";
	if (nr == 2 && i == 2) {
		buf_reset(b);
		buf_printf(b, "0%llo", (unsigned long long)v);
		return buf_str(b);
	}
	if (nr == 7 && i == 2)
		return v < 0 ? "infinite" : "ms";
	return NULL;
}

static void data_fields(struct fsink *out, const uint8_t *p, size_t n)
{
	f_str(out, "text", p, n);
	f_bytes(out, "hex", p, MIN(n, (size_t)HEX_BYTES));
	if (n > HEX_BYTES)
		f_put(out, &(struct field){.name = "hex_shown", .kind = FK_UINT, .v.u = HEX_BYTES, .unit = "bytes"});
}

static void stat_fields(struct fsink *out, const struct ie *ie, bool be, bool stale)
{
	static const struct {
		const char *name;
		uint8_t off, size;
	} f[] = {{"st_dev", 0, 8},     {"st_ino", 8, 8},     {"st_mode", 16, 4},    {"st_nlink", 20, 8},
		 {"st_uid", 28, 4},    {"st_gid", 32, 4},    {"st_rdev", 36, 8},    {"st_size", 44, 8},
		 {"st_blksize", 52, 8}, {"st_blocks", 60, 8}, {"st_atime", 68, 8},   {"st_atime_nsec", 76, 8},
		 {"st_mtime", 84, 8},  {"st_mtime_nsec", 92, 8}, {"st_ctime", 100, 8}, {"st_ctime_nsec", 108, 8}};
	f_bool(out, "stale", stale);
	if (ie->n < 116) {
		f_bytes(out, "bytes", ie->v, ie->n);
		return;
	}
	struct buf m = {0};
	for (size_t i = 0; i < ARRAY_LEN(f); i++) {
		const uint8_t *p = ie->v + f[i].off;
		struct field fl = {.name = f[i].name, .kind = FK_INT};
		fl.v.i = f[i].size == 4 ? (int64_t)ld32(p, be) : (int64_t)ld64(p, be);
		if (!strcmp(f[i].name, "st_mode")) {
			fl.kind = FK_UINT;
			fl.value_name = mode_name(&m, (uint32_t)fl.v.i);
		}
		if (!strcmp(f[i].name, "st_size"))
			fl.unit = "bytes";
		f_put(out, &fl);
	}
	buf_free(&m);
}

/* An array of struct pollfd: fd, events and revents of each. */
static void poll_fields(struct fsink *out, const struct ie *ie, bool be)
{
	struct buf m = {0};
	f_uint(out, "nfds", ie->n / 8);
	f_arr(out, "fds");
	for (size_t k = 0; k + 8 <= ie->n; k += 8) {
		struct buf m2 = {0};
		f_obj(out, NULL);
		f_int(out, "fd", (int32_t)ld32(ie->v + k, be));
		uint16_t ev = ld16(ie->v + k + 4, be), rev = ld16(ie->v + k + 6, be);
		f_put(out, &(struct field){.name = "events", .kind = FK_HEX, .v.u = ev,
					   .value_name = flags_name(&m, ev, poll_flags, ARRAY_LEN(poll_flags))});
		f_put(out, &(struct field){.name = "revents", .kind = FK_HEX, .v.u = rev,
					   .value_name = rev ? flags_name(&m2, rev, poll_flags, ARRAY_LEN(poll_flags)) : NULL});
		f_end(out);
		buf_free(&m2);
	}
	f_end(out);
	buf_free(&m);
}

/* A struct sigaction as the kernel takes it (handler, flags; the mask is
 * not kept). */
static void sigaction_fields(struct fsink *out, const struct ie *ie, bool be)
{
	if (!ie->n) {
		f_null(out, "value");
		return;
	}
	if (ie->n < 24) {
		f_bytes(out, "bytes", ie->v, ie->n);
		return;
	}
	f_hex(out, "handler", ld64(ie->v, be));
	f_hex(out, "handler_again", ld64(ie->v + 8, be));
	f_bytes(out, "flags_bytes", ie->v + 16, 8);
	uint64_t saf = ld64(ie->v + 16, be);
	struct buf m = {0};
	f_put(out, &(struct field){.name = "sa_flags", .kind = FK_HEX, .v.u = saf,
				   .value_name = flags_name(&m, saf, sa_flags, ARRAY_LEN(sa_flags))});
	buf_free(&m);
	if (ie->n > 24)
		f_put(out, &(struct field){.name = "beyond_kernel_struct", .kind = FK_BYTES, .v.s = {ie->v + 24, ie->n - 24},
					   .meaning = "read past the kernel's structure: meaningless"});
}

static void arg_fields(struct fsink *out, const struct loaded *l, const struct ie *ie, unsigned i)
{
	bool be = l->s->be;
	uint16_t nr = l->r.nr;
	const char *an = l->s->x86 && nr < 20 && i < 6 ? arg_names[nr][i] : NULL;
	char anbuf[16];
	if (!an) {
		snprintf(anbuf, sizeof anbuf, "arg%u", i);
		an = anbuf;
	}
	f_obj(out, NULL);
	f_cstr(out, "name", an);
	static const char *const kinds[] = {NULL, "int", "data", "data_truncated", "stat", "pollfd", "sigaction",
					    "int_pointer"};
	f_cstr(out, "ie", ie->tag && ie->tag < ARRAY_LEN(kinds) ? kinds[ie->tag] : "unknown");
	if (ie->cut) {
		f_bool(out, "truncated", true);
		f_put(out, &(struct field){.name = "claimed", .kind = FK_UINT, .v.u = ie->len, .unit = "bytes"});
		f_bytes(out, "bytes", ie->v, ie->n);
		f_end(out);
		return;
	}
	struct buf m = {0};
	int64_t v;
	switch (ie->tag) {
	case IE_INT:
		if (ie_int(ie, be, &v)) {
			bool ptr = v > (int64_t)UINT32_MAX || v < INT32_MIN;
			f_put(out, &(struct field){.name = "value", .kind = ptr ? FK_HEX : FK_INT, .v.i = v,
						   .value_name = int_name(&m, l, i, v), .meaning = int_note(&m, l, i, v)});
			f_uint(out, "size", ie->n);
		} else {
			f_bytes(out, "bytes", ie->v, ie->n);
		}
		break;
	case IE_DATA:
		f_put(out, &(struct field){.name = "length", .kind = FK_UINT, .v.u = ie->n, .unit = "bytes"});
		data_fields(out, ie->v, ie->n);
		break;
	case IE_TRUNC:
		if (ie->n < 4) {
			f_bytes(out, "bytes", ie->v, ie->n);
			break;
		}
		f_put(out, &(struct field){.name = "real_length", .kind = FK_UINT, .v.u = ld32(ie->v, be), .unit = "bytes"});
		f_put(out, &(struct field){.name = "kept", .kind = FK_UINT, .v.u = ie->n - 4, .unit = "bytes"});
		data_fields(out, ie->v + 4, ie->n - 4);
		break;
	case IE_STAT: stat_fields(out, ie, be, is_error(l->r.ret)); break;
	case IE_POLL: poll_fields(out, ie, be); break;
	case IE_SIGACT: sigaction_fields(out, ie, be); break;
	case IE_INTPTR:
		if (ie->n >= 16) {
			f_hex(out, "pointer", ld64(ie->v, be));
			f_int(out, "value", (int64_t)ld64(ie->v + 8, be));
		} else {
			f_bytes(out, "bytes", ie->v, ie->n);
		}
		break;
	default:
		f_uint(out, "tag", ie->tag);
		f_bytes(out, "bytes", ie->v, ie->n);
		break;
	}
	buf_free(&m);
	f_end(out);
}

static void utc_date(char *out, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, n, "%lld s since the epoch", (long long)t);
}

static void sc_fields(void *st, const struct event *e, struct fsink *out)
{
	struct sc *sc = st;
	struct loaded l;
	if (!load(sc, e, &l)) {
		f_cstr(out, "error", "record not readable");
		return;
	}
	const struct stream *s = l.s;
	const struct rec *r = &l.r;
	char tmp[32];
	f_uint(out, "stream", l.si + 1);
	f_unit(out, "record_length", l.len, "bytes");
	f_put(out, &(struct field){.name = "nr", .kind = FK_UINT, .v.u = r->nr, .meaning = sc_name(s, r->nr, tmp, sizeof tmp)});
	f_cstr(out, "syscall", sc_name(s, r->nr, tmp, sizeof tmp));
	f_hex(out, "flags", r->flags);
	if (r->literal)
		f_cstr(out, "layout", "spec (tag-1 segment)");
	struct buf m = {0};
	struct field ret = {.name = "return", .kind = FK_INT, .v.i = r->ret};
	if (is_error(r->ret)) {
		ret.value_name = errno_name((int)-r->ret);
	} else if (addr_result(s, r->nr)) {
		buf_printf(&m, "0x%llx", (unsigned long long)r->ret);
		ret.meaning = m.p;
	} else if (!r->has_ret) {
		ret.meaning = "not recorded: 0";
	}
	f_put(out, &ret);
	f_put(out, &(struct field){.name = "tid", .kind = FK_INT, .v.i = r->has_tid ? r->tid : s->tid,
				   .meaning = r->has_tid ? NULL : "the stream header's thread"});
	if (r->has_ts) {
		f_put(out, &(struct field){.name = "entry_time", .kind = FK_INT, .v.i = r->ts, .unit = "ns"});
		int64_t rel = ts_sub(r->ts, s->ref);
		f_put(out, &(struct field){.name = "since_start", .kind = FK_INT, .v.i = rel, .unit = "ns",
					   .meaning = s->ref_from_record ? "since the first record (no mono_ref_ns)" : NULL});
		if (!s->ref_from_record) {
			char d[64];
			utc_date(d, sizeof d, sat_i64((__int128)s->epoch + rel / 1000000000));
			f_put(out, &(struct field){.name = "wall_clock", .kind = FK_STR, .v.s = {d, strlen(d)},
						   .meaning = "to about a second: the header has whole seconds"});
		}
	} else {
		f_null(out, "entry_time");
	}
	if (e->dur != TTV_NODUR)
		f_unit(out, "duration", e->dur, "ns");
	else
		f_null(out, "duration");
	if (r->has_dur) {
		uint32_t d = r->dur_raw;
		if (r->literal) {
			f_put(out, &(struct field){.name = "duration_raw", .kind = FK_UINT, .v.u = d & 0x7fffffff,
						   .unit = d >> 31 ? "ms" : "ns", .meaning = "the spec's ns/ms encoding"});
		} else if (l.multi) {
			f_put(out, &(struct field){.name = "duration_raw", .kind = FK_UINT, .v.u = d & 0x3fffffff,
						   .unit = unit_name[d >> 30],
						   .meaning = d == 0xffffffff ? "multi-unit encoding: overflow" : "multi-unit encoding"});
		} else {
			float f;
			memcpy(&f, &d, 4);
			f_put(out, &(struct field){.name = "duration_raw", .kind = FK_FLOAT, .v.d = f, .unit = "ns",
						   .meaning = "f32"});
		}
	}
	if (r->has_err)
		f_put(out, &(struct field){.name = "errno", .kind = FK_INT, .v.i = r->err,
					   .value_name = r->err ? errno_name(r->err) : NULL,
					   .meaning = r->err ? NULL : "libc's errno, not set by raw syscalls"});
	if (r->cut)
		f_bool(out, "record_truncated", true);
	const uint8_t *path;
	size_t npath;
	if (first_path(s, r, l.v, l.len, &path, &npath))
		f_str(out, "path", path, npath);
	f_arr(out, "args");
	size_t o = r->args;
	struct ie ie;
	unsigned i = 0;
	while (ie_next(l.v, l.len, &o, s->be, &ie))
		arg_fields(out, &l, &ie, i++);
	f_end(out);
	buf_free(&m);
}

/* ---- info ----------------------------------------------------------------- */

static void areas(struct fsink *out, const char *name, const struct area *a, unsigned n, uint64_t total)
{
	f_arr(out, name);
	for (unsigned i = 0; i < n; i++) {
		f_obj(out, NULL);
		f_uint(out, "offset", a[i].off);
		f_unit(out, "bytes", a[i].len, "bytes");
		f_end(out);
	}
	f_end(out);
	if (total > n)
		f_uint(out, "not_listed", total - n);
}

static void stream_info(const struct sc *sc, uint32_t si, struct fsink *out)
{
	const struct stream *s = &sc->s[si];
	f_obj(out, NULL);
	f_uint(out, "stream", si + 1);
	f_uint(out, "offset", s->off);
	f_cstr(out, "role", s->child ? "child (has clone() = 0)" : "process");
	f_int(out, "tid", s->tid);
	char d[64];
	utc_date(d, sizeof d, s->epoch);
	f_put(out, &(struct field){.name = "epoch_s", .kind = FK_INT, .v.i = s->epoch, .meaning = d});
	if (s->hdr_len == HDR_LEN)
		f_unit(out, "mono_ref", (uint64_t)s->ref, "ns");
	else
		f_put(out, &(struct field){.name = "mono_ref", .kind = FK_NULL, .meaning = "20-byte header (before 2019-09-18)"});
	f_uint(out, "version", s->version);
	f_cstr(out, "byte_order", s->be ? "big-endian" : "little-endian");
	if (s->seg16)
		f_cstr(out, "segments", "16-bit tags and lengths (the spec's TLV)");
	if (s->uname_len) {
		uint64_t avail;
		const uint8_t *p = input_bytes(sc->in, s->uname_off, &avail);
		struct buf u = {0};
		for (size_t i = 0; p && i < s->uname_len && i < avail; i++)
			buf_addc(&u, p[i] ? (char)p[i] : ' ');
		while (u.len && u.p[u.len - 1] == ' ')
			u.p[--u.len] = 0;
		f_str(out, "uname", u.p ? u.p : "", u.len);
		buf_free(&u);
	} else {
		f_null(out, "uname");
	}
	if (!s->x86)
		f_cstr(out, "names", "not an x86_64 machine: syscalls shown by number");
	f_uint(out, "records", s->records);
	if (s->literal)
		f_uint(out, "spec_layout_records", s->literal);
	if (s->damaged)
		f_uint(out, "damaged_records", s->damaged);
	if (s->votes_mu || s->votes_f32 || s->errno_seen)
		f_cstr(out, "durations", s->errno_seen || s->votes_mu > s->votes_f32 ? "multi-unit u32 (before 2020-07-17)"
										     : "f32 ns");
	f_uint(out, "pages", s->fillers + (s->since_filler > 0));
	f_uint(out, "fillers", s->fillers);
	f_unit(out, "filler_bytes", s->filler_bytes, "bytes");
	areas(out, "filler_list", s->listed ? s->listed + MAX_LISTED : NULL, s->nlisted_fillers, s->fillers);
	f_uint(out, "gaps", s->gaps);
	f_unit(out, "gap_bytes", s->gap_bytes, "bytes");
	areas(out, "gap_list", s->listed, s->nlisted_gaps, s->gaps);
	if (s->unpaged)
		f_put(out, &(struct field){.name = "flushes_without_filler", .kind = FK_UINT, .v.u = s->unpaged,
					   .meaning = "the writer's layout predicted a page here but none was written: no gap skipped"});
	if (s->family != si)
		f_put(out, &(struct field){.name = "same_header_as_stream", .kind = FK_UINT, .v.u = s->family + 1,
					   .meaning = "forked from one process"});
	if (s->dups)
		f_put(out, &(struct field){.name = "duplicates", .kind = FK_UINT, .v.u = s->dups,
					   .meaning = "records from before a fork, also in an earlier stream (marked [copy])"});
	if (s->dup_of)
		f_uint(out, "duplicates_of_stream", s->dup_of);
	f_end(out);
}

static void sc_info(struct source *src, struct fsink *out)
{
	struct input *in;
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct sc *sc = in->dstate;
		if (!sc)
			continue;
		f_uint(out, "streams", sc->ns);
		if (!sc->ns && !in->size)
			f_cstr(out, "capture", "empty (0 bytes)");
		f_arr(out, "stream_list");
		for (uint32_t k = 0; k < sc->ns; k++)
			stream_info(sc, k, out);
		f_end(out);
		if (sc->has_stale) {
			f_obj(out, "stale_tail");
			f_uint(out, "offset", sc->stale.off);
			f_unit(out, "bytes", sc->stale.len, "bytes");
			f_end(out);
		}
		if (sc->gap_past_end)
			f_put(out, &(struct field){.name = "gap_past_end", .kind = FK_UINT, .v.u = sc->gap_past_end,
						   .unit = "bytes", .meaning = "the file ends inside a gap: nothing lost"});
		if (sc->fprints_full)
			f_cstr(out, "duplicate_search", "stopped: too many records from before forks");
	}
}

/* ---- the saved index -------------------------------------------------------- */

static void sc_save(void *st, struct buf *out)
{
	struct sc *sc = st;
	put_u64(out, sc->ns);
	for (size_t i = 0; i < sc->ns; i++) {
		struct stream s = sc->s[i];
		s.listed = NULL;
		put_array(out, &s, 1, sizeof s);
		put_array(out, sc->s[i].listed, sc->s[i].listed ? 2 * MAX_LISTED : 0, sizeof *s.listed);
	}
	size_t ntypes = 0;
	for (size_t i = 0; sc->types && i < 2u << 16; i++)
		ntypes += sc->types[i] != 0;
	put_u64(out, ntypes);
	for (size_t i = 0; sc->types && i < 2u << 16; i++)
		if (sc->types[i])
			put_u64(out, (uint64_t)i << 32 | sc->types[i]);
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

static bool sc_restore(void *st, struct blob *r)
{
	struct sc *sc = st;
	struct model *m = dec_model(sc->in);
	if (!restore_streams(sc, r))
		return false;
	uint64_t n = get_below(r, (2u << 16) + 1);
	sc->types = xcalloc(2u << 16, sizeof *sc->types);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t v = get_u64(r);
		if (v >> 32 >= 2u << 16 || (uint32_t)v > model_ntypes(m))
			return false;
		sc->types[v >> 32] = (uint32_t)v;
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

/* Not while a page's gap was still being skipped (the end came inside it). */
static bool sc_resumable(void *st)
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
