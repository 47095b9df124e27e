/* Patterns and the filter algebra.
 *
 * 1. The JIT and the interpreter agree on every pattern over a corpus of
 *    subjects with invalid UTF-8, controls and NULs (the 10.42 JIT once
 *    mis-matched \D and \W without UCP).
 * 2. Filters stack: every enabled include must match, no enabled exclude
 *    may; scopes (lane, type, field, text, range) select what is matched;
 *    a disabled filter does nothing.  Checked on a podtrace fixture written
 *    by t/ptwrite. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/query.h"
#include "src/trace.h"
#include "t/tap.h"

static const char *const subjects[] = {
	"plain ascii 123",
	"caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97",
	"bad \xff\xfe utf8 \xc0\xaf overlong",
	"trunc \xe2\x82",
	"ctl \x1b[31m red \x07 bell",
	"c1 \xc2\x9b csi",
	"surrogate \xed\xa0\x80 x",
	"digits \xd9\xa3\xd9\xa4 arabic-indic",
	"",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
};

static const char *const patterns[] = {
	"\\D+", "\\W", "\\w+", "\\d", "\\s", "\\S+$", ".", "^.*$", "[^a]", "caf.", "CAF", "\\x{fffd}",
	"\\p{L}+", "\\p{Han}", "\\b\\w", "red|bell", "(a+)+b", "\\xff", "[\\x80-\\xff]", "u.f8",
};

static char path[64];

/* Write the fixture with the project's writer. */
static bool fixture(void)
{
	snprintf(path, sizeof path, "/tmp/ttv-query-%d.pt", (int)getpid());
	const char *b = getenv("TTV_BUILD");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s%s/t/ptwrite %s", b && *b == '/' ? "" : "./", b ? b : "build", path);
	FILE *w = popen(cmd, "w");
	if (!w)
		return false;
	fputs("V4 ts=100 pid=1 type=0 comm=alpha target=Api.example\n"   /* 0 DNS */
	      "V4 ts=200 pid=1 type=21 comm=alpha target=/etc/passwd\n"  /* 1 OPEN */
	      "V4 ts=300 pid=2 type=1 comm=beta target=10.0.0.1 error=-111\n" /* 2 CONNECT */
	      "V4 ts=400 pid=2 type=22 comm=beta bytes=3\n"              /* 3 CLOSE */
	      "V4 ts=500 pid=3 type=21 comm=gamma target=/var/x\n",     /* 4 OPEN */
	      w);
	return pclose(w) == 0;
}

/* Bit i set when event i (in time order) passes the filter specs. */
static unsigned pass(struct trace *t, const char *const *specs, const bool *disabled)
{
	struct filterset fs = {0};
	for (size_t i = 0; specs[i]; i++) {
		char *err = NULL;
		if (!filterset_add(&fs, specs[i], &err)) {
			printf("# bad spec %s: %s\n", specs[i], err);
			free(err);
		}
		if (disabled && disabled[i])
			fs.f[fs.n - 1].enabled = false;
	}
	unsigned bits = 0;
	struct event e;
	for (uint64_t p = 0; p < model_count(t->m); p++) {
		model_get(t->m, p, &e);
		if (filterset_match(&fs, t, &e))
			bits |= 1u << p;
	}
	filterset_free(&fs);
	return bits;
}

#define SPECS(...) ((const char *const[]){__VA_ARGS__, NULL})

int main(void)
{
	/* 1. JIT and interpreter agree */
	size_t checks = 0, disagree = 0;
	for (size_t p = 0; p < ARRAY_LEN(patterns); p++) {
		char *err = NULL;
		struct pattern *re = pattern_new(patterns[p], &err);
		if (!re) {
			ok(0, "pattern %s compiles: %s", patterns[p], err);
			free(err);
			continue;
		}
		for (size_t s = 0; s < ARRAY_LEN(subjects); s++) {
			int j = pattern_match(re, subjects[s], strlen(subjects[s]), NULL, NULL);
			int i = pattern_match_nojit(re, subjects[s], strlen(subjects[s]));
			checks++;
			if (i != j) {
				disagree++;
				printf("# /%s/ on subject %zu: jit %d, interpreter %d\n", patterns[p], s, j, i);
			}
		}
		pattern_free(re);
	}
	ok(disagree == 0, "JIT and interpreter agree on %zu pattern/subject pairs", checks);

	char *err = NULL;
	struct pattern *re = pattern_new("caf\\w", &err);
	ok(re && pattern_match(re, subjects[1], strlen(subjects[1]), NULL, NULL) == 1, "UCP: \\w matches é");
	pattern_free(re);
	re = pattern_new("\\D{3}$", &err);
	ok(re && pattern_match(re, "x\xd9\xa3", 3, NULL, NULL) == 0, "UCP: \\D does not match an Arabic-Indic digit");
	pattern_free(re);
	re = pattern_new("(", &err);
	ok(!re && err && strstr(err, "at offset 1"), "a compile error names its offset: %s", err ? err : "");
	free(err);
	re = pattern_new("^(a|aa)+$", &err);
	char many[4096];
	memset(many, 'a', sizeof many - 2);
	many[sizeof many - 2] = 'b';
	many[sizeof many - 1] = 0;
	ok(re && pattern_match(re, many, strlen(many), NULL, NULL) == -1, "a pathological match stops: too expensive");
	pattern_free(re);

	/* 2. the filter algebra */
	if (!fixture()) {
		ok(0, "write the fixture with ptwrite");
		return done_testing();
	}
	struct trace t;
	trace_init(&t);
	trace_open(&t, path);
	trace_load_all(&t);
	unlink(path);
	is_int((long long)model_count(t.m), 5, "fixture: 5 events");
	is_int(pass(&t, SPECS("passwd"), NULL), 0x02, "include: only matching events");
	is_int(pass(&t, SPECS("!OPEN"), NULL), 0x0d, "exclude: matching events dropped");
	is_int(pass(&t, SPECS("OPEN", "!passwd"), NULL), 0x10, "include and exclude stack");
	is_int(pass(&t, SPECS("lane:alpha|beta", "type:^C"), NULL), 0x0c, "two includes: both must match");
	is_int(pass(&t, SPECS("!type:OPEN", "!lane:beta"), NULL), 0x01, "two excludes: neither may match");
	is_int(pass(&t, SPECS("lane:gamma"), NULL), 0x10, "lane: scope");
	is_int(pass(&t, SPECS("type:^OPEN$"), NULL), 0x12, "type: scope");
	is_int(pass(&t, SPECS("target:^/"), NULL), 0x12, "FIELD: scope on the interned field");
	is_int(pass(&t, SPECS("error:ECONNREFUSED"), NULL), 0x04, "FIELD: scope on a decoded field, by meaning");
	is_int(pass(&t, SPECS("comm:^beta$"), NULL), 0x0c, "FIELD: scope on another decoded field");
	is_int(pass(&t, SPECS("text:type:"), NULL), 0x00, "text: forces full text");
	is_int(pass(&t, SPECS("api"), NULL), 0x01, "smart case: lower case is caseless");
	is_int(pass(&t, SPECS("API"), NULL), 0x00, "smart case: upper case is exact");
	is_int(pass(&t, SPECS("range:+100ns..+300ns"), NULL), 0x0e, "range: relative to the first event, inclusive");
	is_int(pass(&t, SPECS("range:300..500"), NULL), 0x1c, "range: absolute ns");
	is_int(pass(&t, SPECS("!range:200..400"), NULL), 0x11, "!range: excludes the range");
	is_int(pass(&t, SPECS("OPEN", "!passwd"), (const bool[]){false, true}), 0x12, "a disabled exclude does nothing");
	is_int(pass(&t, SPECS("OPEN", "!passwd"), (const bool[]){true, true}), 0x1f, "all disabled: everything passes");
	is_int(pass(&t, SPECS("field_that_does_not_exist:x"), NULL), 0x00, "an unknown field matches nothing");
	trace_free(&t);
	return done_testing();
}
