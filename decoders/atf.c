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
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "decoders/decoder.h"
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
	uint64_t rec, other;
	uint32_t gen;
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
	struct hmap far; /* record -> partner record, for pairs more than PAIR_NEAR apart */
	struct pcache *pc; /* recent answers of partner_rec() (a call's return is asked for soon after it) */
	uint32_t pc_gen;   /* bumped when records are added: older answers are void */
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

/* ---- small helpers -------------------------------------------------------- */

static const char *arch_name(uint8_t a) { return a == 1 ? "x86_64" : a == 2 ? "arm64" : NULL; }
static const char *os_name(uint8_t o)
{
	static const char *const n[] = {NULL, "iOS", "Android", "macOS", "Linux", "Windows"};
	return o < ARRAY_LEN(n) ? n[o] : NULL;
}
static const char *clock_name(uint8_t c)
{
	return c == 1 ? "mach_continuous (real writers: CLOCK_MONOTONIC ns)" : c == 2 ? "QPC" : c == 3 ? "BOOTTIME"
											     : NULL;
}
static const char *kind_name(uint32_t k)
{
	return k == K_CALL ? "CALL" : k == K_RETURN ? "RETURN" : k == K_EXCEPTION ? "EXCEPTION" : NULL;
}

static char *path_join(const char *a, const char *b)
{
	struct buf p = {0};
	buf_printf(&p, "%s/%s", a, b);
	return p.p;
}

static bool is_file(const char *p)
{
	enum path_kind k = path_kind(p);
	return k != PATH_NONE && k != PATH_DIR;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "thread_12" with prefix "thread_" -> 12.  Digits only, at most 32 bits. */
static bool numbered(const char *name, const char *prefix, uint32_t *num)
{
	size_t k = strlen(prefix);
	if (strncmp(name, prefix, k) || !name[k])
		return false;
	uint64_t v = 0;
	for (const char *s = name + k; *s; s++) {
		if (*s < '0' || *s > '9' || (v = v * 10 + (uint64_t)(*s - '0')) > UINT32_MAX)
			return false;
	}
	*num = (uint32_t)v;
	return true;
}

struct dent {
	uint32_t num;
	char *path;
};

static int by_num(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;
	return x->num < y->num ? -1 : x->num > y->num;
}

/* The subdirectories of dir named PREFIX<number>, in number order. */
static size_t list_numbered(const char *dir, const char *prefix, struct dent **out)
{
	*out = NULL;
	struct dir_entry *e;
	size_t ne = dir_list(dir, &e), n = 0, cap = 0;
	for (size_t i = 0; i < ne; i++) {
		uint32_t num;
		if (e[i].kind != PATH_DIR || !numbered(e[i].name, prefix, &num))
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct dent){num, path_join(dir, e[i].name)};
	}
	dir_free(e, ne);
	if (n)
		qsort(*out, n, sizeof **out, by_num);
	return n;
}

static void free_dents(struct dent *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].path);
	free(d);
}

/* A thread directory: thread_N holding index.atf or detail.atf. */
static bool thread_dir_has_files(const char *dir)
{
	char *a = path_join(dir, "index.atf"), *b = path_join(dir, "detail.atf");
	bool r = is_file(a) || is_file(b);
	free(a);
	free(b);
	return r;
}

static bool is_pid_dir(const char *dir)
{
	struct dent *d;
	size_t n = list_numbered(dir, "thread_", &d);
	bool r = false;
	for (size_t i = 0; i < n && !r; i++)
		r = thread_dir_has_files(d[i].path);
	free_dents(d, n);
	return r;
}

static bool is_session_dir(const char *dir)
{
	struct dent *d;
	size_t n = list_numbered(dir, "pid_", &d);
	bool r = false;
	for (size_t i = 0; i < n && !r; i++)
		r = is_pid_dir(d[i].path);
	free_dents(d, n);
	return r;
}

/* pid directories at most `depth` levels below dir (a bundle's trace tree). */
static void find_pid_dirs(const char *dir, int depth, struct dent **out, size_t *n, size_t *cap)
{
	if (depth < 0 || *n >= 256)
		return;
	struct dir_entry *e;
	size_t ne = dir_list(dir, &e);
	char **subs = NULL;
	size_t nsub = 0, capsub = 0;
	for (size_t i = 0; i < ne; i++) {
		if (e[i].name[0] == '.' || e[i].kind != PATH_DIR)
			continue;
		xgrow(&subs, &capsub, nsub + 1, sizeof *subs);
		subs[nsub++] = path_join(dir, e[i].name);
	}
	dir_free(e, ne);
	for (size_t i = 0; i < nsub; i++) {
		uint32_t pid;
		if (numbered(base_name(subs[i]), "pid_", &pid) && is_pid_dir(subs[i])) {
			xgrow(out, cap, *n + 1, sizeof **out);
			(*out)[(*n)++] = (struct dent){pid, xstrdup(subs[i])};
		} else {
			find_pid_dirs(subs[i], depth - 1, out, n, cap);
		}
		free(subs[i]);
	}
	free(subs);
}

/* ---- names and types ------------------------------------------------------ */

static uint32_t intern(struct session *ss, const char *s, size_t n) { return model_str(ss->m, s, n); }

/* The display name of a function: its symbol from the manifest, else the
 * module (basename when known, hash otherwise) and symbol index. */
static uint32_t name_of(struct session *ss, uint64_t fid)
{
	size_t slot = (size_t)((fid * 0x9e3779b97f4a7c15ull) >> 56);
	if (ss->nc_used[slot] && ss->nc_key[slot] == fid)
		return ss->nc_val[slot];
	uint64_t v;
	if (!hmap_get(&ss->names, fid, &v)) {
		if (!hmap_get(&ss->sym, fid, &v)) {
			struct buf *b = &ss->tmp;
			buf_reset(b);
			uint64_t mod;
			if (hmap_get(&ss->mod, fid >> 32, &mod)) {
				size_t n;
				const char *s = model_strget(ss->m, (uint32_t)mod, &n);
				buf_add(b, s, n);
				buf_printf(b, " #%u", (unsigned)(fid & 0xffffffffu));
			} else {
				buf_printf(b, "module 0x%08x #%u", (unsigned)(fid >> 32), (unsigned)(fid & 0xffffffffu));
			}
			v = intern(ss, b->p, b->len);
		}
		hmap_put(&ss->names, fid, v);
	}
	ss->nc_used[slot] = true;
	ss->nc_key[slot] = fid;
	ss->nc_val[slot] = (uint32_t)v;
	return (uint32_t)v;
}

static uint32_t make_type(struct session *ss, const char *name, enum ev_role role, uint32_t pair)
{
	struct model *m = ss->m;
	return model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
					    .name_field = model_str(m, "function", 8),
					    .role = (uint8_t)role,
					    .pair = pair,
					    .owner = &atf_decoder});
}

/* The type of an unknown event_kind: made while feeding (never while a
 * writer walks the events: --stats sizes its tables by the type count). */
static uint32_t kind_type(struct session *ss, uint32_t kind, bool create)
{
	if (kind == K_CALL)
		return ss->t_call;
	if (kind == K_RETURN)
		return ss->t_ret;
	if (kind == K_EXCEPTION)
		return ss->t_exc;
	uint64_t v;
	if (hmap_get(&ss->kinds, kind, &v))
		return (uint32_t)v;
	if (!create || ss->kinds.n >= MAX_KIND_TYPES)
		return ss->t_kind_other;
	char name[32];
	snprintf(name, sizeof name, "KIND(%u)", kind);
	uint32_t t = make_type(ss, name, ROLE_INSTANT, 0);
	hmap_put(&ss->kinds, kind, t);
	return t;
}

/* ---- index records: access and time order --------------------------------- */

static inline const uint8_t *irec(const struct idx *x, uint64_t r) { return x->in->map + x->E + REC * r; }
static inline int64_t irec_ts(const struct idx *x, uint64_t r) { return (int64_t)ld64le(irec(x, r)); }

static inline uint64_t chunk_end(const struct idx *x, size_t c) { return c + 1 < x->nch ? x->ch[c + 1].start : x->n; }

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
static uint64_t pos_of_rec(struct idx *x, uint64_t r)
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
		if (kind == K_RETURN && f.depth == depth && ts >= f.ts && r - f.rec > PAIR_NEAR) {
			hmap_put(&x->far, f.rec, r);
			hmap_put(&x->far, r, f.rec);
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
	x->pc_gen++;
	if (!x->linked)
		return; /* no linked record yet: the pairs stay the same */
	hmap_clear(&x->far);
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
	/* nothing decided within PAIR_NEAR records: a far pair, if any */
	uint64_t v;
	if (!x->far.n || !hmap_get(&x->far, r, &v))
		return false;
	*out = v;
	return true;
}

static bool partner_rec(struct idx *x, uint64_t r, uint64_t *out)
{
	if (!x->pc)
		x->pc = xcalloc(PCACHE, sizeof *x->pc);
	struct pcache *c = &x->pc[r % PCACHE];
	if (c->gen == x->pc_gen + 1 && c->rec == r) {
		*out = c->other;
		return c->paired;
	}
	bool paired = partner_scan(x, r, out);
	*c = (struct pcache){r, paired ? *out : 0, x->pc_gen + 1, paired};
	if (paired) /* the other end will be asked for too */
		x->pc[*out % PCACHE] = (struct pcache){*out, r, x->pc_gen + 1, true};
	return paired;
}

/* ---- detail records ------------------------------------------------------- */

static uint64_t det_off(const struct det *d, uint64_t k)
{
	return k < d->nuni ? d->S + k * d->len0 : d->offs[k - d->nuni];
}

static inline const uint8_t *drec(const struct det *d, uint64_t k) { return d->in->map + det_off(d, k); }

/* Does index record r link to detail k, and k back to r? */
static bool link_ok(const struct thread *th, uint64_t r, uint32_t k)
{
	const struct det *d = &th->dt;
	return d->in && k < d->n && ld32le(drec(d, k) + 8) == r;
}

/* A file opened by itself, without the other: its links are not checked. */
static bool unchecked(const struct thread *th) { return th->alone && (!th->ix.in || !th->dt.in); }

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
	e->type = kind_type(ss, kind, false);
	e->name = name_of(ss, fid);
	e->input = x->in->id;
	e->off = x->E + REC * r;
	uint32_t flags = 0;
	if (link != NO_LINK) {
		flags |= link_ok(th, r, link) ? EVF_LINK : unchecked(th) ? 0 : EVF_DAMAGED;
		if (x->drain)
			flags |= EVF_COPY;
	}
	if (!kind_name(kind))
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
	*j = pos_of_rec(x, p);
	return true;
}

static const struct seq_ops seq_ops = {sq_count, sq_ts, sq_lower, sq_upper, sq_get, sq_partner};

/* ---- session setup -------------------------------------------------------- */

static struct session *session_new(struct source *src)
{
	struct session *ss = xcalloc(1, sizeof *ss);
	ss->tag = T_SESSION;
	ss->meta_tag = T_META;
	ss->src = src;
	ss->m = dec_source_model(src);
	ss->t_ret = make_type(ss, "RETURN", ROLE_END, 0);
	ss->t_call = make_type(ss, "CALL", ROLE_BEGIN, ss->t_ret);
	ss->t_exc = make_type(ss, "EXCEPTION", ROLE_INSTANT, 0);
	ss->t_detail = make_type(ss, "DETAIL", ROLE_INSTANT, 0);
	ss->t_kind_other = make_type(ss, "KIND(other)", ROLE_INSTANT, 0);
	dec_set_source_state(src, ss);
	return ss;
}

static size_t pid_add(struct session *ss, uint32_t pid, bool known, const char *dir)
{
	xgrow(&ss->pids, &ss->cappids, ss->npids + 1, sizeof *ss->pids);
	ss->pids[ss->npids] = (struct pidinfo){.pid = pid, .known = known, .dir = dir ? xstrdup(dir) : NULL};
	return ss->npids++;
}

static struct input *add_input(struct session *ss, const char *path, void *dstate)
{
	struct input *in = dec_add_input(ss->src, path);
	if (in) {
		in->dec = &atf_decoder;
		in->dstate = dstate;
	}
	return in;
}

static void lane_name(struct thread *th, struct buf *b)
{
	struct session *ss = th->ss;
	const struct pidinfo *pi = &ss->pids[th->pidx];
	buf_reset(b);
	if (MAX(ss->npids, ss->pids_expected) > 1 && pi->known)
		buf_printf(b, "pid %u ", pi->pid);
	buf_printf(b, "thread %u", th->slot);
	if (th->name_tid)
		buf_printf(b, " (tid %u)", th->name_tid);
}

static struct thread *thread_new(struct session *ss, size_t pidx, uint32_t slot)
{
	struct thread *th = xcalloc(1, sizeof *th);
	th->ss = ss;
	th->pidx = pidx;
	th->slot = slot;
	th->ix = (struct idx){.tag = T_INDEX, .th = th, .crc = 0};
	th->dt = (struct det){.tag = T_DETAIL, .th = th};
	lane_name(th, &ss->tmp);
	const struct pidinfo *pi = &ss->pids[pidx];
	th->lane = dec_lane_sid(ss->src, (uint64_t)(pi->known ? pi->pid : 0) << 32 | slot,
				intern(ss, ss->tmp.p, ss->tmp.len));
	xgrow(&ss->th, &ss->capth, ss->nth + 1, sizeof *ss->th);
	ss->th[ss->nth++] = th;
	return th;
}

/* Once its inputs are known: the index becomes a sequence of the model. */
static void thread_ready(struct thread *th)
{
	if (th->ix.in)
		th->seq = dec_add_seq(th->ix.in, &seq_ops, th);
}

/* ---- manifests (JSON) ----------------------------------------------------- */

static char *json_dup(const struct json *j, uint32_t id)
{
	struct buf b = {0};
	if (!json_str(j, id, &b))
		return NULL;
	buf_addc(&b, 0); /* NUL-terminated even when empty */
	return b.p;
}

static bool parse_hex_id(const struct json *j, uint32_t id, uint64_t *v)
{
	if (json_u64(j, id, v))
		return true;
	struct buf b = {0};
	bool ok = false;
	if (json_str(j, id, &b) && b.len > 2 && b.len <= 18 && b.p[0] == '0' && (b.p[1] | 32) == 'x') {
		char *end;
		*v = strtoull(b.p + 2, &end, 16);
		ok = *end == 0 && b.p[2] != '-' && b.p[2] != '+' && b.p[2] != ' ';
	}
	buf_free(&b);
	return ok;
}

static void read_session_manifest(struct session *ss, struct pidinfo *pi, const struct json *j, uint32_t root)
{
	struct buf b = {0};
	pi->format_version = json_dup(j, json_get(j, root, "format_version"));
	pi->have_clock = json_u64(j, json_get(j, root, "clock_type"), &pi->clock_type);
	for (uint32_t t = json_child(j, json_get(j, root, "threads")); t; t = json_next(j, t)) {
		uint64_t id;
		if (json_u64(j, json_get(j, t, "id"), &id) && id <= UINT32_MAX) {
			xgrow(&pi->listed, &pi->caplisted, pi->nlisted + 1, sizeof *pi->listed);
			pi->listed[pi->nlisted++] = (uint32_t)id;
		}
	}
	for (uint32_t mo = json_child(j, json_get(j, root, "modules")); mo; mo = json_next(j, mo)) {
		uint64_t id;
		buf_reset(&b);
		if (!json_u64(j, json_get(j, mo, "module_id"), &id) || id > UINT32_MAX ||
		    !json_str(j, json_get(j, mo, "path"), &b))
			continue;
		pi->nmodules++;
		const char *s = b.p ? b.p : "";
		size_t k = b.len;
		const char *slash = NULL;
		for (size_t i = 0; i < k; i++)
			if (s[i] == '/')
				slash = s + i;
		const char *base = slash && slash + 1 < s + k ? slash + 1 : s;
		hmap_put(&ss->mod, id, intern(ss, base, k - (size_t)(base - s)));
	}
	for (uint32_t sy = json_child(j, json_get(j, root, "symbols")); sy; sy = json_next(j, sy)) {
		uint64_t fid;
		buf_reset(&b);
		if (!parse_hex_id(j, json_get(j, sy, "function_id"), &fid) || !json_str(j, json_get(j, sy, "name"), &b))
			continue;
		pi->nsymbols++;
		hmap_put(&ss->sym, fid, intern(ss, b.p ? b.p : "", b.len));
	}
	buf_free(&b);
}

/* Add a JSON file as an input and parse it now (it is small and must be
 * known before records are named).  Returns false when absent. */
static bool load_json(struct session *ss, const char *path, struct json *j, struct input **inp)
{
	*inp = NULL;
	if (!is_file(path))
		return false;
	struct input *in = add_input(ss, path, &ss->meta_tag);
	*inp = in;
	if (!in)
		return false;
	if (!in->eof || in->size > JSON_MAX_BYTES || !json_parse(j, in->map ? (const char *)in->map : "", in->size)) {
		if (!j->err[0])
			snprintf(j->err, sizeof j->err, "not a readable JSON file");
		dec_damage(in, j->err_off, "%s", j->err);
		json_free(j);
		return false;
	}
	if (json_type(j, json_root(j)) != JSON_OBJ) {
		dec_damage(in, 0, "not a JSON object");
		json_free(j);
		return false;
	}
	return true;
}

/* A session manifest that parsed as JSON. */
static void pid_manifest(struct session *ss, struct pidinfo *pi, const char *path, struct input *in, struct json *j)
{
	uint32_t root = json_root(j);
	if (json_get(j, root, "threads")) {
		pi->manifest = M_OK;
		pi->manifest_path = xstrdup(path);
		read_session_manifest(ss, pi, j, root);
	} else {
		pi->manifest = M_BAD;
		pi->manifest_path = xstrdup(path);
		pi->manifest_err = xstrdup("has no \"threads\" key: not a session manifest");
		dec_damage(in, 0, "no \"threads\" key: not an ATF session manifest");
	}
}

static void load_pid_manifest(struct session *ss, size_t pidx, const char *pdir)
{
	char *path = path_join(pdir, "manifest.json");
	struct json j;
	struct input *in;
	struct pidinfo *pi = &ss->pids[pidx];
	if (load_json(ss, path, &j, &in)) {
		pid_manifest(ss, pi, path, in, &j);
		json_free(&j);
	} else if (in) {
		pi->manifest = M_BAD;
		pi->manifest_path = xstrdup(path);
		pi->manifest_err = xstrdup("not readable JSON");
	}
	free(path);
}

/* ---- opening what users have ---------------------------------------------- */

/* Add the thread's files that exist and are not read yet.  Following a
 * live session, the writer makes detail.atf at the first detail record. */
static void thread_files(struct thread *th)
{
	struct session *ss = th->ss;
	char *ip = path_join(th->dir, "index.atf"), *dp = path_join(th->dir, "detail.atf");
	if (!th->ix.in && !th->settled && is_file(ip) && (th->ix.in = add_input(ss, ip, &th->ix))) {
		th->ix.final = false;
		thread_ready(th);
	}
	if (!th->dt.in && !th->settled && is_file(dp) && (th->dt.in = add_input(ss, dp, &th->dt)))
		th->dt.final = false;
	free(ip);
	free(dp);
}

static void open_thread(struct session *ss, size_t pidx, uint32_t slot, const char *tdir)
{
	struct thread *th = thread_new(ss, pidx, slot);
	th->dir = xstrdup(tdir);
	th->ix.final = th->dt.final = true; /* until a file is there */
	thread_files(th);
}

static void open_pid(struct session *ss, const char *pdir)
{
	uint32_t pid = 0;
	bool known = numbered(base_name(pdir), "pid_", &pid);
	size_t pidx = pid_add(ss, pid, known, pdir);
	load_pid_manifest(ss, pidx, pdir);
	struct dent *d;
	size_t n = list_numbered(pdir, "thread_", &d);
	for (size_t i = 0; i < n; i++)
		if (thread_dir_has_files(d[i].path))
			open_thread(ss, pidx, d[i].num, d[i].path);
	free_dents(d, n);
}

static void open_pids(struct session *ss, struct dent *d, size_t n)
{
	ss->pids_expected = n;
	for (size_t i = 0; i < n; i++)
		open_pid(ss, d[i].path);
}

static void open_session_dir(struct session *ss, const char *dir)
{
	struct dent *d, *keep = NULL;
	size_t n = list_numbered(dir, "pid_", &d), nk = 0, cap = 0;
	for (size_t i = 0; i < n; i++)
		if (is_pid_dir(d[i].path)) {
			xgrow(&keep, &cap, nk + 1, sizeof *keep);
			keep[nk++] = (struct dent){d[i].num, xstrdup(d[i].path)};
		}
	open_pids(ss, keep, nk);
	free_dents(keep, nk);
	free_dents(d, n);
}

/* Every pid directory a few levels below dir. */
static void open_found(struct session *ss, const char *dir)
{
	struct dent *d = NULL;
	size_t n = 0, cap = 0;
	find_pid_dirs(dir, SEARCH_DEPTH, &d, &n, &cap);
	if (n)
		qsort(d, n, sizeof *d, by_num);
	open_pids(ss, d, n);
	free_dents(d, n);
}

/* A relative path that stays below its directory. */
static bool safe_relative(const char *p)
{
	if (!*p || *p == '/')
		return false;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		if (k == 2 && s[0] == '.' && s[1] == '.')
			return false;
		s += k + (e != NULL);
	}
	return true;
}

static void open_bundle(struct session *ss, const char *dir)
{
	ss->bundle = true;
	ss->layout = "bundle";
	char *mpath = path_join(dir, "manifest.json");
	struct json j;
	struct input *min;
	char *target = NULL;
	if (load_json(ss, mpath, &j, &min)) {
		uint32_t root = json_root(&j);
		ss->bundle_manifest = xstrdup(mpath);
		ss->trace_session = json_dup(&j, json_get(&j, root, "trace_session"));
		if (!ss->trace_session)
			dec_damage(min, 0, "bundle manifest has no \"trace_session\" string: looking for pid_N directories");
		else if (!safe_relative(ss->trace_session) || memchr(ss->trace_session, 0, strlen(ss->trace_session)))
			dec_damage(min, 0, "\"trace_session\" is not a relative path inside the bundle: ignored");
		else
			target = path_join(dir, ss->trace_session);
		json_free(&j);
	}
	free(mpath);
	char *spath = path_join(dir, "session.json");
	struct input *sin;
	if (load_json(ss, spath, &j, &sin)) {
		ss->bundle_status = json_dup(&j, json_get(&j, json_root(&j), "status"));
		json_free(&j);
	}
	free(spath);
	if (target && is_pid_dir(target)) {
		open_pid(ss, target);
	} else if (target && is_session_dir(target)) {
		open_session_dir(ss, target);
	} else {
		if (target && min)
			dec_damage(min, 0, "\"trace_session\" names no ATF session directory: looking for pid_N directories");
		open_found(ss, dir);
	}
	free(target);
}

enum shape { S_NONE, S_PID, S_SESSION, S_THREAD, S_BUNDLE, S_TREE };

static enum shape classify(const char *dir)
{
	if (is_pid_dir(dir))
		return S_PID;
	if (is_session_dir(dir))
		return S_SESSION;
	uint32_t n;
	if (numbered(base_name(dir), "thread_", &n) && thread_dir_has_files(dir))
		return S_THREAD;
	struct dent *d = NULL;
	size_t k = 0, cap = 0;
	find_pid_dirs(dir, SEARCH_DEPTH, &d, &k, &cap);
	free_dents(d, k);
	if (!k)
		return S_NONE;
	char *m = path_join(dir, "manifest.json");
	bool has = is_file(m);
	free(m);
	return has ? S_BUNDLE : S_TREE;
	return S_NONE;
}

static int atf_probe_dir(const char *dir)
{
	switch (classify(dir)) {
	case S_PID:
	case S_SESSION: return PROBE_MAGIC;
	case S_THREAD:
	case S_BUNDLE: return PROBE_GOOD;
	case S_TREE: return PROBE_WEAK;
	default: return PROBE_NO;
	}
}

static char *dir_name(const char *p)
{
	const char *s = strrchr(p, '/');
	if (!s)
		return xstrdup(".");
	return s == p ? xstrdup("/") : xstrndup(p, (size_t)(s - p));
}

static bool atf_open_dir(struct source *src, const char *dir)
{
	struct session *ss = session_new(src);
	switch (classify(dir)) {
	case S_PID:
		ss->layout = "pid directory";
		open_pid(ss, dir);
		break;
	case S_SESSION:
		ss->layout = "session directory";
		open_session_dir(ss, dir);
		break;
	case S_THREAD: {
		ss->layout = "thread directory";
		char *pdir = dir_name(dir);
		uint32_t slot = 0;
		numbered(base_name(dir), "thread_", &slot);
		uint32_t pid = 0;
		bool known = numbered(base_name(pdir), "pid_", &pid);
		size_t pidx = pid_add(ss, pid, known, pdir);
		load_pid_manifest(ss, pidx, pdir);
		open_thread(ss, pidx, slot, dir);
		free(pdir);
		break;
	}
	case S_BUNDLE: open_bundle(ss, dir); break;
	case S_TREE:
		ss->layout = "directory of sessions";
		open_found(ss, dir);
		break;
	default: break;
	}
	return ss->nth > 0;
}

/* ---- following a session being written ------------------------------------ */

static struct thread *thread_find(struct session *ss, size_t pidx, uint32_t slot)
{
	for (size_t i = 0; i < ss->nth; i++)
		if (ss->th[i]->pidx == pidx && ss->th[i]->slot == slot)
			return ss->th[i];
	return NULL;
}

/* The manifest is written at stop (never after a crash).  Once it parses,
 * its symbols name the calls: names are looked up lazily, so forgetting
 * the ones made so far renames every event of the index sequences. */
static void manifest_late(struct session *ss, size_t pidx)
{
	struct pidinfo *pi = &ss->pids[pidx];
	if (pi->manifest != M_MISSING || !pi->dir)
		return;
	char *path = path_join(pi->dir, "manifest.json");
	if (!pi->late && is_file(path))
		pi->late = add_input(ss, path, &ss->meta_tag);
	struct input *in = pi->late;
	if (!in || !in->size || in->size > JSON_MAX_BYTES || in->size == pi->late_size) {
		free(path);
		return;
	}
	struct json j;
	/* the loader keeps its bytes current; a half-written one waits */
	if (json_parse(&j, in->map, in->size) && json_type(&j, json_root(&j)) == JSON_OBJ) {
		pid_manifest(ss, pi, path, in, &j);
		hmap_clear(&ss->names);
		memset(ss->nc_used, 0, sizeof ss->nc_used);
		model_seq_changed(ss->m);
		dec_notice(ss->src, "%s: the manifest was written: %llu symbols name the calls", pi->dir,
			   (unsigned long long)pi->nsymbols);
	} else {
		pi->late_size = in->size; /* half written: parse again when it has grown */
	}
	json_free(&j);
	free(path);
}

static bool pid_known(const struct session *ss, const char *dir)
{
	for (size_t p = 0; p < ss->npids; p++)
		if (ss->pids[p].dir && !strcmp(ss->pids[p].dir, dir))
			return true;
	return false;
}

/* A session directory: a process started after it was opened (a forked
 * child) has a pid_N directory of its own once its first thread writes. */
static void new_pids(struct session *ss, const char *dir)
{
	struct dent *d;
	size_t n = list_numbered(dir, "pid_", &d), before = ss->npids;
	for (size_t i = 0; i < n; i++)
		if (!pid_known(ss, d[i].path) && is_pid_dir(d[i].path)) {
			open_pid(ss, d[i].path);
			ss->pids_expected++;
			dec_notice(ss->src, "%s: a new process: %s", dir, base_name(d[i].path));
		}
	free_dents(d, n);
	if (before == 1 && ss->npids > 1) /* lanes now say which process */
		for (size_t i = 0; i < ss->nth; i++) {
			struct thread *th = ss->th[i];
			lane_name(th, &ss->tmp);
			model_lane_rename(ss->m, th->lane, intern(ss, ss->tmp.p, ss->tmp.len));
		}
}

/* New pid_N and thread_N directories, files made late, the manifest. */
static void atf_rescan(struct source *src)
{
	struct session *ss = dec_source_state(src);
	if (!ss || ss->tag != T_SESSION)
		return;
	if (ss->layout && !strcmp(ss->layout, "session directory"))
		new_pids(ss, dec_source_path(src));
	/* a thread directory or a file opened by itself: no other threads */
	bool whole = ss->layout && strcmp(ss->layout, "thread directory") && strcmp(ss->layout, "single file");
	for (size_t p = 0; p < ss->npids; p++) {
		manifest_late(ss, p);
		if (!whole || !ss->pids[p].dir)
			continue;
		struct dent *d;
		size_t n = list_numbered(ss->pids[p].dir, "thread_", &d);
		for (size_t i = 0; i < n; i++)
			if (!thread_find(ss, p, d[i].num) && thread_dir_has_files(d[i].path))
				open_thread(ss, p, d[i].num, d[i].path);
		free_dents(d, n);
	}
	for (size_t i = 0; i < ss->nth; i++)
		if (ss->th[i]->dir)
			thread_files(ss->th[i]);
}

static int atf_probe(const uint8_t *p, size_t n, bool final)
{
	if (n < 4)
		return final ? PROBE_NO : PROBE_MORE;
	return !memcmp(p, "ATI2", 4) || !memcmp(p, "ATD2", 4) ? PROBE_MAGIC : PROBE_NO;
}

/* A single file: index.atf (its detail.atf beside it is picked up, and the
 * session manifest two levels up), or a detail.atf (with its index.atf). */
static void *atf_open(struct input *in)
{
	struct source *src = dec_source(in);
	struct session *ss = dec_source_state(src);
	if (!ss || ss->tag != T_SESSION)
		ss = session_new(src);
	if (!ss->layout)
		ss->layout = "single file";
	bool detail = in->size >= 4 && !memcmp(in->map, "ATD2", 4);
	const char *base = base_name(in->path);
	char *dir = in->is_stdin ? NULL : dir_name(in->path);
	uint32_t slot = 0;
	bool named = dir && numbered(base_name(dir), "thread_", &slot);
	if (!named && in->size >= 16)
		slot = ld32le(in->map + 12);
	char *pdir = named ? dir_name(dir) : NULL;
	uint32_t pid = 0;
	bool known = pdir && numbered(base_name(pdir), "pid_", &pid);
	size_t pidx = pid_add(ss, pid, known, pdir);
	if (named)
		load_pid_manifest(ss, pidx, pdir);
	struct thread *th = thread_new(ss, pidx, slot);
	th->alone = !dir || strcmp(base, detail ? "detail.atf" : "index.atf");
	if (!th->alone)
		th->dir = xstrdup(dir); /* following: its sibling may come later */
	void *st;
	if (detail) {
		th->dt.in = in;
		st = &th->dt;
		char *ip = dir && !strcmp(base, "detail.atf") ? path_join(dir, "index.atf") : NULL;
		if (ip && is_file(ip))
			th->ix.in = add_input(ss, ip, &th->ix);
		free(ip);
	} else {
		th->ix.in = in;
		st = &th->ix;
		char *dp = dir && !strcmp(base, "index.atf") ? path_join(dir, "detail.atf") : NULL;
		if (dp && is_file(dp))
			th->dt.in = add_input(ss, dp, &th->dt);
		free(dp);
	}
	if (!th->ix.in)
		th->ix.final = true;
	if (!th->dt.in)
		th->dt.final = true;
	thread_ready(th);
	free(dir);
	free(pdir);
	return st;
}

/* ---- settling a thread: links both ways, orphan detail records ------------ */

static void add_ex(struct link_ex *ex, size_t *n, uint32_t from, uint32_t to)
{
	if (*n < EXAMPLES)
		ex[(*n)++] = (struct link_ex){from, to};
}

static void ex_text(struct buf *b, const struct link_ex *ex, size_t n, uint64_t total, bool fwd)
{
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s %u -> %s %u", i ? ", " : "", fwd ? "index" : "detail", ex[i].from,
			   fwd ? "detail" : "index", ex[i].to);
	if (total > n)
		buf_adds(b, ", ...");
}

static uint32_t det_name(struct thread *th, const uint8_t *q, uint32_t len)
{
	if (len == DREC_REAL)
		return name_of(th->ss, ld64le(q + 32));
	if (len >= DREC_HDR + 8)
		return name_of(th->ss, ld64le(q + DREC_HDR)); /* spec layout: function_id first */
	return 0;
}

/* Check the back links of detail records [d->checked, upto) against the
 * finished index; a record that no index record reaches becomes an event
 * of its own.  Done while the detail file is fed (its pages are at hand),
 * or when the thread settles if the index was not finished then. */
static void check_back(struct thread *th, uint64_t upto)
{
	struct idx *x = &th->ix;
	struct det *d = &th->dt;
	bool have_ix = x->in != NULL;
	for (uint64_t k = d->checked; k < upto; k++) {
		uint64_t off = det_off(d, k);
		if ((k & 0x3fff) == 0x3fff) { /* a long pass: let the pages go behind it */
			input_release(d->in, d->S, off - d->S);
			if (have_ix)
				input_release(x->in, 0, x->in->size);
		}
		const uint8_t *q = d->in->map + off;
		uint32_t i = ld32le(q + 8);
		if (have_ix && i < x->n && ld32le(irec(x, i) + 28) == k) {
			th->fwd_ok++;
			continue;
		}
		bool check = !unchecked(th);
		if (check && (!have_ix || i >= x->n))
			th->back_past++;
		else if (check)
			th->back_mismatch++;
		if (check)
			add_ex(th->ex_back, &th->nex_back, (uint32_t)k, i);
		struct event e = {.ts = (int64_t)ld64le(q + 16), .dur = TTV_NODUR, .lane = th->lane,
				  .type = th->ss->t_detail, .name = det_name(th, q, ld32le(q)),
				  .flags = ROLE_INSTANT | (check ? EVF_DAMAGED : 0), .off = off};
		if (!dec_emit(d->in, &e))
			break;
	}
	d->checked = upto;
}

/* When both files of a thread are read: check every link, report what
 * dangles, and let the pages go. */
static void settle(struct thread *th)
{
	struct idx *x = &th->ix;
	struct det *d = &th->dt;
	if (th->settled || !x->final || !d->final)
		return;
	th->settled = true;
	bool have_ix = x->in != NULL;
	if (d->in)
		check_back(th, d->n);
	uint64_t bad = x->linked - MIN(x->linked, th->fwd_ok);
	if (bad && have_ix && !unchecked(th)) {
		for (uint64_t r = 0; r < x->n; r++) {
			uint32_t link = ld32le(irec(x, r) + 28);
			if (link == NO_LINK || link_ok(th, r, link))
				continue;
			if (link >= d->n)
				th->fwd_dangling++;
			else
				th->fwd_mismatch++;
			add_ex(th->ex_fwd, &th->nex_fwd, (uint32_t)r, link);
		}
	}
	struct buf b = {0};
	if (th->fwd_dangling || th->fwd_mismatch) {
		buf_printf(&b, "%llu forward links dangle", (unsigned long long)(th->fwd_dangling + th->fwd_mismatch));
		if (th->fwd_dangling)
			buf_printf(&b, ", %llu past the end of %s (%llu records)", (unsigned long long)th->fwd_dangling,
				   d->in ? "detail.atf" : "a missing detail.atf", (unsigned long long)d->n);
		if (th->fwd_mismatch)
			buf_printf(&b, ", %llu to detail records that link elsewhere",
				   (unsigned long long)th->fwd_mismatch);
		buf_adds(&b, ": ");
		ex_text(&b, th->ex_fwd, th->nex_fwd, th->fwd_dangling + th->fwd_mismatch, true);
		dec_damage(x->in, x->E + REC * (uint64_t)th->ex_fwd[0].from, "%s", b.p);
	}
	if (th->back_past || th->back_mismatch) {
		buf_reset(&b);
		buf_printf(&b, "%llu detail records are not reached from the index",
			   (unsigned long long)(th->back_past + th->back_mismatch));
		if (th->back_past)
			buf_printf(&b, ", %llu point past the end of %s (%llu records)", (unsigned long long)th->back_past,
				   have_ix ? "index.atf" : "a missing index.atf", (unsigned long long)x->n);
		if (th->back_mismatch)
			buf_printf(&b, ", %llu to index records that link elsewhere",
				   (unsigned long long)th->back_mismatch);
		buf_adds(&b, " (listed as DETAIL events): ");
		ex_text(&b, th->ex_back, th->nex_back, th->back_past + th->back_mismatch, false);
		dec_damage(d->in, det_off(d, th->ex_back[0].from), "%s", b.p);
	}
	buf_free(&b);
	if (x->in)
		input_release(x->in, 0, x->in->size);
	if (d->in)
		input_release(d->in, 0, d->in->size);
}

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
			kind_type(ss, kind, true);
		}
		if (in_stream(x, kind, link))
			pair_step(x, r, kind, depth, ts);
		x->n = r + 1;
	}
	if (upto > from) {
		dec_lane_count(x->in, x->th->lane, upto - from, bmin, bmax);
		x->cur_start = x->cur_end = 0; /* chunks changed */
		x->pc_gen++;                    /* calls may have found their returns */
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
	settle(x->th);
}

static size_t idx_feed(struct idx *x, const uint8_t *p, size_t n, uint64_t off, bool final)
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

/* ---- feeding detail.atf --------------------------------------------------- */

static bool det_header(struct det *d, const uint8_t *h)
{
	struct input *in = d->in;
	if (memcmp(h, "ATD2", 4)) {
		dec_fatal(in, 0, "not an ATF v2 detail file (magic is not \"ATD2\"): file skipped");
		return false;
	}
	d->endian = h[4];
	d->version = h[5];
	d->arch = h[6];
	d->os = h[7];
	d->flags = ld32le(h + 8);
	d->hdr_tid = ld32le(h + 12);
	d->raw_S = ld64le(h + 20);
	d->hdr_count = ld64le(h + 28);
	d->hdr_bytes = ld64le(h + 36);
	d->seq_start = ld64le(h + 44);
	d->seq_end = ld64le(h + 52);
	if (d->endian != 1) {
		dec_fatal(in, 4, "endian byte is %u (only 1, little-endian, is defined): file skipped", d->endian);
		return false;
	}
	if (d->version != 1) {
		dec_fatal(in, 5, "version %u (only 1 is defined): file skipped", d->version);
		return false;
	}
	d->S = d->raw_S;
	if (d->S < 60 || d->S > in->size) {
		dec_damage(in, 20, "events_offset %llu is outside the file: using 64", (unsigned long long)d->raw_S);
		d->S = HDR;
	}
	d->have_hdr = true;
	return true;
}

static void det_record(struct det *d, uint64_t off, const uint8_t *q, uint32_t len)
{
	struct thread *th = d->th;
	uint64_t k = d->n;
	if (k == 0) {
		d->len0 = len;
		d->seq_min = d->seq_max = ld32le(q + 8);
		d->tmin = d->tmax = (int64_t)ld64le(q + 16);
	}
	if (d->offs || len != d->len0) {
		xgrow(&d->offs, &d->capoffs, d->noffs + 1, sizeof *d->offs);
		d->offs[d->noffs++] = off;
	} else {
		d->nuni = k + 1;
	}
	uint16_t type = ld16le(q + 4);
	if (type == 3)
		d->calls++;
	else if (type == 4)
		d->returns++;
	else
		d->other_types++;
	uint32_t seq = ld32le(q + 8);
	d->seq_min = MIN(d->seq_min, seq);
	d->seq_max = MAX(d->seq_max, seq);
	int64_t ts = (int64_t)ld64le(q + 16);
	d->tmin = MIN(d->tmin, ts);
	d->tmax = MAX(d->tmax, ts);
	if (len == DREC_REAL) {
		uint32_t tid = ld32le(q + 40);
		if (!d->tid_known) {
			d->tid = tid;
			d->tid_known = true;
			th->name_tid = tid;
			struct session *ss = th->ss;
			lane_name(th, &ss->tmp);
			model_lane_rename(ss->m, th->lane, intern(ss, ss->tmp.p, ss->tmp.len));
		} else if (tid != d->tid) {
			d->tid_other++;
		}
	} else if (len >= DREC_HDR + SPEC_PAYLOAD && ld16le(q + DREC_HDR + 96) == len - DREC_HDR - SPEC_PAYLOAD) {
		d->spec_layout++;
	} else {
		d->odd_layout++;
	}
	d->n = k + 1;
}

static size_t det_feed(struct det *d, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct input *in = d->in;
	size_t used = 0;
	if (d->final)
		return n;
	if (!d->have_hdr) {
		if (off + n < HDR) {
			if (!final)
				return 0;
			d->state = n ? "shorter than the header" : "empty / no header";
			dec_damage(in, 0, n ? "%zu bytes: shorter than the 64-byte header, no records"
					    : "%zu bytes: no header, no records (normal after a crash)",
				   n);
			d->final = true;
			settle(d->th);
			return n;
		}
		if (!det_header(d, p)) {
			d->rejected = true;
			d->state = "not an ATF v2 detail file";
			d->final = true;
			settle(d->th);
			return 0;
		}
	}
	uint64_t pos = off;
	if (pos < d->S) {
		uint64_t k = MIN(d->S - pos, (uint64_t)n);
		used += (size_t)k;
		pos += k;
		if (pos < d->S)
			return used;
	}
	uint64_t size = in->size, stop = off + n;
	d->footer = size >= d->S + 64 && !memcmp(in->map + size - 64, "2DTA", 4);
	/* A footer at a record boundary reads as a record of impossible
	 * length: records before it are safe to take while the file grows. */
	uint64_t end = d->footer ? size - 64 : size;
	end = MIN(end, stop);
	while (pos + DREC_HDR <= end && d->n < MAX_RECORDS) {
		const uint8_t *q = p + (pos - off);
		uint32_t len = ld32le(q);
		if (len < DREC_HDR || len > end - pos) {
			if (len < DREC_HDR && !d->bad_len_at) {
				d->bad_len = len;
				d->bad_len_at = pos;
			}
			break;
		}
		det_record(d, pos, q, len);
		pos += len;
	}
	used = (size_t)(pos - off);
	if (d->th->ix.final)
		check_back(d->th, d->n);
	/* finalized (footer written, header rewritten: read it again) while
	 * following: nothing more comes */
	bool sealed = d->footer && pos == size - 64 && !memcmp(in->map + 28, in->map + size - 56, 16);
	if (sealed) {
		d->hdr_count = ld64le(in->map + 28);
		d->hdr_bytes = ld64le(in->map + 36);
	}
	if (!final && !in->done && !sealed)
		return used;
	/* the end: what follows the last whole record */
	d->size = size;
	d->end = pos;
	uint64_t rend = d->footer ? size - 64 : size;
	d->partial = rend > pos ? rend - pos : 0;
	if (d->footer) {
		const uint8_t *f = in->map + size - 64;
		d->footer_crc = ld32le(f + 4);
		d->footer_count = ld64le(f + 8);
		d->footer_bytes = ld64le(f + 16);
		d->footer_t0 = ld64le(f + 24);
		d->footer_t1 = ld64le(f + 32);
		d->state = d->hdr_count == d->footer_count && d->hdr_bytes == d->footer_bytes
				   ? (d->footer_count ? "finalized" : "finalized-empty")
				   : "footer found, header not rewritten";
		if (d->footer_count != d->n || d->footer_bytes != pos - d->S)
			dec_damage(in, size - 64, "footer counts %llu records in %llu bytes; found %llu in %llu",
				   (unsigned long long)d->footer_count, (unsigned long long)d->footer_bytes,
				   (unsigned long long)d->n, (unsigned long long)(pos - d->S));
		else if (d->hdr_count != d->footer_count)
			dec_damage(in, 28,
				   "header not rewritten (count %llu) although a complete footer is at %llu: killed while "
				   "finalizing",
				   (unsigned long long)d->hdr_count, (unsigned long long)(size - 64));
		if (d->footer_crc) {
			d->crc_calc = (uint32_t)crc32_z(0, in->map + d->S, (z_size_t)(pos - d->S));
			d->crc = d->crc_calc == d->footer_crc ? 1 : 2;
			if (d->crc == 2)
				dec_damage(in, size - 60,
					   "checksum mismatch: footer says 0x%08x, CRC-32 of the records is 0x%08x",
					   d->footer_crc, d->crc_calc);
		}
	} else {
		d->state = "unfinalized (recovered from file size)";
		if (!d->partial)
			dec_damage(in, pos, "not finalized (placeholder header, no footer): %llu records",
				   (unsigned long long)d->n);
	}
	if (d->partial) {
		if (d->bad_len_at == pos)
			dec_damage(in, pos, "record length %u is shorter than a record header: the last %llu bytes are "
					    "not decodable",
				   d->bad_len, (unsigned long long)d->partial);
		else
			dec_damage(in, pos, "%s%llu records; a partial record (the last %llu bytes) dropped",
				   d->footer ? "" : "not finalized (placeholder header, no footer): ",
				   (unsigned long long)d->n, (unsigned long long)d->partial);
	}
	d->final = true;
	settle(d->th);
	return n;
}

static size_t atf_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	switch (*(enum tag *)st) {
	case T_INDEX: return idx_feed(st, p, n, off, final);
	case T_DETAIL: return det_feed(st, p, n, off, final);
	default: return n; /* JSON: parsed when opened */
	}
}

/* ---- lazy decoding -------------------------------------------------------- */

static void put_str_id(struct fsink *out, struct session *ss, const char *name, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(ss->m, sid, &n);
	f_str(out, name, s, n);
}

static void put_kind(struct fsink *out, const char *name, uint32_t kind)
{
	f_put(out, &(struct field){.name = name, .kind = FK_UINT, .v.u = kind,
				   .meaning = kind_name(kind) ? kind_name(kind) : "unknown"});
}

static void put_regs(struct fsink *out, uint8_t arch, bool ret, const uint8_t *x, uint64_t lr, uint64_t fp, uint64_t sp)
{
	static const char *const x86[] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9", "rbp", "rsp"};
	static const char *const a64[] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};
	f_obj(out, "registers");
	if (arch == 1 && ret) {
		f_hex(out, "rax", ld64le(x));
		f_hex(out, "rsp", sp);
	} else if (arch == 1) {
		for (int i = 0; i < 8; i++)
			f_hex(out, x86[i], ld64le(x + 8 * i));
	} else if (arch == 2 && ret) {
		f_hex(out, "x0", ld64le(x));
		f_hex(out, "sp", sp);
	} else {
		for (int i = 0; i < 8; i++)
			f_hex(out, a64[i], ld64le(x + 8 * i));
		f_hex(out, "lr", lr);
		f_hex(out, "fp", fp);
		f_hex(out, "sp", sp);
	}
	f_end(out);
}

/* Every field of detail record k (its header and payload). */
static void det_fields(struct det *d, uint64_t k, struct fsink *out)
{
	struct thread *th = d->th;
	struct session *ss = th->ss;
	uint64_t off = det_off(d, k);
	const uint8_t *q = d->in->map + off;
	uint32_t len = ld32le(q), iseq = ld32le(q + 8);
	uint16_t type = ld16le(q + 4);
	f_uint(out, "detail_seq", k);
	f_unit(out, "offset", off, "bytes");
	f_unit(out, "total_length", len, "bytes");
	f_put(out, &(struct field){.name = "event_type", .kind = FK_UINT, .v.u = type,
				   .meaning = type == 3 ? "CALL" : type == 4 ? "RETURN" : "unknown"});
	f_hex(out, "flags", ld16le(q + 6));
	const char *back = NULL;
	if (unchecked(th))
		back = "not checked: opened without its index.atf";
	else if (!th->ix.in || iseq >= th->ix.n)
		back = "past the end of index.atf";
	else if (ld32le(irec(&th->ix, iseq) + 28) != k)
		back = "that index record links elsewhere";
	f_put(out, &(struct field){.name = "index_seq", .kind = FK_UINT, .v.u = iseq, .meaning = back});
	f_put(out, &(struct field){.name = "thread_id", .kind = FK_UINT, .v.u = ld32le(q + 12), .meaning = "slot"});
	f_unit(out, "timestamp", ld64le(q + 16), "ns");
	uint8_t arch = d->arch ? d->arch : th->ix.arch;
	const uint8_t *pl = q + DREC_HDR;
	if (len == DREC_REAL) {
		uint32_t kind = ld32le(pl + 20), ssize = ld32le(pl + 248);
		uint64_t fid = ld64le(pl + 8);
		f_unit(out, "payload_timestamp", ld64le(pl), "ns");
		f_hex(out, "function_id", fid);
		put_str_id(out, ss, "function", name_of(ss, fid));
		f_put(out, &(struct field){.name = "os_thread_id", .kind = FK_UINT, .v.u = ld32le(pl + 16),
					   .meaning = "OS thread"});
		put_kind(out, "kind", kind);
		f_uint(out, "call_depth", ld32le(pl + 24));
		put_regs(out, arch, kind == K_RETURN || (kind != K_CALL && type == 4), pl + 32, ld64le(pl + 96),
			 ld64le(pl + 104), ld64le(pl + 112));
		f_put(out, &(struct field){.name = "stack_size", .kind = FK_UINT, .v.u = ssize, .unit = "bytes",
					   .meaning = ssize > 128 ? "more than the 128 bytes a record holds" : NULL});
		f_bytes(out, "stack", pl + 120, MIN(ssize, 128u));
	} else if (len >= DREC_HDR + SPEC_PAYLOAD && ld16le(pl + 96) == len - DREC_HDR - SPEC_PAYLOAD) {
		uint64_t fid = ld64le(pl);
		uint16_t ssize = ld16le(pl + 96);
		f_cstr(out, "layout", "spec DetailFunctionPayload");
		f_hex(out, "function_id", fid);
		put_str_id(out, ss, "function", name_of(ss, fid));
		put_regs(out, arch, type == 4, pl + 8, ld64le(pl + 72), ld64le(pl + 80), ld64le(pl + 88));
		f_unit(out, "stack_size", ssize, "bytes");
		f_bytes(out, "stack", pl + SPEC_PAYLOAD, ssize);
	} else {
		f_put(out, &(struct field){.name = "layout", .kind = FK_STR, .v.s = {"unknown", 7},
					   .meaning = "neither the 540-byte record nor the spec's payload"});
		f_bytes(out, "payload", pl, MIN(len - DREC_HDR, 1024u));
	}
}

/* The detail record k of event e's detail file, when e is a DETAIL event. */
static bool det_event_k(struct det *d, const struct event *e, uint64_t *k)
{
	uint64_t off = e->off;
	if (d->nuni && off >= d->S && off < d->S + d->nuni * (uint64_t)d->len0 && (off - d->S) % d->len0 == 0) {
		*k = (off - d->S) / d->len0;
		return true;
	}
	size_t lo = 0, hi = d->noffs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->noffs && d->offs[lo] == off) {
		*k = d->nuni + lo;
		return true;
	}
	return false;
}

static bool idx_event_rec(const struct idx *x, const struct event *e, uint64_t *r)
{
	if (e->off < x->E || (e->off - x->E) % REC || (e->off - x->E) / REC >= x->n)
		return false;
	*r = (e->off - x->E) / REC;
	return true;
}

static void idx_fields(struct idx *x, const struct event *e, struct fsink *out)
{
	struct thread *th = x->th;
	struct session *ss = th->ss;
	uint64_t r;
	if (!idx_event_rec(x, e, &r)) {
		f_cstr(out, "error", "record not readable");
		return;
	}
	const uint8_t *q = irec(x, r);
	uint64_t fid = ld64le(q + 8);
	uint32_t kind = ld32le(q + 20), link = ld32le(q + 28);
	f_uint(out, "index_seq", r);
	f_unit(out, "timestamp", ld64le(q), "ns");
	f_hex(out, "function_id", fid);
	put_str_id(out, ss, "function", name_of(ss, fid));
	uint64_t v;
	if (hmap_get(&ss->sym, fid, &v))
		put_str_id(out, ss, "symbol", (uint32_t)v);
	else
		f_put(out, &(struct field){.name = "symbol", .kind = FK_NULL,
					   .meaning = ss->sym.n ? "not in the manifest" : "manifest missing"});
	if (hmap_get(&ss->mod, fid >> 32, &v))
		put_str_id(out, ss, "module", (uint32_t)v);
	else
		f_null(out, "module");
	f_hex(out, "module_id", fid >> 32);
	f_uint(out, "symbol_index", fid & 0xffffffffu);
	f_put(out, &(struct field){.name = "thread_id", .kind = FK_UINT, .v.u = ld32le(q + 16), .meaning = "slot"});
	put_kind(out, "event_kind", kind);
	f_uint(out, "call_depth", ld32le(q + 24));
	if (link == NO_LINK) {
		f_put(out, &(struct field){.name = "detail_seq", .kind = FK_NULL, .meaning = "none"});
		return;
	}
	f_uint(out, "detail_seq", link);
	f_bool(out, "detail_copy", x->drain);
	struct det *d = &th->dt;
	if (link_ok(th, r, link)) {
		f_cstr(out, "link", "ok");
		f_obj(out, "detail");
		det_fields(d, link, out);
		f_end(out);
	} else if (unchecked(th)) {
		f_cstr(out, "link", "not checked: opened without its detail.atf");
	} else if (!d->in || link >= d->n) {
		char m[96];
		snprintf(m, sizeof m, "dangling: detail.atf %s %llu records", d->in ? "has" : "missing, so",
			 (unsigned long long)d->n);
		f_cstr(out, "link", m);
	} else {
		char m[96];
		snprintf(m, sizeof m, "mismatch: detail %u links back to index %u", link, ld32le(drec(d, link) + 8));
		f_cstr(out, "link", m);
	}
}

static void atf_fields(void *st, const struct event *e, struct fsink *out)
{
	switch (*(enum tag *)st) {
	case T_INDEX: idx_fields(st, e, out); break;
	case T_DETAIL: {
		struct det *d = st;
		uint64_t k;
		if (det_event_k(d, e, &k))
			det_fields(d, k, out);
		else
			f_cstr(out, "error", "record not readable");
		break;
	}
	default: break;
	}
}

static void atf_summary(void *st, const struct event *e, struct buf *b)
{
	enum tag tag = *(enum tag *)st;
	if (tag == T_INDEX) {
		struct idx *x = st;
		struct thread *th = x->th;
		uint64_t r;
		if (!idx_event_rec(x, e, &r)) {
			buf_adds(b, "(record not readable)");
			return;
		}
		const uint8_t *q = irec(x, r);
		uint32_t kind = ld32le(q + 20), link = ld32le(q + 28);
		size_t n;
		const char *s = model_strget(th->ss->m, e->name, &n);
		if (!kind_name(kind))
			buf_printf(b, "event_kind %u ", kind);
		esc_term(b, s, n);
		buf_printf(b, " (depth %u)", ld32le(q + 24));
		if (link != NO_LINK) {
			buf_printf(b, " -> detail %u", link);
			if (unchecked(th))
				buf_adds(b, " (detail.atf not opened)");
			else if (!link_ok(th, r, link))
				buf_adds(b, link >= th->dt.n ? " (dangling)" : " (link mismatch)");
		}
	} else if (tag == T_DETAIL) {
		struct det *d = st;
		uint64_t k;
		if (!det_event_k(d, e, &k)) {
			buf_adds(b, "(record not readable)");
			return;
		}
		const uint8_t *q = drec(d, k);
		uint32_t len = ld32le(q), iseq = ld32le(q + 8);
		uint16_t type = ld16le(q + 4);
		buf_adds(b, type == 3 ? "CALL " : type == 4 ? "RETURN " : "");
		size_t n;
		const char *s = model_strget(d->th->ss->m, e->name, &n);
		esc_term(b, s, n);
		if (len == DREC_REAL)
			buf_printf(b, " (depth %u)", ld32le(q + 48));
		buf_printf(b, ": detail %llu -> index %u, ", (unsigned long long)k, iseq);
		const struct idx *x = &d->th->ix;
		if (unchecked(d->th))
			buf_adds(b, "not checked (index.atf not opened)");
		else if (!x->in || iseq >= x->n)
			buf_printf(b, "past the end of index.atf (%llu records)", (unsigned long long)x->n);
		else
			buf_printf(b, "which links to %s", ld32le(irec(x, iseq) + 28) == NO_LINK ? "no detail record"
												: "another detail record");
	}
}

/* ---- links between index and detail records ------------------------------
 *
 * Linked detail records are not events of their own (the index event that
 * links to them is; a session lists each call once).  Both directions are
 * O(1): forward, the detail record an index event links to (when the link
 * resolves); back, the model position of the index event a detail record
 * links back to (record index_seq of the thread's index.atf).  Detail
 * records whose back link does not resolve (their index record was lost in
 * a crash, or links elsewhere) are events of their own, type DETAIL,
 * flagged EVF_DAMAGED; such an event links to itself. */

static bool atf_linked(void *st, const struct event *e, uint32_t *input, uint64_t *off)
{
	if (*(enum tag *)st == T_INDEX) {
		struct idx *x = st;
		uint64_t r;
		if (!idx_event_rec(x, e, &r))
			return false;
		uint32_t link = ld32le(irec(x, r) + 28);
		if (link == NO_LINK || !link_ok(x->th, r, link))
			return false;
		*input = x->th->dt.in->id;
		*off = det_off(&x->th->dt, link);
		return true;
	}
	uint64_t k;
	if (*(enum tag *)st != T_DETAIL || !det_event_k(st, e, &k))
		return false;
	*input = e->input;
	*off = e->off;
	return true;
}

/* The position in detail.atf of its record at byte `off`. */
static bool det_seq_at(void *st, uint64_t off, uint64_t *k)
{
	return *(enum tag *)st == T_DETAIL && det_event_k(st, &(struct event){.off = off}, k);
}

static void atf_record_fields(void *st, uint64_t off, struct fsink *out)
{
	uint64_t k;
	if (det_seq_at(st, off, &k))
		det_fields(st, k, out);
}

static bool atf_record_back(void *st, uint64_t off, uint64_t *pos)
{
	struct det *d = st;
	uint64_t k;
	if (!det_seq_at(st, off, &k))
		return false;
	struct thread *th = d->th;
	uint32_t r = ld32le(drec(d, k) + 8);
	if (!th->ix.in || r >= th->ix.n || !link_ok(th, r, (uint32_t)k))
		return false;
	*pos = model_seq_pos(th->ss->m, th->seq, pos_of_rec(&th->ix, r));
	return true;
}

/* ---- info: the recovery report -------------------------------------------- */

static void put_opt(struct fsink *out, const char *name, const char *v)
{
	if (v)
		f_cstr(out, name, v);
	else
		f_null(out, name);
}

static void put_enum(struct fsink *out, const char *name, uint64_t v, const char *meaning)
{
	f_put(out, &(struct field){.name = name, .kind = FK_UINT, .v.u = v, .meaning = meaning ? meaning : "unknown"});
}

static const char *crc_text(int crc, uint32_t stored, bool have)
{
	if (!have)
		return "no footer";
	if (!stored)
		return "not computed";
	return crc == 1 ? "ok" : "mismatch";
}

static void info_index(struct idx *x, struct fsink *out)
{
	f_obj(out, "index");
	f_str(out, "file", x->in->path, strlen(x->in->path));
	f_unit(out, "size", x->in->size, "bytes");
	put_opt(out, "state", x->state);
	put_opt(out, "recovered_from", x->from);
	f_uint(out, "records", x->n);
	if (x->have_hdr) {
		f_uint(out, "header_count", x->hdr_count);
		if (x->footer)
			f_uint(out, "footer_count", x->footer_count);
		else
			f_null(out, "footer_count");
		f_uint(out, "size_count", x->size_count);
		f_unit(out, "partial_tail_bytes", x->partial, "bytes");
		f_unit(out, "bytes_after_footer", x->trailing, "bytes");
		f_unit(out, "events_offset", x->raw_E, "bytes");
		f_unit(out, "header_footer_offset", x->hdr_footer, "bytes");
		if (x->footer) {
			f_unit(out, "footer_at", x->footer_at, "bytes");
			f_hex(out, "footer_checksum", x->footer_crc);
		} else {
			f_null(out, "footer_at");
		}
		f_cstr(out, "checksum", crc_text(x->crc, x->footer_crc, x->footer));
		f_put(out, &(struct field){.name = "flags", .kind = FK_HEX, .v.u = x->flags,
					   .meaning = x->flags & 1 ? "has_detail_file" : NULL});
		put_enum(out, "arch", x->arch, arch_name(x->arch));
		put_enum(out, "os", x->os, os_name(x->os));
		put_enum(out, "clock_type", x->clock, clock_name(x->clock));
		f_put(out, &(struct field){.name = "thread_id", .kind = FK_UINT, .v.u = x->hdr_tid, .meaning = "slot"});
		f_uint(out, "calls", x->calls);
		f_uint(out, "returns", x->returns);
		f_uint(out, "exceptions", x->exceptions);
		f_uint(out, "unknown_kinds", x->unknown);
		f_uint(out, "with_detail_seq", x->linked);
		if (x->n) {
			/* times in ns, without the unit: not durations to be rendered as such */
			f_int(out, "first_ts", x->first);
			f_int(out, "last_ts", x->last);
			f_int(out, "min_ts", x->min);
			f_int(out, "max_ts", x->max);
		}
		f_bool(out, "time_sorted", !x->backsteps);
		f_uint(out, "time_steps_back", x->backsteps);
		f_cstr(out, "layout", x->drain ? "drain batches (records with a detail_seq are detail-lane copies)"
					       : "as written (no step back in time)");
		uint64_t big = 0;
		for (size_t c = 0; c < x->nch; c++)
			big = MAX(big, chunk_end(x, c) - x->ch[c].start);
		f_uint(out, "time_chunks", x->nch);
		f_put(out, &(struct field){.name = "largest_chunk", .kind = FK_UINT, .v.u = big,
					   .meaning = x->nch == 1 && big > CHUNK_MIN
							      ? "the whole file is one chunk: sorting it takes 4 bytes per record"
							      : NULL});
		f_uint(out, "long_pairs", x->far.n / 2);
		if (x->stk_full)
			f_put(out, &(struct field){.name = "calls_too_deep", .kind = FK_UINT, .v.u = x->stk_full,
						   .meaning = "nested deeper than 65536: their far returns are not paired"});
	}
	f_end(out);
}

static void info_detail(struct det *d, struct fsink *out)
{
	f_obj(out, "detail");
	f_str(out, "file", d->in->path, strlen(d->in->path));
	f_unit(out, "size", d->in->size, "bytes");
	put_opt(out, "state", d->state);
	f_uint(out, "records", d->n);
	if (d->have_hdr) {
		f_uint(out, "header_count", d->hdr_count);
		if (d->footer)
			f_uint(out, "footer_count", d->footer_count);
		else
			f_null(out, "footer_count");
		f_unit(out, "header_bytes_length", d->hdr_bytes, "bytes");
		f_unit(out, "partial_tail_bytes", d->partial, "bytes");
		f_unit(out, "events_offset", d->raw_S, "bytes");
		f_cstr(out, "checksum", crc_text(d->crc, d->footer_crc, d->footer));
		f_uint(out, "header_index_seq_start", d->seq_start);
		f_uint(out, "header_index_seq_end", d->seq_end);
		if (d->n) {
			f_uint(out, "index_seq_min", d->seq_min);
			f_uint(out, "index_seq_max", d->seq_max);
			f_int(out, "min_ts", d->tmin);
			f_int(out, "max_ts", d->tmax);
		}
		f_uint(out, "calls", d->calls);
		f_uint(out, "returns", d->returns);
		if (d->other_types)
			f_uint(out, "other_event_types", d->other_types);
		if (d->len0)
			f_unit(out, "record_length", d->len0, "bytes");
		if (d->spec_layout)
			f_put(out, &(struct field){.name = "spec_layout_records", .kind = FK_UINT, .v.u = d->spec_layout,
						   .meaning = "the spec's DetailFunctionPayload: never written by real tools"});
		if (d->odd_layout)
			f_uint(out, "unknown_layout_records", d->odd_layout);
		if (d->tid_other)
			f_uint(out, "records_of_another_os_thread", d->tid_other);
	}
	f_end(out);
}

static void info_thread(struct thread *th, struct fsink *out)
{
	struct session *ss = th->ss;
	struct idx *x = &th->ix;
	struct det *d = &th->dt;
	const struct pidinfo *pi = &ss->pids[th->pidx];
	f_obj(out, NULL);
	if (pi->known)
		f_uint(out, "pid", pi->pid);
	f_uint(out, "slot", th->slot);
	put_str_id(out, ss, "lane", model_lane_get(ss->m, th->lane)->name);
	if (d->tid_known)
		f_uint(out, "os_thread_id", d->tid);
	else
		f_null(out, "os_thread_id");
	f_uint(out, "index_events", x->n);
	f_uint(out, "detail_events", d->n);
	put_opt(out, "recovered_from", x->in ? x->from : "no index.atf");
	f_unit(out, "partial_tail_bytes", x->partial + d->partial, "bytes");
	f_cstr(out, "checksum", x->in ? crc_text(x->crc, x->footer_crc, x->footer) : "no index.atf");
	f_uint(out, "dangling_links", th->fwd_dangling + th->fwd_mismatch + th->back_past + th->back_mismatch);
	bool listed = false;
	for (size_t i = 0; i < pi->nlisted; i++)
		listed |= pi->listed[i] == th->slot;
	if (pi->manifest == M_OK)
		f_bool(out, "in_manifest", listed);
	f_put(out, &(struct field){.name = "has_detail", .kind = FK_BOOL, .v.b = d->in != NULL,
				   .meaning = x->have_hdr && (bool)(x->flags & 1) != (d->in != NULL)
						      ? (d->in ? "detail.atf exists; the header flag says none"
							       : "the header flag says detail, there is no detail.atf")
						      : NULL});
	if (x->in)
		info_index(x, out);
	else
		f_null(out, "index");
	if (d->in)
		info_detail(d, out);
	else
		f_null(out, "detail");
	f_obj(out, "links");
	f_bool(out, "checked", !unchecked(th));
	f_uint(out, "forward", x->linked);
	f_uint(out, "ok", th->fwd_ok);
	f_uint(out, "forward_dangling", th->fwd_dangling);
	f_uint(out, "forward_mismatched", th->fwd_mismatch);
	f_uint(out, "back_past_index", th->back_past);
	f_uint(out, "back_mismatched", th->back_mismatch);
	struct buf b = {0};
	if (th->nex_fwd) {
		ex_text(&b, th->ex_fwd, th->nex_fwd, th->fwd_dangling + th->fwd_mismatch, true);
		f_str(out, "first_dangling_forward", b.p, b.len);
	}
	if (th->nex_back) {
		buf_reset(&b);
		ex_text(&b, th->ex_back, th->nex_back, th->back_past + th->back_mismatch, false);
		f_str(out, "first_dangling_back", b.p, b.len);
	}
	buf_free(&b);
	f_end(out);
	f_end(out);
}

static void atf_info(struct source *src, struct fsink *out)
{
	struct session *ss = dec_source_state(src);
	if (!ss || ss->tag != T_SESSION)
		return;
	put_opt(out, "layout", ss->layout);
	if (ss->bundle) {
		f_obj(out, "bundle");
		put_opt(out, "manifest", ss->bundle_manifest);
		put_opt(out, "trace_session", ss->trace_session);
		put_opt(out, "status", ss->bundle_status);
		f_end(out);
	}
	f_arr(out, "processes");
	for (size_t i = 0; i < ss->npids; i++) {
		const struct pidinfo *pi = &ss->pids[i];
		f_obj(out, NULL);
		if (pi->known)
			f_uint(out, "pid", pi->pid);
		else
			f_null(out, "pid");
		if (pi->dir)
			f_str(out, "directory", pi->dir, strlen(pi->dir));
		static const char *const mstate[] = {"missing", "present", "unreadable"};
		f_put(out, &(struct field){.name = "manifest", .kind = FK_STR,
					   .v.s = {mstate[pi->manifest], strlen(mstate[pi->manifest])},
					   .meaning = pi->manifest == M_BAD       ? pi->manifest_err
						      : pi->manifest == M_MISSING ? "normal after a crash: symbol names are unavailable"
										  : NULL});
		if (pi->manifest == M_OK) {
			put_opt(out, "format_version", pi->format_version);
			if (pi->have_clock)
				put_enum(out, "clock_type", pi->clock_type,
					 pi->clock_type < 256 ? clock_name((uint8_t)pi->clock_type) : NULL);
			f_uint(out, "modules", pi->nmodules);
			f_uint(out, "symbols", pi->nsymbols);
			f_arr(out, "threads_listed");
			for (size_t k = 0; k < pi->nlisted; k++)
				f_uint(out, NULL, pi->listed[k]);
			f_end(out);
			/* listed threads without files */
			f_arr(out, "listed_without_files");
			for (size_t k = 0; k < pi->nlisted; k++) {
				bool found = false;
				for (size_t t = 0; t < ss->nth && !found; t++)
					found = ss->th[t]->pidx == i && ss->th[t]->slot == pi->listed[k];
				if (!found)
					f_uint(out, NULL, pi->listed[k]);
			}
			f_end(out);
		}
		f_end(out);
	}
	f_end(out);
	f_arr(out, "threads");
	for (size_t i = 0; i < ss->nth; i++)
		info_thread(ss->th[i], out);
	f_end(out);
}

/* ---- closing -------------------------------------------------------------- */

static void thread_free(struct thread *th)
{
	struct idx *x = &th->ix;
	free(x->ch);
	for (int k = 0; k < PERM_CACHE; k++)
		free(x->cache[k].p);
	free(x->stk);
	free(x->pc);
	hmap_free(&x->far);
	free(th->dt.offs);
	free(th->dir);
	free(th);
}

/* A file of the session was truncated (following): read it again from
 * scratch.  The index's sequence counts its records, so it shrinks to 0;
 * link checks are made again when both files are read. */
static void atf_restart(void *st)
{
	enum tag tag = *(enum tag *)st;
	if (tag == T_INDEX) {
		struct idx *x = st;
		struct thread *th = x->th;
		struct input *in = x->in;
		model_lane_uncount(th->ss->m, th->lane, x->n); /* counted again as they are read */
		free(x->ch);
		for (int k = 0; k < PERM_CACHE; k++)
			free(x->cache[k].p);
		free(x->stk);
		free(x->pc);
		hmap_free(&x->far);
		*x = (struct idx){.tag = T_INDEX, .th = th, .in = in};
		th->settled = false;
		model_seq_changed(th->ss->m);
	} else if (tag == T_DETAIL) {
		struct det *d = st;
		struct thread *th = d->th;
		struct input *in = d->in;
		free(d->offs);
		*d = (struct det){.tag = T_DETAIL, .th = th, .in = in};
		th->settled = false;
	}
}

static void atf_close(void *st)
{
	if (!st || *(enum tag *)st != T_SESSION)
		return; /* files' states belong to the session */
	struct session *ss = st;
	for (size_t i = 0; i < ss->nth; i++)
		thread_free(ss->th[i]);
	free(ss->th);
	for (size_t i = 0; i < ss->npids; i++) {
		struct pidinfo *pi = &ss->pids[i];
		free(pi->dir);
		free(pi->manifest_path);
		free(pi->manifest_err);
		free(pi->format_version);
		free(pi->listed);
	}
	free(ss->pids);
	hmap_free(&ss->sym);
	hmap_free(&ss->mod);
	hmap_free(&ss->names);
	hmap_free(&ss->kinds);
	free(ss->bundle_manifest);
	free(ss->trace_session);
	free(ss->bundle_status);
	buf_free(&ss->tmp);
	free(ss);
}

const struct decoder atf_decoder = {
	.name = "atf",
	.title = "ATF v2 session (ADA Trace Format)",
	.probe = atf_probe,
	.open = atf_open,
	.feed = atf_feed,
	.probe_dir = atf_probe_dir,
	.open_dir = atf_open_dir,
	.rescan = atf_rescan,
	.restart = atf_restart,
	.fields = atf_fields,
	.summary = atf_summary,
	.linked = atf_linked,
	.record_fields = atf_record_fields,
	.record_back = atf_record_back,
	.info = atf_info,
	.close = atf_close,
};
