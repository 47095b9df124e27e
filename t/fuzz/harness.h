/* The fuzz harness: one input of bytes through the real loader and every
 * consumer of what it decodes, so lazy field decoding, summaries, links,
 * --info and --stats are fuzzed with the decoders.
 *
 * Included by the libFuzzer targets (t/fuzz/fuzz_*.c, `make fuzz`) and by
 * t/fuzz_replay.c, which replays the kept crash inputs (t/fuzz/regress/) in
 * `make check` on the normal and the sanitizer build.
 *
 *   fz_decoder(FORMAT, data, n)  data is one file of FORMAT (or of whatever
 *                                the probe says, FORMAT NULL)
 *   fz_atf(data, n)              data is a session: parts split at FZ_SEP
 *                                become manifest.json, thread_0/index.atf,
 *                                thread_0/detail.atf, thread_1/index.atf,
 *                                thread_1/detail.atf
 *   fz_query(data, n)            lines of filter specs over a small trace
 *   fz_saved(data, n)            a saved index damaged: data is a trace,
 *                                FZ_SEP, then the damage (fz_saved)
 *
 * Every input is decoded twice: with the default slice and with a small one
 * (the decoder is then fed in pieces, as when a file grows).  The two must
 * give the same events; a difference aborts, as a crash would.
 *
 * Consuming (every view and report) costs several times what decoding does,
 * so the libFuzzer targets consume one input in FZ_CONSUME_ONE_IN, picked by
 * its content (the same input always takes the same path); the replay
 * (FZ_REPLAY) consumes every input. */
#ifndef TTV_FUZZ_HARNESS_H
#define TTV_FUZZ_HARNESS_H

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoders/decoder.h"
#include "src/batch.h"
#include "src/stats.h"
#include "src/query.h"
#include "src/trace.h"
#include "t/savedhdr.h"

/* every target uses only some of these */
#define FZ_FN static __attribute__((unused))
#define FZ_SEP "@@ATFPART@@"
#define FZ_MAX_DETAIL 256 /* events given the per-event views (bounds the time per input) */

#ifdef FZ_REPLAY
#define FZ_CONSUME_ONE_IN 1
#else
#define FZ_CONSUME_ONE_IN 8
#endif

static FILE *fz_null;
static char fz_scratch[256];

static int fz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Remove the scratch directory (at exit). */
FZ_FN void fz_cleanup(void)
{
	if (fz_scratch[0])
		nftw(fz_scratch, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
	fz_scratch[0] = 0;
}

FZ_FN void fz_die(const char *what)
{
	perror(what);
	abort();
}

/* A scratch directory for this process (tmpfs when there is one). */
FZ_FN const char *fz_dir(void)
{
	char *dir = fz_scratch;
	if (!dir[0]) {
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(dir, sizeof fz_scratch, "%s/ttv-fuzz-%ld", base, (long)getpid());
		if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0)
			fz_die(dir);
		if (!fz_null)
			fz_null = fopen("/dev/null", "w");
		atexit(fz_cleanup);
	}
	return dir;
}

FZ_FN void fz_write(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n) || close(fd) != 0)
		fz_die(path);
}

/* Everything a user can ask of a decoded trace, output thrown away.  The
 * per-event views run over at most FZ_MAX_DETAIL events spread over the
 * trace: decoding still covers every byte, and running the same field code
 * over thousands of events of one input only made each execution slower. */
FZ_FN void fz_consume(struct trace *t)
{
	struct filterset none = {0};
	uint64_t n = model_count(t->m);
	if (n <= FZ_MAX_DETAIL) {
		batch_dump(t, &none, false, TIME_WALL, fz_null);
		batch_dump(t, &none, true, TIME_RELATIVE, fz_null);
	}
	batch_info(t, false, fz_null);
	batch_info(t, true, fz_null);
	batch_stats(t, &none, false, fz_null);
	batch_stats(t, &none, true, fz_null);
	/* dump lines, the detail view, links (ATF), call/return partners, text for filters */
	struct buf b = {0}, f = {0};
	struct event e;
	int64_t first = 0, last;
	model_span(t->m, &first, &last);
	uint64_t step = n / FZ_MAX_DETAIL + 1;
	for (uint64_t pos = 0; pos < n; pos += step) {
		model_get(t->m, pos, &e);
		buf_reset(&b);
		if (n > FZ_MAX_DETAIL) { /* (batch_dump did these above) */
			dump_line(t, &e, first, TIME_RELATIVE, &b);
			dump_json(t, &e, &b);
		}
		event_detail(t, &e, &b, 80);
		buf_reset(&f);
		event_text(t, &e, &b, &f); /* (the summary and the fields in one reading) */
		uint32_t in;
		uint64_t off, back, other;
		if (trace_event_link(t, &e, &in, &off)) {
			struct tree_sink ts;
			tree_sink_init(&ts, &b, 80);
			trace_record_fields(t, in, off, &ts.s);
			trace_record_back(t, in, off, &back);
		}
		model_partner(t->m, pos, &other);
	}
	/* what the lanes view draws */
	for (uint32_t l = 0; l < model_nlanes(t->m); l++) {
		const struct long_span *ls;
		const uint64_t *open;
		uint64_t rest;
		model_lane_longest(t->m, l, &ls, &rest);
		model_lane_open(t->m, l, &open);
	}
	buf_free(&b);
	buf_free(&f);
}

struct fz_rec {
	uint32_t input;
	uint64_t off;
	int64_t ts;
};

FZ_FN int fz_by_off(const void *a, const void *b)
{
	const struct fz_rec *x = a, *y = b;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Open path, decode it all (slice 0: the default), consume when asked;
 * returns the events sorted by where they are. */
FZ_FN struct fz_rec *fz_load(const char *path, const char *format, size_t slice, bool consume, size_t *n)
{
	struct trace t;
	trace_init(&t);
	t.format = format;
	if (slice)
		t.slice = slice;
	trace_open(&t, path);
	trace_load_all(&t);
	const char *bug = trace_internal_error(&t);
	if (bug) {
		fprintf(stderr, "fuzz: %s\n", bug);
		abort();
	}
	if (consume)
		fz_consume(&t);
	*n = model_count(t.m);
	struct fz_rec *r = xcalloc(*n + 1, sizeof *r);
	struct event e;
	for (uint64_t i = 0; i < *n; i++) {
		model_get(t.m, i, &e);
		r[i] = (struct fz_rec){e.input, e.off, e.ts};
	}
	qsort(r, *n, sizeof *r, fz_by_off);
	trace_free(&t);
	return r;
}

/* Whether to consume the trace decoded from p[0..n) (see the top). */
FZ_FN bool fz_pick(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h % FZ_CONSUME_ONE_IN == 0;
}

/* Decode whole and in small slices: the same events, or abort. */
FZ_FN void fz_run(const char *path, const char *format, size_t small, bool consume)
{
	size_t n1, n2;
	struct fz_rec *a = fz_load(path, format, 0, consume, &n1);
	struct fz_rec *b = fz_load(path, format, small, false, &n2);
	size_t i = 0;
	while (i < n1 && i < n2 && !fz_by_off(&a[i], &b[i]))
		i++;
	if (n1 != n2 || i < n1) {
		fprintf(stderr, "fuzz: %s decodes differently in slices of %zu bytes: %zu events whole, %zu sliced",
			format ? format : "(probed)", small, n1, n2);
		if (i < n1 && i < n2)
			fprintf(stderr, "; first difference: input %u offset %llu ts %lld vs input %u offset %llu ts %lld",
				a[i].input, (unsigned long long)a[i].off, (long long)a[i].ts, b[i].input,
				(unsigned long long)b[i].off, (long long)b[i].ts);
		fprintf(stderr, "\n");
		abort();
	}
	free(a);
	free(b);
}

/* A small slice that depends on the input, so many sizes get tried. */
FZ_FN size_t fz_slice(const uint8_t *p, size_t n)
{
	return 1 + (n ? (p[n / 2] ^ n) % 97 : 0);
}

FZ_FN void fz_probes(const uint8_t *p, size_t n)
{
	for (size_t i = 0; decoders[i]; i++)
		if (decoders[i]->probe) {
			decoders[i]->probe(p, n, true);
			decoders[i]->probe(p, n / 2, false);
		}
}

FZ_FN int fz_decoder(const char *format, const uint8_t *p, size_t n)
{
	char path[300];
	snprintf(path, sizeof path, "%s/in", fz_dir());
	fz_write(path, p, n);
	fz_probes(p, n);
	fz_run(path, format, fz_slice(p, n), fz_pick(p, n));
	return 0;
}

/* Find sep in p[0..n). */
FZ_FN const uint8_t *fz_find(const uint8_t *p, size_t n, const char *sep)
{
	size_t k = strlen(sep);
	for (const uint8_t *q = p; n >= k && (q = memchr(q, sep[0], n - k + 1 - (size_t)(q - p))); q++)
		if (!memcmp(q, sep, k))
			return q;
	return NULL;
}

FZ_FN int fz_atf(const uint8_t *p, size_t n)
{
	static const char *const names[] = {"manifest.json", "thread_0/index.atf", "thread_0/detail.atf",
					    "thread_1/index.atf", "thread_1/detail.atf"};
	char dir[300], path[400];
	size_t small = fz_slice(p, n) + 31;
	bool consume = fz_pick(p, n);
	snprintf(dir, sizeof dir, "%s/pid_1", fz_dir());
	mkdir(dir, 0700);
	for (int th = 0; th < 2; th++) {
		snprintf(path, sizeof path, "%s/thread_%d", dir, th);
		mkdir(path, 0700);
	}
	size_t k = strlen(FZ_SEP);
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		const uint8_t *end = p ? fz_find(p, n, FZ_SEP) : NULL;
		size_t len = end ? (size_t)(end - p) : n;
		if (p) {
			fz_write(path, p, len);
		} else {
			unlink(path); /* a part not given: the file is missing */
		}
		if (end) {
			n -= len + k;
			p = end + k;
		} else {
			p = NULL, n = 0;
		}
	}
	fz_run(dir, "atf", small, consume);
	return 0;
}

/* The one saved index in dir (its path into *path); false when there is none. */
FZ_FN bool fz_index(const char *dir, char *path, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de = NULL;
	while (d && (de = readdir(d)) && strncmp(de->d_name, "index-", 6))
		;
	if (de)
		snprintf(path, n, "%s/%s", dir, de->d_name);
	if (d)
		closedir(d);
	return de != NULL;
}

/* The trace before FZ_SEP is indexed and its index saved; the damage after
 * it (5-byte groups: a u32 offset into the index's meta, a byte to xor
 * there) is done to the index, which still passes its hash; then the trace
 * is opened again, read back from it: whatever the checks let through,
 * everything a user can ask of it must hold up. */
FZ_FN int fz_saved(const uint8_t *p, size_t n)
{
	char trace[300], cache[300], index[600];
	const uint8_t *sep = fz_find(p, n, FZ_SEP);
	size_t ntrace = sep ? (size_t)(sep - p) : n;
	snprintf(trace, sizeof trace, "%s/saved.trace", fz_dir());
	snprintf(cache, sizeof cache, "%s/cache", fz_dir());
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("TTV_SAVE_MIN", "0", 1);
	strcat(cache, "/ttv");
	nftw(cache, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
	fz_write(trace, p, ntrace);
	struct trace t;
	trace_init(&t);
	trace_open(&t, trace);
	trace_load_all(&t);
	trace_save(&t);
	trace_free(&t);
	if (!fz_index(cache, index, sizeof index))
		return 0; /* (nothing saved: not a trace that saves) */
	int fd = open(index, O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		fz_die(index);
	uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		fz_die("mmap");
	const uint8_t *d = sep ? sep + strlen(FZ_SEP) : p + n;
	for (; d + 5 <= p + n; d += 5) { /* (the offset's top bit: in the strings) */
		if (ld32le(d) >> 31)
			index_damage_strings(m, (uint64_t)st.st_size, ld32le(d) & 0x7fffffff, d[4]);
		else
			index_damage(m, (uint64_t)st.st_size, ld32le(d), d[4]);
	}
	munmap(m, (size_t)st.st_size);
	close(fd);
	trace_init(&t);
	trace_open(&t, trace);
	trace_restore(&t);
	trace_load_all(&t);
	fz_consume(&t);
	trace_free(&t);
	return 0;
}

/* A small trace that every filter runs over: every podtrace type and
 * version, strings with escapes, and invalid UTF-8. */
FZ_FN struct trace *fz_query_trace(void)
{
	static struct trace t;
	static bool ready;
	if (ready)
		return &t;
	uint8_t rec[4 + 344];
	struct buf file = {0};
	for (uint32_t i = 0; i < 64; i++) {
		static const uint32_t lens[] = {312, 320, 336, 344};
		uint32_t len = lens[i % 4];
		memset(rec, 0, sizeof rec);
		memcpy(rec, &len, 4);
		uint64_t ts = 1000000 + i * 7919, lat = i * 1013;
		uint32_t pid = 100 + i % 5, type = i % 33;
		memcpy(rec + 4, &ts, 8);
		memcpy(rec + 12, &pid, 4);
		memcpy(rec + 16, &type, 4);
		memcpy(rec + 20, &lat, 8);
		static const char *const targets[] = {"10.0.0.1:80", "/etc/passwd", "\x1b[31mred\xff\xfe", "SELECT 1",
						      "caf\xc3\xa9 \xe2\x80\xae"};
		const char *tg = targets[i % 5];
		memcpy(rec + 4 + (len >= 336 ? 80 : len >= 320 ? 64 : 56), tg, strlen(tg));
		if (len >= 336)
			memcpy(rec + 4 + 64, i & 1 ? "server" : "client", 6);
		buf_add(&file, rec, 4 + len);
	}
	char path[300];
	snprintf(path, sizeof path, "%s/query.pt", fz_dir());
	fz_write(path, file.p, file.len);
	buf_free(&file);
	trace_init(&t);
	trace_open(&t, path);
	trace_load_all(&t);
	ready = true;
	return &t;
}

/* Each line a filter spec; the whole input a search pattern too. */
FZ_FN int fz_query(const uint8_t *p, size_t n)
{
	struct trace *t = fz_query_trace();
	char *text = xstrndup((const char *)p, n);
	struct filterset fs = {0};
	char *err = NULL;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		struct tspec ts;
		tspec_parse(line, strlen(line), &ts);
		if (!filterset_add(&fs, line, &err)) {
			free(err);
			err = NULL;
		}
	}
	uint64_t count = model_count(t->m);
	struct event e;
	for (uint64_t pos = 0; pos < count; pos++) {
		model_get(t->m, pos, &e);
		filterset_match(&fs, t, &e);
	}
	filterset_free(&fs);
	struct pattern *pat = pattern_new(text, &err);
	if (pat) {
		size_t ms, me, at = 0;
		const char *s = "lane pid 100 (server)\tCONNECT\t10.0.0.1:80 \\x1b[31m caf\xc3\xa9";
		while (at <= strlen(s) && pattern_find(pat, s, strlen(s), at, &ms, &me) > 0)
			at = me > at ? me : at + 1;
		pattern_match_nojit(pat, s, strlen(s));
		pattern_free(pat);
	}
	free(err);
	free(text);
	return 0;
}

#endif
