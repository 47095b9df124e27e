#include "src/util.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *progname = "ttv";
uint64_t start_ns;
void (*fatal_cleanup)(void);

void oom(size_t n)
{
	if (fatal_cleanup)
		fatal_cleanup();
	fprintf(stderr, "%s: out of memory (asked for %zu bytes)\n", progname, n);
	exit(1);
}

int nameless_file(const char *dir, const char *prefix)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	struct buf b = {0}; /* a filesystem without O_TMPFILE */
	buf_printf(&b, "%s/%s-XXXXXX", dir, prefix);
	fd = mkostemp(b.p, O_CLOEXEC);
	if (fd >= 0)
		unlink(b.p);
	buf_free(&b);
	return fd;
}

bool cache_dir(struct buf *dir)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	buf_reset(dir);
	if (xdg && *xdg == '/')
		buf_printf(dir, "%s", xdg);
	else if (home && *home == '/')
		buf_printf(dir, "%s/.cache", home);
	else
		return false;
	mkdir(dir->p, 0700);
	buf_adds(dir, "/ttv");
	mkdir(dir->p, 0700);
	return true;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	if (n) /* s may be NULL when n is 0 */
		memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void xgrow(void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = pp;
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c += c / 2 + 16;
	if (c > SIZE_MAX / size)
		oom(SIZE_MAX);
	*p = xrealloc(*p, c * size);
	*cap = c;
}

void buf_room(struct buf *b, size_t n) { xgrow(&b->p, &b->cap, b->len + n + 1, 1); }

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		buf_add(b, tmp, (size_t)n);
		return;
	}
	xgrow(&b->p, &b->cap, b->len + (size_t)n + 1, 1);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void buf_u64_right(struct buf *b, uint64_t v, unsigned width)
{
	unsigned n = 1;
	for (uint64_t x = v; x >= 10; x /= 10)
		n++;
	while (n < width--)
		buf_addc(b, ' ');
	buf_u64(b, v);
}

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
			    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
			    "8081828384858687888990919293949596979899";

void put_digits(char *out, uint64_t v, unsigned width)
{
	for (; width >= 2; width -= 2, v /= 100) /* two digits a division */
		memcpy(out + width - 2, pairs + 2 * (v % 100), 2);
	if (width)
		out[0] = (char)('0' + v % 10);
}

void buf_u64(struct buf *b, uint64_t v)
{
	char d[40]; /* the digits end at d + 20; 20 bytes from the first are copied */
	size_t i = 20;
	for (; v >= 100; v /= 100) /* two digits a division */
		memcpy(d + (i -= 2), pairs + 2 * (v % 100), 2);
	if (v >= 10)
		memcpy(d + (i -= 2), pairs + 2 * v, 2);
	else
		d[--i] = (char)('0' + v);
	memcpy(buf_space(b, 20), d + i, 20); /* (a copy of known size: a few moves) */
	buf_grew(b, 20 - i);
}

void buf_i64(struct buf *b, int64_t v)
{
	if (v < 0)
		buf_addc(b, '-');
	buf_u64(b, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

void buf_hex64(struct buf *b, uint64_t v)
{
	char t[36]; /* as buf_u64's: the text ends at t + 18 */
	size_t i = 18;
	do
		t[--i] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	t[--i] = 'x';
	t[--i] = '0';
	memcpy(buf_space(b, 18), t + i, 18);
	buf_grew(b, 18 - i);
}

/* v / 10^scale shown with `decimals` (<= scale) decimals, rounded half up.
 * (Inlined where scale and decimals are constants: divisions by constants.) */
static inline __attribute__((always_inline)) void fixed(struct buf *b, uint64_t v, unsigned scale, unsigned decimals)
{
	uint64_t drop = 1, keep = 1;
	for (unsigned i = decimals; i < scale; i++)
		drop *= 10;
	for (unsigned i = 0; i < decimals; i++)
		keep *= 10;
	uint64_t r = v / drop + (v % drop >= (drop + 1) / 2 && drop > 1);
	buf_u64(b, r / keep);
	if (!decimals)
		return;
	buf_addc(b, '.');
	put_digits(buf_space(b, decimals), r % keep, decimals);
	buf_grew(b, decimals);
}

void buf_fixed(struct buf *b, uint64_t v, unsigned scale, unsigned decimals) { fixed(b, v, scale, decimals); }

void fmt_dur(struct buf *b, uint64_t ns)
{
	if (ns < 1000) {
		buf_u64(b, ns);
		buf_add(b, "ns", 2);
	} else if (ns < 999995) {
		fixed(b, ns, 3, 2);
		buf_add(b, "us", 2);
	} else if (ns < 999995000) {
		fixed(b, ns, 6, 2);
		buf_add(b, "ms", 2);
	} else {
		fixed(b, ns, 9, 3);
		buf_addc(b, 's');
	}
}

void fmt_dur_cell(struct buf *b, uint64_t ns, int width)
{
	struct buf t = {0};
	fmt_dur(&t, ns);
	buf_printf(b, "%*s", width, buf_str(&t));
	buf_free(&t);
}

void fmt_reltime(struct buf *b, int64_t t, int64_t base)
{
	bool neg = t < base; /* exact over the whole range: times are whatever a file says */
	buf_addc(b, neg ? '-' : '+');
	buf_fixed(b, neg ? ts_span(t, base) : ts_span(base, t), 9, 9);
}

bool time_mode_parse(const char *s, enum time_mode *m)
{
	if (!strcmp(s, "relative"))
		*m = TIME_RELATIVE;
	else if (!strcmp(s, "trace") || !strcmp(s, "absolute"))
		*m = TIME_TRACE;
	else if (!strcmp(s, "wall"))
		*m = TIME_WALL;
	else
		return false;
	return true;
}

void fmt_abstime(struct buf *b, int64_t ts)
{
	uint64_t v = ts < 0 ? -(uint64_t)ts : (uint64_t)ts;
	buf_printf(b, "@%s%llu.%09llu", ts < 0 ? "-" : "", (unsigned long long)(v / 1000000000u),
		   (unsigned long long)(v % 1000000000u));
}

void fmt_wallclock(struct buf *b, int64_t wall_ns, bool date)
{
	int64_t ns = wall_ns % 1000000000;
	time_t s = (time_t)(wall_ns / 1000000000 - (ns < 0));
	ns += ns < 0 ? 1000000000 : 0;
	struct tm tm;
	char text[64];
	if (!localtime_r(&s, &tm) || !strftime(text, sizeof text, date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm)) {
		fmt_abstime(b, wall_ns); /* beyond what the C library can show */
		return;
	}
	buf_printf(b, "%s.%09lld", text, (long long)ns);
}

void fmt_count(struct buf *b, uint64_t n)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%llu", (unsigned long long)n);
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf_addc(b, ' ');
		buf_addc(b, d[i]);
	}
}

void fmt_bytes(struct buf *b, uint64_t n)
{
	static const char *unit[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
	unsigned u = 0;
	uint64_t whole = n;
	while (whole >= 1024 && u + 1 < ARRAY_LEN(unit)) {
		whole /= 1024;
		u++;
	}
	if (u == 0) {
		buf_u64(b, n);
		buf_adds(b, " B");
		return;
	}
	/* n / 1024^u with two decimals, in integers: (n * 100) / 1024^u, rounded */
	__uint128_t scaled = ((__uint128_t)n * 100 + ((__uint128_t)1 << (10 * u)) / 2) >> (10 * u);
	fixed(b, (uint64_t)scaled, 2, 2);
	buf_addc(b, ' ');
	buf_adds(b, unit[u]);
}

/* Shortest round-trip digits of v (prec: 17 for a double, 9 for a float),
 * written as JavaScript writes numbers: plain decimals for 1e-6 <= |v| <
 * 1e21 ("2000", "0.001", "-0"), otherwise "d.ddde38" / "5e-324" (no '+', no
 * leading zeros in the exponent). */
static void fmt_shortest(struct buf *b, double v, bool single)
{
	if (isnan(v)) {
		buf_adds(b, "nan");
		return;
	}
	if (isinf(v)) {
		buf_adds(b, v < 0 ? "-inf" : "inf");
		return;
	}
	char s[48];
	int max = single ? 9 : 17;
	for (int prec = 1; prec <= max; prec++) {
		snprintf(s, sizeof s, "%.*e", prec - 1, v);
		if (single ? strtof(s, NULL) == (float)v : strtod(s, NULL) == v)
			break;
	}
	/* s is [-]d[.ddd]e(+|-)NN: split into sign, digits and exponent */
	const char *p = s;
	if (*p == '-') {
		buf_addc(b, '-');
		p++;
	}
	char dig[24];
	int nd = 0;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			dig[nd++] = *p;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	int e = atoi(p + 1);
	if (e >= -6 && e < 21) {
		if (e < 0) {
			buf_adds(b, "0.");
			for (int i = 0; i < -e - 1; i++)
				buf_addc(b, '0');
			buf_add(b, dig, (size_t)nd);
		} else if (e + 1 >= nd) {
			buf_add(b, dig, (size_t)nd);
			for (int i = nd; i <= e; i++)
				buf_addc(b, '0');
		} else {
			buf_add(b, dig, (size_t)e + 1);
			buf_addc(b, '.');
			buf_add(b, dig + e + 1, (size_t)(nd - e - 1));
		}
		return;
	}
	buf_addc(b, dig[0]);
	if (nd > 1) {
		buf_addc(b, '.');
		buf_add(b, dig + 1, (size_t)nd - 1);
	}
	buf_printf(b, "e%d", e);
}

void fmt_double(struct buf *b, double v) { fmt_shortest(b, v, false); }
void fmt_float(struct buf *b, float v) { fmt_shortest(b, v, true); }

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A multiply-mix hash over 8-byte words (in the spirit of wyhash). */
static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t hash_bytes(const void *data, size_t n)
{
	const uint8_t *p = data;
	const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
	uint64_t h = k0 ^ n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = mix(h ^ w, k1);
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, p, n);
		h = mix(h ^ w, k1 ^ n);
	}
	return mix(h, k0);
}

uint64_t hash_big(const void *data, size_t n)
{
	const uint8_t *p = data;
	const uint64_t k1 = 0xe7037ed1a0b428dbull;
	uint64_t h[4] = {n, 0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull, 0x1d8e4e27c47d124full};
	for (; n >= 32; p += 32, n -= 32)
		for (int j = 0; j < 4; j++) { /* (four chains: their multiplies overlap) */
			uint64_t w;
			memcpy(&w, p + 8 * j, 8);
			h[j] = mix(h[j] ^ w, k1);
		}
	return hash_bytes(p, n) ^ mix(h[0] ^ mix(h[1], k1), h[2] ^ mix(h[3], k1) ^ k1);
}

static int by_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

size_t sort_distinct_u32(uint32_t *v, size_t n)
{
	qsort(v, n, sizeof *v, by_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

void idset_make(struct idset *s, const uint32_t *ids, size_t n)
{
	s->v = xmalloc((n + 1) * sizeof *s->v);
	memcpy(s->v, ids, n * sizeof *ids);
	s->n = sort_distinct_u32(s->v, n);
	s->bits = xcalloc(s->n ? (s->v[s->n - 1] - s->v[0]) / 64 + 1 : 1, sizeof *s->bits);
	for (size_t i = 0; i < s->n; i++) {
		uint32_t x = s->v[i] - s->v[0];
		s->bits[x / 64] |= 1ull << (x % 64);
	}
}

void idset_free(struct idset *s)
{
	free(s->v);
	free(s->bits);
	*s = (struct idset){0};
}
