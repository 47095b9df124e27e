/* syscall/decode.c: lazy decoding: a record loaded again from its offset, its summary */
#include "decoders/syscall/syscall.h"

static const struct stream *stream_of(const struct sc *sc, uint64_t off)
{
	size_t lo = 0, hi = sc->ns;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (sc->s[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return sc->ns ? &sc->s[lo] : NULL;
}

bool sc_load(const struct sc *sc, const struct event *e, struct loaded *l)
{
	l->s = stream_of(sc, e->off);
	if (!l->s)
		return false;
	l->si = (uint32_t)(l->s - sc->s);
	uint64_t avail;
	const uint8_t *p = input_bytes(sc->in, e->off, &avail);
	size_t hs = l->s->seg16 ? 4 : 8;
	if (!p || avail < hs)
		return false;
	bool be = l->s->be;
	uint32_t tag = l->s->seg16 ? ld16(p, be) : ld32(p, be);
	uint32_t len = l->s->seg16 ? ld16(p + 2, be) : ld32(p + 4, be);
	if (len > avail - hs)
		return false;
	l->v = p + hs;
	l->len = len;
	sc_parse_rec(l->s, l->v, len, tag == SEG_VARHDR, &l->r);
	l->multi = e->flags & EVF_MARK;
	return true;
}

const char *sc_name(const struct stream *s, uint16_t nr, char *tmp, size_t n)
{
	if (s->x86 && nr < ARRAY_LEN(sc_names) && sc_names[nr])
		return sc_names[nr];
	snprintf(tmp, n, "syscall_%u", nr);
	return tmp;
}

bool sc_addr_result(const struct stream *s, uint16_t nr)
{
	return s->x86 && (nr == NR_MMAP || nr == NR_BRK || nr == NR_MREMAP || nr == NR_SHMAT);
}

static void result_text(struct buf *b, const struct loaded *l)
{
	int64_t ret = l->r.ret;
	if (is_error(ret)) {
		const char *en = errno_name((int)-ret);
		if (en)
			buf_printf(b, "-1 %s (%lld)", en, (long long)ret);
		else
			buf_printf(b, "-1 errno %lld (%lld)", (long long)-ret, (long long)ret);
	} else if (sc_addr_result(l->s, l->r.nr) && ret) {
		buf_printf(b, "0x%llx", (unsigned long long)ret);
	} else {
		buf_printf(b, "%lld", (long long)ret);
	}
}

/* An int IE: i32 when the value fitted, else i64. */
bool sc_ie_int(const struct ie *ie, bool be, int64_t *v)
{
	if (ie->cut)
		return false;
	if (ie->n == 4)
		*v = (int32_t)ld32(ie->v, be);
	else if (ie->n == 8)
		*v = (int64_t)ld64(ie->v, be);
	else
		return false;
	return true;
}

static void int_text(struct buf *b, int64_t v)
{
	if (v > (int64_t)UINT32_MAX || v < INT32_MIN)
		buf_printf(b, "0x%llx", (unsigned long long)v);
	else
		buf_printf(b, "%lld", (long long)v);
}

/* Bytes shown of a buffer: SHOW_BYTES, extended to the end of that line
 * when it is text. */
static size_t shown_len(const uint8_t *p, size_t n)
{
	if (n <= SHOW_BYTES)
		return n;
	if (p[SHOW_BYTES - 1] == '\n')
		return SHOW_BYTES;
	const uint8_t *nl = memchr(p + SHOW_BYTES, '\n', MIN(n, SHOW_LINE) - SHOW_BYTES);
	if (!nl)
		return SHOW_BYTES;
	for (const uint8_t *q = p; q < nl; q++)
		if ((*q < 0x20 && *q != '\n' && *q != '\t') || *q == 0x7f)
			return SHOW_BYTES;
	return (size_t)(nl - p) + 1;
}

/* A buffer as a quoted string; paths in full, other data cut for display. */
static void data_text(struct buf *b, const uint8_t *p, size_t n, bool whole)
{
	size_t k = whole ? n : shown_len(p, n);
	struct buf t = {0};
	esc_quoted(&t, p, k);
	if (k < n) { /* the ellipsis goes inside the quotes */
		t.len--;
		buf_adds(&t, "…\"");
	}
	buf_add(b, t.p, t.len);
	buf_free(&t);
}

static const int stat_fields_off[] = {16, 44, 8}; /* st_mode, st_size, st_ino */

static void arg_text(struct buf *b, const struct loaded *l, const struct ie *ie, unsigned i)
{
	bool be = l->s->be;
	bool path = i == 0 && sc_names_path(l->s, l->r.nr);
	int64_t v;
	if (ie->cut) {
		buf_adds(b, "<truncated argument>");
		return;
	}
	switch (ie->tag) {
	case IE_INT:
		if (sc_ie_int(ie, be, &v))
			int_text(b, v);
		else
			buf_printf(b, "<int of %zu bytes>", ie->n);
		return;
	case IE_DATA: data_text(b, ie->v, ie->n, path); return;
	case IE_TRUNC:
		if (ie->n < 4) {
			buf_adds(b, "<truncated argument>");
			return;
		}
		if (ie->n > 4) {
			data_text(b, ie->v + 4, ie->n - 4, path);
			buf_addc(b, ' ');
		}
		buf_printf(b, "<%zu of %u bytes>", ie->n - 4, ld32(ie->v, be));
		return;
	case IE_STAT:
		if (ie->n < 116) {
			buf_printf(b, "<struct stat of %zu bytes>", ie->n);
			return;
		}
		buf_printf(b, "{st_mode=0%o, st_size=%lld, st_ino=%llu}", ld32(ie->v + stat_fields_off[0], be),
			   (long long)ld64(ie->v + stat_fields_off[1], be),
			   (unsigned long long)ld64(ie->v + stat_fields_off[2], be));
		if (is_error(l->r.ret))
			buf_adds(b, " /* stale */");
		return;
	case IE_POLL:
		buf_addc(b, '[');
		for (size_t i = 0; i + 8 <= ie->n; i += 8) {
			if (i == 16 * 8) {
				buf_printf(b, ", …%zu more", ie->n / 8 - 16);
				break;
			}
			buf_printf(b, "%s{fd=%d, events=0x%x, revents=0x%x}", i ? ", " : "", (int32_t)ld32(ie->v + i, be),
				   ld16(ie->v + i + 4, be), ld16(ie->v + i + 6, be));
		}
		buf_addc(b, ']');
		return;
	case IE_SIGACT:
		if (!ie->n) {
			buf_adds(b, "NULL");
		} else if (ie->n >= 24) {
			buf_printf(b, "{handler=0x%llx, flags bytes ", (unsigned long long)ld64(ie->v, be));
			for (int i = 16; i < 24; i++)
				buf_printf(b, "%02x", ie->v[i]);
			buf_addc(b, '}');
		} else {
			buf_printf(b, "<sigaction of %zu bytes>", ie->n);
		}
		return;
	case IE_INTPTR:
		if (ie->n >= 16)
			buf_printf(b, "[%lld]", (long long)ld64(ie->v + 8, be));
		else
			buf_printf(b, "<int pointer of %zu bytes>", ie->n);
		return;
	default: buf_printf(b, "<IE %u: %zu bytes>", ie->tag, ie->n); return;
	}
}

void sc_summary(void *st, const struct event *e, struct buf *b)
{
	struct sc *sc = st;
	struct loaded l;
	if (!sc_load(sc, e, &l)) {
		buf_adds(b, "(record not readable)");
		return;
	}
	const struct stream *s = l.s;
	/* (no time of its own: the row's time column says it, one clock for all) */
	if (l.r.has_tid)
		buf_printf(b, "[tid %d] ", l.r.tid);
	char tmp[32];
	buf_printf(b, "%s(", sc_name(s, l.r.nr, tmp, sizeof tmp));
	size_t o = l.r.args;
	struct ie ie;
	unsigned i = 0;
	bool junk = s->x86 && l.r.nr == NR_READV;
	while (ie_next(l.v, l.len, &o, s->be, &ie)) {
		if (junk && i == 3)
			buf_adds(b, " /* junk: ");
		else if (i)
			buf_adds(b, ", ");
		arg_text(b, &l, &ie, i);
		i++;
	}
	if (junk && i > 3)
		buf_adds(b, " */");
	buf_adds(b, ") = ");
	result_text(b, &l);
	if (l.r.has_err) {
		const char *en = errno_name(l.r.err);
		buf_printf(b, " errno=%d%s%s", l.r.err, en ? " " : "", en ? en : "");
	}
	uint64_t d = e->dur;
	if (d != TTV_NODUR) {
		if (d < 1000000)
			buf_printf(b, " <%lluns>", (unsigned long long)d);
		else {
			buf_adds(b, " <");
			fmt_dur(b, d);
			buf_addc(b, '>');
		}
	}
	if (l.r.cut)
		buf_adds(b, " <record truncated>");
}
