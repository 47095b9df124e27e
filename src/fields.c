#include "src/fields.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/esc.h"

#define MAX_DEPTH 31

bool unit_is_time(const char *unit, uint64_t *ns_per)
{
	static const struct {
		const char *u;
		uint64_t ns;
	} t[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	/* (the first byte first: every number with a unit comes through here) */
	for (size_t i = 0; unit && i < ARRAY_LEN(t); i++)
		if (unit[0] == t[i].u[0] && !strcmp(unit, t[i].u)) {
			*ns_per = t[i].ns;
			return true;
		}
	return false;
}

static void bytes_hex(struct buf *b, const uint8_t *p, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ' ');
		buf_addc(b, hexd[p[i] >> 4]);
		buf_addc(b, hexd[p[i] & 15]);
	}
}

void field_value_text(struct buf *b, const struct field *f, bool quote_strings)
{
	switch (f->kind) {
	case FK_INT: buf_i64(b, f->v.i); break; /* not printf: full-text filters write every field */
	case FK_UINT: buf_u64(b, f->v.u); break;
	case FK_HEX: buf_hex64(b, f->v.u); break;
	case FK_DOUBLE: fmt_double(b, f->v.d); break;
	case FK_FLOAT: fmt_float(b, (float)f->v.d); break;
	case FK_STR:
		if (quote_strings)
			esc_quoted(b, f->v.s.p, f->v.s.n);
		else
			esc_term(b, f->v.s.p, f->v.s.n);
		break;
	case FK_BYTES: bytes_hex(b, f->v.s.p, f->v.s.n); break;
	case FK_BOOL: buf_adds(b, f->v.b ? "true" : "false"); break;
	case FK_NULL: buf_adds(b, "—"); break;
	default: break;
	}
}

void field_readings_text(struct buf *b, const struct field *f)
{
	if (!f->value_name && !f->meaning)
		return;
	buf_adds(b, " (");
	if (f->value_name)
		esc_term_cstr(b, f->value_name);
	if (f->value_name && f->meaning)
		buf_adds(b, ", ");
	if (f->meaning)
		esc_term_cstr(b, f->meaning);
	buf_addc(b, ')');
}

/* ---- JSON ----------------------------------------------------------------- */

/* `"<name><suffix>":` */
static void json_name_suffixed(struct buf *b, const char *name, const char *suffix)
{
	struct buf n = {0};
	buf_adds(&n, name);
	buf_adds(&n, suffix);
	esc_json(b, n.p, n.len);
	buf_addc(b, ':');
	buf_free(&n);
}

static void json_put(struct fsink *s, const struct field *f)
{
	struct json_sink *j = (struct json_sink *)s;
	struct buf *b = j->b;
	if (f->kind == FK_END) {
		if (j->depth > 0) {
			buf_addc(b, j->first[j->depth] >= 2 ? ']' : '}');
			j->depth--;
		}
		return;
	}
	if (j->first[j->depth] == 1 || j->first[j->depth] == 3)
		buf_addc(b, ',');
	else
		j->first[j->depth] |= 1; /* 0 -> 1 for objects, 2 -> 3 for arrays */
	bool in_array = j->first[j->depth] >= 2;
	if (!in_array) {
		const char *name = f->name ? f->name : "";
		esc_json(b, name, strlen(name));
		buf_addc(b, ':');
	}
	switch (f->kind) {
	case FK_INT:
	case FK_UINT:
	case FK_BOOL:
		field_value_text(b, f, false);
		break;
	case FK_DOUBLE:
	case FK_FLOAT:
		if (f->v.d != f->v.d || f->v.d - f->v.d != 0) /* NaN or infinity: not JSON numbers */
			buf_adds(b, "null");
		else
			field_value_text(b, f, false);
		break;
	case FK_HEX: buf_printf(b, "\"0x%llx\"", (unsigned long long)f->v.u); break;
	case FK_STR: esc_json(b, f->v.s.p, f->v.s.n); break;
	case FK_BYTES:
		buf_addc(b, '"');
		bytes_hex(b, f->v.s.p, f->v.s.n);
		buf_addc(b, '"');
		break;
	case FK_NULL: buf_adds(b, "null"); break;
	case FK_OBJ:
	case FK_ARR:
		if (j->depth >= MAX_DEPTH) {
			buf_adds(b, "null");
			break;
		}
		buf_addc(b, f->kind == FK_OBJ ? '{' : '[');
		j->first[++j->depth] = f->kind == FK_OBJ ? 0 : 2;
		break;
	case FK_END: break;
	}
	if (f->value_name && !in_array && f->kind != FK_OBJ && f->kind != FK_ARR) {
		buf_addc(b, ',');
		json_name_suffixed(b, f->name ? f->name : "", "_name");
		esc_json(b, f->value_name, strlen(f->value_name));
	}
}

void json_sink_begin(struct json_sink *j, struct buf *b)
{
	*j = (struct json_sink){.s.put = json_put, .b = b};
	buf_addc(b, '{');
}

void json_sink_end(struct json_sink *j)
{
	while (j->depth > 0)
		json_put(&j->s, &(struct field){.kind = FK_END});
	buf_addc(j->b, '}');
}

/* ---- one line ------------------------------------------------------------- */

/* A literal name of ours is plain: copied as it is (the sanitizer builds,
 * which run every test, check that it is). */
static void field_name_checked(const struct field *f)
{
#ifdef __SANITIZE_ADDRESS__
	struct buf b = {0};
	esc_term_cstr(&b, f->name);
	if (b.len != f->name_len || memcmp(b.p, f->name, f->name_len)) {
		fprintf(stderr, "field name \"%s\": a literal name must be plain ASCII\n", b.p);
		abort();
	}
	buf_free(&b);
#else
	(void)f;
#endif
}

static void field_name_text(struct buf *b, const struct field *f)
{
	if (!f->name_len) {
		esc_term_cstr(b, f->name);
		return;
	}
	field_name_checked(f);
	buf_add(b, f->name, f->name_len);
}

static void value_with_unit(struct buf *b, const struct field *f, bool quote)
{
	uint64_t per;
	if ((f->kind == FK_UINT || f->kind == FK_INT) && unit_is_time(f->unit, &per) &&
	    (f->kind == FK_UINT || f->v.i >= 0) && f->v.u <= UINT64_MAX / per) {
		fmt_dur(b, f->v.u * per);
	} else {
		field_value_text(b, f, quote);
		if (f->unit && f->kind != FK_NULL && (f->kind <= FK_FLOAT)) {
			if (strcmp(f->unit, "%"))
				buf_addc(b, ' ');
			esc_term_cstr(b, f->unit);
		}
	}
	if (f->value_name || f->meaning)
		field_readings_text(b, f);
}

static void line_put(struct fsink *s, const struct field *f)
{
	struct line_sink *l = (struct line_sink *)s;
	struct buf *b = l->b;
	if (f->kind == FK_END) {
		if (l->depth) {
			buf_addc(b, l->close[l->depth]);
			l->depth--;
		}
		l->need_space = true;
		return;
	}
	if (!l->depth && f->name_len) { /* the common case, " name=" at once */
		char *o = buf_space(b, f->name_len + 2u);
		size_t k = l->need_space;
		o[0] = ' ';
		memcpy(o + k, f->name, f->name_len);
		o[k + f->name_len] = '=';
		buf_grew(b, k + f->name_len + 1);
		field_name_checked(f);
	} else {
		if (l->need_space)
			buf_addc(b, l->depth ? ',' : ' ');
		if (l->depth && l->need_space)
			buf_addc(b, ' ');
		if (f->name) {
			field_name_text(b, f);
			buf_addc(b, '=');
		}
	}
	l->need_space = true;
	if (f->kind == FK_OBJ || f->kind == FK_ARR) {
		buf_addc(b, f->kind == FK_OBJ ? '{' : '[');
		if (l->depth < MAX_DEPTH)
			l->close[++l->depth] = f->kind == FK_OBJ ? '}' : ']';
		l->need_space = false;
		return;
	}
	value_with_unit(b, f, true);
}

void line_sink_init(struct line_sink *l, struct buf *b) { *l = (struct line_sink){.s.put = line_put, .b = b}; }

static void line_tee_put(struct fsink *s, const struct field *f)
{
	struct line_tee *t = (struct line_tee *)s;
	struct line_sink *a = t->a, *b = t->b;
	if (a->depth != b->depth || a->need_space != b->need_space) {
		line_put(&a->s, f);
		line_put(&b->s, f);
		return;
	}
	size_t from = a->b->len;
	line_put(&a->s, f);
	buf_add(b->b, a->b->p + from, a->b->len - from);
	b->depth = a->depth;
	b->need_space = a->need_space;
	memcpy(b->close, a->close, sizeof b->close);
}

void line_tee_init(struct line_tee *t, struct line_sink *a, struct line_sink *b)
{
	*t = (struct line_tee){.s.put = line_tee_put, .a = a, .b = b};
}

/* ---- one field per line --------------------------------------------------- */

#define GRID_MIN 4      /* fields: fewer stay one a line */
#define GRID_CELL_MAX 28 /* a field wider than this keeps its line */

/* The lines of an object of plain values, [from, b->len), each `indent
 * name: value`, laid out row by row in columns that fit t->width. */
static void tree_grid(struct tree_sink *t, size_t from, unsigned indent)
{
	struct buf *b = t->b;
	size_t n = 0, cell = 0;
	for (size_t i = from; i < b->len; i++) {
		size_t start = i;
		while (b->p[i] != '\n')
			i++;
		cell = MAX(cell, i - start - indent);
		n++;
	}
	int cols = (int)(((size_t)t->width - indent + 2) / (cell + 2));
	if (n < GRID_MIN || cell > GRID_CELL_MAX || cols < 2)
		return;
	char *lines = xstrndup(b->p + from, b->len - from);
	b->len = from;
	size_t k = 0;
	for (const char *p = lines; *p; k++) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p) - indent;
		if (k % (size_t)cols == 0)
			buf_printf(b, "%*s", (int)indent, "");
		buf_add(b, p + indent, len);
		bool last = k % (size_t)cols == (size_t)cols - 1 || !nl[1];
		if (last)
			buf_addc(b, '\n');
		else
			buf_printf(b, "%*s", (int)(cell - len + 2), "");
		p = nl + 1;
	}
	free(lines);
}

static void tree_put(struct fsink *s, const struct field *f)
{
	struct tree_sink *t = (struct tree_sink *)s;
	struct buf *b = t->b;
	if (f->kind == FK_END) {
		if (t->depth) {
			if (t->width && t->obj_plain[t->depth] && !t->in_arr[t->depth])
				tree_grid(t, t->obj_start[t->depth], 2 * t->depth);
			t->depth--;
		}
		return;
	}
	if (f->kind == FK_OBJ || f->kind == FK_ARR)
		t->obj_plain[t->depth] = false; /* the enclosing object has more than plain values */
	for (unsigned i = 0; i < t->depth; i++)
		buf_adds(b, "  ");
	if (t->in_arr[t->depth])
		buf_printf(b, "[%u]", t->arr_index[t->depth]++);
	else if (f->name)
		esc_term_cstr(b, f->name);
	if (f->kind == FK_OBJ || f->kind == FK_ARR) {
		buf_adds(b, ":\n");
		if (t->depth < MAX_DEPTH) {
			t->depth++;
			t->in_arr[t->depth] = f->kind == FK_ARR;
			t->arr_index[t->depth] = 0;
			t->obj_start[t->depth] = b->len;
			t->obj_plain[t->depth] = true;
		}
		return;
	}
	buf_adds(b, ": ");
	field_value_text(b, f, f->kind == FK_STR);
	uint64_t per;
	if (f->unit && f->kind != FK_NULL) {
		if (strcmp(f->unit, "%"))
			buf_addc(b, ' ');
		esc_term_cstr(b, f->unit);
		/* a duration gets a readable form too; a point in time does not */
		bool instant = f->name && (strstr(f->name, "time") || !strcmp(f->name, "ts"));
		if (!instant && (f->kind == FK_UINT || (f->kind == FK_INT && f->v.i >= 0)) && unit_is_time(f->unit, &per) &&
		    f->v.u <= UINT64_MAX / per && f->v.u * per >= 1000) {
			buf_adds(b, " = ");
			fmt_dur(b, f->v.u * per);
		}
	}
	field_readings_text(b, f);
	buf_addc(b, '\n');
}

void tree_sink_init(struct tree_sink *t, struct buf *b, int width)
{
	*t = (struct tree_sink){.s.put = tree_put, .b = b, .width = width};
}
