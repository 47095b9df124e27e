#define PCRE2_CODE_UNIT_WIDTH 8
#include "src/query.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "src/esc.h"
#include "src/strtab.h"
#include "src/worker.h"

/* Limits that stop a pathological pattern instead of freezing the screen. */
#define MATCH_LIMIT 1000000
#define DEPTH_LIMIT 10000

struct pattern {
	pcre2_code *code;
	pcre2_match_context *mctx; /* the limits (read-only once made) */
	bool jit;
};

/* Smart case: an upper-case letter that is not part of an escape (\D, \W,
 * \S, \P{..}) makes the pattern case-sensitive. */
static bool has_upper(const char *re)
{
	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			if ((*p == 'p' || *p == 'P') && p[1] == '{')
				while (*p && *p != '}')
					p++;
			if (!*p)
				break;
			continue;
		}
		if (isupper((unsigned char)*p))
			return true;
	}
	return false;
}

/* pattern_new, and where in re the error is (*at). */
static struct pattern *compile(const char *re, char **err, size_t *at_out)
{
	uint32_t opts = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF;
	if (!has_upper(re))
		opts |= PCRE2_CASELESS;
	int code;
	PCRE2_SIZE at;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, opts, &code, &at, NULL);
	if (!c) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		struct buf b = {0};
		buf_printf(&b, "at offset %zu: %s", (size_t)at, (const char *)msg);
		*err = b.p;
		*at_out = at;
		return NULL;
	}
	struct pattern *p = xcalloc(1, sizeof *p);
	p->code = c;
	p->jit = pcre2_jit_compile(c, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD) == 0;
	p->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(p->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(p->mctx, DEPTH_LIMIT);
	return p;
}

struct pattern *pattern_new(const char *re, char **err)
{
	size_t at;
	return compile(re, err, &at);
}

void pattern_free(struct pattern *p)
{
	if (!p)
		return;
	pcre2_match_context_free(p->mctx);
	pcre2_code_free(p->code);
	free(p);
}

static int result(int r)
{
	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	return -1; /* match or depth limit, or JIT stack: too expensive */
}

int pattern_match(struct pattern *p, const char *s, size_t n, size_t *ms, size_t *me)
{
	return pattern_find(p, s, n, 0, ms, me);
}

/* Match data per thread (filters run on two), with one pair: only the
 * whole match is used (pcre2 returns 0, still a match, when groups do not fit). */
static pcre2_match_data *thread_md(void)
{
	static __thread pcre2_match_data *md;
	if (!md)
		md = pcre2_match_data_create(1, NULL);
	return md;
}

/* pcre2_match, through the JIT's own entry when the pattern has JIT code:
 * it skips checks that cost more than a short text's match. */
static int match(struct pattern *p, const char *s, size_t n, size_t from, uint32_t opts, pcre2_match_data *md)
{
	if (p->jit)
		return pcre2_jit_match(p->code, (PCRE2_SPTR)s, n, from, opts, md, p->mctx);
	return pcre2_match(p->code, (PCRE2_SPTR)s, n, from, opts, md, p->mctx);
}

int pattern_find(struct pattern *p, const char *s, size_t n, size_t from, size_t *ms, size_t *me)
{
	pcre2_match_data *md = thread_md();
	int r = match(p, s, n, from, 0, md);
	if (r >= 0 && ms) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		*ms = ov[0];
		*me = ov[1];
	}
	return result(r);
}

int pattern_match_start(struct pattern *p, const char *s, size_t n, size_t *resume)
{
	pcre2_match_data *md = thread_md();
	int r = match(p, s, n, 0, PCRE2_PARTIAL_HARD, md);
	/* (hard: the first attempt that reaches the end stops the search, so
	 * every one before it failed on what is there) */
	*resume = r == PCRE2_ERROR_PARTIAL ? MIN(pcre2_get_ovector_pointer(md)[0], n) : n;
	return r == PCRE2_ERROR_PARTIAL ? 0 : result(r);
}

int pattern_match_nojit(struct pattern *p, const char *s, size_t n)
{
	return result(pcre2_match(p->code, (PCRE2_SPTR)s, n, 0, PCRE2_NO_JIT, thread_md(), p->mctx));
}

/* ---- times ---------------------------------------------------------------- */

bool tspec_parse(const char *s, size_t n, struct tspec *out)
{
	char buf[64];
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	const char *p = buf;
	bool abs = *p == '@', sign = *p == '+' || *p == '-';
	if (abs)
		p++;
	char *end;
	double v = strtod(p, &end);
	if (end == p || v != v)
		return false;
	static const struct {
		const char *u;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	double mult = abs ? 1e9 : 1;
	bool unit = false;
	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (!strcmp(end, units[i].u))
			mult = units[i].ns, unit = true;
	if (*end && !unit)
		return false;
	double ns = v * mult;
	if (ns > 9.2e18 || ns < -9.2e18)
		return false;
	out->v = (int64_t)ns;
	out->rel = !abs && (unit || sign);
	return true;
}

int64_t tspec_resolve(const struct tspec *t, const struct model *m)
{
	int64_t first = 0, last;
	if (t->rel)
		model_span(m, &first, &last);
	return t->rel ? sat_i64((__int128)first + t->v) : t->v;
}

/* ---- filters -------------------------------------------------------------- */

bool filter_parse(struct filter *f, const char *spec, char **err, size_t *err_at)
{
	size_t at_scratch;
	if (!err_at)
		err_at = &at_scratch;
	memset(f, 0, sizeof *f);
	f->spec = xstrdup(spec);
	f->enabled = true;
	const char *re = spec;
	if (*re == '!') {
		f->exclude = true;
		re++;
	}
	/* `word:` selects a scope; anything else is a full-text pattern.  `::`
	 * is a path in a name (tokio::runtime, std::vector), never a scope. */
	const char *colon = re;
	while (isalnum((unsigned char)*colon) || *colon == '_' || *colon == '.')
		colon++;
	if (*colon == ':' && colon[1] != ':' && colon > re) {
		size_t n = (size_t)(colon - re);
		if (n == 4 && !strncmp(re, "lane", 4))
			f->scope = SC_LANE;
		else if (n == 4 && !strncmp(re, "type", 4))
			f->scope = SC_TYPE;
		else if (n == 4 && !strncmp(re, "text", 4))
			f->scope = SC_TEXT;
		else if (n == 5 && !strncmp(re, "range", 5))
			f->scope = SC_RANGE;
		else {
			f->scope = SC_FIELD;
			f->field = xstrndup(re, n);
		}
		re = colon + 1;
	}
	if (f->scope == SC_RANGE) {
		const char *dots = strstr(re, "..");
		if (!dots || !tspec_parse(re, (size_t)(dots - re), &f->lo) ||
		    !tspec_parse(dots + 2, strlen(dots + 2), &f->hi)) {
			*err_at = (size_t)(re - spec);
			*err = xstrdup("want range:A..B with times such as 1.2s, +500ms, 3us, 93417364902017 (ns) "
				       "or @93417.36 (s)");
			filter_free(f);
			return false;
		}
		return true;
	}
	f->re = compile(re, err, err_at);
	if (!f->re) {
		*err_at += (size_t)(re - spec);
		filter_free(f);
		return false;
	}
	return true;
}

/* ---- which fields a trace has ------------------------------------------- */

/* The top-level field names of the model's examples, each once, each
 * followed by a NUL, in the order first seen. */
struct field_names {
	struct fsink s;
	struct buf names;
	unsigned depth;
};

static bool names_have(const struct buf *names, const char *name)
{
	for (const char *p = names->p, *end = names->p + names->len; p && p < end; p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}

static void names_put(struct fsink *s, const struct field *f)
{
	struct field_names *n = (struct field_names *)s;
	if (f->kind == FK_END) {
		n->depth -= n->depth > 0;
		return;
	}
	if (!n->depth && f->name && !names_have(&n->names, f->name))
		buf_add(&n->names, f->name, strlen(f->name) + 1);
	if (f->kind == FK_OBJ || f->kind == FK_ARR)
		n->depth++;
}

static void name_example(void *ctx, const struct event *e)
{
	struct trace *t = ((void **)ctx)[0];
	struct field_names *n = ((void **)ctx)[1];
	n->depth = 0;
	trace_event_fields(t, e, &n->s);
}

/* "a, b, c …": at most a line's worth of the names. */
static void names_list(const struct buf *names, struct buf *out)
{
	size_t shown = 0, from = out->len;
	for (const char *p = names->p, *end = names->p + names->len; p && p < end; p += strlen(p) + 1) {
		if (out->len - from > 40 || ++shown > 8) {
			buf_adds(out, ", …");
			return;
		}
		buf_adds(out, shown > 1 ? ", " : "");
		esc_term_cstr(out, p);
	}
}

bool filter_check(const struct filter *f, struct trace *t, char **err)
{
	if (f->scope != SC_FIELD)
		return true;
	struct field_names n = {.s.put = names_put};
	model_examples(t->m, name_example, (void *[]){t, &n});
	bool ok = !n.names.len || names_have(&n.names, f->field);
	if (!ok) {
		struct buf b = {0};
		buf_adds(&b, "no field '");
		esc_term(&b, f->field, strlen(f->field));
		buf_adds(&b, "' (text:RE matches the text); fields: ");
		names_list(&n.names, &b);
		*err = b.p;
	}
	buf_free(&n.names);
	return ok;
}

long filterset_check(const struct filterset *fs, struct trace *t, char **err)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!filter_check(&fs->f[i], t, err))
			return (long)i;
	return -1;
}

void filter_free(struct filter *f)
{
	free(f->spec);
	free(f->field);
	pattern_free(f->re);
	free(f->by_sid);
	memset(f, 0, sizeof *f);
}

bool filterset_add(struct filterset *fs, const char *spec, char **err)
{
	struct filter f;
	if (!filter_parse(&f, spec, err, NULL))
		return false;
	filterset_push(fs, &f);
	return true;
}

void filterset_push(struct filterset *fs, struct filter *f)
{
	xgrow(&fs->f, &fs->cap, fs->n + 1, sizeof *fs->f);
	fs->f[fs->n++] = *f;
}

void filterset_remove(struct filterset *fs, size_t i)
{
	if (i >= fs->n)
		return;
	filter_free(&fs->f[i]);
	memmove(fs->f + i, fs->f + i + 1, (fs->n - i - 1) * sizeof *fs->f);
	fs->n--;
}

void filterset_free(struct filterset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		filter_free(&fs->f[i]);
	free(fs->f);
	memset(fs, 0, sizeof *fs);
}

bool filterset_active(const struct filterset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].enabled)
			return true;
	return false;
}

/* ---- event text ----------------------------------------------------------- */

/* Every decoded field on one line, `name=value ...` (sanitized). */
static void fields_line(struct trace *t, const struct event *e, struct buf *b)
{
	struct line_sink ls;
	line_sink_init(&ls, b);
	trace_event_fields(t, e, &ls.s);
}

bool event_summary(struct trace *t, const struct event *e, struct buf *b)
{
	if (trace_event_summary(t, e, b))
		return true;
	fields_line(t, e, b);
	return false;
}

/* Lane and type names, escaped once: every event a full-text filter looks
 * at starts with them.  A small direct-mapped cache by model and string id,
 * per thread. */
static void add_name(struct buf *b, struct model *m, uint32_t sid)
{
	static __thread struct {
		uint64_t model; /* 0: unset */
		uint32_t sid;
		struct buf text;
	} cache[256];
	__typeof__(cache[0]) *c = &cache[sid % 256];
	if (c->model != model_serial(m) || c->sid != sid) {
		size_t n;
		const char *s = model_strget(m, sid, &n);
		buf_reset(&c->text);
		esc_term(&c->text, s, n);
		c->model = model_serial(m);
		c->sid = sid;
	}
	buf_add(b, buf_str(&c->text), c->text.len);
}

bool event_text(struct trace *t, const struct event *e, struct buf *b, struct buf *fields)
{
	const struct lane *l = model_lane_get(t->m, e->lane);
	add_name(b, t->m, l ? l->name : 0);
	buf_addc(b, ' ');
	add_name(b, t->m, model_type_get(t->m, e->type)->name);
	buf_addc(b, ' ');
	bool summarised = fields ? trace_event_summary_fields(t, e, b, fields) : trace_event_summary(t, e, b);
	if (!summarised)
		fields_line(t, e, b);
	uint32_t raw = model_name_raw(t->m, e->name);
	if (raw != e->name) { /* a demangled name: found as written too */
		buf_addc(b, ' ');
		add_name(b, t->m, raw);
	}
	return summarised;
}

/* Filters may run on two threads (filterset_prepare): flags and cached
 * verdicts are then shared, hence the atomic loads and stores. */
static void note_expensive(bool *expensive) { __atomic_store_n(expensive, true, __ATOMIC_RELAXED); }

static void size_cache(struct filter *f, size_t need)
{
	if (need <= f->nby_sid)
		return;
	size_t n = f->nby_sid ? f->nby_sid : 64;
	while (n < need)
		n *= 2;
	f->by_sid = xrealloc(f->by_sid, n);
	memset(f->by_sid + f->nby_sid, 0, n - f->nby_sid);
	f->nby_sid = n;
}

/* The verdict for an interned string: the pattern runs over its escaped text once. */
static bool cached(struct filter *f, uint32_t sid, struct model *m, bool *expensive)
{
	size_cache(f, (size_t)sid + 1);
	uint8_t v = __atomic_load_n(&f->by_sid[sid], __ATOMIC_RELAXED);
	if (!v) {
		size_t len;
		const char *s = model_strget(m, sid, &len);
		struct buf b = {0};
		esc_term(&b, s, len);
		int r = pattern_match(f->re, buf_str(&b), b.len, NULL, NULL);
		buf_free(&b);
		if (r < 0)
			note_expensive(expensive);
		v = r > 0 ? 2 : 1;
		__atomic_store_n(&f->by_sid[sid], v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

/* The text form of one named field of an event (false when it has none);
 * a list or object (a call chain, arguments) gives its values, each after
 * a space. */
struct field_pick {
	struct fsink s;
	const char *want;
	struct buf *out;
	bool found;
	unsigned depth, in; /* in: the depth of the wanted list or object, 0 outside it */
};

static void pick_value(struct field_pick *p, const struct field *f)
{
	field_value_text(p->out, f, false);
	if (f->value_name) {
		buf_addc(p->out, ' ');
		esc_term_cstr(p->out, f->value_name);
	}
	if (f->meaning) {
		buf_addc(p->out, ' ');
		esc_term_cstr(p->out, f->meaning);
	}
}

static void pick_put(struct fsink *s, const struct field *f)
{
	struct field_pick *p = (struct field_pick *)s;
	if (f->kind == FK_END) {
		if (p->depth && p->depth-- == p->in)
			p->in = 0;
		return;
	}
	bool wanted = !p->found && !p->depth && f->name && !strcmp(f->name, p->want);
	if (f->kind == FK_OBJ || f->kind == FK_ARR) {
		p->depth++;
		if (wanted)
			p->found = true, p->in = p->depth;
		return;
	}
	if (p->in) {
		buf_addc(p->out, ' ');
		pick_value(p, f);
	} else if (wanted) {
		p->found = true;
		pick_value(p, f);
	}
}

/* The number of one top-level field. */
struct number_pick {
	struct fsink s;
	const char *want;
	unsigned depth;
	bool found;
	double v;
};

static void number_put(struct fsink *s, const struct field *f)
{
	struct number_pick *p = (struct number_pick *)s;
	if (f->kind == FK_OBJ || f->kind == FK_ARR) {
		p->depth++;
		return;
	}
	if (f->kind == FK_END) {
		p->depth -= p->depth > 0;
		return;
	}
	if (p->depth || p->found || !f->name || strcmp(f->name, p->want))
		return;
	p->found = true;
	switch (f->kind) {
	case FK_INT: p->v = (double)f->v.i; break;
	case FK_UINT:
	case FK_HEX: p->v = (double)f->v.u; break;
	case FK_DOUBLE:
	case FK_FLOAT: p->v = f->v.d; break;
	default: p->found = false; break;
	}
}

bool event_value(struct trace *t, const struct event *e, double *v)
{
	uint32_t vf = model_type_get(t->m, e->type)->value_field;
	if (!vf)
		return false;
	struct number_pick p = {.s.put = number_put, .want = model_strget(t->m, vf, NULL)};
	if (!trace_event_fields(t, e, &p.s) || !p.found || p.v != p.v)
		return false;
	*v = p.v;
	return true;
}

static bool field_text(struct trace *t, const struct event *e, const char *name, struct buf *out)
{
	struct field_pick p = {.s.put = pick_put, .want = name, .out = out};
	return trace_event_fields(t, e, &p.s) && p.found;
}

/* Text buffers reused for every event a filter looks at (per thread): the
 * line, and the fields a full-text filter looks at after it. */
static struct buf *scratch_n(int k)
{
	static __thread struct buf b[2];
	buf_reset(&b[k]);
	return &b[k];
}
static struct buf *scratch(void) { return scratch_n(0); }

/* Whether a full-text filter's line (lane, type, summary) decides most
 * events, lately, on this thread: the fields are then read only when it
 * does not; else with the summary, in the same reading of the event. */
static __thread struct {
	const struct filter *f;
	uint32_t looks, decided;
} line_rate;

static bool fields_too(const struct filter *f)
{
	return line_rate.f != f || 2 * line_rate.decided < line_rate.looks;
}

static void line_looked(const struct filter *f, bool decided)
{
	if (line_rate.f != f)
		line_rate.f = f, line_rate.looks = line_rate.decided = 0;
	line_rate.decided += decided;
	if (++line_rate.looks == 1024) /* (the last thousand or so weigh most) */
		line_rate.looks /= 2, line_rate.decided /= 2;
}

bool filter_hit(struct filter *f, struct trace *t, const struct event *e, bool *expensive)
{
	struct model *m = t->m;
	switch (f->scope) {
	case SC_LANE: {
		const struct lane *l = model_lane_get(m, e->lane);
		return l && cached(f, l->name, m, expensive);
	}
	case SC_TYPE: return cached(f, model_type_get(m, e->type)->name, m, expensive);
	case SC_FIELD: {
		if (!f->field_sid)
			f->field_sid = model_str(m, f->field, strlen(f->field));
		if (model_type_get(m, e->type)->name_field == f->field_sid) { /* shown or as written */
			uint32_t raw = model_name_raw(m, e->name);
			return cached(f, e->name, m, expensive) || (raw != e->name && cached(f, raw, m, expensive));
		}
		struct buf *b = scratch();
		bool hit = false;
		if (field_text(t, e, f->field, b)) {
			int r = pattern_match(f->re, buf_str(b), b->len, NULL, NULL);
			if (r < 0)
				note_expensive(expensive);
			hit = r > 0;
		}
		return hit;
	}
	case SC_RANGE: return e->ts >= tspec_resolve(&f->lo, m) && e->ts <= tspec_resolve(&f->hi, m);
	case SC_TEXT:
	default: {
		/* Full text is the line (lane, type, summary) and, where the
		 * summary leaves fields out, every field after it: one match, so
		 * a costly pattern costs one match limit per event.  A match in
		 * the line that needs nothing after it is a match in the whole,
		 * and the search goes on from where the line left it.  The
		 * fields are read with the summary (one reading of the event),
		 * or, while the line decides most events, only when it does not
		 * (a second reading, for the few). */
		struct buf *b = scratch(), *fields = scratch_n(1);
		size_t from = 0; /* (where a match may start: none before) */
		bool both = fields_too(f) && trace_summary_fields_at_once(t, e);
		if (event_text(t, e, b, both ? fields : NULL)) {
			int r = pattern_match_start(f->re, buf_str(b), b->len, &from);
			line_looked(f, r != 0);
			if (r != 0) {
				if (r < 0)
					note_expensive(expensive);
				return r > 0;
			}
			buf_addc(b, ' ');
			if (both)
				buf_add(b, fields->p, fields->len);
			else
				fields_line(t, e, b);
		}
		int r = pattern_find(f->re, buf_str(b), b->len, from, NULL, NULL);
		if (r < 0)
			note_expensive(expensive);
		return r > 0;
	}
	}
}

bool filterset_parallel_ok(const struct filterset *fs, const struct trace *t)
{
	return filterset_active(fs) && model_get_shared(t->m) && trace_reentrant(t);
}

void filterset_prepare(struct filterset *fs, struct trace *t)
{
	struct model *m = t->m;
	trace_settle(t);
	uint32_t nstr = strtab_count(model_strings(m));
	for (size_t i = 0; i < fs->n; i++) {
		struct filter *f = &fs->f[i];
		if (f->scope == SC_FIELD && !f->field_sid)
			f->field_sid = model_str(m, f->field, strlen(f->field));
		if (f->re)
			size_cache(f, nstr);
	}
}

/* Two threads mark one range together: each takes the next run of events
 * from a shared counter, sized to last about RUN_NS, so both threads stay
 * near each other (one scan window serves both) and stop close together
 * when the deadline passes.  Runs are not word-aligned: the words at a
 * run's edges are shared, and written with atomic operations. */
#define RUN_NS 200000 /* 0.2 ms */
#define RUN_FIRST 16
#define RUN_MAX 4096
#define CLOCK_LOOKS 16 /* looks at the clock inside a run */
#define RUN_COUNTED 64 /* filters whose drops are counted (a run counts them on its own) */

static int first_drop(struct filterset *fs, struct trace *t, const struct event *e);

struct mark_job {
	struct filterset *fs;
	struct trace *t;
	uint64_t hi, base, *bits;
	filter_keep_fn *keep;
	void *ctx;
	uint64_t deadline; /* now_ns() at which to stop; 0: none */
	_Atomic uint64_t next; /* the first event no thread has taken */
	_Atomic bool stop;     /* the deadline passed: both threads stop */
	bool decodes;          /* the filters read the events' bytes */
};

struct mark_part {
	struct mark_job *j;
	bool scan;     /* keep the pages of the events' bytes mapped (when filters decode; one thread does) */
	uint64_t hole; /* the first event this thread took but did not mark; UINT64_MAX: none */
	uint64_t end;  /* past the last event it marked */
};

/* Bits [from, to) of word *w (relative to its first bit) become those of `set`. */
static void put_word(uint64_t *w, unsigned from, unsigned to, uint64_t set)
{
	uint64_t mask = (to == 64 ? ~0ull : (1ull << to) - 1) & ~((1ull << from) - 1);
	if (mask == ~0ull) {
		*w = set; /* the whole word is this run's: no other thread touches it */
		return;
	}
	__atomic_fetch_and(w, ~mask, __ATOMIC_RELAXED);
	__atomic_fetch_or(w, set & mask, __ATOMIC_RELAXED);
}

static bool time_up(struct mark_job *j)
{
	if (atomic_load_explicit(&j->stop, memory_order_relaxed))
		return true;
	if (j->deadline && now_ns() >= j->deadline) {
		atomic_store_explicit(&j->stop, true, memory_order_relaxed);
		return true;
	}
	return false;
}

#define READ_RUN 64 /* events read from the model at once */
#define PREFETCH_AHEAD 4 /* events: decoding one takes long enough to fetch a record */

/* Mark [lo, hi), looking at the clock every `every` events; returns where
 * it stopped (hi, or earlier when time is up; never before lo + 1 when
 * `must` is set). */
static uint64_t mark_run(struct mark_part *pt, uint64_t lo, uint64_t hi, bool must, uint64_t every)
{
	struct mark_job *j = pt->j;
	struct event ev[READ_RUN];
	uint64_t p = lo, acc = 0, drops[RUN_COUNTED] = {0};
	unsigned from = (unsigned)((lo - j->base) % 64);
	while (p < hi) {
		size_t n = (size_t)MIN(hi - p, READ_RUN), k = 0;
		model_read(j->t->m, p, n, ev);
		for (; k < n; k++, p++) {
			if (!(must && p == lo) &&
			    (atomic_load_explicit(&j->stop, memory_order_relaxed) || ((p - lo) % every == every - 1 && time_up(j))))
				break;
			const struct event *e = &ev[k];
			if (pt->scan)
				trace_scan(j->t, e);
			if (j->decodes && k + PREFETCH_AHEAD < n)
				trace_prefetch(j->t, &ev[k + PREFETCH_AHEAD]);
			uint64_t i = p - j->base;
			bool kept = !j->keep || j->keep(j->ctx, e);
			int drop = kept ? first_drop(j->fs, j->t, e) : -1;
			if (kept && drop < 0)
				acc |= 1ull << (i % 64);
			else if (drop >= 0 && drop < RUN_COUNTED)
				drops[drop]++;
			if (i % 64 == 63) {
				put_word(&j->bits[i / 64], from, 64, acc);
				acc = 0;
				from = 0;
			}
		}
		if (k < n)
			break;
	}
	unsigned to = (unsigned)((p - j->base) % 64);
	if (to > from)
		put_word(&j->bits[(p - j->base) / 64], from, to, acc);
	for (size_t k = 0; k < RUN_COUNTED && k < j->fs->n; k++)
		if (drops[k])
			__atomic_fetch_add(&j->fs->f[k].dropped, drops[k], __ATOMIC_RELAXED);
	return p;
}

static void mark(void *arg)
{
	struct mark_part *pt = arg;
	struct mark_job *j = pt->j;
	uint64_t len = RUN_FIRST;
	bool first = true;
	pt->hole = UINT64_MAX;
	for (;;) {
		uint64_t lo = atomic_fetch_add(&j->next, len);
		if (lo >= j->hi)
			return;
		uint64_t hi = MIN(j->hi, lo + len), t0 = now_ns();
		uint64_t reached = mark_run(pt, lo, hi, first, MAX(1, len / CLOCK_LOOKS));
		first = false;
		pt->end = MAX(pt->end, reached);
		if (reached < hi) {
			pt->hole = reached;
			return;
		}
		if (time_up(j))
			return;
		uint64_t per = (now_ns() - t0) / (hi - lo) + 1; /* ns per event */
		len = MAX(1, MIN(RUN_MAX, RUN_NS / per));
	}
}

/* Do the filters decode events (and so read their bytes)? */
static bool reads_bytes(const struct filterset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].enabled && (fs->f[i].scope == SC_TEXT || fs->f[i].scope == SC_FIELD))
			return true;
	return false;
}

#define PAR_MIN 4096 /* fewer events are not worth waking the worker */

uint64_t filterset_mark(struct filterset *fs, struct trace *t, uint64_t lo, uint64_t hi, uint64_t base, uint64_t *bits,
			filter_keep_fn *keep, void *ctx, uint64_t deadline)
{
	if (lo >= hi)
		return hi;
	struct mark_job j = {fs, t, hi, base, bits, keep, ctx, deadline, lo, false, reads_bytes(fs)};
	struct mark_part first = {&j, j.decodes, UINT64_MAX, 0}, second = {&j, false, UINT64_MAX, 0};
	bool two = hi - lo >= PAR_MIN && filterset_parallel_ok(fs, t);
	if (two) {
		filterset_prepare(fs, t);
		two = worker_start(mark, &second);
	}
	mark(&first);
	if (two)
		worker_wait();
	/* every event before the first hole is marked; those after it are taken again next time */
	uint64_t reached = MIN(MIN(first.hole, second.hole), MIN(hi, atomic_load(&j.next)));
	/* events marked past it are marked (and their drops counted) again next time */
	fs->drops_approx |= MAX(first.end, second.end) > reached;
	return reached;
}

void filterset_reset_counts(struct filterset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		fs->f[i].dropped = 0;
	fs->drops_approx = false;
}

uint64_t filter_dropped(const struct filter *f) { return __atomic_load_n(&f->dropped, __ATOMIC_RELAXED); }

/* The first enabled filter that drops the event, or -1 when it passes them all. */
static int first_drop(struct filterset *fs, struct trace *t, const struct event *e)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct filter *f = &fs->f[i];
		if (f->enabled && filter_hit(f, t, e, &fs->too_expensive) == f->exclude)
			return (int)i;
	}
	return -1;
}

bool filterset_match(struct filterset *fs, struct trace *t, const struct event *e) { return first_drop(fs, t, e) < 0; }
