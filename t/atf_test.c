/* ATF decoder unit tests through the trace API:
 *   - links both ways on the shared samples (trace_event_link, _record_back);
 *   - the time order of index sequences against a plain sort, for drain
 *     batches, random and tied timestamps (chunks, on-demand sorting, seek);
 *   - call/return pairing against a direct reading of the rule, with pairs
 *     far apart, missing returns and detail-lane copies;
 *   - feeding in small slices gives the same events as one pass.
 *
 *   atf_test SAMPLES_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoders/decoder.h"
#include "src/batch.h"
#include "t/tap.h"
#include "t/writer.h"

#define NO_LINK_T 0xffffffffu

static char *samples;

static struct trace *open_path(const char *path, size_t slice)
{
	struct trace *t = xcalloc(1, sizeof *t);
	trace_init(t);
	if (slice)
		t->slice = slice;
	trace_open(t, path);
	trace_load_all(t);
	return t;
}

static void close_trace(struct trace *t)
{
	trace_free(t);
	free(t);
}

static void test_links(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/atf/small_finalized", samples);
	struct trace *t = open_path(path, 0);
	uint64_t n = model_count(t->m), linked = 0, roundtrip = 0, no_link_ok = 0, sorted = 1;
	struct event e, prev = {0};
	for (uint64_t p = 0; p < n; p++) {
		model_get(t->m, p, &e);
		if (p && e.ts < prev.ts)
			sorted = 0;
		prev = e;
		uint32_t input;
		uint64_t off, back;
		bool has = trace_event_link(t, &e, &input, &off);
		if (!(e.flags & EVF_LINK)) {
			no_link_ok += !has;
			continue;
		}
		linked++;
		if (has && trace_record_back(t, input, off, &back) && back == p)
			roundtrip++;
	}
	is_int((long long)n, 241, "sample: 241 events");
	ok(sorted, "sample: events in time order");
	is_int((long long)linked, 51, "sample: 51 index events link to a detail record (29 + 22)");
	is_int((long long)roundtrip, 51, "every link goes forward and comes back to the same position");
	is_int((long long)no_link_ok, (long long)(n - linked), "events without a link give no detail record");

	/* the detail record of thread 0 index 17, on its own */
	bool found = false;
	for (uint64_t p = 0; p < n && !found; p++) {
		model_get(t->m, p, &e);
		uint32_t input;
		uint64_t off;
		if (e.ts != 1000000033965 || !trace_event_link(t, &e, &input, &off))
			continue;
		found = true;
		struct buf b = {0};
		struct json_sink js;
		json_sink_begin(&js, &b);
		trace_record_fields(t, input, off, &js.s);
		json_sink_end(&js);
		ok(off == 64 + 540 && strstr(b.p, "\"detail_seq\":1"), "index 17 links to detail 1 at offset 604");
		ok(strstr(b.p, "\"os_thread_id\":259") && strstr(b.p, "\"rdi\":\"0x600000c09440\"") &&
			   strstr(b.p, "\"rbp\":\"0x7ff7bfefecc0\"") && strstr(b.p, "\"stack\":\"48 25 14 8c 48 a7 57 2f"),
		   "detail 1 on its own: OS thread id, x86_64 registers, stack");
		buf_free(&b);
	}
	ok(found, "found thread 0 index 17");

	/* partners: a begin finds its end and back, with its duration */
	uint64_t begins = 0, good = 0;
	for (uint64_t p = 0; p < n; p++) {
		model_get(t->m, p, &e);
		if (ev_role(&e) != ROLE_BEGIN || e.dur == TTV_NODUR)
			continue;
		begins++;
		uint64_t q, r;
		struct event f;
		if (!model_partner(t->m, p, &q))
			continue;
		model_get(t->m, q, &f);
		if (ev_role(&f) == ROLE_END && f.name == e.name && f.lane == e.lane && (uint64_t)(f.ts - e.ts) == e.dur &&
		    model_partner(t->m, q, &r) && r == p)
			good++;
	}
	ok(begins == 95 && good == begins, "every paired call finds its return and back (%llu of %llu)",
	   (unsigned long long)good, (unsigned long long)begins);
	close_trace(t);

	/* the crash sample: detail records no index record reaches are events */
	snprintf(path, sizeof path, "%s/atf/crash_sigkill/session_20260101_121000/pid_4244", samples);
	t = open_path(path, 0);
	n = model_count(t->m);
	uint64_t orphans = 0, self = 0, noback = 0;
	for (uint64_t p = 0; p < n; p++) {
		model_get(t->m, p, &e);
		size_t len;
		if (strcmp(model_strget(t->m, model_type_get(t->m, e.type)->name, &len), "DETAIL"))
			continue;
		orphans++;
		uint32_t input;
		uint64_t off, back;
		if (trace_event_link(t, &e, &input, &off) && off == e.off && input == e.input)
			self++;
		if (!trace_record_back(t, e.input, e.off, &back))
			noback++;
	}
	is_int((long long)orphans, 62, "crash: 62 detail records past the index are DETAIL events");
	ok(self == orphans && noback == orphans, "their record is themselves; their back link dangles");
	is_int((long long)n, 3198 + 3582 + 62, "crash: every whole record is listed");
	ok(trace_damaged(t), "crash: damaged");

	/* the same session fed in small slices */
	struct trace *s = open_path(path, 1000);
	bool same = model_count(s->m) == n;
	struct event a, b;
	for (uint64_t p = 0; p < n && same; p++) {
		model_get(t->m, p, &a);
		model_get(s->m, p, &b);
		same = a.ts == b.ts && a.off == b.off && a.flags == b.flags && a.dur == b.dur && a.name == b.name;
	}
	ok(same, "fed in 1000-byte slices: the same events, flags and durations");
	is_int((long long)s->src[0]->ndmg, (long long)t->src[0]->ndmg, "and the same damage reports");
	bool same_order = s->src[0]->ndmg == t->src[0]->ndmg, by_place = true;
	for (size_t d = 0; d < t->src[0]->ndmg && same_order; d++) {
		const struct damage *x = &t->src[0]->dmg[d], *y = &s->src[0]->dmg[d];
		same_order = !strcmp(x->path, y->path) && x->off == y->off && !strcmp(x->msg, y->msg);
		if (d) {
			const struct damage *w = x - 1;
			int c = strcmp(w->path, x->path);
			by_place &= c < 0 || (c == 0 && w->off <= x->off);
		}
	}
	ok(same_order, "in the same order, however it was sliced");
	ok(by_place, "listed by file and offset");
	close_trace(s);
	close_trace(t);
}

/* ---- writing index files -------------------------------------------------- */

struct rec {
	int64_t ts;
	uint64_t fid;
	uint32_t kind, depth, link;
};

static void write_index(const char *path, const struct rec *r, size_t n, uint32_t slot)
{
	struct wbuf w = {0};
	wb_add(&w, "ATI2", 4);
	wb_u8(&w, 1);
	wb_u8(&w, 1);
	wb_u8(&w, 1);
	wb_u8(&w, 4);
	wb_u32(&w, 0);
	wb_u32(&w, slot);
	wb_u8(&w, 1);
	wb_zero(&w, 7);
	wb_u32(&w, 32);
	wb_u32(&w, (uint32_t)n);
	wb_u64(&w, 64);
	wb_u64(&w, 64 + 32 * n);
	wb_u64(&w, n ? (uint64_t)r[0].ts : 0);
	wb_u64(&w, n ? (uint64_t)r[n - 1].ts : 0);
	for (size_t i = 0; i < n; i++) {
		wb_u64(&w, (uint64_t)r[i].ts);
		wb_u64(&w, r[i].fid);
		wb_u32(&w, slot);
		wb_u32(&w, r[i].kind);
		wb_u32(&w, r[i].depth);
		wb_u32(&w, r[i].link);
	}
	wb_add(&w, "2ITA", 4);
	wb_u32(&w, 0);
	wb_u64(&w, n);
	wb_u64(&w, n ? (uint64_t)r[0].ts : 0);
	wb_u64(&w, n ? (uint64_t)r[n - 1].ts : 0);
	wb_u64(&w, 32 * n);
	wb_zero(&w, 24);
	wb_write_file(&w, path);
	free(w.p);
}

static char tmpdir[] = "/tmp/ttv-atf-XXXXXX";

static void thread_path(char *out, size_t cap, uint32_t slot)
{
	snprintf(out, cap, "%s/pid_1/thread_%u", tmpdir, slot);
	mkdir(out, 0755);
	size_t k = strlen(out);
	snprintf(out + k, cap - k, "/index.atf");
}

/* Records of one thread: a call tree (depth walk) written in drain
 * batches, with detail-lane copies that step back; or other shapes. */
enum shape { DRAIN, RANDOM, TIES, DEEP };

static size_t make_thread(enum shape sh, uint64_t *rng, struct rec *r, size_t cap)
{
	size_t n = 0;
	int64_t ts = 1000 + (int64_t)(rng_next(rng) % 100);
	uint32_t depth = 0;
	bool down = false;
	if (sh == RANDOM || sh == TIES) {
		for (; n < cap; n++) {
			uint64_t x = rng_next(rng);
			r[n] = (struct rec){sh == RANDOM ? (int64_t)(x % 1000000) : (int64_t)(x % 7) * 10, 0x100000000ull | (x >> 60),
					    1 + (uint32_t)(x >> 8 & 1), 1 + (uint32_t)(x >> 9 & 7), NO_LINK_T};
		}
		return n;
	}
	struct rec pend[64];
	while (n + 80 < cap) {
		size_t np = 0;
		unsigned batch = 1 + (unsigned)(rng_next(rng) % 700);
		bool detail = rng_next(rng) % 3 == 0;
		for (unsigned k = 0; k < batch && n + 80 < cap; k++) {
			uint64_t x = rng_next(rng);
			ts += 1 + (int64_t)(x % 50);
			uint32_t kind;
			/* deep trees climb to depth 3000 and then all the way down */
			down = sh == DEEP && (depth >= 3000 || (down && depth > 0));
			if (sh == DEEP ? (!down && x % 3 != 0) || depth == 0 : depth == 0 || (depth < 30 && x % 2 == 0))
				kind = 1, depth++;
			else
				kind = 2;
			/* now and then a return goes missing (in deep trees, often
			 * one of a shallow call, whose body is long) */
			if (kind == 2 && (x % 97 == 0 || (sh == DEEP && depth <= 2 && x % 2 == 0))) {
				depth--;
				continue;
			}
			r[n++] = (struct rec){ts, 0x200000000ull | (depth % 5), kind, depth, NO_LINK_T};
			if (detail && np < 64)
				pend[np++] = r[n - 1];
			if (kind == 2)
				depth--;
		}
		for (size_t i = 0; i < np; i++) {
			pend[i].ts += 3;
			pend[i].link = 1; /* dangles (no detail.atf): fine for ordering */
			r[n++] = pend[i];
		}
	}
	return n;
}

/* Direct reading of the pairing rule (unbounded scan); *at: the record
 * that decided (n: none). */
static bool rule_partner(const struct rec *r, size_t n, size_t i, bool drain, size_t *out, size_t *at)
{
	*at = n;
#define STREAM(k) ((r[k].kind == 1 || r[k].kind == 2) && !(drain && r[k].link != NO_LINK_T))
	if (!STREAM(i))
		return false;
	bool fwd = r[i].kind == 1;
	for (size_t k = 1;; k++) {
		if (fwd ? i + k >= n : k > i)
			return false;
		size_t s = fwd ? i + k : i - k;
		if (!STREAM(s) || r[s].depth > r[i].depth)
			continue;
		*at = s;
		if (r[s].depth == r[i].depth && r[s].kind == (fwd ? 2u : 1u) && (fwd ? r[s].ts >= r[i].ts : r[s].ts <= r[i].ts)) {
			*out = s;
			return true;
		}
		return false;
	}
#undef STREAM
}

static int by_ts_then_idx(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static void test_order_and_pairs(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	char p[4096];
	snprintf(p, sizeof p, "%s/pid_1", tmpdir);
	mkdir(p, 0755);
	uint64_t rng = 12345;
	enum shape shapes[] = {DRAIN, RANDOM, TIES, DEEP, DRAIN};
	size_t caps[] = {60000, 20000, 5000, 30000, 9000};
	struct rec *recs[5];
	size_t nrec[5], total = 0;
	for (uint32_t s = 0; s < 5; s++) {
		recs[s] = xcalloc(caps[s], sizeof **recs);
		nrec[s] = make_thread(shapes[s], &rng, recs[s], caps[s]);
		total += nrec[s];
		thread_path(p, sizeof p, s);
		write_index(p, recs[s], nrec[s], s);
	}
	snprintf(p, sizeof p, "%s/pid_1", tmpdir);
	struct trace *t = open_path(p, 0);
	uint64_t n = model_count(t->m);
	is_int((long long)n, (long long)total, "generated: every record is an event (%zu)", total);
	/* per thread, in model order: must equal a stable sort of the file */
	int64_t *seen[5];
	size_t nseen[5] = {0};
	for (int s = 0; s < 5; s++)
		seen[s] = xcalloc(nrec[s] + 1, sizeof **seen);
	bool sorted = true;
	int64_t prev = INT64_MIN;
	struct event e;
	for (uint64_t q = 0; q < n; q++) {
		model_get(t->m, q, &e);
		sorted &= e.ts >= prev;
		prev = e.ts;
		uint32_t slot = (uint32_t)(model_lane_get(t->m, e.lane)->key & 0xffffffff);
		if (slot < 5 && nseen[slot] < nrec[slot])
			seen[slot][nseen[slot]++] = (int64_t)((e.off - 64) / 32);
	}
	ok(sorted, "generated: global time order");
	for (int s = 0; s < 5; s++) {
		int64_t *pairs = xcalloc(2 * nrec[s] + 2, sizeof *pairs);
		for (size_t i = 0; i < nrec[s]; i++) {
			pairs[2 * i] = recs[s][i].ts;
			pairs[2 * i + 1] = (int64_t)i;
		}
		qsort(pairs, nrec[s], 2 * sizeof *pairs, by_ts_then_idx);
		bool same = nseen[s] == nrec[s];
		for (size_t i = 0; i < nrec[s] && same; i++)
			same = seen[s][i] == pairs[2 * i + 1];
		ok(same, "thread %d (%s, %zu records): order equals a stable sort of the file", s,
		   (const char *[]){"drain", "random", "ties", "deep", "drain"}[s], nrec[s]);
		free(pairs);
	}
	/* seek against a count */
	bool seek_ok = true;
	for (int k = 0; k < 200; k++) {
		int64_t tt = (int64_t)(rng_next(&rng) % 1200000);
		uint64_t want = 0;
		for (int s = 0; s < 5; s++)
			for (size_t i = 0; i < nrec[s]; i++)
				want += recs[s][i].ts < tt;
		seek_ok &= model_seek(t->m, tt) == want;
	}
	ok(seek_ok, "seek: the first position at or after t, for 200 times");
	/* random access agrees with stepping */
	bool ra = true;
	for (int k = 0; k < 300; k++) {
		uint64_t q = rng_next(&rng) % n;
		struct event a;
		model_get(t->m, q, &a);
		int64_t tt = a.ts;
		uint64_t first = model_seek(t->m, tt);
		ra &= first <= q && model_ts(t->m, q) == tt;
	}
	ok(ra, "random access agrees with seek");
	/* pairing: the model's partners equal the rule read directly */
	uint64_t checked = 0, wrong = 0, far = 0, far_none = 0;
	for (uint64_t q = 0; q < n; q++) {
		model_get(t->m, q, &e);
		uint32_t slot = (uint32_t)(model_lane_get(t->m, e.lane)->key & 0xffffffff);
		size_t i = (size_t)((e.off - 64) / 32), want, at;
		/* every generated file steps back in time: linked records are copies */
		bool has = rule_partner(recs[slot], nrec[slot], i, true, &want, &at);
		far_none += !has && at < nrec[slot] && (at > i + 4096 || i > at + 4096);
		uint64_t other;
		bool got = model_partner(t->m, q, &other);
		checked++;
		if (got != has) {
			wrong++;
			continue;
		}
		if (!got)
			continue;
		struct event f;
		model_get(t->m, other, &f);
		if ((size_t)((f.off - 64) / 32) != want || f.lane != e.lane)
			wrong++;
		if (want > i + 4096 || i > want + 4096)
			far++;
		uint64_t dur = (uint64_t)(recs[slot][want].ts > recs[slot][i].ts ? recs[slot][want].ts - recs[slot][i].ts
									    : recs[slot][i].ts - recs[slot][want].ts);
		if (e.dur != dur)
			wrong++;
	}
	ok(wrong == 0, "pairs follow the rule for all %llu events (%llu wrong, %llu far apart)",
	   (unsigned long long)checked, (unsigned long long)wrong, (unsigned long long)far);
	ok(far > 0, "some pairs are more than 4096 records apart");
	ok(far_none > 0, "some records are decided unpaired more than 4096 records away (%llu)",
	   (unsigned long long)far_none);
	for (int s = 0; s < 5; s++) {
		free(seen[s]);
		free(recs[s]);
	}
	close_trace(t);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		perror("rm");
}

/* ---- reading a file whole --------------------------------------------------- */

static struct buf read_all(const char *path)
{
	struct buf b = {0};
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t got;
	while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, got);
	if (f)
		fclose(f);
	return b;
}

/* ---- a file that grows while it is read (what follow mode will see) -------- */

static void test_growth(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	char p[4096];
	snprintf(p, sizeof p, "%s/pid_1", tmpdir);
	mkdir(p, 0755);
	thread_path(p, sizeof p, 0);
	/* the finished file, written in 3 steps as the writer's stdio buffer does */
	enum { N = 3000 };
	static struct rec r[N];
	uint64_t rng = 5;
	size_t n = 0;
	int64_t ts = 100;
	uint32_t depth = 0;
	while (n < N) {
		/* calls and returns, every call closed by the end */
		uint32_t kind = N - n <= depth ? 2 : depth == 0 || (depth < 9 && rng_next(&rng) % 2) ? 1 : 2;
		depth += kind == 1;
		r[n++] = (struct rec){ts += 10, 0x100000001ull, kind, depth, NO_LINK_T};
		depth -= kind == 2;
	}
	write_index(p, r, N, 0);
	struct buf full = read_all(p);
	struct buf head = {0};
	buf_add(&head, full.p, full.len);
	memset(head.p + 28, 0, 4);         /* placeholder header: count 0 */
	memcpy(head.p + 40, "\x40\0\0\0\0\0\0\0", 8); /* footer_offset 64 */
	size_t cuts[] = {4096, 4096 * 12, full.len};
	size_t counts[3];
	FILE *f = fopen(p, "wb");
	fclose(f);
	struct trace *t = xcalloc(1, sizeof *t);
	trace_init(t);
	t->follow = true;
	trace_open(t, tmpdir);
	size_t written = 0;
	for (int step = 0; step < 3; step++) {
		f = fopen(p, "r+b");
		fseek(f, (long)written, SEEK_SET);
		const char *src = step == 2 ? full.p : head.p;
		fwrite(src + written, 1, cuts[step] - written, f);
		if (step == 2) { /* finalize: the header is rewritten last */
			fseek(f, 0, SEEK_SET);
			fwrite(full.p, 1, 64, f);
		}
		fclose(f);
		written = cuts[step];
		t->last_check = 0; /* as the follow loop does when the watch wakes it */
		trace_check(t, true);
		for (int k = 0; k < 4; k++)
			trace_step(t, 10000000, false);
		counts[step] = (size_t)model_count(t->m);
	}
	/* a footer starts with "2ITA" at a record boundary: no record here does */
	is_int((long long)counts[0], (4096 - 64) / 32, "growing: 4096 bytes, every whole record");
	is_int((long long)counts[1], (4096 * 12 - 64) / 32, "growing: more records as the file grows");
	is_int((long long)counts[2], N, "growing: once finalized, every record and not the footer");
	struct event e;
	bool sorted = true, paired = true;
	int64_t prev = 0;
	for (uint64_t q = 0; q < counts[2]; q++) {
		model_get(t->m, q, &e);
		if (e.ts <= prev && sorted) {
			printf("# out of order at position %llu\n", (unsigned long long)q);
			sorted = false;
		}
		prev = e.ts;
		if (ev_role(&e) == ROLE_BEGIN && e.dur == TTV_NODUR) {
			if (paired)
				printf("# unpaired call at position %llu\n", (unsigned long long)q);
			paired = false;
		}
	}
	ok(sorted && paired, "growing: in order, and calls that were open pair once their returns arrive (all of them)");
	ok(!trace_damaged(t), "growing: no damage reported while the file grows");
	trace_free(t);
	free(t);
	buf_free(&full);
	buf_free(&head);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		perror("rm");
}

/* ---- hostile bytes: mutated copies of the samples --------------------------- */

/* Every event's fields and summary, as --dump --json does. */
static void walk(struct trace *t)
{
	uint64_t n = model_count(t->m);
	struct buf b = {0};
	struct event e;
	for (uint64_t p = 0; p < n; p++) {
		model_get(t->m, p, &e);
		buf_reset(&b);
		dump_json(t, &e, &b);
		uint64_t q;
		model_partner(t->m, p, &q);
	}
	buf_reset(&b);
	info_json(t, &b);
	buf_free(&b);
}

static void test_fuzz(void)
{
	static const char *const files[] = {"manifest.json", "thread_0/index.atf", "thread_0/detail.atf",
					    "thread_1/index.atf", "thread_1/detail.atf"};
	char src[4096], dst[4096];
	struct buf orig[5];
	for (int f = 0; f < 5; f++) {
		snprintf(src, sizeof src, "%s/atf/small_finalized/trace/session_20260101_120000/pid_4242/%s", samples, files[f]);
		orig[f] = read_all(src);
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(dst, sizeof dst, "%s/pid_9", tmpdir);
	mkdir(dst, 0755);
	snprintf(dst, sizeof dst, "%s/pid_9/thread_0", tmpdir);
	mkdir(dst, 0755);
	snprintf(dst, sizeof dst, "%s/pid_9/thread_1", tmpdir);
	mkdir(dst, 0755);
	/* ATF_FUZZ_RUNS and ATF_FUZZ_SEED make a longer run by hand */
	const char *er = getenv("ATF_FUZZ_RUNS"), *es = getenv("ATF_FUZZ_SEED");
	uint64_t rng = es ? strtoull(es, NULL, 0) : 99, runs = er ? strtoull(er, NULL, 0) : 300, events = 0;
	for (uint64_t r = 0; r < runs; r++) {
		for (int f = 0; f < 5; f++) {
			struct wbuf w = {0};
			wb_add(&w, orig[f].p, orig[f].len);
			/* a few bytes changed, biased to headers, footers and record heads */
			int k = 1 + (int)(rng_next(&rng) % 8);
			for (int m = 0; m < k && w.len; m++) {
				uint64_t x = rng_next(&rng), at;
				switch (x % 4) {
				case 0: at = x / 4 % (w.len < 64 ? w.len : 64); break;
				case 1: at = w.len - 1 - x / 4 % (w.len < 64 ? w.len : 64); break;
				default: at = x / 4 % w.len; break;
				}
				w.p[at] = (uint8_t)(x >> 32 & 3 ? x >> 40 : 0xff);
			}
			if (rng_next(&rng) % 4 == 0)
				w.len = (size_t)(rng_next(&rng) % (w.len + 1));
			snprintf(dst, sizeof dst, "%s/pid_9/%s", tmpdir, files[f]);
			FILE *o = fopen(dst, "wb");
			if (!o || (w.len && fwrite(w.p, 1, w.len, o) != w.len) || fclose(o)) {
				perror(dst);
				exit(1);
			}
			free(w.p);
		}
		snprintf(dst, sizeof dst, "%s/pid_9", tmpdir);
		struct trace *t = open_path(dst, r % 3 ? 0 : 777);
		events += model_count(t->m);
		walk(t);
		close_trace(t);
	}
	ok(1, "%llu sessions with mutated headers, records, footers and manifests decode (%llu events)",
	   (unsigned long long)runs, (unsigned long long)events);
	for (int f = 0; f < 5; f++)
		buf_free(&orig[f]);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		perror("rm");
}

/* A step out of time leaves the inputs after it for the next step: loading
 * with no time at all (each step stops after one input) reads every file. */
static void test_budget(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/atf/small_finalized", samples);
	struct trace *all = open_path(path, 0), t;
	trace_init(&t);
	trace_open(&t, path);
	uint64_t steps = 0;
	while (trace_step(&t, 0, true))
		steps++;
	ok(model_count(t.m) == model_count(all->m) && model_count(t.m) > 0,
	   "steps out of time read every file (%llu events in %llu steps, %llu in one load)",
	   (unsigned long long)model_count(t.m), (unsigned long long)steps, (unsigned long long)model_count(all->m));
	trace_free(&t);
	close_trace(all);
}

int main(int argc, char **argv)
{
	samples = argc > 1 ? argv[1] : "t/samples";
	test_links();
	test_budget();
	test_order_and_pairs();
	memcpy(tmpdir + strlen(tmpdir) - 6, "XXXXXX", 6);
	test_growth();
	memcpy(tmpdir + strlen(tmpdir) - 6, "XXXXXX", 6);
	test_fuzz();
	return done_testing();
}
