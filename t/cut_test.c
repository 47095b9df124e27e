/* Truncation sweep, for any format: cut FILE at every offset (or every
 * STEP-th) and decode each prefix in-process.
 *
 *   cut_test [--format NAME] [--step N] [--from A] [--to B] [--slice S] FILE
 *
 * --slice S hands the decoder at most S bytes per call for the cuts (the
 * full decode uses the default), so resuming mid-record is checked too.
 *
 * Checks, for every cut c:
 *   - decoding returns (a crash or sanitizer report fails the run);
 *   - the outcome is "clean" or "damaged" (exit status 0 or 3), never
 *     "nothing readable", except for cuts too short to recognise when no
 *     --format is given;
 *   - every record that lies wholly before c is listed: with the full
 *     file's records sorted by offset, the events decoded from the prefix
 *     number at least those whose successor starts at or before c, and at
 *     most those that start before c;
 *   - each listed record is one of the full file's (same offset and time);
 *   - the whole file decodes cleanly to the same events.
 * Prints TAP. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/trace.h"
#include "src/util.h"
#include "t/tap.h"

struct rec {
	uint64_t off;
	int64_t ts;
	uint32_t input;
};

static int by_off(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Decode path; returns the records sorted by offset. */
static struct rec *decode(const char *path, const char *format, size_t slice, size_t *n, bool *damaged,
			  bool *readable)
{
	struct trace t;
	trace_init(&t);
	t.format = format;
	if (slice)
		t.slice = slice;
	trace_open(&t, path);
	trace_load_all(&t);
	*n = model_count(t.m);
	struct rec *r = xcalloc(*n + 1, sizeof *r);
	struct event e;
	for (uint64_t i = 0; i < *n; i++) {
		model_get(t.m, i, &e);
		r[i] = (struct rec){e.off, e.ts, e.input};
	}
	qsort(r, *n, sizeof *r, by_off);
	*damaged = trace_damaged(&t);
	*readable = trace_any_readable(&t);
	trace_free(&t);
	return r;
}

int main(int argc, char **argv)
{
	const char *format = NULL, *path = NULL;
	uint64_t step = 1, from = 0, to = UINT64_MAX, slice = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(argv[i], "--step") && i + 1 < argc)
			step = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--from") && i + 1 < argc)
			from = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--to") && i + 1 < argc)
			to = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--slice") && i + 1 < argc)
			slice = strtoull(argv[++i], NULL, 0);
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: cut_test [--format NAME] [--step N] [--from A] [--to B] [--slice S] FILE\n");
		return 2;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 2;
	}
	struct buf data = {0};
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&data, chunk, got);
	fclose(f);

	size_t nfull;
	bool damaged, readable;
	struct rec *full = decode(path, format, 0, &nfull, &damaged, &readable);
	ok(readable && !damaged && nfull > 0, "%s decodes cleanly in full (%zu events)", path, nfull);

	char tmp[] = "/tmp/ttv-cut-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0) {
		perror("mkstemp");
		return 2;
	}
	close(fd);
	uint64_t cuts = 0, bad_status = 0, bad_count = 0, bad_event = 0;
	if (to > data.len)
		to = data.len;
	for (uint64_t c = from; c <= to; c += step) {
		FILE *o = fopen(tmp, "wb");
		if (!o || fwrite(data.p, 1, c, o) != c || fclose(o)) {
			perror(tmp);
			return 2;
		}
		size_t n;
		bool dmg, rd;
		struct rec *r = decode(tmp, format, (size_t)slice, &n, &dmg, &rd);
		cuts++;
		/* With no --format, a prefix may be too short to recognise. */
		if (!rd && format) {
			if (bad_status++ < 5)
				printf("# cut %llu: nothing readable\n", (unsigned long long)c);
		}
		uint64_t lo = 0, hi = 0;
		for (size_t i = 0; i < nfull; i++) {
			uint64_t end = i + 1 < nfull && full[i + 1].input == full[i].input ? full[i + 1].off : data.len;
			if (full[i].off < c)
				hi++;
			if (end <= c)
				lo++;
		}
		if (rd && (n < lo || n > hi)) {
			if (bad_count++ < 5)
				printf("# cut %llu: %zu events, want %llu..%llu\n", (unsigned long long)c, n,
				       (unsigned long long)lo, (unsigned long long)hi);
		}
		for (size_t i = 0, j = 0; i < n; i++) {
			while (j < nfull && full[j].off < r[i].off)
				j++;
			if (j == nfull || full[j].off != r[i].off || full[j].ts != r[i].ts) {
				if (bad_event++ < 5)
					printf("# cut %llu: event at offset %llu is not in the full decode\n",
					       (unsigned long long)c, (unsigned long long)r[i].off);
				break;
			}
		}
		free(r);
	}
	unlink(tmp);
	ok(bad_status == 0, "%llu cuts: every outcome is clean or damaged (%llu not)", (unsigned long long)cuts,
	   (unsigned long long)bad_status);
	ok(bad_count == 0, "every whole record before the cut is listed, none past it (%llu cuts wrong)",
	   (unsigned long long)bad_count);
	ok(bad_event == 0, "listed records are the full file's (%llu cuts wrong)", (unsigned long long)bad_event);
	free(full);
	buf_free(&data);
	return done_testing();
}
