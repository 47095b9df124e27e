/* Decoded fields of one event, produced lazily by a decoder into a sink.
 *
 * A decoder describes an event as a sequence of named values (possibly
 * nested in objects and arrays); the sink decides how to show them: JSON
 * for --dump --json, one line for summaries and the list, one field per line
 * for the detail view.  Values are raw (trace strings are not escaped here);
 * every sink escapes on output. */
#ifndef TTV_FIELDS_H
#define TTV_FIELDS_H

#include "src/util.h"

enum fkind {
	FK_INT,    /* signed decimal */
	FK_UINT,   /* unsigned decimal */
	FK_HEX,    /* unsigned, shown as 0x... (addresses, ids, flags) */
	FK_DOUBLE, /* binary64, shortest round-trip text */
	FK_FLOAT,  /* binary32, shortest round-trip text */
	FK_STR,    /* bytes from the trace (escaped on output) */
	FK_BYTES,  /* raw bytes, shown as hex */
	FK_BOOL,
	FK_NULL, /* absent: shown as "—", JSON null */
	FK_OBJ,  /* begin a nested object; closed by FK_END */
	FK_ARR,  /* begin an array; closed by FK_END; its items have no name */
	FK_END,
};

struct field {
	const char *name;
	enum fkind kind;
	union {
		int64_t i;
		uint64_t u;
		double d;
		bool b;
		struct {
			const void *p;
			size_t n;
		} s;
	} v;
	const char *unit;    /* "ns", "us", "ms", "s", "bytes", "%" ... or NULL */
	/* The value's name where the format gives it one ("ENETUNREACH",
	 * "ESTABLISHED", "SIGSEGV", "O_RDONLY|O_CLOEXEC"): shown after the
	 * value, and in JSON as "<name>_name" beside it.  NULL: none. */
	const char *value_name;
	/* A note on the value ("slot", "the stream header's thread"): shown
	 * after it in text, not in JSON.  NULL: none. */
	const char *meaning;
};

struct fsink {
	void (*put)(struct fsink *s, const struct field *f);
};

static inline void f_put(struct fsink *s, const struct field *f) { s->put(s, f); }
static inline void f_int(struct fsink *s, const char *name, int64_t v)
{
	f_put(s, &(struct field){.name = name, .kind = FK_INT, .v.i = v});
}
static inline void f_uint(struct fsink *s, const char *name, uint64_t v)
{
	f_put(s, &(struct field){.name = name, .kind = FK_UINT, .v.u = v});
}
static inline void f_unit(struct fsink *s, const char *name, uint64_t v, const char *unit)
{
	f_put(s, &(struct field){.name = name, .kind = FK_UINT, .v.u = v, .unit = unit});
}
static inline void f_hex(struct fsink *s, const char *name, uint64_t v)
{
	f_put(s, &(struct field){.name = name, .kind = FK_HEX, .v.u = v});
}
static inline void f_str(struct fsink *s, const char *name, const void *p, size_t n)
{
	f_put(s, &(struct field){.name = name, .kind = FK_STR, .v.s = {p, n}});
}
static inline void f_cstr(struct fsink *s, const char *name, const char *str)
{
	f_str(s, name, str, strlen(str));
}
static inline void f_bytes(struct fsink *s, const char *name, const void *p, size_t n)
{
	f_put(s, &(struct field){.name = name, .kind = FK_BYTES, .v.s = {p, n}});
}
static inline void f_bool(struct fsink *s, const char *name, bool v)
{
	f_put(s, &(struct field){.name = name, .kind = FK_BOOL, .v.b = v});
}
static inline void f_null(struct fsink *s, const char *name)
{
	f_put(s, &(struct field){.name = name, .kind = FK_NULL});
}
static inline void f_obj(struct fsink *s, const char *name)
{
	f_put(s, &(struct field){.name = name, .kind = FK_OBJ});
}
static inline void f_arr(struct fsink *s, const char *name)
{
	f_put(s, &(struct field){.name = name, .kind = FK_ARR});
}
static inline void f_end(struct fsink *s) { f_put(s, &(struct field){.kind = FK_END}); }

/* Append the value of f as text (escaped, without name or unit). */
void field_value_text(struct buf *b, const struct field *f, bool quote_strings);
/* Append ` (value name, note)`, or nothing when f has neither. */
void field_readings_text(struct buf *b, const struct field *f);
/* True when unit is a time unit; sets ns per unit. */
bool unit_is_time(const char *unit, uint64_t *ns_per);

/* Sinks writing into a buffer. */
struct json_sink {
	struct fsink s;
	struct buf *b;
	unsigned depth;
	uint8_t first[32]; /* per depth: 0 object, 1 object with items, 2 array, 3 array with items */
};
/* Writes `{"a":1,...}`: call json_sink_begin, let the decoder put fields, then json_sink_end. */
void json_sink_begin(struct json_sink *j, struct buf *b);
void json_sink_end(struct json_sink *j);

/* One line: `a=1 b="x" c={d=2}` (for summaries, the list, --dump text). */
struct line_sink {
	struct fsink s;
	struct buf *b;
	unsigned depth;
	bool need_space;
	char close[32];
};
void line_sink_init(struct line_sink *l, struct buf *b);

/* One field per line, `name: value unit (value name, note)`, indented by nesting
 * (detail view).  With a width, an object of four or more short plain
 * values (registers) is laid out in columns that fit it. */
struct tree_sink {
	struct fsink s;
	struct buf *b;
	unsigned depth;
	unsigned arr_index[32];
	bool in_arr[32];
	int width;            /* 0: one field per line */
	size_t obj_start[32]; /* per depth: where the object's fields begin in b */
	bool obj_plain[32];   /* per depth: only plain values so far */
};
void tree_sink_init(struct tree_sink *t, struct buf *b, int width);

#endif
