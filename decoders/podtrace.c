/* podtrace event records: a capture is a stream of [u32 LE length][record]
 * frames, the record version chosen by its length (V1..V9, the largest
 * version that fits; bytes past it are ignored, as podtrace does).  See
 * specs/podtrace.md and specs/podtrace-notes.md.
 *
 * podtrace's probes stamp an event when it completes (the kretprobe or the
 * switch that ends it) with latency_ns measured back to its start, so an
 * event is placed at timestamp - latency and spans [that, timestamp]; its
 * fields keep the timestamp as written.  Samples (a TCP round-trip time, a
 * connection pool's state) are instants at their timestamp. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "decoders/decoder.h"
#include "src/esc.h"
#include "src/hmap.h"

#define V1_SIZE 312
/* Real records are at most a few hundred bytes; beyond this the framing is lost. */
#define MAX_FRAME 65536

enum {
	T_DNS, T_CONNECT, T_TCP_SEND, T_TCP_RECV, T_WRITE, T_READ, T_FSYNC, T_SCHED_SWITCH, T_TCP_STATE,
	T_PAGE_FAULT, T_OOM_KILL, T_UDP_SEND, T_UDP_RECV, T_HTTP_REQ, T_HTTP_RESP, T_LOCK_CONTENTION,
	T_TCP_RETRANS, T_NET_DEV_ERROR, T_DB_QUERY, T_EXEC, T_FORK, T_OPEN, T_CLOSE, T_TLS_HANDSHAKE,
	T_TLS_ERROR, T_RESOURCE_LIMIT, T_POOL_ACQUIRE, T_POOL_RELEASE, T_POOL_EXHAUSTED, T_UNLINK, T_RENAME,
	T_REDIS_CMD, T_MEMCACHED_CMD, T_FASTCGI_REQUEST, T_FASTCGI_RESPONSE, T_GRPC_METHOD, T_KAFKA_PRODUCE,
	T_KAFKA_FETCH, T_DNS_QUERY, T_AF_ALG, T_HTTP3, T_USDT, T_DB_ACQUIRE, T_DB_POOL_STATS, T_TCP_RTT,
	T_CONNECT_RESULT, T_REQUEST_DONE, T_KNOWN
};

/* How a record's `error` reads (in its fields and summary). */
enum err_kind { ERR_ERRNO, ERR_NONE, ERR_DNS, ERR_SSL, ERR_PERCENT, ERR_LEVEL, ERR_APPSTATUS };
/* What `bytes` and `tcp_state` hold, beside their names. */
enum bytes_kind { B_SIZE, B_FD, B_OOM, B_USAGE, B_UID, B_ANSWERS, B_CONNS };
enum state_kind { S_NONE, S_TCP, S_RESOURCE, S_HTTP, S_QTYPE, S_QTYPE_SET, S_MAXOPEN, S_SERVER };

/* What each event type is: its name and category; its one-line summary, a
 * template (summary_put() says what each %X writes); how its error, bytes
 * and tcp_state read; `quiet`: a nonzero error is a value shown in the
 * summary, not a failure; `sample`: a reading taken at its timestamp (an
 * instant), not something that took latency_ns. */
struct ptype {
	const char *name, *category, *summary;
	enum err_kind err;
	bool quiet, sample;
	enum bytes_kind bytes;
	enum state_kind state;
};

/* T(name, category, summary[, .field = value...]): a row of types[] */
#define T(n, c, s, ...) {.name = n, .category = c, .summary = s, __VA_ARGS__}
static const struct ptype types[T_KNOWN] = {
	[T_DNS] = T("DNS", "DNS", "lookup %t took %L", .err = ERR_DNS, .bytes = B_ANSWERS, .state = S_QTYPE_SET),
	[T_CONNECT] = T("CONNECT", "NET", "connect to %t took %L"),
	[T_TCP_SEND] = T("TCP_SEND", "NET", "TCP send %B%T took %L"),
	[T_TCP_RECV] = T("TCP_RECV", "NET", "TCP recv %B%T took %L"),
	[T_WRITE] = T("WRITE", "FS", "write()%T %B took %L"),
	[T_READ] = T("READ", "FS", "read()%T %B took %L"),
	[T_FSYNC] = T("FSYNC", "FS", "fsync()%T took %L"),
	[T_SCHED_SWITCH] = T("SCHED_SWITCH", "CPU", "thread blocked %L"),
	[T_TCP_STATE] = T("TCP_STATE", "NET", "TCP state %S%T", .state = S_TCP),
	[T_PAGE_FAULT] = T("PAGE_FAULT", "MEM", "page fault error code %E", .err = ERR_NONE, .quiet = true),
	[T_OOM_KILL] = T("OOM_KILL", "MEM", "OOM kill: %t (%M MB)", .bytes = B_OOM),
	[T_UDP_SEND] = T("UDP_SEND", "NET", "UDP send %B%T took %L"),
	[T_UDP_RECV] = T("UDP_RECV", "NET", "UDP recv %B%T took %L"),
	[T_HTTP_REQ] = T("HTTP_REQ", "HTTP", "request%H%T took %L", .state = S_HTTP),
	[T_HTTP_RESP] = T("HTTP_RESP", "HTTP", "response%H%T %B took %L", .state = S_HTTP),
	[T_LOCK_CONTENTION] = T("LOCK_CONTENTION", "LOCK", "lock contention on %t: waited %L"),
	[T_TCP_RETRANS] = T("TCP_RETRANS", "NET", "TCP retransmit%T"),
	[T_NET_DEV_ERROR] = T("NET_DEV_ERROR", "NET", "device error on %t (error %E)", .quiet = true),
	[T_DB_QUERY] = T("DB_QUERY", "DB", "query %t took %L"),
	[T_EXEC] = T("EXEC", "PROC", "exec %t"),
	[T_FORK] = T("FORK", "PROC", "fork created pid %P (%t)"),
	[T_OPEN] = T("OPEN", "FS", "open()%T%O took %L", .bytes = B_FD),
	[T_CLOSE] = T("CLOSE", "FS", "close()%F", .bytes = B_FD),
	[T_TLS_HANDSHAKE] = T("TLS_HANDSHAKE", "TLS", "handshake took %L", .err = ERR_SSL),
	[T_TLS_ERROR] = T("TLS_ERROR", "TLS", "TLS error %E", .quiet = true),
	[T_RESOURCE_LIMIT] = T("RESOURCE_LIMIT", "RESOURCE", "%R utilization: %E%%", .err = ERR_LEVEL, .quiet = true,
			      .bytes = B_USAGE, .state = S_RESOURCE),
	[T_POOL_ACQUIRE] = T("POOL_ACQUIRE", "POOL", "acquire %t took %L"),
	[T_POOL_RELEASE] = T("POOL_RELEASE", "POOL", "release %t took %L"),
	[T_POOL_EXHAUSTED] = T("POOL_EXHAUSTED", "POOL", "pool exhausted %t: waited %L"),
	[T_UNLINK] = T("UNLINK", "FS", "unlink()%T took %L"),
	[T_RENAME] = T("RENAME", "FS", "rename()%T took %L"),
	[T_REDIS_CMD] = T("REDIS_CMD", "CACHE", "redis %d%T took %L"),
	[T_MEMCACHED_CMD] = T("MEMCACHED_CMD", "CACHE", "memcached %d took %L"),
	[T_FASTCGI_REQUEST] = T("FASTCGI_REQUEST", "FASTCGI", "%d%T took %L"),
	[T_FASTCGI_RESPONSE] = T("FASTCGI_RESPONSE", "FASTCGI", "response%T appStatus=%E took %L", .err = ERR_APPSTATUS,
				.quiet = true),
	[T_GRPC_METHOD] = T("GRPC_METHOD", "gRPC", "call %t took %L"),
	[T_KAFKA_PRODUCE] = T("KAFKA_PRODUCE", "KAFKA", "produce %d %B took %L", .err = ERR_NONE),
	[T_KAFKA_FETCH] = T("KAFKA_FETCH", "KAFKA", "fetch %d %B took %L", .err = ERR_NONE),
	[T_DNS_QUERY] = T("DNS_QUERY", "DNS", "query %t %Q took %L", .state = S_QTYPE),
	[T_AF_ALG] = T("AF_ALG", "CRYPTO", "AF_ALG %t %d", .bytes = B_UID),
	[T_HTTP3] = T("HTTP3", "HTTP/3", "%t took %L"),
	[T_USDT] = T("USDT", "USDT", "%t:%d"),
	[T_DB_ACQUIRE] = T("DB_ACQUIRE", "POOL", "database/sql connection wait %L"),
	[T_DB_POOL_STATS] = T("DB_POOL_STATS", "POOL", "database/sql pool: %N open%X", .err = ERR_PERCENT, .quiet = true,
			     .sample = true, .bytes = B_CONNS, .state = S_MAXOPEN),
	[T_TCP_RTT] = T("TCP_RTT", "NET", "round trip%T %L", .sample = true),
	[T_CONNECT_RESULT] = T("CONNECT_RESULT", "NET", "connect to %t%C"),
	[T_REQUEST_DONE] = T("REQUEST_DONE", "REQUEST", "%Krequest took %L", .state = S_SERVER),
};
#undef T

/* A type code no writer we know of uses. */
static const struct ptype unknown_type = {.category = "UNKNOWN", .summary = "event type %Y"};

static const struct ptype *ptype_of(uint32_t type) { return type < T_KNOWN ? &types[type] : &unknown_type; }

static const char *const tcp_states[] = {
	NULL, "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV",
};

static const char *tcp_state_name(uint32_t s)
{
	return s < ARRAY_LEN(tcp_states) ? tcp_states[s] : NULL;
}

/* The layout of one record: its size and where each field sits (0 =
 * absent).  From V4 on, each version appends fields to the one before:
 * V5 the DNS server (IPv4) and transport, V6 its IPv6 address, V7 the
 * connection's peers, V8 a correlation id, V9 the HTTP method and the
 * kernel-aggregation flag. */
struct layout {
	int version;
	unsigned size, cgroup, comm, target, details, netns;
};
static const struct layout layouts[] = {
	{1, 312, 0, 0, 56, 184, 0},    {2, 320, 56, 0, 64, 192, 0},   {3, 336, 56, 64, 80, 208, 0},
	{4, 344, 56, 64, 80, 208, 336}, {5, 352, 56, 64, 80, 208, 336}, {6, 368, 56, 64, 80, 208, 336},
	{7, 416, 56, 64, 80, 208, 336}, {8, 424, 56, 64, 80, 208, 336}, {9, 432, 56, 64, 80, 208, 336},
};
#define VERSIONS ARRAY_LEN(layouts)

/* The offsets of the fields after V4 (each present from its version on). */
enum {
	O_DNS_IP = 344, O_DNS_TRANSPORT = 348, O_DNS_IP6 = 352, O_PEER_SADDR = 368, O_PEER_DADDR = 372,
	O_PEER_SPORT = 376, O_PEER_DPORT = 378, O_PEER_FAMILY = 380, O_PEER_SADDR6 = 384, O_PEER_DADDR6 = 400,
	O_CORRELATION = 416, O_HTTP_METHOD = 424, O_AGG_RECORDED = 425,
};

static const struct layout *layout_for(uint32_t len)
{
	for (size_t v = VERSIONS; v-- > 0;)
		if (len >= layouts[v].size)
			return &layouts[v];
	return NULL;
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
	const uint8_t *p; /* the whole record (the fields after V4 are read from it when shown) */
};

struct pt {
	struct input *in;
	uint32_t type_ids[T_KNOWN][4]; /* model type + 1, by code and (HTTP only) transport */
	struct hmap unknown_types;     /* type code -> model type */
	struct hmap pids;                 /* pid -> lane << 1 | comm known */
	uint64_t frames, invalid, by_version[VERSIONS];
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
	r->p = frame;
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

/* V9's http_method codes (podtrace's HTTP_METHOD_*); NULL: none. */
static const char *http_method_name(uint8_t code)
{
	static const char *const n[] = {NULL, "GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS"};
	return code < ARRAY_LEN(n) ? n[code] : NULL;
}

static const char *http_method_of(const struct rec *r)
{
	return r->lay->version >= 9 ? http_method_name(r->p[O_HTTP_METHOD]) : NULL;
}

/* REQUEST_DONE's tcp_state: the kind of server (threaded, or Go's when
 * 0x100 is set); NULL: one podtrace does not name. */
static const char *server_kind(uint32_t k)
{
	static const char *const threaded[] = {"HTTP/1", "HTTP/2", "HTTP/3"};
	static const char *const go[] = {NULL, "Go net/http", "Go HTTP/2", "Go gRPC", "Go HTTP/3"};
	if (k < ARRAY_LEN(threaded))
		return threaded[k];
	return k >= 0x100 && k - 0x100 < ARRAY_LEN(go) ? go[k - 0x100] : NULL;
}

static const char *category_of(const struct rec *r)
{
	const struct ptype *pt = ptype_of(r->type);
	return pt->state == S_HTTP ? http_transport(r->tcp_state) : pt->category;
}

extern const struct decoder podtrace_decoder;

static uint32_t type_for(struct pt *pt, const struct rec *r)
{
	uint32_t *slot = NULL;
	uint64_t id;
	if (r->type < T_KNOWN) {
		unsigned v = 0;
		if (types[r->type].state == S_HTTP)
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
					  .role = ptype_of(r->type)->sample ? ROLE_INSTANT : ROLE_COMPLETE,
					  .owner = &podtrace_decoder, .grouped = true});
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
			.ts = sat_i64((__int128)r.ts - r.latency), /* stamped when done: it began latency before */
			.dur = r.latency,
			.lane = lane_for(pt, &r),
			.type = type_for(pt, &r),
			.name = name,
			.flags = ROLE_COMPLETE,
			.off = off + at,
		};
		if (ptype_of(r.type)->sample)
			e.ts = (int64_t)MIN(r.ts, (uint64_t)INT64_MAX), e.dur = TTV_NODUR, e.flags = ROLE_INSTANT;
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
	f_put(out, &(struct field){.name = "peer_family", .kind = FK_UINT, .v.u = fam,
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
		f_put(out, &(struct field){.name = "dns_transport", .kind = FK_UINT, .v.u = t,
					   .value_name = t < ARRAY_LEN(transports) ? transports[t] : NULL});
	}
	if (v >= 6)
		put_ip(out, "dns_server_ip6", AF_INET6, p + O_DNS_IP6);
	if (v >= 7)
		peer_fields(out, p);
	if (v >= 8) {
		uint64_t c = ld64le(p + O_CORRELATION);
		f_put(out, &(struct field){.name = "correlation_id", .kind = FK_UINT, .v.u = c,
					   .meaning = c ? "the request's start time, ns" : "none"});
	}
	if (v >= 9) {
		uint8_t m = p[O_HTTP_METHOD];
		f_put(out, &(struct field){.name = "http_method", .kind = FK_UINT, .v.u = m,
					   .value_name = http_method_name(m), .meaning = http_method_name(m) ? NULL : "none"});
		f_put(out, &(struct field){.name = "agg_recorded", .kind = FK_BOOL, .v.b = p[O_AGG_RECORDED] != 0,
					   .meaning = p[O_AGG_RECORDED] ? "already counted in the kernel's aggregates" : NULL});
	}
}

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
				   .value_name = r.type < T_KNOWN ? types[r.type].name : NULL,
				   .meaning = r.type < T_KNOWN ? NULL : "unknown"});
	f_cstr(out, "category", category_of(&r));
	f_unit(out, "latency_ns", r.latency, "ns");
	f_put(out, &(struct field){.name = "error", .kind = FK_INT, .v.i = r.error, .value_name = error_name(&r),
				   .meaning = error_note(&r, tmp, sizeof tmp)});
	const struct ptype *type = ptype_of(r.type);
	struct field bytes = {.name = "bytes", .kind = FK_UINT, .v.u = r.bytes};
	struct buf mb = {0};
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
	buf_free(&mb);
	struct field ts = {.name = "tcp_state", .kind = FK_UINT, .v.u = r.tcp_state};
	char qt[16];
	switch (type->state) {
	case S_TCP: ts.value_name = tcp_state_name(r.tcp_state) ? tcp_state_name(r.tcp_state) : "UNKNOWN"; break;
	case S_RESOURCE:
		ts.value_name = r.tcp_state == 0 ? "CPU" : r.tcp_state == 1 ? "MEM" : r.tcp_state == 2 ? "IO" : "UNKNOWN";
		break;
	case S_HTTP: ts.value_name = http_transport(r.tcp_state); break;
	case S_QTYPE_SET:
		if (!r.tcp_state)
			break;
		/* fall through */
	case S_QTYPE: ts.value_name = qtype_name(r.tcp_state, qt, sizeof qt); break;
	case S_MAXOPEN: ts.meaning = r.tcp_state ? "the pool's maximum" : "no maximum set"; break;
	case S_SERVER: ts.value_name = server_kind(r.tcp_state); break;
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
		rename_target(&r, &joined);
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
			if (http_method_of(r))
				cat(b, " ", http_method_of(r), NULL);
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
			if (server_kind(r->tcp_state))
				cat(b, server_kind(r->tcp_state), " ", NULL);
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
	const struct ptype *type = ptype_of(r.type);
	cat(b, "[", category_of(&r), "] ", NULL);
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

static void pt_info(struct source *src, struct fsink *out)
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

static void pt_save(void *st, struct buf *out)
{
	struct pt *pt = st;
	put_array(out, pt->type_ids, 1, sizeof pt->type_ids);
	hmap_save(&pt->unknown_types, out);
	hmap_save(&pt->pids, out);
	put_u64(out, pt->frames);
	put_u64(out, pt->invalid);
	put_array(out, pt->by_version, VERSIONS, sizeof *pt->by_version);
}

static bool pt_restore(void *st, struct blob *r)
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

/* (a record cut short at the end is damage: a source with damage is not
 * read on) */
static bool pt_resumable(void *st)
{
	(void)st;
	return true;
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
	.save = pt_save,
	.restore = pt_restore,
	.resumable = pt_resumable,
	.info = pt_info,
	.close = pt_close,
};
