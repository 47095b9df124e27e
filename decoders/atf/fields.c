/* atf/fields.c: lazy decoding of fields and summaries; links between index and detail records */
#include "decoders/atf/atf.h"

/* ---- lazy decoding -------------------------------------------------------- */

void atf_put_str_id(struct fsink *out, struct session *ss, const char *name, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(ss->m, sid, &n);
	f_str(out, name, s, n);
}

/* "function" as written (the symbol), and "function_demangled" beside it
 * when it reads otherwise. */
static void put_function(struct fsink *out, struct session *ss, uint64_t fid)
{
	uint32_t shown = atf_name_of(ss, fid), raw = model_name_raw(ss->m, shown);
	atf_put_str_id(out, ss, "function", raw);
	if (raw != shown)
		atf_put_str_id(out, ss, "function_demangled", shown);
}

static void put_kind(struct fsink *out, const char *name, uint32_t kind)
{
	f_put(out, &(struct field){.name = name, .kind = FK_UINT, .v.u = kind,
				   .value_name = atf_kind_name(kind), .meaning = atf_kind_name(kind) ? NULL : "unknown"});
}

static void put_regs(struct fsink *out, uint8_t arch, bool ret, const uint8_t *x, uint64_t lr, uint64_t fp, uint64_t sp)
{
	static const char *const x86[] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9", "rbp", "rsp"};
	static const char *const a64[] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};
	f_obj(out, "registers");
	if (arch == 1 && ret) {
		f_hex(out, "rax", ld64le(x));
		f_hex(out, "rsp", sp);
	} else if (arch == 1) {
		for (int i = 0; i < 8; i++)
			f_hex(out, x86[i], ld64le(x + 8 * i));
	} else if (arch == 2 && ret) {
		f_hex(out, "x0", ld64le(x));
		f_hex(out, "sp", sp);
	} else {
		for (int i = 0; i < 8; i++)
			f_hex(out, a64[i], ld64le(x + 8 * i));
		f_hex(out, "lr", lr);
		f_hex(out, "fp", fp);
		f_hex(out, "sp", sp);
	}
	f_end(out);
}

/* Every field of detail record k (its header and payload). */
static void det_fields(struct det *d, uint64_t k, struct fsink *out)
{
	struct thread *th = d->th;
	struct session *ss = th->ss;
	uint64_t off = atf_det_off(d, k);
	const uint8_t *q = d->in->map + off;
	uint32_t len = ld32le(q), iseq = ld32le(q + 8);
	uint16_t type = ld16le(q + 4);
	f_uint(out, "detail_seq", k);
	f_unit(out, "offset", off, "bytes");
	f_unit(out, "total_length", len, "bytes");
	f_put(out, &(struct field){F_NAME("event_type"), .kind = FK_UINT, .v.u = type,
				   .value_name = type == 3 ? "CALL" : type == 4 ? "RETURN" : NULL,
				   .meaning = type == 3 || type == 4 ? NULL : "unknown"});
	f_hex(out, "flags", ld16le(q + 6));
	const char *back = NULL;
	if (atf_unchecked(th))
		back = "not checked: opened without its index.atf";
	else if (!th->ix.in || iseq >= th->ix.n)
		back = "past the end of index.atf";
	else if (ld32le(irec(&th->ix, iseq) + 28) != k)
		back = "that index record links elsewhere";
	f_put(out, &(struct field){F_NAME("index_seq"), .kind = FK_UINT, .v.u = iseq, .meaning = back});
	f_put(out, &(struct field){F_NAME("thread_id"), .kind = FK_UINT, .v.u = ld32le(q + 12), .meaning = "slot"});
	f_unit(out, "timestamp", ld64le(q + 16), "ns");
	uint8_t arch = d->arch ? d->arch : th->ix.arch;
	const uint8_t *pl = q + DREC_HDR;
	if (len == DREC_REAL) {
		uint32_t kind = ld32le(pl + 20), ssize = ld32le(pl + 248);
		uint64_t fid = ld64le(pl + 8);
		f_unit(out, "payload_timestamp", ld64le(pl), "ns");
		f_hex(out, "function_id", fid);
		put_function(out, ss, fid);
		f_put(out, &(struct field){F_NAME("os_thread_id"), .kind = FK_UINT, .v.u = ld32le(pl + 16),
					   .meaning = "OS thread"});
		put_kind(out, "kind", kind);
		f_uint(out, "call_depth", ld32le(pl + 24));
		put_regs(out, arch, kind == K_RETURN || (kind != K_CALL && type == 4), pl + 32, ld64le(pl + 96),
			 ld64le(pl + 104), ld64le(pl + 112));
		f_put(out, &(struct field){F_NAME("stack_size"), .kind = FK_UINT, .v.u = ssize, .unit = "bytes",
					   .meaning = ssize > 128 ? "more than the 128 bytes a record holds" : NULL});
		f_bytes(out, "stack", pl + 120, MIN(ssize, 128u));
	} else if (len >= DREC_HDR + SPEC_PAYLOAD && ld16le(pl + 96) == len - DREC_HDR - SPEC_PAYLOAD) {
		uint64_t fid = ld64le(pl);
		uint16_t ssize = ld16le(pl + 96);
		f_cstr(out, "layout", "spec DetailFunctionPayload");
		f_hex(out, "function_id", fid);
		put_function(out, ss, fid);
		put_regs(out, arch, type == 4, pl + 8, ld64le(pl + 72), ld64le(pl + 80), ld64le(pl + 88));
		f_unit(out, "stack_size", ssize, "bytes");
		f_bytes(out, "stack", pl + SPEC_PAYLOAD, ssize);
	} else {
		f_put(out, &(struct field){F_NAME("layout"), .kind = FK_STR, .v.s = {"unknown", 7},
					   .meaning = "neither the 540-byte record nor the spec's payload"});
		f_bytes(out, "payload", pl, MIN(len - DREC_HDR, 1024u));
	}
}

/* The detail record k of event e's detail file, when e is a DETAIL event. */
static bool det_event_k(struct det *d, const struct event *e, uint64_t *k)
{
	uint64_t off = e->off;
	if (d->nuni && off >= d->S && off < d->S + d->nuni * (uint64_t)d->len0 && (off - d->S) % d->len0 == 0) {
		*k = (off - d->S) / d->len0;
		return true;
	}
	size_t lo = 0, hi = d->noffs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->noffs && d->offs[lo] == off) {
		*k = d->nuni + lo;
		return true;
	}
	return false;
}

static bool idx_event_rec(const struct idx *x, const struct event *e, uint64_t *r)
{
	if (e->off < x->E || (e->off - x->E) % REC || (e->off - x->E) / REC >= x->n)
		return false;
	*r = (e->off - x->E) / REC;
	return true;
}

static void idx_fields(struct idx *x, const struct event *e, struct fsink *out)
{
	struct thread *th = x->th;
	struct session *ss = th->ss;
	uint64_t r;
	if (!idx_event_rec(x, e, &r)) {
		f_cstr(out, "error", "record not readable");
		return;
	}
	const uint8_t *q = irec(x, r);
	uint64_t fid = ld64le(q + 8);
	uint32_t kind = ld32le(q + 20), link = ld32le(q + 28);
	f_uint(out, "index_seq", r);
	f_unit(out, "timestamp", ld64le(q), "ns");
	f_hex(out, "function_id", fid);
	put_function(out, ss, fid);
	uint64_t v;
	if (hmap_get(&ss->sym, fid, &v))
		atf_put_str_id(out, ss, "symbol", (uint32_t)v);
	else
		f_put(out, &(struct field){F_NAME("symbol"), .kind = FK_NULL,
					   .meaning = ss->sym.n ? "not in the manifest" : "manifest missing"});
	if (hmap_get(&ss->mod, fid >> 32, &v))
		atf_put_str_id(out, ss, "module", (uint32_t)v);
	else
		f_null(out, "module");
	f_hex(out, "module_id", fid >> 32);
	f_uint(out, "symbol_index", fid & 0xffffffffu);
	f_put(out, &(struct field){F_NAME("thread_id"), .kind = FK_UINT, .v.u = ld32le(q + 16), .meaning = "slot"});
	put_kind(out, "event_kind", kind);
	f_uint(out, "call_depth", ld32le(q + 24));
	if (link == NO_LINK) {
		f_put(out, &(struct field){F_NAME("detail_seq"), .kind = FK_NULL, .meaning = "none"});
		return;
	}
	f_uint(out, "detail_seq", link);
	f_bool(out, "detail_copy", x->drain);
	struct det *d = &th->dt;
	if (atf_link_ok(th, r, link)) {
		f_cstr(out, "link", "ok");
		f_obj(out, "detail");
		det_fields(d, link, out);
		f_end(out);
	} else if (atf_unchecked(th)) {
		f_cstr(out, "link", "not checked: opened without its detail.atf");
	} else if (!d->in || link >= d->n) {
		char m[96];
		snprintf(m, sizeof m, "dangling: detail.atf %s %llu records", d->in ? "has" : "missing, so",
			 (unsigned long long)d->n);
		f_cstr(out, "link", m);
	} else {
		char m[96];
		snprintf(m, sizeof m, "mismatch: detail %u links back to index %u", link, ld32le(drec(d, link) + 8));
		f_cstr(out, "link", m);
	}
}

void atf_fields(void *st, const struct event *e, struct fsink *out)
{
	switch (*(enum tag *)st) {
	case T_INDEX: idx_fields(st, e, out); break;
	case T_DETAIL: {
		struct det *d = st;
		uint64_t k;
		if (det_event_k(d, e, &k))
			det_fields(d, k, out);
		else
			f_cstr(out, "error", "record not readable");
		break;
	}
	default: break;
	}
}

void atf_summary(void *st, const struct event *e, struct buf *b)
{
	enum tag tag = *(enum tag *)st;
	if (tag == T_INDEX) {
		struct idx *x = st;
		struct thread *th = x->th;
		uint64_t r;
		if (!idx_event_rec(x, e, &r)) {
			buf_adds(b, "(record not readable)");
			return;
		}
		const uint8_t *q = irec(x, r);
		uint32_t kind = ld32le(q + 20), link = ld32le(q + 28);
		size_t n;
		const char *s = model_strget(th->ss->m, e->name, &n);
		if (!atf_kind_name(kind))
			buf_printf(b, "event_kind %u ", kind);
		esc_term(b, s, n);
		buf_printf(b, " (call_depth %u)", ld32le(q + 24));
		if (link != NO_LINK) {
			buf_printf(b, " -> detail %u", link);
			if (atf_unchecked(th))
				buf_adds(b, " (detail.atf not opened)");
			else if (!atf_link_ok(th, r, link))
				buf_adds(b, link >= th->dt.n ? " (dangling)" : " (link mismatch)");
		}
	} else if (tag == T_DETAIL) {
		struct det *d = st;
		uint64_t k;
		if (!det_event_k(d, e, &k)) {
			buf_adds(b, "(record not readable)");
			return;
		}
		const uint8_t *q = drec(d, k);
		uint32_t len = ld32le(q), iseq = ld32le(q + 8);
		uint16_t type = ld16le(q + 4);
		buf_adds(b, type == 3 ? "CALL " : type == 4 ? "RETURN " : "");
		size_t n;
		const char *s = model_strget(d->th->ss->m, e->name, &n);
		esc_term(b, s, n);
		if (len == DREC_REAL)
			buf_printf(b, " (call_depth %u)", ld32le(q + 48));
		buf_printf(b, ": detail %llu -> index %u, ", (unsigned long long)k, iseq);
		const struct idx *x = &d->th->ix;
		if (atf_unchecked(d->th))
			buf_adds(b, "not checked (index.atf not opened)");
		else if (!x->in || iseq >= x->n)
			buf_printf(b, "past the end of index.atf (%llu records)", (unsigned long long)x->n);
		else
			buf_printf(b, "which links to %s", ld32le(irec(x, iseq) + 28) == NO_LINK ? "no detail record"
												: "another detail record");
	}
}

/* ---- links between index and detail records ------------------------------
 *
 * Linked detail records are not events of their own (the index event that
 * links to them is; a session lists each call once).  Both directions are
 * O(1): forward, the detail record an index event links to (when the link
 * resolves); back, the model position of the index event a detail record
 * links back to (record index_seq of the thread's index.atf).  Detail
 * records whose back link does not resolve (their index record was lost in
 * a crash, or links elsewhere) are events of their own, type DETAIL,
 * flagged EVF_DAMAGED; such an event links to itself. */

bool atf_linked(void *st, const struct event *e, uint32_t *input, uint64_t *off)
{
	if (*(enum tag *)st == T_INDEX) {
		struct idx *x = st;
		uint64_t r;
		if (!idx_event_rec(x, e, &r))
			return false;
		uint32_t link = ld32le(irec(x, r) + 28);
		if (link == NO_LINK || !atf_link_ok(x->th, r, link))
			return false;
		*input = x->th->dt.in->id;
		*off = atf_det_off(&x->th->dt, link);
		return true;
	}
	uint64_t k;
	if (*(enum tag *)st != T_DETAIL || !det_event_k(st, e, &k))
		return false;
	*input = e->input;
	*off = e->off;
	return true;
}

/* The position in detail.atf of its record at byte `off`. */
static bool det_seq_at(void *st, uint64_t off, uint64_t *k)
{
	return *(enum tag *)st == T_DETAIL && det_event_k(st, &(struct event){.off = off}, k);
}

void atf_record_fields(void *st, uint64_t off, struct fsink *out)
{
	uint64_t k;
	if (det_seq_at(st, off, &k))
		det_fields(st, k, out);
}

bool atf_record_back(void *st, uint64_t off, uint64_t *pos)
{
	struct det *d = st;
	uint64_t k;
	if (!det_seq_at(st, off, &k))
		return false;
	struct thread *th = d->th;
	uint32_t r = ld32le(drec(d, k) + 8);
	if (!th->ix.in || r >= th->ix.n || !atf_link_ok(th, r, (uint32_t)k))
		return false;
	*pos = model_seq_pos(th->ss->m, th->seq, atf_pos_of_rec(&th->ix, r));
	return true;
}
