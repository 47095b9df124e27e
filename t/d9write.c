/* dial9-trace-format writer for tests and benchmarks.
 *
 *   d9write OUT < SPEC            frames from a text spec
 *   d9write --generate N [--seed S] [--rotate SECONDS] [--gzip] [--quiet] OUT
 *                                 N events as the tokio telemetry writer makes
 *                                 them: per-thread batches of ~1 MiB, each its
 *                                 own sub-stream, overlapping in time; with
 *                                 --rotate, segments of that many seconds of
 *                                 trace time (OUT names the first: its last
 *                                 number before .bin counts them), each sealed
 *                                 with its symbols, every batch drained at the
 *                                 rotation or 30 s; --gzip writes each sealed
 *                                 segment as gzip (NAME.gz, as the uploader);
 *                                 --quiet adds a thread whose few events wait
 *                                 in its batch for the drain
 *
 * Spec lines (values: see t/writer.h for escapes):
 *   header [version=V] [magic=TEXT]      a header; resets the writer's schemas and time base
 *   schema id=N name=S [ts=0|1] [fields=NAME:TYPE,...]
 *        TYPE: i64 f64 bool string bytes pstack pstr stack varint map u8 u16 u32
 *        list dmap, a number (any byte), or opt-TYPE (the 0x80 optional bit)
 *   annot id=N [IDX.KEY=VALUE ...]       schema annotations (type id as LEB128)
 *   strpool [count=C] ID=TEXT ...        one string pool frame (count: the u32 written)
 *   stackpool [count=C] ID=A:B:C ...     one stack pool frame of addresses
 *   reset ts=T                           timestamp reset
 *   event id=N [ts=T | delta=D] NAME=VALUE ...
 *        values by field name, as the schema of id says (unknown id: none);
 *        ts=T writes a reset first when T is before the base or too far;
 *        a missing optional field is absent, other missing fields are 0;
 *        map: K:V;K:V   stack: A:B:C   list: TAG:V;TAG:V   dmap: KT:K=VT:V;...
 *        a value @HEX is written as these raw bytes instead (lying lengths)
 *   raw HEX...                           raw bytes
 */
#include "t/writer.h"

#include <zlib.h>

enum {
	FT_I64 = 1, FT_F64, FT_BOOL, FT_STRING, FT_BYTES, FT_PSTACK, FT_PSTR, FT_STACK, FT_VARINT, FT_MAP,
	FT_U8, FT_U16, FT_U32, FT_DLIST, FT_DMAP, FT_OPT = 0x80
};

static const char *const tnames[] = {NULL,     "i64", "f64",   "bool", "string", "bytes", "pstack", "pstr",
				     "stack",  "varint", "map", "u8",   "u16",    "u32",   "list",   "dmap"};

static void wb_leb(struct wbuf *w, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		wb_u8(w, (uint8_t)(b | (v ? 0x80 : 0)));
	} while (v);
}

static void wb_u24(struct wbuf *w, uint32_t v) { wb_uint(w, v, 3, false); }

static void wb_str32(struct wbuf *w, const char *s, size_t n)
{
	wb_u32(w, (uint32_t)n);
	wb_add(w, s, n);
}

static void wb_hex(struct wbuf *w, const char *h)
{
	while (h[0] && h[1]) {
		char t[3] = {h[0], h[1], 0};
		wb_u8(w, (uint8_t)strtoul(t, NULL, 16));
		h += 2;
	}
}

/* ---- the writer's view of the current sub-stream ------------------------- */

#define MAX_FIELDS 64

struct wschema {
	bool defined, has_ts;
	int nf;
	char fname[MAX_FIELDS][64];
	uint8_t ftype[MAX_FIELDS];
};

static struct wschema schemas[65536];
static uint64_t base;

static void reset_schemas(void)
{
	for (size_t i = 0; i < 65536; i++)
		schemas[i].defined = false;
	base = 0;
}

static uint8_t type_code(const char *s)
{
	uint8_t opt = 0;
	if (!strncmp(s, "opt-", 4)) {
		opt = FT_OPT;
		s += 4;
	}
	for (uint8_t i = 1; i < sizeof tnames / sizeof *tnames; i++)
		if (!strcmp(s, tnames[i]))
			return (uint8_t)(i | opt);
	return (uint8_t)(strtoul(s, NULL, 0) | opt);
}

/* ---- values --------------------------------------------------------------- */

static void put_value(struct wbuf *w, uint8_t t, const char *v, size_t n);

/* Split s at sep (not escaped: the spec reader already unescaped, so a
 * separator inside a value is written \x3b etc. and lands here as itself;
 * keep it simple: fixtures avoid separators inside values). */
static const char *next_item(const char *s, const char *end, char sep, size_t *len)
{
	const char *e = memchr(s, sep, (size_t)(end - s));
	*len = (size_t)((e ? e : end) - s);
	return e ? e + 1 : end;
}

static void put_dyn_item(struct wbuf *w, const char *item, size_t n)
{
	const char *colon = memchr(item, ':', n);
	uint8_t t = (uint8_t)strtoul(item, NULL, 0);
	wb_u8(w, t);
	if (colon)
		put_value(w, t, colon + 1, n - (size_t)(colon + 1 - item));
	else
		put_value(w, t, "", 0);
}

static void put_value(struct wbuf *w, uint8_t t, const char *v, size_t n)
{
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%.*s", (int)(n < 255 ? n : 255), v);
	if (t & FT_OPT) {
		wb_u8(w, 1);
		t &= 0x7f;
	}
	const char *end = v + n, *p;
	size_t len, count = 0;
	switch (t) {
	case FT_I64: wb_u64(w, (uint64_t)strtoll(tmp, NULL, 0)); break;
	case FT_F64: {
		double d = strtod(tmp, NULL);
		uint64_t bits;
		memcpy(&bits, &d, 8);
		wb_u64(w, bits);
		break;
	}
	case FT_BOOL:
	case FT_U8: wb_u8(w, (uint8_t)strtoul(tmp, NULL, 0)); break;
	case FT_U16: wb_u16(w, (uint16_t)strtoul(tmp, NULL, 0)); break;
	case FT_U32:
	case FT_PSTR:
	case FT_PSTACK: wb_u32(w, (uint32_t)strtoul(tmp, NULL, 0)); break;
	case FT_VARINT: wb_leb(w, strtoull(tmp, NULL, 0)); break;
	case FT_STRING:
	case FT_BYTES: wb_str32(w, v, n); break;
	case FT_STACK:
		for (p = v; p < end; p = next_item(p, end, ':', &len))
			count++;
		wb_u32(w, (uint32_t)count);
		for (p = v; p < end;) {
			const char *q = p;
			p = next_item(p, end, ':', &len);
			snprintf(tmp, sizeof tmp, "%.*s", (int)len, q);
			wb_u64(w, strtoull(tmp, NULL, 0));
		}
		break;
	case FT_MAP:
		for (p = v; p < end; p = next_item(p, end, ';', &len))
			count++;
		wb_u32(w, (uint32_t)count);
		for (p = v; p < end;) {
			const char *q = p;
			p = next_item(p, end, ';', &len);
			const char *c = memchr(q, ':', len);
			size_t kl = c ? (size_t)(c - q) : len;
			wb_str32(w, q, kl);
			wb_str32(w, c ? c + 1 : q + len, c ? len - kl - 1 : 0);
		}
		break;
	case FT_DLIST:
	case FT_DMAP:
		for (p = v; p < end; p = next_item(p, end, ';', &len))
			count++;
		wb_u32(w, (uint32_t)count);
		for (p = v; p < end;) {
			const char *q = p;
			p = next_item(p, end, ';', &len);
			if (t == FT_DLIST) {
				put_dyn_item(w, q, len);
			} else { /* KT:K=VT:V */
				const char *eq = memchr(q, '=', len);
				size_t kl = eq ? (size_t)(eq - q) : len;
				put_dyn_item(w, q, kl);
				if (eq)
					put_dyn_item(w, eq + 1, len - kl - 1);
			}
		}
		break;
	default: break; /* an unknown type: nothing to write */
	}
}

/* ---- spec mode ------------------------------------------------------------ */

static void ts_prefix(struct wbuf *w, const struct spec *s, bool has_ts)
{
	if (!has_ts)
		return;
	if (spec_has(s, "delta")) {
		uint64_t d = spec_num(s, "delta", 0);
		wb_u24(w, (uint32_t)d);
		base += d & 0xffffff;
		return;
	}
	wb_u24(w, 0);
}

static void event_line(struct wbuf *w, const struct spec *s)
{
	uint32_t id = (uint32_t)spec_num(s, "id", 0);
	const struct wschema *sc = &schemas[id & 0xffff];
	bool has_ts = sc->defined ? sc->has_ts : !spec_has(s, "nots");
	if (spec_has(s, "ts") && has_ts) {
		uint64_t t = spec_num(s, "ts", 0);
		if (t < base || t - base > 0xffffff) {
			wb_u8(w, 5);
			wb_u64(w, t);
			base = t;
		}
		wb_u8(w, 2);
		wb_u16(w, (uint16_t)id);
		wb_u24(w, (uint32_t)(t - base));
		base = t;
	} else {
		wb_u8(w, 2);
		wb_u16(w, (uint16_t)id);
		ts_prefix(w, s, has_ts);
	}
	for (int i = 0; sc->defined && i < sc->nf; i++) {
		size_t n;
		const char *v = spec_str(s, sc->fname[i], &n);
		if (v && v[0] == '@') {
			wb_hex(w, v + 1);
			continue;
		}
		if (!v && (sc->ftype[i] & FT_OPT)) {
			wb_u8(w, 0);
			continue;
		}
		put_value(w, sc->ftype[i], v ? v : "", v ? n : 0);
	}
}

static void from_spec(struct wbuf *w)
{
	static char line[1 << 16];
	struct spec s = {0};
	while (spec_next(stdin, &s, line, sizeof line)) {
		if (!strcmp(s.kind, "header")) {
			size_t n;
			const char *m = spec_str(&s, "magic", &n);
			if (m)
				wb_add(w, m, n);
			else
				wb_add(w, "TRC\0", 4);
			wb_u8(w, (uint8_t)spec_num(&s, "version", 1));
			reset_schemas();
		} else if (!strcmp(s.kind, "schema")) {
			uint32_t id = (uint32_t)spec_num(&s, "id", 0);
			size_t nn = 0, nf = 0;
			const char *name = spec_str(&s, "name", &nn), *fields = spec_str(&s, "fields", &nf);
			struct wschema sc = {.defined = true, .has_ts = spec_num(&s, "ts", 1) != 0};
			wb_u8(w, 1);
			wb_u16(w, (uint16_t)id);
			wb_u16(w, (uint16_t)nn);
			wb_add(w, name ? name : "", nn);
			wb_u8(w, (uint8_t)spec_num(&s, "ts", 1));
			const char *end = fields ? fields + nf : NULL, *p = fields;
			size_t len;
			while (p && p < end && sc.nf < MAX_FIELDS) {
				const char *q = p;
				p = next_item(p, end, ',', &len);
				const char *c = memchr(q, ':', len);
				size_t fl = c ? (size_t)(c - q) : len;
				snprintf(sc.fname[sc.nf], sizeof sc.fname[0], "%.*s", (int)fl, q);
				char tn[32];
				snprintf(tn, sizeof tn, "%.*s", c ? (int)(len - fl - 1) : 0, c ? c + 1 : "");
				sc.ftype[sc.nf++] = type_code(tn);
			}
			wb_u16(w, (uint16_t)spec_num(&s, "count", (uint64_t)sc.nf));
			for (int i = 0; i < sc.nf; i++) {
				wb_u16(w, (uint16_t)strlen(sc.fname[i]));
				wb_add(w, sc.fname[i], strlen(sc.fname[i]));
				wb_u8(w, sc.ftype[i]);
			}
			schemas[id & 0xffff] = sc;
		} else if (!strcmp(s.kind, "annot")) {
			wb_u8(w, 6);
			wb_leb(w, spec_num(&s, "id", 0));
			int n = 0;
			for (int i = 0; i < s.nkeys; i++)
				n += strchr(s.key[i], '.') != NULL;
			wb_u16(w, (uint16_t)n);
			for (int i = 0; i < s.nkeys; i++) {
				const char *dot = strchr(s.key[i], '.');
				if (!dot)
					continue;
				wb_u16(w, (uint16_t)strtoul(s.key[i], NULL, 0));
				wb_u16(w, (uint16_t)strlen(dot + 1));
				wb_add(w, dot + 1, strlen(dot + 1));
				wb_str32(w, s.val[i], s.vlen[i]);
			}
		} else if (!strcmp(s.kind, "strpool") || !strcmp(s.kind, "stackpool")) {
			bool stk = s.kind[1] == 't' && s.kind[2] == 'a';
			int n = 0;
			for (int i = 0; i < s.nkeys; i++)
				n += strcmp(s.key[i], "count") != 0;
			wb_u8(w, stk ? 4 : 3);
			wb_u32(w, (uint32_t)spec_num(&s, "count", (uint64_t)n));
			for (int i = 0; i < s.nkeys; i++) {
				if (!strcmp(s.key[i], "count"))
					continue;
				wb_u32(w, (uint32_t)strtoul(s.key[i], NULL, 0));
				if (stk)
					put_value(w, FT_STACK, s.val[i], s.vlen[i]);
				else
					wb_str32(w, s.val[i], s.vlen[i]);
			}
		} else if (!strcmp(s.kind, "reset")) {
			base = spec_num(&s, "ts", 0);
			wb_u8(w, 5);
			wb_u64(w, base);
		} else if (!strcmp(s.kind, "event")) {
			event_line(w, &s);
		} else if (!strcmp(s.kind, "raw")) {
			for (int i = 0; i < s.nkeys; i++)
				wb_hex(w, s.key[i]);
		} else {
			fprintf(stderr, "d9write: line %d: unknown line kind '%s'\n", s.line, s.kind);
			exit(2);
		}
	}
}

/* ---- generate mode -------------------------------------------------------- */

/* Like the telemetry writer: every thread fills its own batch (a sub-stream
 * with its own header, schemas, pools and resets) and hands it over at about
 * 1 MiB, so batches overlap in time and timestamps step back between them.
 * Built-in events use stable slots (June 2026 on); span schemas get ids from
 * 256 per batch. */
enum {
	S_CLOCK = 1, S_META, S_POLL_START, S_POLL_END, S_PARK, S_UNPARK, S_WAKE, S_QUEUE, S_SPAWN, S_TERMINATE,
	S_CPU, S_SPAN_CLOSE, S_SLOTS
};

struct gschema {
	const char *name, *fields; /* NAME:TYPE,... */
};

static const struct gschema builtin[S_SLOTS] = {
	[S_CLOCK] = {"ClockSyncEvent", "realtime_ns:varint"},
	[S_META] = {"SegmentMetadataEvent", "entries:map"},
	[S_POLL_START] = {"PollStartEvent", "worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr"},
	[S_POLL_END] = {"PollEndEvent", "worker_id:varint"},
	[S_PARK] = {"WorkerParkEvent", "worker_id:varint,local_queue:u8,cpu_time_ns:varint,tid:u32"},
	[S_UNPARK] = {"WorkerUnparkEvent",
		      "worker_id:varint,local_queue:u8,cpu_time_ns:varint,tid:u32,sched_wait_ns:opt-varint"},
	[S_WAKE] = {"WakeEventEvent", "waker_task_id:varint,woken_task_id:varint,target_worker:u8"},
	[S_QUEUE] = {"QueueSampleEvent", "global_queue:u8"},
	[S_SPAWN] = {"TaskSpawnEvent", "task_id:varint,spawn_loc:pstr,instrumented:bool"},
	[S_TERMINATE] = {"TaskTerminateEvent", "task_id:varint"},
	[S_CPU] = {"CpuSampleEvent",
		   "worker_id:varint,tid:u32,source:u8,thread_name:opt-pstr,callchain:pstack,cpu:opt-varint"},
	[S_SPAN_CLOSE] = {"SpanCloseEvent", "span_id:varint"},
};

#define NSPANS 4
static const char *const span_sites[NSPANS] = {
	"app::routes::record_metric:src/routes.rs:26", "app::routes::query_metric:src/routes.rs:44",
	"app::ddb::query:src/ddb.rs:122", "app::buffer::flush:src/buffer.rs:55"};
static const char *const span_names[NSPANS] = {"record_metric", "query_metric", "query", "flush"};
static const char *const spawn_locs[] = {
	"src/main.rs:311:24", "src/server.rs:146:24", "src/buffer.rs:88:9",
	"/cargo/registry/src/hyper-util-0.1.20/src/rt/tokio.rs:115:9", "src/ddb.rs:40:17", "src/metrics.rs:12:5"};
#define NLOCS (sizeof spawn_locs / sizeof *spawn_locs)
#define NSTACKS 64
#define BATCH (1u << 20)

/* One thread's batch. */
struct batch {
	struct wbuf w;
	uint64_t base;
	bool sent[S_SLOTS];
	int span_id[NSPANS * 2]; /* type id + 1 of SpanEnter/SpanExit in this batch */
	int next_dyn;
	int32_t str_id[NLOCS + NSPANS + 8], stk_id[NSTACKS]; /* pool id + 1 */
	uint32_t next_str, next_stk;
};

static void batch_start(struct batch *b)
{
	b->w.len = 0;
	wb_add(&b->w, "TRC\0\1", 5);
	b->base = 0;
	memset(b->sent, 0, sizeof b->sent);
	memset(b->span_id, 0, sizeof b->span_id);
	memset(b->str_id, 0, sizeof b->str_id);
	memset(b->stk_id, 0, sizeof b->stk_id);
	b->next_dyn = 256;
	b->next_str = b->next_stk = 0;
}

static void put_schema(struct wbuf *w, uint16_t id, const char *name, const char *fields)
{
	wb_u8(w, 1);
	wb_u16(w, id);
	wb_u16(w, (uint16_t)strlen(name));
	wb_add(w, name, strlen(name));
	wb_u8(w, 1);
	int nf = 1;
	for (const char *p = fields; *p; p++)
		nf += *p == ',';
	wb_u16(w, (uint16_t)nf);
	const char *p = fields;
	while (*p) {
		const char *c = strchr(p, ':'), *e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		wb_u16(w, (uint16_t)(c - p));
		wb_add(w, p, (size_t)(c - p));
		char tn[16];
		snprintf(tn, sizeof tn, "%.*s", (int)(e - c - 1), c + 1);
		wb_u8(w, type_code(tn));
		p = *e ? e + 1 : e;
	}
}

static void need_schema(struct batch *b, int slot)
{
	if (b->sent[slot])
		return;
	put_schema(&b->w, (uint16_t)slot, builtin[slot].name, builtin[slot].fields);
	b->sent[slot] = true;
}

static uint16_t span_schema(struct batch *b, int span, bool exit)
{
	int k = span * 2 + exit;
	if (!b->span_id[k]) {
		char name[128];
		snprintf(name, sizeof name, "%s%s", exit ? "SpanExit:" : "SpanEnter:", span_sites[span]);
		b->span_id[k] = b->next_dyn++ + 1;
		put_schema(&b->w, (uint16_t)(b->span_id[k] - 1), name,
			   exit ? "worker_id:varint,span_id:varint,span_name:pstr"
				: "worker_id:varint,span_id:varint,parent_span_id:opt-varint,span_name:pstr,user:opt-pstr");
	}
	return (uint16_t)(b->span_id[k] - 1);
}

/* The pool id of string k in this batch (sent before first use). */
static uint32_t pool_str(struct batch *b, int k, const char *s)
{
	if (!b->str_id[k]) {
		b->str_id[k] = (int32_t)++b->next_str;
		wb_u8(&b->w, 3);
		wb_u32(&b->w, 1);
		wb_u32(&b->w, (uint32_t)b->str_id[k] - 1);
		wb_str32(&b->w, s, strlen(s));
	}
	return (uint32_t)b->str_id[k] - 1;
}

static uint64_t stack_addr(int stack, int frame)
{
	return 0x5555550000ull + (uint64_t)((stack * 7 + frame * 13) % 200) * 0x40;
}

static int stack_depth(int stack) { return 8 + stack % 24; }

static uint32_t pool_stack(struct batch *b, int k)
{
	if (!b->stk_id[k]) {
		b->stk_id[k] = (int32_t)++b->next_stk;
		wb_u8(&b->w, 4);
		wb_u32(&b->w, 1);
		wb_u32(&b->w, (uint32_t)b->stk_id[k] - 1);
		wb_u32(&b->w, (uint32_t)stack_depth(k));
		for (int f = 0; f < stack_depth(k); f++)
			wb_u64(&b->w, stack_addr(k, f));
	}
	return (uint32_t)b->stk_id[k] - 1;
}

/* Event header: the reset if needed, tag, id and delta. */
static void ev_head(struct batch *b, uint16_t id, uint64_t ts)
{
	if (ts < b->base || ts - b->base > 0xffffff) {
		wb_u8(&b->w, 5);
		wb_u64(&b->w, ts);
		b->base = ts;
	}
	wb_u8(&b->w, 2);
	wb_u16(&b->w, id);
	wb_u24(&b->w, (uint32_t)(ts - b->base));
	b->base = ts;
}

struct gen {
	FILE *out; /* or, with --gzip, gz */
	gzFile gz;
	uint64_t rng, events, target;
	/* --rotate, --gzip, --quiet */
	const char *path; /* OUT: segment 0 */
	uint64_t rotate_ns, drain_ns; /* 0: one segment, no drain */
	unsigned segment;
	bool gzip, quiet;
};

static void flush_batch(struct gen *g, struct batch *b)
{
	if (b->w.len > 5 && (g->gz ? gzwrite(g->gz, b->w.p, (unsigned)b->w.len) != (int)b->w.len
				   : fwrite(b->w.p, 1, b->w.len, g->out) != b->w.len)) {
		perror("d9write");
		exit(1);
	}
	batch_start(b);
}

/* Segment i's path: OUT with its last number before ".bin" made i
 * (trace.0.bin -> trace.1.bin, 1764320400-0.bin -> 1764320400-1.bin),
 * and ".gz" after it when gzipped. */
static void segment_path(const struct gen *g, unsigned i, char *path, size_t room)
{
	const char *bin = NULL, *d; /* (the last ".bin": a directory's name may hold one too) */
	for (const char *at = strstr(g->path, ".bin"); at; at = strstr(at + 1, ".bin"))
		bin = at;
	d = bin;
	while (bin && d > g->path && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (!bin || d == bin) {
		fprintf(stderr, "d9write: --rotate wants OUT ending in a number and .bin (trace.0.bin)\n");
		exit(2);
	}
	snprintf(path, room, "%.*s%u%s%s", (int)(d - g->path), g->path, i, bin, g->gzip ? ".gz" : "");
}

static void segment_open(struct gen *g)
{
	if (!g->rotate_ns && !g->gzip)
		return; /* (OUT, opened by generate_run) */
	char path[4096];
	if (g->rotate_ns)
		segment_path(g, g->segment, path, sizeof path);
	else
		snprintf(path, sizeof path, "%s.gz", g->path);
	if (g->gzip ? !(g->gz = gzopen(path, "wb")) : !(g->out = fopen(path, "wb"))) {
		perror(path);
		exit(1);
	}
}

static void segment_close(struct gen *g)
{
	if (g->gz ? gzclose(g->gz) != Z_OK : g->out != stdout && fclose(g->out)) {
		perror("d9write");
		exit(1);
	}
	g->gz = NULL;
	g->out = NULL;
}

#define NWORKERS 4

struct worker {
	struct batch b;
	uint64_t ts, cpu, next_task;
	uint32_t tid;
};

/* A segment's opening at time t: clock sync, then metadata (2 events). */
static void segment_opening(struct gen *g, struct batch *flush, uint64_t t)
{
	need_schema(flush, S_CLOCK);
	ev_head(flush, S_CLOCK, t);
	wb_leb(&flush->w, 1782146175256522678ull + (t - 1000000000000ull));
	flush_batch(g, flush);
	need_schema(flush, S_META);
	ev_head(flush, S_META, t + 1000);
	static const char *const meta[][2] = {{"service", "bench"}, {"worker_threads", "4"},
					      {"dial9.dial9-tokio-telemetry.version", "0.4.0"}};
	wb_u32(&flush->w, 3);
	for (int i = 0; i < 3; i++) {
		wb_str32(&flush->w, meta[i][0], strlen(meta[i][0]));
		wb_str32(&flush->w, meta[i][1], strlen(meta[i][1]));
	}
	g->events += 2;
	flush_batch(g, flush);
}

/* The quiet thread (a blocking-pool thread, no worker: worker_id 255):
 * a flush span every ~50 ms, its batch written only when drained. */
static void quiet_step(struct gen *g, struct worker *q, uint64_t now, uint64_t *span_seq)
{
	while (q->ts + 50000000 < now && g->events + 3 <= g->target) {
		struct batch *b = &q->b;
		uint64_t y = rng_next(&g->rng), span = (*span_seq)++;
		int sp = NSPANS - 1;
		uint16_t enter = span_schema(b, sp, false), exitid = span_schema(b, sp, true);
		uint32_t nid = pool_str(b, (int)NLOCS + sp, span_names[sp]);
		ev_head(b, enter, q->ts += 50000000 + y % 1000000);
		wb_leb(&b->w, 255);
		wb_leb(&b->w, span);
		wb_u8(&b->w, 0);
		wb_u32(&b->w, nid);
		wb_u8(&b->w, 0);
		ev_head(b, exitid, q->ts += 200000 + (y >> 20) % 2000000);
		wb_leb(&b->w, 255);
		wb_leb(&b->w, span);
		wb_u32(&b->w, nid);
		need_schema(b, S_SPAN_CLOSE);
		ev_head(b, S_SPAN_CLOSE, q->ts += 50);
		wb_leb(&b->w, span);
		g->events += 3;
	}
}

static void segment_seal(struct gen *g, struct worker *wk, struct batch *flush);

static void generate(struct gen *g)
{
	struct worker wk[NWORKERS + 1]; /* (and the quiet thread) */
	struct batch flush = {0};
	batch_start(&flush);
	uint64_t t0 = 1000000000000ull;
	segment_open(g);
	segment_opening(g, &flush, t0);
	for (int i = 0; i <= NWORKERS; i++) {
		memset(&wk[i], 0, sizeof wk[i]);
		batch_start(&wk[i].b);
		wk[i].ts = t0 + 5000 + (uint64_t)i * 777;
		wk[i].tid = 46020 + (uint32_t)i;
		wk[i].next_task = 100 + (uint64_t)i;
	}
	uint64_t span_seq = 1, sample_ts = t0, queue_ts = t0, flushed_ts = t0, segment_ts = t0, drained_ts = t0;
	while (g->events < g->target) {
		/* the worker furthest behind runs one park/unpark cycle with a few polls */
		int wi = 0;
		for (int i = 1; i < NWORKERS; i++)
			if (wk[i].ts < wk[wi].ts)
				wi = i;
		struct worker *w = &wk[wi];
		struct batch *b = &w->b;
		uint64_t x = rng_next(&g->rng);
		need_schema(b, S_UNPARK);
		ev_head(b, S_UNPARK, w->ts += 20000 + x % 200000);
		wb_leb(&b->w, (uint64_t)wi);
		wb_u8(&b->w, (uint8_t)(x % 7));
		wb_leb(&b->w, w->cpu += 3000 + x % 5000);
		wb_u32(&b->w, w->tid);
		if (x % 10 == 0) {
			wb_u8(&b->w, 1);
			wb_leb(&b->w, x % 30000);
		} else {
			wb_u8(&b->w, 0);
		}
		g->events++;
		int polls = 1 + (int)(x >> 8) % 12;
		for (int k = 0; k < polls && g->events < g->target; k++) {
			uint64_t y = rng_next(&g->rng);
			int loc = (int)(y % NLOCS);
			uint64_t task = 1 + y % 4000;
			if (y % 97 == 0) {
				need_schema(b, S_SPAWN);
				uint32_t sid = pool_str(b, loc, spawn_locs[loc]);
				ev_head(b, S_SPAWN, w->ts += 200);
				wb_leb(&b->w, w->next_task += NWORKERS);
				wb_u32(&b->w, sid);
				wb_u8(&b->w, (uint8_t)(y & 1));
				g->events++;
			}
			need_schema(b, S_POLL_START);
			uint32_t sid = pool_str(b, loc, spawn_locs[loc]);
			ev_head(b, S_POLL_START, w->ts += 1000 + y % 30000);
			wb_leb(&b->w, (uint64_t)wi);
			wb_u8(&b->w, (uint8_t)(y >> 16));
			wb_leb(&b->w, task);
			wb_u32(&b->w, sid);
			g->events++;
			if ((y >> 20) % 3 == 0) { /* a span inside the poll */
				int sp = (int)((y >> 24) % NSPANS);
				uint16_t enter = span_schema(b, sp, false), exitid = span_schema(b, sp, true);
				uint32_t nid = pool_str(b, (int)NLOCS + sp, span_names[sp]);
				uint64_t span = span_seq++;
				ev_head(b, enter, w->ts += 150);
				wb_leb(&b->w, (uint64_t)wi);
				wb_leb(&b->w, span);
				wb_u8(&b->w, 0);
				wb_u32(&b->w, nid);
				wb_u8(&b->w, 0);
				ev_head(b, exitid, w->ts += 3000 + (y >> 32) % 200000);
				wb_leb(&b->w, (uint64_t)wi);
				wb_leb(&b->w, span);
				wb_u32(&b->w, nid);
				need_schema(b, S_SPAN_CLOSE);
				ev_head(b, S_SPAN_CLOSE, w->ts += 50);
				wb_leb(&b->w, span);
				g->events += 3;
			}
			if ((y >> 40) % 2 == 0) { /* the task wakes another */
				need_schema(b, S_WAKE);
				ev_head(b, S_WAKE, w->ts += 80);
				wb_leb(&b->w, task);
				wb_leb(&b->w, 1 + (y >> 44) % 4000);
				wb_u8(&b->w, (uint8_t)wi);
				g->events++;
			}
			need_schema(b, S_POLL_END);
			ev_head(b, S_POLL_END, w->ts += 5000 + (y >> 48) % 80000);
			wb_leb(&b->w, (uint64_t)wi);
			g->events++;
			if (y % 211 == 0) {
				need_schema(b, S_TERMINATE);
				ev_head(b, S_TERMINATE, w->ts += 100);
				wb_leb(&b->w, task);
				g->events++;
			}
		}
		need_schema(b, S_PARK);
		ev_head(b, S_PARK, w->ts += 300);
		wb_leb(&b->w, (uint64_t)wi);
		wb_u8(&b->w, 0);
		wb_leb(&b->w, w->cpu += 1000);
		wb_u32(&b->w, w->tid);
		g->events++;
		if (b->w.len >= BATCH)
			flush_batch(g, b);

		/* the flush thread: ~99 Hz CPU samples of every worker and the queue depth, in its own batch */
		uint64_t now = wk[wi].ts;
		while (sample_ts + 10101010 / NWORKERS < now && g->events < g->target) {
			sample_ts += 10101010 / NWORKERS;
			uint64_t z = rng_next(&g->rng);
			int target = (int)(z % NWORKERS), st = (int)((z >> 8) % NSTACKS);
			need_schema(&flush, S_CPU);
			uint32_t name = pool_str(&flush, (int)NLOCS + NSPANS, "tokio-runtime-worker");
			uint32_t stk = pool_stack(&flush, st);
			ev_head(&flush, S_CPU, sample_ts);
			wb_leb(&flush.w, 255);
			wb_u32(&flush.w, wk[target].tid);
			wb_u8(&flush.w, (uint8_t)(z >> 16 & 1));
			wb_u8(&flush.w, 1);
			wb_u32(&flush.w, name);
			wb_u32(&flush.w, stk);
			wb_u8(&flush.w, 1);
			wb_leb(&flush.w, (z >> 20) % 64);
			g->events++;
		}
		while (queue_ts + 10000000 < now && g->events < g->target) {
			need_schema(&flush, S_QUEUE);
			ev_head(&flush, S_QUEUE, queue_ts += 10000000);
			wb_u8(&flush.w, (uint8_t)(rng_next(&g->rng) % 16));
			g->events++;
		}
		if (flush.w.len >= BATCH || now - flushed_ts > 1000000000) { /* about every second */
			flushed_ts = now;
			flush_batch(g, &flush);
		}
		if (g->quiet)
			quiet_step(g, &wk[NWORKERS], now, &span_seq);
		if (g->rotate_ns && now >= segment_ts + g->rotate_ns && g->events < g->target) {
			segment_ts = drained_ts = now;
			segment_seal(g, wk, &flush);
			segment_close(g);
			g->segment++;
			segment_open(g);
			segment_opening(g, &flush, now);
		} else if (g->drain_ns && now >= drained_ts + g->drain_ns) {
			drained_ts = now;
			for (int i = 0; i <= NWORKERS; i++)
				flush_batch(g, &wk[i].b);
		}
	}
	segment_seal(g, wk, &flush);
	for (int i = 0; i <= NWORKERS; i++)
		free(wk[i].b.w.p);
	free(flush.w.p);
}

/* Sealing a segment: every thread's batch written, then symbols appended
 * to the last batch without a header and with time 0, as the writer does
 * (not counted in N). */
static void segment_seal(struct gen *g, struct worker *wk, struct batch *flush)
{
	for (int i = 0; i <= NWORKERS; i++)
		flush_batch(g, &wk[i].b);
	uint16_t symid = (uint16_t)flush->next_dyn++;
	put_schema(&flush->w, symid, "SymbolTableEntry",
		   "addr:varint,size:varint,symbol_name:pstr,inline_depth:varint,source_file:opt-pstr,source_line:varint");
	uint32_t file = pool_str(flush, (int)NLOCS + NSPANS + 1, "src/lib.rs");
	for (int k = 0; k < 200; k++) {
		for (int depth = 0; depth <= k % 3; depth++) {
			char name[64];
			snprintf(name, sizeof name, "app::module%d::function%d", k % 17, k * 10 + depth);
			wb_u8(&flush->w, 3);
			wb_u32(&flush->w, 1);
			wb_u32(&flush->w, flush->next_str);
			wb_str32(&flush->w, name, strlen(name));
			ev_head(flush, symid, 0);
			wb_leb(&flush->w, 0x5555550000ull + (uint64_t)k * 0x40);
			wb_leb(&flush->w, 0x40);
			wb_u32(&flush->w, flush->next_str++);
			wb_leb(&flush->w, (uint64_t)depth);
			wb_u8(&flush->w, 1);
			wb_u32(&flush->w, file);
			wb_leb(&flush->w, 10 + (uint64_t)k);
		}
	}
	flush_batch(g, flush);
}

static int spec_run(const char *out)
{
	struct wbuf w = {0};
	reset_schemas();
	from_spec(&w);
	wb_write_file(&w, out);
	free(w.p);
	return 0;
}

static uint64_t gen_rotate, gen_gzip, gen_quiet; /* --rotate SECONDS, --gzip, --quiet */

#define DRAIN_NS 30000000000ull /* batches are drained at least this often */

static int generate_run(const char *out, uint64_t n, uint64_t seed)
{
	struct gen g = {.rng = seed * 0x9e3779b97f4a7c15ull + 1, .target = n, .path = out,
			.rotate_ns = gen_rotate * 1000000000ull, .gzip = gen_gzip, .quiet = gen_quiet};
	g.drain_ns = g.rotate_ns ? (g.rotate_ns < DRAIN_NS ? g.rotate_ns : DRAIN_NS) : g.quiet ? DRAIN_NS : 0;
	if (!g.rotate_ns && !g.gzip && !(g.out = strcmp(out, "-") ? fopen(out, "wb") : stdout)) {
		perror(out);
		return 1;
	}
	generate(&g);
	segment_close(&g);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct gen_opt opts[] = {
		{"--rotate", true, &gen_rotate}, {"--gzip", false, &gen_gzip}, {"--quiet", false, &gen_quiet}, {0}};
	static const struct writer w = {"d9write", "OUT < SPEC", NULL, spec_run,
					 "--generate N [--seed S] [--rotate SECONDS] [--gzip] [--quiet] OUT", opts,
					 generate_run, "%s/2026-11-28/0900/bench/i-%03u/abcd-4242/1764320400-0.bin"};
	return writer_main(argc, argv, &w);
}
