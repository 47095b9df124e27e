/* dial9/schema.c: schemas: parsed, shared between sub-streams, classified by name and annotations */
#include "decoders/dial9/dial9.h"

/* ---- small helpers -------------------------------------------------------- */

static inline bool is_uint_type(uint8_t t) { return t == FT_VARINT || t == FT_U8 || t == FT_U16 || t == FT_U32; }

static const char *unit_static(const uint8_t *p, size_t n)
{
	static const char *const units[] = {"ns", "us", "ms", "s", "bytes"};
	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (strlen(units[i]) == n && !memcmp(units[i], p, n))
			return units[i];
	return NULL;
}

bool d9_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

void d9_ids_put(struct ids *t, uint32_t id, uint32_t val)
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

/* ---- schemas: parse, share, annotate -------------------------------------- */

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

/* keyed: span enters and exits, which spans.c pairs on their ids */
static uint32_t mtype(struct d9 *d, const char *name, const char *cat, const char *name_field, enum ev_role role,
		      uint32_t pair, bool keyed)
{
	struct model *m = d->m;
	return model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
					   .category = model_str(m, cat, strlen(cat)),
					   .name_field = name_field ? model_str(m, name_field, strlen(name_field)) : 0,
					   .pair = pair,
					   .role = (uint8_t)role,
					   .owner = &dial9_decoder,
					   .keyed = keyed});
}

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* The exit event's name for an enter event's: SpanExit:X for SpanEnter:X,
 * SpanExit__T for SpanEnter__T (in d->tmp). */
static const char *exit_name(struct d9 *d, const char *enter)
{
	bool t = starts(enter, SPAN_ENTER_T);
	d->tmp.len = 0;
	buf_printf(&d->tmp, "%s%s", t ? SPAN_EXIT_T : SPAN_EXIT, enter + strlen(t ? SPAN_ENTER_T : SPAN_ENTER));
	return d->tmp.p;
}

/* The model type, role and lanes of a schema, from its name, fields and
 * role annotations (roles: the fields that annotations name). */
static void schema_classify(struct d9 *d, struct schema *s, const struct roles *roles, int *name_idx)
{
	const struct known *k = known_of(s->name);
	const char *cat = k ? k->category : "user", *nf = k ? k->name_field : NULL;
	s->kind = k ? k->kind : K_OTHER;
	if (starts(s->name, SPAN_ENTER) || starts(s->name, SPAN_ENTER_T))
		s->kind = K_SPAN_ENTER, cat = "span", nf = "span_name";
	else if (starts(s->name, SPAN_EXIT) || starts(s->name, SPAN_EXIT_T))
		s->kind = K_SPAN_EXIT, cat = "span", nf = "span_name";
	else if (roles->span >= 0)
		s->kind = K_SPAN_COMPLETE, cat = "span";
	else if (starts(s->name, "SpanClose__"))
		cat = "span";
	if (roles->name >= 0)
		nf = s->f[roles->name].name;
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
		pair = mtype(d, "PollEndEvent", "poll", NULL, ROLE_END, 0, false);
	} else if (s->kind == K_POLL_END) {
		role = ROLE_END;
		nf = NULL; /* no name: the worker's stack pairs it with the open poll */
		*name_idx = -1;
	} else if (s->kind == K_SPAN_ENTER) {
		role = ROLE_BEGIN;
		pair = mtype(d, exit_name(d, s->name), "span", nf, ROLE_END, 0, true);
	} else if (s->kind == K_SPAN_EXIT) {
		role = ROLE_END;
	} else if (s->kind == K_SPAN_COMPLETE) {
		role = ROLE_COMPLETE;
	}
	s->type = mtype(d, s->name, cat, nf, role, pair, s->kind == K_SPAN_ENTER || s->kind == K_SPAN_EXIT);
	s->flags = (uint32_t)role;
	if (s->kind == K_SYMBOL || s->kind == K_CALLFRAME || s->kind == K_METADATA)
		s->flags |= EVF_META;
}

static void schema_compile(struct schema *s, const struct roles *roles, int name_idx)
{
	const char *wname = s->kind == K_WAKE ? "target_worker" : "worker_id";
	s->ops = xcalloc(s->nfields + 1u, sizeof *s->ops);
	s->nops = 0;
	for (int i = 0; i < s->nfields; i++) {
		const struct dfield *f = &s->f[i];
		uint8_t role = R_NONE;
		if (i == name_idx)
			role = R_NAME;
		else if (s->kind == K_SPAN_COMPLETE && i == roles->span)
			role = R_SPAN;
		else if (is_uint_type(f->tag) && (i == roles->worker || (roles->worker < 0 && !strcmp(f->name, wname))))
			role = R_WORKER;
		else if (is_uint_type(f->tag) && (i == roles->tid || (roles->tid < 0 && !strcmp(f->name, "tid"))))
			role = R_TID;
		else if (is_uint_type(f->tag) && (i == roles->inst || i == roles->parent) && s->kind == K_SPAN_COMPLETE)
			role = i == roles->inst ? R_INSTANCE : R_PARENT;
		else if (is_uint_type(f->tag) && (s->kind == K_SPAN_ENTER || s->kind == K_SPAN_EXIT))
			role = !strcmp(f->name, "span_instance_id") ? R_INSTANCE
			       : !strcmp(f->name, "span_id")        ? R_SPAN_ID
								    : R_NONE;
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
		case FT_I64:
			if (role == R_SPAN)
				o.code = OP_I64;
			else
				o.code = OP_FIXED, o.n = size, o.role = R_NONE;
			break;
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

static bool is_key(const uint8_t *k, size_t n, const char *want) { return strlen(want) == n && !memcmp(k, want, n); }

/* A field's dial9.role annotation (the schema-extension roles). */
static void note_role(struct roles *r, int fi, const uint8_t *v, size_t n)
{
	if (is_key(v, n, "span.start"))
		r->start = fi;
	else if (is_key(v, n, "span.duration"))
		r->duration = fi;
	else if (is_key(v, n, "span.name"))
		r->name = fi;
	else if (is_key(v, n, "thread_id"))
		r->tid = fi;
	else if (is_key(v, n, "tokio.worker_id"))
		r->worker = fi;
}

/* A span's close event (SpanCloseEvent, SpanClose__{T}) with its start
 * (start_timestamp_ns): the span's whole life, from start to close, named
 * by span_name (the span wire contract). */
static void close_roles(const struct schema *s, struct roles *r)
{
	if (strcmp(s->name, "SpanCloseEvent") && !starts(s->name, "SpanClose__"))
		return;
	int st = field_index(s, "start_timestamp_ns"), nm = field_index(s, "span_name");
	if (r->start < 0 && r->duration < 0 && st >= 0)
		r->start = st;
	if (r->name < 0 && nm >= 0)
		r->name = nm;
	r->inst = field_index(s, "span_instance_id");
	r->parent = field_index(s, "parent_span_instance_id");
}

/* A complete span: a start or duration field of an integer type in a time
 * unit (none: ns); with both, the start (as upstream's decoder).  A name
 * role that is no string is ignored. */
static void span_roles(struct schema *s, struct roles *r)
{
	int at = r->start >= 0 ? r->start : r->duration;
	if (r->name >= 0 && s->f[r->name].tag != FT_STRING && s->f[r->name].tag != FT_PSTR)
		r->name = -1;
	if (at < 0 || !(is_uint_type(s->f[at].tag) || s->f[at].tag == FT_I64) || !s->has_ts)
		return;
	uint64_t scale = 1;
	if (s->f[at].unit && !unit_is_time(s->f[at].unit, &scale))
		return;
	r->span = at;
	s->span_is_start = at == r->start;
	s->span_scale = scale;
}

/* The numeric fields annotated with a metric kind: a model type each for
 * its samples ("Schema.field"), whose value_field names the field. */
static void metric_tracks(struct d9 *d, struct schema *s)
{
	for (uint16_t i = 0; i < s->nfields; i++) {
		const struct dfield *f = &s->f[i];
		if (!f->metric || !(is_uint_type(f->tag) || f->tag == FT_I64 || f->tag == FT_F64) || !s->has_ts)
			continue;
		s->metric_field = xrealloc(s->metric_field, (s->nmetrics + 1u) * sizeof *s->metric_field);
		s->metric_type = xrealloc(s->metric_type, (s->nmetrics + 1u) * sizeof *s->metric_type);
		d->tmp.len = 0;
		buf_printf(&d->tmp, "%s.%s", s->name, f->name);
		struct model *m = d->m;
		s->metric_field[s->nmetrics] = i;
		s->metric_type[s->nmetrics] = model_type(
			m, &(struct type){.name = model_str(m, d->tmp.p, d->tmp.len),
					  .category = model_str(m, "counter", 7),
					  .value_field = model_str(m, f->name, strlen(f->name)),
					  .role = ROLE_INSTANT,
					  .owner = &dial9_decoder});
		s->nmetrics++;
	}
}

/* Build a schema from its identity: the validated schema frame body (from
 * name_len on), then annotation entries (u16 field, u16 klen, key, u32 vlen, value). */
static struct schema *schema_build(struct d9 *d, const uint8_t *key, uint32_t nkey, uint32_t nraw, uint64_t hash)
{
	struct schema *s = xcalloc(1, sizeof *s);
	s->refs = 1;
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
		s->f[i].is = d9_int_is(s->f[i].name);
		p += 2 + fl;
		s->f[i].tag = *p & 0x7f;
		s->f[i].opt = (*p & FT_OPT) != 0;
		p++;
		/* durations by their names; points in time (realtime_ns, alloc_timestamp_ns) are not */
		const char *fn = s->f[i].name;
		if (d9_ends_with(fn, "_ns") && !d9_ends_with(fn, "timestamp_ns") && strcmp(fn, "realtime_ns"))
			s->f[i].unit = "ns";
		else if (d9_ends_with(fn, "_bytes"))
			s->f[i].unit = "bytes";
	}
	/* annotations, in order: later ones win */
	struct roles roles = {-1, -1, -1, -1, -1, -1, -1, -1};
	const uint8_t *e = s->key + nkey;
	while (p < e) {
		uint16_t fi = ld16le(p), kl = ld16le(p + 2);
		const uint8_t *k = p + 4;
		uint32_t vl = ld32le(k + kl);
		const uint8_t *v = k + kl + 4;
		p = v + vl;
		if (fi >= s->nfields)
			continue; /* other keys are only listed by info() */
		if (is_key(k, kl, "unit") || is_key(k, kl, "metrique.unit"))
			s->f[fi].unit = unit_static(v, vl);
		else if (is_key(k, kl, "dial9.role"))
			note_role(&roles, fi, v, vl);
		else if (is_key(k, kl, "kind"))
			s->f[fi].metric = is_key(v, vl, "gauge")		 ? METRIC_GAUGE
					  : is_key(v, vl, "counter")	 ? METRIC_COUNTER
					  : is_key(v, vl, "updown-counter") ? METRIC_UPDOWN
									 : 0;
	}
	close_roles(s, &roles);
	span_roles(s, &roles);
	int name_idx;
	schema_classify(d, s, &roles, &name_idx);
	schema_compile(s, &roles, name_idx);
	s->links = s->kind == K_SPAN_COMPLETE && roles.inst >= 0 && is_uint_type(s->f[roles.inst].tag);
	metric_tracks(d, s);
	return s;
}

void d9_schema_free(struct schema *s)
{
	if (--s->refs)
		return;
	free(s->metric_field);
	free(s->metric_type);
	for (unsigned i = 0; i < s->nfields; i++)
		free(s->f[i].name);
	free(s->f);
	free(s->ops);
	free(s->name);
	free(s->key);
	free(s);
}

/* Among v (by_hash: hash + probe -> index), the index of the schema with
 * this identity, else SIZE_MAX with *h at the free probe. */
static size_t schema_find(struct schema *const *v, const struct hmap *by_hash, const uint8_t *key, uint32_t nkey,
			  uint32_t nraw, uint64_t *h)
{
	uint64_t idx;
	for (; hmap_get(by_hash, *h, &idx); ++*h) {
		const struct schema *s = v[idx];
		if (s->nkey == nkey && s->nraw == nraw && !memcmp(s->key, key, nkey))
			return (size_t)idx;
	}
	return SIZE_MAX;
}

/* A schema for d: its directory's when it has one (made there on first sight). */
static struct schema *schema_made(struct d9 *d, const uint8_t *key, uint32_t nkey, uint32_t nraw, uint64_t hash)
{
	struct schemas *ss = d->shared;
	if (!ss)
		return schema_build(d, key, nkey, nraw, hash);
	uint64_t h = hash;
	size_t i = schema_find(ss->v, &ss->by_hash, key, nkey, nraw, &h);
	if (i == SIZE_MAX) {
		xgrow(&ss->v, &ss->cap, ss->n + 1, sizeof *ss->v);
		i = ss->n++;
		ss->v[i] = schema_build(d, key, nkey, nraw, hash);
		hmap_put(&ss->by_hash, h, i);
	}
	ss->v[i]->refs++;
	return ss->v[i];
}

/* The schema with this identity (made on first sight); its index. */
uint32_t d9_schema_get(struct d9 *d, const uint8_t *key, uint32_t nkey, uint32_t nraw)
{
	uint64_t hash = hash_bytes(key, nkey) ^ nraw, h = hash;
	size_t i = schema_find(d->sch, &d->sch_by_hash, key, nkey, nraw, &h);
	if (i != SIZE_MAX)
		return (uint32_t)i;
	xgrow(&d->sch, &d->capsch, d->nsch + 1, sizeof *d->sch);
	d->sch[d->nsch] = schema_made(d, key, nkey, nraw, hash);
	hmap_put(&d->sch_by_hash, h, d->nsch);
	return (uint32_t)d->nsch++;
}

void d9_schemas_free(struct schemas *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		d9_schema_free(ss->v[i]);
	free(ss->v);
	hmap_free(&ss->by_hash);
}
