/* htdump/decode.c: lazy decoding: an event's fields and summary with the classes as of its offset */
#include "decoders/htdump/htdump.h"

static const char *class_name_at(struct ht *h, uint32_t id, uint64_t P)
{
	if (id < K_HARD)
		return ht_hard_names[id];
	int64_t k = ht_kd_at(h, &h->by_id, id, P, ht_stream_at(h, P));
	return k < 0 ? NULL : sname(h, h->kd[k].name);
}

/* Put the fields of a body; false when it is cut short. */
static bool put_ops(struct ht *h, const struct layout *L, const uint8_t *body, uint64_t n, bool be,
		    bool skip_specials, struct fsink *out)
{
	struct walk w = {body, n, 0};
	for (size_t i = 0; i < L->nops; i++) {
		const struct op *o = &L->ops[i];
		uint64_t st, len;
		if (!op_next(o, &w, &st, &len))
			return false;
		const uint8_t *v = body + st;
		if (skip_specials &&
		    ((int32_t)i == L->sp[SP_DUR] || (int32_t)i == L->sp[SP_TID] || (int32_t)i == L->sp[SP_LABEL]))
			continue;
		struct field f = {.name = o->name};
		switch (o->kind) {
		case OP_INT:
			f.kind = FK_INT;
			f.v.i = rd_int(v, o->size, be);
			break;
		case OP_UINT:
			f.kind = FK_UINT;
			f.v.u = rd_uint(v, o->size, be);
			break;
		case OP_PTR:
			f.kind = FK_HEX;
			f.v.u = rd_uint(v, o->size, be);
			break;
		case OP_FLOAT: {
			uint32_t u = ld32(v, be);
			float x;
			memcpy(&x, &u, 4);
			f.kind = FK_FLOAT;
			f.v.d = x;
			break;
		}
		case OP_DOUBLE: {
			uint64_t u = ld64(v, be);
			memcpy(&f.v.d, &u, 8);
			f.kind = FK_DOUBLE;
			break;
		}
		case OP_STR:
			f.kind = FK_STR;
			f.v.s.p = v;
			f.v.s.n = (size_t)len;
			break;
		default:
			f.kind = FK_BYTES; /* odd sizes, arrays: bytes in file order */
			f.v.s.p = v;
			f.v.s.n = (size_t)len;
			break;
		}
		if ((int32_t)i == L->sp[SP_DUR] && L->role == ROLE_COMPLETE)
			f.unit = "ns";
		if ((int32_t)i == L->sp[SP_LABEL] && L->label_int) {
			/* resolved now: a mapping may have come after the event */
			uint64_t s;
			if (hmap_get(&h->map, f.v.u, &s)) {
				size_t sl;
				const char *str = model_strget(dec_model(h->in), (uint32_t)s, &sl);
				f_str(out, o->name, str, sl);
				f.name = "label_id", f.name_len = F_NAME_LEN("label_id");
			}
		}
		f_put(out, &f);
	}
	return true;
}

/* Read the event at e->off: header, stream, and the bytes after the header. */
static const uint8_t *load(struct ht *h, const struct event *e, const struct hstream **s, struct hdr *hd,
			   uint64_t *n)
{
	uint64_t avail;
	const uint8_t *q = input_bytes(h->in, e->off, &avail);
	if (!q || avail < HDR || !h->nst)
		return NULL;
	*s = &h->st[ht_stream_at(h, e->off)];
	rd_hdr(q, *s, hd);
	*n = avail - HDR;
	return q + HDR;
}

static const char *dt_name(const struct hstream *s, uint64_t P, uint8_t code)
{
	return ht_dt_names[ht_dt_of(code, ht_spec_numbering(s, P))];
}

void ht_fields(void *vst, const struct event *e, struct fsink *out)
{
	struct ht *h = vst;
	const struct hstream *s;
	struct hdr hd;
	uint64_t n;
	const uint8_t *b = load(h, e, &s, &hd, &n);
	if (!b) {
		f_cstr(out, "error", "event not readable");
		return;
	}
	const char *cname = class_name_at(h, hd.k, e->off);
	f_put(out, &(struct field){F_NAME("klass_id"), .kind = FK_UINT, .v.u = hd.k, .value_name = cname});
	f_unit(out, "timestamp", hd.ts, "ns");
	f_uint(out, "id", hd.id);
	if (hd.k == K_ENDIANNESS) {
		if (n >= 1)
			f_put(out, &(struct field){F_NAME("endianness"), .kind = FK_UINT, .v.u = b[0],
						   .value_name = b[0] == 1 ? "big-endian" : "little-endian"});
	} else if (hd.k == K_KLASS_INFO || hd.k == K_FIELD_INFO) {
		if (n < 4)
			return;
		uint32_t id = ld32(b, s->be);
		f_put(out, &(struct field){F_NAME("info_klass_id"), .kind = FK_UINT, .v.u = id,
					   .value_name = hd.k == K_FIELD_INFO ? class_name_at(h, id, e->off) : NULL});
		int64_t l1 = cstr(b + 4, n - 4);
		if (l1 < 0)
			return;
		f_str(out, hd.k == K_KLASS_INFO ? "event_klass_name" : "field_type", b + 4, (size_t)l1);
		uint64_t at = 4 + (uint64_t)l1 + 1;
		if (hd.k == K_KLASS_INFO) {
			if (n > at)
				f_uint(out, "field_count", b[at]);
			return;
		}
		int64_t l2 = cstr(b + at, n - at);
		if (l2 < 0)
			return;
		f_str(out, "field_name", b + at, (size_t)l2);
		at += (uint64_t)l2 + 1;
		if (n < at + 9)
			return;
		f_unit(out, "size", ld64(b + at, s->be), "bytes");
		f_put(out, &(struct field){F_NAME("data_type"), .kind = FK_UINT, .v.u = b[at + 8],
					   .value_name = dt_name(s, e->off, b[at + 8])});
	} else if (hd.k >= K_HARD) {
		const struct layout *L = ht_layout_at(h, hd.k, e->off);
		if (!L->kd || L->err[0] || !put_ops(h, L, b, n, s->be, false, out))
			f_cstr(out, "error", "event cut short");
	}
}

void ht_summary(void *vst, const struct event *e, struct buf *out)
{
	struct ht *h = vst;
	const struct hstream *s;
	struct hdr hd;
	uint64_t n;
	const uint8_t *b = load(h, e, &s, &hd, &n);
	if (!b) {
		buf_adds(out, "(event not readable)");
		return;
	}
	switch (hd.k) {
	case K_ENDIANNESS:
		buf_adds(out, n && b[0] == 1 ? "big-endian" : "little-endian");
		if (ht_stream_at(h, e->off) > 0)
			buf_adds(out, ": a new stream starts here");
		return;
	case K_EVENT: buf_adds(out, "bare event"); return;
	case K_KLASS_INFO:
	case K_FIELD_INFO: {
		/* "klass 9 SampleEvent: 13 fields", "klass 9 field i8: int8_t INTEGER, 1 bytes" */
		struct line_sink ls;
		line_sink_init(&ls, out);
		int64_t l1 = n >= 4 ? cstr(b + 4, n - 4) : -1;
		if (l1 < 0) {
			buf_adds(out, "(event cut short)");
			return;
		}
		uint64_t at = 4 + (uint64_t)l1 + 1;
		buf_printf(out, "klass %u ", ld32(b, s->be));
		if (hd.k == K_KLASS_INFO) {
			esc_term(out, b + 4, (size_t)l1);
			if (n > at)
				buf_printf(out, ": %u fields", b[at]);
			return;
		}
		int64_t l2 = cstr(b + at, n - at);
		if (l2 < 0 || n < at + (uint64_t)l2 + 10) {
			buf_adds(out, "(event cut short)");
			return;
		}
		buf_adds(out, "field ");
		esc_term(out, b + at, (size_t)l2);
		buf_adds(out, ": ");
		esc_term(out, b + 4, (size_t)l1);
		at += (uint64_t)l2 + 1;
		uint8_t dt = b[at + 8];
		const char *dn = dt_name(s, e->off, dt);
		if (dn)
			buf_printf(out, " %s", dn);
		else
			buf_printf(out, " data type %u", dt);
		buf_printf(out, ", %llu bytes", (unsigned long long)ld64(b + at, s->be));
		return;
	}
	default: break;
	}
	const struct layout *L = ht_layout_at(h, hd.k, e->off);
	if (!L->kd || L->err[0] || ht_body_len(L, b, n) == NOT_WHOLE) {
		buf_adds(out, "(event not decodable here)");
		return;
	}
	struct line_sink ls;
	line_sink_init(&ls, out);
	if (L->role == ROLE_COMPLETE && L->sp[SP_LABEL] >= 0) {
		/* a scope: its label and how long it took, then any fields of its own */
		uint64_t at[SP_N];
		specials(L, b, n, at);
		const struct op *o = &L->ops[L->sp[SP_LABEL]];
		const uint8_t *v = b + at[SP_LABEL];
		uint64_t sid;
		if (!L->label_int) {
			esc_term(out, v, strlen((const char *)v));
		} else if (hmap_get(&h->map, rd_uint(v, o->size, s->be), &sid)) {
			size_t sl;
			const char *str = model_strget(dec_model(h->in), (uint32_t)sid, &sl);
			esc_term(out, str, sl);
		} else {
			buf_printf(out, "%llu", (unsigned long long)rd_uint(v, o->size, s->be));
		}
		buf_addc(out, ' ');
		fmt_dur(out, e->dur);
		ls.need_space = true;
		put_ops(h, L, b, n, s->be, true, &ls.s);
		return;
	}
	if (L->sysinfo) {
		uint8_t v[3];
		ht_version_of(L, b, n, s->be, v);
		buf_printf(out, "HawkTracer %u.%u.%u", v[0], v[1], v[2]);
		return;
	}
	put_ops(h, L, b, n, s->be, false, &ls.s);
}
