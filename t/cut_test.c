/* Truncation sweep, for any format: cut FILE at every offset (or every
 * STEP-th) and decode each prefix in-process.
 *
 *   cut_test [--format NAME] [--gzip] [--step N] [--from A] [--to B] [--slice S] FILE
 *   cut_test [--format NAME] [--gzip] --damage N [--seed S] FILE
 *
 * --damage N makes N damaged copies instead (bit flips, overwritten runs,
 * inserted garbage, deleted runs at random offsets, seeded) and checks that
 * each decodes (within 10 s) to clean or damaged, with every record that
 * lies wholly before the first damaged byte still listed, unchanged.
 *
 * --slice S hands the decoder at most S bytes per call for the cuts and
 * the damaged copies (the full decode uses the default), so resuming
 * mid-record is checked too.
 *
 * A decoder that takes more bytes than it was given (the loader's
 * "internal error") aborts the run, as a crash would.
 *
 * --gzip cuts and damages the gzip-compressed form of FILE instead: what
 * lies "before the cut or the damage" is then what zlib itself inflates
 * from the copy identically to FILE.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

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
	const char *bug = trace_internal_error(&t);
	if (bug) {
		fprintf(stderr, "%s\n", bug);
		abort();
	}
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

/* FILE's bytes as gzip (one member). */
static void gz_compress(const struct buf *in, struct buf *out)
{
	z_stream z = {0};
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(2);
	uLong bound = deflateBound(&z, (uLong)in->len);
	out->p = xrealloc(out->p, bound);
	out->cap = bound;
	z.next_in = (Bytef *)in->p;
	z.avail_in = (uInt)in->len;
	z.next_out = (Bytef *)out->p;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		exit(2);
	out->len = z.total_out;
	deflateEnd(&z);
}

/* How many of want's bytes zlib gives back, the same, from the gzip bytes
 * p[0..n) (stopping where the stream is cut short or damaged). */
static size_t gz_good(const void *p, size_t n, const struct buf *want)
{
	z_stream z = {0};
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		exit(2);
	uint8_t chunk[65536];
	size_t same = 0;
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	for (;;) {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		int r = inflate(&z, Z_NO_FLUSH);
		size_t got = sizeof chunk - z.avail_out;
		for (size_t i = 0; i < got; i++, same++)
			if (same >= want->len || chunk[i] != (uint8_t)want->p[same]) {
				inflateEnd(&z);
				return same;
			}
		if (r != Z_OK || !got)
			break;
	}
	inflateEnd(&z);
	return same;
}

static uint64_t rng_state;

static uint64_t rnd(uint64_t n) /* xorshift64*, in [0, n) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return n ? (rng_state * 2685821657736338717ull >> 11) % n : 0;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *o = fopen(path, "wb");
	if (!o || (n && fwrite(p, 1, n, o) != n) || fclose(o)) {
		perror(path);
		exit(2);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "not ok - a damaged copy did not decode within 10 s\n";
	if (write(1, msg, sizeof msg - 1) < 0)
		_exit(1);
	_exit(1);
}

/* Damage one copy of data into out; returns the first damaged offset. */
static size_t damage(const struct buf *data, struct buf *out, int *kind)
{
	size_t n = data->len, at = (size_t)rnd(n), len = 1 + (size_t)rnd(rnd(2) ? 4 : 64);
	buf_reset(out);
	*kind = (int)rnd(4);
	switch (*kind) {
	case 0: /* 1..4 bit flips from at on */
		buf_add(out, data->p, n);
		for (size_t i = 0, k = 1 + (size_t)rnd(4); i < k; i++) {
			size_t o = at + (size_t)rnd(MIN(n - at, 64));
			out->p[o] ^= (char)(1u << rnd(8));
		}
		break;
	case 1: /* a run of random (or 0x00 / 0xff) bytes overwrites the data */
		buf_add(out, data->p, n);
		len = MIN(len, n - at);
		for (size_t i = 0, fill = (size_t)rnd(3); i < len; i++)
			out->p[at + i] = fill == 0 ? 0 : fill == 1 ? (char)0xff : (char)rnd(256);
		break;
	case 2: /* garbage inserted */
		buf_add(out, data->p, at);
		for (size_t i = 0; i < len; i++)
			buf_addc(out, (char)rnd(256));
		buf_add(out, data->p + at, n - at);
		break;
	default: /* a run deleted */
		len = MIN(len, n - at);
		buf_add(out, data->p, at);
		buf_add(out, data->p + at + len, n - at - len);
		break;
	}
	/* the first byte that differs: a flip or an overwrite may change nothing there */
	size_t k = 0;
	while (k < n && k < out->len && data->p[k] == out->p[k])
		k++;
	return k;
}

/* Damage copies of data; raw: what they decode from (data itself, or what
 * data inflates to with --gzip). */
static void damage_sweep(const char *format, size_t slice, const struct buf *data, const struct buf *raw,
			 const struct rec *full, size_t nfull, uint64_t count)
{
	static const char *const kinds[] = {"bit flips", "overwritten run", "inserted garbage", "deleted run"};
	char tmp[] = "/tmp/ttv-damage-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	close(fd);
	signal(SIGALRM, on_alarm);
	struct buf copy = {0};
	uint64_t bad_status = 0, bad_count = 0, identical = 0, dmg_seen = 0;
	for (uint64_t it = 0; it < count; it++) {
		int kind;
		size_t k = damage(data, &copy, &kind);
		if (copy.len == data->len && k == data->len) {
			identical++;
			continue;
		}
		if (raw != data) /* what inflates unchanged lies before the damage */
			k = gz_good(copy.p, copy.len, raw);
		write_file(tmp, copy.p, copy.len);
		size_t n;
		bool dmg, rd;
		alarm(10);
		struct rec *r = decode(tmp, format, slice, &n, &dmg, &rd);
		alarm(0);
		dmg_seen += dmg;
		/* nothing readable is the truth only when nothing lies before the damage */
		if (!rd && format && k > 0 && bad_status++ < 5)
			printf("# copy %llu (%s at %zu): nothing readable\n", (unsigned long long)it, kinds[kind], k);
		/* each whole record before k is listed, same offset and time */
		size_t j = 0;
		for (size_t i = 0; i < nfull; i++) {
			uint64_t end = i + 1 < nfull && full[i + 1].input == full[i].input ? full[i + 1].off : raw->len;
			if (end > k)
				continue;
			while (j < n && (r[j].input < full[i].input || (r[j].input == full[i].input && r[j].off < full[i].off)))
				j++;
			if (j == n || r[j].input != full[i].input || r[j].off != full[i].off || r[j].ts != full[i].ts) {
				if (bad_count++ < 5)
					printf("# copy %llu (%s at %zu): the record at offset %llu is lost or changed\n",
					       (unsigned long long)it, kinds[kind], k, (unsigned long long)full[i].off);
				break;
			}
		}
		free(r);
	}
	unlink(tmp);
	buf_free(&copy);
	ok(bad_status == 0, "%llu damaged copies (%llu reported damage): every outcome is clean or damaged (%llu not)",
	   (unsigned long long)(count - identical), (unsigned long long)dmg_seen, (unsigned long long)bad_status);
	ok(bad_count == 0, "every whole record before the damage is listed unchanged (%llu copies wrong)",
	   (unsigned long long)bad_count);
}

int main(int argc, char **argv)
{
	const char *format = NULL, *path = NULL;
	uint64_t step = 1, from = 0, to = UINT64_MAX, slice = 0, ndamage = 0;
	bool gz = false;
	rng_state = 0x9e3779b97f4a7c15ull;
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
		else if (!strcmp(argv[i], "--gzip"))
			gz = true;
		else if (!strcmp(argv[i], "--damage") && i + 1 < argc)
			ndamage = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng_state ^= strtoull(argv[++i], NULL, 0) * 0x2545f4914f6cdd1dull;
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: cut_test [--format NAME] [--gzip] [--step N] [--from A] [--to B] [--slice S] FILE\n"
				"       cut_test [--format NAME] [--gzip] --damage N [--seed S] FILE\n");
		return 2;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 2;
	}
	struct buf raw = {0}, data = {0};
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&raw, chunk, got);
	fclose(f);
	if (gz)
		gz_compress(&raw, &data);
	else
		data = raw;

	size_t nfull;
	bool damaged, readable;
	struct rec *full = decode(path, format, 0, &nfull, &damaged, &readable);
	ok(readable && !damaged && nfull > 0, "%s decodes cleanly in full (%zu events)", path, nfull);
	if (ndamage) {
		damage_sweep(format, (size_t)slice, &data, gz ? &raw : &data, full, nfull, ndamage);
		free(full);
		if (gz)
			buf_free(&raw);
		buf_free(&data);
		return done_testing();
	}

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
		/* the bytes before the cut, as the decoder sees them */
		uint64_t avail = gz ? gz_good(data.p, c, &raw) : c;
		/* With no --format, a prefix may be too short to recognise; a gzip
		 * prefix that inflates to nothing has nothing to read. */
		if (!rd && format && avail) {
			if (bad_status++ < 5)
				printf("# cut %llu: nothing readable\n", (unsigned long long)c);
		}
		uint64_t lo = 0, hi = 0;
		for (size_t i = 0; i < nfull; i++) {
			uint64_t end = i + 1 < nfull && full[i + 1].input == full[i].input ? full[i + 1].off : raw.len;
			if (full[i].off < avail)
				hi++;
			if (end <= avail)
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
	if (gz)
		buf_free(&raw);
	buf_free(&data);
	return done_testing();
}
