/* ATF v2 session writer for tests and benchmarks.  It writes what the real
 * writer writes (specs/atf-v2-notes.md): 64-byte headers, 32-byte index
 * records, 540-byte detail records, 64-byte footers, manifests; and every
 * crash state a real session can be left in.
 *
 *   atfwrite OUTDIR < SPEC          a session from a text spec
 *   atfwrite --generate MB [--seed S] [--threads T] [--kib] [--instances K] OUTDIR
 *                                   a finalized session of about MB megabytes
 *                                   (OUTDIR is its pid directory), written the
 *                                   way the real drain writes: index batches,
 *                                   then detail-lane batches whose copies step
 *                                   back in time; --kib: KiB, not MB; with
 *                                   --instances, K processes traced at once
 *                                   (OUTDIR the session: pid_1000, pid_1001, ...)
 *
 * Spec lines (values: see t/writer.h):
 *   dir PATH               following files go to OUTDIR/PATH (default OUTDIR)
 *   bundle trace_session=REL [status=S] [raw=TEXT]
 *                          OUTDIR/manifest.json (bundle kind) and session.json
 *   manifest [format=2.1] [raw=TEXT]
 *                          the current directory's session manifest.json, with
 *                          the module and symbol lines of the spec, and the
 *                          threads of the directory (written at the end)
 *   module id=N path=P     symbol fid=0x... name=N
 *   thread N [arch=1] [os=4] [clock=1] [state=final|crash|footer-only|header-only]
 *            [crc=0|ok|bad] [footer=68] [events_offset=E] [magic=ATI2] [endian=1]
 *            [version=1] [event_size=32] [cut=BYTES] [junk=BYTES] [count=N]
 *            [header_events_offset=E]
 *                          start thread_N (crash: placeholder header, no footer;
 *                          footer-only: footer, header not rewritten;
 *                          header-only: header rewritten, no footer; cut: truncate
 *                          the file; junk: bytes after everything; count: the
 *                          header's event_count instead of the real one;
 *                          header_events_offset: the header says E, records
 *                          stay at events_offset)
 *   detail [state=final|crash] [crc=...] [cut=BYTES] [events_offset=64] [magic=ATD2]
 *            [version=1]   options of the thread's detail.atf (made by D/C lines)
 *   I ts= fid= kind= depth= [link=K] [slot=S]
 *                          an index record (kind 1 CALL, 2 RETURN, 3 ...)
 *   D ts= fid= kind= depth= idx= [type=3|4] [tid=OS] [x0..x7=] [lr=] [fp=] [sp=]
 *            [stack=HEX] [stack_size=N] [layout=spec] [len=L]
 *                          a detail record (back link idx)
 *   C ts= fid= kind= depth= [tid=OS] [x0..=] ...
 *                          a detail-captured call as the drain writes it: an index
 *                          record linked to a new detail record that links back
 */
#include <sys/stat.h>
#include <zlib.h>

#include "t/writer.h"

#define NO_LINK 0xffffffffu
#define DREC 540

struct opts {
	char state[16];
	int crc; /* 0 none, 1 ok, 2 bad */
	int footer_len;
	uint64_t events_offset, header_events_offset, cut, junk;
	bool has_cut, has_count;
	uint32_t count;
	char magic[5];
	unsigned endian, version, event_size;
};

struct thread {
	char *dir;
	uint32_t slot;
	uint8_t arch, os, clock;
	struct opts io, dop;
	bool detail_line;
	struct wbuf idx, det;
	uint64_t nidx, ndet;
	int64_t t0, t1, d0, d1;
	bool any_idx, any_det;
	uint32_t seq_min, seq_max;
};

static struct thread *threads[4096];
static size_t nthreads;

struct kv {
	char *a, *b;
	uint64_t n;
};
static struct kv modules[1024], symbols[4096];
static size_t nmodules, nsymbols;

struct manifest {
	char *dir, *format, *raw;
};
static struct manifest manifests[64];
static size_t nmanifests;

static void mkdirs(const char *path)
{
	char *p = strdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	free(p);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static void write_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "wb");
	if (!f || fputs(s, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* JSON string escaping as the real writer does: only " \ newline CR tab. */
static void json_esc(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\r')
			fputs("\\r", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void opts_parse(struct opts *o, const struct spec *s, bool index)
{
	size_t n;
	const char *v = spec_str(s, "state", &n);
	snprintf(o->state, sizeof o->state, "%s", v ? v : "final");
	v = spec_str(s, "crc", &n);
	o->crc = !v ? 0 : !strcmp(v, "ok") ? 1 : !strcmp(v, "bad") ? 2 : 0;
	o->footer_len = (int)spec_num(s, "footer", 64);
	o->events_offset = spec_num(s, "events_offset", 64);
	o->header_events_offset = spec_num(s, "header_events_offset", o->events_offset);
	o->has_cut = spec_has(s, "cut");
	o->cut = spec_num(s, "cut", 0);
	o->junk = spec_num(s, "junk", 0);
	o->has_count = spec_has(s, "count");
	o->count = (uint32_t)spec_num(s, "count", 0);
	v = spec_str(s, "magic", &n);
	snprintf(o->magic, sizeof o->magic, "%s", v ? v : index ? "ATI2" : "ATD2");
	o->endian = (unsigned)spec_num(s, "endian", 1);
	o->version = (unsigned)spec_num(s, "version", 1);
	o->event_size = (unsigned)spec_num(s, "event_size", 32);
}

static void add_index(struct thread *t, int64_t ts, uint64_t fid, uint32_t slot, uint32_t kind, uint32_t depth,
		      uint32_t link)
{
	wb_u64(&t->idx, (uint64_t)ts);
	wb_u64(&t->idx, fid);
	wb_u32(&t->idx, slot);
	wb_u32(&t->idx, kind);
	wb_u32(&t->idx, depth);
	wb_u32(&t->idx, link);
	if (!t->any_idx)
		t->t0 = ts;
	t->t1 = ts;
	t->any_idx = true;
	t->nidx++;
}

struct dspec {
	int64_t ts;
	uint64_t fid, regs[8], lr, fp, sp;
	uint32_t kind, depth, idx, tid, type, stack_size;
	const uint8_t *stack;
	size_t nstack;
	bool spec_layout;
	uint32_t len;
};

static void add_detail(struct thread *t, const struct dspec *d)
{
	struct wbuf *w = &t->det;
	size_t at = w->len;
	uint32_t type = d->type ? d->type : d->kind == 2 ? 4 : 3;
	if (d->spec_layout) {
		uint32_t len = d->len ? d->len : 24 + 100 + (uint32_t)d->nstack;
		wb_u32(w, len);
		wb_u16(w, (uint16_t)type);
		wb_u16(w, 0);
		wb_u32(w, d->idx);
		wb_u32(w, t->slot);
		wb_u64(w, (uint64_t)d->ts);
		wb_u64(w, d->fid);
		for (int i = 0; i < 8; i++)
			wb_u64(w, d->regs[i]);
		wb_u64(w, d->lr);
		wb_u64(w, d->fp);
		wb_u64(w, d->sp);
		wb_u16(w, (uint16_t)(d->stack_size ? d->stack_size : d->nstack));
		wb_u16(w, 0);
		if (d->nstack)
			wb_add(w, d->stack, d->nstack);
		if (w->len - at < len)
			wb_zero(w, len - (w->len - at));
	} else {
		uint32_t len = d->len ? d->len : DREC;
		uint8_t rec[DREC] = {0};
		struct wbuf r = {rec, 0, sizeof rec};
		wb_put(&r, 0, len, 4, false);
		wb_put(&r, 4, type, 2, false);
		wb_put(&r, 8, d->idx, 4, false);
		wb_put(&r, 12, t->slot, 4, false);
		wb_put(&r, 16, (uint64_t)d->ts, 8, false);
		wb_put(&r, 24, (uint64_t)d->ts, 8, false);
		wb_put(&r, 32, d->fid, 8, false);
		wb_put(&r, 40, d->tid, 4, false);
		wb_put(&r, 44, d->kind, 4, false);
		wb_put(&r, 48, d->depth, 4, false);
		for (int i = 0; i < 8; i++)
			wb_put(&r, 56 + 8 * (size_t)i, d->regs[i], 8, false);
		wb_put(&r, 120, d->lr, 8, false);
		wb_put(&r, 128, d->fp, 8, false);
		wb_put(&r, 136, d->sp, 8, false);
		memcpy(rec + 144, d->stack, d->nstack < 128 ? d->nstack : 128);
		wb_put(&r, 272, d->stack_size ? d->stack_size : d->nstack, 4, false);
		/* another total_length keeps the first bytes (or pads with zeros) */
		wb_add(w, rec, len < DREC ? len : DREC);
		if (len > DREC)
			wb_zero(w, len - DREC);
	}
	if (!t->any_det) {
		t->d0 = d->ts;
		t->seq_min = t->seq_max = d->idx;
	}
	t->d1 = d->ts;
	t->seq_min = d->idx < t->seq_min ? d->idx : t->seq_min;
	t->seq_max = d->idx > t->seq_max ? d->idx : t->seq_max;
	t->any_det = true;
	t->ndet++;
}

static size_t hexbytes(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	while (*s && n < cap) {
		while (*s == ' ' || *s == ':')
			s++;
		if (!s[0] || !s[1])
			break;
		char h[3] = {s[0], s[1], 0};
		out[n++] = (uint8_t)strtoul(h, NULL, 16);
		s += 2;
	}
	return n;
}

static void dspec_parse(struct dspec *d, const struct spec *s, uint8_t *stackbuf)
{
	memset(d, 0, sizeof *d);
	d->ts = (int64_t)spec_num(s, "ts", 0);
	d->fid = spec_num(s, "fid", 0);
	d->kind = (uint32_t)spec_num(s, "kind", 1);
	d->depth = (uint32_t)spec_num(s, "depth", 1);
	d->idx = (uint32_t)spec_num(s, "idx", 0);
	d->tid = (uint32_t)spec_num(s, "tid", 0);
	d->type = (uint32_t)spec_num(s, "type", 0);
	d->len = (uint32_t)spec_num(s, "len", 0);
	char key[8];
	for (int i = 0; i < 8; i++) {
		snprintf(key, sizeof key, "x%d", i);
		d->regs[i] = spec_num(s, key, 0);
	}
	d->lr = spec_num(s, "lr", 0);
	d->fp = spec_num(s, "fp", 0);
	d->sp = spec_num(s, "sp", 0);
	size_t n;
	const char *st = spec_str(s, "stack", &n);
	d->stack = stackbuf;
	d->nstack = st ? hexbytes(st, stackbuf, 256) : 0;
	d->stack_size = (uint32_t)spec_num(s, "stack_size", 0);
	const char *lay = spec_str(s, "layout", &n);
	d->spec_layout = lay && !strcmp(lay, "spec");
}

/* ---- assembling files ----------------------------------------------------- */

static void truncate_to(const char *path, const struct opts *o)
{
	if (o->has_cut && truncate(path, (off_t)o->cut)) {
		perror(path);
		exit(1);
	}
}

static void index_header(struct wbuf *w, const struct thread *t, bool finalized, uint64_t footer_at)
{
	const struct opts *o = &t->io;
	wb_add(w, o->magic, 4);
	wb_u8(w, (uint8_t)o->endian);
	wb_u8(w, (uint8_t)o->version);
	wb_u8(w, t->arch);
	wb_u8(w, t->os);
	wb_u32(w, finalized && t->any_det ? 1 : 0);
	wb_u32(w, t->slot);
	wb_u8(w, t->clock);
	wb_zero(w, 7);
	wb_u32(w, o->event_size);
	wb_u32(w, finalized ? (o->has_count ? o->count : (uint32_t)t->nidx) : 0);
	wb_u64(w, o->header_events_offset);
	wb_u64(w, finalized ? footer_at : 64);
	wb_u64(w, finalized ? (uint64_t)t->t0 : 0);
	wb_u64(w, finalized ? (uint64_t)t->t1 : 0);
}

static uint32_t crc_of(const struct wbuf *w, int mode)
{
	uint32_t c = (uint32_t)crc32(0, w->p, (uInt)w->len);
	return mode == 1 ? c : mode == 2 ? c ^ 0x5a5a5a5a : 0;
}

static void write_thread(struct thread *t)
{
	char name[32];
	snprintf(name, sizeof name, "thread_%u", t->slot);
	char *tdir = join(t->dir, name);
	mkdirs(tdir);
	/* index.atf */
	const struct opts *o = &t->io;
	struct wbuf w = {0};
	bool fin = !strcmp(o->state, "final") || !strcmp(o->state, "header-only");
	bool footer = !strcmp(o->state, "final") || !strcmp(o->state, "footer-only");
	uint64_t footer_at = o->events_offset + t->idx.len;
	index_header(&w, t, fin, footer_at);
	if (o->events_offset > 64)
		wb_zero(&w, o->events_offset - 64);
	if (t->idx.len)
		wb_add(&w, t->idx.p, t->idx.len);
	if (footer) {
		wb_add(&w, "2ITA", 4);
		wb_u32(&w, crc_of(&t->idx, o->crc));
		wb_u64(&w, t->nidx);
		wb_u64(&w, (uint64_t)t->t0);
		wb_u64(&w, (uint64_t)t->t1);
		wb_u64(&w, t->idx.len);
		wb_zero(&w, (size_t)(o->footer_len - 40));
	}
	for (uint64_t i = 0; i < o->junk; i++)
		wb_u8(&w, 0xaa);
	char *ip = join(tdir, "index.atf");
	wb_write_file(&w, ip);
	truncate_to(ip, o);
	free(ip);
	free(w.p);
	/* detail.atf */
	if (t->any_det || t->detail_line) {
		const struct opts *d = &t->dop;
		bool dfin = !strcmp(d->state, "final");
		w = (struct wbuf){0};
		wb_add(&w, d->magic, 4);
		wb_u8(&w, (uint8_t)d->endian);
		wb_u8(&w, (uint8_t)d->version);
		wb_u8(&w, t->arch);
		wb_u8(&w, t->os);
		wb_u32(&w, 0);
		wb_u32(&w, t->slot);
		wb_u32(&w, 0);
		wb_u64(&w, d->events_offset);
		wb_u64(&w, dfin ? t->ndet : 0);
		wb_u64(&w, dfin ? t->det.len : 0);
		wb_u64(&w, dfin ? t->seq_min : 0);
		wb_u64(&w, dfin ? t->seq_max : 0);
		wb_u32(&w, 0);
		if (d->events_offset < 64)
			w.len = d->events_offset; /* 60: the spec's header, without the pad */
		else
			wb_zero(&w, d->events_offset - 64);
		if (t->det.len)
			wb_add(&w, t->det.p, t->det.len);
		if (dfin) {
			wb_add(&w, "2DTA", 4);
			wb_u32(&w, crc_of(&t->det, d->crc));
			wb_u64(&w, t->ndet);
			wb_u64(&w, t->det.len);
			wb_u64(&w, (uint64_t)t->d0);
			wb_u64(&w, (uint64_t)t->d1);
			wb_zero(&w, 24);
		}
		char *dp = join(tdir, "detail.atf");
		wb_write_file(&w, dp);
		truncate_to(dp, d);
		free(dp);
		free(w.p);
	}
	free(tdir);
}

static void write_manifest(const struct manifest *m)
{
	char *path = join(m->dir, "manifest.json");
	mkdirs(m->dir);
	if (m->raw) {
		write_text(path, m->raw);
		free(path);
		return;
	}
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs("{\n  \"threads\": [", f);
	bool first = true;
	for (size_t i = 0; i < nthreads; i++) {
		if (strcmp(threads[i]->dir, m->dir))
			continue;
		fprintf(f, "%s\n    {\"id\": %u, \"has_detail\": true}", first ? "" : ",", threads[i]->slot);
		first = false;
	}
	fprintf(f, "\n  ],\n  \"time_start_ns\": 0,\n  \"time_end_ns\": 0,\n  \"clock_type\": 1");
	if (nmodules || nsymbols) {
		fputs(",\n  \"modules\": [", f);
		for (size_t i = 0; i < nmodules; i++) {
			fprintf(f, "%s\n    {\"module_id\": %llu, \"path\": ", i ? "," : "", (unsigned long long)modules[i].n);
			json_esc(f, modules[i].a);
			fputs(", \"base_address\": \"0x100000000\"}", f);
		}
		fputs("\n  ],\n  \"symbols\": [", f);
		for (size_t i = 0; i < nsymbols; i++) {
			uint64_t fid = symbols[i].n;
			fprintf(f, "%s\n    {\"function_id\": \"0x%016llx\", \"module_id\": %llu, \"symbol_index\": %llu, "
				   "\"name\": ",
				i ? "," : "", (unsigned long long)fid, (unsigned long long)(fid >> 32),
				(unsigned long long)(fid & 0xffffffffu));
			json_esc(f, symbols[i].a);
			fputc('}', f);
		}
		fputs("\n  ]", f);
	}
	fprintf(f, ",\n  \"format_version\": \"%s\"\n}\n", m->format ? m->format : nsymbols ? "2.1" : "2.0");
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
	free(path);
}

static char *dupv(const struct spec *s, const char *key)
{
	size_t n;
	const char *v = spec_str(s, key, &n);
	if (!v)
		return NULL;
	char *p = malloc(n + 1);
	memcpy(p, v, n);
	p[n] = 0;
	return p;
}

static int from_spec(const char *out)
{
	static char line[1 << 16];
	static uint8_t stackbuf[256];
	struct spec s = {0};
	char *dir = strdup(out);
	struct thread *t = NULL;
	while (spec_next(stdin, &s, line, sizeof line)) {
		if (!strcmp(s.kind, "dir")) {
			free(dir);
			dir = join(out, s.key[0]);
		} else if (!strcmp(s.kind, "bundle")) {
			mkdirs(out);
			char *raw = dupv(&s, "raw"), *ts = dupv(&s, "trace_session"), *st = dupv(&s, "status");
			char *mp = join(out, "manifest.json"), *sp = join(out, "session.json");
			if (raw) {
				write_text(mp, raw);
			} else {
				FILE *f = fopen(mp, "wb");
				fputs("{\n  \"version\": 1,\n  \"created_at_ms\": 1767268800000,\n  \"session_name\": \"s\",\n"
				      "  \"trace_root\": \"trace\",\n  \"trace_session\": ",
				      f);
				json_esc(f, ts ? ts : "");
				fputs(",\n  \"screen_path\": null\n}\n", f);
				fclose(f);
			}
			FILE *f = fopen(sp, "wb");
			fputs("{\"session_id\": \"s\", \"status\": ", f);
			json_esc(f, st ? st : "complete");
			fputs("}\n", f);
			fclose(f);
			free(raw);
			free(ts);
			free(st);
			free(mp);
			free(sp);
		} else if (!strcmp(s.kind, "manifest")) {
			struct manifest *m = &manifests[nmanifests++];
			m->dir = strdup(dir);
			m->format = dupv(&s, "format");
			m->raw = dupv(&s, "raw");
		} else if (!strcmp(s.kind, "module") && nmodules < 1024) {
			modules[nmodules++] = (struct kv){dupv(&s, "path"), NULL, spec_num(&s, "id", 0)};
		} else if (!strcmp(s.kind, "symbol") && nsymbols < 4096) {
			symbols[nsymbols++] = (struct kv){dupv(&s, "name"), NULL, spec_num(&s, "fid", 0)};
		} else if (!strcmp(s.kind, "thread")) {
			t = calloc(1, sizeof *t);
			threads[nthreads++] = t;
			t->dir = strdup(dir);
			t->slot = (uint32_t)strtoul(s.key[0], NULL, 0);
			t->arch = (uint8_t)spec_num(&s, "arch", 1);
			t->os = (uint8_t)spec_num(&s, "os", 4);
			t->clock = (uint8_t)spec_num(&s, "clock", 1);
			opts_parse(&t->io, &s, true);
			struct spec none = {0};
			opts_parse(&t->dop, &none, false);
		} else if (t && !strcmp(s.kind, "detail")) {
			opts_parse(&t->dop, &s, false);
			t->detail_line = true;
		} else if (t && !strcmp(s.kind, "I")) {
			add_index(t, (int64_t)spec_num(&s, "ts", 0), spec_num(&s, "fid", 0),
				  (uint32_t)spec_num(&s, "slot", t->slot), (uint32_t)spec_num(&s, "kind", 1),
				  (uint32_t)spec_num(&s, "depth", 1), (uint32_t)spec_num(&s, "link", NO_LINK));
		} else if (t && (!strcmp(s.kind, "D") || !strcmp(s.kind, "C"))) {
			struct dspec d;
			dspec_parse(&d, &s, stackbuf);
			if (s.kind[0] == 'C') {
				d.idx = (uint32_t)t->nidx;
				add_index(t, d.ts, d.fid, t->slot, d.kind, d.depth, (uint32_t)t->ndet);
			}
			add_detail(t, &d);
		} else {
			fprintf(stderr, "atfwrite: line %d: unknown or misplaced '%s'\n", s.line, s.kind);
			exit(2);
		}
	}
	for (size_t i = 0; i < nthreads; i++)
		write_thread(threads[i]);
	for (size_t i = 0; i < nmanifests; i++)
		write_manifest(&manifests[i]);
	free(dir);
	return 0;
}

/* ---- --generate: a big finalized session, written like the real drain ----- */

struct gen_thread {
	FILE *fi, *fd;
	char *ipath, *dpath;
	uint64_t nidx, ndet, dbytes;
	int64_t ts, t0, t1, d0, d1;
	uint32_t stack[64], depth;
	uint32_t seq_min, seq_max;
	struct wbuf ib, db; /* one drain cycle's index and detail batches */
	struct wbuf pend;   /* detail-captured calls of this cycle (their copies) */
	size_t npend;
};

#define NFUNCS 240

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}


static uint64_t gen_fid(uint32_t f) { return (uint64_t)(f < 120 ? 0x3edfa0e1u : 0x46581c93u) << 32 | (f % 120 + 1); }

static void put_rec(struct wbuf *w, int64_t ts, uint64_t fid, uint32_t slot, uint32_t kind, uint32_t depth, uint32_t link)
{
	wb_u64(w, (uint64_t)ts);
	wb_u64(w, fid);
	wb_u32(w, slot);
	wb_u32(w, kind);
	wb_u32(w, depth);
	wb_u32(w, link);
}

static void gen_detail(struct gen_thread *g, uint32_t slot, int64_t ts, uint64_t fid, uint32_t kind, uint32_t depth,
		       uint32_t idx, uint64_t x)
{
	struct wbuf *w = &g->db;
	size_t o = w->len;
	wb_zero(w, DREC);
	wb_put(w, o, DREC, 4, false);
	wb_put(w, o + 4, kind == 2 ? 4 : 3, 2, false);
	wb_put(w, o + 8, idx, 4, false);
	wb_put(w, o + 12, slot, 4, false);
	wb_put(w, o + 16, (uint64_t)ts, 8, false);
	wb_put(w, o + 24, (uint64_t)ts, 8, false);
	wb_put(w, o + 32, fid, 8, false);
	wb_put(w, o + 40, 259 + 256 * slot, 4, false);
	wb_put(w, o + 44, kind, 4, false);
	wb_put(w, o + 48, depth, 4, false);
	uint64_t sp = 0x7ff7bfefec80ull - 0x100000ull * slot - 16 * depth;
	if (kind == 1) {
		for (int i = 0; i < 6; i++)
			wb_put(w, o + 56 + 8 * (size_t)i, x >> (8 * i) & 0xffff, 8, false);
		wb_put(w, o + 104, sp + 64, 8, false);
		wb_put(w, o + 112, sp, 8, false);
		wb_put(w, o + 128, sp + 64, 8, false);
		for (int i = 0; i < 128; i++)
			w->p[o + 144 + (size_t)i] = (uint8_t)(x >> (i % 8 * 8));
		wb_put(w, o + 272, 128, 4, false);
	} else {
		wb_put(w, o + 56, x & 0xffffffff, 8, false);
	}
	wb_put(w, o + 136, sp, 8, false);
	if (!g->ndet) {
		g->d0 = ts;
		g->seq_min = idx;
	}
	g->d1 = ts;
	g->seq_max = idx;
	g->ndet++;
	g->dbytes += DREC;
}

/* One drain cycle: the index batch, then (detail on) the detail-lane batch
 * whose index copies carry the links and step back in time. */
static void gen_flush(struct gen_thread *g, uint32_t slot)
{
	if (g->ib.len) /* (fwrite of a NULL buffer is undefined, even of nothing) */
		fwrite(g->ib.p, 1, g->ib.len, g->fi);
	g->ib.len = 0;
	const uint8_t *p = g->pend.p;
	for (size_t i = 0; i < g->npend; i++, p += 32) {
		int64_t ts = (int64_t)(ld64(p) + 37);
		uint64_t fid = ld64(p + 8);
		uint32_t kind = (uint32_t)ld64(p + 16), depth = (uint32_t)ld64(p + 24);
		uint8_t rec[32];
		struct wbuf r = {rec, 0, sizeof rec};
		put_rec(&r, ts, fid, slot, kind, depth, (uint32_t)g->ndet);
		fwrite(rec, 1, 32, g->fi);
		gen_detail(g, slot, ts, fid, kind, depth, (uint32_t)g->nidx, fid * 2654435761u + (uint64_t)ts);
		g->nidx++;
		g->t1 = ts > g->t1 ? ts : g->t1;
	}
	g->npend = 0;
	g->pend.len = 0;
	if (g->db.len)
		fwrite(g->db.p, 1, g->db.len, g->fd);
	g->db.len = 0;
}

static void gen_event(struct gen_thread *g, uint32_t slot, uint32_t kind, uint32_t f, bool detail)
{
	uint64_t fid = gen_fid(f);
	put_rec(&g->ib, g->ts, fid, slot, kind, g->depth, NO_LINK);
	if (!g->nidx)
		g->t0 = g->ts;
	g->t1 = g->ts;
	g->nidx++;
	if (detail) {
		wb_u64(&g->pend, (uint64_t)g->ts);
		wb_u64(&g->pend, fid);
		wb_u64(&g->pend, kind);
		wb_u64(&g->pend, g->depth);
		g->npend++;
	}
}

static void finalize_index(struct gen_thread *g, uint32_t slot, bool has_detail)
{
	uint64_t footer_at = 64 + 32 * g->nidx;
	struct wbuf w = {0};
	wb_add(&w, "2ITA", 4);
	wb_u32(&w, 0);
	wb_u64(&w, g->nidx);
	wb_u64(&w, (uint64_t)g->t0);
	wb_u64(&w, (uint64_t)g->t1);
	wb_u64(&w, 32 * g->nidx);
	wb_zero(&w, 24);
	fwrite(w.p, 1, w.len, g->fi);
	w.len = 0;
	struct thread th = {.slot = slot, .arch = 1, .os = 4, .clock = 1, .nidx = g->nidx, .t0 = g->t0, .t1 = g->t1,
			    .any_det = has_detail};
	struct spec none = {0};
	opts_parse(&th.io, &none, true);
	index_header(&w, &th, true, footer_at);
	fseek(g->fi, 0, SEEK_SET);
	fwrite(w.p, 1, w.len, g->fi);
	free(w.p);
}

static void finalize_detail(struct gen_thread *g, uint32_t slot)
{
	struct wbuf w = {0};
	wb_add(&w, "2DTA", 4);
	wb_u32(&w, 0);
	wb_u64(&w, g->ndet);
	wb_u64(&w, g->dbytes);
	wb_u64(&w, (uint64_t)g->d0);
	wb_u64(&w, (uint64_t)g->d1);
	wb_zero(&w, 24);
	fwrite(w.p, 1, w.len, g->fd);
	w.len = 0;
	wb_add(&w, "ATD2", 4);
	wb_u8(&w, 1);
	wb_u8(&w, 1);
	wb_u8(&w, 1);
	wb_u8(&w, 4);
	wb_u32(&w, 0);
	wb_u32(&w, slot);
	wb_u32(&w, 0);
	wb_u64(&w, 64);
	wb_u64(&w, g->ndet);
	wb_u64(&w, g->dbytes);
	wb_u64(&w, g->seq_min);
	wb_u64(&w, g->seq_max);
	wb_u32(&w, 0);
	fseek(g->fd, 0, SEEK_SET);
	fwrite(w.p, 1, w.len, g->fd);
	free(w.p);
}

static uint64_t gen_threads = 4, gen_kib; /* --threads, --kib */

static int generate(const char *out, uint64_t mb, uint64_t seed)
{
	unsigned nth = gen_threads < 1 || gen_threads > 64 ? 4 : (unsigned)gen_threads;
	mkdirs(out);
	nthreads = nmodules = nsymbols = 0; /* (a session of several pids: each its own manifest) */
	uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1, target = mb << (gen_kib ? 10 : 20), written = 0;
	struct gen_thread *g = calloc(nth, sizeof *g);
	uint8_t zero[64] = {0};
	for (unsigned s = 0; s < nth; s++) {
		char name[32];
		snprintf(name, sizeof name, "thread_%u", s);
		char *tdir = join(out, name);
		mkdirs(tdir);
		g[s].ipath = join(tdir, "index.atf");
		g[s].dpath = join(tdir, "detail.atf");
		g[s].fi = fopen(g[s].ipath, "wb");
		g[s].fd = fopen(g[s].dpath, "wb");
		if (!g[s].fi || !g[s].fd) {
			perror(tdir);
			return 1;
		}
		fwrite(zero, 1, 64, g[s].fi);
		fwrite(zero, 1, 64, g[s].fd);
		g[s].ts = 1000000000000ll + (int64_t)s * 977;
		free(tdir);
	}
	/* each thread: main at depth 1 for the whole run, calls below it */
	for (unsigned s = 0; s < nth; s++) {
		g[s].depth = 1;
		g[s].stack[0] = 0;
		gen_event(&g[s], s, 1, 0, false);
	}
	while (written < target) {
		for (unsigned s = 0; s < nth && written < target; s++) {
			struct gen_thread *t = &g[s];
			uint64_t x = rng_next(&rng);
			/* (the last batches no bigger than what is left: K small
			 * instances hold about the events of one of K times the size) */
			unsigned batch = 500 + (unsigned)(x % 4000);
			if (batch > (target - written) / 32 + 1)
				batch = (unsigned)((target - written) / 32 + 1);
			bool detail = (x >> 20) % 40 == 0; /* detail recording on in 1 of 40 cycles */
			for (unsigned k = 0; k < batch; k++) {
				uint64_t y = rng_next(&rng);
				t->ts += 40 + (int64_t)(y % 1500);
				bool call = t->depth < 2 || (t->depth < 40 && (y >> 16) % 100 < 50 - t->depth);
				if (call) {
					uint32_t f = 1 + (uint32_t)((y >> 24) % (NFUNCS - 1));
					t->stack[t->depth++] = f;
					gen_event(t, s, 1, f, detail);
				} else {
					gen_event(t, s, 2, t->stack[t->depth - 1], detail);
					t->depth--;
				}
			}
			uint64_t before = t->dbytes;
			gen_flush(t, s);
			written += 32ull * batch + (t->dbytes - before);
		}
	}
	for (unsigned s = 0; s < nth; s++) {
		struct gen_thread *t = &g[s];
		while (t->depth) {
			t->ts += 100;
			gen_event(t, s, 2, t->stack[t->depth - 1], false);
			t->depth--;
		}
		gen_flush(t, s);
		finalize_index(t, s, true);
		finalize_detail(t, s);
		if (fclose(t->fi) || fclose(t->fd)) {
			perror(t->ipath);
			return 1;
		}
		free(t->ipath);
		free(t->dpath);
		free(t->ib.p);
		free(t->db.p);
		free(t->pend.p);
	}
	/* the manifest: every generated function named */
	static char names[NFUNCS][32];
	modules[nmodules++] = (struct kv){"/Applications/Bench.app/Contents/MacOS/Bench", NULL, 0x3edfa0e1u};
	modules[nmodules++] = (struct kv){"/Applications/Bench.app/Contents/Frameworks/libbench.dylib", NULL, 0x46581c93u};
	for (uint32_t f = 0; f < NFUNCS; f++) {
		snprintf(names[f], sizeof names[f], f ? "bench_fn_%u" : "main", f);
		symbols[nsymbols++] = (struct kv){names[f], NULL, gen_fid(f)};
	}
	struct thread *ts = calloc(nth, sizeof *ts);
	for (unsigned s = 0; s < nth; s++) {
		ts[s] = (struct thread){.dir = (char *)out, .slot = s};
		threads[nthreads++] = &ts[s];
	}
	struct manifest m = {.dir = (char *)out};
	write_manifest(&m);
	free(ts);
	free(g);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct gen_opt opts[] = {{"--threads", true, &gen_threads}, {"--kib", false, &gen_kib}, {0}};
	static const struct writer w = {"atfwrite", "OUTDIR < SPEC", NULL, from_spec,
					 "--generate MB [--seed S] [--threads T] [--kib] OUTDIR", opts, generate,
					 "%s/pid_1%03u"};
	return writer_main(argc, argv, &w);
}
