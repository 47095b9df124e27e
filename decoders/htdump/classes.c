/* htdump/classes.c: the class table as descriptions arrive, and classes compiled into layouts */
#include "decoders/htdump/htdump.h"

const char *const ht_hard_names[K_HARD] = {"HT_EndiannessInfoEvent", "HT_Event", "HT_EventKlassInfoEvent",
					       "HT_EventKlassFieldInfoEvent"};
const char *const ht_dt_names[] = {"STRUCT", "STRING", "INTEGER", "FLOAT", "DOUBLE", "POINTER",
				       "UNSIGNED_INTEGER", NULL};

void ht_list_add(struct ht *h, struct hmap *by, uint64_t key, uint32_t v)
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

size_t ht_stream_at(const struct ht *h, uint64_t off)
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
int64_t ht_kd_at(const struct ht *h, struct hmap *by, uint64_t key, uint64_t P, size_t stream)
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
bool ht_spec_numbering(const struct hstream *s, uint64_t P)
{
	return s->first0 != UINT64_MAX && s->first0 <= P && (s->first99 == UINT64_MAX || s->first99 > P);
}

enum dtype ht_dt_of(uint8_t code, bool spec)
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

uint32_t ht_kd_new(struct ht *h, uint64_t off, uint32_t id, uint32_t name, uint8_t declared, bool builtin)
{
	xgrow(&h->kd, &h->capkd, h->nkd + 1, sizeof *h->kd);
	uint32_t i = (uint32_t)h->nkd++;
	h->kd[i] = (struct kdesc){.off = off, .id = id, .name = name, .stream = (uint32_t)(h->nst - 1),
				  .declared = declared, .builtin = builtin};
	ht_list_add(h, &h->by_id, id, i);
	ht_list_add(h, &h->by_name, name, i);
	return i;
}

void ht_kd_field(struct ht *h, uint32_t k, uint64_t off, const char *type, size_t ntype, const char *name,
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
		uint32_t k = ht_kd_new(h, off, B[i].id, intern(h, B[i].name), 0, true);
		for (size_t j = 0; j < 4 && B[i].f[j].type; j++)
			ht_kd_field(h, k, off, B[i].f[j].type, strlen(B[i].f[j].type), B[i].f[j].name,
				 strlen(B[i].f[j].name), B[i].f[j].size, B[i].f[j].dt, true);
		h->kd[k].declared = (uint8_t)h->kd[k].nf;
	}
}

/* A description event at `off`: the layouts in force change from here. */
void ht_changed(struct ht *h, uint64_t off)
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

void ht_new_stream(struct ht *h, uint64_t off, bool be, bool has_endianness)
{
	xgrow(&h->st, &h->capst, h->nst + 1, sizeof *h->st);
	h->st[h->nst++] = (struct hstream){.start = off, .first0 = UINT64_MAX, .first99 = UINT64_MAX, .be = be,
					   .has_endianness = has_endianness, .hdr_known = !has_endianness};
	h->data_since_chg = true;
	ht_changed(h, off);
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
		enum dtype dt = ht_dt_of(f->dt, f->canon ? false : fl->spec);
		if (dt == DT_STRUCT) {
			if (f->type == h->s_event)
				continue; /* the header, already read */
			if (fl->depth == MAX_DEPTH) {
				snprintf(L->err, sizeof L->err, "class %s: more than %d levels of base classes",
					 sname(h, h->kd[fl->chain[0]].name), MAX_DEPTH);
				return false;
			}
			int64_t b = ht_kd_at(h, &h->by_name, f->type, fl->P, fl->stream);
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
	size_t stream = ht_stream_at(h, P);
	int64_t k = ht_kd_at(h, &h->by_id, id, P, stream);
	L->kd = k < 0 ? 0 : (uint32_t)k + 1;
	if (k < 0)
		return;
	const struct kdesc *d = &h->kd[k];
	struct flat fl = {.h = h, .L = L, .P = P, .stream = stream, .spec = ht_spec_numbering(&h->st[stream], P)};
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

void ht_layout_free(struct layout *L)
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

struct layout *ht_layout_now(struct ht *h, uint32_t id, uint64_t P)
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
struct layout *ht_layout_at(struct ht *h, uint32_t id, uint64_t P)
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
uint64_t ht_body_len(const struct layout *L, const uint8_t *q, uint64_t n)
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
