/* podtrace event records: a capture is a stream of [u32 LE length][record]
 * frames, the record version chosen by its length (V1..V4; longer records
 * read as V4).  See specs/podtrace.md and specs/podtrace-notes.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "decoders/decoder.h"
#include "src/esc.h"
#include "src/hmap.h"

#define V1_SIZE 312
#define V2_SIZE 320
#define V3_SIZE 336
#define V4_SIZE 344
/* Real records are at most a few hundred bytes; beyond this the framing is lost. */
#define MAX_FRAME 65536

enum {
	T_DNS, T_CONNECT, T_TCP_SEND, T_TCP_RECV, T_WRITE, T_READ, T_FSYNC, T_SCHED_SWITCH, T_TCP_STATE,
	T_PAGE_FAULT, T_OOM_KILL, T_UDP_SEND, T_UDP_RECV, T_HTTP_REQ, T_HTTP_RESP, T_LOCK_CONTENTION,
	T_TCP_RETRANS, T_NET_DEV_ERROR, T_DB_QUERY, T_EXEC, T_FORK, T_OPEN, T_CLOSE, T_TLS_HANDSHAKE,
	T_TLS_ERROR, T_RESOURCE_LIMIT, T_POOL_ACQUIRE, T_POOL_RELEASE, T_POOL_EXHAUSTED, T_UNLINK, T_RENAME,
	T_REDIS_CMD, T_MEMCACHED_CMD, T_FASTCGI_REQUEST, T_FASTCGI_RESPONSE, T_GRPC_METHOD, T_KAFKA_PRODUCE,
	T_KAFKA_FETCH, T_DNS_QUERY, T_AF_ALG, T_HTTP3, T_USDT, T_KNOWN
};

static const struct {
	const char *name, *category;
} types[T_KNOWN] = {
	{"DNS", "DNS"}, {"CONNECT", "NET"}, {"TCP_SEND", "NET"}, {"TCP_RECV", "NET"}, {"WRITE", "FS"},
	{"READ", "FS"}, {"FSYNC", "FS"}, {"SCHED_SWITCH", "CPU"}, {"TCP_STATE", "NET"}, {"PAGE_FAULT", "MEM"},
	{"OOM_KILL", "MEM"}, {"UDP_SEND", "NET"}, {"UDP_RECV", "NET"}, {"HTTP_REQ", "HTTP"},
	{"HTTP_RESP", "HTTP"}, {"LOCK_CONTENTION", "LOCK"}, {"TCP_RETRANS", "NET"}, {"NET_DEV_ERROR", "NET"},
	{"DB_QUERY", "DB"}, {"EXEC", "PROC"}, {"FORK", "PROC"}, {"OPEN", "FS"}, {"CLOSE", "FS"},
	{"TLS_HANDSHAKE", "TLS"}, {"TLS_ERROR", "TLS"}, {"RESOURCE_LIMIT", "RESOURCE"},
	{"POOL_ACQUIRE", "POOL"}, {"POOL_RELEASE", "POOL"}, {"POOL_EXHAUSTED", "POOL"}, {"UNLINK", "FS"},
	{"RENAME", "FS"}, {"REDIS_CMD", "CACHE"}, {"MEMCACHED_CMD", "CACHE"}, {"FASTCGI_REQUEST", "FASTCGI"},
	{"FASTCGI_RESPONSE", "FASTCGI"}, {"GRPC_METHOD", "gRPC"}, {"KAFKA_PRODUCE", "KAFKA"},
	{"KAFKA_FETCH", "KAFKA"}, {"DNS_QUERY", "DNS"}, {"AF_ALG", "CRYPTO"}, {"HTTP3", "HTTP/3"},
	{"USDT", "USDT"},
};

static const char *const tcp_states[] = {
	NULL, "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV",
};

/* The layout of one record: where each field sits (0 = absent). */
struct layout {
	int version;
	unsigned cgroup, comm, target, details, netns;
};
static const struct layout layouts[] = {
	{1, 0, 0, 56, 184, 0},
	{2, 56, 0, 64, 192, 0},
	{3, 56, 64, 80, 208, 0},
	{4, 56, 64, 80, 208, 336},
};

static const struct layout *layout_for(uint32_t len)
{
	return len >= V4_SIZE ? &layouts[3] : len >= V3_SIZE ? &layouts[2] : len >= V2_SIZE ? &layouts[1]
				: len >= V1_SIZE ? &layouts[0] : NULL;
}

/* A decoded record: the common part plus the strings. */
struct rec {
	const struct layout *lay;
	uint32_t len;
	uint64_t ts, latency, bytes, stack_key, cgroup;
	uint32_t pid, type, tcp_state, netns;
	int32_t error;
	const uint8_t *comm, *target, *details;
	size_t ncomm, ntarget, ndetails;
};

struct pt {
	struct input *in;
	uint32_t type_ids[T_KNOWN][4]; /* model type + 1, by code and (HTTP only) transport */
	struct hmap unknown_types;     /* type code -> model type */
	struct hmap pids;                 /* pid -> lane << 1 | comm known */
	uint64_t frames, invalid, by_version[4];
	struct buf tmp;
};

static size_t cstrlen(const uint8_t *p, size_t max)
{
	const uint8_t *z = memchr(p, 0, max);
	return z ? (size_t)(z - p) : max;
}

static void parse(const uint8_t *frame, uint32_t len, struct rec *r)
{
	const uint8_t *p = frame;
	r->lay = layout_for(len);
	r->len = len;
	r->ts = ld64le(p);
	r->pid = ld32le(p + 8);
	r->type = ld32le(p + 12);
	r->latency = ld64le(p + 16);
	r->error = (int32_t)ld32le(p + 24);
	r->bytes = ld64le(p + 32);
	r->tcp_state = ld32le(p + 40);
	r->stack_key = ld64le(p + 48);
	r->cgroup = r->lay->cgroup ? ld64le(p + r->lay->cgroup) : 0;
	r->netns = r->lay->netns ? ld32le(p + r->lay->netns) : 0;
	r->comm = r->lay->comm ? p + r->lay->comm : NULL;
	r->ncomm = r->comm ? cstrlen(r->comm, 16) : 0;
	r->target = p + r->lay->target;
	r->ntarget = cstrlen(r->target, 128);
	r->details = p + r->lay->details;
	r->ndetails = cstrlen(r->details, 128);
}

/* RENAME keeps two halves: old name in bytes 0..62, new name in 64..127. */
static void rename_target(const struct rec *r, struct buf *b)
{
	size_t nold = cstrlen(r->target, 63), nnew = cstrlen(r->target + 64, 64);
	buf_reset(b);
	buf_add(b, r->target, nold);
	if (nnew) {
		buf_addc(b, '>');
		buf_add(b, r->target + 64, nnew);
	}
}

static const char *http_transport(uint32_t bits)
{
	return bits & 4 ? "HTTP/3" : bits & 2 ? "HTTP/2" : bits & 1 ? "HTTPS" : "HTTP";
}

static const char *category_of(const struct rec *r)
{
	if (r->type == T_HTTP_REQ || r->type == T_HTTP_RESP)
		return http_transport(r->tcp_state);
	return r->type < T_KNOWN ? types[r->type].category : "UNKNOWN";
}

extern const struct decoder podtrace_decoder;

static uint32_t type_for(struct pt *pt, const struct rec *r)
{
	uint32_t *slot = NULL;
	uint64_t id;
	if (r->type < T_KNOWN) {
		unsigned v = 0;
		if (r->type == T_HTTP_REQ || r->type == T_HTTP_RESP)
			v = r->tcp_state & 4 ? 3 : r->tcp_state & 2 ? 2 : r->tcp_state & 1 ? 1 : 0;
		slot = &pt->type_ids[r->type][v];
		if (*slot)
			return *slot - 1;
	} else if (hmap_get(&pt->unknown_types, r->type, &id)) {
		return (uint32_t)id;
	}
	struct model *m = dec_model(pt->in);
	char name[32];
	if (r->type < T_KNOWN)
		snprintf(name, sizeof name, "%s", types[r->type].name);
	else
		snprintf(name, sizeof name, "type %u", r->type);
	const char *cat = category_of(r);
	id = model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
					  .category = model_str(m, cat, strlen(cat)),
					  .name_field = model_str(m, "target", 6),
					  .role = ROLE_COMPLETE,
					  .owner = &podtrace_decoder});
	if (slot)
		*slot = (uint32_t)id + 1;
	else
		hmap_put(&pt->unknown_types, r->type, id);
	return (uint32_t)id;
}

static uint32_t lane_for(struct pt *pt, const struct rec *r)
{
	uint64_t v;
	bool known = hmap_get(&pt->pids, r->pid, &v);
	if (known && ((v & 1) || !r->ncomm))
		return (uint32_t)(v >> 1);
	struct model *m = dec_model(pt->in);
	struct buf *b = &pt->tmp;
	buf_reset(b);
	buf_printf(b, "pid %u", r->pid);
	if (r->ncomm) {
		buf_adds(b, " (");
		buf_add(b, r->comm, r->ncomm);
		buf_addc(b, ')');
	}
	uint32_t name = model_str(m, b->p, b->len);
	uint32_t lane;
	if (known) {
		lane = (uint32_t)(v >> 1);
		model_lane_rename(m, lane, name);
	} else {
		lane = dec_lane_sid(dec_source(pt->in), r->pid, name);
	}
	hmap_put(&pt->pids, r->pid, (uint64_t)lane << 1 | (r->ncomm ? 1 : 0));
	return lane;
}

static int pt_probe(const uint8_t *p, size_t n, bool final)
{
	size_t off = 0, frames = 0;
	while (off + 4 <= n && frames < 16) {
		uint32_t len = ld32le(p + off);
		if (len < V1_SIZE || len > MAX_FRAME)
			return frames ? PROBE_WEAK : PROBE_NO;
		if (off + 4 + len > n)
			break;
		off += 4 + len;
		frames++;
	}
	if (frames >= 2 || (frames == 1 && off == n && final))
		return PROBE_GOOD;
	if (off + 4 > n && !final && frames == 0)
		return PROBE_MORE;
	return frames || off + 4 <= n ? PROBE_WEAK : PROBE_NO;
}

static void *pt_open(struct input *in)
{
	struct pt *pt = xcalloc(1, sizeof *pt);
	pt->in = in;
	return pt;
}

static void pt_close(void *st)
{
	struct pt *pt = st;
	hmap_free(&pt->unknown_types);
	hmap_free(&pt->pids);
	buf_free(&pt->tmp);
	free(pt);
}

static size_t pt_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct pt *pt = st;
	struct model *m = dec_model(pt->in);
	size_t at = 0;
	while (at + 4 <= n) {
		uint32_t len = ld32le(p + at);
		if (len == 0) {
			dec_fatal(pt->in, off + at, "frame length 0: the framing is lost here");
			return at;
		}
		if (len > MAX_FRAME) {
			dec_fatal(pt->in, off + at,
				  "frame length %u is absurd (records are at most a few hundred bytes): "
				  "the framing is lost here",
				  len);
			return at;
		}
		if (len > n - at - 4) {
			if (final)
				dec_fatal(pt->in, off + at, "truncated: frame claims %u bytes, only %zu present", len,
					  n - at - 4);
			return at;
		}
		pt->frames++;
		if (len < V1_SIZE) {
			pt->invalid++;
			dec_damage(pt->in, off + at, "invalid frame: %u bytes is shorter than a V1 record (312)", len);
			at += 4 + (size_t)len;
			continue;
		}
		/* Only what the model keeps; the rest is decoded when shown. */
		const uint8_t *q = p + at + 4;
		struct rec r = {.lay = layout_for(len), .len = len};
		r.ts = ld64le(q);
		r.pid = ld32le(q + 8);
		r.type = ld32le(q + 12);
		r.latency = ld64le(q + 16);
		r.tcp_state = ld32le(q + 40);
		if (r.lay->comm) {
			r.comm = q + r.lay->comm;
			r.ncomm = cstrlen(r.comm, 16);
		}
		r.target = q + r.lay->target;
		pt->by_version[r.lay->version - 1]++;
		uint32_t name;
		if (r.type == T_RENAME) {
			rename_target(&r, &pt->tmp);
			name = model_str(m, pt->tmp.p, pt->tmp.len);
		} else {
			name = model_str(m, r.target, cstrlen(r.target, 128));
		}
		struct event e = {
			.ts = (int64_t)r.ts,
			.dur = r.latency,
			.lane = lane_for(pt, &r),
			.type = type_for(pt, &r),
			.name = name,
			.flags = ROLE_COMPLETE,
			.off = off + at,
		};
		if (!dec_emit(pt->in, &e))
			return at;
		at += 4 + (size_t)len;
	}
	if (final && at < n)
		dec_fatal(pt->in, off + at, "truncated: partial length prefix (%zu of 4 bytes)", n - at);
	return at;
}

/* ---- lazy decoding -------------------------------------------------------- */

static bool load(struct pt *pt, const struct event *e, struct rec *r)
{
	uint64_t avail;
	const uint8_t *p = input_bytes(pt->in, e->off, &avail);
	if (!p || avail < 4)
		return false;
	uint32_t len = ld32le(p);
	if (len < V1_SIZE || len > avail - 4)
		return false;
	parse(p + 4, len, r);
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

/* What `error` means for this type, written into tmp (or a static name). */
static const char *error_meaning(const struct rec *r, char *tmp, size_t n)
{
	int32_t e = r->error;
	switch (r->type) {
	case T_DNS: return e < 0 ? eai_name(e) : e > 0 ? rcode_name(e) : NULL;
	case T_RESOURCE_LIMIT: snprintf(tmp, n, "%d%% utilisation", e); return tmp;
	case T_TLS_HANDSHAKE:
		if (!e)
			return NULL;
		snprintf(tmp, n, "SSL return value %d", e);
		return tmp;
	case T_FASTCGI_RESPONSE: snprintf(tmp, n, "appStatus=%d", e); return tmp;
	case T_PAGE_FAULT:
	case T_KAFKA_PRODUCE:
	case T_KAFKA_FETCH: return NULL;
	default: return e < 0 && e > INT32_MIN ? errno_name(-e) : NULL; /* -INT32_MIN overflows */
	}
}

static bool is_fd_type(uint32_t t) { return t == T_OPEN || t == T_CLOSE; }

static void pt_fields(void *st, const struct event *e, struct fsink *out)
{
	struct pt *pt = st;
	struct rec r;
	if (!load(pt, e, &r)) {
		f_cstr(out, "error", "record not readable");
		return;
	}
	char tmp[64], vbuf[32];
	snprintf(vbuf, sizeof vbuf, "V%d", r.lay->version);
	f_cstr(out, "version", vbuf);
	f_uint(out, "record_length", r.len);
	f_unit(out, "timestamp", r.ts, "ns");
	f_uint(out, "pid", r.pid);
	if (r.comm)
		f_str(out, "comm", r.comm, r.ncomm);
	else
		f_null(out, "comm");
	f_put(out, &(struct field){.name = "type", .kind = FK_UINT, .v.u = r.type,
				   .meaning = r.type < T_KNOWN ? types[r.type].name : "unknown"});
	f_cstr(out, "category", category_of(&r));
	f_unit(out, "latency_ns", r.latency, "ns");
	f_put(out, &(struct field){.name = "error", .kind = FK_INT, .v.i = r.error,
				   .meaning = error_meaning(&r, tmp, sizeof tmp)});
	struct field bytes = {.name = "bytes", .kind = FK_UINT, .v.u = r.bytes};
	struct buf mb = {0};
	if (is_fd_type(r.type)) {
		bytes.meaning = (int64_t)r.bytes < 0 ? "no fd" : "fd";
	} else if (r.type == T_OOM_KILL) {
		buf_printf(&mb, "%.2f MB", r.bytes / 1048576.0);
		bytes.meaning = mb.p;
	} else if (r.type == T_RESOURCE_LIMIT) {
		bytes.meaning = "usage";
	} else if (r.type == T_AF_ALG) {
		bytes.meaning = "uid";
	} else if (r.type == T_DNS) {
		bytes.meaning = "answers";
	} else if (r.bytes >= 1024) {
		fmt_bytes(&mb, r.bytes);
		bytes.meaning = mb.p;
	}
	f_put(out, &bytes);
	buf_free(&mb);
	struct field ts = {.name = "tcp_state", .kind = FK_UINT, .v.u = r.tcp_state};
	char qt[16];
	if (r.type == T_TCP_STATE)
		ts.meaning = r.tcp_state < ARRAY_LEN(tcp_states) && tcp_states[r.tcp_state] ? tcp_states[r.tcp_state]
											 : "UNKNOWN";
	else if (r.type == T_RESOURCE_LIMIT)
		ts.meaning = r.tcp_state == 0 ? "CPU" : r.tcp_state == 1 ? "MEM" : r.tcp_state == 2 ? "IO" : "UNKNOWN";
	else if (r.type == T_HTTP_REQ || r.type == T_HTTP_RESP)
		ts.meaning = http_transport(r.tcp_state);
	else if (r.type == T_DNS_QUERY || (r.type == T_DNS && r.tcp_state))
		ts.meaning = qtype_name(r.tcp_state, qt, sizeof qt);
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
		rename_target(&r, &joined);
		f_str(out, "target", joined.p, joined.len);
	} else {
		f_str(out, "target", r.target, r.ntarget);
	}
	f_str(out, "details", r.details, r.ndetails);
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

static void pt_summary(void *st, const struct event *e, struct buf *b)
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
		rename_target(&r, &joined);
		esc_term(&target, joined.p, joined.len);
	} else {
		esc_term(&target, r.target, r.ntarget);
	}
	esc_term(&details, r.details, r.ndetails);
	const char *t = buf_str(&target), *d = buf_str(&details);
	cat(b, "[", category_of(&r), "] ", NULL);
	bool took = true;
	switch (r.type) {
	case T_DNS: cat(b, "lookup ", t, NULL); break;
	case T_CONNECT: cat(b, "connect to ", t, NULL); break;
	case T_TCP_SEND:
	case T_TCP_RECV:
	case T_UDP_SEND:
	case T_UDP_RECV:
		cat(b, r.type == T_TCP_SEND || r.type == T_TCP_RECV ? "TCP " : "UDP ",
		    r.type == T_TCP_SEND || r.type == T_UDP_SEND ? "send " : "recv ", NULL);
		fmt_bytes(b, r.bytes);
		opt(b, t);
		break;
	case T_WRITE:
	case T_READ:
		cat(b, r.type == T_WRITE ? "write()" : "read()", NULL);
		opt(b, t);
		buf_addc(b, ' ');
		fmt_bytes(b, r.bytes);
		break;
	case T_FSYNC:
		buf_adds(b, "fsync()");
		opt(b, t);
		break;
	case T_SCHED_SWITCH:
		buf_adds(b, "thread blocked ");
		latency_ms(b, r.latency);
		took = false;
		break;
	case T_TCP_STATE:
		buf_adds(b, "TCP state ");
		if (r.tcp_state < ARRAY_LEN(tcp_states) && tcp_states[r.tcp_state]) {
			buf_adds(b, tcp_states[r.tcp_state]);
		} else {
			buf_adds(b, "UNKNOWN(");
			buf_u64(b, r.tcp_state);
			buf_addc(b, ')');
		}
		opt(b, t);
		took = false;
		break;
	case T_PAGE_FAULT:
		buf_adds(b, "page fault error code ");
		buf_i64(b, r.error);
		took = false;
		break;
	case T_OOM_KILL:
		cat(b, "OOM kill: ", t, " (", NULL);
		buf_fixed(b, (uint64_t)(((__uint128_t)r.bytes * 100 + 524288) >> 20), 2, 2);
		buf_adds(b, " MB)");
		took = false;
		break;
	case T_HTTP_REQ:
		buf_adds(b, "request");
		opt(b, t);
		break;
	case T_HTTP_RESP:
		buf_adds(b, "response");
		opt(b, t);
		buf_addc(b, ' ');
		fmt_bytes(b, r.bytes);
		break;
	case T_LOCK_CONTENTION:
		cat(b, "lock contention on ", t, ": waited ", NULL);
		latency_ms(b, r.latency);
		took = false;
		break;
	case T_TCP_RETRANS:
		buf_adds(b, "TCP retransmit");
		opt(b, t);
		took = false;
		break;
	case T_NET_DEV_ERROR:
		cat(b, "device error on ", t, " (error ", NULL);
		buf_i64(b, r.error);
		buf_addc(b, ')');
		took = false;
		break;
	case T_DB_QUERY: cat(b, "query ", t, NULL); break;
	case T_EXEC:
		cat(b, "exec ", t, NULL);
		took = false;
		break;
	case T_FORK:
		buf_adds(b, "fork created pid ");
		buf_u64(b, r.pid);
		cat(b, " (", t, ")", NULL);
		took = false;
		break;
	case T_OPEN:
		buf_adds(b, "open()");
		opt(b, t);
		if ((int64_t)r.bytes >= 0 && !r.error) {
			buf_adds(b, " fd=");
			buf_i64(b, (int64_t)r.bytes);
		}
		break;
	case T_CLOSE:
		buf_adds(b, "close()");
		if ((int64_t)r.bytes >= 0) {
			buf_adds(b, " fd=");
			buf_i64(b, (int64_t)r.bytes);
		}
		took = false;
		break;
	case T_TLS_HANDSHAKE: buf_adds(b, "handshake"); break;
	case T_TLS_ERROR:
		buf_adds(b, "TLS error ");
		buf_i64(b, r.error);
		took = false;
		break;
	case T_RESOURCE_LIMIT: {
		const char *kind = r.tcp_state == 0 ? "CPU" : r.tcp_state == 1 ? "memory" : r.tcp_state == 2 ? "IO"
													       : "resource";
		const char *level = r.error >= 95 ? "EMERGENCY " : r.error >= 90 ? "CRITICAL " : r.error >= 80 ? "WARNING " : "";
		cat(b, level, kind, " utilization: ", NULL);
		buf_i64(b, r.error);
		buf_addc(b, '%');
		took = false;
		break;
	}
	case T_POOL_ACQUIRE: cat(b, "acquire ", t, NULL); break;
	case T_POOL_RELEASE: cat(b, "release ", t, NULL); break;
	case T_POOL_EXHAUSTED:
		cat(b, "pool exhausted ", t, ": waited ", NULL);
		latency_ms(b, r.latency);
		took = false;
		break;
	case T_UNLINK:
		buf_adds(b, "unlink()");
		opt(b, t);
		break;
	case T_RENAME:
		buf_adds(b, "rename()");
		opt(b, t);
		break;
	case T_REDIS_CMD:
		cat(b, "redis ", d, NULL);
		opt(b, t);
		break;
	case T_MEMCACHED_CMD: cat(b, "memcached ", d, NULL); break;
	case T_FASTCGI_REQUEST:
		buf_adds(b, d);
		opt(b, t);
		break;
	case T_FASTCGI_RESPONSE:
		buf_adds(b, "response");
		opt(b, t);
		buf_adds(b, " appStatus=");
		buf_i64(b, r.error);
		break;
	case T_GRPC_METHOD: cat(b, "call ", t, NULL); break;
	case T_KAFKA_PRODUCE:
	case T_KAFKA_FETCH:
		cat(b, r.type == T_KAFKA_PRODUCE ? "produce " : "fetch ", d, " ", NULL);
		fmt_bytes(b, r.bytes);
		break;
	case T_DNS_QUERY: {
		char qt[16];
		cat(b, "query ", t, " ", qtype_name(r.tcp_state, qt, sizeof qt), NULL);
		break;
	}
	case T_AF_ALG:
		cat(b, "AF_ALG ", t, " ", d, NULL);
		took = false;
		break;
	case T_HTTP3: buf_adds(b, t); break;
	case T_USDT:
		cat(b, t, ":", d, NULL);
		took = false;
		break;
	default:
		buf_adds(b, "event type ");
		buf_u64(b, r.type);
		took = false;
		break;
	}
	if (took) {
		buf_adds(b, " took ");
		latency_ms(b, r.latency);
	}
	bool errno_like = r.type != T_DNS && r.type != T_RESOURCE_LIMIT && r.type != T_TLS_HANDSHAKE &&
			  r.type != T_FASTCGI_RESPONSE && r.type != T_PAGE_FAULT && r.type != T_NET_DEV_ERROR &&
			  r.type != T_TLS_ERROR;
	char tmp[64];
	if (r.error && (errno_like || r.type == T_DNS || r.type == T_TLS_HANDSHAKE)) {
		const char *meaning = error_meaning(&r, tmp, sizeof tmp);
		buf_adds(b, " failed: error ");
		buf_i64(b, r.error);
		if (meaning)
			cat(b, " (", meaning, ")", NULL);
	}
}

static void pt_info(struct source *src, struct fsink *out)
{
	uint64_t frames = 0, invalid = 0, v[4] = {0};
	struct input *in;
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct pt *pt = in->dstate;
		if (!pt)
			continue;
		frames += pt->frames;
		invalid += pt->invalid;
		for (int k = 0; k < 4; k++)
			v[k] += pt->by_version[k];
	}
	f_uint(out, "frames", frames);
	f_uint(out, "invalid_frames", invalid);
	f_obj(out, "records_by_version");
	f_uint(out, "V1", v[0]);
	f_uint(out, "V2", v[1]);
	f_uint(out, "V3", v[2]);
	f_uint(out, "V4", v[3]);
	f_end(out);
}

const struct decoder podtrace_decoder = {
	.name = "podtrace",
	.title = "podtrace event records",
	.reentrant = true,
	.probe = pt_probe,
	.open = pt_open,
	.feed = pt_feed,
	.fields = pt_fields,
	.summary = pt_summary,
	.info = pt_info,
	.close = pt_close,
};
