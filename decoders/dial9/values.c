/* dial9/values.c: the event walker: fields decoded lazily (values, pools, stacks, symbols), summaries */
#include "decoders/dial9/dial9.h"

/* ---- the event walker (lazy decoding, and the rare events at feed time) ---- */

static bool walk_str_id(struct walk *w, uint32_t id, uint32_t *sid)
{
	if (!w->sub) {
		uint32_t v = ids_get(&w->d->cur[POOL_STR], id);
		if (v)
			*sid = w->d->pools[POOL_STR][v - 1].val;
		return v != 0;
	}
	const struct pent *p = d9_sub_pool(w->d, w->sub, POOL_STR, id, w->at);
	if (p)
		*sid = p->val;
	return p != NULL;
}

static void put_pooled_str(struct walk *w, const char *name, uint32_t id)
{
	uint32_t sid;
	if (walk_str_id(w, id, &sid)) {
		size_t n;
		const char *s = model_strget(w->d->m, sid, &n);
		f_str(w->out, name, s, n);
		return;
	}
	w->unresolved++;
	char t[48];
	snprintf(t, sizeof t, "<string %u?>", id);
	f_put(w->out, &(struct field){.name = name, .kind = FK_STR, .v.s = {t, strlen(t)},
				      .meaning = "unresolved string pool id"});
}

static int by_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorted by address and inline depth, each entry once: a file holding its
 * symbol table more than once (copies of one recording concatenated) would
 * otherwise show every frame as many times, the repeats as inlined. */
void d9_sort_syms(struct d9 *d)
{
	if (d->syms_sorted == d->nsyms)
		return;
	qsort(d->syms, d->nsyms, sizeof *d->syms, by_sym);
	size_t n = 0;
	for (size_t i = 0; i < d->nsyms; i++)
		if (!n || by_sym(&d->syms[n - 1], &d->syms[i]))
			d->syms[n++] = d->syms[i];
	d->nsyms = d->syms_sorted = n;
}

static const struct sym *sym_find(struct d9 *d, uint64_t addr, size_t *count)
{
	if (!d->nsyms)
		return NULL;
	d9_sort_syms(d);
	size_t lo = 0, hi = d->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo;
	while (k < d->nsyms && d->syms[k].addr == addr)
		k++;
	*count = k - lo;
	return k > lo ? &d->syms[lo] : NULL;
}

/* One symbol of an address: "0xADDR name (file:line)", " [inlined]" for
 * the functions inlined into the outermost one (inline depth > 0). */
static void sym_text(struct d9 *d, uint64_t addr, const struct sym *s, bool inlined, bool brief, struct buf *b)
{
	size_t len;
	const char *str = model_strget(d->m, s->name, &len);
	buf_printf(b, "0x%llx ", (unsigned long long)addr);
	if (!demangle(str, len, b)) /* (upstream writes most names readable already) */
		buf_add(b, str, len);
	if (brief)
		return;
	if (s->file) {
		str = model_strget(d->m, s->file, &len);
		buf_adds(b, " (");
		buf_add(b, str, len);
		if (s->line)
			buf_printf(b, ":%u", s->line);
		buf_addc(b, ')');
	}
	if (inlined)
		buf_adds(b, " [inlined]");
}

/* A call chain in a summary: its depth and leaf. */
static void put_stack_brief(struct walk *w, struct fsink *out, const char *name, const uint8_t *p, uint32_t count)
{
	size_t n;
	const struct sym *s;
	buf_reset(&w->val);
	buf_printf(&w->val, "%u frames", count);
	if (count) {
		buf_adds(&w->val, ", leaf ");
		if ((s = sym_find(w->d, ld64le(p), &n)))
			sym_text(w->d, ld64le(p), &s[n - 1], false, true, &w->val);
		else
			buf_printf(&w->val, "0x%llx", (unsigned long long)ld64le(p));
	}
	f_str(out, name, w->val.p, w->val.len);
}

/* A call chain of `count` leaf-first addresses at p: one frame per function,
 * inlined ones included (innermost first), as profilers show them;
 * addresses without a symbol in hex. */
static void put_stack_frames(struct walk *w, struct fsink *out, const char *name, const uint8_t *p, uint32_t count)
{
	size_t n;
	const struct sym *s;
	f_arr(out, name);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t a = ld64le(p + 8 * (size_t)i);
		if (!(s = sym_find(w->d, a, &n))) {
			f_hex(out, NULL, a);
			continue;
		}
		for (size_t k = MIN(n, MAX_INLINE); k-- > 0;) {
			buf_reset(&w->val);
			sym_text(w->d, a, &s[k], k > 0, false, &w->val);
			f_str(out, NULL, w->val.p, w->val.len);
		}
	}
	f_end(out);
}

static void put_stack(struct walk *w, const char *name, const uint8_t *p, uint32_t count)
{
	if (w->full) { /* the summary's and the fields' at once */
		put_stack_brief(w, w->summary, name, p, count);
		put_stack_frames(w, w->full, name, p, count);
	} else if (w->compact) {
		put_stack_brief(w, w->out, name, p, count);
	} else {
		put_stack_frames(w, w->out, name, p, count);
	}
}

static void put_pooled_stack(struct walk *w, const char *name, uint32_t id)
{
	const struct pent *pe = NULL;
	if (w->sub) {
		pe = d9_sub_pool(w->d, w->sub, POOL_STK, id, w->at);
	} else {
		uint32_t v = ids_get(&w->d->cur[POOL_STK], id);
		pe = v ? &w->d->pools[POOL_STK][v - 1] : NULL;
	}
	uint64_t avail = 0;
	const uint8_t *p = pe ? input_bytes(w->d->in, pe->off, &avail) : NULL;
	if (!p || avail / 8 < pe->val) {
		w->unresolved++;
		char t[48];
		snprintf(t, sizeof t, "<stack %u?>", id);
		f_put(w->out, &(struct field){.name = name, .kind = FK_STR, .v.s = {t, strlen(t)},
					      .meaning = "unresolved stack pool id"});
		return;
	}
	put_stack(w, name, p, pe->val);
}

/* What an integer field's name says of it (addresses read better in hex:
 * addr, address, *_addr).  A schema's fields are told once (d9_int_is), a
 * nested value's name each time it is read. */
uint8_t d9_int_is(const char *name)
{
	switch (name[0]) {
	case 'a':
		if (!strcmp(name, "addr") || !strcmp(name, "address"))
			return IS_ADDR;
		break;
	case 'w':
		if (!strcmp(name, "worker_id"))
			return IS_WORKER;
		if (!strcmp(name, "waker_task_id"))
			return IS_WAKER;
		break;
	case 't':
		if (!strcmp(name, "target_worker"))
			return IS_TARGET_WORKER;
		break;
	case 's':
		if (!strcmp(name, "source"))
			return IS_SOURCE;
		break;
	case 'r':
		if (!strcmp(name, "realtime_ns"))
			return IS_REALTIME;
		break;
	}
	return d9_ends_with(name, "_addr") ? IS_ADDR : IS_PLAIN;
}

/* Unix epoch nanoseconds as "2026-06-22T16:36:15.256522678Z"; false when
 * out of the years 0..9999. */
static bool utc_text(uint64_t epoch_ns, char *out, size_t n)
{
	/* every event's fields carry its wall clock (filters ask for them
	 * all): the date and time of the last second asked, kept per thread */
	enum { DATE = 19 }; /* "2026-06-22T16:36:15" */
	static __thread int64_t last_sec = INT64_MIN;
	static __thread char last[64];
	int64_t wall = (int64_t)epoch_ns, sec = wall / 1000000000, ns = wall % 1000000000;
	if (ns < 0)
		ns += 1000000000, sec--;
	if (n < DATE + 12)
		return false;
	if (sec != last_sec) {
		time_t t = (time_t)sec;
		struct tm tm;
		if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 0)
			return false;
		snprintf(last, sizeof last, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		last_sec = sec;
	}
	memcpy(out, last, DATE);
	out[DATE] = '.';
	put_digits(out + DATE + 1, (uint64_t)ns, 9);
	memcpy(out + DATE + 10, "Z", 2);
	return true;
}

/* The name of a number, for the fields a tokio user reads. */
static const char *int_name(const struct schema *s, enum int_is is, uint64_t v)
{
	if (is == IS_WORKER || (s->kind == K_WAKE && is == IS_TARGET_WORKER))
		return v == WORKER_NONE ? (s->kind == K_WAKE ? "unknown" : "not a worker")
		       : v == WORKER_BLOCKING ? "blocking pool" : NULL;
	if (s->kind == K_CPU && is == IS_SOURCE)
		return v == 0 ? "CPU profile sample" : v == 1 ? "scheduler context switch" : NULL;
	if (s->kind == K_WAKE && is == IS_WAKER && v == 0)
		return "not inside a task";
	return NULL;
}

static bool walk_value(struct walk *w, const struct schema *s, const char *name, uint8_t tag, const char *unit,
		       const uint8_t **pp, const uint8_t *e, unsigned depth);

/* A key of a DynamicMap, as a field name. */
static const char *dyn_key(struct walk *w, uint8_t tag, const uint8_t **pp, const uint8_t *e)
{
	const uint8_t *p = *pp;
	buf_reset(&w->key);
	uint64_t v;
	if (tag & FT_OPT) { /* never written; read a presence byte as at top level */
		if (left(p, e) < 1)
			return NULL;
		if (!*p++) {
			*pp = p;
			return "null";
		}
	}
	switch (tag & 0x7f) {
	case FT_STRING:
	case FT_BYTES:
		if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
			return NULL;
		buf_add(&w->key, p + 4, ld32le(p));
		p += 4 + ld32le(p);
		break;
	case FT_PSTR: {
		uint32_t sid;
		if (left(p, e) < 4)
			return NULL;
		if (walk_str_id(w, ld32le(p), &sid)) {
			size_t n;
			const char *s = model_strget(w->d->m, sid, &n);
			buf_add(&w->key, s, n);
		} else {
			buf_printf(&w->key, "<string %u?>", ld32le(p));
			w->unresolved++;
		}
		p += 4;
		break;
	}
	case FT_VARINT:
		if (varint(&p, e, &v) != V_OK)
			return NULL;
		buf_printf(&w->key, "%llu", (unsigned long long)v);
		break;
	case FT_U8: if (left(p, e) < 1) return NULL; buf_printf(&w->key, "%u", p[0]); p += 1; break;
	case FT_U16: if (left(p, e) < 2) return NULL; buf_printf(&w->key, "%u", ld16le(p)); p += 2; break;
	case FT_U32: if (left(p, e) < 4) return NULL; buf_printf(&w->key, "%u", ld32le(p)); p += 4; break;
	case FT_I64: if (left(p, e) < 8) return NULL; buf_printf(&w->key, "%lld", (long long)ld64le(p)); p += 8; break;
	case FT_BOOL: if (left(p, e) < 1) return NULL; buf_adds(&w->key, p[0] ? "true" : "false"); p += 1; break;
	default: return NULL; /* keys of other types are shown by position */
	}
	*pp = p;
	return buf_str(&w->key);
}

/* An unsigned integer field (varint, u8, u16, u32), with what it means. */
static bool walk_uint(struct walk *w, const struct schema *s, const char *name, uint8_t tag, const char *unit,
		      const uint8_t **pp, const uint8_t *e)
{
	const uint8_t *p = *pp;
	uint64_t v;
	if (tag == FT_VARINT) {
		if (varint(&p, e, &v) != V_OK)
			return false;
	} else {
		size_t n = tag == FT_U8 ? 1 : tag == FT_U16 ? 2 : 4;
		if (left(p, e) < n)
			return false;
		v = n == 1 ? p[0] : n == 2 ? ld16le(p) : ld32le(p);
		p += n;
	}
	char tmp[48];
	enum int_is is = s ? w->top_is : name ? d9_int_is(name) : IS_PLAIN; /* (s: a schema's own field) */
	f_put(w->out, &(struct field){.name = name, .kind = is == IS_ADDR ? FK_HEX : FK_UINT, .v.u = v, .unit = unit,
				      .value_name = s ? int_name(s, is, v) : NULL,
				      .meaning = is == IS_REALTIME && utc_text(v, tmp, sizeof tmp) ? tmp : NULL});
	*pp = p;
	return true;
}

/* A string map: u32 count, then (u32 length, key, u32 length, value) pairs. */
static bool walk_map(struct walk *w, const char *name, const uint8_t **pp, const uint8_t *e)
{
	const uint8_t *p = *pp;
	if (left(p, e) < 4)
		return false;
	uint32_t n = ld32le(p);
	p += 4;
	if (left(p, e) / 8 < n)
		return false;
	f_obj(w->out, name);
	for (uint32_t i = 0; i < n; i++) {
		if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
			return false;
		const uint8_t *k = p + 4;
		uint32_t kl = ld32le(p);
		p = k + kl;
		if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
			return false;
		buf_reset(&w->key);
		buf_add(&w->key, k, kl);
		f_str(w->out, buf_str(&w->key), p + 4, ld32le(p));
		p += 4 + (size_t)ld32le(p);
	}
	f_end(w->out);
	*pp = p;
	return true;
}

/* A DynamicList or DynamicMap: u32 count, then tagged values (a map's
 * entries are a tagged key, then a tagged value), nested at most MAX_NEST. */
static bool walk_dynamic(struct walk *w, const char *name, uint8_t tag, const uint8_t **pp, const uint8_t *e,
			 unsigned depth)
{
	const uint8_t *p = *pp;
	struct fsink *o = w->out;
	if (left(p, e) < 4 || depth >= MAX_NEST)
		return false;
	uint32_t n = ld32le(p);
	p += 4;
	if (left(p, e) / (tag == FT_DLIST ? 1 : 2) < n)
		return false;
	if (tag == FT_DLIST)
		f_arr(o, name);
	else
		f_obj(o, name);
	for (uint32_t i = 0; i < n; i++) {
		char *key = NULL; /* a DynamicMap's scalar key names its value */
		if (tag == FT_DMAP) {
			if (left(p, e) < 1 || !valid_tag(*p))
				return false;
			uint8_t kt = *p++;
			const uint8_t *kp = p;
			const char *k = dyn_key(w, kt, &p, e);
			if (k) {
				key = xstrdup(k); /* the value may reuse w->key */
			} else { /* not a scalar: {"key": ..., "value": ...} */
				p = kp;
				char pos[24];
				snprintf(pos, sizeof pos, "#%u", i);
				f_obj(o, pos);
				if (!walk_value(w, NULL, "key", kt, NULL, &p, e, depth + 1))
					return false;
			}
		}
		bool ok = left(p, e) >= 1 && valid_tag(*p);
		if (ok) {
			uint8_t vt = *p++;
			ok = walk_value(w, NULL, tag == FT_DLIST ? NULL : key ? key : "value", vt, NULL, &p, e, depth + 1);
		}
		if (tag == FT_DMAP && !key)
			f_end(o);
		free(key);
		if (!ok)
			return false;
	}
	f_end(o);
	*pp = p;
	return true;
}

static bool walk_value(struct walk *w, const struct schema *s, const char *name, uint8_t tag, const char *unit,
		       const uint8_t **pp, const uint8_t *e, unsigned depth)
{
	const uint8_t *p = *pp;
	struct fsink *o = w->out;
	if (tag & FT_OPT) {
		if (left(p, e) < 1)
			return false;
		if (!*p++) {
			f_null(o, name);
			*pp = p;
			return true;
		}
		tag &= 0x7f;
	}
	switch (tag) {
	case FT_I64:
		if (left(p, e) < 8)
			return false;
		f_put(o, &(struct field){.name = name, .kind = FK_INT, .v.i = (int64_t)ld64le(p), .unit = unit});
		p += 8;
		break;
	case FT_F64: {
		if (left(p, e) < 8)
			return false;
		uint64_t bits = ld64le(p);
		double x;
		memcpy(&x, &bits, 8);
		f_put(o, &(struct field){.name = name, .kind = FK_DOUBLE, .v.d = x, .unit = unit});
		p += 8;
		break;
	}
	case FT_BOOL:
		if (left(p, e) < 1)
			return false;
		f_bool(o, name, *p++ != 0);
		break;
	case FT_STRING:
	case FT_BYTES:
		if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
			return false;
		if (tag == FT_STRING)
			f_str(o, name, p + 4, ld32le(p));
		else
			f_bytes(o, name, p + 4, ld32le(p));
		p += 4 + (size_t)ld32le(p);
		break;
	case FT_PSTACK:
		if (left(p, e) < 4)
			return false;
		put_pooled_stack(w, name, ld32le(p));
		p += 4;
		break;
	case FT_PSTR:
		if (left(p, e) < 4)
			return false;
		put_pooled_str(w, name, ld32le(p));
		p += 4;
		break;
	case FT_STACK: {
		if (left(p, e) < 4 || left(p + 4, e) / 8 < ld32le(p))
			return false;
		uint32_t n = ld32le(p);
		put_stack(w, name, p + 4, n);
		p += 4 + 8 * (size_t)n;
		break;
	}
	case FT_VARINT:
	case FT_U8:
	case FT_U16:
	case FT_U32:
		if (!walk_uint(w, s, name, tag, unit, &p, e))
			return false;
		break;
	case FT_MAP:
		if (!walk_map(w, name, &p, e))
			return false;
		break;
	case FT_DLIST:
	case FT_DMAP:
		if (!walk_dynamic(w, name, tag, &p, e, depth))
			return false;
		break;
	default: return false;
	}
	*pp = p;
	return true;
}

/* Walk the fields of the event frame at p (the tag byte).  False when its
 * bytes do not decode (they did at feed time: the file changed underneath). */
bool d9_walk_event(struct walk *w, const struct schema *s, const uint8_t *p, const uint8_t *e)
{
	p += s->has_ts ? 6 : 3;
	for (unsigned i = 0; i < s->nfields; i++) {
		const struct dfield *f = &s->f[i];
		w->top_is = f->is;
		if (!walk_value(w, s, f->name, (uint8_t)(f->tag | (f->opt ? FT_OPT : 0)), f->unit, &p, e, 0))
			return false;
	}
	return true;
}

void d9_capture_put(struct fsink *s, const struct field *f)
{
	struct capture *c = (struct capture *)s;
	if (f->kind == FK_END) {
		if (c->depth)
			c->depth--;
		return;
	}
	if (c->depth || !f->name) {
		if (f->kind == FK_OBJ || f->kind == FK_ARR)
			c->depth++;
		return;
	}
	if (f->kind == FK_OBJ || f->kind == FK_ARR) {
		c->depth++;
		return;
	}
	for (unsigned i = 0; i < c->n; i++) {
		if (strcmp(f->name, c->names[i]))
			continue;
		if (f->kind == FK_UINT || f->kind == FK_HEX || f->kind == FK_INT) {
			c->u[i] = f->v.u;
			c->have[i] = 1;
		} else if (f->kind == FK_STR && !f->meaning) {
			c->p[i] = f->v.s.p;
			c->len[i] = f->v.s.n;
			c->have[i] = 2;
		}
	}
}

/* ---- lazy decoding -------------------------------------------------------- */

/* The event frame at e->off, its sub-stream and schema. */
static const struct schema *locate(struct d9 *d, const struct event *e, const uint8_t **p, const uint8_t **end,
				   const struct sub **sub)
{
	uint64_t avail;
	*p = input_bytes(d->in, e->off, &avail);
	*sub = d9_sub_of(d, e->off);
	if (!*p || avail < 3 || **p != TAG_EVENT || !*sub)
		return NULL;
	*end = *p + avail;
	return d9_sub_schema(d, *sub, ld16le(*p + 1));
}

static int by_clock(const void *a, const void *b)
{
	const struct clock *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void sort_clocks(struct d9 *d)
{
	if (d->clocks_sorted != d->nclocks) {
		qsort(d->clocks, d->nclocks, sizeof *d->clocks, by_clock);
		d->clocks_sorted = d->nclocks;
	}
}

/* Wall-clock time of a timestamp, from the nearest ClockSyncEvent. */
bool d9_wall_clock(struct d9 *d, int64_t ts, struct buf *b)
{
	if (!d->nclocks)
		return false;
	sort_clocks(d);
	size_t lo = 0, hi = d->nclocks; /* the first sync at or after ts, or the one before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->clocks[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct clock *best = &d->clocks[lo < d->nclocks ? lo : lo - 1];
	if (lo > 0 && lo < d->nclocks && (uint64_t)ts - (uint64_t)d->clocks[lo - 1].ts < (uint64_t)best->ts - (uint64_t)ts)
		best = &d->clocks[lo - 1];
	char t[40];
	if (!utc_text(best->realtime + ((uint64_t)ts - (uint64_t)best->ts), t, sizeof t))
		return false;
	buf_adds(b, t);
	return true;
}

/* The fields before the event's own: its wall-clock time, and what a
 * span's schema name says. */
static void put_derived(struct walk *w, const struct schema *s, const struct event *e, struct fsink *out)
{
	if (s->has_ts && !(s->kind == K_SYMBOL && e->ts == 0) && d9_wall_clock(w->d, e->ts, &w->val))
		f_put(out, &(struct field){F_NAME("wall_clock"), .kind = FK_STR, .v.s = {w->val.p, w->val.len},
					   .meaning = "UTC, from ClockSyncEvent"});
	if (s->kind == K_SPAN_ENTER || s->kind == K_SPAN_EXIT) {
		const char *under = strstr(s->name, "__"), *colon = strchr(s->name, ':');
		if (under && (!colon || under < colon))
			f_cstr(out, "span_type", under + 2); /* SpanEnter__{T} */
		else if (colon)
			f_cstr(out, "call_site", colon + 1); /* SpanEnter:{target}::{name}:{file}:{line} */
	}
}

void d9_fields(void *st, const struct event *e, struct fsink *out)
{
	struct d9 *d = st;
	const uint8_t *p, *end;
	const struct sub *sub;
	const struct schema *s = locate(d, e, &p, &end, &sub);
	if (!s) {
		f_cstr(out, "error", "event not readable");
		return;
	}
	struct walk w = {.d = d, .sub = sub, .at = e->off, .out = out};
	put_derived(&w, s, e, out);
	if (!d9_walk_event(&w, s, p, end))
		f_cstr(out, "error", "event not readable");
	buf_free(&w.key);
	buf_free(&w.val);
}

/* Every table fields and summaries sort on first use, sorted now: until
 * the next feed they only read (the decoder is reentrant after this). */
void d9_settle(void *st)
{
	struct d9 *d = st;
	for (size_t i = 0; i < d->nsubs; i++) {
		d9_sort_sub_schemas(d, &d->subs[i]);
		d9_sort_sub_pool(d, &d->subs[i], POOL_STR);
		d9_sort_sub_pool(d, &d->subs[i], POOL_STK);
	}
	d9_sort_syms(d);
	sort_clocks(d);
}

/* A sink passing on one top-level field. */
struct only_sink {
	struct fsink s;
	struct fsink *to;
	const char *name;
	unsigned depth;
};

static void only_put(struct fsink *s, const struct field *f)
{
	struct only_sink *o = (struct only_sink *)s;
	if (!o->depth && f->kind != FK_END && f->name && !strcmp(f->name, o->name))
		f_put(o->to, f);
	if (f->kind == FK_OBJ || f->kind == FK_ARR)
		o->depth++;
	else if (f->kind == FK_END && o->depth)
		o->depth--;
}

/* The summary's sink: the fields on a line, or a counter track's sample
 * value alone. */
static struct fsink *summary_sink(struct d9 *d, const struct event *e, struct line_sink *ls, struct only_sink *only)
{
	uint32_t vf = model_type_get(d->m, e->type)->value_field;
	if (!vf)
		return &ls->s;
	*only = (struct only_sink){.s.put = only_put, .to = &ls->s, .name = model_strget(d->m, vf, NULL)};
	return &only->s;
}

void d9_summary(void *st, const struct event *e, struct buf *b)
{
	struct d9 *d = st;
	const uint8_t *p, *end;
	const struct sub *sub;
	const struct schema *s = locate(d, e, &p, &end, &sub);
	if (!s) {
		buf_adds(b, "(event not readable)");
		return;
	}
	struct line_sink ls;
	struct only_sink only;
	line_sink_init(&ls, b);
	struct walk w = {.d = d, .sub = sub, .at = e->off, .out = summary_sink(d, e, &ls, &only), .compact = true};
	if (!d9_walk_event(&w, s, p, end))
		buf_adds(b, " (event not readable)");
	buf_free(&w.key);
	buf_free(&w.val);
}

/* A sink passing each field on to two. */
struct tee_sink {
	struct fsink s, *a, *b;
};

static void tee_put(struct fsink *s, const struct field *f)
{
	struct tee_sink *t = (struct tee_sink *)s;
	f_put(t->a, f);
	f_put(t->b, f);
}

/* d9_summary and d9_fields (as a line) in one walk of the event. */
void d9_summary_fields(void *st, const struct event *e, struct buf *summary, struct buf *fields)
{
	struct d9 *d = st;
	const uint8_t *p, *end;
	const struct sub *sub;
	const struct schema *s = locate(d, e, &p, &end, &sub);
	struct line_sink sl, fl;
	line_sink_init(&fl, fields);
	if (!s) {
		buf_adds(summary, "(event not readable)");
		f_cstr(&fl.s, "error", "event not readable");
		return;
	}
	struct only_sink only;
	line_sink_init(&sl, summary);
	struct fsink *sum = summary_sink(d, e, &sl, &only);
	struct tee_sink both = {{tee_put}, sum, &fl.s};
	struct line_tee lines; /* (the common case: a field's text written once) */
	line_tee_init(&lines, &sl, &fl);
	struct walk w = {.d = d, .sub = sub, .at = e->off, .out = sum == &sl.s ? &lines.s : &both.s, .summary = sum,
			 .full = &fl.s};
	put_derived(&w, s, e, &fl.s);
	if (!d9_walk_event(&w, s, p, end)) {
		buf_adds(summary, " (event not readable)");
		f_cstr(&fl.s, "error", "event not readable");
	}
	buf_free(&w.key);
	buf_free(&w.val);
}
