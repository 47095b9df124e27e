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
#ifndef TTV_SYSCALL_H
#define TTV_SYSCALL_H

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
#define UNFLUSHED_KEEP 1024 /* room for them kept past a flush */
#define SHOW_BYTES 32  /* data shown in a summary, extended to the end of its line... */
#define SHOW_LINE 128  /* ...when that ends within this many bytes */
#define HEX_BYTES 4096 /* hex dump of a buffer in the fields */

enum { SEG_VARHDR = 1, SEG_SYSCALL = 2, SEG_FILLER = 3 };
enum { IE_INT = 1, IE_DATA, IE_TRUNC, IE_STAT, IE_POLL, IE_SIGACT, IE_INTPTR };
enum { NR_MMAP = 9, NR_BRK = 12, NR_READV = 19, NR_MREMAP = 25, NR_SHMAT = 30, NR_CLONE = 56, NR_FORK = 57,
       NR_VFORK = 58, NR_CLONE3 = 435 };

static const char *const sc_names[] = {
#define SYSCALL(nr, name) [nr] = #name,
#include "decoders/syscall/syscalls_x86_64.def"
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

#define TYPES_DENSE 512 /* (x86_64 numbers its syscalls below 460) */

struct sc {
	struct input *in;
	struct stream *s;
	size_t ns, caps;
	uint64_t skip; /* gap bytes still to skip */
	int64_t last_ts;
	bool have_ts;
	/* model type + 1 of (x86 << 16 | nr): the numbers every table has
	 * directly, the rest (a hostile capture's) hashed */
	uint32_t types[2][TYPES_DENSE];
	struct hmap types_far;
	struct hmap lanes;    /* stream << 32 | tid -> lane */
	uint64_t lane_key;    /* cache of the last lookup */
	uint32_t lane_val;
	bool lane_cached;
	struct hmap families; /* header hash -> stream index */
	struct hmap fprints;  /* record fingerprint -> stream + 1 that holds it */
	uint64_t *unflushed;  /* fingerprints of the current stream's records not yet flushed */
	size_t nunflushed, capunflushed;
	size_t nput;          /* ... the first nput of them put in fprints by the last fork, */
	uint32_t last_putter; /* ... of this stream + 1 (0: none) */
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

static const uint64_t unit_ns[4] = {1, 1000, 1000000, 1000000000};
static const char *const unit_name[4] = {"ns", "us", "ms", "s"};

extern const struct decoder syscall_decoder;

static inline size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* Next IE of v[0..len) at *o.  False at the end. */
static inline bool ie_next(const uint8_t *v, size_t len, size_t *o, bool be, struct ie *ie)
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

static inline bool is_error(int64_t ret) { return ret >= -4095 && ret <= -1; }

struct loaded {
	const struct stream *s;
	uint32_t si;
	const uint8_t *v;
	size_t len;
	struct rec r;
	bool multi;
};

/* the records, probing and feeding (feed.c) */
void sc_parse_rec(const struct stream *s, const uint8_t *v, size_t len, bool literal, struct rec *r);
bool sc_names_path(const struct stream *s, uint16_t nr);
bool sc_first_path(const struct stream *s, const struct rec *r, const uint8_t *v, size_t len, const uint8_t **p,
		       size_t *n);
int sc_probe(const uint8_t *p, size_t n, bool final);
void *sc_open(struct input *in);
void sc_close(void *st);
/* Note a syscall's model type + 1 (key: x86 << 16 | nr). */
void sc_type_set(struct sc *sc, uint32_t key, uint32_t type1);
size_t sc_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final);
bool sc_resumable(void *st);

/* lazy decoding: loading a record, its summary (decode.c) */
bool sc_load(const struct sc *sc, const struct event *e, struct loaded *l);
const char *sc_name(const struct stream *s, uint16_t nr, char *tmp, size_t n);
bool sc_addr_result(const struct stream *s, uint16_t nr);
bool sc_ie_int(const struct ie *ie, bool be, int64_t *v);
void sc_summary(void *st, const struct event *e, struct buf *b);

/* an event's fields (fields.c) */
void sc_utc_date(char *out, size_t n, int64_t t);
void sc_fields(void *st, const struct event *e, struct fsink *out);

/* info (info.c) */
void sc_info(struct source *src, struct fsink *out);

/* the saved index (saved.c) */
void sc_save(void *st, struct buf *out);
bool sc_restore(void *st, struct blob *r);

#endif
