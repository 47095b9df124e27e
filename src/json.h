/* A small JSON reader for the metadata files that sit beside traces (ATF
 * manifests).  The input is untrusted: nesting is bounded, every length is
 * checked, and a document is parsed into a flat array of nodes that point
 * back into the bytes (no per-value allocation).  Strings are unescaped on
 * demand.  Lenient where real writers are sloppy: raw control bytes and
 * invalid UTF-8 inside strings are accepted (they are escaped on output).
 *
 * The bytes must stay in place while the document is used: parse, extract
 * what is needed, then json_free(). */
#ifndef TTV_JSON_H
#define TTV_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/util.h"

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

#define JSON_MAX_DEPTH 64
#define JSON_MAX_BYTES (256u << 20)

struct json_node {
	uint8_t type;
	uint32_t off, len;         /* the value's text (strings: between the quotes) */
	uint32_t key_off, key_len; /* members of an object: the key, between its quotes */
	uint32_t child, next;      /* first child and next sibling (node ids, 0 = none) */
};

struct json {
	const char *p;
	size_t n;
	struct json_node *nodes; /* [0] is unused; the root is node 1 */
	size_t nnodes, cap;
	char err[96]; /* set when parsing fails ... */
	size_t err_off; /* ... at this byte offset */
};

/* Parse p[0..n).  False on error (j->err and j->err_off say what and where). */
bool json_parse(struct json *j, const void *p, size_t n);
void json_free(struct json *j);

static inline uint32_t json_root(const struct json *j) { return j->nnodes > 1 ? 1 : 0; }
static inline enum json_type json_type(const struct json *j, uint32_t id) { return (enum json_type)j->nodes[id].type; }
static inline uint32_t json_child(const struct json *j, uint32_t id) { return id ? j->nodes[id].child : 0; }
static inline uint32_t json_next(const struct json *j, uint32_t id) { return id ? j->nodes[id].next : 0; }

/* The member `key` of object `obj` (0 when absent or obj is not an object).
 * Keys are compared as written (keys with escapes never match). */
uint32_t json_get(const struct json *j, uint32_t obj, const char *key);
/* A string's unescaped bytes, appended to out.  False when id is not a string. */
bool json_str(const struct json *j, uint32_t id, struct buf *out);
/* An integer number that fits in 64 bits (no fraction or exponent). */
bool json_u64(const struct json *j, uint32_t id, uint64_t *v);
bool json_i64(const struct json *j, uint32_t id, int64_t *v);

#endif
