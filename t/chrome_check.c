/* Checks a `ttv --export chrome` document against `ttv --dump --json` of
 * the same trace and filters:
 *   chrome_check EXPORT.json DUMP.jsonl
 * The structure: an object with traceEvents (events with ph, pid, tid,
 * name; ts and dur as microseconds with exactly three decimals; X with dur,
 * i with s, B; M naming every process and thread that events use),
 * displayTimeUnit and otherData.time_base_ns.  The content: every non-
 * metadata event of the dump appears exactly once (as an event, or as the
 * end of a pair in args.end) at its time, spans with their duration, and
 * nothing else appears but the partners of exported pairs.  The slices of
 * each thread (X, and B lasting to the end) nest, as Perfetto needs.
 * Prints what is wrong on stderr and a summary on stdout; exit 0 when all is
 * well. */
#include <stdio.h>
#include <stdlib.h>

#include "src/hmap.h"
#include "src/json.h"
#include "src/util.h"

static unsigned problems;

static void problem(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void problem(const char *fmt, ...)
{
	if (problems++ < 20) {
		va_list ap;
		va_start(ap, fmt);
		fputs("chrome_check: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	struct buf b = {0};
	char tmp[65536];
	size_t k;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, k);
	fclose(f);
	*n = b.len;
	return b.p ? b.p : xstrdup("");
}

/* A number as microseconds with exactly three decimals -> ns. */
static bool us_ns(const struct json *j, uint32_t id, int64_t *ns)
{
	if (!id || json_type(j, id) != JSON_NUM)
		return false;
	const char *p = j->p + j->nodes[id].off;
	size_t n = j->nodes[id].len, i = 0;
	bool neg = n && p[0] == '-';
	i += neg;
	int64_t v = 0;
	size_t digits = 0;
	while (i < n && p[i] >= '0' && p[i] <= '9' && digits < 16)
		v = v * 10 + (p[i++] - '0'), digits++;
	if (!digits || i + 4 != n || p[i] != '.')
		return false;
	for (size_t k = i + 1; k < n; k++) {
		if (p[k] < '0' || p[k] > '9')
			return false;
		v = v * 10 + (p[k] - '0');
	}
	*ns = neg ? -v : v;
	return true;
}

static bool str_is(const struct json *j, uint32_t id, const char *want)
{
	struct buf b = {0};
	bool same = id && json_str(j, id, &b) && !strcmp(buf_str(&b), want);
	buf_free(&b);
	return same;
}

/* An event's identity: file, offset and time (ns, absolute). */
static uint64_t identity(const char *file, size_t flen, uint64_t off, int64_t ts)
{
	uint64_t k[2] = {off, (uint64_t)ts};
	return hash_bytes(file, flen) ^ hash_bytes(k, sizeof k) * 0x9e3779b97f4a7c15ull;
}

static bool record_identity(const struct json *j, uint32_t obj, int64_t ts, uint64_t *key)
{
	struct buf f = {0};
	uint64_t off;
	bool okay = json_str(j, json_get(j, obj, "file"), &f) && json_u64(j, json_get(j, obj, "offset"), &off) &&
		    json_type(j, json_get(j, obj, "fields")) == JSON_OBJ &&
		    json_type(j, json_get(j, obj, "type")) == JSON_STR && json_type(j, json_get(j, obj, "role")) == JSON_STR;
	if (okay)
		*key = identity(buf_str(&f), f.len, off, ts);
	buf_free(&f);
	return okay;
}

struct exported {
	uint64_t key, partner; /* partner: 0 when none */
};

struct slice {
	uint64_t thread;
	int64_t start, end;
};

static int by_thread_start(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* the longer one is the parent */
}

/* Every thread's slices nest: each one ends within the innermost open one. */
static void check_nesting(struct slice *sl, size_t n)
{
	qsort(sl, n, sizeof *sl, by_thread_start);
	int64_t *stack = xmalloc((n + 1) * sizeof *stack);
	size_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && sl[i].thread != sl[i - 1].thread)
			depth = 0;
		while (depth && stack[depth - 1] <= sl[i].start)
			depth--;
		if (depth && sl[i].end > stack[depth - 1]) {
			problem("pid %llu tid %llu: the slice at %lld ns overlaps one ending at %lld ns without nesting",
				(unsigned long long)(sl[i].thread >> 32), (unsigned long long)(sl[i].thread & 0xffffffff),
				(long long)sl[i].start, (long long)stack[depth - 1]);
			continue;
		}
		stack[depth++] = sl[i].end;
	}
	free(stack);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: chrome_check EXPORT.json DUMP.jsonl\n");
		return 2;
	}
	size_t n;
	char *doc = slurp(argv[1], &n);
	struct json j;
	if (!json_parse(&j, doc, n)) {
		printf("not JSON: %s at byte %zu\n", j.err, j.err_off);
		return 1;
	}
	uint32_t root = json_root(&j), evs = json_get(&j, root, "traceEvents"), other = json_get(&j, root, "otherData");
	int64_t base = 0;
	uint64_t declared = 0;
	if (json_type(&j, evs) != JSON_ARR)
		problem("no traceEvents array");
	if (!str_is(&j, json_get(&j, root, "displayTimeUnit"), "ns"))
		problem("displayTimeUnit is not \"ns\"");
	if (!json_i64(&j, json_get(&j, other, "time_base_ns"), &base) || !json_u64(&j, json_get(&j, other, "events"), &declared))
		problem("otherData lacks time_base_ns or events");

	struct hmap procs = {0}, threads = {0}, used_procs = {0}, used_threads = {0}, seen = {0};
	struct exported *ex = NULL;
	size_t nex = 0, capex = 0;
	struct slice *sl = NULL;
	size_t nsl = 0, capsl = 0;
	uint64_t counts[4] = {0}; /* X i B, events */
	for (uint32_t e = json_child(&j, evs); e; e = json_next(&j, e)) {
		uint64_t pid, tid;
		uint32_t ph = json_get(&j, e, "ph"), args = json_get(&j, e, "args");
		if (json_type(&j, e) != JSON_OBJ || !json_u64(&j, json_get(&j, e, "pid"), &pid) ||
		    !json_u64(&j, json_get(&j, e, "tid"), &tid) || json_type(&j, json_get(&j, e, "name")) != JSON_STR ||
		    json_type(&j, ph) != JSON_STR || json_type(&j, args) != JSON_OBJ) {
			problem("event at byte %u lacks ph, pid, tid, name or args", j.nodes[e].off);
			continue;
		}
		if (str_is(&j, ph, "M")) {
			uint32_t name = json_get(&j, e, "name");
			if (str_is(&j, name, "process_name") && json_type(&j, json_get(&j, args, "name")) == JSON_STR)
				hmap_put(&procs, pid, 1);
			else if (str_is(&j, name, "thread_name") && json_type(&j, json_get(&j, args, "name")) == JSON_STR)
				hmap_put(&threads, pid << 32 | tid, 1);
			else if (!str_is(&j, name, "process_sort_index") && !str_is(&j, name, "thread_sort_index"))
				problem("metadata event at byte %u: unknown name", j.nodes[e].off);
			continue;
		}
		counts[3]++;
		hmap_put(&used_procs, pid, 1);
		hmap_put(&used_threads, pid << 32 | tid, 1);
		int64_t ts, dur = -1;
		if (!us_ns(&j, json_get(&j, e, "ts"), &ts) || json_type(&j, json_get(&j, e, "cat")) != JSON_STR) {
			problem("event at byte %u: ts not microseconds with three decimals, or no cat", j.nodes[e].off);
			continue;
		}
		ts += base;
		uint32_t end = json_get(&j, args, "end");
		if (str_is(&j, ph, "X")) {
			counts[0]++;
			if (!us_ns(&j, json_get(&j, e, "dur"), &dur) || dur < 0)
				problem("X event at byte %u: dur", j.nodes[e].off);
		} else if (str_is(&j, ph, "i")) {
			counts[1]++;
			if (!str_is(&j, json_get(&j, e, "s"), "t"))
				problem("instant at byte %u: s is not \"t\"", j.nodes[e].off);
		} else if (str_is(&j, ph, "B")) {
			counts[2]++;
			if (json_get(&j, args, "unpaired") == 0)
				problem("B event at byte %u is not flagged unpaired", j.nodes[e].off);
		} else {
			problem("event at byte %u: unexpected ph", j.nodes[e].off);
			continue;
		}
		if (str_is(&j, ph, "X") || str_is(&j, ph, "B")) {
			xgrow(&sl, &capsl, nsl + 1, sizeof *sl);
			sl[nsl++] = (struct slice){pid << 32 | tid, ts, dur < 0 ? INT64_MAX : ts + dur};
		}
		struct exported x = {0};
		if (!record_identity(&j, args, ts, &x.key)) {
			problem("event at byte %u: args lack type, role, file, offset or fields", j.nodes[e].off);
			continue;
		}
		if (end) {
			uint64_t k;
			if (dur < 0 || !str_is(&j, json_get(&j, end, "role"), "end") ||
			    !record_identity(&j, end, ts + dur, &k)) {
				problem("event at byte %u: args.end is not the end of a span", j.nodes[e].off);
				continue;
			}
			x.partner = k;
			xgrow(&ex, &capex, nex + 1, sizeof *ex);
			ex[nex++] = (struct exported){k, x.key};
			(*hmap_ref(&seen, k))++;
		}
		xgrow(&ex, &capex, nex + 1, sizeof *ex);
		ex[nex++] = x;
		(*hmap_ref(&seen, x.key))++;
	}
	check_nesting(sl, nsl);
	free(sl);
	if (counts[3] != declared)
		problem("otherData.events says %llu, there are %llu", (unsigned long long)declared,
			(unsigned long long)counts[3]);
	for (size_t i = 0; i < used_threads.cap; i++)
		if (used_threads.used[i] && !hmap_get(&threads, used_threads.keys[i], &(uint64_t){0}))
			problem("pid %llu tid %llu has no thread_name", (unsigned long long)(used_threads.keys[i] >> 32),
				(unsigned long long)(used_threads.keys[i] & 0xffffffff));
	for (size_t i = 0; i < used_procs.cap; i++)
		if (used_procs.used[i] && !hmap_get(&procs, used_procs.keys[i], &(uint64_t){0}))
			problem("pid %llu has no process_name", (unsigned long long)used_procs.keys[i]);

	/* the dump: every timeline event exactly once */
	size_t dn;
	char *dump = slurp(argv[2], &dn);
	struct hmap want = {0};
	uint64_t ndump = 0;
	for (char *line = dump; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct json d;
		if (!len) {
			line += nl ? 1 : 0;
			if (!nl)
				break;
			continue;
		}
		if (!json_parse(&d, line, len)) {
			problem("dump line not JSON: %s", d.err);
		} else if (json_type(&d, json_get(&d, 1, "meta")) != JSON_TRUE) {
			int64_t ts;
			uint64_t key;
			if (!json_i64(&d, json_get(&d, 1, "ts"), &ts) || !record_identity(&d, 1, ts, &key)) {
				problem("dump line without ts, file, offset");
			} else {
				ndump++;
				hmap_put(&want, key, 1);
				uint64_t times = 0;
				hmap_get(&seen, key, &times);
				if (times != 1)
					problem("dump event %.*s appears %llu times", (int)MIN(len, 160), line,
						(unsigned long long)times);
			}
		}
		json_free(&d);
		line = nl ? nl + 1 : line + len;
	}
	for (size_t i = 0; i < nex; i++) {
		uint64_t v;
		if (hmap_get(&want, ex[i].key, &v))
			continue;
		if (!ex[i].partner || !hmap_get(&want, ex[i].partner, &v))
			problem("an exported event (entry %zu) is not in the dump, nor the partner of one", i);
	}
	printf("%llu events (%llu X, %llu i, %llu B) against %llu dump events: %u problems\n",
	       (unsigned long long)counts[3], (unsigned long long)counts[0], (unsigned long long)counts[1],
	       (unsigned long long)counts[2], (unsigned long long)ndump, problems);
	hmap_free(&procs);
	hmap_free(&threads);
	hmap_free(&used_procs);
	hmap_free(&used_threads);
	hmap_free(&seen);
	hmap_free(&want);
	free(ex);
	json_free(&j);
	free(doc);
	free(dump);
	return problems ? 1 : 0;
}
