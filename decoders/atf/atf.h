/* ATF v2 sessions (ADA Trace Format): per thread an index.atf of fixed
 * 32-byte records and an optional detail.atf of length-prefixed records
 * (540 bytes in every real file), a session manifest.json with the symbols,
 * and, in the bundle layout, a bundle manifest that points at the session.
 * Real files follow specs/atf-v2-notes.md where it disagrees with the spec.
 *
 * Index records are never copied.  Each thread's index is a model sequence
 * that reads its records in place.  Index files are not time-sorted (the
 * writer appends detail-lane batches that step back in time), so the file
 * is cut into chunks at positions where every earlier record is no later
 * than every later one; chunks are found in the one pass that feed() makes,
 * and a chunk that is not sorted already is sorted on demand (a permutation
 * of 4 bytes per record, a few chunks cached).  Memory is per chunk (at
 * least CHUNK_MIN records), not per record.
 *
 * Calls and returns pair per thread by call_depth: a CALL at depth d ends at
 * the next record at depth <= d, which pairs when it is a RETURN at depth d.
 * Partners are found by a short scan; pairs further apart than PAIR_NEAR
 * records are kept in a table built during the same pass.  The writer's
 * detail-lane copies (records that carry a detail_seq, in files whose time
 * steps back) are shown as instants flagged EVF_COPY and never paired:
 * their originals carry the spans.
 *
 * Detail records are reached through their index event (fields() nests
 * them as "detail"; the link ops give the viewer both directions).  A
 * detail record whose back link does not resolve becomes an event of its
 * own (type DETAIL, flagged damaged), so no whole record is hidden. */
#ifndef TTV_DECODERS_ATF_H
#define TTV_DECODERS_ATF_H
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "decoders/decoder.h"
#include "src/demangle.h"
#include "src/esc.h"
#include "src/hmap.h"
#include "src/json.h"

#define HDR 64
#define REC 32
#define FOOTER 64
#define DREC_HDR 24
#define DREC_REAL 540
#define SPEC_PAYLOAD 100 /* the spec's DetailFunctionPayload before its stack bytes */
#define NO_LINK 0xffffffffu
#define MAX_RECORDS 0xffffffffull /* index_seq and detail_seq are 32-bit */

#define CHUNK_MIN 4096 /* records between candidate chunk boundaries */
#define PAIR_NEAR 4096 /* partners further apart (in records) go in a table */
#define FAR_NONE UINT64_MAX /* in that table: a call decided further away, unpaired */
#define PERM_CACHE 4   /* sorted chunks kept per thread */
#define STACK_MAX (1u << 16)
#define EXAMPLES 3
#define MAX_KIND_TYPES 64
#define SEARCH_DEPTH 3 /* bundle: how deep to look for pid_N directories */

enum { K_CALL = 1, K_RETURN = 2, K_EXCEPTION = 3 };
enum tag { T_SESSION = 1, T_INDEX, T_DETAIL, T_META };
enum { M_MISSING, M_OK, M_BAD };

extern const struct decoder atf_decoder;

/* A run of records [start, next start) in file order; across chunks,
 * every record of a chunk is no later than every record of the next. */
struct chunk {
	uint64_t start;
	int64_t min, max, first, last;
	bool sorted; /* already in time order in the file */
};

struct perm {
	uint64_t start, n, used;
	uint32_t *p; /* sorted position -> record offset in the chunk */
};

#define PCACHE 1024

struct pcache {
	uint64_t rec, other, gen;
	bool paired;
};

struct frame {
	uint64_t rec;
	int64_t ts;
	uint32_t depth;
};

struct thread;

struct idx {
	enum tag tag;
	struct thread *th;
	struct input *in;
	bool have_hdr, final, rejected;
	/* the header as first read */
	uint8_t arch, os, clock, endian, version;
	uint32_t flags, hdr_tid, hdr_count;
	uint64_t E, raw_E, hdr_footer, hdr_t0, hdr_t1;
	/* recovery (notes 3.1) */
	const char *state, *from;
	bool footer;
	uint64_t footer_at, footer_count, footer_bytes, footer_t0, footer_t1;
	uint32_t footer_crc, footer_len;
	uint64_t size, size_count, partial, trailing;
	int crc; /* 0 not computed, 1 ok, 2 mismatch */
	uint32_t crc_calc;
	/* records */
	uint64_t n, calls, returns, exceptions, unknown, linked, unknown_first;
	uint32_t link_max, unknown_kind;
	int64_t first, last, min, max;
	uint64_t backsteps;
	/* time order */
	struct chunk *ch;
	size_t nch, capch, hint;
	struct perm cache[PERM_CACHE];
	uint64_t tick;
	/* the chunk rec_at() used last: [cur_start, cur_end), its order (NULL: sorted) */
	uint64_t cur_start, cur_end;
	const uint32_t *cur_perm;
	/* pairing */
	bool drain; /* time steps back: linked records are detail-lane copies */
	struct frame *stk;
	size_t nstk, capstk;
	uint64_t stk_full;
	struct hmap far; /* record -> partner record, for pairs more than PAIR_NEAR apart
			  * (or FAR_NONE: a call decided that far away, unpaired) */
	uint64_t far_pairs;
	uint64_t pc_gen; /* its answers' in partner_rec()'s cache (0: none yet; new when records are added) */
};

struct det {
	enum tag tag;
	struct thread *th;
	struct input *in;
	bool have_hdr, final, rejected;
	uint8_t arch, os, endian, version;
	uint32_t flags, hdr_tid;
	uint64_t S, raw_S, hdr_count, hdr_bytes, seq_start, seq_end;
	bool footer;
	uint64_t footer_count, footer_bytes, footer_t0, footer_t1;
	uint32_t footer_crc;
	const char *state;
	uint64_t size, end, partial;
	int crc;
	uint32_t crc_calc;
	/* records */
	uint64_t n, calls, returns, other_types, spec_layout, odd_layout;
	uint32_t len0;     /* length of the first record */
	uint64_t nuni;     /* records [0, nuni) all have length len0 */
	uint64_t *offs;    /* offsets of records nuni.. (only when lengths vary) */
	size_t noffs, capoffs;
	uint32_t tid;      /* OS thread id from the payload */
	bool tid_known;
	uint64_t tid_other; /* records with another OS thread id */
	uint32_t seq_min, seq_max;
	int64_t tmin, tmax;
	uint32_t bad_len;
	uint64_t bad_len_at;
	uint64_t checked; /* records [0, checked) had their back link checked */
};

struct link_ex {
	uint32_t from, to;
};

struct thread {
	struct session *ss;
	size_t pidx; /* into ss->pids */
	uint32_t slot;
	uint32_t lane, seq;
	struct idx ix;
	struct det dt;
	bool alone; /* one file opened by itself: its sibling was not looked for */
	char *dir;  /* its thread_N directory (following: files made late), NULL for a file alone */
	bool settled;
	uint32_t name_tid; /* the OS thread id in the lane's name (0 = none yet) */
	uint64_t fwd_ok, fwd_dangling, fwd_mismatch, back_past, back_mismatch;
	struct link_ex ex_fwd[EXAMPLES], ex_back[EXAMPLES];
	size_t nex_fwd, nex_back;
};

struct pidinfo {
	uint32_t pid;
	bool known;
	char *dir;
	int manifest;
	char *manifest_path, *manifest_err, *format_version;
	bool have_clock;
	uint64_t clock_type, nmodules, nsymbols;
	uint32_t *listed; /* thread ids listed in the manifest */
	size_t nlisted, caplisted;
	struct input *late; /* following: a manifest that appeared after opening, until it parses */
	uint64_t late_size; /* its size when it last failed to parse */
};

struct session {
	enum tag tag;
	enum tag meta_tag; /* dstate of the JSON inputs (consumed whole at open) */
	struct source *src;
	struct model *m;
	const char *layout;
	struct pidinfo *pids;
	size_t npids, cappids, pids_expected; /* lanes say "pid N" when there are several */
	struct thread **th;
	size_t nth, capth;
	struct hmap sym;   /* function_id -> interned symbol name */
	struct hmap mod;   /* module_id -> interned basename */
	struct hmap names; /* function_id -> interned display name */
	uint64_t nc_key[256];
	uint32_t nc_val[256]; /* a small direct-mapped cache in front of names */
	bool nc_used[256];
	bool bundle;
	char *bundle_manifest, *trace_session, *bundle_status;
	uint32_t t_call, t_ret, t_exc, t_detail, t_kind_other;
	struct hmap kinds; /* unknown event_kind -> type */
	struct buf tmp;
};

struct dent {
	uint32_t num;
	char *path;
};

/* ---- shared between the files of decoders/atf/ */

/* dirs.c: paths and the directories of a session (pid_N, thread_N, bundles) */
char *atf_path_join(const char *a, const char *b);
bool atf_is_file(const char *p);
const char *atf_base_name(const char *p);
bool atf_numbered(const char *name, const char *prefix, uint32_t *num);
int atf_by_num(const void *a, const void *b);
size_t atf_list_numbered(const char *dir, const char *prefix, struct dent **out);
void atf_free_dents(struct dent *d, size_t n);
bool atf_thread_dir_has_files(const char *dir);
/* A thread's file NAME in dir, or NAME.gz when only that is there (a session
 * compressed file by file): its path (the caller frees it); NULL when
 * neither is there. */
char *atf_thread_file(const char *dir, const char *name);
/* Is base NAME or NAME.gz? */
bool atf_same_name(const char *base, const char *name);
bool atf_is_pid_dir(const char *dir);
bool atf_is_session_dir(const char *dir);
void atf_find_pid_dirs(const char *dir, int depth, struct dent **out, size_t *n, size_t *cap);

/* names.c: names of architectures, kinds and functions; event types */
const char *atf_arch_name(uint8_t a);
const char *atf_os_name(uint8_t o);
const char *atf_clock_name(uint8_t c);
const char *atf_kind_name(uint32_t k);
uint32_t atf_intern(struct session *ss, const char *s, size_t n);
uint32_t atf_name_of(struct session *ss, uint64_t fid);
uint32_t atf_make_type(struct session *ss, const char *name, enum ev_role role, uint32_t pair);
uint32_t atf_kind_type(struct session *ss, uint32_t kind, bool create);

/* index.c: index.atf: records in time order, call/return pairing, the model sequence, feeding */
uint64_t atf_pos_of_rec(struct idx *x, uint64_t r);
extern const struct seq_ops atf_seq_ops;
size_t atf_idx_feed(struct idx *x, const uint8_t *p, size_t n, uint64_t off, bool final);

/* detail.c: detail.atf: records by position, link checks, feeding */
uint64_t atf_det_off(const struct det *d, uint64_t k);
bool atf_link_ok(const struct thread *th, uint64_t r, uint32_t k);
bool atf_unchecked(const struct thread *th);
size_t atf_det_feed(struct det *d, const uint8_t *p, size_t n, uint64_t off, bool final);

/* session.c: the decoder: a session and its threads, opening what users have, following, closing */
struct input *atf_add_input(struct session *ss, const char *path, void *dstate);
void atf_lane_name(struct thread *th, struct buf *b);

/* manifest.c: manifest.json: symbols, modules, the clock, threads listed */
char *atf_json_dup(const struct json *j, uint32_t id);
bool atf_load_json(struct session *ss, const char *path, struct json *j, struct input **inp);
void atf_pid_manifest(struct session *ss, struct pidinfo *pi, const char *path, struct input *in, struct json *j);
void atf_load_pid_manifest(struct session *ss, size_t pidx, const char *pdir);

/* settle.c: settling a thread: links checked both ways, orphan detail records */
void atf_ex_text(struct buf *b, const struct link_ex *ex, size_t n, uint64_t total, bool fwd);
void atf_check_back(struct thread *th, uint64_t upto);
void atf_settle(struct thread *th);

/* fields.c: lazy decoding of fields and summaries; links between index and detail records */
void atf_put_str_id(struct fsink *out, struct session *ss, const char *name, uint32_t sid);
void atf_fields(void *st, const struct event *e, struct fsink *out);
void atf_summary(void *st, const struct event *e, struct buf *b);
bool atf_linked(void *st, const struct event *e, uint32_t *input, uint64_t *off);
void atf_record_fields(void *st, uint64_t off, struct fsink *out);
bool atf_record_back(void *st, uint64_t off, uint64_t *pos);

/* info.c: --info: the recovery report of each thread */
void atf_info(struct source *src, struct fsink *out);

/* saved.c: the saved index: what feeding made, kept and read back */
void atf_save(void *st, struct buf *out);
bool atf_restore(void *st, struct blob *r);

static inline const uint8_t *drec(const struct det *d, uint64_t k) { return d->in->map + atf_det_off(d, k); }

static inline const uint8_t *irec(const struct idx *x, uint64_t r) { return x->in->map + x->E + REC * r; }

static inline uint64_t chunk_end(const struct idx *x, size_t c) { return c + 1 < x->nch ? x->ch[c + 1].start : x->n; }

#endif
