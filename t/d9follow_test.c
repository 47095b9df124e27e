/* dial9 inputs that change while they are read: a segment that grows
 * (written in pieces that cut frames anywhere) decodes to the same events
 * as the finished file, and a directory rescan adds new segments once.
 *
 *   d9follow_test FILE DIR
 *
 * FILE: a dial9 trace; DIR: an empty scratch directory.  Prints TAP. */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "decoders/decoder.h"
#include "src/trace.h"
#include "t/tap.h"

struct rec {
	uint64_t off;
	int64_t ts;
	uint32_t type;
};

static int by_off(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static struct rec *events(struct trace *t, size_t *n)
{
	*n = model_count(t->m);
	struct rec *r = xcalloc(*n + 1, sizeof *r);
	struct event e;
	for (uint64_t i = 0; i < *n; i++) {
		model_get(t->m, i, &e);
		r[i] = (struct rec){e.off, e.ts, e.type};
	}
	qsort(r, *n, sizeof *r, by_off);
	return r;
}

static void append(const char *path, const char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n || close(fd)) {
		perror(path);
		exit(2);
	}
}

/* Model type ids differ between traces: compare type names. */
static bool same(struct trace *a, const struct rec *ra, struct trace *b, const struct rec *rb, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ra[i].off != rb[i].off || ra[i].ts != rb[i].ts)
			return false;
		uint32_t na = model_type_get(a->m, ra[i].type)->name, nb = model_type_get(b->m, rb[i].type)->name;
		if (strcmp(model_strget(a->m, na, NULL), model_strget(b->m, nb, NULL)))
			return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: d9follow_test FILE DIR\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	struct buf data = {0};
	char chunk[65536];
	size_t got;
	while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&data, chunk, got);
	if (f)
		fclose(f);

	struct trace whole;
	trace_init(&whole);
	trace_open(&whole, argv[1]);
	trace_load_all(&whole);
	size_t nw;
	struct rec *rw = events(&whole, &nw);
	ok(nw > 0 && !trace_damaged(&whole), "the finished file: %zu events, clean", nw);

	/* the same bytes arriving in pieces of 1..4096 bytes, read as they come */
	struct buf path = {0};
	buf_printf(&path, "%s/trace.0.bin.active", argv[2]);
	unlink(path.p);
	append(path.p, data.p, 1);
	struct trace live;
	trace_init(&live);
	live.follow = true;
	trace_open(&live, path.p);
	uint64_t seed = 7;
	size_t at = 1, steps = 0;
	while (at < data.len) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		size_t n = MIN(data.len - at, 1 + (seed >> 33) % 4096);
		append(path.p, data.p + at, n);
		at += n;
		trace_step(&live, 1000000000, false);
		steps++;
	}
	trace_step(&live, 1000000000, false);
	size_t nl;
	struct rec *rl = events(&live, &nl);
	ok(nl == nw && same(&whole, rw, &live, rl, nw), "grown in %zu pieces: the same %zu events", steps, nl);
	ok(!trace_damaged(&live), "a frame torn at the end of what has arrived is no damage while it may grow");
	free(rl);
	trace_free(&live);

	/* a directory: rescan adds new segments, once each */
	struct trace dir;
	trace_init(&dir);
	struct source *src = trace_open(&dir, argv[2]);
	trace_load_all(&dir);
	ok(src->dec && !strcmp(src->dec->name, "dial9") && src->ninputs == 1, "a directory with one segment");
	size_t before = model_count(dir.m);
	struct buf p1 = {0};
	buf_printf(&p1, "%s/trace.1.bin", argv[2]);
	unlink(p1.p);
	append(p1.p, data.p, data.len);
	src->dec->rescan(src);
	src->dec->rescan(src);
	trace_load_all(&dir);
	ok(src->ninputs == 2 && model_count(dir.m) == before + nw, "rescan adds the new segment once (%zu inputs)",
	   src->ninputs);
	struct buf p0 = {0};
	buf_printf(&p0, "%s/trace.0.bin", argv[2]);
	ok(rename(path.p, p0.p) == 0, "the active segment is sealed (renamed)");
	src->dec->rescan(src);
	ok(src->ninputs == 2, "a sealed segment already read is not added again");
	unlink(p0.p);
	unlink(p1.p);
	trace_free(&dir);

	/* a tree: a second boot appears while following; the first boot's
	 * lanes, named before there were two, are named after it too */
	struct buf b1 = {0}, b2 = {0};
	buf_printf(&b1, "%s/tree/abcd-11", argv[2]);
	buf_printf(&b2, "%s/tree/efgh-22", argv[2]);
	struct buf top = {0};
	buf_printf(&top, "%s/tree", argv[2]);
	mkdir(top.p, 0700);
	mkdir(b1.p, 0700);
	buf_adds(&b1, "/trace.0.bin");
	append(b1.p, data.p, data.len);
	trace_init(&dir);
	src = trace_open(&dir, top.p);
	trace_load_all(&dir);
	const char *n0 = model_strget(dir.m, model_lane_get(dir.m, 0)->name, NULL);
	ok(dir.nsrc == 1 && strncmp(n0, "abcd-11: ", 9) != 0, "one boot: one trace, lanes as they are (%s)", n0);
	mkdir(b2.p, 0700);
	buf_adds(&b2, "/trace.0.bin");
	append(b2.p, data.p, data.len);
	src->dec->rescan(src);
	trace_load_all(&dir);
	size_t named = 0;
	for (uint32_t l = 0; l < model_nlanes(dir.m); l++) {
		const char *n = model_strget(dir.m, model_lane_get(dir.m, l)->name, NULL);
		named += !strncmp(n, "abcd-11: ", 9) || !strncmp(n, "efgh-22: ", 9);
	}
	ok(dir.nsrc == 2 && named == model_nlanes(dir.m) && model_nlanes(dir.m) > 2,
	   "a second boot: two traces, every lane named after its boot, the first's renamed (%zu of %u)", named,
	   model_nlanes(dir.m));
	unlink(b1.p);
	unlink(b2.p);
	trace_free(&dir);
	buf_free(&b1);
	buf_free(&b2);
	buf_free(&top);
	buf_free(&p0);
	buf_free(&p1);
	buf_free(&path);
	free(rw);
	trace_free(&whole);
	buf_free(&data);
	return done_testing();
}
