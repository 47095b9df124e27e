/* dial9/frames.c: feed: frames checked, events emitted, the rare events read at feed time */
#include "decoders/dial9/dial9.h"

#define FRAME_TORN 0
#define FRAME_BAD SIZE_MAX

/* What the event loop extracts: the model's lane and name. */
struct evvals {
	uint64_t worker, tid, span, span_id, instance, parent;
	bool have_worker, have_tid, have_span;
	uint8_t name_kind; /* 0 none, 1 pool id, 2 inline string */
	uint32_t name_id, name_len;
	const uint8_t *name_p;
	uint32_t unres_str, unres_stk;
	bool nested_opt;
};

static void bad(struct d9 *d, uint64_t off, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void bad(struct d9 *d, uint64_t off, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	dec_fatal(d->in, off, "%s", buf_str(&b));
	buf_free(&b);
}

/* Skip a DynamicList or DynamicMap value (tag given), checking pooled ids. */
static int skip_dyn(struct d9 *d, uint8_t tag, const uint8_t **pp, const uint8_t *e, unsigned depth,
		    struct evvals *v);

static int skip_value(struct d9 *d, uint8_t tag, const uint8_t **pp, const uint8_t *e, unsigned depth,
		      struct evvals *v)
{
	const uint8_t *p = *pp;
	if (tag & FT_OPT) {
		v->nested_opt = true;
		if (p >= e)
			return V_TORN;
		if (!*p++) {
			*pp = p;
			return V_OK;
		}
		tag &= 0x7f;
	}
	uint64_t x;
	size_t n;
	switch (tag) {
	case FT_I64:
	case FT_F64: n = 8; break;
	case FT_BOOL:
	case FT_U8: n = 1; break;
	case FT_U16: n = 2; break;
	case FT_U32: n = 4; break;
	case FT_PSTR:
	case FT_PSTACK:
		if (left(p, e) < 4)
			return V_TORN;
		if (!ids_get(&d->cur[tag == FT_PSTR ? POOL_STR : POOL_STK], ld32le(p)))
			*(tag == FT_PSTR ? &v->unres_str : &v->unres_stk) += 1;
		n = 4;
		break;
	case FT_STRING:
	case FT_BYTES:
		if (left(p, e) < 4)
			return V_TORN;
		n = 4 + (size_t)ld32le(p);
		break;
	case FT_STACK:
		if (left(p, e) < 4)
			return V_TORN;
		n = 4 + 8 * (size_t)ld32le(p);
		break;
	case FT_VARINT: {
		int r = varint(&p, e, &x);
		if (r == V_OK)
			*pp = p;
		return r;
	}
	case FT_MAP: {
		if (left(p, e) < 4)
			return V_TORN;
		uint32_t cnt = ld32le(p);
		p += 4;
		for (uint32_t i = 0; i < 2 * cnt; i++) {
			if (left(p, e) < 4 || left(p + 4, e) < ld32le(p))
				return V_TORN;
			p += 4 + (size_t)ld32le(p);
		}
		*pp = p;
		return V_OK;
	}
	case FT_DLIST:
	case FT_DMAP: return skip_dyn(d, tag, pp, e, depth, v);
	default: return V_BADTAG;
	}
	if (left(p, e) < n)
		return V_TORN;
	*pp = p + n;
	return V_OK;
}

static int skip_dyn(struct d9 *d, uint8_t tag, const uint8_t **pp, const uint8_t *e, unsigned depth,
		    struct evvals *v)
{
	const uint8_t *p = *pp;
	if (depth >= MAX_NEST)
		return V_DEEP;
	if (left(p, e) < 4)
		return V_TORN;
	uint32_t n = ld32le(p);
	p += 4;
	unsigned per = tag == FT_DLIST ? 1 : 2;
	for (uint32_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < per; k++) {
			if (p >= e)
				return V_TORN;
			uint8_t t = *p++;
			if (!valid_tag(t))
				return V_BADTAG;
			int r = skip_value(d, t, &p, e, depth + 1, v);
			if (r != V_OK)
				return r;
		}
	}
	*pp = p;
	return V_OK;
}

/* Run a schema's ops over an event's values. */
static inline int run_ops(struct d9 *d, const struct schema *s, const uint8_t **qp, const uint8_t *e,
			  struct evvals *v)
{
	const uint8_t *q = *qp;
	for (const struct op *o = s->ops, *oe = s->ops + s->nops; o < oe; o++) {
		if (UNLIKELY(o->opt)) {
			if (q >= e)
				return V_TORN;
			if (!*q++)
				continue;
		}
		uint64_t x;
		switch (o->code) {
		case OP_FIXED:
			if (left(q, e) < o->n)
				return V_TORN;
			q += o->n;
			continue;
		case OP_VARINT: {
			int r = varint(&q, e, &x);
			if (r != V_OK)
				return r;
			break;
		}
		case OP_U8:
			if (q >= e)
				return V_TORN;
			x = *q++;
			break;
		case OP_U16:
			if (left(q, e) < 2)
				return V_TORN;
			x = ld16le(q);
			q += 2;
			break;
		case OP_U32:
			if (left(q, e) < 4)
				return V_TORN;
			x = ld32le(q);
			q += 4;
			break;
		case OP_I64:
			if (left(q, e) < 8)
				return V_TORN;
			x = ld64le(q);
			q += 8;
			if ((int64_t)x < 0) /* a negative start or length: no span */
				continue;
			break;
		case OP_PSTR:
		case OP_PSTACK: {
			if (left(q, e) < 4)
				return V_TORN;
			uint32_t id = ld32le(q);
			q += 4;
			if (o->code == OP_PSTR) {
				if (!ids_get(&d->cur[POOL_STR], id))
					v->unres_str++;
				if (o->role == R_NAME)
					v->name_kind = 1, v->name_id = id;
			} else if (!ids_get(&d->cur[POOL_STK], id)) {
				v->unres_stk++;
			}
			continue;
		}
		case OP_STR: {
			if (left(q, e) < 4)
				return V_TORN;
			uint32_t n = ld32le(q);
			if (left(q + 4, e) < n)
				return V_TORN;
			if (o->role == R_NAME && o->tag == FT_STRING)
				v->name_kind = 2, v->name_p = q + 4, v->name_len = n;
			q += 4 + (size_t)n;
			continue;
		}
		case OP_STACK: {
			if (left(q, e) < 4)
				return V_TORN;
			uint32_t n = ld32le(q);
			if (left(q + 4, e) / 8 < n)
				return V_TORN;
			q += 4 + 8 * (size_t)n;
			continue;
		}
		default: {
			int r = skip_value(d, o->tag, &q, e, 0, v);
			if (r != V_OK)
				return r;
			continue;
		}
		}
		/* an integer the model needs */
		if (o->role == R_WORKER)
			v->worker = x, v->have_worker = true;
		else if (o->role == R_TID)
			v->tid = x, v->have_tid = true;
		else if (o->role == R_SPAN)
			v->span = x, v->have_span = true;
		else if (o->role == R_SPAN_ID)
			v->span_id = x;
		else if (o->role == R_INSTANCE)
			v->instance = x;
		else if (o->role == R_PARENT)
			v->parent = x;
	}
	*qp = q;
	return V_OK;
}

/* An event with metric fields is also a sample on each one's counter track
 * (a lane "Schema.field (gauge)"), at the event's time. */
static void metric_samples(struct d9 *d, const struct schema *s, int64_t ts, uint32_t flags, uint64_t fo)
{
	static const char *const kinds[] = {NULL, "gauge", "counter", "updown-counter"};
	for (uint16_t j = 0; j < s->nmetrics; j++) {
		uint64_t lane;
		if (!hmap_get(&d->metric_lanes, s->metric_type[j], &lane)) {
			const struct dfield *f = &s->f[s->metric_field[j]];
			struct buf name = {0};
			buf_printf(&name, "%s%s.%s (%s)", d->lane_prefix ? d->lane_prefix : "", s->name, f->name,
				   kinds[f->metric]);
			lane = dec_lane(d->in, LKEY(LK_METRIC, (uint32_t)hash_bytes(name.p, name.len)), name.p);
			model_lane_set_counter(d->m, (uint32_t)lane);
			hmap_put(&d->metric_lanes, s->metric_type[j], lane);
			buf_free(&name);
		}
		struct event me = {.ts = ts, .dur = TTV_NODUR, .lane = (uint32_t)lane, .type = s->metric_type[j],
				   .flags = ROLE_INSTANT | (flags & EVF_DAMAGED), .off = fo};
		emit(d, &me);
	}
}

/* A complete span ends at its event's time; its field gives the start or
 * the length.  Without the field (absent, negative, too large), or with a
 * start after the end, the event stays an instant, flagged damaged. */
static void complete_span(struct d9 *d, const struct schema *s, const struct evvals *v, struct event *ev)
{
	if (v->have_span && s->has_ts && v->span <= INT64_MAX / s->span_scale) {
		int64_t ns = (int64_t)(v->span * s->span_scale); /* ts >= 0: ts - ns cannot overflow */
		int64_t start = s->span_is_start ? ns : ev->ts - ns;
		if (start <= ev->ts) {
			ev->dur = (uint64_t)(ev->ts - start);
			ev->ts = start;
			return;
		}
	}
	ev->flags = (ev->flags & ~(uint32_t)EVF_ROLE) | ROLE_INSTANT | EVF_DAMAGED;
	if (!d->bad_spans++)
		dec_damage(d->in, ev->off,
			   "span %s: %s (kept as an instant at its end, flagged damaged; --info counts such spans)",
			   s->name, !v->have_span ? "its start or duration is absent or negative"
				    : s->span_is_start ? "it starts after it ends" : "its duration is too long");
}

/* A span enter or exit, paired on its ids (spans.c): an exit that finds
 * its enter carries the distance to it. */
static void pair_span(struct d9 *d, const struct schema *s, const struct evvals *v, struct event *ev)
{
	struct span_ids k = {.instance = v->instance, .span_id = v->span_id, .name = ev->name};
	k.thread = v->have_tid ? v->tid : v->have_worker ? v->worker | 1ull << 63 : 0;
	if (s->kind == K_SPAN_ENTER) {
		d9_span_enter(d, &k, ev->ts);
	} else {
		ev->dur = d9_span_exit(d, &k, ev->ts);
		if (ev->dur != TTV_NODUR)
			ev->flags |= EVF_MARK;
	}
}

/* Symbols and clock syncs: read their fields now, with the current pools. */
static void note_rare(struct d9 *d, const struct schema *s, const uint8_t *f, const uint8_t *e, int64_t ts)
{
	static const char *const sym_names[] = {"addr", "symbol_name", "inline_depth", "source_file", "source_line",
						"address", "symbol"};
	static const char *const clock_names[] = {"realtime_ns"};
	struct capture c = {.s.put = d9_capture_put};
	if (s->kind == K_CLOCK)
		c.names = clock_names, c.n = 1;
	else
		c.names = sym_names, c.n = ARRAY_LEN(sym_names);
	struct walk w = {.d = d, .out = &c.s};
	bool ok = d9_walk_event(&w, s, f, e);
	buf_free(&w.key);
	buf_free(&w.val);
	if (!ok)
		return;
	if (s->kind == K_CLOCK) {
		if (c.have[0] == 1) {
			xgrow(&d->clocks, &d->capclocks, d->nclocks + 1, sizeof *d->clocks);
			d->clocks[d->nclocks++] = (struct clock){ts, c.u[0]};
			if (c.u[0] <= INT64_MAX)
				dec_clock_anchor(d->in, ts, (int64_t)c.u[0]);
		}
		return;
	}
	/* SymbolTableEntry (addr, symbol_name ...), or CallframeDefEvent (address, symbol) */
	int a = c.have[0] == 1 ? 0 : c.have[5] == 1 ? 5 : -1, n = c.have[1] == 2 ? 1 : c.have[6] == 2 ? 6 : -1;
	if (a < 0 || n < 0)
		return;
	xgrow(&d->syms, &d->capsyms, d->nsyms + 1, sizeof *d->syms);
	d->syms[d->nsyms++] = (struct sym){
		.addr = c.u[a],
		.name = model_str(d->m, c.p[n], c.len[n]),
		.file = c.have[3] == 2 ? model_str(d->m, c.p[3], c.len[3]) : 0,
		.line = c.have[4] == 1 ? (uint32_t)c.u[4] : 0,
		.depth = c.have[2] == 1 ? (uint32_t)c.u[2] : 0,
	};
}

static uint32_t unresolved_name(struct d9 *d, uint32_t id)
{
	char t[48];
	snprintf(t, sizeof t, "<string %u?>", id);
	return model_str(d->m, t, strlen(t));
}

static size_t event_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo)
{
	if (left(f, e) < 3)
		return FRAME_TORN;
	uint32_t id = ld16le(f + 1);
	const struct schema *s = cur_schema(d, id);
	if (UNLIKELY(!s)) {
		bad(d, fo, "unknown type_id %u (no schema for it in this sub-stream)", id);
		return FRAME_BAD;
	}
	const uint8_t *q = f + 3;
	int64_t ts;
	uint64_t stamp = 0; /* the time as written (u64 ns) */
	uint32_t flags = s->flags;
	if (LIKELY(s->has_ts)) {
		if (left(q, e) < 3)
			return FRAME_TORN;
		uint64_t delta = ld24le(q);
		q += 3;
		stamp = d->base > UINT64_MAX - delta ? UINT64_MAX : d->base + delta;
		ts = (int64_t)MIN(stamp, (uint64_t)INT64_MAX);
		/* the timeline is signed: a later time is kept at its end, flagged */
		if (UNLIKELY(stamp > (uint64_t)INT64_MAX))
			flags |= EVF_DAMAGED;
	} else {
		ts = d->last_ts;
		flags |= EVF_NO_TS;
	}
	struct evvals v;
	v.have_worker = v.have_tid = false;
	v.span_id = v.instance = v.parent = 0;
	v.name_kind = 0;
	v.unres_str = v.unres_stk = 0;
	v.nested_opt = false;
	int r = run_ops(d, s, &q, e, &v);
	if (UNLIKELY(r != V_OK)) {
		if (r == V_TORN)
			return FRAME_TORN;
		bad(d, fo, "bad %s in event %s (type_id %u)",
		    r == V_BAD ? "varint (longer than 10 bytes, or above 2^64-1)"
		    : r == V_BADTAG ? "element type in a dynamic list or map" : "nesting (dynamic values deeper than 32)",
		    s->name, id);
		return FRAME_BAD;
	}

	/* the whole frame is here: commit */
	if (s->has_ts) {
		d->base = stamp;
		if (UNLIKELY(stamp > (uint64_t)INT64_MAX) && !d->ts_beyond++)
			dec_damage(d->in, fo, "timestamp %llu ns is beyond 2^63-1 ns: the event is kept at 2^63-1 ns, "
					      "flagged damaged (so are any later ones; --info counts them)",
				   (unsigned long long)stamp);
		if (ts < d->prev_ts)
			d->back_steps++;
		d->prev_ts = ts;
		if (!(flags & EVF_META) && (!d->have_min || ts < d->min_ts)) {
			d->min_ts = ts;
			d->have_min = true;
		}
	} else {
		d->no_ts++;
	}
	d->last_ts = ts;
	d->frames[FR_EVENT]++;
	if (UNLIKELY(v.unres_str | v.unres_stk | v.nested_opt)) {
		d->unres_str += v.unres_str;
		d->unres_stk += v.unres_stk;
		d->nested_opt += v.nested_opt;
		flags |= EVF_DAMAGED;
	}
	uint32_t name = 0;
	if (v.name_kind == 1) {
		uint32_t pe = ids_get(&d->cur[POOL_STR], v.name_id);
		name = pe ? d->pools[POOL_STR][pe - 1].val : unresolved_name(d, v.name_id);
	} else if (v.name_kind == 2) {
		name = model_str(d->m, v.name_p, v.name_len);
	}
	if (UNLIKELY(s->kind >= K_SYMBOL))
		if (s->kind != K_METADATA)
			note_rare(d, s, f, q, ts);

	if (UNLIKELY(s->nmetrics))
		metric_samples(d, s, ts, flags, fo);
	struct event ev = {.ts = ts, .dur = TTV_NODUR, .type = s->type, .name = name, .flags = flags, .off = fo};
	if (s->kind == K_SPAN_COMPLETE) {
		complete_span(d, s, &v, &ev);
		if (s->links && v.instance && ev.dur != TTV_NODUR)
			d9_span_link(d, fo, v.instance, v.parent);
	} else if (s->kind == K_SPAN_ENTER || s->kind == K_SPAN_EXIT) {
		pair_span(d, s, &v, &ev);
	}
	if (v.have_worker && v.worker < WORKER_NONE) {
		ev.lane = d9_worker_lane(d, v.worker);
		if (v.have_tid)
			d9_learn_tid(d, v.tid, v.worker);
	} else if (v.have_tid) {
		uint64_t w;
		if (hmap_get(&d->tid_worker, v.tid, &w)) {
			ev.lane = d9_worker_lane(d, w);
			d->mapped_samples++;
		} else {
			d9_pend_add(d, &ev, (uint32_t)v.tid, s->kind == K_CPU ? name : 0);
			return (size_t)(q - f);
		}
	} else if (v.have_worker) {
		ev.lane = d9_worker_lane(d, v.worker);
	} else if (flags & EVF_META || s->kind == K_CLOCK) {
		ev.lane = d9_fixed_lane(d, &d->meta_lane, LKEY(LK_META, 0), "metadata");
	} else if (s->kind == K_SPAN_COMPLETE) { /* spans of no thread: their lifetimes, from close events */
		ev.lane = d9_fixed_lane(d, &d->spans_lane, LKEY(LK_SPANS, 0), "spans");
	} else {
		ev.lane = d9_fixed_lane(d, &d->runtime_lane, LKEY(LK_RUNTIME, 0), "runtime");
	}
	emit(d, &ev);
	return (size_t)(q - f);
}

/* Where the next frame starts, for the frames that are not events; checks
 * every length and count against the bytes present. */
static size_t schema_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo)
{
	const uint8_t *p;
	unsigned fi;
	if (left(f, e) < 3) /* (its type_id not all here: schema_body would start past e) */
		return FRAME_TORN;
	int r = schema_body(f + 3, e, &p, &fi);
	if (r == V_TORN)
		return FRAME_TORN;
	uint32_t id = ld16le(f + 1);
	if (r == V_BADTAG) {
		bad(d, fo, "unknown field type 0x%02x in schema (type_id %u, field %u)", *p, id, fi);
		return FRAME_BAD;
	}
	size_t len = (size_t)(p - f);
	const uint8_t *key = f + 3;
	uint32_t nkey = (uint32_t)(len - 3);
	struct schema *old = cur_schema(d, id);
	if (old) {
		if (old->nraw != nkey || memcmp(old->key, key, nkey)) {
			bad(d, fo, "schema conflict for type_id %u: '%s' is redefined differently in this sub-stream", id,
			    old->name);
			return FRAME_BAD;
		}
		d->schema_repeats++; /* the same again: allowed */
	} else {
		uint32_t si = d9_schema_get(d, key, nkey, nkey);
		if (!d->page[id >> 8])
			d->page[id >> 8] = xcalloc(256, sizeof(struct slot));
		d->page[id >> 8][id & 255] = (struct slot){d->sch[si], (uint32_t)d->ntents};
		xgrow(&d->tents, &d->captents, d->ntents + 1, sizeof *d->tents);
		d->tents[d->ntents++] = (struct tent){id, si};
	}
	d->frames[FR_SCHEMA]++;
	return len;
}

static size_t pool_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo, int k)
{
	if (left(f, e) < 5)
		return FRAME_TORN;
	uint32_t n = ld32le(f + 1);
	const uint8_t *p = f + 5;
	if (left(p, e) / 8 < n) /* each entry is at least 8 bytes: do not believe a count the data cannot hold */
		return FRAME_TORN;
	for (uint32_t i = 0; i < n; i++) {
		if (left(p, e) < 8)
			return FRAME_TORN;
		uint32_t len = ld32le(p + 4);
		if ((k == POOL_STR ? left(p + 8, e) : left(p + 8, e) / 8) < len)
			return FRAME_TORN;
		p += 8 + (k == POOL_STR ? (size_t)len : 8 * (size_t)len);
	}
	p = f + 5;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = ld32le(p), len = ld32le(p + 4);
		if (k == POOL_STR)
			d9_pool_add(d, k, id, model_str(d->m, p + 8, len), fo);
		else
			d9_pool_add(d, k, id, len, fo + (uint64_t)(p + 8 - f));
		p += 8 + (k == POOL_STR ? (size_t)len : 8 * (size_t)len);
	}
	d->frames[k == POOL_STR ? FR_STRPOOL : FR_STKPOOL]++;
	return (size_t)(p - f);
}

static size_t annot_frame(struct d9 *d, const uint8_t *f, const uint8_t *e, uint64_t fo)
{
	const uint8_t *p = f + 1;
	uint64_t id;
	int r = varint(&p, e, &id);
	if (r == V_TORN)
		return FRAME_TORN;
	if (r == V_BAD) {
		bad(d, fo, "bad varint (type_id of a schema annotation frame)");
		return FRAME_BAD;
	}
	if (left(p, e) < 2)
		return FRAME_TORN;
	uint16_t n = ld16le(p);
	p += 2;
	const uint8_t *entries = p;
	for (unsigned i = 0; i < n; i++) {
		if (left(p, e) < 4 || left(p + 4, e) < ld16le(p + 2) + 4u)
			return FRAME_TORN;
		p += 4 + ld16le(p + 2);
		if (left(p + 4, e) < ld32le(p))
			return FRAME_TORN;
		p += 4 + (size_t)ld32le(p);
	}
	d->frames[FR_ANNOT]++;
	struct slot *sl = id <= 0xffff ? cur_slot(d, (uint32_t)id) : NULL;
	size_t more = (size_t)(p - entries);
	if (!sl || sl->s->nkey - sl->s->nraw + more > MAX_ANNOT) {
		d->annot_skipped++; /* nothing to annotate (notes §2.5), or far more than any writer sends */
		return (size_t)(p - f);
	}
	if (!more)
		return (size_t)(p - f);
	/* the annotated schema: the same identity with these entries appended */
	struct buf k = {0};
	buf_add(&k, sl->s->key, sl->s->nkey);
	buf_add(&k, entries, more);
	uint32_t si = d9_schema_get(d, (const uint8_t *)k.p, (uint32_t)k.len, sl->s->nraw);
	buf_free(&k);
	sl->s = d->sch[si];
	d->tents[sl->tent].schema = si;
	return (size_t)(p - f);
}

/* The header at the start of the data.  Returns its length, FRAME_TORN, or
 * FRAME_BAD (the input is rejected or damaged). */
static size_t first_header(struct d9 *d, const uint8_t *p, size_t n, bool final)
{
	static const char legacy[] = "TOKIOTRC", magic[] = "TRC";
	bool maybe_trc = !n || !memcmp(p, magic, MIN(n, 4)), maybe_legacy = !n || !memcmp(p, legacy, MIN(n, 8));
	if (n >= 8 && maybe_legacy) {
		char v[32] = "";
		if (n >= 12)
			snprintf(v, sizeof v, " v%u", ld32le(p + 8));
		dec_reject(d->in, "legacy TOKIOTRC%s format (before dial9-trace-format), not supported", v);
		return FRAME_BAD;
	}
	if (!maybe_trc && !maybe_legacy) {
		dec_reject(d->in, "bad magic: not a dial9 trace (it does not start with TRC and a zero byte)");
		return FRAME_BAD;
	}
	if (n < HEADER_LEN || !maybe_trc) { /* a header (or the legacy magic) still arriving */
		if (!final)
			return FRAME_TORN;
		if (n && maybe_trc) {
			bad(d, 0, "truncated header: the data ends after %zu of its 5 bytes", n);
			return FRAME_BAD;
		}
		dec_reject(d->in, "too short for a dial9 header (%zu bytes)", n);
		return FRAME_BAD;
	}
	if (p[4] != 1) {
		dec_reject(d->in, "unsupported version %u (only version 1 exists)", p[4]);
		return FRAME_BAD;
	}
	return HEADER_LEN;
}

size_t d9_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct d9 *d = st;
	size_t at = 0;
	if (!d->started) {
		size_t r = first_header(d, p, n, final);
		if (r == FRAME_TORN || r == FRAME_BAD)
			return 0;
		d9_sub_begin(d, off);
		d->started = true;
		at = r;
	}
	const uint8_t *e = p + n;
	while (at < n) {
		const uint8_t *f = p + at;
		uint64_t fo = off + at;
		size_t used;
		switch (*f) {
		case TAG_EVENT: used = event_frame(d, f, e, fo); break;
		case TAG_STRPOOL: used = pool_frame(d, f, e, fo, POOL_STR); break;
		case TAG_STKPOOL: used = pool_frame(d, f, e, fo, POOL_STK); break;
		case TAG_RESET:
			if (left(f, e) < 9) {
				used = FRAME_TORN;
				break;
			}
			d->base = ld64le(f + 1);
			d->frames[FR_RESET]++;
			used = 9;
			break;
		case TAG_SCHEMA: used = schema_frame(d, f, e, fo); break;
		case TAG_ANNOT: used = annot_frame(d, f, e, fo); break;
		case TAG_HEADER:
			if (memcmp(f, "TRC\0", MIN(left(f, e), 4))) {
				bad(d, fo, "unknown frame tag 0x54 (not the start of a TRC header)");
				used = FRAME_BAD;
				break;
			}
			if (left(f, e) < HEADER_LEN) {
				used = FRAME_TORN;
				break;
			}
			if (f[4] != 1) {
				bad(d, fo, "unsupported version %u in a mid-stream header", f[4]);
				used = FRAME_BAD;
				break;
			}
			d9_sub_begin(d, fo);
			used = HEADER_LEN;
			break;
		default:
			bad(d, fo, "unknown frame tag 0x%02x", *f);
			used = FRAME_BAD;
			break;
		}
		if (used == FRAME_BAD)
			break;
		if (used == FRAME_TORN) {
			if (final)
				bad(d, fo, "truncated frame: the data ends inside this %s frame",
				    *f == TAG_EVENT ? "event" : *f == TAG_HEADER ? "header" : *f == TAG_SCHEMA ? "schema"
				    : *f == TAG_STRPOOL ? "string pool" : *f == TAG_STKPOOL ? "stack pool"
				    : *f == TAG_RESET ? "timestamp reset" : "schema annotations");
			break;
		}
		at += used;
	}
	/* Threads still unknown at the end of the data (or, when following, once
	 * the reader has caught up with the writer) are shown as threads. */
	bool caught_up = dec_following(d->in) && d->in->eof && off + n == d->in->size;
	if (d->npend && (final || d->in->done || caught_up)) {
		d9_pend_flush(d, SIZE_MAX);
		d->let_go = true;
	}
	if (final || caught_up) /* (while loading, not when the info page counts them) */
		d9_sort_syms(d);
	return at;
}
