#include "src/esc.h"

#include <wchar.h>

static const char hexd[] = "0123456789abcdef";

size_t utf8_decode(const uint8_t *s, size_t n, uint32_t *cp)
{
	uint8_t c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

bool cp_is_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0xad ||
	       cp == 0x61c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
	       cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

static void add_hex_byte(struct buf *b, uint8_t c)
{
	char e[4] = {'\\', 'x', hexd[c >> 4], hexd[c & 15]};
	buf_add(b, e, 4);
}

static void add_u(struct buf *b, uint32_t cp)
{
	buf_printf(b, cp > 0xffff ? "\\U%08x" : "\\u%04x", cp);
}

/* Bytes that pass as they are: printable ASCII but the backslash (bit 0),
 * and but the double quote too (bit 1, for quoted strings). */
static const uint8_t plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	3, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* Are the 8 bytes at s all plain (as in `plain`, with the quote when
 * `quoted`)?  Bit tricks on a word: a byte below 0x20, above 0x7e, or equal
 * to the backslash (or quote) sets its high bit in `bad`. */
static inline bool word_plain(const uint8_t *s, bool quoted)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t x;
	memcpy(&x, s, 8);
	uint64_t bs = x ^ (ones * '\\'), qt = x ^ (ones * '"');
	uint64_t bad = ((x - ones * 0x20) & ~x) /* below 0x20 */
		       | ((x + ones) | x)       /* above 0x7e */
		       | ((bs - ones) & ~bs);   /* a backslash */
	if (quoted)
		bad |= (qt - ones) & ~qt;
	return !(bad & highs);
}

/* Shared walk: `quote` is 0 (none), '"' (escape it) or '\\' (typed text:
 * a backslash passes as itself). */
static void esc_walk(struct buf *b, const uint8_t *s, size_t n, char quote)
{
	const uint8_t mask = quote == '"' ? 2 : 1;
	size_t i = 0;
	while (i < n) {
		/* Fast path over a run of plain printable ASCII, a word at a
		 * time, copied as it is checked. */
		char *out = buf_space(b, n - i);
		size_t j = i;
		while (j + 8 <= n && word_plain(s + j, quote == '"')) {
			memcpy(out + (j - i), s + j, 8);
			j += 8;
		}
		while (j < n && (plain[s[j]] & mask)) {
			out[j - i] = (char)s[j];
			j++;
		}
		buf_grew(b, j - i);
		i = j;
		if (i >= n)
			break;
		uint8_t c = s[i];
		uint32_t cp;
		size_t len;
		if (c == '\\' && quote == '\\') {
			buf_addc(b, '\\'), i++;
		} else if (c == '\\' || (quote && c == (uint8_t)quote)) {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
			i++;
		} else if (c == '\n') {
			buf_add(b, "\\n", 2), i++;
		} else if (c == '\r') {
			buf_add(b, "\\r", 2), i++;
		} else if (c == '\t') {
			buf_add(b, "\\t", 2), i++;
		} else if (c < 0x80) {
			add_hex_byte(b, c), i++;
		} else if ((len = utf8_decode(s + i, n - i, &cp)) == 0) {
			add_hex_byte(b, c), i++;
		} else if (cp_is_unsafe(cp)) {
			add_u(b, cp), i += len;
		} else {
			buf_add(b, s + i, len), i += len;
		}
	}
}

void esc_term(struct buf *b, const void *s, size_t n) { esc_walk(b, s, n, 0); }

void esc_term_cstr(struct buf *b, const char *s) { esc_walk(b, (const uint8_t *)s, strlen(s), 0); }

void esc_typed(struct buf *b, const void *s, size_t n) { esc_walk(b, s, n, '\\'); }

void esc_quoted(struct buf *b, const void *s, size_t n)
{
	buf_addc(b, '"');
	esc_walk(b, s, n, '"');
	buf_addc(b, '"');
}

void esc_json(struct buf *b, const void *data, size_t n)
{
	const uint8_t *s = data;
	buf_addc(b, '"');
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '\\' && s[j] != '"')
			j++;
		if (j > i)
			buf_add(b, s + i, j - i);
		i = j;
		if (i >= n)
			break;
		uint8_t c = s[i];
		uint32_t cp;
		size_t len;
		if (c == '\\' || c == '"') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
			i++;
		} else if (c == '\n') {
			buf_add(b, "\\n", 2), i++;
		} else if (c == '\t') {
			buf_add(b, "\\t", 2), i++;
		} else if (c == '\r') {
			buf_add(b, "\\r", 2), i++;
		} else if (c < 0x80) {
			buf_printf(b, "\\u%04x", c), i++;
		} else if ((len = utf8_decode(s + i, n - i, &cp)) == 0) {
			/* Not UTF-8: keep the byte visible as text, JSON stays valid. */
			buf_printf(b, "\\\\x%02x", c), i++;
		} else if (cp_is_unsafe(cp)) {
			if (cp > 0xffff) {
				uint32_t v = cp - 0x10000;
				buf_printf(b, "\\u%04x\\u%04x", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
			} else {
				buf_printf(b, "\\u%04x", cp);
			}
			i += len;
		} else {
			buf_add(b, s + i, len), i += len;
		}
	}
	buf_addc(b, '"');
}

size_t esc_fit(const char *s, size_t n, int maxw, int *cells)
{
	size_t i = 0;
	int w = 0;
	while (i < n) {
		uint8_t c = (uint8_t)s[i];
		if (c >= 0x20 && c < 0x7f) {
			if (w + 1 > maxw)
				break;
			w++, i++;
			continue;
		}
		uint32_t cp;
		size_t len = utf8_decode((const uint8_t *)s + i, n - i, &cp);
		int cw = len && !cp_is_unsafe(cp) ? wcwidth((wchar_t)cp) : -1;
		if (cw < 0)
			break; /* not drawable as is: stop rather than guess */
		if (w + cw > maxw)
			break;
		w += cw, i += len;
	}
	*cells = w;
	return i;
}

int esc_width(const char *s, size_t n)
{
	int w;
	esc_fit(s, n, 1 << 30, &w);
	return w;
}
