#include "src/json.h"

#include <stdio.h>
#include <stdlib.h>

struct parser {
	struct json *j;
	const uint8_t *p;
	size_t n, at;
};

static bool fail(struct parser *ps, const char *msg)
{
	if (!ps->j->err[0]) {
		snprintf(ps->j->err, sizeof ps->j->err, "%s", msg);
		ps->j->err_off = ps->at;
	}
	return false;
}

static void skip_ws(struct parser *ps)
{
	while (ps->at < ps->n &&
	       (ps->p[ps->at] == ' ' || ps->p[ps->at] == '\t' || ps->p[ps->at] == '\n' || ps->p[ps->at] == '\r'))
		ps->at++;
}

static bool is_hex(uint8_t c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }

/* At an opening quote: find the closing one, checking escapes.  Sets
 * off/len to the text between the quotes. */
static bool scan_string(struct parser *ps, uint32_t *off, uint32_t *len)
{
	size_t start = ++ps->at;
	while (ps->at < ps->n) {
		uint8_t c = ps->p[ps->at];
		if (c == '"') {
			*off = (uint32_t)start;
			*len = (uint32_t)(ps->at - start);
			ps->at++;
			return true;
		}
		if (c != '\\') {
			ps->at++;
			continue;
		}
		if (ps->at + 1 >= ps->n)
			break;
		uint8_t e = ps->p[ps->at + 1];
		if (e == 'u') {
			if (ps->at + 6 > ps->n)
				break;
			for (int k = 2; k < 6; k++)
				if (!is_hex(ps->p[ps->at + k])) {
					ps->at += (size_t)k;
					return fail(ps, "bad \\u escape in a string");
				}
			ps->at += 6;
		} else if (e && strchr("\"\\/bfnrt", e)) {
			ps->at += 2;
		} else {
			return fail(ps, "bad escape in a string");
		}
	}
	return fail(ps, "string not terminated");
}

static bool scan_number(struct parser *ps)
{
	size_t a = ps->at;
	if (a < ps->n && ps->p[a] == '-')
		a++;
	if (a >= ps->n || ps->p[a] < '0' || ps->p[a] > '9') {
		ps->at = a;
		return fail(ps, "bad number");
	}
	if (ps->p[a] == '0')
		a++;
	else
		while (a < ps->n && ps->p[a] >= '0' && ps->p[a] <= '9')
			a++;
	if (a < ps->n && ps->p[a] == '.') {
		a++;
		if (a >= ps->n || ps->p[a] < '0' || ps->p[a] > '9') {
			ps->at = a;
			return fail(ps, "bad number");
		}
		while (a < ps->n && ps->p[a] >= '0' && ps->p[a] <= '9')
			a++;
	}
	if (a < ps->n && (ps->p[a] | 32) == 'e') {
		a++;
		if (a < ps->n && (ps->p[a] == '+' || ps->p[a] == '-'))
			a++;
		if (a >= ps->n || ps->p[a] < '0' || ps->p[a] > '9') {
			ps->at = a;
			return fail(ps, "bad number");
		}
		while (a < ps->n && ps->p[a] >= '0' && ps->p[a] <= '9')
			a++;
	}
	ps->at = a;
	return true;
}

static uint32_t new_node(struct parser *ps, uint8_t type)
{
	struct json *j = ps->j;
	xgrow(&j->nodes, &j->cap, j->nnodes + 1, sizeof *j->nodes);
	j->nodes[j->nnodes] = (struct json_node){.type = type, .off = (uint32_t)ps->at};
	return (uint32_t)j->nnodes++;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t k = strlen(word);
	if (ps->n - ps->at < k || memcmp(ps->p + ps->at, word, k))
		return fail(ps, "unexpected character");
	ps->at += k;
	return true;
}

static bool value(struct parser *ps, uint32_t *out, unsigned depth);

/* Object or array: members are linked as children of node id. */
static bool container(struct parser *ps, uint32_t id, bool obj, unsigned depth)
{
	if (depth >= JSON_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	ps->at++; /* { or [ */
	skip_ws(ps);
	char close = obj ? '}' : ']';
	if (ps->at < ps->n && ps->p[ps->at] == (uint8_t)close) {
		ps->at++;
		return true;
	}
	uint32_t last = 0;
	for (;;) {
		uint32_t koff = 0, klen = 0;
		if (obj) {
			skip_ws(ps);
			if (ps->at >= ps->n || ps->p[ps->at] != '"')
				return fail(ps, "expected a key (a string)");
			if (!scan_string(ps, &koff, &klen))
				return false;
			skip_ws(ps);
			if (ps->at >= ps->n || ps->p[ps->at] != ':')
				return fail(ps, "expected ':' after a key");
			ps->at++;
		}
		uint32_t child;
		if (!value(ps, &child, depth + 1))
			return false;
		ps->j->nodes[child].key_off = koff;
		ps->j->nodes[child].key_len = klen;
		if (last)
			ps->j->nodes[last].next = child;
		else
			ps->j->nodes[id].child = child;
		last = child;
		skip_ws(ps);
		if (ps->at >= ps->n)
			return fail(ps, obj ? "object not closed" : "array not closed");
		if (ps->p[ps->at] == ',') {
			ps->at++;
			continue;
		}
		if (ps->p[ps->at] == (uint8_t)close) {
			ps->at++;
			return true;
		}
		return fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool value(struct parser *ps, uint32_t *out, unsigned depth)
{
	skip_ws(ps);
	if (ps->at >= ps->n)
		return fail(ps, "unexpected end of the document");
	uint8_t c = ps->p[ps->at];
	uint32_t id;
	bool ok;
	switch (c) {
	case '{':
	case '[':
		id = new_node(ps, c == '{' ? JSON_OBJ : JSON_ARR);
		ok = container(ps, id, c == '{', depth);
		break;
	case '"': {
		id = new_node(ps, JSON_STR);
		uint32_t off = 0, len = 0;
		ok = scan_string(ps, &off, &len);
		ps->j->nodes[id].off = off;
		ps->j->nodes[id].len = len;
		*out = id;
		return ok;
	}
	case 't': id = new_node(ps, JSON_TRUE); ok = literal(ps, "true"); break;
	case 'f': id = new_node(ps, JSON_FALSE); ok = literal(ps, "false"); break;
	case 'n': id = new_node(ps, JSON_NULL); ok = literal(ps, "null"); break;
	default:
		if (c != '-' && (c < '0' || c > '9'))
			return fail(ps, "unexpected character");
		id = new_node(ps, JSON_NUM);
		ok = scan_number(ps);
		break;
	}
	ps->j->nodes[id].len = (uint32_t)(ps->at - ps->j->nodes[id].off);
	*out = id;
	return ok;
}

bool json_parse(struct json *j, const void *p, size_t n)
{
	memset(j, 0, sizeof *j);
	j->p = p;
	j->n = n;
	struct parser ps = {j, p, n, 0};
	if (n > JSON_MAX_BYTES)
		return fail(&ps, "too large for a metadata file");
	new_node(&ps, JSON_NULL); /* node 0: "none" */
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		ps.at = 3; /* a UTF-8 byte order mark */
	uint32_t root;
	if (!value(&ps, &root, 0))
		return false;
	skip_ws(&ps);
	if (ps.at != n)
		return fail(&ps, "unexpected data after the document");
	return true;
}

void json_free(struct json *j)
{
	free(j->nodes);
	j->nodes = NULL;
	j->nnodes = j->cap = 0;
}

uint32_t json_get(const struct json *j, uint32_t obj, const char *key)
{
	if (!obj || j->nodes[obj].type != JSON_OBJ)
		return 0;
	size_t k = strlen(key);
	uint32_t found = 0;
	for (uint32_t c = j->nodes[obj].child; c; c = j->nodes[c].next)
		if (j->nodes[c].key_len == k && !memcmp(j->p + j->nodes[c].key_off, key, k))
			found = c; /* the last one wins, as in most readers */
	return found;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = (unsigned char)s[i];
		v = v << 4 | (c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
	}
	return v;
}

static void put_utf8(struct buf *b, uint32_t cp)
{
	char u[4];
	size_t k;
	if (cp < 0x80) {
		u[0] = (char)cp;
		k = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	buf_add(b, u, k);
}

bool json_str(const struct json *j, uint32_t id, struct buf *out)
{
	if (!id || j->nodes[id].type != JSON_STR)
		return false;
	const char *s = j->p + j->nodes[id].off;
	size_t n = j->nodes[id].len;
	/* the parser checked every escape, so lengths below are safe */
	for (size_t i = 0; i < n;) {
		const char *bs = memchr(s + i, '\\', n - i);
		size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
		buf_add(out, s + i, run);
		i += run;
		if (i >= n)
			break;
		char e = s[i + 1];
		i += 2;
		switch (e) {
		case 'b': buf_addc(out, '\b'); break;
		case 'f': buf_addc(out, '\f'); break;
		case 'n': buf_addc(out, '\n'); break;
		case 'r': buf_addc(out, '\r'); break;
		case 't': buf_addc(out, '\t'); break;
		case 'u': {
			uint32_t cp = hex4(s + i);
			i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
				uint32_t lo = hex4(s + i + 2);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd; /* a lone surrogate */
			put_utf8(out, cp);
			break;
		}
		default: buf_addc(out, e); break; /* " \ / */
		}
	}
	return true;
}

/* Decimal digits s[0..n) into *v; false when empty, not digits, or too large. */
static bool digits(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return n > 0;
}

bool json_u64(const struct json *j, uint32_t id, uint64_t *v)
{
	if (!id || j->nodes[id].type != JSON_NUM)
		return false;
	return digits(j->p + j->nodes[id].off, j->nodes[id].len, v);
}

bool json_i64(const struct json *j, uint32_t id, int64_t *v)
{
	if (!id || j->nodes[id].type != JSON_NUM)
		return false;
	const char *s = j->p + j->nodes[id].off;
	size_t n = j->nodes[id].len;
	bool neg = n && s[0] == '-';
	uint64_t u;
	if (!digits(s + neg, n - neg, &u) || u > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
	return true;
}
