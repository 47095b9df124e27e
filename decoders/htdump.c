/* HawkTracer HTDUMP: a stream of events with no header, no framing and no
 * lengths.  Every event is a 20-byte header (u32 klass_id, u64 timestamp,
 * u64 id in the producer's byte order) followed by the fields of its class,
 * fully packed; strings end in a NUL.  Classes are described in the stream
 * itself (klass-info and field-info events) before they are used, so an
 * event can only be skipped by decoding it.  See specs/htdump.md and, for
 * what real files hold, specs/htdump-notes.md.
 *
 * The class table changes as descriptions arrive, and a second endianness
 * event starts a new stream with a new table.  Events are decoded lazily
 * (fields(), summary()) with the table as it was at their offset: every
 * description is kept with the offset of its event, so "the classes as of
 * offset P" is a lookup, and compiled layouts are cached per stretch of the
 * file between description events (`seg`). */
#include <stdio.h>
#include <stdlib.h>

#include "decoders/decoder.h"
#include "src/esc.h"
#include "src/hmap.h"
#include "src/worker.h"

#define HDR 20
#define MAX_FIELDS 1024 /* field descriptions kept per class */
#define MAX_OPS 4096    /* fields of one class with its bases flattened */
#define MAX_DEPTH 32    /* levels of base classes */
#define FAST_IDS 1024   /* klass ids with a directly indexed layout slot */
#define LAZY_SLOTS 64   /* layouts cached for fields() of earlier stretches */
#define FAST_TIDS 4096  /* thread ids with a directly indexed lane slot */
#define NOT_WHOLE UINT64_MAX

enum { K_ENDIANNESS, K_EVENT, K_KLASS_INFO, K_FIELD_INFO, K_HARD };
static const char *const hard_names[K_HARD] = {"HT_EndiannessInfoEvent", "HT_Event", "HT_EventKlassInfoEvent",
					       "HT_EventKlassFieldInfoEvent"};

/* DataType after the stream's numbering is applied. */
enum dtype { DT_STRUCT, DT_STRING, DT_INTEGER, DT_FLOAT, DT_DOUBLE, DT_POINTER, DT_UNSIGNED, DT_UNKNOWN };
static const char *const dt_names[] = {"STRUCT", "STRING", "INTEGER", "FLOAT", "DOUBLE", "POINTER",
				       "UNSIGNED_INTEGER", NULL};

/* How a flattened field is read. */
enum opk { OP_INT, OP_UINT, OP_PTR, OP_FLOAT, OP_DOUBLE, OP_STR, OP_RAW };

/* Fields the decoder gives meaning to, found by name. */
enum { SP_DUR, SP_TID, SP_LABEL, SP_IDENT, SP_N };

struct hfield {
	uint64_t off;        /* offset of its field-info event */
	uint64_t size;
	uint32_t type, name; /* interned field_type and field_name */
	uint8_t dt;          /* DataType code as written */
	bool canon;          /* code in the library's numbering whatever the stream's (built-in defaults) */
};

/* A class as described by one klass-info event and the field-info events
 * that follow it. */
struct kdesc {
	uint64_t off; /* of its klass-info event; stream start for a built-in default */
	uint32_t id, name, stream;
	uint8_t declared; /* field_count */
	bool builtin;     /* a default for klasses 4..8, used until the stream describes them */
	struct hfield *f;
	size_t nf, capf;
	uint64_t events;
};

struct op {
	const char *name, *tname; /* interned: stable, NUL-terminated */
	uint64_t size;
	uint8_t kind, dt;
	int64_t at; /* offset after the header when no string comes before it, else -1 */
};

/* A class compiled for decoding: its fields flattened with the bases'. */
struct layout {
	bool used;
	uint32_t id, seg;
	uint32_t kd; /* kdesc index + 1; 0: the klass is unknown at this offset */
	char err[200];
	struct op *ops;
	size_t nops, capops;
	uint64_t fixed;  /* body bytes when the class has no strings, else NOT_WHOLE */
	uint64_t *runs;  /* fixed bytes before each string, then after the last one */
	size_t nruns, capruns;
	int32_t sp[SP_N];   /* op index of the special fields, -1 when absent */
	uint64_t spat[SP_N]; /* their fixed offset, UINT64_MAX when a string comes first */
	uint8_t spsize[SP_N];
	int32_t walk_to;    /* ops to walk to find the specials without a fixed offset (0: none) */
	uint32_t type;
	uint8_t role, flags;
	bool callstack, mapping, sysinfo, label_int;
	bool label_last; /* the label is the last string of the class */
};

struct hstream {
	uint64_t start;
	uint64_t first0, first99; /* first field description using DataType 0 / 99 */
	uint64_t events;
	bool be, spec_hdr, hdr_known, has_endianness;
};

struct idlist {
	uint32_t *v;
	size_t n, cap;
};

struct ht {
	struct input *in;
	struct hstream *st;
	size_t nst, capst;
	struct kdesc *kd;
	size_t nkd, capkd;
	struct idlist *lists;
	size_t nlists, caplists;
	struct hmap by_id, by_name; /* klass id / interned name -> lists index */

	uint64_t *chg; /* offsets where a stretch of description events starts */
	size_t nchg, capchg;
	bool data_since_chg;

	struct layout *fast[FAST_IDS];
	struct hmap slow; /* klass id -> index into slowl */
	struct layout **slowl;
	size_t nslow, capslow;
	struct layout lazy[2][LAZY_SLOTS]; /* one cache per thread (worker_index()) */

	struct scache { /* recent string labels: most events repeat a few */
		uint64_t head;
		const char *p; /* the interned copy */
		uint32_t len, id;
	} scache[256];
	struct icache { /* recent int labels -> their names */
		uint64_t v;
		uint32_t name; /* 0: empty */
	} icache[64];
	struct hmap map;   /* mapping identifier -> interned label (the first one seen) */
	struct hmap names; /* int label -> the name events get: the label, or the number until mapped */
	uint64_t mappings, conflicts;

	uint32_t tlane[FAST_TIDS]; /* lane + 1 */
	struct hmap tlanes;        /* thread id -> lane, beyond FAST_TIDS */
	uint64_t nthreads;
	uint32_t proc_lane, meta_lane; /* + 1 */

	uint64_t hard_events[K_HARD];
	uint64_t redefined, orphan_fields, too_many_fields;
	bool have_version;
	uint8_t version[3];
	uint64_t prev_off; /* the event before the current one, for messages */
	bool have_prev;

	/* interned names the decoder looks for */
	uint32_t s_event, s_csbase, s_mapping, s_sysinfo, s_duration, s_thread_id, s_label, s_name, s_identifier;
};

extern const struct decoder htdump_decoder;

/* ---- small helpers --------------------------------------------------------- */

static inline uint64_t rd_uint(const uint8_t *p, uint64_t size, bool be)
{
	switch (size) {
	case 1: return p[0];
	case 2: return ld16(p, be);
	case 4: return ld32(p, be);
	default: return ld64(p, be);
	}
}

static inline int64_t rd_int(const uint8_t *p, uint64_t size, bool be)
{
	switch (size) {
	case 1: return (int8_t)p[0];
	case 2: return (int16_t)ld16(p, be);
	case 4: return (int32_t)ld32(p, be);
	default: return (int64_t)ld64(p, be);
	}
}

struct hdr {
	uint32_t k;
	uint64_t ts, id;
};

static inline void rd_hdr(const uint8_t *q, const struct hstream *s, struct hdr *h)
{
	if (s->spec_hdr) {
		h->ts = ld64(q, s->be);
		h->id = ld64(q + 8, s->be);
		h->k = ld32(q + 16, s->be);
	} else {
		h->k = ld32(q, s->be);
		h->ts = ld64(q + 4, s->be);
		h->id = ld64(q + 12, s->be);
	}
}

static uint32_t intern(struct ht *h, const char *s) { return dec_str(h->in, s, strlen(s)); }
static const char *sname(struct ht *h, uint32_t id) { return model_strget(dec_model(h->in), id, NULL); }

static void list_add(struct ht *h, struct hmap *by, uint64_t key, uint32_t v)
{
	uint64_t li;
	if (!hmap_get(by, key, &li)) {
		xgrow(&h->lists, &h->caplists, h->nlists + 1, sizeof *h->lists);
		h->lists[h->nlists] = (struct idlist){0};
		li = h->nlists++;
		hmap_put(by, key, li);
	}
	struct idlist *l = &h->lists[li];
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = v;
}

static size_t stream_at(const struct ht *h, uint64_t off)
{
	size_t lo = 0, hi = h->nst;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->st[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* The class described last before offset P (in P's stream), or -1. */
static int64_t kd_at(const struct ht *h, struct hmap *by, uint64_t key, uint64_t P, size_t stream)
{
	uint64_t li;
	if (!hmap_get(by, key, &li))
		return -1;
	const struct idlist *l = &h->lists[li];
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->kd[l->v[mid]].off <= P)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || h->kd[l->v[lo - 1]].stream != stream)
		return -1;
	return l->v[lo - 1];
}

/* Fields of a class described by offset P. */
static size_t fields_at(const struct kdesc *k, uint64_t P)
{
	size_t lo = 0, hi = k->nf;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->f[mid].off <= P)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The stream's DataType numbering at P: the spec's 0..6 only when a
 * description used 0 and none used 99 (real files always use 1..6, 99). */
static bool spec_numbering(const struct hstream *s, uint64_t P)
{
	return s->first0 != UINT64_MAX && s->first0 <= P && (s->first99 == UINT64_MAX || s->first99 > P);
}

static enum dtype dt_of(uint8_t code, bool spec)
{
	if (spec)
		return code <= 6 ? (enum dtype)code : DT_UNKNOWN;
	switch (code) {
	case 1: return DT_STRUCT;
	case 2: return DT_STRING;
	case 3: return DT_INTEGER;
	case 4: return DT_FLOAT;
	case 5: return DT_DOUBLE;
	case 6: return DT_POINTER;
	case 99: return DT_UNSIGNED;
	default: return DT_UNKNOWN;
	}
}

/* ---- the class table ---------------------------------------------------------- */

static uint32_t kd_new(struct ht *h, uint64_t off, uint32_t id, uint32_t name, uint8_t declared, bool builtin)
{
	xgrow(&h->kd, &h->capkd, h->nkd + 1, sizeof *h->kd);
	uint32_t i = (uint32_t)h->nkd++;
	h->kd[i] = (struct kdesc){.off = off, .id = id, .name = name, .stream = (uint32_t)(h->nst - 1),
				  .declared = declared, .builtin = builtin};
	list_add(h, &h->by_id, id, i);
	list_add(h, &h->by_name, name, i);
	return i;
}

static void kd_field(struct ht *h, uint32_t k, uint64_t off, const char *type, size_t ntype, const char *name,
		     size_t nname, uint64_t size, uint8_t dt, bool canon)
{
	struct kdesc *d = &h->kd[k];
	xgrow(&d->f, &d->capf, d->nf + 1, sizeof *d->f);
	d->f[d->nf++] = (struct hfield){.off = off, .size = size, .type = dec_str(h->in, type, ntype),
					.name = dec_str(h->in, name, nname), .dt = dt, .canon = canon};
}

/* Klasses 4..8 as the library describes them (notes §3.7), in force until the
 * stream describes them itself. */
static void builtin_defaults(struct ht *h, uint64_t off)
{
	static const struct {
		uint32_t id;
		const char *name;
		struct {
			const char *type, *name;
			uint64_t size;
			uint8_t dt;
		} f[4];
	} B[] = {
		{4, "HT_CallstackBaseEvent",
		 {{"HT_Event", "base", 24, 1}, {"HT_DurationNs", "duration", 8, 99}, {"HT_ThreadId", "thread_id", 4, 99}}},
		{5, "HT_CallstackIntEvent",
		 {{"HT_CallstackBaseEvent", "base", 40, 1}, {"HT_CallstackEventLabel", "label", 8, 99}}},
		{6, "HT_CallstackStringEvent", {{"HT_CallstackBaseEvent", "base", 40, 1}, {"const char*", "label", 8, 2}}},
		{7, "HT_StringMappingEvent",
		 {{"HT_Event", "base", 24, 1}, {"uint64_t", "identifier", 8, 99}, {"const char*", "label", 8, 2}}},
		{8, "HT_SystemInfoEvent",
		 {{"HT_Event", "base", 24, 1},
		  {"uint8_t", "version_major", 1, 99},
		  {"uint8_t", "version_minor", 1, 99},
		  {"uint8_t", "version_patch", 1, 99}}},
	};
	for (size_t i = 0; i < ARRAY_LEN(B); i++) {
		uint32_t k = kd_new(h, off, B[i].id, intern(h, B[i].name), 0, true);
		for (size_t j = 0; j < 4 && B[i].f[j].type; j++)
			kd_field(h, k, off, B[i].f[j].type, strlen(B[i].f[j].type), B[i].f[j].name,
				 strlen(B[i].f[j].name), B[i].f[j].size, B[i].f[j].dt, true);
		h->kd[k].declared = (uint8_t)h->kd[k].nf;
	}
}

/* A description event at `off`: the layouts in force change from here. */
static void changed(struct ht *h, uint64_t off)
{
	if (!h->data_since_chg && h->nchg)
		return; /* no event between: the same stretch */
	xgrow(&h->chg, &h->capchg, h->nchg + 1, sizeof *h->chg);
	h->chg[h->nchg++] = off;
	h->data_since_chg = false;
}

static uint32_t seg_at(const struct ht *h, uint64_t P)
{
	size_t lo = 0, hi = h->nchg;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->chg[mid] <= P)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

static void new_stream(struct ht *h, uint64_t off, bool be, bool has_endianness)
{
	xgrow(&h->st, &h->capst, h->nst + 1, sizeof *h->st);
	h->st[h->nst++] = (struct hstream){.start = off, .first0 = UINT64_MAX, .first99 = UINT64_MAX, .be = be,
					   .has_endianness = has_endianness, .hdr_known = !has_endianness};
	h->data_since_chg = true;
	changed(h, off);
	builtin_defaults(h, off);
}

/* ---- compiling a class ---------------------------------------------------------- */

struct flat {
	struct ht *h;
	struct layout *L;
	uint64_t P;
	size_t stream;
	bool spec;
	uint32_t chain[MAX_DEPTH + 1];
	unsigned depth;
};

static bool flatten(struct flat *fl, uint32_t k)
{
	struct ht *h = fl->h;
	struct layout *L = fl->L;
	const struct kdesc *d = &h->kd[k];
	size_t nf = fields_at(d, fl->P);
	fl->chain[fl->depth] = k;
	if (d->name == h->s_csbase)
		L->callstack = true;
	for (size_t i = 0; i < nf; i++) {
		const struct hfield *f = &d->f[i];
		enum dtype dt = dt_of(f->dt, f->canon ? false : fl->spec);
		if (dt == DT_STRUCT) {
			if (f->type == h->s_event)
				continue; /* the header, already read */
			if (fl->depth == MAX_DEPTH) {
				snprintf(L->err, sizeof L->err, "class %s: more than %d levels of base classes",
					 sname(h, h->kd[fl->chain[0]].name), MAX_DEPTH);
				return false;
			}
			int64_t b = kd_at(h, &h->by_name, f->type, fl->P, fl->stream);
			if (b < 0) {
				snprintf(L->err, sizeof L->err, "class %s: base %s unknown", sname(h, d->name),
					 sname(h, f->type));
				return false;
			}
			for (unsigned j = 0; j <= fl->depth; j++)
				if (fl->chain[j] == (uint32_t)b) {
					snprintf(L->err, sizeof L->err, "class %s: its base classes form a cycle through %s",
						 sname(h, h->kd[fl->chain[0]].name), sname(h, f->type));
					return false;
				}
			fl->depth++;
			bool ok = flatten(fl, (uint32_t)b);
			fl->depth--;
			if (!ok)
				return false;
			continue;
		}
		if (L->nops == MAX_OPS) {
			snprintf(L->err, sizeof L->err, "class %s: more than %d fields with its bases",
				 sname(h, h->kd[fl->chain[0]].name), MAX_OPS);
			return false;
		}
		struct op o = {.name = sname(h, f->name), .tname = sname(h, f->type), .size = f->size, .dt = (uint8_t)dt,
			       .kind = OP_RAW};
		bool pow2 = f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
		switch (dt) {
		case DT_STRING: o.kind = OP_STR; break;
		case DT_INTEGER: o.kind = pow2 ? OP_INT : OP_RAW; break;
		case DT_UNSIGNED: o.kind = pow2 ? OP_UINT : OP_RAW; break;
		case DT_POINTER: o.kind = pow2 ? OP_PTR : OP_RAW; break;
		case DT_FLOAT: o.kind = f->size == 4 ? OP_FLOAT : OP_RAW; break;
		case DT_DOUBLE: o.kind = f->size == 8 ? OP_DOUBLE : OP_RAW; break;
		default: break;
		}
		if (o.kind == OP_STR)
			o.size = 0;
		xgrow(&L->ops, &L->capops, L->nops + 1, sizeof *L->ops);
		L->ops[L->nops++] = o;
		/* What the decoder looks for, by name (the first of each). */
		int sp = -1;
		bool integer = o.kind == OP_INT || o.kind == OP_UINT;
		if (f->name == h->s_duration && integer)
			sp = SP_DUR;
		else if (f->name == h->s_thread_id && integer)
			sp = SP_TID;
		else if ((f->name == h->s_label && (integer || o.kind == OP_STR)) ||
			 (f->name == h->s_name && o.kind == OP_STR && L->sp[SP_LABEL] < 0))
			sp = SP_LABEL;
		else if (f->name == h->s_identifier && integer)
			sp = SP_IDENT;
		if (sp >= 0 && (L->sp[sp] < 0 || (sp == SP_LABEL && f->name == h->s_label &&
						  strcmp(L->ops[L->sp[sp]].name, "label"))))
			L->sp[sp] = (int32_t)L->nops - 1;
	}
	return true;
}

static uint32_t layout_type(struct ht *h, struct layout *L, const struct kdesc *d)
{
	struct model *m = dec_model(h->in);
	const char *cat = L->callstack ? "callstack" : L->mapping ? "mapping" : L->sysinfo ? "metadata" : NULL;
	/* An event's name is its string label (or string `name`): filters on that
	 * field match the interned name.  Int labels resolve through mappings that
	 * may come later, so those types name no field: a filter reads it. */
	uint32_t nf = L->sp[SP_LABEL] >= 0 && !L->label_int ? intern(h, L->ops[L->sp[SP_LABEL]].name) : 0;
	return model_type(m, &(struct type){.name = d->name,
					    .category = cat ? model_str(m, cat, strlen(cat)) : 0,
					    .name_field = nf,
					    .role = L->role,
					    .owner = &htdump_decoder});
}

static void compile(struct ht *h, struct layout *L, uint32_t id, uint64_t P, uint32_t seg)
{
	L->used = true;
	L->id = id;
	L->seg = seg;
	L->nops = L->nruns = 0;
	L->err[0] = 0;
	L->fixed = NOT_WHOLE;
	L->callstack = L->mapping = L->sysinfo = L->label_int = L->label_last = false;
	L->walk_to = 0;
	L->role = ROLE_INSTANT;
	L->flags = 0;
	for (int i = 0; i < SP_N; i++)
		L->sp[i] = -1, L->spat[i] = UINT64_MAX;
	size_t stream = stream_at(h, P);
	int64_t k = kd_at(h, &h->by_id, id, P, stream);
	L->kd = k < 0 ? 0 : (uint32_t)k + 1;
	if (k < 0)
		return;
	const struct kdesc *d = &h->kd[k];
	struct flat fl = {.h = h, .L = L, .P = P, .stream = stream, .spec = spec_numbering(&h->st[stream], P)};
	if (!flatten(&fl, (uint32_t)k))
		return;
	/* Fixed offsets up to the first string; runs of fixed bytes between strings. */
	uint64_t run = 0, at = 0;
	bool fixed = true;
	for (size_t i = 0; i < L->nops; i++) {
		struct op *o = &L->ops[i];
		o->at = fixed ? (int64_t)at : -1;
		if (o->kind == OP_STR) {
			xgrow(&L->runs, &L->capruns, L->nruns + 1, sizeof *L->runs);
			L->runs[L->nruns++] = run;
			run = 0;
			fixed = false;
		} else {
			/* saturate: a size beyond any file just never fits */
			run = o->size > (1ull << 62) - run ? 1ull << 62 : run + o->size;
			if (fixed)
				at = run;
		}
	}
	xgrow(&L->runs, &L->capruns, L->nruns + 1, sizeof *L->runs);
	L->runs[L->nruns++] = run;
	if (fixed)
		L->fixed = run;
	L->mapping = d->name == h->s_mapping && L->sp[SP_IDENT] >= 0 && L->sp[SP_LABEL] >= 0 &&
		     L->ops[L->sp[SP_LABEL]].kind == OP_STR;
	L->sysinfo = d->name == h->s_sysinfo;
	if (L->sp[SP_LABEL] >= 0) {
		L->label_int = L->ops[L->sp[SP_LABEL]].kind != OP_STR;
		L->label_last = !L->label_int;
		for (size_t i = (size_t)L->sp[SP_LABEL] + 1; i < L->nops; i++)
			if (L->ops[i].kind == OP_STR)
				L->label_last = false;
	}
	if (L->callstack && L->sp[SP_DUR] >= 0)
		L->role = ROLE_COMPLETE;
	if (L->sysinfo || L->mapping) /* (string definitions: metadata, not time) */
		L->flags = EVF_META;
	for (int i = 0; i < SP_N; i++) {
		if (L->sp[i] < 0)
			continue;
		L->spat[i] = L->ops[L->sp[i]].at < 0 ? UINT64_MAX : (uint64_t)L->ops[L->sp[i]].at;
		L->spsize[i] = (uint8_t)L->ops[L->sp[i]].size;
		if (L->spat[i] == UINT64_MAX && L->sp[i] + 1 > L->walk_to)
			L->walk_to = L->sp[i] + 1;
	}
	L->type = layout_type(h, L, d);
}

static void layout_free(struct layout *L)
{
	free(L->ops);
	free(L->runs);
}

/* The layout for events of klass id at the end of what was decoded. */
static struct layout *layout_slow(struct ht *h, uint32_t id, uint64_t P)
{
	struct layout *L;
	if (id < FAST_IDS) {
		L = h->fast[id];
		if (!L)
			L = h->fast[id] = xcalloc(1, sizeof *L);
	} else {
		uint64_t i;
		if (!hmap_get(&h->slow, id, &i)) {
			xgrow(&h->slowl, &h->capslow, h->nslow + 1, sizeof *h->slowl);
			i = h->nslow;
			h->slowl[h->nslow++] = xcalloc(1, sizeof *L);
			hmap_put(&h->slow, id, i);
		}
		L = h->slowl[i];
		if (L->seg == h->nchg && L->used)
			return L;
	}
	compile(h, L, id, P, (uint32_t)h->nchg);
	return L;
}

static inline struct layout *layout_now(struct ht *h, uint32_t id, uint64_t P)
{
	if (LIKELY(id < FAST_IDS)) {
		struct layout *L = h->fast[id];
		if (LIKELY(L && L->seg == h->nchg))
			return L;
	}
	return layout_slow(h, id, P);
}

/* The layout decoding compiled for klass id in the last stretch, if any
 * (looked at only: fields run on two threads). */
static struct layout *layout_ready(const struct ht *h, uint32_t id)
{
	uint64_t i;
	struct layout *L = id < FAST_IDS ? h->fast[id] : hmap_get(&h->slow, id, &i) ? h->slowl[i] : NULL;
	return L && L->used && L->seg == h->nchg ? L : NULL;
}

/* The layout for an event of klass id at offset P, as it was there (in a
 * cache of this thread's when decoding did not compile it: a reopened
 * trace's). */
static struct layout *layout_at(struct ht *h, uint32_t id, uint64_t P)
{
	uint32_t seg = seg_at(h, P);
	struct layout *L = seg == h->nchg ? layout_ready(h, id) : NULL;
	if (L)
		return L;
	L = &h->lazy[worker_index()][(id * 31u + seg) % LAZY_SLOTS];
	if (!L->used || L->id != id || L->seg != seg)
		compile(h, L, id, P, seg);
	return L;
}

/* Bytes of an event body of layout L in q[0..n), NOT_WHOLE when cut short. */
static inline uint64_t body_len(const struct layout *L, const uint8_t *q, uint64_t n)
{
	if (L->fixed != NOT_WHOLE)
		return n >= L->fixed ? L->fixed : NOT_WHOLE;
	uint64_t pos = 0;
	for (size_t i = 0;; i++) {
		uint64_t r = L->runs[i];
		if (r > n - pos)
			return NOT_WHOLE;
		pos += r;
		if (i + 1 == L->nruns)
			return pos;
		const uint8_t *z = memchr(q + pos, 0, n - pos);
		if (!z)
			return NOT_WHOLE;
		pos = (uint64_t)(z - q) + 1;
	}
}

/* Walk the ops of a whole body: start and length of op i's value. */
struct walk {
	const uint8_t *q;
	uint64_t n, pos;
};

static bool op_next(const struct op *o, struct walk *w, uint64_t *start, uint64_t *len)
{
	*start = w->pos;
	if (o->kind == OP_STR) {
		const uint8_t *z = w->pos < w->n ? memchr(w->q + w->pos, 0, w->n - w->pos) : NULL;
		if (!z)
			return false;
		*len = (uint64_t)(z - (w->q + w->pos));
		w->pos += *len + 1;
		return true;
	}
	if (o->size > w->n - w->pos)
		return false;
	*len = o->size;
	w->pos += o->size;
	return true;
}

/* Where the special fields of a whole body start: walk to those after a string. */
static void specials_walk(const struct layout *L, const uint8_t *body, uint64_t n, uint64_t at[SP_N])
{
	struct walk w = {body, n, 0};
	uint64_t start, len;
	for (int32_t i = 0; i < L->walk_to && op_next(&L->ops[i], &w, &start, &len); i++)
		for (int s = 0; s < SP_N; s++)
			if (L->sp[s] == i)
				at[s] = start;
}

static void specials(const struct layout *L, const uint8_t *body, uint64_t n, uint64_t at[SP_N])
{
	for (int i = 0; i < SP_N; i++)
		at[i] = L->spat[i];
	if (L->walk_to)
		specials_walk(L, body, n, at);
}

/* ---- names, lanes ----------------------------------------------------------- */

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

static int ht_probe(const uint8_t *p, size_t n, bool final)
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

static void *ht_open(struct input *in)
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

static void ht_close(void *vst)
{
	struct ht *h = vst;
	for (size_t i = 0; i < h->nkd; i++)
		free(h->kd[i].f);
	for (size_t i = 0; i < h->nlists; i++)
		free(h->lists[i].v);
	for (size_t i = 0; i < FAST_IDS; i++)
		if (h->fast[i]) {
			layout_free(h->fast[i]);
			free(h->fast[i]);
		}
	for (size_t i = 0; i < h->nslow; i++) {
		layout_free(h->slowl[i]);
		free(h->slowl[i]);
	}
	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < LAZY_SLOTS; i++)
			layout_free(&h->lazy[t][i]);
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

/* NUL-terminated string at q[0..n): its length, or -1 when the NUL has not arrived. */
static inline int64_t cstr(const uint8_t *q, size_t n)
{
	const uint8_t *z = memchr(q, 0, n);
	return z ? z - q : -1;
}

static bool emit_meta(struct ht *h, uint64_t P, const struct hdr *hd, uint32_t k)
{
	struct model *m = dec_model(h->in);
	uint32_t type = model_type(m, &(struct type){.name = intern(h, hard_names[k]),
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
		changed(h, P);
		int64_t old = kd_at(h, &h->by_id, id, P, h->nst - 1);
		if (old >= 0 && !h->kd[old].builtin)
			h->redefined++;
		kd_new(h, P, id, dec_str(h->in, name, (size_t)l1), count, false);
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
	changed(h, P);
	if (dt == 0 && s->first0 == UINT64_MAX)
		s->first0 = P;
	if (dt == 99 && s->first99 == UINT64_MAX)
		s->first99 = P;
	int64_t kd = kd_at(h, &h->by_id, id, P, h->nst - 1);
	if (kd < 0 || h->kd[kd].builtin) {
		if (!h->orphan_fields++)
			dec_damage(h->in, P, "field info for klass %u, which this stream has not described: ignored", id);
	} else if (h->kd[kd].nf >= MAX_FIELDS) {
		if (!h->too_many_fields++)
			dec_damage(h->in, P, "klass %u: more than %d field descriptions: the rest are ignored", id,
				   MAX_FIELDS);
	} else {
		kd_field(h, (uint32_t)kd, P, (const char *)name, (size_t)l1, (const char *)fname, (size_t)l2, size, dt,
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
		rd_hdr(pq, &h->st[stream_at(h, h->prev_off)], &ph);
		bool strings = ph.k == K_KLASS_INFO || ph.k == K_FIELD_INFO;
		if (ph.k >= K_HARD) {
			const struct layout *L = layout_at(h, ph.k, h->prev_off);
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
static void version_of(const struct layout *L, const uint8_t *body, uint64_t n, bool be, uint8_t v[3])
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
		version_of(L, body, blen, be, h->version);
		h->have_version = true;
	}
}

/* An event of a described class at q (avail bytes, up to end): emit it.
 * Returns its length, 0 when it is not all there, SIZE_MAX when decoding
 * stops here. */
static inline size_t data_event(struct ht *h, struct hstream *s, const uint8_t *q, size_t avail, uint64_t P,
				const struct hdr *hd, const uint8_t *end)
{
	struct layout *L = layout_now(h, hd->k, P);
	if (UNLIKELY(!L->kd)) {
		unknown_klass(h, P, hd->k);
		return SIZE_MAX;
	}
	if (UNLIKELY(L->err[0])) {
		dec_fatal(h->in, P, "%s: its events cannot be decoded, nor anything after them", L->err);
		return SIZE_MAX;
	}
	const uint8_t *body = q + HDR;
	uint64_t blen = body_len(L, body, avail - HDR);
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

static size_t ht_feed(void *vst, const uint8_t *p, size_t n, uint64_t off, bool final)
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
			new_stream(h, P, false, ld32(q, false) == 0);
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
				new_stream(h, P, b == 1, true);
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

/* ---- lazy decoding ---------------------------------------------------------- */

static const char *class_name_at(struct ht *h, uint32_t id, uint64_t P)
{
	if (id < K_HARD)
		return hard_names[id];
	int64_t k = kd_at(h, &h->by_id, id, P, stream_at(h, P));
	return k < 0 ? NULL : sname(h, h->kd[k].name);
}

/* Put the fields of a body; false when it is cut short. */
static bool put_ops(struct ht *h, const struct layout *L, const uint8_t *body, uint64_t n, bool be,
		    bool skip_specials, struct fsink *out)
{
	struct walk w = {body, n, 0};
	for (size_t i = 0; i < L->nops; i++) {
		const struct op *o = &L->ops[i];
		uint64_t st, len;
		if (!op_next(o, &w, &st, &len))
			return false;
		const uint8_t *v = body + st;
		if (skip_specials &&
		    ((int32_t)i == L->sp[SP_DUR] || (int32_t)i == L->sp[SP_TID] || (int32_t)i == L->sp[SP_LABEL]))
			continue;
		struct field f = {.name = o->name};
		switch (o->kind) {
		case OP_INT:
			f.kind = FK_INT;
			f.v.i = rd_int(v, o->size, be);
			break;
		case OP_UINT:
			f.kind = FK_UINT;
			f.v.u = rd_uint(v, o->size, be);
			break;
		case OP_PTR:
			f.kind = FK_HEX;
			f.v.u = rd_uint(v, o->size, be);
			break;
		case OP_FLOAT: {
			uint32_t u = ld32(v, be);
			float x;
			memcpy(&x, &u, 4);
			f.kind = FK_FLOAT;
			f.v.d = x;
			break;
		}
		case OP_DOUBLE: {
			uint64_t u = ld64(v, be);
			memcpy(&f.v.d, &u, 8);
			f.kind = FK_DOUBLE;
			break;
		}
		case OP_STR:
			f.kind = FK_STR;
			f.v.s.p = v;
			f.v.s.n = (size_t)len;
			break;
		default:
			f.kind = FK_BYTES; /* odd sizes, arrays: bytes in file order */
			f.v.s.p = v;
			f.v.s.n = (size_t)len;
			break;
		}
		if ((int32_t)i == L->sp[SP_DUR] && L->role == ROLE_COMPLETE)
			f.unit = "ns";
		if ((int32_t)i == L->sp[SP_LABEL] && L->label_int) {
			/* resolved now: a mapping may have come after the event */
			uint64_t s;
			if (hmap_get(&h->map, f.v.u, &s)) {
				size_t sl;
				const char *str = model_strget(dec_model(h->in), (uint32_t)s, &sl);
				f_str(out, o->name, str, sl);
				f.name = "label_id";
			}
		}
		f_put(out, &f);
	}
	return true;
}

/* Read the event at e->off: header, stream, and the bytes after the header. */
static const uint8_t *load(struct ht *h, const struct event *e, const struct hstream **s, struct hdr *hd,
			   uint64_t *n)
{
	uint64_t avail;
	const uint8_t *q = input_bytes(h->in, e->off, &avail);
	if (!q || avail < HDR || !h->nst)
		return NULL;
	*s = &h->st[stream_at(h, e->off)];
	rd_hdr(q, *s, hd);
	*n = avail - HDR;
	return q + HDR;
}

static const char *dt_name(const struct hstream *s, uint64_t P, uint8_t code)
{
	return dt_names[dt_of(code, spec_numbering(s, P))];
}

static void ht_fields(void *vst, const struct event *e, struct fsink *out)
{
	struct ht *h = vst;
	const struct hstream *s;
	struct hdr hd;
	uint64_t n;
	const uint8_t *b = load(h, e, &s, &hd, &n);
	if (!b) {
		f_cstr(out, "error", "event not readable");
		return;
	}
	const char *cname = class_name_at(h, hd.k, e->off);
	f_put(out, &(struct field){.name = "klass_id", .kind = FK_UINT, .v.u = hd.k, .value_name = cname});
	f_unit(out, "timestamp", hd.ts, "ns");
	f_uint(out, "id", hd.id);
	if (hd.k == K_ENDIANNESS) {
		if (n >= 1)
			f_put(out, &(struct field){.name = "endianness", .kind = FK_UINT, .v.u = b[0],
						   .value_name = b[0] == 1 ? "big-endian" : "little-endian"});
	} else if (hd.k == K_KLASS_INFO || hd.k == K_FIELD_INFO) {
		if (n < 4)
			return;
		uint32_t id = ld32(b, s->be);
		f_put(out, &(struct field){.name = "info_klass_id", .kind = FK_UINT, .v.u = id,
					   .value_name = hd.k == K_FIELD_INFO ? class_name_at(h, id, e->off) : NULL});
		int64_t l1 = cstr(b + 4, n - 4);
		if (l1 < 0)
			return;
		f_str(out, hd.k == K_KLASS_INFO ? "event_klass_name" : "field_type", b + 4, (size_t)l1);
		uint64_t at = 4 + (uint64_t)l1 + 1;
		if (hd.k == K_KLASS_INFO) {
			if (n > at)
				f_uint(out, "field_count", b[at]);
			return;
		}
		int64_t l2 = cstr(b + at, n - at);
		if (l2 < 0)
			return;
		f_str(out, "field_name", b + at, (size_t)l2);
		at += (uint64_t)l2 + 1;
		if (n < at + 9)
			return;
		f_unit(out, "size", ld64(b + at, s->be), "bytes");
		f_put(out, &(struct field){.name = "data_type", .kind = FK_UINT, .v.u = b[at + 8],
					   .value_name = dt_name(s, e->off, b[at + 8])});
	} else if (hd.k >= K_HARD) {
		const struct layout *L = layout_at(h, hd.k, e->off);
		if (!L->kd || L->err[0] || !put_ops(h, L, b, n, s->be, false, out))
			f_cstr(out, "error", "event cut short");
	}
}

static void ht_summary(void *vst, const struct event *e, struct buf *out)
{
	struct ht *h = vst;
	const struct hstream *s;
	struct hdr hd;
	uint64_t n;
	const uint8_t *b = load(h, e, &s, &hd, &n);
	if (!b) {
		buf_adds(out, "(event not readable)");
		return;
	}
	switch (hd.k) {
	case K_ENDIANNESS:
		buf_adds(out, n && b[0] == 1 ? "big-endian" : "little-endian");
		if (stream_at(h, e->off) > 0)
			buf_adds(out, ": a new stream starts here");
		return;
	case K_EVENT: buf_adds(out, "bare event"); return;
	case K_KLASS_INFO:
	case K_FIELD_INFO: {
		/* "klass 9 SampleEvent: 13 fields", "klass 9 field i8: int8_t INTEGER, 1 bytes" */
		struct line_sink ls;
		line_sink_init(&ls, out);
		int64_t l1 = n >= 4 ? cstr(b + 4, n - 4) : -1;
		if (l1 < 0) {
			buf_adds(out, "(event cut short)");
			return;
		}
		uint64_t at = 4 + (uint64_t)l1 + 1;
		buf_printf(out, "klass %u ", ld32(b, s->be));
		if (hd.k == K_KLASS_INFO) {
			esc_term(out, b + 4, (size_t)l1);
			if (n > at)
				buf_printf(out, ": %u fields", b[at]);
			return;
		}
		int64_t l2 = cstr(b + at, n - at);
		if (l2 < 0 || n < at + (uint64_t)l2 + 10) {
			buf_adds(out, "(event cut short)");
			return;
		}
		buf_adds(out, "field ");
		esc_term(out, b + at, (size_t)l2);
		buf_adds(out, ": ");
		esc_term(out, b + 4, (size_t)l1);
		at += (uint64_t)l2 + 1;
		uint8_t dt = b[at + 8];
		const char *dn = dt_name(s, e->off, dt);
		if (dn)
			buf_printf(out, " %s", dn);
		else
			buf_printf(out, " data type %u", dt);
		buf_printf(out, ", %llu bytes", (unsigned long long)ld64(b + at, s->be));
		return;
	}
	default: break;
	}
	const struct layout *L = layout_at(h, hd.k, e->off);
	if (!L->kd || L->err[0] || body_len(L, b, n) == NOT_WHOLE) {
		buf_adds(out, "(event not decodable here)");
		return;
	}
	struct line_sink ls;
	line_sink_init(&ls, out);
	if (L->role == ROLE_COMPLETE && L->sp[SP_LABEL] >= 0) {
		/* a scope: its label and how long it took, then any fields of its own */
		uint64_t at[SP_N];
		specials(L, b, n, at);
		const struct op *o = &L->ops[L->sp[SP_LABEL]];
		const uint8_t *v = b + at[SP_LABEL];
		uint64_t sid;
		if (!L->label_int) {
			esc_term(out, v, strlen((const char *)v));
		} else if (hmap_get(&h->map, rd_uint(v, o->size, s->be), &sid)) {
			size_t sl;
			const char *str = model_strget(dec_model(h->in), (uint32_t)sid, &sl);
			esc_term(out, str, sl);
		} else {
			buf_printf(out, "%llu", (unsigned long long)rd_uint(v, o->size, s->be));
		}
		buf_addc(out, ' ');
		fmt_dur(out, e->dur);
		ls.need_space = true;
		put_ops(h, L, b, n, s->be, true, &ls.s);
		return;
	}
	if (L->sysinfo) {
		uint8_t v[3];
		version_of(L, b, n, s->be, v);
		buf_printf(out, "HawkTracer %u.%u.%u", v[0], v[1], v[2]);
		return;
	}
	put_ops(h, L, b, n, s->be, false, &ls.s);
}

/* ---- info ------------------------------------------------------------------ */

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The byte order, library version, header layout and streams. */
static void info_streams(const struct ht *h, struct fsink *out)
{
	const struct hstream *s0 = &h->st[0];
	f_cstr(out, "byte_order", s0->be ? "big-endian" : "little-endian");
	if (h->have_version) {
		char v[48];
		snprintf(v, sizeof v, "HawkTracer %u.%u.%u", h->version[0], h->version[1], h->version[2]);
		f_cstr(out, "library", v);
	} else {
		f_null(out, "library");
	}
	f_cstr(out, "header_order", s0->spec_hdr ? "timestamp, id, klass_id (the spec's order)"
						 : "klass_id, timestamp, id");
	f_cstr(out, "data_types", spec_numbering(s0, UINT64_MAX) ? "0..6 (the spec's numbering)"
								  : "1..6, 99 (the library's numbering)");
	f_uint(out, "streams", h->nst);
	if (h->nst > 1) {
		f_arr(out, "stream_starts");
		for (size_t i = 0; i < h->nst; i++) {
			f_obj(out, NULL);
			f_uint(out, "offset", h->st[i].start);
			f_cstr(out, "byte_order", h->st[i].be ? "big-endian" : "little-endian");
			f_uint(out, "events", h->st[i].events);
			f_end(out);
		}
		f_end(out);
	}
}

/* Classes as described (the built-in defaults only when a stream did not
 * describe them), one line each: "9 SampleEvent: 13 fields, base HT_Event,
 * 17 events". */
static void info_classes(const struct ht *h, struct fsink *out)
{
	struct model *m = dec_model(h->in);
	size_t ncls = 0;
	for (size_t i = 0; i < h->nkd; i++)
		ncls += !h->kd[i].builtin;
	f_uint(out, "classes", ncls);
	f_arr(out, "class_list");
	struct buf line = {0};
	for (size_t i = 0; i < h->nkd; i++) {
		const struct kdesc *d = &h->kd[i];
		if (d->builtin && !d->events)
			continue;
		size_t nl;
		const char *nm = model_strget(m, d->name, &nl);
		buf_reset(&line);
		buf_printf(&line, "%u ", d->id);
		buf_add(&line, nm, nl);
		buf_printf(&line, ": %zu fields", d->nf);
		if (d->nf != d->declared && !d->builtin)
			buf_printf(&line, " (field_count says %u)", d->declared);
		if (d->nf && dt_of(d->f[0].dt, !d->f[0].canon && spec_numbering(&h->st[d->stream], UINT64_MAX)) ==
				     DT_STRUCT) {
			nm = model_strget(m, d->f[0].type, &nl);
			buf_adds(&line, ", base ");
			buf_add(&line, nm, nl);
		}
		if (d->builtin)
			buf_adds(&line, ", not described (built-in layout)");
		buf_printf(&line, ", %llu events", (unsigned long long)(d->id < K_HARD ? h->hard_events[d->id] : d->events));
		f_str(out, NULL, line.p, line.len);
	}
	buf_free(&line);
	f_end(out);
}

/* Events per class name, in order of first description. */
static void info_events_per_class(struct ht *h, struct fsink *out)
{
	f_obj(out, "events_per_class");
	for (int k = 0; k < K_HARD; k++)
		if (h->hard_events[k])
			f_uint(out, hard_names[k], h->hard_events[k]);
	struct hmap seen = {0};
	for (size_t i = 0; i < h->nkd; i++) {
		const struct kdesc *d = &h->kd[i];
		if (d->id < K_HARD || !d->events || hmap_get(&seen, d->name, &(uint64_t){0}))
			continue;
		hmap_put(&seen, d->name, 1);
		uint64_t total = 0;
		for (size_t j = i; j < h->nkd; j++)
			if (h->kd[j].name == d->name && h->kd[j].id >= K_HARD)
				total += h->kd[j].events;
		f_uint(out, sname(h, d->name), total);
	}
	hmap_free(&seen);
	f_end(out);
}

/* Threads, by id. */
static void info_threads(const struct ht *h, struct fsink *out)
{
	uint64_t *tids = xcalloc(h->nthreads + 1, sizeof *tids);
	size_t nt = 0;
	for (uint64_t t = 0; t < FAST_TIDS; t++)
		if (h->tlane[t])
			tids[nt++] = t;
	for (size_t i = 0; i < h->tlanes.cap; i++)
		if (h->tlanes.used[i])
			tids[nt++] = h->tlanes.keys[i];
	qsort(tids, nt, sizeof *tids, by_u64);
	f_uint(out, "threads", nt);
	f_arr(out, "thread_ids");
	for (size_t i = 0; i < nt && i < 1000; i++)
		f_uint(out, NULL, tids[i]);
	f_end(out);
	free(tids);
}

static void ht_info(struct source *src, struct fsink *out)
{
	struct input *in = dec_source_input(src, 0);
	if (!in || !in->dstate)
		return;
	struct ht *h = in->dstate;
	if (!h->nst) {
		f_cstr(out, "stream", "no events");
		return;
	}
	info_streams(h, out);
	info_classes(h, out);
	info_events_per_class(h, out);
	info_threads(h, out);
	f_uint(out, "string_mappings", h->mappings);
	f_uint(out, "mapped_labels", h->map.n);
	if (h->conflicts)
		f_put(out, &(struct field){.name = "conflicting_mappings", .kind = FK_UINT, .v.u = h->conflicts,
					   .meaning = "the first mapping of an identifier is used"});
	if (h->redefined)
		f_put(out, &(struct field){.name = "redefined_classes", .kind = FK_UINT, .v.u = h->redefined,
					   .meaning = "events after a redefinition use the new description"});
	if (h->orphan_fields)
		f_uint(out, "ignored_field_infos", h->orphan_fields + h->too_many_fields);
	if (in->consumed < in->size)
		f_put(out, &(struct field){.name = "undecoded_bytes", .kind = FK_UINT,
					   .v.u = in->size - in->consumed,
					   .meaning = "from the offset where decoding stopped"});
}

/* ---- the saved index -------------------------------------------------------- */

/* What decoding learnt; the compiled layouts are not kept (they are
 * compiled again when used). */
static void ht_save(void *vst, struct buf *out)
{
	struct ht *h = vst;
	put_array(out, h->st, h->nst, sizeof *h->st);
	put_u64(out, h->nkd);
	for (size_t i = 0; i < h->nkd; i++) {
		const struct kdesc *k = &h->kd[i];
		put_u64(out, k->off);
		put_u64(out, (uint64_t)k->id << 32 | k->name);
		put_u64(out, (uint64_t)k->stream << 16 | (uint64_t)k->declared << 8 | k->builtin);
		put_u64(out, k->events);
		put_array(out, k->f, k->nf, sizeof *k->f);
	}
	put_array(out, h->chg, h->nchg, sizeof *h->chg);
	hmap_save(&h->map, out);
	hmap_save(&h->names, out);
	put_array(out, h->tlane, FAST_TIDS, sizeof *h->tlane);
	hmap_save(&h->tlanes, out);
	uint64_t v[] = {h->data_since_chg, h->mappings, h->conflicts, h->nthreads, h->proc_lane, h->meta_lane,
			h->redefined, h->orphan_fields, h->too_many_fields, h->have_version, h->version[0],
			h->version[1], h->version[2], h->prev_off, h->have_prev};
	put_array(out, v, ARRAY_LEN(v), sizeof *v);
	put_array(out, h->hard_events, K_HARD, sizeof *h->hard_events);
}

static bool restore_klasses(struct ht *h, struct blob *r, uint32_t nstr)
{
	uint64_t n = get_below(r, (uint64_t)(r->end - r->p) / 32 + 1);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t off = get_u64(r), a = get_u64(r), b = get_u64(r), events = get_u64(r);
		struct kdesc k = {.off = off, .id = (uint32_t)(a >> 32), .name = (uint32_t)a, .stream = (uint32_t)(b >> 16),
				  .declared = (uint8_t)(b >> 8), .builtin = b & 1, .events = events};
		k.f = get_copy(r, &k.nf, sizeof *k.f);
		k.capf = k.nf;
		xgrow(&h->kd, &h->capkd, h->nkd + 1, sizeof *h->kd);
		h->kd[h->nkd++] = k;
		if (k.name >= nstr || k.stream >= h->nst || k.nf > MAX_FIELDS)
			return false;
		for (size_t j = 0; j < k.nf; j++) {
			fix_bool(&h->kd[i].f[j].canon);
			if (k.f[j].type >= nstr || k.f[j].name >= nstr)
				return false;
		}
		list_add(h, &h->by_id, k.id, (uint32_t)i);
		list_add(h, &h->by_name, k.name, (uint32_t)i);
	}
	return !r->bad;
}

static bool ht_restore(void *vst, struct blob *r)
{
	struct ht *h = vst;
	struct model *m = dec_model(h->in);
	uint32_t nstr = strtab_count(model_strings(m)), nlanes = model_nlanes(m);
	h->st = get_copy(r, &h->nst, sizeof *h->st);
	h->capst = h->nst;
	for (size_t i = 0; i < h->nst; i++) {
		bool *flags[] = {&h->st[i].be, &h->st[i].spec_hdr, &h->st[i].hdr_known, &h->st[i].has_endianness};
		for (size_t j = 0; j < ARRAY_LEN(flags); j++)
			fix_bool(flags[j]);
	}
	if (!restore_klasses(h, r, nstr))
		return false;
	h->chg = get_copy(r, &h->nchg, sizeof *h->chg);
	h->capchg = h->nchg;
	if (!hmap_restore(&h->map, r, nstr) || !hmap_restore(&h->names, r, nstr))
		return false;
	size_t n;
	const void *tl = get_array(r, &n, sizeof *h->tlane);
	if (n != FAST_TIDS)
		return false;
	memcpy(h->tlane, tl, sizeof h->tlane);
	uint64_t v[15];
	if (!hmap_restore(&h->tlanes, r, nlanes))
		return false;
	const void *vals = get_array(r, &n, sizeof *v);
	if (n != ARRAY_LEN(v))
		return false;
	memcpy(v, vals, sizeof v);
	h->data_since_chg = v[0] & 1, h->mappings = v[1], h->conflicts = v[2], h->nthreads = v[3];
	h->proc_lane = (uint32_t)v[4], h->meta_lane = (uint32_t)v[5], h->redefined = v[6], h->orphan_fields = v[7];
	h->too_many_fields = v[8], h->have_version = v[9] & 1;
	for (int i = 0; i < 3; i++)
		h->version[i] = (uint8_t)v[10 + i];
	h->prev_off = v[13], h->have_prev = v[14] & 1;
	const void *hard = get_array(r, &n, sizeof *h->hard_events);
	if (n != K_HARD || v[4] > nlanes || v[5] > nlanes)
		return false;
	memcpy(h->hard_events, hard, sizeof h->hard_events);
	uint64_t threads = h->tlanes.n; /* (info lists them: it must be their count) */
	for (size_t i = 0; i < FAST_TIDS; i++) {
		threads += h->tlane[i] != 0;
		if (h->tlane[i] > nlanes)
			return false;
	}
	return !r->bad && threads == h->nthreads;
}

/* (an event cut short at the end is damage: a source with damage is not
 * read on) */
static bool ht_resumable(void *st)
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
