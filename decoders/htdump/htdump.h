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
#ifndef TTV_HTDUMP_H
#define TTV_HTDUMP_H

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
extern const char *const ht_hard_names[K_HARD];

/* DataType after the stream's numbering is applied. */
enum dtype { DT_STRUCT, DT_STRING, DT_INTEGER, DT_FLOAT, DT_DOUBLE, DT_POINTER, DT_UNSIGNED, DT_UNKNOWN };
extern const char *const ht_dt_names[];

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

/* ---- small helpers, inline: the feed reads every event with them ---------- */

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

static inline uint32_t intern(struct ht *h, const char *s) { return dec_str(h->in, s, strlen(s)); }

static inline const char *sname(struct ht *h, uint32_t id) { return model_strget(dec_model(h->in), id, NULL); }

/* NUL-terminated string at q[0..n): its length, or -1 when the NUL has not arrived. */
static inline int64_t cstr(const uint8_t *q, size_t n)
{
	const uint8_t *z = memchr(q, 0, n);
	return z ? z - q : -1;
}

/* Walk the ops of a whole body: start and length of op i's value. */
struct walk {
	const uint8_t *q;
	uint64_t n, pos;
};

static inline bool op_next(const struct op *o, struct walk *w, uint64_t *start, uint64_t *len)
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
static inline void specials_walk(const struct layout *L, const uint8_t *body, uint64_t n, uint64_t at[SP_N])
{
	struct walk w = {body, n, 0};
	uint64_t start, len;
	for (int32_t i = 0; i < L->walk_to && op_next(&L->ops[i], &w, &start, &len); i++)
		for (int s = 0; s < SP_N; s++)
			if (L->sp[s] == i)
				at[s] = start;
}

static inline void specials(const struct layout *L, const uint8_t *body, uint64_t n, uint64_t at[SP_N])
{
	for (int i = 0; i < SP_N; i++)
		at[i] = L->spat[i];
	if (L->walk_to)
		specials_walk(L, body, n, at);
}

/* the class table (classes.c) */
void ht_list_add(struct ht *h, struct hmap *by, uint64_t key, uint32_t v);
size_t ht_stream_at(const struct ht *h, uint64_t off);
int64_t ht_kd_at(const struct ht *h, struct hmap *by, uint64_t key, uint64_t P, size_t stream);
bool ht_spec_numbering(const struct hstream *s, uint64_t P);
enum dtype ht_dt_of(uint8_t code, bool spec);
uint32_t ht_kd_new(struct ht *h, uint64_t off, uint32_t id, uint32_t name, uint8_t declared, bool builtin);
void ht_kd_field(struct ht *h, uint32_t k, uint64_t off, const char *type, size_t ntype, const char *name,
		     size_t nname, uint64_t size, uint8_t dt, bool canon);
void ht_changed(struct ht *h, uint64_t off);
void ht_new_stream(struct ht *h, uint64_t off, bool be, bool has_endianness);
void ht_layout_free(struct layout *L);
struct layout *ht_layout_now(struct ht *h, uint32_t id, uint64_t P);
struct layout *ht_layout_at(struct ht *h, uint32_t id, uint64_t P);
uint64_t ht_body_len(const struct layout *L, const uint8_t *q, uint64_t n);

/* probing and feeding (feed.c) */
void ht_version_of(const struct layout *L, const uint8_t *body, uint64_t n, bool be, uint8_t v[3]);
int ht_probe(const uint8_t *p, size_t n, bool final);
void *ht_open(struct input *in);
void ht_close(void *vst);
size_t ht_feed(void *vst, const uint8_t *p, size_t n, uint64_t off, bool final);
bool ht_resumable(void *st);

/* lazy decoding (decode.c) */
void ht_fields(void *vst, const struct event *e, struct fsink *out);
void ht_summary(void *vst, const struct event *e, struct buf *out);

/* info (info.c) */
void ht_info(struct source *src, struct fsink *out);

/* the saved index (saved.c) */
void ht_save(void *vst, struct buf *out);
bool ht_restore(void *vst, struct blob *r);

#endif
