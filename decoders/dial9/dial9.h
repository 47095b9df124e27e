/* dial9-trace-format: the binary traces of dial9 tokio telemetry.  See
 * specs/dial9.md and, above all, specs/dial9-notes.md (what real files hold).
 *
 * A segment file is a chain of sub-streams: every `TRC\0` + version header
 * resets the schemas, both pools and the time base, so a type id means
 * different events in different sub-streams.  feed() decodes one frame at a
 * time into temporaries and commits only whole frames: a frame torn at the
 * end waits for more bytes (a live file), or is damage when the input is
 * final.
 *
 * Events keep only their offset.  fields() re-reads an event and finds the
 * tables of its sub-stream (type id -> schema, pool id -> string or stack)
 * by binary search on the sub-stream's start offset.  Schemas are shared by
 * all sub-streams that define them identically (writers re-send them every
 * batch), so memory grows with distinct schemas and pool entries, never
 * with events.  Model types are keyed on schema names, never on type ids.
 *
 * A directory of segments (trace.N.bin, trace.N.bin.active, trace.N.bin.gz,
 * possibly under a boot-id subdirectory) is one source with one input per
 * segment, each decoded on its own. */
#ifndef TTV_DECODERS_DIAL9_H
#define TTV_DECODERS_DIAL9_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "decoders/decoder.h"
#include "src/demangle.h"
#include "src/hmap.h"

extern const struct decoder dial9_decoder;

/* Frame tags (notes §1). */
enum {
	TAG_SCHEMA = 1, TAG_EVENT = 2, TAG_STRPOOL = 3, TAG_STKPOOL = 4, TAG_RESET = 5, TAG_ANNOT = 6,
	TAG_HEADER = 0x54 /* the T of a TRC header */
};
enum { FR_HEADER, FR_SCHEMA, FR_EVENT, FR_STRPOOL, FR_STKPOOL, FR_RESET, FR_ANNOT, FR_KINDS };

/* Field types (notes §2.6). */
enum {
	FT_I64 = 1, FT_F64, FT_BOOL, FT_STRING, FT_BYTES, FT_PSTACK, FT_PSTR, FT_STACK, FT_VARINT, FT_MAP,
	FT_U8, FT_U16, FT_U32, FT_DLIST, FT_DMAP, FT_LAST = FT_DMAP, FT_OPT = 0x80
};

#define HEADER_LEN 5
#define MAX_NEST 32          /* dynamic lists and maps nested deeper than this are refused */
#define MAX_ANNOT 4096u      /* annotation bytes per schema beyond which they are skipped */
#define MAX_INLINE 64        /* inline levels shown per address */
#define DENSE_IDS 65536u     /* pool ids below this live in arrays; above, in a hash map */
#define PENDING_MAX 65536u   /* thread events held back until their thread's worker is known */
#define WORKER_BLOCKING 254
#define WORKER_NONE 255

/* What ttv knows about an event name (notes §5.2). */
enum kind {
	K_OTHER, K_POLL_START, K_POLL_END, K_WAKE, K_CPU, K_SPAN_ENTER, K_SPAN_EXIT, K_SPAN_COMPLETE,
	K_SYMBOL, K_CALLFRAME, K_METADATA, K_CLOCK, /* read at feed time (from K_SYMBOL on) */
};

/* Span enter and exit events by their names' prefixes: the tracing layer's
 * "SpanEnter:{target}::{name}:..." and struct-derived "SpanEnter__{T}". */
#define SPAN_ENTER "SpanEnter:"
#define SPAN_EXIT "SpanExit:"
#define SPAN_ENTER_T "SpanEnter__"
#define SPAN_EXIT_T "SpanExit__"

/* The event loop walks a schema as a list of ops: runs of fixed-size fields
 * merged into one skip, the fields the model needs (worker, thread, name)
 * and the variable-size ones kept apart. */
enum opcode {
	OP_FIXED, OP_VARINT, OP_U8, OP_U16, OP_U32, OP_I64, OP_STR, OP_PSTR, OP_PSTACK, OP_STACK, OP_MAP, OP_DYN
};
/* R_SPAN: a complete span's start or duration (schema.span_*); R_SPAN_ID
 * and R_INSTANCE: a span enter's, exit's or close's span_id and
 * span_instance_id; R_PARENT: a close's parent_span_instance_id */
enum { R_NONE, R_WORKER, R_TID, R_NAME, R_SPAN, R_SPAN_ID, R_INSTANCE, R_PARENT };

struct op {
	uint8_t code, opt, role, tag; /* tag: the field type (for OP_DYN) */
	uint32_t n;                    /* OP_FIXED: bytes */
};

struct dfield {
	char *name;
	uint8_t is;       /* what its name says an integer is (enum int_is) */
	uint8_t tag;      /* field type without the optional bit */
	bool opt;
	const char *unit; /* annotation or name suffix; NULL when none */
	uint8_t metric;   /* its `kind` annotation: METRIC_* (a counter track), or 0 */
};

/* A field's metric kind (annotation `kind`): each sample is also an event
 * on a counter track of its own. */
enum { METRIC_GAUGE = 1, METRIC_COUNTER, METRIC_UPDOWN };

struct schema {
	uint32_t refs;     /* its holders: decoders, and a directory's schemas */
	uint8_t *key;      /* identity: the schema frame after its type id, then its annotations */
	uint32_t nkey, nraw;
	uint64_t hash;
	char *name;
	bool has_ts;
	uint16_t nfields;
	struct dfield *f;
	struct op *ops;
	uint32_t nops;
	enum kind kind;
	uint32_t type;  /* model type */
	uint32_t flags; /* role and EVF_META */
	/* A complete span (K_SPAN_COMPLETE: a field annotated dial9.role
	 * span.start or span.duration): the packed timestamp is its end, the
	 * field (times span_scale ns) its start or its length. */
	bool span_is_start;
	uint64_t span_scale;
	bool links; /* a close event that names its span and its parent (spans.c) */
	/* its metric fields and their samples' model types */
	uint16_t nmetrics;
	uint16_t *metric_field;
	uint32_t *metric_type;
};

/* The fields a schema's dial9.role annotations name (-1: none); span: the
 * one that makes it a complete span. */
struct roles {
	int start, duration, name, tid, worker, span;
	int inst, parent; /* a close event's span_instance_id and parent_span_instance_id */
};

/* An open span enter: its key (span id, thread) and time, over the
 * enter of the same key it hides (+ 1, 0 = none). */
struct open_enter {
	uint64_t id, thread;
	int64_t ts;
	uint32_t below;
};
#define OPEN_ENTERS_MAX 65536u /* enters kept waiting for their exits */

/* A close event's span_instance_id and parent_span_instance_id (0: a root). */
struct span_link {
	uint64_t off, id, parent;
};

/* The key and thread of a span enter or exit (frames.c reads them). */
struct span_ids {
	uint64_t instance, span_id, thread;
	uint32_t name;
};

struct tent { /* type id -> schema, in one sub-stream */
	uint32_t id, schema;
};

struct slot { /* the same in the current sub-stream, by type id */
	struct schema *s;
	uint32_t tent;
};

struct pent { /* pool entry: id, then the string (sid) or the stack (frame count, offset of its addresses) */
	uint32_t id, val;
	uint64_t off;
};

enum { POOL_STR, POOL_STK };

struct sub {
	uint64_t off;      /* the header's offset */
	uint32_t t0, tsorted;      /* first type entry; how many were sorted last time */
	uint32_t p0[2], psorted[2]; /* the same for both pools */
};

/* Pool ids of the current sub-stream: dense for small ids, a map beyond. */
struct ids {
	uint32_t *v; /* entry index + 1, 0 = undefined */
	size_t cap, hi;
	struct hmap big;
};

struct sym {
	uint64_t addr;
	uint32_t name, file, line, depth;
};

struct clock {
	int64_t ts;
	uint64_t realtime;
};

struct pend {
	struct event e;
	uint32_t tid;
	uint32_t thread_name; /* CPU samples name their thread */
	uint32_t prev;        /* the same thread's previous waiting event + 1, 0 = none */
	bool dead;            /* released already */
};

#define D9_INPUT 0x64390001u
#define D9_DIR 0x64390002u

struct d9 {
	uint32_t magic; /* D9_INPUT */
	struct input *in;
	struct model *m;

	/* distinct schemas of this input */
	struct schema **sch;
	size_t nsch, capsch;
	struct hmap sch_by_hash; /* hash (+ probe) -> index */
	struct schemas *shared;  /* its directory's, when it was found in one */

	/* sub-streams and their tables */
	struct sub *subs;
	size_t nsubs, capsubs;
	struct tent *tents;
	size_t ntents, captents;
	struct pent *pools[2];
	size_t npool[2], cappool[2];

	/* the current sub-stream */
	struct slot *page[256]; /* type id -> schema, in pages of 256 */
	struct ids cur[2];
	uint64_t base;   /* timestamp base */
	int64_t last_ts; /* time of the last event (for events without one) */
	int64_t prev_ts;
	bool started;
	bool let_go; /* held events were let go at the end of the data (d9_resumable) */

	/* lanes */
	const char *lane_prefix; /* a tree's trace: "svc/instance: " before each lane's name */
	uint32_t wlane[256]; /* worker id -> lane + 1 */
	struct hmap tlane;   /* tid -> lane << 1 | named */
	struct hmap metric_lanes; /* a metric's model type -> its counter track */
	struct hmap tid_worker;
	struct hmap pend_head; /* tid -> index + 1 of its last waiting event */
	uint32_t runtime_lane, meta_lane, other_lane, spans_lane; /* + 1 */
	struct pend *pend;
	size_t npend, cappend;

	/* span enters not yet exited (spans.c) */
	struct hmap open_top; /* hash of the span's key -> its latest open enter + 1 */
	struct open_enter *opens;
	size_t nopens, capopens;
	uint32_t free_open; /* a freed entry + 1, chained through `below` */
	struct span_link *links; /* close events that name their span and its parent, by offset */
	size_t nlinks, caplinks;

	struct sym *syms;
	size_t nsyms, capsyms, syms_sorted;
	struct clock *clocks;
	size_t nclocks, capclocks, clocks_sorted;

	/* findings for info */
	uint64_t frames[FR_KINDS], no_ts, back_steps, unres_str, unres_stk, schema_repeats,
		annot_skipped, nested_opt, mapped_samples;
	uint64_t ts_beyond; /* events stamped past 2^63-1 ns: kept at 2^63-1, flagged damaged */
	uint64_t bad_spans; /* complete spans whose start or length did not fit: kept as instants */
	int64_t min_ts; /* the earliest timeline event (for the wall-clock start) */
	bool have_min;
	struct buf tmp;
};

/* A directory source: which segments it holds. */

/* A segment file of a directory tree. */
struct seg {
	char *group; /* the trace it belongs to (struct group's key) */
	char *rel;   /* its directory below the top ("" for the top) */
	char *key;   /* its name less the kind suffix ("trace.3", "1775763000-0", "window-07") */
	uint64_t wall; /* its first wall clock (ns), when read from its first frames; else 0 */
	int rank;    /* .bin 0, .bin.gz 1, .bin.active 2, by content 3: the one to read when several exist */
	char *path;
	struct input *in; /* the input reading it (NULL: it could not be opened) */
};

/* One trace of a tree: the segments of one service, instance and boot (as
 * the uploader's paths say), or of one directory. */
struct group {
	char *key;
	char *label;     /* "svc/instance" or the directory below the top; "" for the top itself */
	char *boot;      /* the boot id, when the path gives one */
	char *lane_prefix; /* "label: " when the tree holds several traces, else "" */
	bool prefix_used;  /* its inputs have named lanes: a new prefix renames them (set_lane_prefix) */
	struct source *src;
};

/* The schemas a directory's files made: a fleet's instances write the
 * same ones, each made once (schemas depend on their identity alone). */
struct schemas {
	struct schema **v;
	size_t n, cap;
	struct hmap by_hash; /* hash (+ probe) -> index */
};

struct d9dir {
	uint32_t magic; /* D9_DIR */
	char *path;
	struct schemas schemas;
	struct seg *segs; /* the segments added so far */
	size_t nsegs, capsegs;
	struct group *groups;
	size_t ngroups, capgroups;
};

enum { V_OK = 0, V_TORN, V_BAD, V_BADTAG, V_DEEP }; /* V_BAD: a varint over 10 bytes or 2^64 */

/* Lane keys: the kind of lane above a thread id or worker number. */
enum { LK_THREAD = 1, LK_RUNTIME, LK_META, LK_OTHER, LK_METRIC, LK_SPANS };
#define LKEY(kind, v) ((uint64_t)(kind) << 32 | (uint64_t)(v))

struct walk {
	struct d9 *d;
	const struct sub *sub; /* NULL: the current tables (at feed time) */
	uint64_t at;           /* the event's offset: pool entries defined before it count */
	struct fsink *out;
	bool compact; /* one-line summary: stacks as depth and leaf */
	uint8_t top_is; /* the schema field being read: its dfield.is */
	/* summary and fields at once: out passes each field to both, but a
	 * stack goes to each in its own form */
	struct fsink *summary, *full;
	struct buf key, val;
	uint32_t unresolved;
};

/* A sink that keeps a few top-level fields by name (for the events whose
 * content the decoder needs at feed time: symbols, clock syncs). */
struct capture {
	struct fsink s;
	const char *const *names;
	unsigned n, depth;
	uint64_t u[8];
	const void *p[8];
	size_t len[8];
	uint8_t have[8]; /* 1 number, 2 string */
};

/* ---- shared between the files of decoders/dial9/ */

/* schema.c: schemas: parsed, shared between sub-streams, classified by name and annotations */
bool d9_ends_with(const char *s, const char *suffix);
enum int_is { IS_PLAIN, IS_ADDR, IS_WORKER, IS_TARGET_WORKER, IS_SOURCE, IS_WAKER, IS_REALTIME };
uint8_t d9_int_is(const char *name);
void d9_ids_put(struct ids *t, uint32_t id, uint32_t val);
void d9_schema_free(struct schema *s); /* (one holder's: the last frees it) */
void d9_schemas_free(struct schemas *ss);
uint32_t d9_schema_get(struct d9 *d, const uint8_t *key, uint32_t nkey, uint32_t nraw);

/* spans.c */
void d9_span_enter(struct d9 *d, const struct span_ids *k, int64_t ts);
/* An exit: the distance back to its enter, or TTV_NODUR. */
uint64_t d9_span_exit(struct d9 *d, const struct span_ids *k, int64_t ts);
void d9_spans_free(struct d9 *d);
/* A close event at offset off names its span and its parent. */
void d9_span_link(struct d9 *d, uint64_t off, uint64_t id, uint64_t parent);
bool d9_span_ids(void *st, const struct event *e, uint64_t *id, uint64_t *parent);

/* streams.c: sub-streams and their tables; lanes, and thread events held back */
void d9_sub_begin(struct d9 *d, uint64_t off);
const struct sub *d9_sub_of(const struct d9 *d, uint64_t off);
void d9_sort_sub_schemas(struct d9 *d, struct sub *s);
void d9_sort_syms(struct d9 *d); /* (symbols counted after it are distinct ones) */
void d9_sort_sub_pool(struct d9 *d, struct sub *s, int k);
const struct schema *d9_sub_schema(struct d9 *d, const struct sub *cs, uint32_t id);
const struct pent *d9_sub_pool(struct d9 *d, const struct sub *cs, int k, uint32_t id, uint64_t at);
uint32_t d9_pool_add(struct d9 *d, int k, uint32_t id, uint32_t val, uint64_t off);
uint32_t d9_fixed_lane(struct d9 *d, uint32_t *slot, uint64_t key, const char *name);
uint32_t d9_worker_lane(struct d9 *d, uint64_t w);
void d9_pend_flush(struct d9 *d, size_t n);
void d9_pend_add(struct d9 *d, const struct event *e, uint32_t tid, uint32_t thread_name);
void d9_learn_tid(struct d9 *d, uint64_t tid, uint64_t worker);

/* frames.c: feed: frames checked, events emitted, the rare events read at feed time */
size_t d9_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final);

/* values.c: the event walker: fields decoded lazily (values, pools, stacks, symbols), summaries */
bool d9_walk_event(struct walk *w, const struct schema *s, const uint8_t *p, const uint8_t *e);
void d9_capture_put(struct fsink *s, const struct field *f);
bool d9_wall_clock(struct d9 *d, int64_t ts, struct buf *b);
void d9_fields(void *st, const struct event *e, struct fsink *out);
void d9_settle(void *st);
void d9_summary(void *st, const struct event *e, struct buf *b);
void d9_summary_fields(void *st, const struct event *e, struct buf *summary, struct buf *fields);

/* saved.c: the saved index: an input's state kept and read back */
void d9_save(void *st, struct buf *out);
bool d9_restore(void *st, struct blob *r);
bool d9_resumable(void *st);

/* info.c: --info: frames, schemas, annotations, clocks and segments */
void d9_info(struct source *src, struct fsink *out);

static inline void emit(struct d9 *d, struct event *e) { dec_emit(d->in, e); }

static inline uint32_t ld24le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

/* Unsigned LEB128: at most 10 bytes, value <= 2^64-1. */
static inline int varint(const uint8_t **pp, const uint8_t *e, uint64_t *v)
{
	const uint8_t *p = *pp;
	if (LIKELY(p < e && *p < 0x80)) {
		*v = *p;
		*pp = p + 1;
		return V_OK;
	}
	uint64_t x = 0;
	for (unsigned i = 0; i < 10; i++) {
		if (p + i >= e)
			return V_TORN;
		uint8_t b = p[i];
		if (i == 9 && b > 1)
			return V_BAD;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			*pp = p + i + 1;
			return V_OK;
		}
	}
	return V_BAD;
}

static inline size_t left(const uint8_t *p, const uint8_t *e) { return (size_t)(e - p); }

static inline bool valid_tag(uint8_t t) { return (t & 0x7f) >= 1 && (t & 0x7f) <= FT_LAST; }

/* A schema frame's body from its name on (name, has_ts, field count, each
 * field's name and type), checked against e: V_OK, *end after its last
 * field; V_TORN, it runs past e; V_BADTAG, *end at the type of field
 * *field, one no writer uses. */
static inline int schema_body(const uint8_t *p, const uint8_t *e, const uint8_t **end, unsigned *field)
{
	if (left(p, e) < 2 || left(p + 2, e) < ld16le(p) + 3u)
		return V_TORN;
	p += 2 + ld16le(p) + 1;
	uint16_t nf = ld16le(p);
	p += 2;
	for (unsigned i = 0; i < nf; i++) {
		if (left(p, e) < 2 || left(p + 2, e) < ld16le(p) + 1u)
			return V_TORN;
		p += 2 + ld16le(p);
		*end = p;
		*field = i;
		if (!valid_tag(*p++))
			return V_BADTAG;
	}
	*end = p;
	return V_OK;
}

static inline uint32_t ids_get(const struct ids *t, uint32_t id)
{
	if (LIKELY(id < t->hi))
		return t->v[id];
	uint64_t v;
	return id >= DENSE_IDS && t->big.n && hmap_get(&t->big, id, &v) ? (uint32_t)v : 0;
}

static inline struct slot *cur_slot(const struct d9 *d, uint32_t id)
{
	struct slot *pg = d->page[id >> 8];
	return pg && pg[id & 255].s ? &pg[id & 255] : NULL;
}

static inline struct schema *cur_schema(const struct d9 *d, uint32_t id)
{
	struct slot *pg = d->page[id >> 8];
	return pg ? pg[id & 255].s : NULL;
}

#endif
