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
	/* name's length when it is a string literal of ours (plain ASCII, no
	 * escaping needed: checked under ASan), set by F_NAME_LEN; 0: unknown */
	uint8_t name_len;
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

/* A name's length when the compiler knows it (a literal), else 0.  Text
 * sinks copy such a name as it is instead of escaping it byte by byte. */
#define F_STRLEN_(n) __builtin_strlen(_Generic((n), void *: "", default: (n))) /* (NULL: no name) */
/* (the pointer first: strlen is never asked of one known only when running,
 * which may be NULL, an array item's) */
#define F_NAME_LEN(n) \
	(__builtin_constant_p(n) && __builtin_constant_p(F_STRLEN_(n)) && F_STRLEN_(n) < 256 ? (uint8_t)F_STRLEN_(n) : 0)
/* `.name = N` in a struct field, its length with it */
#define F_NAME(n) .name = (n), .name_len = F_NAME_LEN(n)

#define f_int(S, N, V) f_put((S), &(struct field){F_NAME(N), .kind = FK_INT, .v.i = (V)})
#define f_uint(S, N, V) f_put((S), &(struct field){F_NAME(N), .kind = FK_UINT, .v.u = (V)})
#define f_unit(S, N, V, UNIT) f_put((S), &(struct field){F_NAME(N), .kind = FK_UINT, .v.u = (V), .unit = (UNIT)})
#define f_hex(S, N, V) f_put((S), &(struct field){F_NAME(N), .kind = FK_HEX, .v.u = (V)})
#define f_str(S, N, P, LEN) f_put((S), &(struct field){F_NAME(N), .kind = FK_STR, .v.s = {(P), (LEN)}})
#define f_cstr(S, N, STR) f_cstr_((S), &(struct field){F_NAME(N), .kind = FK_STR}, (STR))
#define f_bytes(S, N, P, LEN) f_put((S), &(struct field){F_NAME(N), .kind = FK_BYTES, .v.s = {(P), (LEN)}})
#define f_bool(S, N, V) f_put((S), &(struct field){F_NAME(N), .kind = FK_BOOL, .v.b = (V)})
#define f_null(S, N) f_put((S), &(struct field){F_NAME(N), .kind = FK_NULL})
#define f_obj(S, N) f_put((S), &(struct field){F_NAME(N), .kind = FK_OBJ})
#define f_arr(S, N) f_put((S), &(struct field){F_NAME(N), .kind = FK_ARR})
static inline void f_cstr_(struct fsink *s, struct field *f, const char *str)
{
	f->v.s.p = str;
	f->v.s.n = strlen(str);
	f_put(s, f);
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
/* Two lines given the same fields (a summary and a fields line at once):
 * each field written into the first, its text copied to the second while
 * the two stand alike (the second may hold fields of its own before). */
struct line_tee {
	struct fsink s;
	struct line_sink *a, *b;
};
void line_tee_init(struct line_tee *t, struct line_sink *a, struct line_sink *b);

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
