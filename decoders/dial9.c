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
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "decoders/decoder.h"
#include "src/hmap.h"

extern const struct decoder dial9_decoder;

/* Frame tags (notes §1). */
enum {
	TAG_SCHEMA = 1, TAG_EVENT = 2, TAG_STRPOOL = 3, TAG_STKPOOL = 4, TAG_RESET = 5, TAG_ANNOT = 6,
	TAG_HEADER = 0x54 /* the T of a TRC header */
};
enum { FR_HEADER, FR_SCHEMA, FR_EVENT, FR_STRPOOL, FR_STKPOOL, FR_RESET, FR_ANNOT, FR_KINDS };
static const char *const frame_names[FR_KINDS] = {"header",    "schema",          "event",
						  "string_pool", "stack_pool", "timestamp_reset",
						  "schema_annotations"};

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
	K_OTHER, K_POLL_START, K_POLL_END, K_WAKE, K_CPU, K_SPAN_ENTER, K_SPAN_EXIT,
	K_SYMBOL, K_CALLFRAME, K_METADATA, K_CLOCK, /* read at feed time (from K_SYMBOL on) */
};

static const struct known {
	const char *name;
	enum kind kind;
	const char *category;
	const char *name_field; /* the principal string: the event's name in the model */
} known[] = {
	{"PollStartEvent", K_POLL_START, "poll", "spawn_loc"},
	{"PollEndEvent", K_POLL_END, "poll", NULL},
	{"WorkerParkEvent", K_OTHER, "worker", NULL},
	{"WorkerUnparkEvent", K_OTHER, "worker", NULL},
	{"WakeEventEvent", K_WAKE, "task", NULL},
	{"QueueSampleEvent", K_OTHER, "runtime", NULL},
	{"TaskSpawnEvent", K_OTHER, "task", "spawn_loc"},
	{"TaskTerminateEvent", K_OTHER, "task", NULL},
	{"TaskDumpEvent", K_OTHER, "task", NULL},
	{"CpuSampleEvent", K_CPU, "cpu", "thread_name"},
	{"SpanCloseEvent", K_OTHER, "span", NULL},
	{"SymbolTableEntry", K_SYMBOL, "meta", "symbol_name"},
	{"CallframeDefEvent", K_CALLFRAME, "meta", "symbol"},
	{"SegmentMetadataEvent", K_METADATA, "meta", NULL},
	{"ClockSyncEvent", K_CLOCK, "clock", NULL},
	{"ProcessResourceUsageEvent", K_OTHER, "process", NULL},
	{"TcpAcceptQueueEvent", K_OTHER, "net", "local_addr"},
	{"AllocEvent", K_OTHER, "memory", NULL},
	{"FreeEvent", K_OTHER, "memory", NULL},
	{"MemoryProfileOverflowEvent", K_OTHER, "memory", NULL},
};

#define SPAN_ENTER "SpanEnter:"
#define SPAN_EXIT "SpanExit:"

/* ---- schemas -------------------------------------------------------------- */

/* The event loop walks a schema as a list of ops: runs of fixed-size fields
 * merged into one skip, the fields the model needs (worker, thread, name)
 * and the variable-size ones kept apart. */
enum opcode { OP_FIXED, OP_VARINT, OP_U8, OP_U16, OP_U32, OP_STR, OP_PSTR, OP_PSTACK, OP_STACK, OP_MAP, OP_DYN };
enum { R_NONE, R_WORKER, R_TID, R_NAME };

struct op {
	uint8_t code, opt, role, tag; /* tag: the field type (for OP_DYN) */
	uint32_t n;                    /* OP_FIXED: bytes */
};

struct dfield {
	char *name;
	uint8_t tag;      /* field type without the optional bit */
	bool opt;
	const char *unit; /* annotation or name suffix; NULL when none */
};

struct schema {
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
};

/* ---- per sub-stream tables (kept for lazy decoding) ------------------------ */

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

	/* lanes */
	uint32_t wlane[256]; /* worker id -> lane + 1 */
	struct hmap tlane;   /* tid -> lane << 1 | named */
	struct hmap tid_worker;
	struct hmap pend_head; /* tid -> index + 1 of its last waiting event */
	uint32_t runtime_lane, meta_lane, other_lane; /* + 1 */
	struct pend *pend;
	size_t npend, cappend;

	struct sym *syms;
	size_t nsyms, capsyms, syms_sorted;
	struct clock *clocks;
	size_t nclocks, capclocks, clocks_sorted;

	/* findings for info */
	uint64_t frames[FR_KINDS], no_ts, back_steps, unres_str, unres_stk, schema_repeats,
		annot_skipped, nested_opt, mapped_samples;
	int64_t min_ts; /* the earliest timeline event (for the wall-clock start) */
	bool have_min;
	struct buf tmp;
};

/* A directory source: which segments it holds. */
struct seg {
	char *sub, *stem; /* boot-id subdirectory ("" when none) and file stem ("trace") */
	uint64_t n;
	int rank; /* .bin 0, .bin.gz 1, .bin.active 2: the one to read when several exist */
	char *path;
	struct input *in; /* the input reading it (NULL: it could not be opened) */
};

struct d9dir {
	uint32_t magic; /* D9_DIR */
	char *path;
	struct seg *segs; /* the segments added so far */
	size_t nsegs, capsegs;
};

/* ---- small helpers -------------------------------------------------------- */

static inline uint32_t ld24le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

enum { V_OK = 0, V_TORN, V_BAD, V_BADTAG, V_DEEP }; /* V_BAD: a varint over 10 bytes or 2^64 */

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

static size_t left(const uint8_t *p, const uint8_t *e) { return (size_t)(e - p); }

static bool valid_tag(uint8_t t) { return (t & 0x7f) >= 1 && (t & 0x7f) <= FT_LAST; }

static bool is_uint_type(uint8_t t) { return t == FT_VARINT || t == FT_U8 || t == FT_U16 || t == FT_U32; }

static const char *unit_static(const uint8_t *p, size_t n)
{
	static const char *const units[] = {"ns", "us", "ms", "s", "bytes"};
	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (strlen(units[i]) == n && !memcmp(units[i], p, n))
			return units[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static void ids_put(struct ids *t, uint32_t id, uint32_t val)
{
	if (id >= DENSE_IDS) {
		hmap_put(&t->big, id, val);
		return;
	}
	if (id >= t->cap) {
		size_t c = t->cap ? t->cap : 256;
		while (c <= id)
			c *= 2;
		t->v = xrealloc(t->v, c * sizeof *t->v);
		memset(t->v + t->cap, 0, (c - t->cap) * sizeof *t->v);
		t->cap = c;
	}
	t->v[id] = val;
	if (id >= t->hi)
		t->hi = id + 1;
}

static inline uint32_t ids_get(const struct ids *t, uint32_t id)
{
	if (LIKELY(id < t->hi))
		return t->v[id];
	uint64_t v;
	return id >= DENSE_IDS && t->big.n && hmap_get(&t->big, id, &v) ? (uint32_t)v : 0;
}

/* ---- schemas: parse, share, annotate -------------------------------------- */

static const struct known *known_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(known); i++)
		if (!strcmp(known[i].name, name))
			return &known[i];
	return NULL;
}

static int field_index(const struct schema *s, const char *name)
{
	for (int i = 0; i < s->nfields; i++)
		if (!strcmp(s->f[i].name, name))
			return i;
	return -1;
}

static uint32_t mtype(struct d9 *d, const char *name, const char *cat, const char *name_field, enum ev_role role,
		      uint32_t pair)
{
	struct model *m = d->m;
	return model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
					   .category = model_str(m, cat, strlen(cat)),
					   .name_field = name_field ? model_str(m, name_field, strlen(name_field)) : 0,
					   .pair = pair,
					   .role = (uint8_t)role,
					   .owner = &dial9_decoder});
}

/* The model type, role and lanes of a schema, from its name and fields. */
static void schema_classify(struct d9 *d, struct schema *s, int *name_idx)
{
	const struct known *k = known_of(s->name);
	const char *cat = k ? k->category : "user", *nf = k ? k->name_field : NULL;
	s->kind = k ? k->kind : K_OTHER;
	if (!strncmp(s->name, SPAN_ENTER, strlen(SPAN_ENTER)))
		s->kind = K_SPAN_ENTER, cat = "span", nf = "span_name";
	else if (!strncmp(s->name, SPAN_EXIT, strlen(SPAN_EXIT)))
		s->kind = K_SPAN_EXIT, cat = "span", nf = "span_name";
	*name_idx = -1;
	if (nf) {
		*name_idx = field_index(s, nf);
	} else if (!k) { /* a user event: its first string names it */
		for (int i = 0; i < s->nfields && *name_idx < 0; i++)
			if (s->f[i].tag == FT_STRING || s->f[i].tag == FT_PSTR)
				*name_idx = i;
	}
	if (*name_idx >= 0 && s->f[*name_idx].tag != FT_STRING && s->f[*name_idx].tag != FT_PSTR)
		*name_idx = -1;
	nf = *name_idx >= 0 ? s->f[*name_idx].name : NULL;

	enum ev_role role = ROLE_INSTANT;
	uint32_t pair = 0;
	if (s->kind == K_POLL_START) {
		role = ROLE_BEGIN;
		pair = mtype(d, "PollEndEvent", "poll", NULL, ROLE_END, 0);
	} else if (s->kind == K_POLL_END) {
		role = ROLE_END;
		nf = NULL; /* no name: the worker's stack pairs it with the open poll */
		*name_idx = -1;
	} else if (s->kind == K_SPAN_ENTER) {
		role = ROLE_BEGIN;
		d->tmp.len = 0;
		buf_printf(&d->tmp, "%s%s", SPAN_EXIT, s->name + strlen(SPAN_ENTER));
		pair = mtype(d, d->tmp.p, "span", nf, ROLE_END, 0);
	} else if (s->kind == K_SPAN_EXIT) {
		role = ROLE_END;
	}
	s->type = mtype(d, s->name, cat, nf, role, pair);
	s->flags = (uint32_t)role;
	if (s->kind == K_SYMBOL || s->kind == K_CALLFRAME || s->kind == K_METADATA)
		s->flags |= EVF_META;
}

static void schema_compile(struct schema *s, int name_idx)
{
	const char *wname = s->kind == K_WAKE ? "target_worker" : "worker_id";
	s->ops = xcalloc(s->nfields + 1u, sizeof *s->ops);
	s->nops = 0;
	for (int i = 0; i < s->nfields; i++) {
		const struct dfield *f = &s->f[i];
		uint8_t role = R_NONE;
		if (i == name_idx)
			role = R_NAME;
		else if (is_uint_type(f->tag) && !strcmp(f->name, wname))
			role = R_WORKER;
		else if (is_uint_type(f->tag) && !strcmp(f->name, "tid"))
			role = R_TID;
		static const uint8_t fixed[] = {[FT_I64] = 8, [FT_F64] = 8, [FT_BOOL] = 1, [FT_U8] = 1,
						[FT_U16] = 2, [FT_U32] = 4};
		uint8_t size = f->tag < ARRAY_LEN(fixed) ? fixed[f->tag] : 0;
		if (size && !role && !f->opt) {
			struct op *prev = s->nops ? &s->ops[s->nops - 1] : NULL;
			if (prev && prev->code == OP_FIXED)
				prev->n += size;
			else
				s->ops[s->nops++] = (struct op){.code = OP_FIXED, .n = size};
			continue;
		}
		struct op o = {.opt = f->opt, .role = role, .tag = f->tag};
		switch (f->tag) {
		case FT_VARINT: o.code = OP_VARINT; break;
		case FT_U8: o.code = OP_U8; break;
		case FT_U16: o.code = OP_U16; break;
		case FT_U32: o.code = OP_U32; break;
		case FT_STRING:
		case FT_BYTES: o.code = OP_STR; break;
		case FT_PSTR: o.code = OP_PSTR; break;
		case FT_PSTACK: o.code = OP_PSTACK; break;
		case FT_STACK: o.code = OP_STACK; break;
		case FT_MAP: o.code = OP_MAP; break;
		case FT_DLIST:
		case FT_DMAP: o.code = OP_DYN; break;
		default: o.code = OP_FIXED, o.n = size; o.role = R_NONE; break;
		}
		s->ops[s->nops++] = o;
	}
}

/* Build a schema from its identity: the validated schema frame body (from
 * name_len on), then annotation entries (u16 field, u16 klen, key, u32 vlen, value). */
static struct schema *schema_build(struct d9 *d, const uint8_t *key, uint32_t nkey, uint32_t nraw, uint64_t hash)
{
	struct schema *s = xcalloc(1, sizeof *s);
	s->key = xmalloc(nkey ? nkey : 1);
	memcpy(s->key, key, nkey);
	s->nkey = nkey;
	s->nraw = nraw;
	s->hash = hash;
	const uint8_t *p = s->key;
	uint16_t nl = ld16le(p);
	s->name = xstrndup((const char *)p + 2, nl);
	p += 2 + nl;
	s->has_ts = *p++ != 0;
	s->nfields = ld16le(p);
	p += 2;
	s->f = xcalloc(s->nfields + 1u, sizeof *s->f);
	for (unsigned i = 0; i < s->nfields; i++) {
		uint16_t fl = ld16le(p);
		s->f[i].name = xstrndup((const char *)p + 2, fl);
		p += 2 + fl;
		s->f[i].tag = *p & 0x7f;
		s->f[i].opt = (*p & FT_OPT) != 0;
		p++;
		/* durations by their names; points in time (realtime_ns, alloc_timestamp_ns) are not */
		const char *fn = s->f[i].name;
		if (ends_with(fn, "_ns") && !ends_with(fn, "timestamp_ns") && strcmp(fn, "realtime_ns"))
			s->f[i].unit = "ns";
		else if (ends_with(fn, "_bytes"))
			s->f[i].unit = "bytes";
	}
	/* annotations, in order: later ones win */
	const uint8_t *e = s->key + nkey;
	while (p < e) {
		uint16_t fi = ld16le(p), kl = ld16le(p + 2);
		const uint8_t *k = p + 4;
		uint32_t vl = ld32le(k + kl);
		const uint8_t *v = k + kl + 4;
		p = v + vl;
		bool unit_key = (kl == 4 && !memcmp(k, "unit", 4)) || (kl == 13 && !memcmp(k, "metrique.unit", 13));
		const char *u = unit_key ? unit_static(v, vl) : NULL;
		if (u && fi < s->nfields)
			s->f[fi].unit = u; /* other keys are only listed by info() */
	}
	int name_idx;
	schema_classify(d, s, &name_idx);
	schema_compile(s, name_idx);
	return s;
}

static void schema_free(struct schema *s)
{
	for (unsigned i = 0; i < s->nfields; i++)
		free(s->f[i].name);
	free(s->f);
	free(s->ops);
	free(s->name);
	free(s->key);
	free(s);
}

/* The shared schema with this identity (made on first sight); its index. */
static uint32_t schema_get(struct d9 *d, const uint8_t *key, uint32_t nkey, uint32_t nraw)
{
	uint64_t hash = hash_bytes(key, nkey) ^ nraw, h = hash, idx;
	while (hmap_get(&d->sch_by_hash, h, &idx)) {
		const struct schema *s = d->sch[idx];
		if (s->nkey == nkey && s->nraw == nraw && !memcmp(s->key, key, nkey))
			return (uint32_t)idx;
		h++;
	}
	xgrow(&d->sch, &d->capsch, d->nsch + 1, sizeof *d->sch);
	d->sch[d->nsch] = schema_build(d, key, nkey, nraw, hash);
	hmap_put(&d->sch_by_hash, h, d->nsch);
	return (uint32_t)d->nsch++;
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

/* ---- sub-streams ---------------------------------------------------------- */

/* A header: forget the current sub-stream's types and pool ids (in time
 * proportional to what it defined) and start a new one. */
static void sub_begin(struct d9 *d, uint64_t off)
{
	if (d->nsubs) {
		const struct sub *s = &d->subs[d->nsubs - 1];
		for (size_t i = s->t0; i < d->ntents; i++)
			d->page[d->tents[i].id >> 8][d->tents[i].id & 255].s = NULL;
		for (int k = 0; k < 2; k++)
			for (size_t i = s->p0[k]; i < d->npool[k]; i++)
				ids_put(&d->cur[k], d->pools[k][i].id, 0);
	}
	d->base = 0;
	d->frames[FR_HEADER]++;
	struct sub *last = d->nsubs ? &d->subs[d->nsubs - 1] : NULL;
	if (last && last->t0 == d->ntents && last->p0[0] == d->npool[0] && last->p0[1] == d->npool[1]) {
		last->off = off; /* it defined nothing, so no event is in it: reuse its record */
		return;
	}
	xgrow(&d->subs, &d->capsubs, d->nsubs + 1, sizeof *d->subs);
	d->subs[d->nsubs++] = (struct sub){.off = off,
					   .t0 = (uint32_t)d->ntents,
					   .tsorted = 0,
					   .p0 = {(uint32_t)d->npool[0], (uint32_t)d->npool[1]}};
}

static size_t sub_end_t(const struct d9 *d, size_t i) { return i + 1 < d->nsubs ? d->subs[i + 1].t0 : d->ntents; }
static size_t sub_end_p(const struct d9 *d, size_t i, int k)
{
	return i + 1 < d->nsubs ? d->subs[i + 1].p0[k] : d->npool[k];
}

static const struct sub *sub_of(const struct d9 *d, uint64_t off)
{
	size_t lo = 0, hi = d->nsubs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->subs[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &d->subs[lo - 1] : NULL;
}

static int by_tent(const void *a, const void *b)
{
	const struct tent *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_pent(const void *a, const void *b)
{
	const struct pent *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sub-stream s's schema and pool tables are sorted on first use after they
 * grew (d9_settle sorts them all). */
static void sort_sub_schemas(struct d9 *d, struct sub *s)
{
	size_t n = sub_end_t(d, (size_t)(s - d->subs)) - s->t0;
	if (s->tsorted != n) {
		qsort(d->tents + s->t0, n, sizeof *d->tents, by_tent);
		s->tsorted = (uint32_t)n;
	}
}

static void sort_sub_pool(struct d9 *d, struct sub *s, int k)
{
	size_t n = sub_end_p(d, (size_t)(s - d->subs), k) - s->p0[k];
	if (s->psorted[k] != n) {
		qsort(d->pools[k] + s->p0[k], n, sizeof *d->pools[k], by_pent);
		s->psorted[k] = (uint32_t)n;
	}
}

/* The schema of type id in sub-stream s. */
static const struct schema *sub_schema(struct d9 *d, const struct sub *cs, uint32_t id)
{
	struct sub *s = &d->subs[cs - d->subs];
	sort_sub_schemas(d, s);
	size_t lo = s->t0, end = sub_end_t(d, (size_t)(s - d->subs)), hi = end;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->tents[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && d->tents[lo].id == id ? d->sch[d->tents[lo].schema] : NULL;
}

/* The last definition of a pool id in sub-stream s before offset `at`. */
static const struct pent *sub_pool(struct d9 *d, const struct sub *cs, int k, uint32_t id, uint64_t at)
{
	struct sub *s = &d->subs[cs - d->subs];
	sort_sub_pool(d, s, k);
	size_t lo = s->p0[k], end = sub_end_p(d, (size_t)(s - d->subs), k), hi = end;
	const struct pent *v = d->pools[k];
	while (lo < hi) { /* first entry > (id, at) */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].id < id || (v[mid].id == id && v[mid].off < at))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > s->p0[k] && v[lo - 1].id == id ? &v[lo - 1] : NULL;
}

static uint32_t pool_add(struct d9 *d, int k, uint32_t id, uint32_t val, uint64_t off)
{
	xgrow(&d->pools[k], &d->cappool[k], d->npool[k] + 1, sizeof *d->pools[k]);
	d->pools[k][d->npool[k]] = (struct pent){id, val, off};
	ids_put(&d->cur[k], id, (uint32_t)++d->npool[k]);
	return (uint32_t)d->npool[k];
}

/* ---- lanes ---------------------------------------------------------------- */

enum { LK_THREAD = 1, LK_RUNTIME, LK_META, LK_OTHER };
#define LKEY(kind, v) ((uint64_t)(kind) << 32 | (uint64_t)(v))

static uint32_t fixed_lane(struct d9 *d, uint32_t *slot, uint64_t key, const char *name)
{
	if (!*slot)
		*slot = dec_lane(d->in, key, name) + 1;
	return *slot - 1;
}

static uint32_t worker_lane(struct d9 *d, uint64_t w)
{
	if (w == WORKER_NONE || w > 0xffffffffu)
		return fixed_lane(d, &d->other_lane, LKEY(LK_OTHER, 0), "not a worker");
	if (w < 256 && d->wlane[w])
		return d->wlane[w] - 1;
	char name[32];
	if (w == WORKER_BLOCKING)
		snprintf(name, sizeof name, "blocking");
	else
		snprintf(name, sizeof name, "worker %llu", (unsigned long long)w);
	uint32_t lane = dec_lane(d->in, w, name);
	if (w < 256)
		d->wlane[w] = lane + 1;
	return lane;
}

/* A thread that is not (known as) a worker: "thread 46021 (name)". */
static uint32_t thread_lane(struct d9 *d, uint64_t tid, uint32_t name)
{
	uint64_t v;
	bool have = hmap_get(&d->tlane, tid, &v);
	if (have && ((v & 1) || !name))
		return (uint32_t)(v >> 1);
	d->tmp.len = 0;
	buf_printf(&d->tmp, "thread %llu", (unsigned long long)tid);
	if (name) {
		size_t n;
		const char *s = model_strget(d->m, name, &n);
		buf_adds(&d->tmp, " (");
		buf_add(&d->tmp, s, n);
		buf_addc(&d->tmp, ')');
	}
	uint32_t sid = model_str(d->m, d->tmp.p, d->tmp.len), lane;
	if (have) {
		lane = (uint32_t)(v >> 1);
		model_lane_rename(d->m, lane, sid);
	} else {
		lane = dec_lane_sid(dec_source(d->in), LKEY(LK_THREAD, tid & 0xffffffffu), sid);
	}
	hmap_put(&d->tlane, tid, (uint64_t)lane << 1 | (name != 0));
	return lane;
}

static void emit(struct d9 *d, struct event *e) { dec_emit(d->in, e); }

/* Events of a thread not yet known as a worker wait here (a worker's
 * WorkerPark events carry its tid, often later in the file than CPU
 * samples of that thread); they go out when the thread is known, at the
 * end of the data, or when too many wait.  Each thread's waiting events are
 * chained (pend_head: tid -> last index + 1), so knowing a thread costs only
 * its own events. */
static void pend_release(struct d9 *d, struct pend *p)
{
	if (p->dead)
		return;
	p->dead = true;
	struct event e = p->e;
	uint64_t w;
	if (hmap_get(&d->tid_worker, p->tid, &w)) {
		e.lane = worker_lane(d, w);
		d->mapped_samples++;
	} else {
		e.lane = thread_lane(d, p->tid, p->thread_name);
	}
	emit(d, &e);
}

/* Release the oldest n (all when n >= npend), then drop the released. */
static void pend_flush(struct d9 *d, size_t n)
{
	n = MIN(n, d->npend);
	for (size_t i = 0; i < n; i++)
		pend_release(d, &d->pend[i]);
	size_t k = 0;
	hmap_clear(&d->pend_head);
	for (size_t i = n; i < d->npend; i++) {
		if (d->pend[i].dead)
			continue;
		uint64_t *head = hmap_ref(&d->pend_head, d->pend[i].tid);
		d->pend[k] = d->pend[i];
		d->pend[k].prev = (uint32_t)*head;
		*head = ++k;
	}
	d->npend = k;
}

static void pend_add(struct d9 *d, const struct event *e, uint32_t tid, uint32_t thread_name)
{
	if (d->npend == PENDING_MAX)
		pend_flush(d, PENDING_MAX / 2);
	xgrow(&d->pend, &d->cappend, d->npend + 1, sizeof *d->pend);
	uint64_t *head = hmap_ref(&d->pend_head, tid);
	d->pend[d->npend] = (struct pend){*e, tid, thread_name, (uint32_t)*head, false};
	*head = ++d->npend;
}

/* tid runs worker `worker` (from an event that carries both). */
static void learn_tid(struct d9 *d, uint64_t tid, uint64_t worker)
{
	uint64_t old, head;
	bool known = hmap_get(&d->tid_worker, tid, &old);
	if (known && old == worker)
		return;
	hmap_put(&d->tid_worker, tid, worker); /* block_in_place moves a worker to another thread */
	if (tid > UINT32_MAX || !hmap_get(&d->pend_head, tid, &head) || !head)
		return;
	for (uint64_t i = head; i; i = d->pend[i - 1].prev)
		pend_release(d, &d->pend[i - 1]);
	hmap_put(&d->pend_head, tid, 0);
}

/* ---- the event walker (lazy decoding, and the rare events at feed time) ---- */

struct walk {
	struct d9 *d;
	const struct sub *sub; /* NULL: the current tables (at feed time) */
	uint64_t at;           /* the event's offset: pool entries defined before it count */
	struct fsink *out;
	bool compact; /* one-line summary: stacks as depth and leaf */
	struct buf key, val;
	uint32_t unresolved;
};

static bool walk_str_id(struct walk *w, uint32_t id, uint32_t *sid)
{
	if (!w->sub) {
		uint32_t v = ids_get(&w->d->cur[POOL_STR], id);
		if (v)
			*sid = w->d->pools[POOL_STR][v - 1].val;
		return v != 0;
	}
	const struct pent *p = sub_pool(w->d, w->sub, POOL_STR, id, w->at);
	if (p)
		*sid = p->val;
	return p != NULL;
}

static void put_pooled_str(struct walk *w, const char *name, uint32_t id)
{
	uint32_t sid;
	if (walk_str_id(w, id, &sid)) {
		size_t n;
		const char *s = model_strget(w->d->m, sid, &n);
		f_str(w->out, name, s, n);
		return;
	}
	w->unresolved++;
	char t[48];
	snprintf(t, sizeof t, "<string %u?>", id);
	f_put(w->out, &(struct field){.name = name, .kind = FK_STR, .v.s = {t, strlen(t)},
				      .meaning = "unresolved string pool id"});
}


static int by_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static void sort_syms(struct d9 *d)
{
	if (d->syms_sorted != d->nsyms) {
		qsort(d->syms, d->nsyms, sizeof *d->syms, by_sym);
		d->syms_sorted = d->nsyms;
	}
}

static const struct sym *sym_find(struct d9 *d, uint64_t addr, size_t *count)
{
	if (!d->nsyms)
		return NULL;
	sort_syms(d);
	size_t lo = 0, hi = d->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo;
	while (k < d->nsyms && d->syms[k].addr == addr)
		k++;
	*count = k - lo;
	return k > lo ? &d->syms[lo] : NULL;
}

/* One symbol of an address: "0xADDR name (file:line)", " [inlined]" for
 * the functions inlined into the outermost one (inline depth > 0). */
static void sym_text(struct d9 *d, uint64_t addr, const struct sym *s, bool inlined, bool brief, struct buf *b)
{
	size_t len;
	const char *str = model_strget(d->m, s->name, &len);
	buf_printf(b, "0x%llx ", (unsigned long long)addr);
	buf_add(b, str, len);
	if (brief)
		return;
	if (s->file) {
		str = model_strget(d->m, s->file, &len);
		buf_adds(b, " (");
		buf_add(b, str, len);
		if (s->line)
			buf_printf(b, ":%u", s->line);
		buf_addc(b, ')');
	}
	if (inlined)
		buf_adds(b, " [inlined]");
}

/* A call chain of `count` leaf-first addresses at p: one frame per function,
 * inlined ones included (innermost first), as profilers show them;
 * addresses without a symbol in hex. */
static void put_stack(struct walk *w, const char *name, const uint8_t *p, uint32_t count)
{
	struct d9 *d = w->d;
	size_t n;
	const struct sym *s;
	if (w->compact) {
		buf_reset(&w->val);
		buf_printf(&w->val, "%u frames", count);
		if (count) {
			buf_adds(&w->val, ", leaf ");
			if ((s = sym_find(d, ld64le(p), &n)))
				sym_text(d, ld64le(p), &s[n - 1], false, true, &w->val);
			else
				buf_printf(&w->val, "0x%llx", (unsigned long long)ld64le(p));
		}
		f_str(w->out, name, w->val.p, w->val.len);
		return;
	}
	f_arr(w->out, name);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t a = ld64le(p + 8 * (size_t)i);
		if (!(s = sym_find(d, a, &n))) {
			f_hex(w->out, NULL, a);
			continue;
		}
		for (size_t k = MIN(n, MAX_INLINE); k-- > 0;) {
			buf_reset(&w->val);
			sym_text(d, a, &s[k], k > 0, false, &w->val);
			f_str(w->out, NULL, w->val.p, w->val.len);
		}
	}
	f_end(w->out);
}

static void put_pooled_stack(struct walk *w, const char *name, uint32_t id)
{
	const struct pent *pe = NULL;
	if (w->sub) {
		pe = sub_pool(w->d, w->sub, POOL_STK, id, w->at);
	} else {
		uint32_t v = ids_get(&w->d->cur[POOL_STK], id);
		pe = v ? &w->d->pools[POOL_STK][v - 1] : NULL;
	}
	uint64_t avail = 0;
	const uint8_t *p = pe ? input_bytes(w->d->in, pe->off, &avail) : NULL;
	if (!p || avail / 8 < pe->val) {
		w->unresolved++;
		char t[48];
		snprintf(t, sizeof t, "<stack %u?>", id);
		f_put(w->out, &(struct field){.name = name, .kind = FK_STR, .v.s = {t, strlen(t)},
					      .meaning = "unresolved stack pool id"});
		return;
	}
	put_stack(w, name, p, pe->val);
}

/* Addresses read better in hex: addr, address, *_addr. */
static bool is_addr_name(const char *name)
{
	return !strcmp(name, "addr") || !strcmp(name, "address") || ends_with(name, "_addr");
}

/* Unix epoch nanoseconds as "2026-06-22T16:36:15.256522678Z"; false when
 * out of the years 0..9999. */
static bool utc_text(uint64_t epoch_ns, char *out, size_t n)
{
	int64_t wall = (int64_t)epoch_ns, sec = wall / 1000000000, ns = wall % 1000000000;
	if (ns < 0)
		ns += 1000000000, sec--;
	time_t t = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 0)
		return false;
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (long long)ns);
	return true;
}

/* What a number means, for the fields a tokio user reads (tmp: room for text). */
static const char *int_meaning(const struct schema *s, const char *name, uint64_t v, char *tmp, size_t n)
{
	if (!strcmp(name, "realtime_ns") && utc_text(v, tmp, n))
		return tmp;
	if (!strcmp(name, "worker_id") || (s->kind == K_WAKE && !strcmp(name, "target_worker")))
		return v == WORKER_NONE ? (s->kind == K_WAKE ? "unknown" : "not a worker")
		       : v == WORKER_BLOCKING ? "blocking pool" : NULL;
	if (s->kind == K_CPU && !strcmp(name, "source"))
		return v == 0 ? "CPU profile sample" : v == 1 ? "scheduler context switch" : NULL;
	if (s->kind == K_WAKE && !strcmp(name, "waker_task_id") && v == 0)
		return "not inside a task";
	return NULL;
}

static bool walk_value(struct walk *w, const struct schema *s, const char *name, uint8_t tag, const char *unit,
		       const uint8_t **pp, const uint8_t *e, unsigned depth);

/* A key of a DynamicMap, as a field name. */
static const char *dyn_key(struct walk *w, uint8_t tag, const uint8_t **pp, const uint8_t *e)
{
	const uint8_t *p = *pp;
	buf_reset(&w->key);
	uint64_t v;
	if (tag & FT_OPT) { /* never written; read a presence byte as at top level */
		if (left(p, e) < 1)
			return NULL;
		if (!*p++) {
			*pp = p;
			return "null";
		}
	}
	switch (tag & 0x7f) {
	case FT_STRING:
	case FT_BYTES:
		if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
			return NULL;
		buf_add(&w->key, p + 4, ld32le(p));
		p += 4 + ld32le(p);
		break;
	case FT_PSTR: {
		uint32_t sid;
		if (left(p, e) < 4)
			return NULL;
		if (walk_str_id(w, ld32le(p), &sid)) {
			size_t n;
			const char *s = model_strget(w->d->m, sid, &n);
			buf_add(&w->key, s, n);
		} else {
			buf_printf(&w->key, "<string %u?>", ld32le(p));
			w->unresolved++;
		}
		p += 4;
		break;
	}
	case FT_VARINT:
		if (varint(&p, e, &v) != V_OK)
			return NULL;
		buf_printf(&w->key, "%llu", (unsigned long long)v);
		break;
	case FT_U8: if (left(p, e) < 1) return NULL; buf_printf(&w->key, "%u", p[0]); p += 1; break;
	case FT_U16: if (left(p, e) < 2) return NULL; buf_printf(&w->key, "%u", ld16le(p)); p += 2; break;
	case FT_U32: if (left(p, e) < 4) return NULL; buf_printf(&w->key, "%u", ld32le(p)); p += 4; break;
	case FT_I64: if (left(p, e) < 8) return NULL; buf_printf(&w->key, "%lld", (long long)ld64le(p)); p += 8; break;
	case FT_BOOL: if (left(p, e) < 1) return NULL; buf_adds(&w->key, p[0] ? "true" : "false"); p += 1; break;
	default: return NULL; /* keys of other types are shown by position */
	}
	*pp = p;
	return buf_str(&w->key);
}

static bool walk_value(struct walk *w, const struct schema *s, const char *name, uint8_t tag, const char *unit,
		       const uint8_t **pp, const uint8_t *e, unsigned depth)
{
	const uint8_t *p = *pp;
	struct fsink *o = w->out;
	if (tag & FT_OPT) {
		if (left(p, e) < 1)
			return false;
		if (!*p++) {
			f_null(o, name);
			*pp = p;
			return true;
		}
		tag &= 0x7f;
	}
	uint64_t v;
	switch (tag) {
	case FT_I64:
		if (left(p, e) < 8)
			return false;
		f_put(o, &(struct field){.name = name, .kind = FK_INT, .v.i = (int64_t)ld64le(p), .unit = unit});
		p += 8;
		break;
	case FT_F64: {
		if (left(p, e) < 8)
			return false;
		uint64_t bits = ld64le(p);
		double x;
		memcpy(&x, &bits, 8);
		f_put(o, &(struct field){.name = name, .kind = FK_DOUBLE, .v.d = x, .unit = unit});
		p += 8;
		break;
	}
	case FT_BOOL:
		if (left(p, e) < 1)
			return false;
		f_bool(o, name, *p++ != 0);
		break;
	case FT_STRING:
	case FT_BYTES:
		if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
			return false;
		if (tag == FT_STRING)
			f_str(o, name, p + 4, ld32le(p));
		else
			f_bytes(o, name, p + 4, ld32le(p));
		p += 4 + (size_t)ld32le(p);
		break;
	case FT_PSTACK:
		if (left(p, e) < 4)
			return false;
		put_pooled_stack(w, name, ld32le(p));
		p += 4;
		break;
	case FT_PSTR:
		if (left(p, e) < 4)
			return false;
		put_pooled_str(w, name, ld32le(p));
		p += 4;
		break;
	case FT_STACK: {
		if (left(p, e) < 4 || left(p + 4, e) / 8 < ld32le(p))
			return false;
		uint32_t n = ld32le(p);
		put_stack(w, name, p + 4, n);
		p += 4 + 8 * (size_t)n;
		break;
	}
	case FT_VARINT:
	case FT_U8:
	case FT_U16:
	case FT_U32:
		if (tag == FT_VARINT) {
			if (varint(&p, e, &v) != V_OK)
				return false;
		} else {
			size_t n = tag == FT_U8 ? 1 : tag == FT_U16 ? 2 : 4;
			if (left(p, e) < n)
				return false;
			v = n == 1 ? p[0] : n == 2 ? ld16le(p) : ld32le(p);
			p += n;
		}
	{
		char tmp[48];
		f_put(o, &(struct field){.name = name, .kind = name && is_addr_name(name) ? FK_HEX : FK_UINT, .v.u = v,
					 .unit = unit, .meaning = name && s ? int_meaning(s, name, v, tmp, sizeof tmp) : NULL});
	}
		break;
	case FT_MAP: {
		if (left(p, e) < 4)
			return false;
		uint32_t n = ld32le(p);
		p += 4;
		if (left(p, e) / 8 < n)
			return false;
		f_obj(o, name);
		for (uint32_t i = 0; i < n; i++) {
			if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
				return false;
			const uint8_t *k = p + 4;
			uint32_t kl = ld32le(p);
			p = k + kl;
			if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
				return false;
			buf_reset(&w->key);
			buf_add(&w->key, k, kl);
			f_str(o, buf_str(&w->key), p + 4, ld32le(p));
			p += 4 + (size_t)ld32le(p);
		}
		f_end(o);
		break;
	}
	case FT_DLIST:
	case FT_DMAP: {
		if (left(p, e) < 4 || depth >= MAX_NEST)
			return false;
		uint32_t n = ld32le(p);
		p += 4;
		if (left(p, e) / (tag == FT_DLIST ? 1 : 2) < n)
			return false;
		if (tag == FT_DLIST)
			f_arr(o, name);
		else
			f_obj(o, name);
		for (uint32_t i = 0; i < n; i++) {
			char *key = NULL; /* a DynamicMap's scalar key names its value */
			if (tag == FT_DMAP) {
				if (left(p, e) < 1 || !valid_tag(*p))
					return false;
				uint8_t kt = *p++;
				const uint8_t *kp = p;
				const char *k = dyn_key(w, kt, &p, e);
				if (k) {
					key = xstrdup(k); /* the value may reuse w->key */
				} else { /* not a scalar: {"key": ..., "value": ...} */
					p = kp;
					char pos[24];
					snprintf(pos, sizeof pos, "#%u", i);
					f_obj(o, pos);
					if (!walk_value(w, NULL, "key", kt, NULL, &p, e, depth + 1))
						return false;
				}
			}
			bool ok = left(p, e) >= 1 && valid_tag(*p);
			if (ok) {
				uint8_t vt = *p++;
				ok = walk_value(w, NULL, tag == FT_DLIST ? NULL : key ? key : "value", vt, NULL, &p, e, depth + 1);
			}
			if (tag == FT_DMAP && !key)
				f_end(o);
			free(key);
			if (!ok)
				return false;
		}
		f_end(o);
		break;
	}
	default: return false;
	}
	*pp = p;
	return true;
}

/* Walk the fields of the event frame at p (the tag byte).  False when its
 * bytes do not decode (they did at feed time: the file changed underneath). */
static bool walk_event(struct walk *w, const struct schema *s, const uint8_t *p, const uint8_t *e)
{
	p += s->has_ts ? 6 : 3;
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dfield *f = &s->f[i];
		if (!walk_value(w, s, f->name, (uint8_t)(f->tag | (f->opt ? FT_OPT : 0)), f->unit, &p, e, 0))
			return false;
	}
	return true;
}

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

static void capture_put(struct fsink *s, const struct field *f)
{
	struct capture *c = (struct capture *)s;
	if (f->kind == FK_END) {
		if (c->depth)
			c->depth--;
		return;
	}
	if (c->depth || !f->name) {
		if (f->kind == FK_OBJ || f->kind == FK_ARR)
			c->depth++;
		return;
	}
	if (f->kind == FK_OBJ || f->kind == FK_ARR) {
		c->depth++;
		return;
	}
	for (unsigned i = 0; i < c->n; i++) {
		if (strcmp(f->name, c->names[i]))
			continue;
		if (f->kind == FK_UINT || f->kind == FK_HEX || f->kind == FK_INT) {
			c->u[i] = f->v.u;
			c->have[i] = 1;
		} else if (f->kind == FK_STR && !f->meaning) {
			c->p[i] = f->v.s.p;
			c->len[i] = f->v.s.n;
			c->have[i] = 2;
		}
	}
}

/* ---- feed ----------------------------------------------------------------- */

#define FRAME_TORN 0
#define FRAME_BAD SIZE_MAX

/* What the event loop extracts: the model's lane and name. */
struct evvals {
	uint64_t worker, tid;
	bool have_worker, have_tid;
	uint8_t name_kind; /* 0 none, 1 pool id, 2 inline string */
	uint32_t name_id, name_len;
	const uint8_t *name_p;
	uint32_t unres_str, unres_stk;
	bool nested_opt;
};

static void bad(struct d9 *d, uint64_t off, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void bad(struct d9 *d, uint64_t off, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	dec_fatal(d->in, off, "%s", buf_str(&b));
	buf_free(&b);
}

/* Skip a DynamicList or DynamicMap value (tag given), checking pooled ids. */
static int skip_dyn(struct d9 *d, uint8_t tag, const uint8_t **pp, const uint8_t *e, unsigned depth,
		    struct evvals *v);

static int skip_value(struct d9 *d, uint8_t tag, const uint8_t **pp, const uint8_t *e, unsigned depth,
		      struct evvals *v)
{
	const uint8_t *p = *pp;
	if (tag & FT_OPT) {
		v->nested_opt = true;
		if (p >= e)
			return V_TORN;
		if (!*p++) {
			*pp = p;
			return V_OK;
		}
		tag &= 0x7f;
	}
	uint64_t x;
	size_t n;
	switch (tag) {
	case FT_I64:
	case FT_F64: n = 8; break;
	case FT_BOOL:
	case FT_U8: n = 1; break;
	case FT_U16: n = 2; break;
	case FT_U32: n = 4; break;
	case FT_PSTR:
	case FT_PSTACK:
		if (left(p, e) < 4)
			return V_TORN;
		if (!ids_get(&d->cur[tag == FT_PSTR ? POOL_STR : POOL_STK], ld32le(p)))
			*(tag == FT_PSTR ? &v->unres_str : &v->unres_stk) += 1;
		n = 4;
		break;
	case FT_STRING:
	case FT_BYTES:
		if (left(p, e) < 4)
			return V_TORN;
		n = 4 + (size_t)ld32le(p);
		break;
	case FT_STACK:
		if (left(p, e) < 4)
			return V_TORN;
		n = 4 + 8 * (size_t)ld32le(p);
		break;
	case FT_VARINT: {
		int r = varint(&p, e, &x);
		if (r == V_OK)
			*pp = p;
		return r;
	}
	case FT_MAP: {
		if (left(p, e) < 4)
			return V_TORN;
		uint32_t cnt = ld32le(p);
		p += 4;
		for (uint32_t i = 0; i < 2 * cnt; i++) {
			if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
				return V_TORN;
			p += 4 + (size_t)ld32le(p);
		}
		*pp = p;
		return V_OK;
	}
	case FT_DLIST:
	case FT_DMAP: return skip_dyn(d, tag, pp, e, depth, v);
	default: return V_BADTAG;
	}
	if (left(p, e) < n)
		return V_TORN;
	*pp = p + n;
	return V_OK;
}

static int skip_dyn(struct d9 *d, uint8_t tag, const uint8_t **pp, const uint8_t *e, unsigned depth,
		    struct evvals *v)
{
	const uint8_t *p = *pp;
	if (depth >= MAX_NEST)
		return V_DEEP;
	if (left(p, e) < 4)
		return V_TORN;
	uint32_t n = ld32le(p);
	p += 4;
	unsigned per = tag == FT_DLIST ? 1 : 2;
	for (uint32_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < per; k++) {
			if (p >= e)
				return V_TORN;
			uint8_t t = *p++;
			if (!valid_tag(t))
				return V_BADTAG;
			int r = skip_value(d, t, &p, e, depth + 1, v);
			if (r != V_OK)
				return r;
		}
	}
	*pp = p;
	return V_OK;
}

/* Run a schema's ops over an event's values. */
static inline int run_ops(struct d9 *d, const struct schema *s, const uint8_t **qp, const uint8_t *e,
			  struct evvals *v)
{
	const uint8_t *q = *qp;
	for (const struct op *o = s->ops, *oe = s->ops + s->nops; o < oe; o++) {
		if (UNLIKELY(o->opt)) {
			if (q >= e)
				return V_TORN;
			if (!*q++)
				continue;
		}
		uint64_t x;
		switch (o->code) {
		case OP_FIXED:
			if (left(q, e) < o->n)
				return V_TORN;
			q += o->n;
			continue;
		case OP_VARINT: {
			int r = varint(&q, e, &x);
			if (r != V_OK)
				return r;
			break;
		}
		case OP_U8:
			if (q >= e)
				return V_TORN;
			x = *q++;
			break;
		case OP_U16:
			if (left(q, e) < 2)
				return V_TORN;
			x = ld16le(q);
			q += 2;
			break;
		case OP_U32:
			if (left(q, e) < 4)
				return V_TORN;
			x = ld32le(q);
			q += 4;
			break;
		case OP_PSTR:
		case OP_PSTACK: {
			if (left(q, e) < 4)
				return V_TORN;
			uint32_t id = ld32le(q);
			q += 4;
			if (o->code == OP_PSTR) {
				if (!ids_get(&d->cur[POOL_STR], id))
					v->unres_str++;
				if (o->role == R_NAME)
					v->name_kind = 1, v->name_id = id;
			} else if (!ids_get(&d->cur[POOL_STK], id)) {
				v->unres_stk++;
			}
			continue;
		}
		case OP_STR: {
			if (left(q, e) < 4)
				return V_TORN;
			uint32_t n = ld32le(q);
			if (left(q + 4, e) < n)
				return V_TORN;
			if (o->role == R_NAME && o->tag == FT_STRING)
				v->name_kind = 2, v->name_p = q + 4, v->name_len = n;
			q += 4 + (size_t)n;
			continue;
		}
		case OP_STACK: {
			if (left(q, e) < 4)
				return V_TORN;
			uint32_t n = ld32le(q);
			if (left(q + 4, e) / 8 < n)
				return V_TORN;
			q += 4 + 8 * (size_t)n;
			continue;
		}
		default: {
			int r = skip_value(d, o->tag, &q, e, 0, v);
			if (r != V_OK)
				return r;
			continue;
		}
		}
		/* an integer the model needs */
		if (o->role == R_WORKER)
			v->worker = x, v->have_worker = true;
		else if (o->role == R_TID)
			v->tid = x, v->have_tid = true;
	}
	*qp = q;
	return V_OK;
}

/* Symbols and clock syncs: read their fields now, with the current pools. */
static void note_rare(struct d9 *d, const struct schema *s, const uint8_t *f, const uint8_t *e, int64_t ts)
{
	static const char *const sym_names[] = {"addr", "symbol_name", "inline_depth", "source_file", "source_line",
						"address", "symbol"};
	static const char *const clock_names[] = {"realtime_ns"};
	struct capture c = {.s.put = capture_put};
	if (s->kind == K_CLOCK)
		c.names = clock_names, c.n = 1;
	else
		c.names = sym_names, c.n = ARRAY_LEN(sym_names);
	struct walk w = {.d = d, .out = &c.s};
	bool ok = walk_event(&w, s, f, e);
	buf_free(&w.key);
	buf_free(&w.val);
	if (!ok)
		return;
	if (s->kind == K_CLOCK) {
		if (c.have[0] == 1) {
			xgrow(&d->clocks, &d->capclocks, d->nclocks + 1, sizeof *d->clocks);
			d->clocks[d->nclocks++] = (struct clock){ts, c.u[0]};
			if (c.u[0] <= INT64_MAX)
				dec_clock_anchor(d->in, ts, (int64_t)c.u[0]);
		}
		return;
	}
	/* SymbolTableEntry (addr, symbol_name ...), or CallframeDefEvent (address, symbol) */
	int a = c.have[0] == 1 ? 0 : c.have[5] == 1 ? 5 : -1, n = c.have[1] == 2 ? 1 : c.have[6] == 2 ? 6 : -1;
	if (a < 0 || n < 0)
		return;
	xgrow(&d->syms, &d->capsyms, d->nsyms + 1, sizeof *d->syms);
	d->syms[d->nsyms++] = (struct sym){
		.addr = c.u[a],
		.name = model_str(d->m, c.p[n], c.len[n]),
		.file = c.have[3] == 2 ? model_str(d->m, c.p[3], c.len[3]) : 0,
		.line = c.have[4] == 1 ? (uint32_t)c.u[4] : 0,
		.depth = c.have[2] == 1 ? (uint32_t)c.u[2] : 0,
	};
}

static uint32_t unresolved_name(struct d9 *d, uint32_t id)
{
	char t[48];
	snprintf(t, sizeof t, "<string %u?>", id);
	return model_str(d->m, t, strlen(t));
}

static size_t event_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo)
{
	if (left(f, e) < 3)
		return FRAME_TORN;
	uint32_t id = ld16le(f + 1);
	const struct schema *s = cur_schema(d, id);
	if (UNLIKELY(!s)) {
		bad(d, fo, "unknown type_id %u (no schema for it in this sub-stream)", id);
		return FRAME_BAD;
	}
	const uint8_t *q = f + 3;
	int64_t ts;
	uint32_t flags = s->flags;
	if (LIKELY(s->has_ts)) {
		if (left(q, e) < 3)
			return FRAME_TORN;
		uint64_t delta = ld24le(q);
		q += 3;
		if (UNLIKELY(d->base > (uint64_t)INT64_MAX - delta)) {
			bad(d, fo, "timestamp overflow: base %llu + delta %llu is beyond 2^63-1 ns",
			    (unsigned long long)d->base, (unsigned long long)delta);
			return FRAME_BAD;
		}
		ts = (int64_t)(d->base + delta);
	} else {
		ts = d->last_ts;
		flags |= EVF_NO_TS;
	}
	struct evvals v;
	v.have_worker = v.have_tid = false;
	v.name_kind = 0;
	v.unres_str = v.unres_stk = 0;
	v.nested_opt = false;
	int r = run_ops(d, s, &q, e, &v);
	if (UNLIKELY(r != V_OK)) {
		if (r == V_TORN)
			return FRAME_TORN;
		bad(d, fo, "bad %s in event %s (type_id %u)",
		    r == V_BAD ? "varint (longer than 10 bytes, or above 2^64-1)"
		    : r == V_BADTAG ? "element type in a dynamic list or map" : "nesting (dynamic values deeper than 32)",
		    s->name, id);
		return FRAME_BAD;
	}

	/* the whole frame is here: commit */
	if (s->has_ts) {
		d->base = (uint64_t)ts;
		if (ts < d->prev_ts)
			d->back_steps++;
		d->prev_ts = ts;
		if (!(flags & EVF_META) && (!d->have_min || ts < d->min_ts)) {
			d->min_ts = ts;
			d->have_min = true;
		}
	} else {
		d->no_ts++;
	}
	d->last_ts = ts;
	d->frames[FR_EVENT]++;
	if (UNLIKELY(v.unres_str | v.unres_stk | v.nested_opt)) {
		d->unres_str += v.unres_str;
		d->unres_stk += v.unres_stk;
		d->nested_opt += v.nested_opt;
		flags |= EVF_DAMAGED;
	}
	uint32_t name = 0;
	if (v.name_kind == 1) {
		uint32_t pe = ids_get(&d->cur[POOL_STR], v.name_id);
		name = pe ? d->pools[POOL_STR][pe - 1].val : unresolved_name(d, v.name_id);
	} else if (v.name_kind == 2) {
		name = model_str(d->m, v.name_p, v.name_len);
	}
	if (UNLIKELY(s->kind >= K_SYMBOL))
		if (s->kind != K_METADATA)
			note_rare(d, s, f, q, ts);

	struct event ev = {.ts = ts, .dur = TTV_NODUR, .type = s->type, .name = name, .flags = flags, .off = fo};
	if (v.have_worker && v.worker < WORKER_NONE) {
		ev.lane = worker_lane(d, v.worker);
		if (v.have_tid)
			learn_tid(d, v.tid, v.worker);
	} else if (v.have_tid) {
		uint64_t w;
		if (hmap_get(&d->tid_worker, v.tid, &w)) {
			ev.lane = worker_lane(d, w);
			d->mapped_samples++;
		} else {
			pend_add(d, &ev, (uint32_t)v.tid, s->kind == K_CPU ? name : 0);
			return (size_t)(q - f);
		}
	} else if (v.have_worker) {
		ev.lane = worker_lane(d, v.worker);
	} else if (flags & EVF_META || s->kind == K_CLOCK) {
		ev.lane = fixed_lane(d, &d->meta_lane, LKEY(LK_META, 0), "metadata");
	} else {
		ev.lane = fixed_lane(d, &d->runtime_lane, LKEY(LK_RUNTIME, 0), "runtime");
	}
	emit(d, &ev);
	return (size_t)(q - f);
}

/* Where the next frame starts, for the frames that are not events; checks
 * every length and count against the bytes present. */
static size_t schema_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo)
{
	const uint8_t *p = f + 3;
	if (left(f, e) < 5 || left(f + 5, e) < ld16le(f + 3) + 3u)
		return FRAME_TORN;
	uint32_t id = ld16le(f + 1);
	p += 2 + ld16le(f + 3) + 1;
	uint16_t nf = ld16le(p);
	p += 2;
	for (unsigned i = 0; i < nf; i++) {
		if (left(p, e) < 2 || left(p + 2, e) < ld16le(p) + 1u)
			return FRAME_TORN;
		p += 2 + ld16le(p);
		uint8_t t = *p++;
		if (!valid_tag(t)) {
			bad(d, fo, "unknown field type 0x%02x in schema (type_id %u, field %u)", t, id, i);
			return FRAME_BAD;
		}
	}
	size_t len = (size_t)(p - f);
	const uint8_t *key = f + 3;
	uint32_t nkey = (uint32_t)(len - 3);
	struct schema *old = cur_schema(d, id);
	if (old) {
		if (old->nraw != nkey || memcmp(old->key, key, nkey)) {
			bad(d, fo, "schema conflict for type_id %u: '%s' is redefined differently in this sub-stream", id,
			    old->name);
			return FRAME_BAD;
		}
		d->schema_repeats++; /* the same again: allowed */
	} else {
		uint32_t si = schema_get(d, key, nkey, nkey);
		if (!d->page[id >> 8])
			d->page[id >> 8] = xcalloc(256, sizeof(struct slot));
		d->page[id >> 8][id & 255] = (struct slot){d->sch[si], (uint32_t)d->ntents};
		xgrow(&d->tents, &d->captents, d->ntents + 1, sizeof *d->tents);
		d->tents[d->ntents++] = (struct tent){id, si};
	}
	d->frames[FR_SCHEMA]++;
	return len;
}

static size_t pool_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo, int k)
{
	if (left(f, e) < 5)
		return FRAME_TORN;
	uint32_t n = ld32le(f + 1);
	const uint8_t *p = f + 5;
	if (left(p, e) / 8 < n) /* each entry is at least 8 bytes: do not believe a count the data cannot hold */
		return FRAME_TORN;
	for (uint32_t i = 0; i < n; i++) {
		if (left(p, e) < 8)
			return FRAME_TORN;
		uint32_t len = ld32le(p + 4);
		if ((k == POOL_STR ? left(p + 8, e) : left(p + 8, e) / 8) < len)
			return FRAME_TORN;
		p += 8 + (k == POOL_STR ? (size_t)len : 8 * (size_t)len);
	}
	p = f + 5;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = ld32le(p), len = ld32le(p + 4);
		if (k == POOL_STR)
			pool_add(d, k, id, model_str(d->m, p + 8, len), fo);
		else
			pool_add(d, k, id, len, fo + (uint64_t)(p + 8 - f));
		p += 8 + (k == POOL_STR ? (size_t)len : 8 * (size_t)len);
	}
	d->frames[k == POOL_STR ? FR_STRPOOL : FR_STKPOOL]++;
	return (size_t)(p - f);
}

static size_t annot_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo)
{
	const uint8_t *p = f + 1;
	uint64_t id;
	int r = varint(&p, e, &id);
	if (r == V_TORN)
		return FRAME_TORN;
	if (r == V_BAD) {
		bad(d, fo, "bad varint (type_id of a schema annotation frame)");
		return FRAME_BAD;
	}
	if (left(p, e) < 2)
		return FRAME_TORN;
	uint16_t n = ld16le(p);
	p += 2;
	const uint8_t *entries = p;
	for (unsigned i = 0; i < n; i++) {
		if (left(p, e) < 4 || left(p + 4, e) < ld16le(p + 2) + 4u)
			return FRAME_TORN;
		p += 4 + ld16le(p + 2);
		if (left(p + 4, e) < ld32le(p))
			return FRAME_TORN;
		p += 4 + (size_t)ld32le(p);
	}
	d->frames[FR_ANNOT]++;
	struct slot *sl = id <= 0xffff ? cur_slot(d, (uint32_t)id) : NULL;
	size_t more = (size_t)(p - entries);
	if (!sl || sl->s->nkey - sl->s->nraw + more > MAX_ANNOT) {
		d->annot_skipped++; /* nothing to annotate (notes §2.5), or far more than any writer sends */
		return (size_t)(p - f);
	}
	if (!more)
		return (size_t)(p - f);
	/* the annotated schema: the same identity with these entries appended */
	struct buf k = {0};
	buf_add(&k, sl->s->key, sl->s->nkey);
	buf_add(&k, entries, more);
	uint32_t si = schema_get(d, (const uint8_t *)k.p, (uint32_t)k.len, sl->s->nraw);
	buf_free(&k);
	sl->s = d->sch[si];
	d->tents[sl->tent].schema = si;
	return (size_t)(p - f);
}

/* The header at the start of the data.  Returns its length, FRAME_TORN, or
 * FRAME_BAD (the input is rejected or damaged). */
static size_t first_header(struct d9 *d, const uint8_t *p, size_t n, bool final)
{
	static const char legacy[] = "TOKIOTRC", magic[] = "TRC";
	bool maybe_trc = !n || !memcmp(p, magic, MIN(n, 4)), maybe_legacy = !n || !memcmp(p, legacy, MIN(n, 8));
	if (n >= 8 && maybe_legacy) {
		char v[32] = "";
		if (n >= 12)
			snprintf(v, sizeof v, " v%u", ld32le(p + 8));
		dec_reject(d->in, "legacy TOKIOTRC%s format (before dial9-trace-format), not supported", v);
		return FRAME_BAD;
	}
	if (!maybe_trc && !maybe_legacy) {
		dec_reject(d->in, "bad magic: not a dial9 trace (it does not start with TRC and a zero byte)");
		return FRAME_BAD;
	}
	if (n < HEADER_LEN || !maybe_trc) { /* a header (or the legacy magic) still arriving */
		if (!final)
			return FRAME_TORN;
		if (n && maybe_trc) {
			bad(d, 0, "truncated header: the data ends after %zu of its 5 bytes", n);
			return FRAME_BAD;
		}
		dec_reject(d->in, "too short for a dial9 header (%zu bytes)", n);
		return FRAME_BAD;
	}
	if (p[4] != 1) {
		dec_reject(d->in, "unsupported version %u (only version 1 exists)", p[4]);
		return FRAME_BAD;
	}
	return HEADER_LEN;
}

static size_t d9_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct d9 *d = st;
	size_t at = 0;
	if (!d->started) {
		size_t r = first_header(d, p, n, final);
		if (r == FRAME_TORN || r == FRAME_BAD)
			return 0;
		sub_begin(d, off);
		d->started = true;
		at = r;
	}
	const uint8_t *e = p + n;
	while (at < n) {
		const uint8_t *f = p + at;
		uint64_t fo = off + at;
		size_t used;
		switch (*f) {
		case TAG_EVENT: used = event_frame(d, f, e, fo); break;
		case TAG_STRPOOL: used = pool_frame(d, f, e, fo, POOL_STR); break;
		case TAG_STKPOOL: used = pool_frame(d, f, e, fo, POOL_STK); break;
		case TAG_RESET:
			if (left(f, e) < 9) {
				used = FRAME_TORN;
				break;
			}
			d->base = ld64le(f + 1);
			d->frames[FR_RESET]++;
			used = 9;
			break;
		case TAG_SCHEMA: used = schema_frame(d, f, e, fo); break;
		case TAG_ANNOT: used = annot_frame(d, f, e, fo); break;
		case TAG_HEADER:
			if (memcmp(f, "TRC\0", MIN(left(f, e), 4))) {
				bad(d, fo, "unknown frame tag 0x54 (not the start of a TRC header)");
				used = FRAME_BAD;
				break;
			}
			if (left(f, e) < HEADER_LEN) {
				used = FRAME_TORN;
				break;
			}
			if (f[4] != 1) {
				bad(d, fo, "unsupported version %u in a mid-stream header", f[4]);
				used = FRAME_BAD;
				break;
			}
			sub_begin(d, fo);
			used = HEADER_LEN;
			break;
		default:
			bad(d, fo, "unknown frame tag 0x%02x", *f);
			used = FRAME_BAD;
			break;
		}
		if (used == FRAME_BAD)
			break;
		if (used == FRAME_TORN) {
			if (final)
				bad(d, fo, "truncated frame: the data ends inside this %s frame",
				    *f == TAG_EVENT ? "event" : *f == TAG_HEADER ? "header" : *f == TAG_SCHEMA ? "schema"
				    : *f == TAG_STRPOOL ? "string pool" : *f == TAG_STKPOOL ? "stack pool"
				    : *f == TAG_RESET ? "timestamp reset" : "schema annotations");
			break;
		}
		at += used;
	}
	/* Threads still unknown at the end of the data (or, when following, once
	 * the reader has caught up with the writer) are shown as threads. */
	bool caught_up = dec_following(d->in) && d->in->eof && off + n == d->in->size;
	if (d->npend && (final || d->in->done || caught_up))
		pend_flush(d, SIZE_MAX);
	return at;
}

/* ---- lazy decoding -------------------------------------------------------- */

/* The event frame at e->off, its sub-stream and schema. */
static const struct schema *locate(struct d9 *d, const struct event *e, const uint8_t **p, const uint8_t **end,
				   const struct sub **sub)
{
	uint64_t avail;
	*p = input_bytes(d->in, e->off, &avail);
	*sub = sub_of(d, e->off);
	if (!*p || avail < 3 || **p != TAG_EVENT || !*sub)
		return NULL;
	*end = *p + avail;
	return sub_schema(d, *sub, ld16le(*p + 1));
}

static int by_clock(const void *a, const void *b)
{
	const struct clock *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void sort_clocks(struct d9 *d)
{
	if (d->clocks_sorted != d->nclocks) {
		qsort(d->clocks, d->nclocks, sizeof *d->clocks, by_clock);
		d->clocks_sorted = d->nclocks;
	}
}

/* Wall-clock time of a timestamp, from the nearest ClockSyncEvent. */
static bool wall_clock(struct d9 *d, int64_t ts, struct buf *b)
{
	if (!d->nclocks)
		return false;
	sort_clocks(d);
	size_t lo = 0, hi = d->nclocks; /* the first sync at or after ts, or the one before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->clocks[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct clock *best = &d->clocks[lo < d->nclocks ? lo : lo - 1];
	if (lo > 0 && lo < d->nclocks && (uint64_t)ts - (uint64_t)d->clocks[lo - 1].ts < (uint64_t)best->ts - (uint64_t)ts)
		best = &d->clocks[lo - 1];
	char t[40];
	if (!utc_text(best->realtime + ((uint64_t)ts - (uint64_t)best->ts), t, sizeof t))
		return false;
	buf_adds(b, t);
	return true;
}

static void d9_fields(void *st, const struct event *e, struct fsink *out)
{
	struct d9 *d = st;
	const uint8_t *p, *end;
	const struct sub *sub;
	const struct schema *s = locate(d, e, &p, &end, &sub);
	if (!s) {
		f_cstr(out, "error", "event not readable");
		return;
	}
	struct walk w = {.d = d, .sub = sub, .at = e->off, .out = out};
	if (s->has_ts && !(s->kind == K_SYMBOL && e->ts == 0) && wall_clock(d, e->ts, &w.val))
		f_put(out, &(struct field){.name = "wall_clock", .kind = FK_STR, .v.s = {w.val.p, w.val.len},
					   .meaning = "UTC, from ClockSyncEvent"});
	if (s->kind == K_SPAN_ENTER || s->kind == K_SPAN_EXIT) {
		const char *site = strchr(s->name, ':') + 1;
		f_cstr(out, "call_site", site);
	}
	if (!walk_event(&w, s, p, end))
		f_cstr(out, "error", "event not readable");
	buf_free(&w.key);
	buf_free(&w.val);
}

/* Every table fields and summaries sort on first use, sorted now: until
 * the next feed they only read (the decoder is reentrant after this). */
static void d9_settle(void *st)
{
	struct d9 *d = st;
	for (size_t i = 0; i < d->nsubs; i++) {
		sort_sub_schemas(d, &d->subs[i]);
		sort_sub_pool(d, &d->subs[i], POOL_STR);
		sort_sub_pool(d, &d->subs[i], POOL_STK);
	}
	sort_syms(d);
	sort_clocks(d);
}

static void d9_summary(void *st, const struct event *e, struct buf *b)
{
	struct d9 *d = st;
	const uint8_t *p, *end;
	const struct sub *sub;
	const struct schema *s = locate(d, e, &p, &end, &sub);
	if (!s) {
		buf_adds(b, "(event not readable)");
		return;
	}
	struct line_sink ls;
	line_sink_init(&ls, b);
	struct walk w = {.d = d, .sub = sub, .at = e->off, .out = &ls.s, .compact = true};
	if (!walk_event(&w, s, p, end))
		buf_adds(b, " (event not readable)");
	buf_free(&w.key);
	buf_free(&w.val);
}

/* ---- info ----------------------------------------------------------------- */

static void d9_info(struct source *src, struct fsink *out)
{
	uint64_t fr[FR_KINDS] = {0}, no_ts = 0, back = 0, ustr = 0, ustk = 0, reps = 0, askip = 0, nopt = 0,
		 syms = 0, clocks = 0, mapped = 0, pend = 0, nschemas = 0;
	struct d9 *first_clock = NULL;
	struct hmap names = {0}; /* distinct schema names */
	struct input *in;
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct d9 *d = in->dstate;
		if (!d || d->magic != D9_INPUT)
			continue;
		for (int k = 0; k < FR_KINDS; k++)
			fr[k] += d->frames[k];
		no_ts += d->no_ts, back += d->back_steps, ustr += d->unres_str, ustk += d->unres_stk;
		reps += d->schema_repeats, askip += d->annot_skipped, nopt += d->nested_opt;
		syms += d->nsyms, clocks += d->nclocks, mapped += d->mapped_samples, pend += d->npend;
		nschemas += d->nsch;
		for (size_t k = 0; k < d->nsch; k++)
			hmap_put(&names, model_str(d->m, d->sch[k]->name, strlen(d->sch[k]->name)), 1);
		if (!first_clock && d->nclocks && d->have_min)
			first_clock = d;
	}
	f_uint(out, "version", 1);
	if (dec_source_state(src)) {
		f_arr(out, "segments");
		for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
			struct d9 *d = in->dstate;
			f_obj(out, NULL);
			f_cstr(out, "file", in->path);
			f_uint(out, "sub_streams", d ? d->frames[FR_HEADER] : 0);
			f_uint(out, "events", d ? d->frames[FR_EVENT] : 0);
			f_end(out);
		}
		f_end(out);
	}
	f_uint(out, "sub_streams", fr[FR_HEADER]);
	f_obj(out, "frames");
	for (int k = FR_SCHEMA; k < FR_KINDS; k++)
		f_uint(out, frame_names[k], fr[k]);
	f_end(out);
	f_uint(out, "schema_names", names.n);
	f_uint(out, "schemas_kept", nschemas);
	f_uint(out, "schema_repeats", reps);
	/* annotations, as "Schema.field key=value", once each */
	f_arr(out, "annotations");
	struct hmap seen = {0};
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct d9 *d = in->dstate;
		if (!d || d->magic != D9_INPUT)
			continue;
		for (size_t k = 0; k < d->nsch; k++) {
			const struct schema *s = d->sch[k];
			for (const uint8_t *p = s->key + s->nraw, *e = s->key + s->nkey; p < e;) {
				uint16_t fi = ld16le(p), kl = ld16le(p + 2);
				uint32_t vl = ld32le(p + 4 + kl);
				struct buf b = {0};
				buf_printf(&b, "%s.", s->name);
				if (fi < s->nfields)
					buf_adds(&b, s->f[fi].name);
				else
					buf_printf(&b, "#%u", fi);
				buf_addc(&b, ' ');
				buf_add(&b, p + 4, kl);
				buf_addc(&b, '=');
				buf_add(&b, p + 8 + kl, vl);
				p += 8 + kl + vl;
				uint64_t sid = model_str(d->m, b.p, b.len), one;
				if (!hmap_get(&seen, sid, &one)) {
					hmap_put(&seen, sid, 1);
					f_str(out, NULL, b.p, b.len);
				}
				buf_free(&b);
			}
		}
	}
	f_end(out);
	hmap_free(&seen);
	hmap_free(&names);
	hmap_free(&seen);
	hmap_free(&names);
	f_uint(out, "annotations_skipped", askip);
	f_uint(out, "clock_syncs", clocks);
	if (first_clock) {
		struct buf b = {0};
		if (wall_clock(first_clock, first_clock->min_ts, &b))
			f_put(out, &(struct field){.name = "wall_clock_start", .kind = FK_STR, .v.s = {b.p, b.len},
						   .meaning = "UTC"});
		buf_free(&b);
	}
	f_uint(out, "symbols", syms);
	f_uint(out, "thread_events_on_workers", mapped);
	f_uint(out, "events_without_timestamp", no_ts);
	f_uint(out, "back_steps", back);
	f_obj(out, "unresolved");
	f_uint(out, "strings", ustr);
	f_uint(out, "stacks", ustk);
	f_end(out);
	if (nopt)
		f_uint(out, "optional_inside_dynamic_values", nopt);
	(void)pend;
}

/* ---- probe, open, close --------------------------------------------------- */

static int d9_probe(const uint8_t *p, size_t n, bool final)
{
	static const uint8_t magic[4] = {'T', 'R', 'C', 0};
	static const uint8_t legacy[8] = "TOKIOTRC";
	if (!n)
		return final ? PROBE_NO : PROBE_MORE;
	if (n >= 4 && !memcmp(p, magic, 4))
		return PROBE_MAGIC;
	if (n >= 8 && !memcmp(p, legacy, 8))
		return PROBE_MAGIC; /* to name it and refuse it */
	bool could = n < 4 ? !memcmp(p, magic, n) || !memcmp(p, legacy, n) : !memcmp(p, legacy, n < 8 ? n : 8);
	if (could && !final)
		return PROBE_MORE;
	/* "TRC" and nothing more: a dial9 file cut inside its header */
	return final && n == 3 && !memcmp(p, magic, 3) ? PROBE_WEAK : PROBE_NO;
}

static void *d9_open(struct input *in)
{
	struct d9 *d = xcalloc(1, sizeof *d);
	d->magic = D9_INPUT;
	d->in = in;
	d->m = dec_model(in);
	return d;
}

static void d9_close(void *st)
{
	if (!st)
		return;
	if (*(uint32_t *)st == D9_DIR) {
		struct d9dir *dd = st;
		for (size_t i = 0; i < dd->nsegs; i++) {
			free(dd->segs[i].sub);
			free(dd->segs[i].stem);
			free(dd->segs[i].path);
		}
		free(dd->segs);
		free(dd->path);
		free(dd);
		return;
	}
	struct d9 *d = st;
	for (size_t i = 0; i < d->nsch; i++)
		schema_free(d->sch[i]);
	free(d->sch);
	hmap_free(&d->sch_by_hash);
	free(d->subs);
	free(d->tents);
	for (int k = 0; k < 2; k++) {
		free(d->pools[k]);
		free(d->cur[k].v);
		hmap_free(&d->cur[k].big);
	}
	for (unsigned i = 0; i < 256; i++)
		free(d->page[i]);
	hmap_free(&d->tlane);
	hmap_free(&d->tid_worker);
	hmap_free(&d->pend_head);
	free(d->pend);
	free(d->syms);
	free(d->clocks);
	buf_free(&d->tmp);
	free(d);
}

/* ---- directories of segments ---------------------------------------------- */

/* "STEM.N.bin", "STEM.N.bin.gz", "STEM.N.bin.active": N and the rank. */
static bool seg_name(const char *name, char **stem, uint64_t *n, int *rank)
{
	static const struct {
		const char *suffix;
		int rank;
	} kinds[] = {{".bin", 0}, {".bin.gz", 1}, {".bin.active", 2}};
	size_t len = strlen(name);
	for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
		size_t sl = strlen(kinds[k].suffix);
		if (len <= sl || strcmp(name + len - sl, kinds[k].suffix))
			continue;
		size_t end = len - sl, dig = end;
		while (dig > 0 && name[dig - 1] >= '0' && name[dig - 1] <= '9')
			dig--;
		if (dig == end || end - dig > 18 || dig < 2 || name[dig - 1] != '.')
			return false;
		*n = strtoull(name + dig, NULL, 10);
		*stem = xstrndup(name, dig - 1);
		*rank = kinds[k].rank;
		return true;
	}
	return false;
}

static int by_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = strcmp(x->sub, y->sub);
	if (!c)
		c = strcmp(x->stem, y->stem);
	if (!c)
		c = x->n < y->n ? -1 : x->n > y->n;
	if (!c)
		c = x->rank - y->rank;
	return c;
}

/* Segments directly in dir, or else in its subdirectories (boot ids). */
static void list_segments(const char *dir, const char *sub, struct seg **out, size_t *n, size_t *cap, int depth)
{
	struct buf path = {0};
	buf_printf(&path, "%s%s%s", dir, *sub ? "/" : "", sub);
	struct dir_entry *e;
	size_t ne = dir_list(path.p, &e);
	size_t before = *n;
	char **subdirs = NULL;
	size_t nsub = 0, capsub = 0;
	for (size_t i = 0; i < ne; i++) {
		const char *name = e[i].name;
		char *stem;
		uint64_t num;
		int rank;
		if (name[0] == '.')
			continue;
		if (e[i].kind == PATH_DIR) {
			if (depth == 0) {
				xgrow(&subdirs, &capsub, nsub + 1, sizeof *subdirs);
				subdirs[nsub++] = xstrdup(name);
			}
			continue;
		}
		if (e[i].kind != PATH_FILE || !seg_name(name, &stem, &num, &rank))
			continue;
		struct buf full = {0};
		buf_printf(&full, "%s/%s", path.p, name);
		xgrow(out, cap, *n + 1, sizeof **out);
		(*out)[(*n)++] = (struct seg){xstrdup(sub), stem, num, rank, full.p, NULL};
	}
	dir_free(e, ne);
	if (*n == before && depth == 0)
		for (size_t i = 0; i < nsub; i++)
			list_segments(dir, subdirs[i], out, n, cap, 1);
	for (size_t i = 0; i < nsub; i++)
		free(subdirs[i]);
	free(subdirs);
	buf_free(&path);
}

static void free_segs(struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].sub);
		free(s[i].stem);
		free(s[i].path);
	}
	free(s);
}

static int d9_probe_dir(const char *dir)
{
	struct seg *s = NULL;
	size_t n = 0, cap = 0;
	list_segments(dir, "", &s, &n, &cap, 0);
	free_segs(s, n);
	return n ? PROBE_MAGIC : PROBE_NO;
}

static bool same_seg(const struct seg *a, const struct seg *b)
{
	return a->n == b->n && !strcmp(a->sub, b->sub) && !strcmp(a->stem, b->stem);
}

static struct seg *seg_known(const struct d9dir *dd, const struct seg *s)
{
	for (size_t i = 0; i < dd->nsegs; i++)
		if (same_seg(&dd->segs[i], s))
			return &dd->segs[i];
	return NULL;
}

/* A segment read before whose file is no longer listed under its name: the
 * writer sealed it (trace.N.bin.active renamed trace.N.bin) or compressed
 * it (trace.N.bin replaced by trace.N.bin.gz).  s[0..n): its files now, in
 * rank order. */
static void seg_moved(struct seg *known, const struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].path, known->path))
			return; /* still there (being compressed: the copy is not done) */
	struct input *now = known->in ? dec_move_input(known->in, s[0].path) : NULL;
	if (!now)
		return;
	known->in = now;
	known->rank = s[0].rank;
	free(known->path);
	known->path = xstrdup(s[0].path);
}

/* Add the segments not seen before, in order; one per (subdir, stem, N). */
static size_t add_segments(struct source *src, struct d9dir *dd)
{
	struct seg *s = NULL;
	size_t n = 0, cap = 0, added = 0;
	list_segments(dd->path, "", &s, &n, &cap, 0);
	if (n)
		qsort(s, n, sizeof *s, by_seg);
	for (size_t i = 0, k; i < n; i = k) {
		for (k = i + 1; k < n && same_seg(&s[i], &s[k]); k++)
			;
		struct seg *known = seg_known(dd, &s[i]);
		if (known) {
			seg_moved(known, s + i, k - i);
			continue;
		}
		struct input *in = dec_add_input(src, s[i].path);
		xgrow(&dd->segs, &dd->capsegs, dd->nsegs + 1, sizeof *dd->segs);
		dd->segs[dd->nsegs++] = (struct seg){xstrdup(s[i].sub), xstrdup(s[i].stem), s[i].n, s[i].rank,
						     xstrdup(s[i].path), in};
		if (!in)
			continue;
		in->dec = &dial9_decoder;
		in->dstate = d9_open(in);
		added++;
	}
	free_segs(s, n);
	return added;
}

static bool d9_open_dir(struct source *src, const char *dir)
{
	struct d9dir *dd = xcalloc(1, sizeof *dd);
	dd->magic = D9_DIR;
	dd->path = xstrdup(dir);
	dec_set_source_state(src, dd);
	return add_segments(src, dd) > 0;
}

static void d9_rescan(struct source *src)
{
	struct d9dir *dd = dec_source_state(src);
	if (dd)
		add_segments(src, dd);
}

const struct decoder dial9_decoder = {
	.name = "dial9",
	.title = "dial9-trace-format (tokio telemetry)",
	.reentrant = true,
	.settle = d9_settle,
	.probe = d9_probe,
	.open = d9_open,
	.feed = d9_feed,
	.probe_dir = d9_probe_dir,
	.open_dir = d9_open_dir,
	.rescan = d9_rescan,
	.fields = d9_fields,
	.summary = d9_summary,
	.info = d9_info,
	.close = d9_close,
};
