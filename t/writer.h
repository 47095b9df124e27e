/* Helpers shared by the fixture writers in t/: a growable output buffer,
 * little/big-endian stores, a tiny spec-line reader, and the main they
 * share (writer_main).
 *
 * Writers read a text spec, one record per line, `KIND key=value ...`, and
 * write the binary trace.  Values accept C-style escapes (\xNN, \n, \t, \\,
 * \s for a space) so fixtures can carry hostile bytes.  Numbers accept
 * decimal, negative and 0x hex. */
#ifndef TTV_WRITER_H
#define TTV_WRITER_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct wbuf {
	uint8_t *p;
	size_t len, cap;
};

static inline void wb_reserve(struct wbuf *w, size_t n)
{
	if (w->len + n <= w->cap)
		return;
	size_t c = w->cap ? w->cap : 4096;
	while (c < w->len + n)
		c *= 2;
	w->p = realloc(w->p, c);
	if (!w->p) {
		perror("writer");
		exit(1);
	}
	w->cap = c;
}
static inline void wb_add(struct wbuf *w, const void *p, size_t n)
{
	wb_reserve(w, n);
	memcpy(w->p + w->len, p, n);
	w->len += n;
}
static inline void wb_zero(struct wbuf *w, size_t n)
{
	wb_reserve(w, n);
	memset(w->p + w->len, 0, n);
	w->len += n;
}
static inline void wb_u8(struct wbuf *w, uint8_t v) { wb_add(w, &v, 1); }
static inline void wb_uint(struct wbuf *w, uint64_t v, int bytes, bool be)
{
	uint8_t b[8];
	for (int i = 0; i < bytes; i++)
		b[be ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
	wb_add(w, b, (size_t)bytes);
}
static inline void wb_u16(struct wbuf *w, uint16_t v) { wb_uint(w, v, 2, false); }
static inline void wb_u32(struct wbuf *w, uint32_t v) { wb_uint(w, v, 4, false); }
static inline void wb_u64(struct wbuf *w, uint64_t v) { wb_uint(w, v, 8, false); }
/* Store into an already written area. */
static inline void wb_put(struct wbuf *w, size_t at, uint64_t v, int bytes, bool be)
{
	for (int i = 0; i < bytes; i++)
		w->p[at + (size_t)(be ? bytes - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static inline void wb_write_file(const struct wbuf *w, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!f || fwrite(w->p, 1, w->len, f) != w->len || (f != stdout && fclose(f))) {
		fprintf(stderr, "writer: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (f == stdout)
		fflush(stdout);
}

/* ---- spec lines ---------------------------------------------------------- */

#define SPEC_MAX_KEYS 64

struct spec {
	char kind[64];
	int nkeys;
	char key[SPEC_MAX_KEYS][64];
	char *val[SPEC_MAX_KEYS]; /* unescaped, NUL-terminated; vlen holds the length */
	size_t vlen[SPEC_MAX_KEYS];
	int line;
};

/* Unescape s in place; returns the new length. */
static inline size_t spec_unescape(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (*p != '\\' || !p[1]) {
			*o++ = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 's': *o++ = ' '; break;
		case '0': *o++ = 0; break;
		case 'x': {
			char h[3] = {p[1], p[1] ? p[2] : 0, 0};
			*o++ = (char)strtoul(h, NULL, 16);
			p += p[1] && p[2] ? 2 : 0;
			break;
		}
		default: *o++ = *p; break;
		}
	}
	*o = 0;
	return (size_t)(o - s);
}

/* Read the next non-empty, non-comment line.  False at EOF. */
static inline bool spec_next(FILE *f, struct spec *s, char *line, size_t cap)
{
	while (fgets(line, (int)cap, f)) {
		s->line++;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n' || *p == '#')
			continue;
		s->nkeys = 0;
		char *save = NULL, *tok = strtok_r(p, " \t\n", &save);
		snprintf(s->kind, sizeof s->kind, "%s", tok);
		while ((tok = strtok_r(NULL, " \t\n", &save)) && s->nkeys < SPEC_MAX_KEYS) {
			char *eq = strchr(tok, '=');
			int k = s->nkeys++;
			if (eq) {
				*eq = 0;
				s->val[k] = eq + 1;
			} else {
				s->val[k] = tok + strlen(tok); /* a bare word: key with empty value */
			}
			snprintf(s->key[k], sizeof s->key[k], "%s", tok);
			s->vlen[k] = spec_unescape(s->val[k]);
		}
		return true;
	}
	return false;
}

static inline int spec_find(const struct spec *s, const char *key)
{
	for (int i = 0; i < s->nkeys; i++)
		if (!strcmp(s->key[i], key))
			return i;
	return -1;
}
static inline bool spec_has(const struct spec *s, const char *key) { return spec_find(s, key) >= 0; }
static inline uint64_t spec_num(const struct spec *s, const char *key, uint64_t def)
{
	int i = spec_find(s, key);
	if (i < 0)
		return def;
	const char *v = s->val[i];
	return *v == '-' ? (uint64_t)strtoll(v, NULL, 0) : strtoull(v, NULL, 0);
}
static inline double spec_dbl(const struct spec *s, const char *key, double def)
{
	int i = spec_find(s, key);
	return i < 0 ? def : strtod(s->val[i], NULL);
}
/* String value (may hold NULs); NULL when absent. */
static inline const char *spec_str(const struct spec *s, const char *key, size_t *len)
{
	int i = spec_find(s, key);
	if (i < 0)
		return NULL;
	*len = s->vlen[i];
	return s->val[i];
}

/* A small deterministic PRNG for generated traces (xorshift64*). */
static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* A writer's own option for --generate: `--name VALUE`, or a flag `--name`
 * (then *value becomes 1). */
struct gen_opt {
	const char *name;
	bool has_value;
	uint64_t *value;
};

/* `WRITER --generate N [--seed S] [options] OUT`: false when argv is not
 * such a call; else N, the seed (1 by default) and OUT.  A malformed call
 * prints `usage` and exits 2. */
static inline bool gen_args(int argc, char **argv, const char *usage, const struct gen_opt *opts, uint64_t *n,
			    uint64_t *seed, const char **out)
{
	if (argc < 3 || strcmp(argv[1], "--generate"))
		return false;
	*n = strtoull(argv[2], NULL, 0);
	*seed = 1;
	int a = 3;
	while (a < argc - 1 && argv[a][0] == '-' && argv[a][1]) { /* (OUT may be "-") */
		const char *o = argv[a++];
		const struct gen_opt *g = opts;
		while (g && g->name && strcmp(g->name, o))
			g++;
		if (!strcmp(o, "--seed") && a < argc - 1)
			*seed = strtoull(argv[a++], NULL, 0);
		else if (g && g->name && (!g->has_value || a < argc - 1))
			*g->value = g->has_value ? strtoull(argv[a++], NULL, 0) : 1;
		else
			a = argc; /* unknown: usage */
	}
	if (a != argc - 1 || !strncmp(argv[a], "--", 2)) { /* (an option without its value is no OUT) */
		fprintf(stderr, "%s\n", usage);
		exit(2);
	}
	*out = argv[a];
	return true;
}

/* ---- main ------------------------------------------------------------------ */

/* A writer's two ways to run: `NAME [FLAGS] OUT < SPEC` and `NAME --generate
 * N [--seed S] [options] OUT`.  Each run returns the exit status. */
struct writer {
	const char *name;
	const char *spec_usage; /* after the name: "OUT < SPEC" */
	const struct gen_opt *spec_flags; /* flags before OUT (no value), or NULL */
	int (*spec)(const char *out);
	const char *gen_usage; /* after the name: "--generate N [--seed S] OUT" */
	const struct gen_opt *gen_opts; /* the writer's own --generate options, or NULL */
	int (*generate)(const char *out, uint64_t n, uint64_t seed);
	/* --generate N --instances K OUT: the path of instance I (a printf
	 * format: %s OUT, then %u I), as that format's files of one service's
	 * instances lie; NULL: the writer has no --instances */
	const char *instance_path;
};

/* mkdir -p of the directory path is in (path is changed, then restored). */
static inline void make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "writer: %s: %s\n", path, strerror(errno));
			exit(1);
		}
		*p = '/';
	}
}

/* K instances of one service over the same period: each its share of the
 * N units, seeded S, S+1, ... (a generated trace starts at the same time
 * whatever its seed), at w->instance_path. */
static inline int write_instances(const struct writer *w, const char *out, uint64_t n, uint64_t seed, uint64_t k)
{
	char path[4096];
	const char *fmt = w->instance_path ? w->instance_path : "%s-%u";
	for (uint64_t i = 0; i < k; i++) {
		snprintf(path, sizeof path, fmt, out, (unsigned)i);
		make_dirs(path);
		int rc = w->generate(path, n / k + (i < n % k), seed + i);
		if (rc)
			return rc;
	}
	return 0;
}

static inline bool writer_flag(const struct gen_opt *flags, const char *arg)
{
	for (const struct gen_opt *f = flags; f && f->name; f++)
		if (!f->has_value && !strcmp(f->name, arg)) {
			*f->value = 1;
			return true;
		}
	return false;
}

static inline int writer_main(int argc, char **argv, const struct writer *w)
{
	char usage[256];
	uint64_t n, seed;
	const char *out;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { /* (never a file of that name) */
			printf("usage: %s %s\n       %s %s\n"
			       "Writes a trace for ttv's tests: from a spec on standard input (t/%s.c says its\n"
			       "lines), or generated (N units, seeded); OUT - is standard output.\n%s",
			       w->name, w->spec_usage, w->name, w->gen_usage, w->name,
			       w->instance_path ? "--generate N --instances K OUT: K instances of one service over the same\n"
						  "period (seeds S, S+1, ...), N units in all, as files under OUT.\n"
						: "");
			return 0;
		}
	snprintf(usage, sizeof usage, "usage: %s %s%s", w->name, w->gen_usage,
		 w->instance_path ? "\n       (--instances K: K files over the same period, under OUT)" : "");
	uint64_t instances = 0;
	struct gen_opt opts[16] = {{"--instances", true, &instances}};
	for (size_t i = 0; w->instance_path && w->gen_opts && w->gen_opts[i].name && i + 2 < 16; i++)
		opts[i + 1] = w->gen_opts[i];
	if (gen_args(argc, argv, usage, w->instance_path ? opts : w->gen_opts, &n, &seed, &out))
		return instances > 1 ? write_instances(w, out, n, seed, instances) : w->generate(out, n, seed);
	int a = 1;
	while (a < argc - 1 && writer_flag(w->spec_flags, argv[a]))
		a++;
	if (a != argc - 1 || (argv[a][0] == '-' && argv[a][1])) { /* (an option it does not know: no file) */
		fprintf(stderr, "usage: %s %s\n       %s %s\n", w->name, w->spec_usage, w->name, w->gen_usage);
		return 2;
	}
	return w->spec(argv[a]);
}

#endif
