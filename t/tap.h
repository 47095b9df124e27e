/* A minimal TAP producer for C unit tests run by prove. */
#ifndef TTV_TAP_H
#define TTV_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_vok(int cond, const char *fmt, va_list ap)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
}

static inline int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

static inline int is_int(long long got, long long want, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got: %lld\n#  want: %lld\n", got, want);
	return got == want;
}

static inline int is_str(const char *got, const char *want, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int is_str(const char *got, const char *want, const char *fmt, ...)
{
	int same = got && want && !strcmp(got, want);
	va_list ap;
	va_start(ap, fmt);
	tap_vok(same, fmt, ap);
	va_end(ap);
	if (!same)
		printf("#   got: '%s'\n#  want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return same;
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
