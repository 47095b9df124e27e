/* The JSON reader (src/json.c): values, escapes, numbers, and hostile
 * documents (nesting, truncation, bad escapes) refused with an offset. */
#include <stdlib.h>

#include "src/json.h"
#include "t/tap.h"

static bool parse(struct json *j, const char *s) { return json_parse(j, s, strlen(s)); }

static char *str(const struct json *j, uint32_t id)
{
	static struct buf b;
	buf_reset(&b);
	if (!json_str(j, id, &b))
		return NULL;
	buf_addc(&b, 0);
	return b.p;
}

int main(void)
{
	struct json j;
	ok(parse(&j, " {\"a\": [1, -2, 3.5e2, true, false, null], \"b\": {\"c\": \"x\\ty\"}, \"a2\": 18446744073709551615} "),
	   "a document with every kind of value");
	uint32_t root = json_root(&j), a = json_get(&j, root, "a");
	ok(json_type(&j, root) == JSON_OBJ && json_type(&j, a) == JSON_ARR, "object and array");
	uint32_t e = json_child(&j, a);
	uint64_t u;
	int64_t i;
	ok(json_u64(&j, e, &u) && u == 1, "1");
	e = json_next(&j, e);
	ok(!json_u64(&j, e, &u) && json_i64(&j, e, &i) && i == -2, "-2 is not unsigned, is signed");
	e = json_next(&j, e);
	ok(json_type(&j, e) == JSON_NUM && !json_u64(&j, e, &u), "3.5e2 is a number, not an integer");
	e = json_next(&j, e);
	ok(json_type(&j, e) == JSON_TRUE && json_type(&j, json_next(&j, e)) == JSON_FALSE &&
		   json_type(&j, json_next(&j, json_next(&j, e))) == JSON_NULL,
	   "true false null");
	is_str(str(&j, json_get(&j, json_get(&j, root, "b"), "c")), "x\ty", "nested string with an escape");
	ok(json_u64(&j, json_get(&j, root, "a2"), &u) && u == UINT64_MAX, "2^64-1 fits");
	ok(!json_get(&j, root, "zz") && !json_get(&j, a, "a"), "absent key; get on an array");
	json_free(&j);

	ok(parse(&j, "{\"k\":\"\\u00e9\\ud83d\\ude00\\ud800x\\\"\\\\\\/\"}"), "unicode escapes");
	is_str(str(&j, json_get(&j, json_root(&j), "k")), "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\"\\/",
	       "\\u00e9, a surrogate pair, a lone surrogate (U+FFFD)");
	json_free(&j);
	ok(parse(&j, "{\"raw\":\"a\x01\xff\"}"), "raw control and invalid UTF-8 bytes in a string are accepted");
	json_free(&j);
	ok(parse(&j, "{\"big\":184467440737095516160}") && !json_u64(&j, json_get(&j, json_root(&j), "big"), &u),
	   "an integer beyond 64 bits is a number but not a u64");
	json_free(&j);

	static const struct {
		const char *doc, *err;
		size_t off;
	} bad[] = {
		{"", "unexpected end of the document", 0},
		{"{\"a\":1", "object not closed", 6},
		{"[1,2", "array not closed", 4},
		{"{\"a\" 1}", "expected ':' after a key", 5},
		{"{1:2}", "expected a key (a string)", 1},
		{"\"abc", "string not terminated", 4},
		{"\"a\\q\"", "bad escape in a string", 2},
		{"\"\\u12g4\"", "bad \\u escape in a string", 5},
		{"[01]", "expected ',' or ']'", 2},
		{"-", "bad number", 1},
		{"1.", "bad number", 2},
		{"1e+", "bad number", 3},
		{"nul", "unexpected character", 0},
		{"{} x", "unexpected data after the document", 3},
	};
	for (size_t k = 0; k < ARRAY_LEN(bad); k++) {
		bool r = parse(&j, bad[k].doc);
		ok(!r && !strcmp(j.err, bad[k].err) && j.err_off == bad[k].off, "'%s' refused: %s at %zu (got '%s' at %zu)",
		   bad[k].doc, bad[k].err, bad[k].off, j.err, j.err_off);
		json_free(&j);
	}
	/* nesting is bounded */
	struct buf deep = {0};
	for (int k = 0; k < 100000; k++)
		buf_addc(&deep, '[');
	ok(!json_parse(&j, deep.p, deep.len) && !strcmp(j.err, "nested too deeply") && j.err_off == JSON_MAX_DEPTH,
	   "100000 nested arrays: refused at depth %d, no stack overflow", JSON_MAX_DEPTH);
	json_free(&j);
	buf_reset(&deep);
	for (int k = 0; k < JSON_MAX_DEPTH; k++)
		buf_addc(&deep, '[');
	for (int k = 0; k < JSON_MAX_DEPTH; k++)
		buf_addc(&deep, ']');
	ok(json_parse(&j, deep.p, deep.len), "%d nested arrays are fine", JSON_MAX_DEPTH);
	json_free(&j);
	buf_free(&deep);
	/* every prefix of a document: refused or accepted, never out of bounds */
	const char *doc = "{\"threads\":[{\"id\":0,\"has_detail\":true}],\"symbols\":[{\"function_id\":\"0x1\","
			  "\"name\":\"a\\u0041\\n\"}],\"v\":-1.5e-3}";
	size_t n = strlen(doc), accepted = 0;
	for (size_t k = 0; k <= n; k++) {
		char *p = malloc(k + 1);
		memcpy(p, doc, k);
		accepted += json_parse(&j, p, k);
		json_free(&j);
		free(p);
	}
	is_int((long long)accepted, 1, "of every prefix, only the whole document parses");
	return done_testing();
}
