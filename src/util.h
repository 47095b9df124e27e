/* Small utilities shared by every part of ttv: allocation that cannot
 * return NULL, a growable byte buffer, little/big-endian loads, and the
 * formatting of times and durations. */
#ifndef TTV_UTIL_H
#define TTV_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PRINTF_LIKE(f, a)
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

/* Time arithmetic that cannot overflow: a timestamp is whatever a file says
 * (a u64 beyond INT64_MAX reads as negative), so differences and ends of
 * hostile times saturate instead. */
static inline int64_t sat_i64(__int128 v) { return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v; }
static inline int64_t ts_sub(int64_t a, int64_t b) { return sat_i64((__int128)a - b); }
static inline int64_t ts_add(int64_t t, uint64_t d) { return sat_i64((__int128)t + d); }
/* hi - lo for lo <= hi (0 otherwise), exact over the whole int64 range. */
static inline uint64_t ts_span(int64_t lo, int64_t hi) { return hi > lo ? (uint64_t)hi - (uint64_t)lo : 0; }

/* A file in dir that has no name (O_TMPFILE, or made as PREFIX-XXXXXX and
 * unlinked at once): no other process sees it, and it is gone when ttv
 * ends, however it ends.  -1 when dir has no room for one. */
int nameless_file(const char *dir, const char *prefix);
/* ttv's cache directory, $XDG_CACHE_HOME/ttv (else ~/.cache/ttv), made when
 * missing (mode 0700), into *dir; false when neither is set. */
struct buf;
bool cache_dir(struct buf *dir);

/* Allocation: out of memory is fatal (message, exit 1). */
void oom(size_t n);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grow *p (an array of `size`-byte items with capacity *cap) to hold `need`. */
void xgrow(void *pp, size_t *cap, size_t need, size_t size);
/* v[0..n) sorted, each value once: returns how many are left. */
size_t sort_distinct_u32(uint32_t *v, size_t n);
/* A set of ids (the lanes a look is for): sorted, each once, and a bit
 * per id from the least to the greatest, to ask about one in a step. */
struct idset {
	uint32_t *v;
	size_t n;
	uint64_t *bits;
};
void idset_make(struct idset *s, const uint32_t *ids, size_t n);
void idset_free(struct idset *s);
static inline bool idset_has(const struct idset *s, uint32_t id)
{
	if (!s->n || id < s->v[0] || id > s->v[s->n - 1])
		return false;
	uint32_t x = id - s->v[0];
	return s->bits[x / 64] >> (x % 64) & 1;
}

/* Growable byte buffer, always NUL-terminated when p != NULL. */
struct buf {
	char *p;
	size_t len, cap;
};
/* Room for n more bytes and the NUL (out of line: the rare case). */
void buf_room(struct buf *b, size_t n);
/* Inline: a full-text filter writes every field of every event, a few
 * bytes at a time. */
static inline void buf_add(struct buf *b, const void *s, size_t n)
{
	size_t len = b->len; /* (read once: a char store may alias it) */
	if (UNLIKELY(len + n + 1 > b->cap))
		buf_room(b, n);
	char *p = b->p;
	if (n)
		memcpy(p + len, s, n);
	p[len + n] = 0;
	b->len = len + n;
}
static inline void buf_addc(struct buf *b, char c)
{
	size_t len = b->len;
	if (UNLIKELY(len + 2 > b->cap))
		buf_room(b, 1);
	char *p = b->p;
	p[len] = c;
	p[len + 1] = 0;
	b->len = len + 1;
}
static inline void buf_adds(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }
/* Where up to n more bytes go (room made); buf_grew(b, k) then keeps the
 * k written: text made in place, no copy. */
static inline char *buf_space(struct buf *b, size_t n)
{
	if (UNLIKELY(b->len + n + 1 > b->cap))
		buf_room(b, n);
	return b->p + b->len;
}
static inline void buf_grew(struct buf *b, size_t k)
{
	size_t len = b->len + k;
	b->p[len] = 0;
	b->len = len;
}
void buf_printf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
static inline const char *buf_str(const struct buf *b) { return b->p ? b->p : ""; }

/* Unaligned loads in a given byte order. */
static inline uint16_t ld16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t ld32le(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}
static inline uint64_t ld64le(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}
static inline uint16_t ld16be(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t ld32be(const uint8_t *p) { return __builtin_bswap32(ld32le(p)); }
static inline uint64_t ld64be(const uint8_t *p) { return __builtin_bswap64(ld64le(p)); }
static inline uint16_t ld16(const uint8_t *p, bool be) { return be ? ld16be(p) : ld16le(p); }
static inline uint32_t ld32(const uint8_t *p, bool be) { return be ? ld32be(p) : ld32le(p); }
static inline uint64_t ld64(const uint8_t *p, bool be) { return be ? ld64be(p) : ld64le(p); }

/* Fast number formatting (no printf): decimal, and v / 10^digits with
 * `digits` decimals rounded half up ("35.74" for 3574 with 2). */
void buf_u64(struct buf *b, uint64_t v);
/* v as exactly `width` digits at out, zeros before (the lowest digits of a
 * larger one). */
void put_digits(char *out, uint64_t v, unsigned width);
void buf_u64_right(struct buf *b, uint64_t v, unsigned width); /* ("%*llu") */
void buf_i64(struct buf *b, int64_t v);
/* 0x followed by lower-case hex digits. */
void buf_hex64(struct buf *b, uint64_t v);
void buf_fixed(struct buf *b, uint64_t v, unsigned scale, unsigned decimals);

/* Formatting.  Durations pick ns/us/ms/s so that a person can read them:
 * "850ns", "12.50us", "35.74ms", "2.500s". */
void fmt_dur(struct buf *b, uint64_t ns);
/* The same, right-aligned in a column `width` cells wide (tables). */
void fmt_dur_cell(struct buf *b, uint64_t ns, int width);
/* t - base in seconds, nine decimals and a sign: "+1.234567890"; exact. */
void fmt_reltime(struct buf *b, int64_t t, int64_t base);
/* A count with thin separators: "1 234 567". */
void fmt_count(struct buf *b, uint64_t n);
/* How times are shown: relative to the first event, on the trace's own
 * clock (@seconds.ns), or as wall-clock time where the trace anchors it. */
enum time_mode { TIME_RELATIVE, TIME_TRACE, TIME_WALL };
/* "relative", "trace" ("absolute" too) or "wall"; false for anything else. */
bool time_mode_parse(const char *s, enum time_mode *m);
/* A time on the trace's clock: @93417.364902017 */
void fmt_abstime(struct buf *b, int64_t ts);
/* Wall-clock ns since 1970 as local time, 2026-06-22 16:36:15.256522678
 * (without the date: the time of day alone). */
void fmt_wallclock(struct buf *b, int64_t wall_ns, bool date);
/* Bytes with a binary unit: "678.58 KB". */
void fmt_bytes(struct buf *b, uint64_t n);
/* Shortest decimal text that reads back as the same double / float, in
 * JavaScript's notation: "2000", "0.125", "-0", "3.4028235e38", "5e-324". */
void fmt_double(struct buf *b, double v);
void fmt_float(struct buf *b, float v);

/* Monotonic clock in nanoseconds (for progress and benchmarks, never trace time). */
uint64_t now_ns(void);

/* Name of a Linux errno value (positive), or NULL when unknown. */
const char *errno_name(int e);

/* 64-bit hash of a byte string (fast, good enough for hash tables). */
uint64_t hash_bytes(const void *p, size_t n);
/* The same kind of hash for megabytes (the saved index's tables): four
 * lanes at once, about four times as fast; not equal to hash_bytes. */
uint64_t hash_big(const void *p, size_t n);

/* Run just before the process ends on a fatal error (out of memory, a file
 * cut short under a reader on another thread), so that the viewer puts the
 * terminal back.  Async-signal-safe: it may run in a signal handler. */
extern void (*fatal_cleanup)(void);

/* Program name used in messages. */
extern const char *progname;
/* now_ns() when main() started (for the bench's time to first screen) */
extern uint64_t start_ns;

#endif
