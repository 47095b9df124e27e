/* podtrace/decode.c: lazy decoding: an event's fields and summary from its record; --info;
 * the saved index */
#include "decoders/podtrace/podtrace.h"

/* The record of an event, parsed.  A full-text filter asks for an event's
 * summary and then its fields: the last record parsed on this thread is
 * kept, known by its file, offset, bytes' address and first 16 bytes. */
static bool load(struct pt *pt, const struct event *e, struct rec *r)
{
	static __thread struct {
		uint64_t serial, off, head[2];
		const uint8_t *p;
		struct rec r;
	} last;
	uint64_t avail;
	const uint8_t *p = input_bytes(pt->in, e->off, &avail);
	if (!p || avail < 4)
		return false;
	uint32_t len = ld32le(p);
	if (len < V1_SIZE || len > avail - 4)
		return false;
	uint64_t head[2] = {ld64le(p + 4), ld64le(p + 12)}; /* V1_SIZE >= 16 */
	if (pt->serial != last.serial || e->off != last.off || p != last.p || len != last.r.len ||
	    memcmp(head, last.head, sizeof head)) {
		pt_parse(p + 4, len, &last.r);
		last.serial = pt->serial, last.off = e->off, last.p = p;
		memcpy(last.head, head, sizeof head);
	}
	*r = last.r;
	return true;
}

static const char *eai_name(int32_t e)
{
	static const char *const n[] = {NULL, "EAI_BADFLAGS", "EAI_NONAME", "EAI_AGAIN", "EAI_FAIL", NULL,
					"EAI_FAMILY", "EAI_SOCKTYPE", "EAI_SERVICE", NULL, "EAI_MEMORY",
					"EAI_SYSTEM", "EAI_OVERFLOW"};
	return e < 0 && e > -(int32_t)ARRAY_LEN(n) ? n[-e] : NULL; /* not -e: INT32_MIN */
}

static const char *rcode_name(int32_t e)
{
	static const char *const n[] = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};
	return e >= 0 && e < (int32_t)ARRAY_LEN(n) ? n[e] : NULL;
}

static const char *qtype_name(uint32_t q, char *tmp, size_t n)
{
	switch (q) {
	case 0: return "lookup";
	case 1: return "A";
	case 2: return "NS";
	case 5: return "CNAME";
	case 6: return "SOA";
	case 12: return "PTR";
	case 15: return "MX";
	case 16: return "TXT";
	case 28: return "AAAA";
	case 33: return "SRV";
	default: snprintf(tmp, n, "TYPE%u", q); return tmp;
	}
}

/* The name of `error` for this type (errno, getaddrinfo code, DNS rcode,
 * a resource limit's level), or NULL. */
static const char *error_name(const struct rec *r)
{
	int32_t e = r->error;
	switch (ptype_of(r->type)->err) {
	case ERR_DNS: return e < 0 ? eai_name(e) : e > 0 ? rcode_name(e) : NULL;
	case ERR_ERRNO: return e < 0 && e > INT32_MIN ? errno_name(-e) : NULL; /* -INT32_MIN overflows */
	case ERR_LEVEL: return e >= 95 ? "EMERGENCY" : e >= 90 ? "CRITICAL" : e >= 80 ? "WARNING" : NULL;
	default: return NULL;
	}
}

/* What `error` holds when it is no error code (a percentage, an SSL return
 * value), written into tmp; or NULL. */
static const char *error_note(const struct rec *r, char *tmp, size_t n)
{
	int32_t e = r->error;
	switch (ptype_of(r->type)->err) {
	case ERR_PERCENT:
	case ERR_LEVEL: snprintf(tmp, n, "%d%% utilisation", e); return tmp;
	case ERR_SSL:
		if (!e)
			return NULL;
		snprintf(tmp, n, "SSL return value %d", e);
		return tmp;
	case ERR_APPSTATUS: snprintf(tmp, n, "appStatus=%d", e); return tmp;
	default: return NULL;
	}
}

/* An IPv4 or IPv6 address as text into tmp (46 bytes); NULL when all zero. */
static const char *ip_text(int family, const uint8_t *a, char *tmp)
{
	size_t n = family == AF_INET ? 4 : 16;
	for (size_t i = 0; i < n; i++)
		if (a[i])
			return inet_ntop(family, a, tmp, 46);
	return NULL;
}

static void put_ip(struct fsink *out, const char *name, int family, const uint8_t *a)
{
	char tmp[46];
	const char *t = ip_text(family, a, tmp);
	if (t)
		f_cstr(out, name, t);
	else
		f_null(out, name);
}

/* The peers of V7: IPv4 addresses in host order, IPv6 as written. */
static void peer_fields(struct fsink *out, const uint8_t *p)
{
	uint8_t fam = p[O_PEER_FAMILY];
	f_put(out, &(struct field){F_NAME("peer_family"), .kind = FK_UINT, .v.u = fam,
				   .value_name = fam == 2 ? "AF_INET" : fam == 10 ? "AF_INET6" : NULL,
				   .meaning = fam == 2 || fam == 10 ? NULL : "no peer"});
	if (fam == 2) {
		uint8_t s4[4], d4[4];
		uint32_t sa = ld32le(p + O_PEER_SADDR), da = ld32le(p + O_PEER_DADDR);
		for (int i = 0; i < 4; i++)
			s4[i] = (uint8_t)(sa >> (24 - 8 * i)), d4[i] = (uint8_t)(da >> (24 - 8 * i));
		put_ip(out, "peer_src_ip", AF_INET, s4);
		put_ip(out, "peer_dst_ip", AF_INET, d4);
	} else if (fam == 10) {
		put_ip(out, "peer_src_ip", AF_INET6, p + O_PEER_SADDR6);
		put_ip(out, "peer_dst_ip", AF_INET6, p + O_PEER_DADDR6);
	} else {
		f_null(out, "peer_src_ip");
		f_null(out, "peer_dst_ip");
	}
	f_uint(out, "peer_src_port", ld16le(p + O_PEER_SPORT));
	f_uint(out, "peer_dst_port", ld16le(p + O_PEER_DPORT));
}

/* The fields V5..V9 appended, those of the record's version (an older
 * record has none of them, rather than a column of nulls). */
static void later_fields(struct fsink *out, const struct rec *r)
{
	static const char *const transports[] = {"UDP", "TCP", "encrypted (DoT/DoH)", "libc resolver"};
	int v = r->lay->version;
	const uint8_t *p = r->p;
	if (v >= 5) {
		put_ip(out, "dns_server_ip", AF_INET, p + O_DNS_IP); /* network order */
		uint8_t t = p[O_DNS_TRANSPORT];
		f_put(out, &(struct field){F_NAME("dns_transport"), .kind = FK_UINT, .v.u = t,
					   .value_name = t < ARRAY_LEN(transports) ? transports[t] : NULL});
	}
	if (v >= 6)
		put_ip(out, "dns_server_ip6", AF_INET6, p + O_DNS_IP6);
	if (v >= 7)
		peer_fields(out, p);
	if (v >= 8) {
		uint64_t c = ld64le(p + O_CORRELATION);
		f_put(out, &(struct field){F_NAME("correlation_id"), .kind = FK_UINT, .v.u = c,
					   .meaning = c ? "the request's start time, ns" : "none"});
	}
	if (v >= 9) {
		uint8_t m = p[O_HTTP_METHOD];
		f_put(out, &(struct field){F_NAME("http_method"), .kind = FK_UINT, .v.u = m,
					   .value_name = pt_http_method_name(m), .meaning = pt_http_method_name(m) ? NULL : "none"});
		f_put(out, &(struct field){F_NAME("agg_recorded"), .kind = FK_BOOL, .v.b = p[O_AGG_RECORDED] != 0,
					   .meaning = p[O_AGG_RECORDED] ? "already counted in the kernel's aggregates" : NULL});
	}
}

void pt_fields(void *st, const struct event *e, struct fsink *out)
{
	struct pt *pt = st;
	struct rec r;
	if (!load(pt, e, &r)) {
		f_cstr(out, "error", "record not readable");
		return;
	}
	_Static_assert(VERSIONS <= 9, "a version is one digit");
	char tmp[64], vbuf[3] = {'V', (char)('0' + r.lay->version)};
	f_cstr(out, "version", vbuf);
	f_uint(out, "record_length", r.len);
	f_unit(out, "timestamp", r.ts, "ns");
	f_uint(out, "pid", r.pid);
	if (r.comm)
		f_str(out, "comm", r.comm, r.ncomm);
	else
		f_null(out, "comm");
	f_put(out, &(struct field){F_NAME("type"), .kind = FK_UINT, .v.u = r.type,
				   .value_name = r.type < T_KNOWN ? types[r.type].name : NULL,
				   .meaning = r.type < T_KNOWN ? NULL : "unknown"});
	f_cstr(out, "category", pt_category_of(&r));
	f_unit(out, "latency_ns", r.latency, "ns");
	f_put(out, &(struct field){F_NAME("error"), .kind = FK_INT, .v.i = r.error, .value_name = error_name(&r),
				   .meaning = error_note(&r, tmp, sizeof tmp)});
	const struct ptype *type = ptype_of(r.type);
	struct field bytes = {F_NAME("bytes"), .kind = FK_UINT, .v.u = r.bytes};
	static __thread struct buf mb; /* (kept per thread: filters write every event's fields) */
	buf_reset(&mb);
	switch (type->bytes) {
	case B_FD: bytes.meaning = (int64_t)r.bytes < 0 ? "no fd" : "fd"; break;
	case B_OOM:
		buf_printf(&mb, "%.2f MB", r.bytes / 1048576.0);
		bytes.meaning = mb.p;
		break;
	case B_USAGE: bytes.meaning = "usage"; break;
	case B_UID: bytes.meaning = "uid"; break;
	case B_ANSWERS: bytes.meaning = "answers"; break;
	case B_CONNS: bytes.meaning = "open connections"; break;
	case B_SIZE:
		if (r.bytes >= 1024) {
			fmt_bytes(&mb, r.bytes);
			bytes.meaning = mb.p;
		}
		break;
	}
	f_put(out, &bytes);
	struct field ts = {F_NAME("tcp_state"), .kind = FK_UINT, .v.u = r.tcp_state};
	char qt[16];
	switch (type->state) {
	case S_TCP: ts.value_name = tcp_state_name(r.tcp_state) ? tcp_state_name(r.tcp_state) : "UNKNOWN"; break;
	case S_RESOURCE:
		ts.value_name = r.tcp_state == 0 ? "CPU" : r.tcp_state == 1 ? "MEM" : r.tcp_state == 2 ? "IO" : "UNKNOWN";
		break;
	case S_HTTP: ts.value_name = pt_http_transport(r.tcp_state); break;
	case S_QTYPE_SET:
		if (!r.tcp_state)
			break;
		/* fall through */
	case S_QTYPE: ts.value_name = qtype_name(r.tcp_state, qt, sizeof qt); break;
	case S_MAXOPEN: ts.meaning = r.tcp_state ? "the pool's maximum" : "no maximum set"; break;
	case S_SERVER: ts.value_name = pt_server_kind(r.tcp_state); break;
	case S_NONE: break;
	}
	f_put(out, &ts);
	f_hex(out, "stack_key", r.stack_key);
	if (r.lay->cgroup)
		f_uint(out, "cgroup_id", r.cgroup);
	else
		f_null(out, "cgroup_id");
	if (r.lay->netns)
		f_uint(out, "net_ns_id", r.netns);
	else
		f_null(out, "net_ns_id");
	if (r.type == T_RENAME) {
		static __thread struct buf joined; /* fields() runs on filter threads */
		buf_reset(&joined);
		pt_rename_target(&r, &joined);
		f_str(out, "target", joined.p, joined.len);
	} else {
		f_str(out, "target", r.target, r.ntarget);
	}
	f_str(out, "details", r.details, r.ndetails);
	later_fields(out, &r);
}

static void latency_ms(struct buf *b, uint64_t ns)
{
	buf_fixed(b, ns, 6, 2);
	buf_add(b, "ms", 2);
}

/* Append strings (NULL-terminated list): summaries are built for every
 * event a full-text filter looks at, so no printf here. */
static void cat(struct buf *b, ...)
{
	va_list ap;
	va_start(ap, b);
	for (const char *s; (s = va_arg(ap, const char *));)
		buf_adds(b, s);
	va_end(ap);
}

/* " TARGET" when there is one. */
static void opt(struct buf *b, const char *t)
{
	if (*t) {
		buf_addc(b, ' ');
		buf_adds(b, t);
	}
}

/* Write a type's summary template: %t the target, %T " target" when there
 * is one, %d the details, %B bytes as a size, %N bytes as a count, %L the
 * latency, %E the error as a number, %P the pid, %Y the type code, %S the
 * TCP state, %O " fd=N" of an open that worked, %F " fd=N" of a close, %M
 * the OOM kill's MB, %R the resource limit's level and kind, %Q the DNS
 * query type, %H " METHOD" of V9's HTTP records, %X a pool's maximum and
 * use, %C ": connected" of a connect that worked, %K the server's kind, %%
 * a %. */
static void summary_put(struct buf *b, const char *tpl, const struct rec *r, const char *t, const char *d)
{
	for (const char *p = tpl; *p; p++) {
		const char *q = strchr(p, '%');
		if (!q) {
			buf_adds(b, p);
			return;
		}
		buf_add(b, p, (size_t)(q - p));
		p = q + 1;
		switch (*p) {
		case 't': buf_adds(b, t); break;
		case 'T': opt(b, t); break;
		case 'd': buf_adds(b, d); break;
		case 'B': fmt_bytes(b, r->bytes); break;
		case 'L': latency_ms(b, r->latency); break;
		case 'E': buf_i64(b, r->error); break;
		case 'P': buf_u64(b, r->pid); break;
		case 'Y': buf_u64(b, r->type); break;
		case 'N': buf_u64(b, r->bytes); break;
		case 'H':
			if (pt_http_method_of(r))
				cat(b, " ", pt_http_method_of(r), NULL);
			break;
		case 'X':
			if (r->tcp_state) {
				buf_adds(b, " of ");
				buf_u64(b, r->tcp_state);
				buf_adds(b, ", ");
				buf_i64(b, r->error);
				buf_adds(b, "% in use");
			} else {
				buf_adds(b, ", no maximum set");
			}
			break;
		case 'C':
			if (!r->error)
				buf_adds(b, ": connected");
			break;
		case 'K':
			if (pt_server_kind(r->tcp_state))
				cat(b, pt_server_kind(r->tcp_state), " ", NULL);
			break;
		case 'S':
			if (tcp_state_name(r->tcp_state)) {
				buf_adds(b, tcp_state_name(r->tcp_state));
			} else {
				buf_adds(b, "UNKNOWN(");
				buf_u64(b, r->tcp_state);
				buf_addc(b, ')');
			}
			break;
		case 'O':
		case 'F':
			if ((int64_t)r->bytes >= 0 && (*p == 'F' || !r->error)) {
				buf_adds(b, " fd=");
				buf_i64(b, (int64_t)r->bytes);
			}
			break;
		case 'M': buf_fixed(b, (uint64_t)(((__uint128_t)r->bytes * 100 + 524288) >> 20), 2, 2); break;
		case 'R':
			cat(b, r->error >= 95 ? "EMERGENCY " : r->error >= 90 ? "CRITICAL " : r->error >= 80 ? "WARNING " : "",
			    r->tcp_state == 0 ? "CPU" : r->tcp_state == 1 ? "memory" : r->tcp_state == 2 ? "IO" : "resource",
			    NULL);
			break;
		case 'Q': {
			char qt[16];
			buf_adds(b, qtype_name(r->tcp_state, qt, sizeof qt));
			break;
		}
		default: buf_addc(b, *p); break; /* %% */
		}
	}
}

void pt_summary(void *st, const struct event *e, struct buf *b)
{
	struct pt *pt = st;
	struct rec r;
	if (!load(pt, e, &r)) {
		buf_adds(b, "(record not readable)");
		return;
	}
	/* scratch kept per thread: filters call this for every event */
	static __thread struct buf target, details, joined;
	buf_reset(&target);
	buf_reset(&details);
	if (r.type == T_RENAME) {
		buf_reset(&joined);
		pt_rename_target(&r, &joined);
		esc_term(&target, joined.p, joined.len);
	} else {
		esc_term(&target, r.target, r.ntarget);
	}
	esc_term(&details, r.details, r.ndetails);
	const struct ptype *type = ptype_of(r.type);
	buf_addc(b, '[');
	buf_adds(b, pt_category_of(&r));
	buf_add(b, "] ", 2);
	summary_put(b, type->summary, &r, buf_str(&target), buf_str(&details));
	char tmp[64];
	if (r.error && !type->quiet) {
		const char *name = error_name(&r), *note = error_note(&r, tmp, sizeof tmp);
		buf_adds(b, " failed: error ");
		buf_i64(b, r.error);
		if (name || note)
			cat(b, " (", name ? name : note, ")", NULL);
	}
}

void pt_info(struct source *src, struct fsink *out)
{
	uint64_t frames = 0, invalid = 0, v[VERSIONS] = {0};
	struct input *in;
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct pt *pt = in->dstate;
		if (!pt)
			continue;
		frames += pt->frames;
		invalid += pt->invalid;
		for (size_t k = 0; k < VERSIONS; k++)
			v[k] += pt->by_version[k];
	}
	f_uint(out, "frames", frames);
	f_uint(out, "invalid_frames", invalid);
	f_obj(out, "records_by_version");
	static const char *const names[VERSIONS] = {"V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9"};
	for (size_t k = 0; k < VERSIONS; k++)
		f_uint(out, names[k], v[k]);
	f_end(out);
}

void pt_save(void *st, struct buf *out)
{
	struct pt *pt = st;
	put_array(out, pt->type_ids, 1, sizeof pt->type_ids);
	hmap_save(&pt->unknown_types, out);
	hmap_save(&pt->pids, out);
	put_u64(out, pt->frames);
	put_u64(out, pt->invalid);
	put_array(out, pt->by_version, VERSIONS, sizeof *pt->by_version);
}

bool pt_restore(void *st, struct blob *r)
{
	struct pt *pt = st;
	struct model *m = dec_model(pt->in);
	size_t n;
	const void *ids = get_array(r, &n, sizeof pt->type_ids);
	if (n != 1)
		return false;
	memcpy(pt->type_ids, ids, sizeof pt->type_ids);
	for (size_t i = 0; i < T_KNOWN; i++)
		for (size_t v = 0; v < 4; v++)
			if (pt->type_ids[i][v] > model_ntypes(m))
				return false;
	hmap_restore(&pt->unknown_types, r, model_ntypes(m));
	hmap_restore(&pt->pids, r, (uint64_t)model_nlanes(m) << 1);
	pt->frames = get_u64(r);
	pt->invalid = get_u64(r);
	const void *by = get_array(r, &n, sizeof *pt->by_version);
	if (r->bad || n != VERSIONS)
		return false;
	memcpy(pt->by_version, by, sizeof pt->by_version);
	return true;
}
