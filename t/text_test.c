/* Values as text (src/util.c, src/fields.c): numbers, durations and sizes as
 * every sink writes them, and field names on one line: a literal name of
 * ours is copied as it is, any other name is escaped. */
#include <stdint.h>
#include <stdio.h>

#include "src/fields.h"
#include "t/tap.h"

static struct buf out;

/* What fn writes of v, alone. */
static const char *text(void (*fn)(struct buf *, uint64_t), uint64_t v)
{
	buf_reset(&out);
	fn(&out, v);
	return buf_str(&out);
}

/* One field through the line sink, after some text already there. */
static const char *line(const struct field *f)
{
	buf_reset(&out);
	buf_adds(&out, "x");
	struct line_sink l;
	line_sink_init(&l, &out);
	l.need_space = true;
	f_put(&l.s, f);
	return buf_str(&out);
}

static const struct {
	void (*fn)(struct buf *, uint64_t);
	uint64_t v;
	const char *want, *what;
} cases[] = {
	{buf_u64, 0, "0", "0"},
	{buf_u64, 9, "9", "one digit"},
	{buf_u64, 10, "10", "two digits"},
	{buf_u64, 100, "100", "three digits"},
	{buf_u64, 1000001439537, "1000001439537", "thirteen digits"},
	{buf_u64, 99999999, "99999999", "eight digits"},
	{buf_u64, 100000000, "100000000", "nine digits"},
	{buf_u64, 1000000000000000007ull, "1000000000000000007", "zeros inside"},
	{buf_u64, UINT64_MAX, "18446744073709551615", "the largest"},
	{buf_hex64, 0, "0x0", "hex 0"},
	{buf_hex64, 0xe7fdf68e3094d1ce, "0xe7fdf68e3094d1ce", "hex, sixteen digits"},
	{buf_hex64, UINT64_MAX, "0xffffffffffffffff", "hex, the largest"},
	{fmt_dur, 999, "999ns", "below a microsecond"},
	{fmt_dur, 1000, "1.00us", "a microsecond"},
	{fmt_dur, 999994, "999.99us", "just below where ms begin"},
	{fmt_dur, 999995, "1.00ms", "rounded up into ms"},
	{fmt_dur, 47902232, "47.90ms", "ms"},
	{fmt_dur, 999995000, "1.000s", "rounded up into s"},
	{fmt_dur, 1000001439537, "1000.001s", "seconds, three decimals"},
	{fmt_dur, UINT64_MAX, "18446744073.710s", "the largest"},
	{fmt_bytes, 1023, "1023 B", "bytes"},
	{fmt_bytes, 88745, "86.67 KB", "KB, two decimals"},
	{fmt_bytes, 1048576, "1.00 MB", "MB"},
};

int main(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		is_str(text(cases[i].fn, cases[i].v), cases[i].want, cases[i].what);
	bool each = true;
	for (uint64_t v = 1, k = 0; k < 20; k++, v *= 10) { /* every power of ten and its neighbours */
		char want[32];
		for (int d = -1; d <= 1; d++) {
			snprintf(want, sizeof want, "%llu", (unsigned long long)(v + (uint64_t)d));
			each &= !strcmp(text(buf_u64, v + (uint64_t)d), want);
		}
	}
	ok(each, "every power of ten and either side, as printf writes them");
	buf_reset(&out);
	buf_adds(&out, "a=");
	buf_u64(&out, 12345);
	buf_adds(&out, " b");
	is_str(buf_str(&out), "a=12345 b", "a number between other text");

	struct field lit = {F_NAME("latency_ns"), .kind = FK_UINT, .v.u = 7};
	ok(lit.name_len == 10, "a literal name's length is known");
	is_str(line(&lit), "x latency_ns=7", "a literal name is written as it is");
	struct field none = {F_NAME(NULL), .kind = FK_UINT};
	ok(none.name_len == 0, "no name: no length");
	char made[8] = "a";
	made[1] = 0x1b, made[2] = 'b', made[3] = 0;
	struct field trace_named = {F_NAME(made), .kind = FK_STR, .v.s = {"v", 1}};
	ok(trace_named.name_len == 0, "a name made at run time has no known length");
	is_str(line(&trace_named), "x a\\x1bb=\"v\"", "and is escaped");
	buf_free(&out);
	return done_testing();
}
