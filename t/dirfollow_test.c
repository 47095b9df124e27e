/* A segment that changes name under a directory source (dec_move_input):
 * sealed by a rename, then replaced by a gzip copy that is written in two
 * goes and holds the same bytes and more.  Each step keeps one input, reads
 * nothing twice and loses nothing.
 *
 *   dirfollow_test SEGMENT MORE DIR
 *
 * SEGMENT: a dial9 segment; MORE: dial9 bytes the compressor appends (a
 * symbol table); DIR: an empty scratch directory.  Prints TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "decoders/decoder.h"
#include "src/trace.h"
#include "t/tap.h"

static void slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t got;
	while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, got);
	if (!f) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

static void put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* gzip of p[0..n) in memory */
static void deflate_all(const void *p, size_t n, struct buf *out)
{
	z_stream z = {0};
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(2);
	uLong cap = deflateBound(&z, (uLong)n);
	buf_reset(out);
	char *dst = xcalloc(1, cap);
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)dst;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		exit(2);
	buf_add(out, dst, z.total_out);
	deflateEnd(&z);
	free(dst);
}

static uint64_t step(struct trace *t)
{
	t->last_check = 0;
	trace_check(t, false);
	trace_load_all(t);
	return model_count(t->m);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: dirfollow_test SEGMENT MORE DIR\n");
		return 2;
	}
	struct buf seg = {0}, more = {0}, both = {0}, gz = {0}, active = {0}, sealed = {0}, zpath = {0};
	slurp(argv[1], &seg);
	slurp(argv[2], &more);
	buf_add(&both, seg.p, seg.len);
	buf_add(&both, more.p, more.len);

	/* how many events the segment with the symbols holds */
	buf_printf(&active, "%s/trace.0.bin.active", argv[3]);
	buf_printf(&sealed, "%s/trace.0.bin", argv[3]);
	buf_printf(&zpath, "%s/trace.0.bin.gz", argv[3]);
	put(active.p, both.p, both.len);
	struct trace all;
	trace_init(&all);
	trace_open(&all, argv[3]);
	trace_load_all(&all);
	uint64_t nboth = model_count(all.m);
	trace_free(&all);
	put(active.p, seg.p, seg.len);

	struct trace t;
	trace_init(&t);
	t.follow = true;
	struct source *src = trace_open(&t, argv[3]);
	uint64_t nseg = step(&t);
	ok(src->ninputs == 1 && nseg > 0 && nboth > nseg, "the active segment: %llu events (%llu with the symbols)",
	   (unsigned long long)nseg, (unsigned long long)nboth);
	struct input *in = src->inputs[0];

	ok(rename(active.p, sealed.p) == 0, "sealed: renamed");
	uint64_t n = step(&t);
	ok(src->ninputs == 1 && n == nseg && !strcmp(in->path, sealed.p) && !in->gone,
	   "the same input follows its new name, nothing read again");

	/* the compressor: the gzip copy, first in part, the .bin deleted */
	deflate_all(both.p, both.len, &gz);
	put(zpath.p, gz.p, gz.len / 3);
	unlink(sealed.p);
	n = step(&t);
	ok(src->ninputs == 1 && n == nseg && !strcmp(in->path, sealed.p),
	   "a gzip copy cut short of our bytes: not taken yet, nothing added");
	put(zpath.p, gz.p, gz.len);
	n = step(&t);
	ok(src->ninputs == 1 && !strcmp(in->path, zpath.p) && in->gzip, "the finished gzip copy: the same input reads it");
	is_int((long long)n, (long long)nboth, "only the appended symbols are new events");
	ok(!trace_damaged(&t), "no damage");
	ok(strstr(t.notice, "became") && strstr(t.notice, "trace.0.bin.gz (same data and more)"), "told as the same data");

	/* evicted: its events stay, told once */
	unlink(zpath.p);
	uint64_t told = t.notices;
	n = step(&t);
	ok(n == nboth && in->gone && t.notices == told + 1, "evicted: the events stay");
	ok(strstr(t.notice, "trace.0.bin.gz was renamed or deleted") != NULL, "the eviction is told");
	step(&t);
	ok(t.notices == told + 1, "and told once");

	trace_free(&t);
	buf_free(&seg);
	buf_free(&more);
	buf_free(&both);
	buf_free(&gz);
	buf_free(&active);
	buf_free(&sealed);
	buf_free(&zpath);
	return done_testing();
}
