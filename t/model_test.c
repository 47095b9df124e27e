/* Unit tests of the timeline model: ordering across lanes and out-of-order
 * input, seek, span pairing and orphans, late events, long durations, and
 * merging external sequences, overlapping batches; and the hash map the
 * model and decoders share (deletion), the string table saved and adopted. */
#include <stdio.h>
#include <stdlib.h>

#include "src/bigmem.h"
#include "src/hmap.h"
#include "src/model.h"
#include "src/strtab.h"
#include "src/util.h"
#include "t/tap.h"

static uint64_t rng_next_test(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static struct model *m;
static uint32_t t_inst, t_begin, t_end, t_complete, lane_a, lane_b;
static uint64_t next_off;

static void add(uint32_t lane, uint32_t type, int64_t ts, uint32_t role, uint64_t dur, uint32_t name)
{
	struct event e = {.ts = ts, .dur = dur, .lane = lane, .type = type, .name = name, .flags = role,
			  .off = next_off++};
	model_add(m, &e);
}

static bool sorted(void)
{
	uint64_t n = model_count(m);
	struct event a, b;
	for (uint64_t i = 1; i < n; i++) {
		model_get(m, i - 1, &a);
		model_get(m, i, &b);
		if (a.ts > b.ts || (a.ts == b.ts && a.input == b.input && a.off > b.off))
			return false;
	}
	return true;
}

static void setup(void)
{
	model_free(m);
	m = model_new();
	next_off = 0;
	uint32_t end = model_type(m, &(struct type){.name = model_str(m, "end", 3), .role = ROLE_END});
	t_end = end;
	t_begin = model_type(m, &(struct type){.name = model_str(m, "begin", 5), .role = ROLE_BEGIN, .pair = end});
	t_inst = model_type(m, &(struct type){.name = model_str(m, "inst", 4)});
	t_complete = model_type(m, &(struct type){.name = model_str(m, "complete", 8), .role = ROLE_COMPLETE});
	lane_a = model_lane(m, 0, 1, model_str(m, "a", 1));
	lane_b = model_lane(m, 0, 2, model_str(m, "b", 1));
}

static void test_order(void)
{
	setup();
	/* two lanes, each delivered out of order, interleaved */
	int64_t ts[] = {50, 10, 40, 20, 30, 60, 5, 45};
	for (size_t i = 0; i < ARRAY_LEN(ts); i++)
		add(i % 2 ? lane_b : lane_a, t_inst, ts[i], ROLE_INSTANT, TTV_NODUR, 0);
	is_int((long long)model_count(m), 0, "nothing visible before commit");
	model_commit(m);
	is_int((long long)model_count(m), 8, "8 events after commit");
	ok(sorted(), "events are in time order across lanes");
	is_int(model_ts(m, 0), 5, "first is ts 5");
	is_int(model_ts(m, 7), 60, "last is ts 60");
	is_int((long long)model_lane_get(m, lane_a)->count, 4, "lane a counts 4 events");
	int64_t f, l;
	ok(model_span(m, &f, &l) && f == 5 && l == 60, "span 5..60");

	/* seek: first position with ts >= t */
	is_int((long long)model_seek(m, 0), 0, "seek before the start -> 0");
	is_int((long long)model_seek(m, 20), 2, "seek 20 -> position 2 (after 5 10)");
	is_int((long long)model_seek(m, 21), 3, "seek 21 -> position 3");
	is_int((long long)model_seek(m, 1000), 8, "seek past the end -> count");

	/* late events: a second commit that lands before committed events */
	add(lane_a, t_inst, 15, ROLE_INSTANT, TTV_NODUR, 0);
	add(lane_b, t_inst, 70, ROLE_INSTANT, TTV_NODUR, 0);
	uint64_t gen = model_generation(m);
	model_commit(m);
	is_int((long long)model_count(m), 10, "10 after a second commit");
	ok(sorted(), "still in order after merging late events");
	is_int(model_ts(m, 2), 15, "the late event sits at its time");
	ok(model_generation(m) != gen, "generation changes when order changed behind");

	/* equal timestamps keep file order */
	setup();
	for (int i = 0; i < 5; i++)
		add(lane_a, t_inst, 100, ROLE_INSTANT, TTV_NODUR, (uint32_t)i);
	model_commit(m);
	struct event e;
	bool fileorder = true;
	for (uint64_t i = 0; i < 5; i++) {
		model_get(m, i, &e);
		fileorder &= e.name == i;
	}
	ok(fileorder, "equal timestamps stay in file order");
}

static void test_big_sort(void)
{
	setup();
	/* mostly ordered with some records displaced, then a random batch */
	uint64_t rng = 42;
	for (int i = 0; i < 200000; i++) {
		uint64_t x = rng_next_test(&rng);
		add(lane_a, t_inst, i * 10 - (x % 8 == 0 ? (int64_t)(x % 500) : 0), ROLE_INSTANT, TTV_NODUR, 0);
	}
	model_commit(m);
	ok(sorted(), "200000 nearly ordered events sort");
	for (int i = 0; i < 50000; i++)
		add(lane_b, t_inst, (int64_t)(rng_next_test(&rng) % 3000000), ROLE_INSTANT, TTV_NODUR, 0);
	model_commit(m);
	ok(sorted(), "a random batch merges into place");
	is_int((long long)model_count(m), 250000, "nothing lost");
}

/* Far from ordered: per-lane chunks of scopes written when they end
 * (children before parents), interleaved across lanes, committed in
 * batches that overlap in time; and equal times from two inputs. */
static void test_scattered(void)
{
	setup();
	uint64_t rng = 7, n = 0;
	int64_t clock[8] = {0};
	for (int batch = 0; batch < 3; batch++) {
		for (int c = 0; c < 20000; c++) { /* 60000 events: several pieces to sort and merge */
			int lane = (int)(rng_next_test(&rng) % 8);
			int64_t t = clock[lane];
			/* a parent [t, t+100] with children written first, one at its start time */
			add(lane % 2 ? lane_a : lane_b, t_complete, t, ROLE_COMPLETE, 40, 0);
			add(lane % 2 ? lane_a : lane_b, t_complete, t + 50, ROLE_COMPLETE, 30, 0);
			add(lane % 2 ? lane_a : lane_b, t_complete, t, ROLE_COMPLETE, 100, 0);
			clock[lane] += 101 + (int64_t)(rng_next_test(&rng) % 50);
			n += 3;
		}
		model_commit(m);
	}
	ok(sorted(), "scopes written children first, chunks interleaved, batches overlapping: in order");
	is_int((long long)model_count(m), (long long)n, "nothing lost");
	/* equal times whose file order is not their arrival order (two inputs) */
	setup();
	for (int i = 0; i < 40000; i++) {
		struct event e = {.ts = (i * 7919) % 1000, .dur = TTV_NODUR, .lane = lane_a, .type = t_inst,
				  .input = (uint32_t)(i % 2 ? 0 : 1), .off = (uint64_t)i};
		model_add(m, &e);
	}
	model_commit(m);
	bool order = true;
	struct event a, b;
	for (uint64_t i = 1; i < model_count(m); i++) {
		model_get(m, i - 1, &a);
		model_get(m, i, &b);
		if (a.ts > b.ts || (a.ts == b.ts && (a.input > b.input || (a.input == b.input && a.off > b.off))))
			order = false;
	}
	ok(order, "equal times from two inputs: by input, then offset");
}

/* A batch far out of order (the radix path): many equal times arriving
 * against file order, times over `span` ns (0: the whole signed range, too
 * wide for the radix keys: sorted otherwise), checked against qsort of the
 * same events. */
struct ref {
	int64_t ts;
	uint32_t input;
	uint64_t off;
};

static int ref_cmp(const void *x, const void *y)
{
	const struct ref *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static void test_radix(uint64_t span, const char *what)
{
	enum { N = 100000 };
	static struct ref want[N];
	setup();
	uint64_t rng = 99;
	for (int i = 0; i < N; i++) {
		uint64_t x = rng_next_test(&rng);
		int64_t ts = span ? (int64_t)(x % span) : (int64_t)(x % 1000000) - 500000;
		if (x % 5 == 0)
			ts = 42;
		if (!span && x % 7 == 0)
			ts = x % 2 ? INT64_MAX : INT64_MIN;
		want[i] = (struct ref){ts, (uint32_t)(x >> 20) % 4, (uint64_t)(N - i)};
		struct event e = {.ts = ts, .dur = TTV_NODUR, .lane = lane_a, .type = t_inst, .input = want[i].input,
				  .off = want[i].off};
		model_add(m, &e);
	}
	model_commit(m);
	qsort(want, N, sizeof *want, ref_cmp);
	bool same = model_count(m) == N;
	struct event e;
	for (uint64_t i = 0; same && i < N; i++) {
		model_get(m, i, &e);
		same = e.ts == want[i].ts && e.input == want[i].input && e.off == want[i].off;
	}
	ok(same, "a batch far out of order, times %s, ties against file order: in order", what);
}

/* Begin/end pairs over many commits, each bringing events that land
 * before what was committed, up to 8 commits back (800,000 events: far
 * enough back to land among packed events): every pair is found. */
static void test_late_pairs(void)
{
	setup();
	uint64_t rng = 9;
	int64_t t = 0;
	for (int batch = 0; batch < 80; batch++) {
		for (int i = 0; i < 5000; i++, t += 10) {
			add(lane_a, t_begin, t, ROLE_BEGIN, TTV_NODUR, 0);
			add(lane_a, t_end, t + 5, ROLE_END, TTV_NODUR, 0);
		}
		/* a late pair behind the last commits */
		int64_t late = t - 10 * 5000 * (1 + batch % 8) - 7 - (int64_t)(rng_next_test(&rng) % 3);
		add(lane_b, t_begin, late, ROLE_BEGIN, TTV_NODUR, 0);
		add(lane_b, t_end, late + 1, ROLE_END, TTV_NODUR, 0);
		model_commit(m);
	}
	uint64_t unpaired = 0;
	struct event e;
	for (uint64_t i = 0; i < model_count(m); i++) {
		model_get(m, i, &e);
		if (e.dur == TTV_NODUR)
			unpaired++;
	}
	is_int((long long)unpaired, 0, "late begin/end pairs over 80 commits all pair");
}

static void test_pairs(void)
{
	setup();
	uint32_t f = model_str(m, "f", 1), g = model_str(m, "g", 1);
	/* lane a: f{ g{ } } ; lane b interleaved: g{ } and an orphan end */
	add(lane_a, t_begin, 10, ROLE_BEGIN, TTV_NODUR, f);
	add(lane_b, t_begin, 12, ROLE_BEGIN, TTV_NODUR, g);
	add(lane_a, t_begin, 20, ROLE_BEGIN, TTV_NODUR, g);
	add(lane_a, t_end, 30, ROLE_END, TTV_NODUR, g);
	add(lane_b, t_end, 33, ROLE_END, TTV_NODUR, g);
	add(lane_a, t_end, 40, ROLE_END, TTV_NODUR, f);
	add(lane_b, t_end, 50, ROLE_END, TTV_NODUR, f); /* never opened */
	add(lane_a, t_begin, 60, ROLE_BEGIN, TTV_NODUR, g); /* never closed */
	model_commit(m);
	struct event e;
	model_get(m, 0, &e);
	is_int((long long)e.dur, 30, "f on lane a lasts 30");
	uint64_t other;
	ok(model_partner(m, 0, &other) && other == 5, "f's begin finds its end at position 5");
	ok(model_partner(m, 5, &other) && other == 0, "and back");
	model_get(m, 1, &e);
	is_int((long long)e.dur, 21, "g on lane b pairs across lane a's events (12..33)");
	model_get(m, 2, &e);
	is_int((long long)e.dur, 10, "nested g on lane a lasts 10");
	model_get(m, 6, &e);
	ok(e.dur == TTV_NODUR && ev_role(&e) == ROLE_END, "an end without begin stays unpaired (shown, flagged)");
	ok(!model_partner(m, 6, &other), "an orphan has no partner");
	model_get(m, 7, &e);
	ok(e.dur == TTV_NODUR && ev_role(&e) == ROLE_BEGIN, "a begin without end stays unpaired");

	/* the orphan begin is closed by a later commit */
	add(lane_a, t_end, 65, ROLE_END, TTV_NODUR, g);
	model_commit(m);
	model_get(m, 7, &e);
	is_int((long long)e.dur, 5, "a later end closes an open begin");

	/* a late begin arrives behind committed events: re-pairing finds it */
	add(lane_b, t_begin, 45, ROLE_BEGIN, TTV_NODUR, f);
	model_commit(m);
	uint64_t p = model_seek(m, 45);
	model_get(m, p, &e);
	ok(e.ts == 45 && e.dur == 5, "late begin at 45 pairs with the end at 50 (dur 5)");
	model_get(m, model_seek(m, 50), &e);
	is_int((long long)e.dur, 5, "and that end is no longer an orphan");

	/* a mismatched end does not close the wrong span; what is above a match is left open */
	setup();
	add(lane_a, t_begin, 1, ROLE_BEGIN, TTV_NODUR, f);
	add(lane_a, t_begin, 2, ROLE_BEGIN, TTV_NODUR, g);
	add(lane_a, t_end, 3, ROLE_END, TTV_NODUR, f);
	model_commit(m);
	model_get(m, 0, &e);
	is_int((long long)e.dur, 2, "end of f closes f past an unclosed g");
	model_get(m, 1, &e);
	ok(e.dur == TTV_NODUR, "g stays unclosed");
}

/* Keyed pairs (dial9 span ids): ends their decoder paired carry the
 * distance to their begin, whatever the order on the lane. */
static void add_keyed(uint32_t type, int64_t ts, uint32_t role, uint64_t dur, uint32_t name, uint32_t input)
{
	uint32_t flags = role | (dur != TTV_NODUR ? EVF_MARK : 0);
	struct event e = {.ts = ts, .dur = dur, .lane = lane_a, .type = type, .name = name, .flags = flags,
			  .input = input, .off = next_off++};
	model_add(m, &e);
}

static uint64_t dur_at(int64_t ts, uint32_t input)
{
	struct event e;
	for (uint64_t p = model_seek(m, ts); p < model_count(m); p++) {
		model_get(m, p, &e);
		if (e.ts != ts)
			break;
		if (e.input == input && ev_role(&e) == ROLE_BEGIN)
			return e.dur;
	}
	return 0;
}

static void test_keyed_pairs(void)
{
	setup();
	uint32_t kend = model_type(m, &(struct type){.name = model_str(m, "kend", 4), .role = ROLE_END, .keyed = true});
	uint32_t kbegin = model_type(
		m, &(struct type){.name = model_str(m, "kbegin", 6), .role = ROLE_BEGIN, .pair = kend, .keyed = true});
	uint32_t f = model_str(m, "f", 1), g = model_str(m, "g", 1);
	/* two instances of f that close in the order they opened */
	add_keyed(kbegin, 10, ROLE_BEGIN, TTV_NODUR, f, 0);
	add_keyed(kbegin, 20, ROLE_BEGIN, TTV_NODUR, f, 0);
	add_keyed(kend, 30, ROLE_END, 20, f, 0);
	add_keyed(kend, 40, ROLE_END, 20, f, 0);
	/* f then g open, f closes first */
	add_keyed(kbegin, 50, ROLE_BEGIN, TTV_NODUR, f, 0);
	add_keyed(kbegin, 60, ROLE_BEGIN, TTV_NODUR, g, 0);
	add_keyed(kend, 70, ROLE_END, 20, f, 0);
	add_keyed(kend, 80, ROLE_END, 20, g, 0);
	/* a plain span closes over an open keyed begin, which stays open */
	add(lane_a, t_begin, 100, ROLE_BEGIN, TTV_NODUR, 0);
	add_keyed(kbegin, 110, ROLE_BEGIN, TTV_NODUR, f, 0);
	add(lane_a, t_end, 120, ROLE_END, TTV_NODUR, 0);
	add_keyed(kend, 130, ROLE_END, 20, f, 0);
	/* an end its decoder could not pair takes a begin of another input, never of its own */
	add_keyed(kbegin, 200, ROLE_BEGIN, TTV_NODUR, f, 1);
	add_keyed(kend, 210, ROLE_END, TTV_NODUR, f, 2);
	add_keyed(kbegin, 300, ROLE_BEGIN, TTV_NODUR, g, 2);
	add_keyed(kend, 310, ROLE_END, TTV_NODUR, g, 2);
	model_commit(m);
	for (int pass = 0; pass < 2; pass++) {
		const char *when = pass ? " (after re-pairing)" : "";
		ok(dur_at(10, 0) == 20 && dur_at(20, 0) == 20, "keyed: f opened at 10 and 20 closes at 30 and 40%s", when);
		ok(dur_at(50, 0) == 20 && dur_at(60, 0) == 20, "keyed: f and g close out of order, both paired%s", when);
		ok(dur_at(100, 0) == 20 && dur_at(110, 0) == 20,
		   "keyed: a plain span closing over a keyed begin leaves it open for its own end%s", when);
		ok(dur_at(200, 1) == 10, "keyed: an end its decoder did not pair takes a begin of another input%s", when);
		ok(dur_at(300, 2) == TTV_NODUR, "keyed: ... never one of its own input%s", when);
		uint64_t other;
		ok(model_partner(m, model_seek(m, 10), &other) && model_ts(m, other) == 30, "keyed: partners found%s",
		   when);
		/* late events behind everything: the model pairs again from the start */
		add(lane_b, t_begin, 1, ROLE_BEGIN, TTV_NODUR, 0);
		add(lane_b, t_end, 2, ROLE_END, TTV_NODUR, 0);
		model_commit(m);
	}
}

static void test_long_and_meta(void)
{
	setup();
	uint64_t hour = 3600ull * 1000000000ull;
	add(lane_a, t_complete, 100, ROLE_COMPLETE, hour, 0);
	add(lane_a, t_complete, 200, ROLE_COMPLETE, 7, 0);
	add(lane_a, t_inst, 0, ROLE_INSTANT | EVF_META, TTV_NODUR, 0);
	model_commit(m);
	struct event e;
	model_get(m, 1, &e);
	is_int((long long)e.dur, (long long)hour, "an hour-long duration is kept exactly");
	model_get(m, 2, &e);
	is_int((long long)e.dur, 7, "a short one too");
	int64_t f, l;
	model_span(m, &f, &l);
	ok(f == 100 && l == 100 + (int64_t)hour, "metadata at ts 0 does not pull the span to 0; it reaches the hour's end");
	model_get(m, 0, &e);
	ok(e.flags & EVF_META, "but it is listed (first)");
}

/* A synthetic sequence: records in an array, already in time order. */
struct fakeseq {
	int64_t *ts;
	uint64_t n;
	uint32_t lane, type;
};
static uint64_t fs_count(void *c) { return ((struct fakeseq *)c)->n; }
static int64_t fs_ts(void *c, uint64_t i) { return ((struct fakeseq *)c)->ts[i]; }
static uint64_t fs_bound(struct fakeseq *s, int64_t t, bool upper)
{
	uint64_t lo = 0, hi = s->n;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		if (s->ts[mid] < t || (upper && s->ts[mid] == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
static uint64_t fs_lower(void *c, int64_t t) { return fs_bound(c, t, false); }
static uint64_t fs_upper(void *c, int64_t t) { return fs_bound(c, t, true); }
static uint64_t fs_reads; /* (events a sequence was asked for) */
static void fs_get(void *c, uint64_t i, struct event *e)
{
	struct fakeseq *s = c;
	fs_reads++;
	*e = (struct event){.ts = s->ts[i], .dur = TTV_NODUR, .lane = s->lane, .type = s->type, .off = i,
			    .input = 99};
}
static bool fs_partner(void *c, uint64_t i, uint64_t *j)
{
	struct fakeseq *s = c;
	*j = s->n - 1 - i; /* mirror: first <-> last */
	return true;
}
static const struct seq_ops fs_ops = {fs_count, fs_ts, fs_lower, fs_upper, fs_get, fs_partner, NULL};
static uint32_t fs_lane(void *c) { return ((struct fakeseq *)c)->lane; }
static const struct seq_ops fs_lane_ops = {fs_count, fs_ts, fs_lower, fs_upper, fs_get, fs_partner, fs_lane};

/* Whether each sequence holds its whole lane (then model_parts: each read
 * apart) is known alike from a sequence that tells its lane and from its
 * first and last events; told, no event of it is read (an ATF thread's
 * would touch its file's pages, and what they link to). */
static void test_seq_lanes(void)
{
	size_t np[2][2];
	uint64_t reads[2] = {0, 0};
	for (int told = 0; told < 2; told++)
		for (int shared = 0; shared < 2; shared++) {
			setup();
			struct fakeseq sq[2] = {{.n = 300, .lane = lane_a, .type = t_inst},
						{.n = 200, .lane = shared ? lane_a : lane_b, .type = t_inst}};
			for (int k = 0; k < 2; k++) {
				sq[k].ts = malloc(sq[k].n * sizeof *sq[k].ts);
				for (uint64_t i = 0; i < sq[k].n; i++)
					sq[k].ts[i] = (int64_t)i * (k ? 5 : 3);
				model_add_seq(m, told ? &fs_lane_ops : &fs_ops, &sq[k]);
				model_lane_count(m, sq[k].lane, sq[k].n, sq[k].ts[0], sq[k].ts[sq[k].n - 1]);
			}
			uint64_t before = fs_reads;
			np[told][shared] = model_parts(m);
			reads[told] += fs_reads - before;
			for (int k = 0; k < 2; k++)
				free(sq[k].ts);
		}
	ok(np[0][0] == np[1][0] && np[0][0] > 0 && np[0][1] == 0 && np[1][1] == 0,
	   "sequences of a lane each: counted apart (%zu streams); two on one lane: not, whether they tell their lane or not",
	   np[1][0]);
	ok(reads[0] > 0 && reads[1] == 0, "... told, none of their events read (%llu read when not)",
	   (unsigned long long)reads[0]);
}

static void test_sequences(void)
{
	setup();
	for (int i = 0; i < 1000; i++)
		add(lane_a, t_inst, i * 3, ROLE_INSTANT, TTV_NODUR, 0); /* 0 3 6 ... */
	model_commit(m);
	struct fakeseq s1 = {.n = 2000, .lane = lane_b, .type = t_inst};
	struct fakeseq s2 = {.n = 500, .lane = lane_b, .type = t_inst};
	s1.ts = malloc(s1.n * sizeof *s1.ts);
	s2.ts = malloc(s2.n * sizeof *s2.ts);
	for (uint64_t i = 0; i < s1.n; i++)
		s1.ts[i] = (int64_t)i * 2 + 1; /* odd */
	for (uint64_t i = 0; i < s2.n; i++)
		s2.ts[i] = (int64_t)i * 6; /* ties with the compact array */
	uint32_t id1 = model_add_seq(m, &fs_ops, &s1);
	uint32_t id2 = model_add_seq(m, &fs_ops, &s2);
	ok(id1 == 1 && id2 == 2, "sequences get ids 1 and 2");
	is_int((long long)model_count(m), 3500, "count sums every sequence");
	ok(sorted(), "merged order is by time (stepping forward)");
	/* random access must agree with stepping */
	uint64_t rng = 7;
	bool agree = true;
	struct event a, b;
	for (int k = 0; k < 300; k++) {
		uint64_t p = rng_next_test(&rng) % 3500;
		model_get(m, p, &a);
		int64_t t = a.ts;
		uint64_t q = model_seek(m, t);
		model_get(m, q, &b);
		agree &= b.ts == t && q <= p && a.pos == p;
	}
	ok(agree, "random access, seek and positions agree");
	/* ties: compact (seq 0) before seq 2 at equal times */
	uint64_t p = model_seek(m, 6);
	model_get(m, p, &a);
	model_get(m, p + 1, &b);
	ok(a.ts == 6 && a.seq == 0 && b.ts == 6 && b.seq == 2, "equal times order by sequence");
	/* stepping backwards from the end */
	bool back = true;
	int64_t prev = INT64_MAX;
	for (uint64_t i = 3500; i-- > 3000;) {
		model_get(m, i, &a);
		back &= a.ts <= prev;
		prev = a.ts;
	}
	ok(back, "stepping backwards stays in order");
	/* partner through the sequence maps to a global position */
	uint64_t first1 = model_seek(m, 1); /* s1[0] */
	model_get(m, first1, &a);
	uint64_t other;
	ok(a.seq == 1 && model_partner(m, first1, &other), "sequence events find partners");
	model_get(m, other, &b);
	ok(b.seq == 1 && b.off == s1.n - 1, "the partner is the sequence's record, at its global position");
	int64_t f, l;
	model_span(m, &f, &l);
	ok(f == 0 && l == 3999, "span covers the sequences");
	free(s1.ts);
	free(s2.ts);
}

/* Batches that overlap in time (dial9 writes them so): late begins, ends
 * and instants, symbols at time 0, committed in pieces of any size, pair
 * exactly as when everything is committed at once. */
static uint64_t batches(uint64_t seed, unsigned every)
{
	setup();
	uint64_t s = seed, h = 1469598103934665603ull;
	int64_t t = 1000;
	for (unsigned i = 0; i < 150000; i++) {
		uint64_t x = rng_next_test(&s);
		int64_t ts = x % 10 < 2 ? t - (int64_t)((x >> 8) % 300000) : (t += (int64_t)((x >> 8) % 50));
		if (x % 97 == 0)
			ts = 0;
		unsigned k = (unsigned)(x >> 20) % 4;
		add((x >> 24) % 2 ? lane_a : lane_b, k == 0 ? t_begin : k == 1 ? t_end : t_inst, ts,
		    k == 0 ? ROLE_BEGIN : k == 1 ? ROLE_END : ROLE_INSTANT, TTV_NODUR, (uint32_t)(x >> 30) % 3);
		if (every && i % every == every - 1)
			model_commit(m);
		if (x % 701 == 0) { /* a late batch of instants only (samples, symbols): committed alone */
			for (unsigned j = 0; j < 20; j++)
				add(j % 2 ? lane_a : lane_b, t_inst, j % 5 ? t - (int64_t)(rng_next_test(&s) % 200000) : 0,
				    ROLE_INSTANT, TTV_NODUR, 0);
			if (every)
				model_commit(m);
		}
	}
	model_commit(m);
	struct event e;
	for (uint64_t p = 0; p < model_count(m); p++) {
		model_get(m, p, &e);
		uint64_t v[3] = {(uint64_t)e.ts, e.dur, e.off};
		for (int j = 0; j < 3; j++)
			h = (h ^ v[j]) * 1099511628211ull;
	}
	return h;
}

static void test_overlapping_batches(void)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		uint64_t whole = batches(seed, 0);
		ok(whole == batches(seed, 997) && whole == batches(seed, 40000) && whole == batches(seed, 70001),
		   "overlapping batches, seed %llu: the same order and pairs whatever the commits", (unsigned long long)seed);
	}
	ok(sorted(), "... and in order");
}

/* Late batches of one lane at a time (a fleet's thread batches in one
 * store, as the viewer's while it follows): the lanes a batch holds are
 * paired again, the others' pairs stand, and the snapshots after where it
 * lands are brought up to date for its lanes.  Reaching back past several
 * snapshots, the order and pairs are those of everything committed at once. */
static uint64_t lane_batches(uint64_t seed, bool each)
{
	setup();
	uint32_t lanes[8];
	for (uint32_t k = 0; k < 8; k++)
		lanes[k] = model_lane(m, 0, 200 + k, model_str(m, "l", 1));
	uint64_t s = seed, h = 1469598103934665603ull;
	int64_t t = 1000;
	for (unsigned b = 0; b < 400; b++) {
		uint64_t x = rng_next_test(&s);
		int64_t bt = t - (int64_t)((x >> 8) % 200000), end = t;
		for (unsigned i = 0, nb = 100 + (unsigned)(x >> 30) % 900; i < nb; i++) {
			uint64_t y = rng_next_test(&s);
			unsigned k = (unsigned)(y >> 8) % 3;
			add(lanes[x % 8], k == 0 ? t_begin : k == 1 ? t_end : t_inst, bt += (int64_t)(y % 7),
			    k == 0 ? ROLE_BEGIN : k == 1 ? ROLE_END : ROLE_INSTANT, TTV_NODUR, 0);
			end = MAX(end, bt);
		}
		t = end + 500;
		if (each)
			model_commit(m);
	}
	model_commit(m);
	struct event e;
	for (uint64_t p = 0; p < model_count(m); p++) {
		model_get(m, p, &e);
		uint64_t v[4] = {(uint64_t)e.ts, e.dur, e.off, e.lane};
		for (int j = 0; j < 4; j++)
			h = (h ^ v[j]) * 1099511628211ull;
	}
	return h;
}

static void test_lane_batches(void)
{
	for (uint64_t seed = 1; seed <= 3; seed++)
		ok(lane_batches(seed, false) == lane_batches(seed, true),
		   "late batches of one lane each, seed %llu: the same order and pairs as committed at once",
		   (unsigned long long)seed);
	ok(sorted(), "... and in order (%llu events)", (unsigned long long)model_count(m));
}

/* Sources read one after another over the same period (a fleet): each
 * source's events are their own part, merged into one order when read.
 * The order, random access both ways, seek, pairs, partners and open
 * begins are those of one store holding everything (the same events with
 * every lane in one source), whatever the commits. */
#define PARTS_SOURCES 5
#define PARTS_EVENTS 40000

struct added {
	struct event e;
	uint64_t loc; /* input, offset, type: the order at equal times */
};

static int by_place(const void *x, const void *y)
{
	const struct added *a = x, *b = y;
	if (a->e.ts != b->e.ts)
		return a->e.ts < b->e.ts ? -1 : 1;
	return (a->loc > b->loc) - (a->loc < b->loc);
}

/* The fleet's events into a fresh model: each source its lanes (or all
 * in source 0: one_source), committed every `every` events (0: once);
 * the sources one after another, or in turn (fleet_in_turn: read side by
 * side, each commit holding every source's events: the main thread groups
 * them by part while the committer is busy). */
static bool fleet_in_turn;
static struct added *fleet(bool one_source, unsigned every, size_t *n)
{
	setup();
	uint32_t lanes[PARTS_SOURCES][2];
	for (uint32_t s = 0; s < PARTS_SOURCES; s++)
		for (uint32_t k = 0; k < 2; k++)
			lanes[s][k] = model_lane(m, one_source ? 0 : s, 100 + s * 2 + k, model_str(m, "l", 1));
	struct added *v = calloc(PARTS_SOURCES * PARTS_EVENTS, sizeof *v);
	size_t k = 0;
	uint64_t rngs[PARTS_SOURCES];
	int64_t ts_of[PARTS_SOURCES] = {0};
	for (uint32_t s = 0; s < PARTS_SOURCES; s++)
		rngs[s] = 11 + s;
	for (uint32_t j = 0; j < PARTS_SOURCES * PARTS_EVENTS; j++, k++) {
		uint32_t s = fleet_in_turn ? j % PARTS_SOURCES : j / PARTS_EVENTS;
		unsigned i = fleet_in_turn ? j / PARTS_SOURCES : j % PARTS_EVENTS;
		int64_t *t = &ts_of[s];
		uint64_t x = rng_next_test(&rngs[s]);
		/* the same period for every source, times often equal across them */
		int64_t ts = x % 10 == 0 ? *t - (int64_t)((x >> 8) % 500) : (*t += (int64_t)((x >> 8) % 4));
		unsigned kind = (unsigned)(x >> 20) % 3;
		uint32_t type = kind == 0 ? t_begin : kind == 1 ? t_end : t_inst;
		struct event e = {.ts = ts, .dur = TTV_NODUR, .lane = lanes[s][(x >> 24) & 1], .type = type,
				  .flags = kind == 0 ? ROLE_BEGIN : kind == 1 ? ROLE_END : ROLE_INSTANT,
				  .input = s, .off = i};
		model_add(m, &e);
		v[k] = (struct added){e, (uint64_t)s << 52 | (uint64_t)i << 16 | type};
		if (every && k % every == every - 1)
			model_commit_some(m);
	}
	model_commit(m);
	qsort(v, k, sizeof *v, by_place);
	*n = k;
	return v;
}

static bool same_event(const struct event *a, const struct event *b)
{
	return a->ts == b->ts && a->input == b->input && a->off == b->off && a->type == b->type && a->dur == b->dur;
}

/* The model holds v[0..n) in this order, positions and all. */
static bool same_order(const struct added *v, size_t n)
{
	bool same = model_count(m) == n;
	struct event e;
	for (uint64_t p = 0; p < n && same; p++) {
		model_get(m, p, &e);
		same = same_event(&e, &v[p].e) && e.pos == p;
	}
	return same;
}

/* Every lane's open begins are at their global positions. */
static bool open_begins_placed(void)
{
	bool placed = true;
	struct event e;
	for (uint32_t l = 0; l < model_nlanes(m); l++) {
		const uint64_t *pos;
		size_t no = model_lane_open(m, l, &pos);
		for (size_t i = 0; i < no; i++) {
			model_get(m, pos[i], &e);
			placed &= e.lane == l && ev_role(&e) == ROLE_BEGIN && e.dur == TTV_NODUR;
		}
	}
	return placed;
}

/* model_lanes_next and _prev over two of the fleet's lanes give each of
 * their events in turn, as a look at every event does; each one found is
 * read where the look left its cursor (no search to place one). */
static bool lanes_found(const struct added *v, size_t n)
{
	uint32_t want[2] = {v[0].e.lane, v[n - 1].e.lane};
	struct idset set;
	idset_make(&set, want, 2);
	bool same = true;
	uint64_t p = 0, searches = 0;
	for (uint64_t q = 0; q < n && same; q++) {
		if (v[q].e.lane != want[0] && v[q].e.lane != want[1])
			continue;
		p = model_lanes_next(m, &set, p, n);
		uint64_t before = model_searches(m);
		struct event e;
		model_get(m, p, &e);
		searches += model_searches(m) - before;
		same = p == q && same_event(&e, &v[q].e);
		p++;
	}
	same &= model_lanes_next(m, &set, p, n) == n && searches == 0;
	uint64_t back = n;
	for (uint64_t q = n; q-- > n - 3000 && same;)
		if (v[q].e.lane == want[0] || v[q].e.lane == want[1])
			same = (back = model_lanes_prev(m, &set, back, 0)) == q;
	idset_free(&set);
	return same;
}

static void test_parts(void)
{
	size_t n;
	struct added *one = fleet(true, 0, &n);
	uint64_t *dur = calloc(n, sizeof *dur);
	for (uint64_t p = 0; p < n; p++) {
		struct event e;
		model_get(m, p, &e);
		dur[p] = e.dur;
	}
	free(one);
	unsigned commits[] = {0, 3001, 65536, 3001, 997};
	for (size_t c = 0; c < ARRAY_LEN(commits); c++) {
		fleet_in_turn = c >= 3;
		struct added *v = fleet(false, commits[c], &n);
		struct event e, o;
		bool back = true, jumps = true, pairs = true, read = true;
		for (uint64_t p = 0; p < n; p++)
			v[p].e.dur = dur[p];
		ok(same_order(v, n), "parts%s, commits every %u: the order of one store (time, then input and offset), its pairs",
		   fleet_in_turn ? " read in turn" : "", commits[c]);
		for (uint64_t p = n; p-- > n - 5000;) {
			model_get(m, p, &e);
			back &= same_event(&e, &v[p].e);
		}
		ok(back, "... stepping backwards");
		uint64_t rng = 5;
		for (int k = 0; k < 2000; k++) {
			uint64_t p = rng_next_test(&rng) % n;
			model_get(m, p, &e);
			jumps &= same_event(&e, &v[p].e) && model_ts(m, p) == v[p].e.ts;
			uint64_t q = model_seek(m, v[p].e.ts);
			jumps &= q <= p && (q == 0 || v[q - 1].e.ts < v[p].e.ts) && v[q].e.ts == v[p].e.ts;
		}
		ok(jumps, "... random access and seek");
		struct event run[777];
		for (uint64_t p = 1234; p + 777 < n && read; p += 20000) {
			model_read(m, p, 777, run);
			for (int j = 0; j < 777; j++)
				read &= same_event(&run[j], &v[p + j].e) && run[j].pos == p + j;
		}
		ok(read, "... reading runs");
		/* a view's selection, found by a seek, kept while the view's own
		 * seeks and reads go elsewhere: read again without a bisection */
		uint64_t sel = model_seek(m, v[n / 3].e.ts);
		model_get(m, sel, &e);
		model_keep(m, sel);
		for (int k = 0; k < 12; k++)
			model_read(m, model_seek(m, v[(uint64_t)k * (n / 12)].e.ts), 200, run);
		uint64_t searches = model_searches(m);
		model_get(m, sel, &e);
		ok(same_event(&e, &v[sel].e) && model_searches(m) == searches, "... a kept place stays placed past other seeks");
		/* places far apart, each found by a search on time: in a few
		 * guesses (times spread evenly), not one halving a bit */
		searches = model_searches(m);
		bool found = true;
		for (int k = 1; k <= 20; k++) {
			uint64_t p = n * (uint64_t)k / 21 + (uint64_t)k * 7;
			model_get(m, p, &e);
			found &= same_event(&e, &v[p].e);
		}
		uint64_t per = (model_searches(m) - searches) / 20;
		ok(found && per <= 8, "... places found in %llu searches each", (unsigned long long)per);
		ok(lanes_found(v, n), "... a few lanes' events found among the rest, forth and back");
		uint64_t npaired = 0;
		for (uint64_t p = 0; p < n && pairs; p += 7) {
			model_get(m, p, &e);
			if (ev_role(&e) != ROLE_BEGIN || e.dur == TTV_NODUR || !e.dur)
				continue; /* (two spans of no length at one time on one lane: either end is found) */
			uint64_t q;
			pairs = model_partner(m, p, &q) && q > p && model_partner_event(m, p, &o);
			if (!pairs)
				break;
			pairs = same_event(&o, &v[q].e) && ev_role(&o) == ROLE_END && o.lane == e.lane &&
				o.ts == e.ts + (int64_t)e.dur;
			npaired++;
		}
		ok(pairs && npaired > 1000, "... partners found across the parts (%llu)", (unsigned long long)npaired);
		ok(open_begins_placed(), "... open begins at their global positions");
		if (c == 1) { /* in steps (the viewer's), read as they are between them */
			size_t steps = 0;
			bool between = true;
			while (model_merge_step(m, 1)) {
				uint64_t p = (++steps * 7919) % n;
				model_get(m, p, &e);
				between &= same_event(&e, &v[p].e);
			}
			ok(steps > 10 && between, "... made one in steps (%zu), read as they were meanwhile", steps);
		} else {
			model_merge_parts(m);
		}
		ok(same_order(v, n) && open_begins_placed(), "... the parts made one: the same order, pairs and open begins");
		free(v);
	}
	free(dur);
	/* events committed while the parts are made one: it starts again */
	struct added *during = fleet(false, 3001, &n);
	for (int k = 0; k < 3; k++)
		model_merge_step(m, 1);
	struct event late = during[n / 2].e;
	late.off = 999999;
	model_add(m, &late);
	model_commit(m);
	model_merge_parts(m);
	ok(model_count(m) == n + 1 && model_npools(m) == 1 && sorted(), "events committed during the merge: in the one store");
	free(during);
	/* with sequences too: at equal times the parts' events first, then
	 * each sequence's in turn */
	struct added *v = fleet(false, 3001, &n);
	struct fakeseq sq[2] = {{.n = 3000, .lane = lane_a, .type = t_inst}, {.n = 2000, .lane = lane_b, .type = t_inst}};
	size_t all = n + sq[0].n + sq[1].n;
	struct event *want = calloc(all, sizeof *want);
	for (int k = 0; k < 2; k++) {
		sq[k].ts = malloc(sq[k].n * sizeof *sq[k].ts);
		for (uint64_t i = 0; i < sq[k].n; i++)
			sq[k].ts[i] = (int64_t)i * (k ? 11 : 7); /* ties with the parts and each other */
		model_add_seq(m, &fs_ops, &sq[k]);
	}
	size_t w = 0, at[3] = {0};
	while (w < all) {
		int best = -1;
		int64_t bt = 0;
		for (int k = 0; k < 3; k++) {
			size_t lim = k == 0 ? n : sq[k - 1].n;
			int64_t t = at[k] >= lim ? INT64_MAX : k == 0 ? v[at[k]].e.ts : sq[k - 1].ts[at[k]];
			if (at[k] < lim && (best < 0 || t < bt))
				best = k, bt = t;
		}
		if (best == 0)
			want[w] = v[at[0]].e;
		else
			fs_get(&sq[best - 1], at[best], &want[w]);
		want[w].dur = best == 0 ? TTV_NODUR : want[w].dur; /* (the parts' durations: not compared here) */
		at[best]++, w++;
	}
	bool fwd = model_count(m) == all, bwd = true, rnd = true;
	struct event e;
	for (uint64_t p = 0; p < all && fwd; p++) {
		model_get(m, p, &e);
		fwd = e.ts == want[p].ts && e.input == want[p].input && e.off == want[p].off;
	}
	for (uint64_t p = all; p-- > all - 3000;) {
		model_get(m, p, &e);
		bwd &= e.ts == want[p].ts && e.input == want[p].input && e.off == want[p].off;
	}
	uint64_t rng = 9;
	for (int k = 0; k < 2000; k++) {
		uint64_t p = rng_next_test(&rng) % all;
		model_get(m, p, &e);
		rnd &= e.ts == want[p].ts && e.input == want[p].input && e.off == want[p].off;
		if (e.seq)
			rnd &= model_seq_pos(m, e.seq, e.off) == p;
	}
	ok(fwd && bwd && rnd, "parts and sequences: parts first at equal times, then the sequences in turn (all ways)");
	for (int k = 0; k < 2; k++)
		free(sq[k].ts);
	free(want);
	free(v);
	model_free(m);
	m = NULL;
}

/* Among many streams the viewer notes places in their merged order
 * (model_index_step): cursors placed later start from them, with no
 * search in every stream, and find what a search finds; a change of the
 * order drops them. */
struct seqev {
	int64_t ts;
	uint32_t k;
	uint64_t i;
};

static int by_seqev(const void *x, const void *y)
{
	const struct seqev *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->k != b->k ? (a->k < b->k ? -1 : 1) : (a->i > b->i) - (a->i < b->i);
}

static bool placed_right(const struct seqev *want, size_t all, const uint32_t *id, uint64_t seed, int tries)
{
	bool right = true;
	uint64_t rng = seed;
	struct event e;
	for (int k = 0; k < tries; k++) {
		uint64_t p = rng_next_test(&rng) % all;
		model_get(m, p, &e);
		right &= e.seq == id[want[p].k] && e.off == want[p].i;
		int64_t t = want[rng_next_test(&rng) % all].ts + (int64_t)(rng_next_test(&rng) % 3) - 1;
		size_t lo = 0, hi = all; /* the first event at or after t */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (want[mid].ts < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		right &= model_seek(m, t) == lo;
		if (lo < all) {
			model_get(m, lo, &e);
			right &= e.seq == id[want[lo].k] && e.off == want[lo].i;
		}
	}
	return right;
}

static void test_checkpoints(void)
{
	setup();
	enum { NSEQ = 40 };
	struct fakeseq sq[NSEQ];
	uint32_t id[NSEQ];
	size_t all = 0;
	uint64_t rng = 5;
	for (int k = 0; k < NSEQ; k++) {
		sq[k] = (struct fakeseq){.n = 1000 + rng_next_test(&rng) % 3000, .lane = lane_a, .type = t_inst};
		sq[k].ts = malloc(sq[k].n * sizeof *sq[k].ts);
		int64_t t = (int64_t)(rng_next_test(&rng) % 5000);
		for (uint64_t i = 0; i < sq[k].n; i++) /* (steps of 0 too: ties within and across) */
			sq[k].ts[i] = t += (int64_t)(rng_next_test(&rng) % (k % 5 + 2));
		all += sq[k].n;
	}
	struct seqev *want = malloc(all * sizeof *want);
	size_t w = 0;
	for (int k = 0; k < NSEQ; k++) {
		id[k] = model_add_seq(m, &fs_ops, &sq[k]);
		for (uint64_t i = 0; i < sq[k].n; i++)
			want[w++] = (struct seqev){sq[k].ts[i], (uint32_t)k, i};
	}
	qsort(want, all, sizeof *want, by_seqev);
	ok(placed_right(want, all, id, 1, 300), "%d sequences, %zu events: placed by searches", NSEQ, all);
	int steps = 0;
	while (model_index_step(m, 100000))
		steps++;
	uint64_t searches = model_searches(m);
	bool right = placed_right(want, all, id, 2, 3000);
	ok(right && model_searches(m) == searches,
	   "places noted (in %d steps): cursors placed from them, no search in every stream, the same places", steps + 1);
	model_seq_changed(m);
	ok(placed_right(want, all, id, 3, 300) && model_searches(m) > searches, "the order changed: searched again");
	for (int k = 0; k < NSEQ; k++)
		free(sq[k].ts);
	free(want);
	model_free(m);
	m = NULL;
}

/* Many sources' events at one time, more than a cursor reads and sorts to
 * place itself among them: placed by bisecting their places instead; and
 * a few ties (sorted), at random places either way. */
static void test_many_ties(void)
{
	setup();
	enum { SOURCES = 4, EACH = 5000 };
	struct added *v = calloc(SOURCES * EACH, sizeof *v);
	size_t n = 0;
	for (uint32_t s = 0; s < SOURCES; s++) {
		uint32_t lane = model_lane(m, s, 100 + s, model_str(m, "l", 1));
		for (uint32_t i = 0; i < EACH; i++, n++) {
			int64_t ts = i < EACH - 100 ? 1000 : 1000 + i % 7; /* (a few ties after the many) */
			struct event e = {.ts = ts, .dur = TTV_NODUR, .lane = lane, .type = t_inst, .flags = ROLE_INSTANT,
					  .input = s, .off = i};
			model_add(m, &e);
			v[n] = (struct added){e, (uint64_t)s << 52 | (uint64_t)i << 16 | t_inst};
		}
	}
	model_commit(m);
	qsort(v, n, sizeof *v, by_place);
	bool same = model_parts(m) == SOURCES;
	uint64_t rng = 3;
	for (int k = 0; k < 300 && same; k++) {
		uint64_t p = k < 100 ? rng_next_test(&rng) % n : n - 1 - rng_next_test(&rng) % (SOURCES * 100);
		struct event e;
		model_get(m, p, &e);
		same = same_event(&e, &v[p].e) && e.pos == p;
	}
	ok(same, "%d sources' %d events at one time, and a few ties: each found at its place", SOURCES, SOURCES * EACH);
	free(v);
}

/* One source whose chains of events cover the same period (sub-streams
 * written one after another: cat f f f f), committed in pieces: late
 * chains go to piles, read in order among the rest; once settled the
 * source is one part again, paired as one commit of everything pairs it
 * (durations, open begins, long spans).  late_pairs false: the later
 * chains hold instants only (merged, or a pile with nothing to pair). */
#define PILE_CHAINS 4
#define PILE_EVENTS 100000

static struct added *chains(unsigned every, bool late_pairs, size_t *n)
{
	setup();
	struct added *v = calloc(PILE_CHAINS * PILE_EVENTS, sizeof *v);
	size_t k = 0;
	for (uint32_t c = 0; c < PILE_CHAINS; c++) {
		uint64_t rng = 21 + c;
		int64_t t = 0;
		/* (instants: fewer, over the same period, each batch of them
		 * landing among many events) */
		unsigned sparse = c && !late_pairs ? 25 : 1;
		for (unsigned i = 0; i < PILE_EVENTS / sparse; i++, k++) {
			uint64_t x = rng_next_test(&rng);
			/* in order but for steps back (a writer's batches) */
			int64_t ts = x % 10 == 0 ? t - (int64_t)((x >> 8) % 500)
						 : (t += (int64_t)((x >> 8) % 4 * sparse));
			unsigned kind = c && !late_pairs ? 2 : (unsigned)(x >> 20) % 4;
			uint32_t type = kind == 0 ? t_begin : kind == 1 ? t_end : kind == 2 ? t_inst : t_complete;
			uint32_t role = kind == 0 ? ROLE_BEGIN : kind == 1 ? ROLE_END : kind == 2 ? ROLE_INSTANT : ROLE_COMPLETE;
			struct event e = {.ts = ts, .dur = kind == 3 ? (x >> 40) % 100000 : TTV_NODUR,
					  .lane = (x >> 24) & 1 ? lane_a : lane_b, .type = type, .flags = role, .off = k};
			model_add(m, &e);
			v[k] = (struct added){e, (uint64_t)k << 16 | type};
			if (every && k % every == every - 1)
				model_commit_some(m);
		}
	}
	if (every) { /* (all committed; the piles wait) */
		model_commit_some(m);
		model_sync(m);
	} else {
		model_commit(m);
	}
	qsort(v, k, sizeof *v, by_place);
	*n = k;
	return v;
}

/* A lane's long spans, as one string (to compare). */
static void longest_of(uint32_t lane, char *out, size_t cap)
{
	const struct long_span *ls;
	uint64_t rest;
	size_t nl = model_lane_longest(m, lane, &ls, &rest), at = 0;
	at += (size_t)snprintf(out + at, cap - at, "%llu:", (unsigned long long)rest);
	for (size_t i = 0; i < nl && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, " %lld+%llu@%llu", (long long)ls[i].ts,
				       (unsigned long long)ls[i].dur, (unsigned long long)ls[i].off);
}

/* The fleet's lanes, and a late source's two, made in one order. */
static void fleet_lanes(uint32_t late[2])
{
	for (uint32_t s = 0; s < PARTS_SOURCES; s++)
		for (uint32_t k = 0; k < 2; k++)
			model_lane(m, s, 100 + s * 2 + k, model_str(m, "l", 1));
	for (uint32_t k = 0; k < 2; k++)
		late[k] = model_lane(m, PARTS_SOURCES, 900 + k, model_str(m, "l", 1));
}

/* A random begin, end or instant on one of lanes[0..1]. */
static struct event random_event(uint64_t *rng, const uint32_t lanes[2], int64_t ts, uint32_t input, uint32_t off)
{
	uint64_t x = rng_next_test(rng);
	unsigned kind = (unsigned)(x >> 20) % 3;
	return (struct event){.ts = ts, .dur = TTV_NODUR, .lane = lanes[(x >> 24) & 1], .input = input, .off = off,
			      .type = kind == 0 ? t_begin : kind == 1 ? t_end : t_inst,
			      .flags = kind == 0 ? ROLE_BEGIN : kind == 1 ? ROLE_END : ROLE_INSTANT};
}

/* A source that grows while the viewer follows a fleet (its file half
 * written when the parts were made one): batches that step back in time
 * land among the other sources' later events in the one store, and pair
 * as a fresh read of all the events pairs them, durations and open
 * begins alike (its lanes paired again only as far as their events go). */
static void test_late_in_one_store(void)
{
	size_t n;
	struct added *v = fleet(false, 3001, &n);
	int64_t mid = v[n / 2].e.ts;
	uint32_t late[2];
	fleet_lanes(late);
	size_t cap = n + 40000, na = 0;
	struct event *all = calloc(cap, sizeof *all);
	for (size_t i = 0; i < n; i++)
		all[na++] = v[i].e;
	uint64_t rng = 99;
	uint32_t off = 0;
	for (int64_t t = 0; t < mid; t += 7) { /* its first half */
		all[na] = random_event(&rng, late, t, PARTS_SOURCES, off++);
		model_add(m, &all[na++]);
	}
	model_commit(m);
	model_merge_parts(m);
	int64_t t = mid;
	for (int round = 0; round < 60; round++) { /* then a batch at a time (every third in order) */
		if (round % 3 && round <= 50)
			t -= (int64_t)(rng_next_test(&rng) % 400);
		for (int i = 0; i < 300; i++, t += 5) {
			all[na] = random_event(&rng, late, t, PARTS_SOURCES, off++);
			model_add(m, &all[na++]);
		}
		model_commit(m);
		if (round == 50) /* the last ones past every source's end: appended, not merged */
			t = v[n - 1].e.ts + 1;
	}
	uint64_t count = model_count(m);
	struct event *got = calloc(count, sizeof *got);
	for (uint64_t p = 0; p < count; p++)
		model_get(m, p, &got[p]);
	size_t nopen[2];
	uint64_t open[2][64];
	for (int k = 0; k < 2; k++) {
		const uint64_t *pos;
		nopen[k] = model_lane_open(m, late[k], &pos);
		memcpy(open[k], pos, MIN(nopen[k], 64) * sizeof *pos);
	}
	setup();
	fleet_lanes(late);
	for (size_t i = 0; i < na; i++)
		model_add(m, &all[i]);
	model_commit(m);
	bool same = model_count(m) == count;
	uint64_t npaired = 0;
	struct event e;
	for (uint64_t p = 0; p < count && same; p++) {
		model_get(m, p, &e);
		same = same_event(&e, &got[p]);
		npaired += e.lane == late[0] && e.dur != TTV_NODUR;
	}
	ok(same && npaired > 1000, "a late source's batches in the one store: paired as a fresh read pairs them (%llu)",
	   (unsigned long long)npaired);
	bool open_same = true;
	for (int k = 0; k < 2; k++) {
		const uint64_t *pos;
		open_same &= model_lane_open(m, late[k], &pos) == nopen[k] && nopen[k] <= 64 &&
			     !memcmp(pos, open[k], nopen[k] * sizeof *pos);
	}
	ok(open_same && nopen[0] + nopen[1] > 0, "... and the same begins left open (%zu)", nopen[0] + nopen[1]);
	free(got);
	free(all);
	free(v);
}

static void test_piles(void)
{
	for (int late_pairs = 1; late_pairs >= 0; late_pairs--) {
		size_t n;
		free(chains(0, late_pairs, &n)); /* everything at once: what to compare with */
		uint64_t *dur = calloc(n, sizeof *dur);
		struct event e;
		for (uint64_t p = 0; p < n; p++) {
			model_get(m, p, &e);
			dur[p] = e.dur;
		}
		char want[2][4096], got[2][4096];
		longest_of(lane_a, want[0], sizeof want[0]);
		longest_of(lane_b, want[1], sizeof want[1]);
		struct added *v = chains(3001, late_pairs, &n);
		size_t piles = model_npools(m) - 1;
		bool placed = model_count(m) == n;
		for (uint64_t p = 0; p < n && placed; p++) {
			model_get(m, p, &e);
			placed = e.ts == v[p].e.ts && e.off == v[p].e.off && e.pos == p;
		}
		/* (instants that land among the open events only move them up:
		 * merged there, cheaper than a pile) */
		ok(piles >= (late_pairs ? PILE_CHAINS - 1 : 0) && piles <= 2 * PILE_CHAINS && placed,
		   "chains over one period in one source%s: late ones in piles (%zu), read in order among the rest",
		   late_pairs ? "" : " (later ones instants)", piles);
		model_commit(m);
		for (uint64_t p = 0; p < n; p++)
			v[p].e.dur = dur[p];
		longest_of(lane_a, got[0], sizeof got[0]);
		longest_of(lane_b, got[1], sizeof got[1]);
		ok(model_npools(m) == 1 && same_order(v, n) && open_begins_placed(),
		   "... settled: one part, paired as one commit pairs it, open begins placed");
		ok(!strcmp(want[0], got[0]) && !strcmp(want[1], got[1]), "... the same long spans");
		free(v);
		free(dur);
	}
}

/* A source in segments as dial9's writer seals them: each segment's
 * events in batches that step back a little, then symbols at time 0
 * (instants, pairing nothing) appended at its seal.  The symbols land
 * before everything, but rewrite only the first blocks: merged, no pile
 * (a pile would merge and pair the whole source again when settled). */
static struct added *sealed_segments(unsigned every, size_t *n)
{
	setup();
	enum { SEGMENTS = 4, PER = 60000, SYMBOLS = 400 };
	struct added *v = calloc(SEGMENTS * (PER + SYMBOLS), sizeof *v);
	size_t k = 0;
	uint64_t rng = 5;
	int64_t t = 1000;
	for (int seg = 0; seg < SEGMENTS; seg++) {
		for (unsigned i = 0; i < PER + SYMBOLS; i++, k++) {
			uint64_t x = rng_next_test(&rng);
			bool sym = i >= PER;
			int64_t ts = sym ? 0 : x % 10 == 0 ? t - (int64_t)((x >> 8) % 300) : (t += (int64_t)((x >> 8) % 4));
			unsigned kind = sym ? 2 : (unsigned)(x >> 20) % 4;
			uint32_t type = kind == 0 ? t_begin : kind == 1 ? t_end : kind == 2 ? t_inst : t_complete;
			uint32_t role = kind == 0 ? ROLE_BEGIN : kind == 1 ? ROLE_END : kind == 2 ? ROLE_INSTANT : ROLE_COMPLETE;
			struct event e = {.ts = ts, .dur = kind == 3 ? (x >> 40) % 1000 : TTV_NODUR,
					  .lane = (x >> 24) & 1 ? lane_a : lane_b, .type = type,
					  .flags = role | (sym ? EVF_META : 0), .off = k};
			model_add(m, &e);
			v[k] = (struct added){e, (uint64_t)k << 16 | type};
			if (every && k % every == every - 1)
				model_commit_some(m);
		}
	}
	if (every) {
		model_commit_some(m);
		model_sync(m);
	} else {
		model_commit(m);
	}
	qsort(v, k, sizeof *v, by_place);
	*n = k;
	return v;
}

static void test_sealed_segments(void)
{
	size_t n;
	free(sealed_segments(0, &n));
	uint64_t *dur = calloc(n, sizeof *dur);
	struct event e;
	for (uint64_t p = 0; p < n; p++) {
		model_get(m, p, &e);
		dur[p] = e.dur;
	}
	struct added *v = sealed_segments(3001, &n);
	size_t piles = model_npools(m) - 1;
	model_commit(m);
	for (uint64_t p = 0; p < n; p++)
		v[p].e.dur = dur[p];
	ok(piles == 0 && same_order(v, n) && open_begins_placed(),
	   "segments sealed with symbols at time 0: merged where they land (piles: %zu), paired as one commit pairs them",
	   piles);
	free(v);
	free(dur);
}

/* One lane's events all late, after the rest of its source (a quiet
 * thread's batch drained at the end): they wait in a pile of their own,
 * which becomes a part of its own when settled (nothing of the rest
 * rewritten or paired again), in the same order and paired as one commit
 * pairs them. */
static struct added *late_lane(unsigned every, size_t *n, uint32_t *quiet, unsigned QUIET)
{
	setup();
	enum { REST = 200000 };
	*quiet = model_lane(m, 0, 3, model_str(m, "quiet", 5));
	struct added *v = calloc(REST + QUIET, sizeof *v);
	size_t k = 0;
	uint64_t rng = 11;
	int64_t t = 0;
	for (int pass = 0; pass < 2; pass++) {
		unsigned count = pass ? QUIET : REST;
		int64_t at = 0;
		for (unsigned i = 0; i < count; i++, k++) {
			uint64_t x = rng_next_test(&rng);
			/* (the late lane over the same period as the rest) */
			int64_t ts = pass ? (at += t / count + (int64_t)(x % 3)) : (t += 1 + (int64_t)(x % 3));
			unsigned kind = pass ? (i % 2) : (unsigned)(x >> 20) % 4; /* (the quiet lane: begin, end) */
			uint32_t type = kind == 0 ? t_begin : kind == 1 ? t_end : kind == 2 ? t_inst : t_complete;
			uint32_t role = kind == 0 ? ROLE_BEGIN : kind == 1 ? ROLE_END : kind == 2 ? ROLE_INSTANT : ROLE_COMPLETE;
			struct event e = {.ts = ts, .dur = kind == 3 ? (x >> 40) % 100 : TTV_NODUR,
					  .lane = pass ? *quiet : (x >> 24) & 1 ? lane_a : lane_b, .type = type, .flags = role,
					  .off = k};
			model_add(m, &e);
			v[k] = (struct added){e, (uint64_t)k << 16 | type};
			if (every && k % every == every - 1)
				model_commit_some(m);
		}
	}
	if (every) {
		model_commit_some(m);
		model_sync(m);
	} else {
		model_commit(m);
	}
	qsort(v, k, sizeof *v, by_place);
	*n = k;
	return v;
}

static void test_late_lane(unsigned many)
{
	size_t n;
	uint32_t quiet;
	free(late_lane(0, &n, &quiet, many));
	uint64_t *dur = calloc(n, sizeof *dur);
	struct event e;
	for (uint64_t p = 0; p < n; p++) {
		model_get(m, p, &e);
		dur[p] = e.dur;
	}
	struct added *v = late_lane(5001, &n, &quiet, many);
	size_t before = model_npools(m);
	model_commit(m);
	for (uint64_t p = 0; p < n; p++)
		v[p].e.dur = dur[p];
	bool own = model_npools(m) == 2 && model_lane_part(m, quiet) == 1 && model_lane_part(m, lane_a) == 0;
	ok(before == 2 && own && same_order(v, n) && open_begins_placed(),
	   "a lane all late (%u events): a pile of its own (parts %zu), then a part of its own (%zu), paired as one "
	   "commit pairs it",
	   many, before, model_npools(m));
	free(v);
	free(dur);
}

/* Random puts and deletes on a small key space (long probe runs that wrap
 * around the table), checked against a plain array after every step. */
static void test_hmap_del(void)
{
	enum { KEYS = 300 };
	struct hmap h = {0};
	uint64_t ref[KEYS], seed = 7, key, v;
	bool have[KEYS] = {0}, good = true;
	for (int step = 0; step < 200000 && good; step++) {
		uint64_t r = rng_next_test(&seed);
		key = r % KEYS;
		if (r >> 40 & 1) {
			hmap_put(&h, key * 0x10001, r);
			ref[key] = r, have[key] = true;
		} else {
			hmap_del(&h, key * 0x10001);
			have[key] = false;
		}
		if (step % 97)
			continue;
		size_t n = 0;
		for (int k = 0; k < KEYS; k++) {
			bool got = hmap_get(&h, (uint64_t)k * 0x10001, &v);
			good &= got == have[k] && (!got || v == ref[k]);
			n += have[k];
		}
		good &= n == h.n;
	}
	ok(good, "hmap: puts and deletes agree with a plain array (200000 random steps)");
	hmap_free(&h);
}

/* A string table saved (strtab_save), mapped from a file as the saved
 * index maps it, and taken over (strtab_adopt), damaged `flips` bytes past
 * its header when asked. */
static struct strtab *adopted(const struct strtab *from, unsigned flips, uint64_t *r)
{
	struct buf b = {0};
	strtab_save(from, &b);
	for (unsigned i = 0; i < flips; i++)
		b.p[24 + rng_next_test(r) % (b.len - 24)] ^= (char)(1 + rng_next_test(r) % 255);
	FILE *f = tmpfile();
	struct bigmem mem = {0};
	bool ok = f && fwrite(b.p, 1, b.len, f) == b.len && fflush(f) == 0 &&
		  bigmem_map_saved(&mem, fileno(f), 0, (b.len + 4095) / 4096 * 4096);
	struct strtab *st = strtab_new();
	strtab_intern(st, "there", 5); /* (what the decoders' open() made) */
	if (!ok || !strtab_adopt(st, &mem, b.len)) {
		strtab_free(st);
		st = NULL;
	}
	bigmem_free(&mem);
	if (f)
		fclose(f);
	buf_free(&b);
	return st;
}

/* strtab_save and strtab_adopt: every string at its id, found again by
 * interning it (through the adopted slots), new ones added (the adopted
 * arrays grown); damage inside the arrays never reads outside them. */
static void test_strtab_saved(void)
{
	struct strtab *one = strtab_new();
	enum { N = 50000 };
	static char text[N][300];
	size_t *len = calloc(N, sizeof *len);
	uint32_t *id = calloc(N, sizeof *id);
	uint64_t r = 7;
	strtab_intern(one, "there", 5);
	for (size_t i = 0; i < N; i++) {
		uint64_t x = rng_next_test(&r);
		len[i] = x % 7 == 0 ? 0 : x % 11 == 0 ? 5 : 1 + x % 299;
		for (size_t k = 0; k < len[i]; k++)
			text[i][k] = (char)(x % 13 == 0 ? 'a' : x >> (k % 56) & 0xff); /* repeats; NULs */
		if (len[i] == 5)
			memcpy(text[i], "there", 5);
		id[i] = strtab_intern(one, text[i], len[i]);
	}
	struct strtab *st = adopted(one, 0, &r);
	bool same = st && strtab_count(st) == strtab_count(one);
	for (uint32_t k = 0; same && k < strtab_count(one); k++) {
		size_t la, lb;
		const char *a = strtab_get(one, k, &la), *b = strtab_get(st, k, &lb);
		same = la == lb && !memcmp(a, b, la) && !b[lb];
	}
	ok(same, "strtab adopted: every string at its id, NUL-terminated (%u)", strtab_count(one));
	same = st != NULL;
	for (size_t i = 0; same && i < N; i++)
		same = strtab_intern(st, text[i], len[i]) == id[i];
	ok(same && strtab_count(st) == strtab_count(one), "... each found again by interning it");
	uint32_t before = st ? strtab_count(st) : 0;
	char fresh[32];
	same = st != NULL;
	for (int i = 0; same && i < 40000; i++) {
		snprintf(fresh, sizeof fresh, "fresh %d", i);
		same = strtab_intern(st, fresh, strlen(fresh)) == before + (uint32_t)i;
	}
	size_t l;
	ok(same && !strcmp(strtab_get(st, before + 39999, &l), "fresh 39999") &&
		   strtab_intern(st, text[9], len[9]) == id[9],
	   "... new strings added after them (entries and slots grown)");
	strtab_free(st);
	struct strtab *other = strtab_new();
	strtab_intern(other, "elsewhere", 9);
	st = adopted(other, 0, &r);
	ok(!st, "... not over a table whose strings differ at the same ids");
	strtab_free(other);
	bool fine = true;
	for (int k = 0; k < 20; k++) {
		st = adopted(one, 1 + k % 4, &r);
		for (uint32_t j = 0; st && j < strtab_count(st); j++) {
			size_t n;
			const char *s = strtab_get(st, j, &n);
			fine &= s[n] == 0;
		}
		for (size_t i = 0; st && i < N; i += 7)
			strtab_intern(st, text[i], len[i]);
		strtab_free(st);
	}
	ok(fine, "... damaged (20 times): strings read inside it, interning goes on (ASan: no read outside)");
	free(len), free(id);
	strtab_free(one);
}

/* strtab_intern's cache of recent strings: strings that look alike to it
 * (same length, first and last 8 bytes) keep their own ids, however they
 * alternate; short ones and ones with NULs too. */
static void test_intern_recent(void)
{
	struct strtab *st = strtab_new();
	char a[40] = "prefix--the middle part one ---suffix--", b[40];
	memcpy(b, a, sizeof b);
	b[17] = 'X';
	uint32_t ia = strtab_intern(st, a, 39), ib = strtab_intern(st, b, 39);
	bool good = ia != ib;
	for (int i = 0; i < 1000; i++)
		good &= strtab_intern(st, i % 3 ? a : b, 39) == (i % 3 ? ia : ib);
	ok(good, "strtab_intern: look-alike strings keep their own ids, alternating");
	uint32_t z1 = strtab_intern(st, "a\0b", 3), z2 = strtab_intern(st, "a\0c", 3), s1 = strtab_intern(st, "ab", 2);
	good = z1 != z2 && z1 != s1 && z2 != s1;
	for (int i = 0; i < 100; i++)
		good &= strtab_intern(st, "a\0b", 3) == z1 && strtab_intern(st, "a\0c", 3) == z2 &&
			strtab_intern(st, "ab", 2) == s1 && strtab_intern(st, "", 0) == 0;
	size_t n;
	const char *got = strtab_get(st, ib, &n);
	ok(good && n == 39 && !memcmp(got, b, 39), "... short ones and ones with NULs too (%u strings)",
	   strtab_count(st));
	strtab_free(st);
}

int main(void)
{
	test_hmap_del();
	test_strtab_saved();
	test_intern_recent();
	test_order();
	test_overlapping_batches();
	test_lane_batches();
	test_big_sort();
	test_radix(0, "over the whole range");
	test_radix(1u << 20, "within 2^20 ns (by the low digits alone)");
	test_radix((uint64_t)1 << 40, "within 2^40 ns (by the top digit, then the rest)");
	test_scattered();
	test_late_pairs();
	test_pairs();
	test_keyed_pairs();
	test_long_and_meta();
	test_sequences();
	test_parts();
	test_many_ties();
	test_checkpoints();
	test_late_in_one_store();
	test_piles();
	test_seq_lanes();
	test_sealed_segments();
	test_late_lane(3000);
	model_free(m);
	return done_testing();
}
