/* Readable function names (demangle.h). */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "src/demangle.h"

#define NAME_MAX_BYTES 4096 /* longer names are kept as they are */

/* A legacy Rust symbol: _ZN ... 17h<16 hex digits>E. */
static bool rust_legacy(const char *s, size_t n)
{
	if (n < 3 + 20 || strncmp(s, "_ZN", 3) || s[n - 1] != 'E' || strncmp(s + n - 21, "17h", 3))
		return false;
	for (size_t i = n - 18; i < n - 1; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

static bool via_libiberty(const char *s, int options, struct buf *out)
{
	char *d = cplus_demangle(s, options);
	if (!d)
		return false;
	buf_adds(out, d);
	free(d);
	return true;
}

/* <decimal length><identifier> at *p; false when there is none. */
static bool ident(const char **p, const char *end, const char **id, size_t *len)
{
	size_t n = 0;
	const char *q = *p;
	if (q >= end || *q < '1' || *q > '9')
		return false;
	while (q < end && *q >= '0' && *q <= '9' && n < NAME_MAX_BYTES)
		n = n * 10 + (size_t)(*q++ - '0');
	if (n > (size_t)(end - q))
		return false;
	*id = q;
	*len = n;
	*p = q + n;
	return true;
}

/* Swift: $s <module> (<type> C|V|O|P)* <name> <labels>* <signature> F,
 * e.g. $s8DemoShop13CartViewModelC9addToCart4itemyAA4ItemV_tF ->
 * DemoShop.CartViewModel.addToCart(item:).  Other forms (substitutions,
 * generics, accessors) stay raw. */
static bool swift(const char *s, size_t n, struct buf *out)
{
	const char *p = s, *end = s + n, *id;
	size_t len;
	if (n > 1 && *p == '_')
		p++;
	if (end - p < 3 || p[0] != '$' || (p[1] != 's' && p[1] != 'S'))
		return false;
	p += 2;
	struct buf b = {0};
	if (!ident(&p, end, &id, &len)) /* the module */
		return false;
	buf_add(&b, id, len);
	bool ok = false;
	while (ident(&p, end, &id, &len)) {
		buf_addc(&b, '.');
		buf_add(&b, id, len);
		if (p < end && strchr("CVOP", *p)) { /* a type: its members follow */
			p++;
			continue;
		}
		/* a member: a function when the symbol ends in F, its labels first */
		if (end[-1] == 'F') {
			buf_addc(&b, '(');
			while (ident(&p, end, &id, &len)) {
				buf_add(&b, id, len);
				buf_addc(&b, ':');
			}
			buf_addc(&b, ')');
		}
		ok = true;
		break;
	}
	if (ok)
		buf_add(out, b.p, b.len);
	buf_free(&b);
	return ok;
}

bool demangle(const char *s, size_t n, struct buf *out)
{
	if (n < 3 || n > NAME_MAX_BYTES || memchr(s, 0, n))
		return false;
	if (s[0] == '$' || (s[0] == '_' && s[1] == '$'))
		return swift(s, n, out);
	if (s[0] != '_' || (s[1] != 'Z' && s[1] != 'R'))
		return false;
	char *z = xmalloc(n + 1); /* libiberty wants a C string */
	memcpy(z, s, n);
	z[n] = 0;
	bool ok = s[1] == 'R' || rust_legacy(s, n) ? via_libiberty(z, DMGL_RUST | DMGL_PARAMS | DMGL_ANSI, out)
						   : via_libiberty(z, DMGL_PARAMS | DMGL_ANSI, out);
	free(z);
	return ok;
}
