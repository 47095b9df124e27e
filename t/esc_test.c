/* The sanitizer: nothing from a trace may drive the terminal, and JSON must
 * stay valid UTF-8 without raw controls. */
#include "src/esc.h"
#include "t/tap.h"

static const char *term(const char *s, size_t n)
{
	static struct buf b;
	buf_reset(&b);
	esc_term(&b, s, n);
	return buf_str(&b);
}

static const char *json(const char *s, size_t n)
{
	static struct buf b;
	buf_reset(&b);
	esc_json(&b, s, n);
	return buf_str(&b);
}

static int no_raw_controls(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

int main(void)
{
	is_str(term("plain text", 10), "plain text", "printable ASCII passes");
	is_str(term("a\\b", 3), "a\\\\b", "backslash doubles");
	is_str(term("\x1b[31mred", 8), "\\x1b[31mred", "ESC becomes \\x1b");
	is_str(term("l1\nl2\tx\r", 8), "l1\\nl2\\tx\\r", "newline, tab, CR as escapes");
	is_str(term("a\0b", 3), "a\\x00b", "NUL is visible");
	is_str(term("\x7f", 1), "\\x7f", "DEL");
	is_str(term("\xc2\x9b", 2), "\\u009b", "C1 CSI (U+009B) is escaped");
	is_str(term("\xe2\x80\xae", 3), "\\u202e", "bidi override RLO is escaped");
	is_str(term("\xe2\x81\xa6", 3), "\\u2066", "bidi isolate LRI is escaped");
	is_str(term("\xe2\x80\xa8", 3), "\\u2028", "line separator is escaped");
	is_str(term("\xe2\x80\x8b", 3), "\\u200b", "zero width space is escaped");
	is_str(term("\xef\xbb\xbf", 3), "\\ufeff", "BOM is escaped");
	const char *text = "caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97 \xe2\x9c\x93";
	is_str(term(text, strlen(text)), text, "valid UTF-8 text passes");
	is_str(term("\xff\xfe", 2), "\\xff\\xfe", "invalid bytes as \\xNN");
	is_str(term("\xc0\xaf", 2), "\\xc0\\xaf", "overlong encoding is invalid");
	is_str(term("\xed\xa0\x80", 3), "\\xed\\xa0\\x80", "UTF-16 surrogate is invalid");
	is_str(term("\xe2\x82", 2), "\\xe2\\x82", "truncated sequence is invalid");
	is_str(term("\xf4\x90\x80\x80", 4), "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF is invalid");

	struct buf q = {0};
	esc_quoted(&q, "say \"hi\"\n", 9);
	is_str(buf_str(&q), "\"say \\\"hi\\\"\\n\"", "quoted form escapes quotes");
	buf_reset(&q);
	esc_typed(&q, "took \\d{3}\\. \"x\"\x1b[31m\xe2\x80\xae", 24);
	is_str(buf_str(&q), "took \\d{3}\\. \"x\"\\x1b[31m\\u202e", "typed text: a backslash shows as typed, controls are escaped");
	buf_free(&q);

	is_str(json("a\"b\\c", 5), "\"a\\\"b\\\\c\"", "JSON escapes quote and backslash");
	is_str(json("\x1b[0m\n", 5), "\"\\u001b[0m\\n\"", "JSON: controls as \\u00XX");
	is_str(json("\xe2\x80\xae", 3), "\"\\u202e\"", "JSON: bidi override as \\u202e");
	is_str(json("\xff", 1), "\"\\\\xff\"", "JSON: invalid byte as visible text \\xff");
	is_str(json("\xc2\x85", 2), "\"\\u0085\"", "JSON: C1 NEL escaped");
	is_str(json("\xf3\xa0\x80\x81", 4), "\"\\udb40\\udc01\"", "JSON: tag characters escaped as surrogate pair");
	const char hostile[] = "\x1b]0;pwned\x07\x9b\x1b[2J\xc2\x9b\xe2\x80\xae\xf0\x9f\x98\x80";
	ok(no_raw_controls(term(hostile, sizeof hostile - 1)), "hostile string: no raw control byte in terminal form");
	ok(no_raw_controls(json(hostile, sizeof hostile - 1)), "hostile string: no raw control byte in JSON form");

	/* Long runs go a word at a time: every byte at every place of a word
	 * is escaped as it is alone. */
	int same = 1;
	for (int quoted = 0; quoted < 2; quoted++)
		for (int c = 0; c < 256; c++)
			for (int at = 0; at < 16; at++) {
				char s[16], want[64];
				memset(s, 'a', sizeof s);
				s[at] = (char)c;
				struct buf one = {0}, all = {0};
				(quoted ? esc_quoted : esc_term)(&one, s + at, 1);
				(quoted ? esc_quoted : esc_term)(&all, s, sizeof s);
				const char *body = one.p + quoted; /* without the quotes */
				snprintf(want, sizeof want, "%s%.*s%.*s%.*s%s", quoted ? "\"" : "", at, "aaaaaaaaaaaaaaaa",
					 (int)(one.len - 2 * quoted), body, 15 - at, "aaaaaaaaaaaaaaaa", quoted ? "\"" : "");
				same &= !strcmp(all.p, want);
				buf_free(&one), buf_free(&all);
			}
	ok(same, "every byte at every place in a 16-byte run escapes as it does alone");

	uint32_t cp;
	is_int((long long)utf8_decode((const uint8_t *)"\xf0\x9f\x98\x80", 4, &cp), 4, "4-byte sequence decodes");
	is_int(cp, 0x1f600, "to U+1F600");
	return done_testing();
}
