/* HawkTracer HTDUMP writer for tests and benchmarks.
 *
 *   htwrite OUT < SPEC                      events from a text spec
 *   htwrite --generate N [--seed S] [--be] OUT
 *        about N events: 16 threads of nested scopes written children first
 *        in per-thread chunks of about 1 KB (as the library does), int and
 *        string labels with mappings before and after their first use, a
 *        user scope class and a user class of numbers
 *
 * Spec lines (value escapes: see t/writer.h):
 *   stream [be] [spec-header] [spec-types] [bare] [ts=T]
 *        an endianness event, then (unless `bare`) the library's metadata
 *        block: klasses 0..8 described as the library describes them, then
 *        system info 0.11.0.  spec-header writes headers in the spec's order
 *        (timestamp, id, klass_id); spec-types numbers DataType 0..6.
 *   class id=N name=NAME [base=B] [count=C] [nobase] FIELD:TYPE ...
 *        a klass-info event and its field-info events.  base defaults to
 *        HT_Event; `nobase` leaves the base field out; count overrides
 *        field_count.  TYPE: str i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 ptr
 *        ptr4, intB / uintB (B bytes, any B: raw when not 1, 2, 4, 8), or
 *        dtC_S (DataType code C as written, size S).
 *   event klass=N [ts=] [id=] [null=FIELD] FIELD=VALUE ...
 *        an event of a class described before (base fields by name too);
 *        missing values are 0 or "".  Raw fields take hex bytes ("deadbeef").
 *        null=FIELD writes that string as the library writes a NULL string:
 *        no bytes at all, not even the NUL.
 *   cs ts= dur= tid= (label=STR | ilabel=NUM) [id=]   a scope (klass 6 or 5)
 *   map ts= ident= label=STR                          a string mapping (klass 7)
 *   field klass=N type=T name=F size=S dt=C [ts=] [id=]   one field-info event, as given
 *   header klass=N [ts=] [id=]                        a bare 20-byte header
 *   raw HEX...                                        raw bytes
 */
#include "t/writer.h"

enum kind { K_STRUCT, K_STRING, K_INT, K_FLOAT, K_DOUBLE, K_PTR, K_UINT, K_RAWCODE };
static const uint8_t lib_codes[] = {1, 2, 3, 4, 5, 6, 99};
static const uint8_t spec_codes[] = {0, 1, 2, 3, 4, 5, 6};

struct wfield {
	char name[64], tname[64];
	enum kind kind;
	uint8_t code; /* K_RAWCODE: the code as written */
	uint64_t size;
};

struct wclass {
	bool used;
	char name[128], base[128];
	struct wfield f[64];
	int nf;
};

#define MAX_CLASSES 4096
static struct wclass classes[MAX_CLASSES];

struct out {
	struct wbuf w;
	bool be, spec_hdr, spec_types;
	uint64_t id; /* the library's process-wide event counter */
};

static void header(struct out *o, uint32_t klass, uint64_t ts, uint64_t id)
{
	if (o->spec_hdr) {
		wb_uint(&o->w, ts, 8, o->be);
		wb_uint(&o->w, id, 8, o->be);
		wb_uint(&o->w, klass, 4, o->be);
	} else {
		wb_uint(&o->w, klass, 4, o->be);
		wb_uint(&o->w, ts, 8, o->be);
		wb_uint(&o->w, id, 8, o->be);
	}
}

static void cstr(struct out *o, const char *s, size_t n)
{
	wb_add(&o->w, s, n);
	wb_u8(&o->w, 0);
}

static uint8_t code_of(const struct out *o, const struct wfield *f)
{
	if (f->kind == K_RAWCODE)
		return f->code;
	return (o->spec_types ? spec_codes : lib_codes)[f->kind];
}

static struct wclass *class_named(const char *name)
{
	for (int i = 0; i < MAX_CLASSES; i++)
		if (classes[i].used && !strcmp(classes[i].name, name))
			return &classes[i];
	return NULL;
}

/* Describe class id: klass-info, then one field-info per field (base first). */
static void describe(struct out *o, uint32_t id, uint64_t *ts, bool with_base, int count)
{
	struct wclass *c = &classes[id];
	int n = c->nf + (with_base ? 1 : 0);
	header(o, 2, (*ts)++, o->id++);
	wb_uint(&o->w, id, 4, o->be);
	cstr(o, c->name, strlen(c->name));
	wb_u8(&o->w, (uint8_t)(count >= 0 ? count : n));
	for (int i = with_base ? -1 : 0; i < c->nf; i++) {
		struct wfield base = {.kind = K_STRUCT, .size = 24};
		if (i < 0) {
			snprintf(base.tname, sizeof base.tname, "%s", c->base);
			snprintf(base.name, sizeof base.name, "base");
			if (strcmp(c->base, "HT_Event"))
				base.size = 40; /* padded in-memory size: not the wire size */
		}
		const struct wfield *f = i < 0 ? &base : &c->f[i];
		header(o, 3, (*ts)++, o->id++);
		wb_uint(&o->w, id, 4, o->be);
		cstr(o, f->tname, strlen(f->tname));
		cstr(o, f->name, strlen(f->name));
		wb_uint(&o->w, f->size, 8, o->be);
		wb_u8(&o->w, code_of(o, f));
	}
}

static void add_field(struct wclass *c, const char *name, const char *tname, enum kind k, uint64_t size)
{
	struct wfield *f = &c->f[c->nf++];
	snprintf(f->name, sizeof f->name, "%s", name);
	snprintf(f->tname, sizeof f->tname, "%s", tname);
	f->kind = k;
	f->size = size;
}

static void define(uint32_t id, const char *name, const char *base)
{
	struct wclass *c = &classes[id];
	memset(c, 0, sizeof *c);
	c->used = true;
	snprintf(c->name, sizeof c->name, "%s", name);
	snprintf(c->base, sizeof c->base, "%s", base);
}

/* Klasses 0..8 as the library registers them (notes §3.7). */
static void builtins(void)
{
	define(0, "HT_EndiannessInfoEvent", "HT_Event");
	add_field(&classes[0], "endianness", "uint8_t", K_UINT, 1);
	define(1, "HT_Event", "");
	add_field(&classes[1], "klass", "HT_EventKlass*", K_PTR, 8);
	add_field(&classes[1], "timestamp", "HT_TimestampNs", K_UINT, 8);
	add_field(&classes[1], "id", "HT_EventId", K_UINT, 8);
	define(2, "HT_EventKlassInfoEvent", "HT_Event");
	add_field(&classes[2], "info_klass_id", "HT_EventKlassId", K_UINT, 4);
	add_field(&classes[2], "event_klass_name", "const char*", K_STRING, 8);
	add_field(&classes[2], "field_count", "uint8_t", K_UINT, 1);
	define(3, "HT_EventKlassFieldInfoEvent", "HT_Event");
	add_field(&classes[3], "info_klass_id", "HT_EventKlassId", K_UINT, 4);
	add_field(&classes[3], "field_type", "const char*", K_STRING, 8);
	add_field(&classes[3], "field_name", "const char*", K_STRING, 8);
	add_field(&classes[3], "size", "uint64_t", K_UINT, 8);
	add_field(&classes[3], "data_type", "uint8_t", K_UINT, 1);
	define(4, "HT_CallstackBaseEvent", "HT_Event");
	add_field(&classes[4], "duration", "HT_DurationNs", K_UINT, 8);
	add_field(&classes[4], "thread_id", "HT_ThreadId", K_UINT, 4);
	define(5, "HT_CallstackIntEvent", "HT_CallstackBaseEvent");
	add_field(&classes[5], "label", "HT_CallstackEventLabel", K_UINT, 8);
	define(6, "HT_CallstackStringEvent", "HT_CallstackBaseEvent");
	add_field(&classes[6], "label", "const char*", K_STRING, 8);
	define(7, "HT_StringMappingEvent", "HT_Event");
	add_field(&classes[7], "identifier", "uint64_t", K_UINT, 8);
	add_field(&classes[7], "label", "const char*", K_STRING, 8);
	define(8, "HT_SystemInfoEvent", "HT_Event");
	add_field(&classes[8], "version_major", "uint8_t", K_UINT, 1);
	add_field(&classes[8], "version_minor", "uint8_t", K_UINT, 1);
	add_field(&classes[8], "version_patch", "uint8_t", K_UINT, 1);
}

static void stream(struct out *o, bool be, bool bare, uint64_t ts)
{
	o->be = be;
	header(o, 0, 0, 0);
	wb_u8(&o->w, be ? 1 : 0);
	builtins();
	if (bare)
		return;
	o->id = 0;
	for (uint32_t id = 0; id <= 8; id++)
		describe(o, id, &ts, id != 1, -1);
	header(o, 8, 0, 0);
	wb_u8(&o->w, 0);
	wb_u8(&o->w, 11);
	wb_u8(&o->w, 0);
}

static bool pow2(uint64_t s) { return s == 1 || s == 2 || s == 4 || s == 8; }

/* Parse FIELD:TYPE. */
static bool parse_field(struct wclass *c, const char *spec)
{
	char name[64], type[64];
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof name)
		return false;
	snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
	snprintf(type, sizeof type, "%s", colon + 1);
	static const struct {
		const char *t, *ctype;
		enum kind k;
		uint64_t size;
	} T[] = {
		{"str", "const char*", K_STRING, 8}, {"i8", "int8_t", K_INT, 1},     {"i16", "int16_t", K_INT, 2},
		{"i32", "int32_t", K_INT, 4},        {"i64", "int64_t", K_INT, 8},    {"u8", "uint8_t", K_UINT, 1},
		{"u16", "uint16_t", K_UINT, 2},      {"u32", "uint32_t", K_UINT, 4},  {"u64", "uint64_t", K_UINT, 8},
		{"f32", "float", K_FLOAT, 4},        {"f64", "double", K_DOUBLE, 8}, {"ptr", "void*", K_PTR, 8},
		{"ptr4", "void*", K_PTR, 4},
	};
	for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
		if (!strcmp(type, T[i].t)) {
			add_field(c, name, T[i].ctype, T[i].k, T[i].size);
			return true;
		}
	unsigned a, b;
	if (sscanf(type, "uint%u", &a) == 1) {
		add_field(c, name, "uint8_t", K_UINT, a);
		return true;
	}
	if (sscanf(type, "int%u", &a) == 1) {
		add_field(c, name, "int8_t", K_INT, a);
		return true;
	}
	if (sscanf(type, "dt%u_%u", &a, &b) == 2) {
		add_field(c, name, "custom_t", K_RAWCODE, b);
		c->f[c->nf - 1].code = (uint8_t)a;
		return true;
	}
	return false;
}

static int hexval(int c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; }

/* Write the fields of class c (bases first) with values from the spec line. */
static void write_fields(struct out *o, const struct wclass *c, const struct spec *s, int depth)
{
	if (depth > 8)
		return;
	if (c->base[0] && strcmp(c->base, "HT_Event")) {
		const struct wclass *b = class_named(c->base);
		if (b)
			write_fields(o, b, s, depth + 1);
	}
	int nul = spec_find(s, "null");
	for (int i = 0; i < c->nf; i++) {
		const struct wfield *f = &c->f[i];
		int v = spec_find(s, f->name);
		enum kind k = f->kind;
		if (k == K_RAWCODE) {
			/* the writer's own reading of a code it was told to write */
			uint8_t code = f->code;
			k = o->spec_types ? (code <= 6 ? (enum kind)code : K_RAWCODE)
					  : code == 99 ? K_UINT : code >= 1 && code <= 6 ? (enum kind)(code - 1) : K_RAWCODE;
		}
		if (k == K_STRING) {
			if (nul >= 0 && !strcmp(s->val[nul], f->name))
				continue; /* a NULL string: no bytes at all */
			cstr(o, v >= 0 ? s->val[v] : "", v >= 0 ? s->vlen[v] : 0);
		} else if (k == K_FLOAT && f->size == 4) {
			float x = v >= 0 ? strtof(s->val[v], NULL) : 0;
			uint32_t u;
			memcpy(&u, &x, 4);
			wb_uint(&o->w, u, 4, o->be);
		} else if (k == K_DOUBLE && f->size == 8) {
			double x = v >= 0 ? strtod(s->val[v], NULL) : 0;
			uint64_t u;
			memcpy(&u, &x, 8);
			wb_uint(&o->w, u, 8, o->be);
		} else if ((k == K_INT || k == K_UINT || k == K_PTR) && pow2(f->size)) {
			wb_uint(&o->w, v >= 0 ? spec_num(s, f->name, 0) : 0, (int)f->size, o->be);
		} else {
			/* raw bytes in file order, from hex */
			const char *h = v >= 0 ? s->val[v] : "";
			for (uint64_t j = 0; j < f->size; j++) {
				int hi = *h ? hexval(h[0]) : -1, lo = hi >= 0 && h[1] ? hexval(h[1]) : -1;
				wb_u8(&o->w, hi >= 0 && lo >= 0 ? (uint8_t)(hi << 4 | lo) : 0);
				if (hi >= 0 && lo >= 0)
					h += 2;
			}
		}
	}
}

static void from_spec(struct out *o)
{
	static char line[1 << 16];
	struct spec s = {0};
	while (spec_next(stdin, &s, line, sizeof line)) {
		uint64_t ts = spec_num(&s, "ts", 0), id = spec_has(&s, "id") ? spec_num(&s, "id", 0) : o->id++;
		if (!strcmp(s.kind, "stream")) {
			o->spec_hdr = spec_has(&s, "spec-header");
			o->spec_types = spec_has(&s, "spec-types");
			stream(o, spec_has(&s, "be"), spec_has(&s, "bare"), spec_num(&s, "ts", 1000));
		} else if (!strcmp(s.kind, "class")) {
			uint32_t cid = (uint32_t)spec_num(&s, "id", 0);
			if (cid >= MAX_CLASSES) {
				fprintf(stderr, "htwrite: line %d: class id %u too large for the writer\n", s.line, cid);
				exit(2);
			}
			size_t n;
			const char *name = spec_str(&s, "name", &n), *base = spec_str(&s, "base", &n);
			define(cid, name ? name : "", base ? base : "HT_Event");
			for (int i = 0; i < s.nkeys; i++)
				if (strchr(s.key[i], ':') && !parse_field(&classes[cid], s.key[i])) {
					fprintf(stderr, "htwrite: line %d: bad field '%s'\n", s.line, s.key[i]);
					exit(2);
				}
			describe(o, cid, &ts, !spec_has(&s, "nobase"), spec_has(&s, "count") ? (int)spec_num(&s, "count", 0) : -1);
		} else if (!strcmp(s.kind, "event")) {
			uint32_t k = (uint32_t)spec_num(&s, "klass", 0);
			header(o, k, ts, id);
			if (k < MAX_CLASSES && classes[k].used)
				write_fields(o, &classes[k], &s, 0);
		} else if (!strcmp(s.kind, "cs")) {
			size_t n;
			const char *label = spec_str(&s, "label", &n);
			header(o, label ? 6 : 5, ts, id);
			wb_uint(&o->w, spec_num(&s, "dur", 0), 8, o->be);
			wb_uint(&o->w, spec_num(&s, "tid", 0), 4, o->be);
			if (label)
				cstr(o, label, n);
			else
				wb_uint(&o->w, spec_num(&s, "ilabel", 0), 8, o->be);
		} else if (!strcmp(s.kind, "map")) {
			size_t n;
			const char *label = spec_str(&s, "label", &n);
			header(o, 7, ts, id);
			wb_uint(&o->w, spec_num(&s, "ident", 0), 8, o->be);
			cstr(o, label ? label : "", label ? n : 0);
		} else if (!strcmp(s.kind, "field")) {
			size_t nt = 0, nn = 0;
			const char *type = spec_str(&s, "type", &nt), *name = spec_str(&s, "name", &nn);
			header(o, 3, ts, id);
			wb_uint(&o->w, spec_num(&s, "klass", 0), 4, o->be);
			cstr(o, type ? type : "", nt);
			cstr(o, name ? name : "", nn);
			wb_uint(&o->w, spec_num(&s, "size", 0), 8, o->be);
			wb_u8(&o->w, (uint8_t)spec_num(&s, "dt", 0));
		} else if (!strcmp(s.kind, "header")) {
			header(o, (uint32_t)spec_num(&s, "klass", 0), ts, id);
		} else if (!strcmp(s.kind, "raw")) {
			for (int i = 0; i < s.nkeys; i++)
				wb_u8(&o->w, (uint8_t)strtoul(s.key[i], NULL, 16));
		} else {
			fprintf(stderr, "htwrite: line %d: unknown line kind '%s'\n", s.line, s.kind);
			exit(2);
		}
	}
}

/* ---- generated traces ------------------------------------------------------ */

#define THREADS 16
#define CHUNK 1024 /* the library's default per-thread buffer */

struct gthread {
	struct wbuf w;
	uint64_t clock;
	bool started; /* its mappings were written */
};

struct gen {
	struct out *o;
	FILE *f;
	uint64_t rng, events, target;
	struct gthread t[THREADS];
};

static uint32_t djb2(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (uint32_t)(signed char)*s;
	return h;
}

static const char *const str_labels[] = {"frame", "render", "draw_batch", "leaf", "upload_textures"};
static const char *const int_labels[] = {"update", "physics", "io_wait", "decode"};
static uint64_t int_ids[4];

static void gen_flush(struct gen *g, struct gthread *t, bool force)
{
	if (t->w.len < CHUNK && !(force && t->w.len))
		return;
	if (fwrite(t->w.p, 1, t->w.len, g->f) != t->w.len) {
		perror("htwrite");
		exit(1);
	}
	t->w.len = 0;
}

/* Append to thread t's buffer: swap the output buffer in. */
static struct wbuf *use(struct gen *g, struct gthread *t)
{
	struct wbuf save = g->o->w;
	g->o->w = t->w;
	t->w = save;
	return &t->w;
}

static void scope(struct gen *g, int ti, uint64_t start, uint64_t dur, bool str, unsigned label)
{
	struct out *o = g->o;
	g->events++;
	if (str) {
		header(o, 6, start, o->id++);
		wb_uint(&o->w, dur, 8, o->be);
		wb_uint(&o->w, (uint64_t)ti + 1, 4, o->be);
		cstr(o, str_labels[label], strlen(str_labels[label]));
	} else {
		header(o, 5, start, o->id++);
		wb_uint(&o->w, dur, 8, o->be);
		wb_uint(&o->w, (uint64_t)ti + 1, 4, o->be);
		wb_uint(&o->w, int_ids[label], 8, o->be);
	}
}

static void mapping(struct gen *g, uint64_t ts, unsigned label)
{
	struct out *o = g->o;
	g->events++;
	header(o, 7, ts, o->id++);
	wb_uint(&o->w, int_ids[label], 8, o->be);
	cstr(o, int_labels[label], strlen(int_labels[label]));
}

/* A subtree starting at `start`, children written before their parent;
 * returns its duration. */
static uint64_t tree(struct gen *g, int ti, uint64_t start, int depth)
{
	uint64_t x = rng_next(&g->rng);
	/* the first child starts with its parent now and then (same nanosecond) */
	uint64_t t = start + ((x & 7) == 0 ? 0 : 1 + (x >> 3) % 50);
	int kids = depth >= 3 ? 0 : depth == 0 ? 3 : (int)((x >> 10) % 4);
	for (int i = 0; i < kids; i++)
		t += tree(g, ti, t, depth + 1) + (x >> (16 + i)) % 40;
	uint64_t dur = t - start + (depth >= 3 ? 100 + (x >> 20) % 5000 : (x >> 24) % 30);
	if (depth == 0) {
		scope(g, ti, start, dur, true, 0); /* frame */
	} else if (depth == 3 || (x >> 30) % 3 == 0) {
		scope(g, ti, start, dur, true, (unsigned)(1 + (x >> 32) % 4));
	} else {
		scope(g, ti, start, dur, false, (unsigned)((x >> 32) % 4));
	}
	return dur;
}

static void work_item(struct gen *g, uint64_t ts)
{
	struct out *o = g->o;
	uint64_t x = rng_next(&g->rng);
	g->events++;
	header(o, 9, ts, o->id++);
	wb_uint(&o->w, x & 0xffffffff, 4, o->be);
	wb_uint(&o->w, (uint64_t)((int64_t)(x >> 40) - (1 << 23)), 8, o->be);
	double load = (double)(x % 10000) / 100.0;
	uint64_t u;
	memcpy(&u, &load, 8);
	wb_uint(&o->w, u, 8, o->be);
	wb_uint(&o->w, (x >> 20) & 0xffff, 2, o->be);
}

static void generate(struct out *o, FILE *f, uint64_t n, uint64_t seed)
{
	static struct gen g;
	g = (struct gen){.o = o, .f = f, .rng = seed * 0x9e3779b97f4a7c15ull + 1, .target = n};
	for (unsigned i = 0; i < 4; i++)
		int_ids[i] = i < 2 ? djb2(int_labels[i]) : 0x55d1c2a04e80ull + 0x40 * i; /* hashes and addresses */
	stream(o, o->be, false, 1000000);
	/* a user class of numbers, and a user scope class three levels deep */
	uint64_t ts = 1000100;
	define(9, "WorkItemEvent", "HT_Event");
	add_field(&classes[9], "item", "uint32_t", K_UINT, 4);
	add_field(&classes[9], "delta", "int64_t", K_INT, 8);
	add_field(&classes[9], "load", "double", K_DOUBLE, 8);
	add_field(&classes[9], "queue", "uint16_t", K_UINT, 2);
	describe(o, 9, &ts, true, -1);
	g.events = 1 + 9 + 29 + 1 + 1 + 5; /* the metadata events */
	fwrite(o->w.p, 1, o->w.len, f);
	o->w.len = 0;
	for (int i = 0; i < THREADS; i++)
		g.t[i].clock = 2000000 + (uint64_t)i * 777;
	while (g.events < n) {
		/* the thread that is furthest behind runs next: chunks interleave in time */
		int ti = 0;
		for (int i = 1; i < THREADS; i++)
			if (g.t[i].clock < g.t[ti].clock)
				ti = i;
		struct gthread *t = &g.t[ti];
		use(&g, t);
		if (!t->started) {
			/* half the mappings before their first use ... */
			mapping(&g, t->clock, 0);
			mapping(&g, t->clock, 2);
		}
		uint64_t d = tree(&g, ti, t->clock, 0);
		if (!t->started) {
			/* ... and half after it */
			mapping(&g, t->clock + d, 1);
			mapping(&g, t->clock + d, 3);
			t->started = true;
		}
		if (rng_next(&g.rng) % 4 == 0)
			work_item(&g, t->clock + d / 2);
		t->clock += d + 1 + rng_next(&g.rng) % 2000;
		use(&g, t);
		gen_flush(&g, t, false);
	}
	for (int i = 0; i < THREADS; i++) {
		gen_flush(&g, &g.t[i], true);
		free(g.t[i].w.p);
	}
}

static int spec_run(const char *path)
{
	struct out o = {0};
	from_spec(&o);
	wb_write_file(&o.w, path);
	free(o.w.p);
	return 0;
}

static uint64_t gen_be; /* --be */

static int generate_run(const char *path, uint64_t n, uint64_t seed)
{
	struct out o = {.be = gen_be};
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return 1;
	}
	generate(&o, f, n, seed);
	free(o.w.p);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct gen_opt opts[] = {{"--be", false, &gen_be}, {0}};
	static const struct writer w = {"htwrite", "OUT < SPEC", NULL, spec_run,
					 "--generate N [--seed S] [--be] OUT", opts, generate_run, "%s/instance-%03u.htdump"};
	return writer_main(argc, argv, &w);
}
