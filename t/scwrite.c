/* syscall_capture writer for tests and benchmarks.  It replays the real
 * writer's buffer bookkeeping (specs/syscall-tlv-notes.md §2.1): two 1 MiB
 * buffers, a swap when the working one has less than 128 KiB left, a page
 * (standby, the working data before the record, a filler) once both hold
 * 1 MiB - 8, and the bug that leaves the next record `last` bytes further on,
 * so gaps hold whatever the buffer held before: stale, valid-looking records.
 *
 *   scwrite [--over] OUT < SPEC    --over: write into OUT without truncating it
 *                                  (the real writer's open), leaving a stale tail
 *   scwrite --generate N [--seed S] [--forks K] OUT
 *                                  N records, in streams of a few pages each;
 *                                  --forks: of one process forking K children
 *                                  in turn (streams in exit order, its last)
 *
 * Spec lines (values: see t/writer.h):
 *   header tid= [epoch=] [mono=] [be] [version=] [short] [seg16] [uname=] [nouname] [novar]
 *          a new process (the previous one exits first); short: the 20-byte header;
 *          seg16: 16-bit segment tags and lengths, written straight through
 *   sc nr= [ret=] [tid=] [ts=] [dur=F32] [mdur=U32] [errno=] [flags=] ARGS...
 *          a syscall (tag 2); the return value is written when not 0, as the writer does
 *   literal nr= [ret=] [tid=] [ts=REL] [dur=U32] [errno=] ARGS...
 *          the spec's layout (tag 1, return value always present)
 *   many n= [nr=0] [size=64] [ts=] [step=1000] [dur=]
 *          n records with a data IE of `size` bytes, times `step` apart
 *   fork | exit | abort
 *          fork: later records go to a child until its exit (or abort: killed,
 *          its buffers lost); at the end of the spec every process exits
 *   copy file= off= len= [bare]   a segment copied from another capture, through
 *          the writer's buffers (bare: no bookkeeping, as for the variable header)
 *   seg tag= [len=] [hex=]   a segment written straight to the file
 *   raw HEX...               bytes written straight to the file
 * ARGS, in order: int=V int8=V data=S trunc=REAL[:S] stat=MODE:SIZE:INO
 *   poll=FD:EV:REV[,...] sigact=[HANDLER:FLAGS] intptr=PTR:VAL ie=TAG:HEX
 *   badie=TAG:CLAIM:HEX (an IE claiming more than the record holds; last) */
#include <math.h>

#include "t/writer.h"

#define PAGE (1u << 20)
#define SWAP_ROOM (128u << 10)

/* ---- the file: written at a shared offset, never truncated ---------------- */

struct file {
	struct wbuf img;
	uint64_t pos;  /* the shared file offset */
	uint64_t base; /* file offset of img.p[0] (generate mode writes out as it goes) */
};

static void file_write(struct file *f, const void *p, size_t n)
{
	if (!n)
		return;
	size_t at = (size_t)(f->pos - f->base);
	if (at + n > f->img.len)
		wb_zero(&f->img, at + n - f->img.len);
	memcpy(f->img.p + at, p, n);
	f->pos += n;
}

/* ---- one traced process: the writer's two buffers ----------------------- */

struct proc {
	uint8_t *mem[2];
	int64_t base[2], pos[2]; /* data of buffer i: mem[i][base[i] .. base[i]+pos[i]) */
	int64_t cap, last;       /* of the working buffer */
	int w;
	bool be, seg16, dead;
	int32_t tid;
	int64_t mono;
	int pages;
};

static struct proc *proc_new(void)
{
	struct proc *p = calloc(1, sizeof *p);
	p->mem[0] = calloc(1, PAGE);
	p->mem[1] = calloc(1, PAGE);
	if (!p || !p->mem[0] || !p->mem[1]) {
		perror("scwrite");
		exit(1);
	}
	p->cap = PAGE;
	return p;
}

static struct proc *proc_copy(const struct proc *o)
{
	struct proc *p = proc_new();
	uint8_t *m0 = p->mem[0], *m1 = p->mem[1];
	*p = *o;
	p->mem[0] = m0;
	p->mem[1] = m1;
	memcpy(m0, o->mem[0], PAGE);
	memcpy(m1, o->mem[1], PAGE);
	return p;
}

static void proc_free(struct proc *p)
{
	free(p->mem[0]);
	free(p->mem[1]);
	free(p);
}

/* Append a segment to the working buffer; `bare`: no bookkeeping (the header
 * and the variable header part). */
static void proc_add(struct proc *p, struct file *f, const uint8_t *seg, size_t n, bool bare)
{
	if (p->dead)
		return;
	if (p->seg16) { /* never written by the real writer: no pages */
		file_write(f, seg, n);
		return;
	}
	int w = p->w, s = !w;
	if (p->cap - p->pos[w] < (int64_t)n) { /* the writer's assertion: the program dies */
		p->dead = true;
		return;
	}
	memcpy(p->mem[w] + p->base[w] + p->pos[w], seg, n);
	p->pos[w] += (int64_t)n;
	if (bare) {
		p->last = 0;
		return;
	}
	if (p->cap - p->pos[w] < SWAP_ROOM) {
		p->w = w = s;
		s = !w;
		p->cap = PAGE;
		p->last = p->pos[w];
	}
	if (p->pos[s] + p->pos[w] >= PAGE - 8) {
		file_write(f, p->mem[s] + p->base[s], (size_t)p->pos[s]);
		file_write(f, p->mem[w] + p->base[w], (size_t)p->last);
		uint8_t fh[8];
		uint32_t len = (uint32_t)(PAGE - p->pos[s] - p->last - 8);
		for (int i = 0; i < 4; i++) {
			fh[p->be ? 3 - i : i] = (uint8_t)(3 >> (8 * i));
			fh[p->be ? 7 - i : 4 + i] = (uint8_t)(len >> (8 * i));
		}
		file_write(f, fh, 8);
		static const uint8_t zero[PAGE];
		file_write(f, zero, len);
		p->pos[s] = p->base[s] = 0;
		p->base[w] += p->last; /* the bug: the position is not moved back */
		p->cap -= p->last;
		p->pages++;
	}
	p->last = p->pos[w];
}

/* Normal exit: the destructor writes what both buffers hold. */
static void proc_exit(struct proc *p, struct file *f)
{
	if (!p->dead && !p->seg16) {
		int w = p->w, s = !w;
		file_write(f, p->mem[s] + p->base[s], (size_t)p->pos[s]);
		file_write(f, p->mem[w] + p->base[w], (size_t)p->pos[w]);
	}
	proc_free(p);
}

/* ---- encoding ------------------------------------------------------------ */

static void put(struct wbuf *b, uint64_t v, int n, bool be) { wb_uint(b, v, n, be); }

static void pad(struct wbuf *b)
{
	while (b->len % 4)
		wb_u8(b, 0);
}

static void ie(struct wbuf *b, bool be, uint16_t tag, const void *v, size_t n)
{
	put(b, tag, 2, be);
	put(b, n, 2, be);
	if (n)
		wb_add(b, v, n);
	pad(b);
}

/* Wrap value bytes into a segment. */
static void segment(struct wbuf *out, bool be, bool seg16, uint32_t tag, const struct wbuf *v)
{
	out->len = 0;
	put(out, tag, seg16 ? 2 : 4, be);
	put(out, v->len, seg16 ? 2 : 4, be);
	if (v->len)
		wb_add(out, v->p, v->len);
	pad(out);
}

/* An int IE: 4 bytes when the value fits in int32 (as the writer does), else 8. */
static void int_ie(struct wbuf *b, bool be, int64_t x, bool force8)
{
	bool small = !force8 && x >= INT32_MIN && x <= INT32_MAX;
	put(b, 1, 2, be);
	put(b, small ? 4 : 8, 2, be);
	put(b, (uint64_t)x, small ? 4 : 8, be);
}

static void stat_ie(struct wbuf *b, bool be, uint32_t mode, int64_t size, uint64_t ino)
{
	struct wbuf v = {0};
	put(&v, 2049, 8, be);
	put(&v, ino, 8, be);
	put(&v, mode, 4, be);
	put(&v, 1, 8, be);
	put(&v, 1000, 4, be);
	put(&v, 1000, 4, be);
	put(&v, 0, 8, be);
	put(&v, (uint64_t)size, 8, be);
	put(&v, 4096, 8, be);
	put(&v, (uint64_t)(size + 511) / 512, 8, be);
	for (int i = 0; i < 3; i++) {
		put(&v, 1700000000 + (uint64_t)i, 8, be);
		put(&v, 123456789, 8, be);
	}
	ie(b, be, 4, v.p, v.len);
	free(v.p);
}

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;
	while (h[0] && h[1] && n < cap) {
		char t[3] = {h[0], h[1], 0};
		out[n++] = (uint8_t)strtoul(t, NULL, 16);
		h += 2;
	}
	return n;
}

/* The argument IEs of a spec line, in order. */
static void args(struct wbuf *b, bool be, const struct spec *s)
{
	for (int k = 0; k < s->nkeys; k++) {
		const char *key = s->key[k], *v = s->val[k];
		size_t vn = s->vlen[k];
		if (!strcmp(key, "int") || !strcmp(key, "int8")) {
			int64_t x = *v == '-' ? strtoll(v, NULL, 0) : (int64_t)strtoull(v, NULL, 0);
			int_ie(b, be, x, key[3] == '8');
		} else if (!strcmp(key, "data")) {
			ie(b, be, 2, v, vn);
		} else if (!strcmp(key, "trunc")) {
			char *colon = memchr(v, ':', vn);
			struct wbuf t = {0};
			put(&t, strtoull(v, NULL, 0), 4, be);
			if (colon)
				wb_add(&t, colon + 1, vn - (size_t)(colon + 1 - v));
			ie(b, be, 3, t.p, t.len);
			free(t.p);
		} else if (!strcmp(key, "stat")) {
			char *e1, *e2;
			uint32_t mode = (uint32_t)strtoul(v, &e1, 0);
			int64_t size = strtoll(*e1 ? e1 + 1 : e1, &e2, 0);
			uint64_t ino = strtoull(*e2 ? e2 + 1 : e2, NULL, 0);
			stat_ie(b, be, mode, size, ino);
		} else if (!strcmp(key, "poll")) {
			struct wbuf t = {0};
			for (const char *p = v; *p;) {
				char *e;
				int32_t fd = (int32_t)strtol(p, &e, 0);
				uint16_t ev = (uint16_t)strtoul(*e ? e + 1 : e, &e, 0);
				uint16_t rev = (uint16_t)strtoul(*e ? e + 1 : e, &e, 0);
				put(&t, (uint32_t)fd, 4, be);
				put(&t, ev, 2, be);
				put(&t, rev, 2, be);
				p = *e ? e + 1 : e;
			}
			ie(b, be, 5, t.p, t.len);
			free(t.p);
		} else if (!strcmp(key, "sigact")) {
			struct wbuf t = {0};
			if (vn) {
				char *e;
				uint64_t h = strtoull(v, &e, 0), fl = strtoull(*e ? e + 1 : e, NULL, 0);
				put(&t, h, 8, be);
				put(&t, h, 8, be);
				put(&t, fl, 8, be);
				put(&t, 0, 4, be);
				put(&t, 0x7f0000001234, 8, be);
			}
			ie(b, be, 6, t.p, t.len);
			free(t.p);
		} else if (!strcmp(key, "intptr")) {
			char *e;
			struct wbuf t = {0};
			put(&t, strtoull(v, &e, 0), 8, be);
			put(&t, (uint64_t)strtoll(*e ? e + 1 : e, NULL, 0), 8, be);
			ie(b, be, 7, t.p, t.len);
			free(t.p);
		} else if (!strcmp(key, "ie") || !strcmp(key, "badie")) {
			char *e;
			uint16_t tag = (uint16_t)strtoul(v, &e, 0);
			uint16_t claim = 0;
			if (key[0] == 'b')
				claim = (uint16_t)strtoul(*e ? e + 1 : e, &e, 0);
			uint8_t raw[4096];
			size_t n = unhex(*e ? e + 1 : e, raw, sizeof raw);
			put(b, tag, 2, be);
			put(b, key[0] == 'b' ? claim : n, 2, be);
			wb_add(b, raw, n);
			if (key[0] != 'b')
				pad(b);
		}
	}
}

static void header(struct wbuf *out, bool be, bool shorthdr, uint8_t version, int32_t tid, int64_t epoch,
		   int64_t mono)
{
	out->len = 0;
	wb_add(out, "\x78\x06\x17\xa5", 4);
	wb_u8(out, version);
	wb_u8(out, be ? 1 : 0);
	put(out, 0, 2, be);
	put(out, (uint32_t)tid, 4, be);
	put(out, (uint64_t)epoch, 8, be);
	if (!shorthdr)
		put(out, (uint64_t)mono, 8, be);
}

#define UNAME "Linux\0testhost\0" "6.1.0\0#1 SMP\0x86_64\0(none)"

static struct proc *start(struct file *f, const struct spec *s)
{
	struct proc *p = proc_new();
	p->be = spec_has(s, "be");
	p->seg16 = spec_has(s, "seg16");
	p->tid = (int32_t)spec_num(s, "tid", 1000);
	p->mono = (int64_t)spec_num(s, "mono", 5000000000);
	struct wbuf h = {0}, v = {0}, seg = {0};
	header(&h, p->be, spec_has(s, "short"), (uint8_t)spec_num(s, "version", 1), p->tid,
	       (int64_t)spec_num(s, "epoch", 1795267522), p->mono);
	if (p->seg16) {
		file_write(f, h.p, h.len);
	} else {
		memcpy(p->mem[0], h.p, h.len);
		p->pos[0] = (int64_t)h.len;
	}
	if (!spec_has(s, "novar")) {
		size_t un;
		const char *u = spec_str(s, "uname", &un);
		if (!u)
			u = UNAME, un = sizeof UNAME;
		if (!spec_has(s, "nouname"))
			ie(&v, p->be, 1, u, un);
		segment(&seg, p->be, p->seg16, 1, &v);
		proc_add(p, f, seg.p, seg.len, true);
	}
	free(h.p);
	free(v.p);
	free(seg.p);
	return p;
}

static void record(struct proc *p, struct file *f, const struct spec *s, bool literal)
{
	bool be = p->be;
	struct wbuf v = {0}, seg = {0};
	int64_t ret = (int64_t)spec_num(s, "ret", 0);
	uint8_t flags = 0;
	if (literal) {
		flags = (uint8_t)((spec_has(s, "tid") ? 1 : 0) | (spec_has(s, "ts") ? 2 : 0) | (spec_has(s, "dur") ? 4 : 0) |
				  (spec_has(s, "errno") ? 8 : 0));
	} else {
		flags = (uint8_t)((ret ? 1 : 0) | (spec_has(s, "tid") ? 2 : 0) | (spec_has(s, "ts") ? 4 : 0) |
				  (spec_has(s, "dur") || spec_has(s, "mdur") ? 8 : 0) | (spec_has(s, "errno") ? 0x10 : 0));
	}
	flags = (uint8_t)spec_num(s, "flags", flags);
	put(&v, spec_num(s, "nr", 0), 2, be);
	wb_u8(&v, flags);
	wb_u8(&v, 0);
	if (literal || (flags & 1))
		put(&v, (uint64_t)ret, 8, be);
	if (flags & (literal ? 1 : 2))
		put(&v, spec_num(s, "tid", 0), 4, be);
	if (flags & (literal ? 2 : 4))
		put(&v, spec_num(s, "ts", 0), 8, be);
	if (flags & (literal ? 4 : 8)) {
		if (literal || spec_has(s, "mdur")) {
			put(&v, spec_num(s, literal ? "dur" : "mdur", 0), 4, be);
		} else {
			float d = (float)spec_dbl(s, "dur", 0);
			uint32_t bits;
			memcpy(&bits, &d, 4);
			put(&v, bits, 4, be);
		}
	}
	if (flags & (literal ? 8 : 0x10))
		put(&v, spec_num(s, "errno", 0), 4, be);
	args(&v, be, s);
	segment(&seg, be, p->seg16, literal ? 1 : 2, &v);
	proc_add(p, f, seg.p, seg.len, false);
	free(v.p);
	free(seg.p);
}

/* n read-like records with `size` data bytes each: fills pages quickly. */
static void many(struct proc *p, struct file *f, const struct spec *s)
{
	uint64_t n = spec_num(s, "n", 1), size = spec_num(s, "size", 64), ts = spec_num(s, "ts", 0);
	uint64_t step = spec_num(s, "step", 1000), nr = spec_num(s, "nr", 0);
	static char line[1 << 16], data[1 << 16];
	for (uint64_t i = 0; i < n; i++) {
		for (uint64_t k = 0; k < size && k < sizeof data; k++)
			data[k] = (char)('a' + (i + k) % 26);
		int len = snprintf(line, sizeof line, "sc nr=%llu ret=%llu ts=%llu dur=%g int=3 data=", (unsigned long long)nr,
				   (unsigned long long)size, (unsigned long long)(ts + i * step), spec_dbl(s, "dur", 500));
		memcpy(line + len, data, size);
		line[len + size] = 0;
		snprintf(line + len + size, sizeof line - len - size, " int=%llu", (unsigned long long)size);
		FILE *m = fmemopen(line, strlen(line), "r");
		struct spec one = {0};
		static char buf[1 << 17];
		if (m && spec_next(m, &one, buf, sizeof buf))
			record(p, f, &one, false);
		if (m)
			fclose(m);
	}
}

/* A segment taken from another capture, through the writer's buffers. */
static void copy_seg(struct proc *p, struct file *f, const struct spec *s)
{
	size_t pn;
	const char *path = spec_str(s, "file", &pn);
	uint64_t off = spec_num(s, "off", 0), len = spec_num(s, "len", 0);
	FILE *in = path ? fopen(path, "rb") : NULL;
	uint8_t *b = malloc(len + 1);
	if (!in || !b || fseek(in, (long)off, SEEK_SET) || fread(b, 1, len, in) != len) {
		fprintf(stderr, "scwrite: line %d: cannot copy %llu bytes at %llu\n", s->line, (unsigned long long)len,
			(unsigned long long)off);
		exit(1);
	}
	fclose(in);
	proc_add(p, f, b, len, spec_has(s, "bare"));
	free(b);
}

static void from_spec(struct file *f)
{
	static char line[1 << 17];
	struct spec s = {0};
	struct proc *stack[64];
	int depth = -1;
	while (spec_next(stdin, &s, line, sizeof line)) {
		if (!strcmp(s.kind, "header")) {
			while (depth >= 0)
				proc_exit(stack[depth--], f);
			stack[++depth] = start(f, &s);
		} else if (!strcmp(s.kind, "raw")) {
			uint8_t b[1];
			for (int i = 0; i < s.nkeys; i++) {
				b[0] = (uint8_t)strtoul(s.key[i], NULL, 16);
				file_write(f, b, 1);
			}
		} else if (!strcmp(s.kind, "seg")) {
			bool be = depth >= 0 && stack[depth]->be, s16 = depth >= 0 && stack[depth]->seg16;
			struct wbuf v = {0}, seg = {0};
			const char *hex = spec_str(&s, "hex", &(size_t){0});
			uint8_t raw[4096];
			size_t n = hex ? unhex(hex, raw, sizeof raw) : 0;
			if (n)
				wb_add(&v, raw, n);
			segment(&seg, be, s16, (uint32_t)spec_num(&s, "tag", 3), &v);
			if (spec_has(&s, "len")) /* claim another length */
				wb_put(&seg, s16 ? 2 : 4, spec_num(&s, "len", 0), s16 ? 2 : 4, be);
			file_write(f, seg.p, seg.len);
			free(v.p);
			free(seg.p);
		} else if (depth < 0) {
			fprintf(stderr, "scwrite: line %d: '%s' before any header\n", s.line, s.kind);
			exit(2);
		} else if (!strcmp(s.kind, "sc") || !strcmp(s.kind, "literal")) {
			record(stack[depth], f, &s, s.kind[0] == 'l');
		} else if (!strcmp(s.kind, "copy")) {
			copy_seg(stack[depth], f, &s);
		} else if (!strcmp(s.kind, "many")) {
			many(stack[depth], f, &s);
		} else if (!strcmp(s.kind, "fork")) {
			if (depth + 1 >= (int)(sizeof stack / sizeof *stack))
				exit(2);
			stack[depth + 1] = proc_copy(stack[depth]);
			depth++;
		} else if (!strcmp(s.kind, "exit")) {
			proc_exit(stack[depth--], f);
		} else if (!strcmp(s.kind, "abort")) {
			proc_free(stack[depth--]);
		} else {
			fprintf(stderr, "scwrite: line %d: unknown record kind '%s'\n", s.line, s.kind);
			exit(2);
		}
	}
	while (depth >= 0)
		proc_exit(stack[depth--], f);
}

/* ---- generated captures (the bench) -------------------------------------- */

static const char *const texts[] = {
	"GET /index.html HTTP/1.1\r\nHost: example.org\r\n\r\n", "root:x:0:0:root:/root:/bin/bash\n",
	"{\"level\":\"info\",\"msg\":\"request done\",\"status\":200}\n", "\x7f" "ELF\x02\x01\x01",
	"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", "nameserver 10.0.0.2\nsearch corp.example\n",
};
static const char *const paths[] = {"/etc/passwd", "/etc/hosts", "/var/log/app.log", "/usr/lib/libc.so.6",
				    "/proc/self/status", "/tmp/cache/blob.bin"};

static void gen_record(struct proc *p, struct file *f, uint64_t *rng, int64_t *ts)
{
	static struct wbuf v, seg;
	bool be = p->be;
	uint64_t x = rng_next(rng);
	*ts += 200 + (int64_t)(x % 20000);
	float dur = (float)(100 + (x >> 16) % 50000) + 0.25f;
	int kind = (int)((x >> 8) % 100);
	uint16_t nr;
	int64_t ret = 0;
	v.len = 0;
	/* fixed part after nr/flags, arguments into a separate buffer */
	static struct wbuf a;
	a.len = 0;
	const char *t = texts[(x >> 32) % 6];
	size_t tn = strlen(t);
	if (kind < 30) {
		nr = 0, ret = (int64_t)tn;
		int_ie(&a, be, (uint32_t)(3 + (x >> 40) % 8), false);
		ie(&a, be, 2, t, tn);
		int_ie(&a, be, 4096, false);
	} else if (kind < 50) {
		nr = 1, ret = (int64_t)tn;
		int_ie(&a, be, 1, false);
		ie(&a, be, 2, t, tn);
		int_ie(&a, be, (uint32_t)tn, false);
	} else if (kind < 60) {
		nr = 3;
		int_ie(&a, be, (uint32_t)(3 + (x >> 40) % 8), false);
	} else if (kind < 68) {
		nr = 257, ret = 3 + (int64_t)((x >> 40) % 8);
	} else if (kind < 70) {
		nr = 257, ret = -2;
	} else if (kind < 75) {
		nr = 2, ret = 5;
		const char *pth = paths[(x >> 44) % 6];
		ie(&a, be, 2, pth, strlen(pth));
		int_ie(&a, be, 02000000, false);
		int_ie(&a, be, 0, false);
	} else if (kind < 80) {
		nr = 5;
		int_ie(&a, be, 5, false);
		stat_ie(&a, be, 0100644, (int64_t)((x >> 20) % 100000), (x >> 24) % 1000000);
	} else if (kind < 85) {
		nr = 9, ret = (int64_t)(0x7f0000000000ull + ((x >> 12) % 0x1000000) * 4096);
		uint64_t m[6] = {0, 8192, 3, 34, 4294967295u, 0};
		for (int i = 0; i < 6; i++)
			int_ie(&a, be, (int64_t)m[i], false);
	} else if (kind < 90) {
		nr = 7, ret = 1;
		struct wbuf pf = {0};
		put(&pf, 4, 4, be);
		put(&pf, 1, 2, be);
		put(&pf, 1, 2, be);
		ie(&a, be, 5, pf.p, pf.len);
		free(pf.p);
		int_ie(&a, be, 1, false);
		int_ie(&a, be, 100, false);
	} else {
		nr = (uint16_t)(202 + (x >> 50) % 30); /* futex and friends: no IEs */
		ret = (x >> 40) % 4 == 0 ? -11 : 0;
	}
	bool thread = (x >> 58) % 64 == 0;
	uint8_t flags = (uint8_t)((ret ? 1 : 0) | (thread ? 2 : 0) | 4 | 8);
	put(&v, nr, 2, be);
	wb_u8(&v, flags);
	wb_u8(&v, 0);
	if (ret)
		put(&v, (uint64_t)ret, 8, be);
	if (thread)
		put(&v, (uint32_t)(p->tid + 1 + (int)((x >> 52) % 3)), 4, be);
	put(&v, (uint64_t)*ts, 8, be);
	uint32_t bits;
	memcpy(&bits, &dur, 4);
	put(&v, bits, 4, be);
	if (a.len)
		wb_add(&v, a.p, a.len);
	segment(&seg, be, false, 2, &v);
	proc_add(p, f, seg.p, seg.len, false);
}

/* A process started at time ts, as the writer starts one. */
static struct proc *gen_start(struct file *f, int32_t tid, int64_t ts)
{
	struct spec h = {0};
	char tids[32], monos[32];
	snprintf(tids, sizeof tids, "%d", tid);
	snprintf(monos, sizeof monos, "%lld", (long long)ts);
	snprintf(h.key[0], sizeof h.key[0], "tid");
	snprintf(h.key[1], sizeof h.key[1], "mono");
	h.val[0] = tids, h.vlen[0] = strlen(tids);
	h.val[1] = monos, h.vlen[1] = strlen(monos);
	h.nkeys = 2;
	return start(f, &h);
}

/* A clone() record at ts: the child's pid in the parent, 0 in the child. */
static void clone_record(struct proc *p, struct file *f, int64_t ret, int64_t ts)
{
	struct wbuf v = {0}, seg = {0};
	put(&v, 56, 2, p->be);
	wb_u8(&v, (uint8_t)((ret ? 1 : 0) | 4 | 8));
	wb_u8(&v, 0);
	if (ret)
		put(&v, (uint64_t)ret, 8, p->be);
	put(&v, (uint64_t)ts, 8, p->be);
	float dur = 80000.25f;
	uint32_t bits;
	memcpy(&bits, &dur, 4);
	put(&v, bits, 4, p->be);
	segment(&seg, p->be, false, 2, &v);
	proc_add(p, f, seg.p, seg.len, false);
	free(v.p);
	free(seg.p);
}

/* What the file holds so far, written out. */
static bool gen_write(struct file *f, FILE *fp)
{
	if (fwrite(f->img.p, 1, f->img.len, fp) != f->img.len)
		return false;
	f->base = f->pos;
	f->img.len = 0;
	return true;
}

static uint64_t gen_forks; /* --forks K */

/* One process that forks K children, one after another (a shell running
 * commands): each child's stream (the parent's unflushed records, clone()
 * = 0, its own) is appended at its exit, the parent's, with a few records
 * around each fork, at its own exit: streams in exit order, the parent's
 * last and reaching back to the start. */
static bool gen_forking(struct file *f, FILE *fp, uint64_t n, uint64_t *rng, int64_t ts)
{
	struct proc *p = gen_start(f, 20000, ts);
	uint64_t done = 0;
	for (uint64_t i = 0; i < gen_forks; i++) {
		gen_record(p, f, rng, &ts);
		clone_record(p, f, 20001 + (int64_t)i, ts);
		struct proc *c = proc_copy(p);
		clone_record(c, f, 0, ts);
		done += 3;
		for (uint64_t quota = (n > done ? n - done : 0) / (gen_forks - i); quota && !c->dead; quota--, done++)
			gen_record(c, f, rng, &ts);
		proc_exit(c, f);
		gen_record(p, f, rng, &ts); /* (its wait4) */
		if (!gen_write(f, fp))
			return false;
	}
	proc_exit(p, f);
	return gen_write(f, fp);
}

static int generate(const char *out, uint64_t n, uint64_t seed)
{
	FILE *fp = fopen(out, "wb");
	if (!fp) {
		perror(out);
		return 1;
	}
	struct file f = {0};
	uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
	int64_t ts = 7000000000000;
	int32_t tid = 20000;
	uint64_t done = 0;
	bool ok = true;
	if (gen_forks)
		ok = gen_forking(&f, fp, n, &rng, ts);
	while (ok && !gen_forks && done < n) {
		/* one process: a few pages, then a normal exit (its stream is complete) */
		struct proc *p = gen_start(&f, tid, ts);
		while (done < n && p->pages < 4 && !p->dead) {
			gen_record(p, &f, &rng, &ts);
			done++;
		}
		proc_exit(p, &f);
		ok = gen_write(&f, fp);
		tid += 7;
	}
	free(f.img.p);
	if (!ok)
		perror(out);
	return fclose(fp) || !ok ? 1 : 0;
}

static uint64_t over; /* --over */

static int spec_run(const char *path)
{
	struct file f = {0};
	if (over) { /* the real writer opens O_RDWR|O_CREAT: no truncation */
		FILE *in = fopen(path, "rb");
		if (in) {
			uint8_t chunk[65536];
			size_t got;
			while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
				wb_add(&f.img, chunk, got);
			fclose(in);
		}
	}
	from_spec(&f);
	if (!f.img.p)
		wb_reserve(&f.img, 1);
	wb_write_file(&f.img, path);
	free(f.img.p);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct gen_opt flags[] = {{"--over", false, &over}, {0}};
	static const struct gen_opt opts[] = {{"--forks", true, &gen_forks}, {0}};
	static const struct writer w = {"scwrite", "[--over] OUT < SPEC", flags, spec_run,
					 "--generate N [--seed S] [--forks K] OUT", opts, generate, "%s/instance-%03u.sc"};
	return writer_main(argc, argv, &w);
}
