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
#ifndef TTV_PODTRACE_H
#define TTV_PODTRACE_H

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

static inline const struct ptype *ptype_of(uint32_t type) { return type < T_KNOWN ? &types[type] : &unknown_type; }

static const char *const tcp_states[] = {
	NULL, "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV",
};

static inline const char *tcp_state_name(uint32_t s)
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

static inline const struct layout *layout_for(uint32_t len)
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
	uint64_t serial; /* this one among all opened (decode.c keeps a record parsed by it) */
	uint32_t type_ids[T_KNOWN][4]; /* model type + 1, by code and (HTTP only) transport */
	struct hmap unknown_types;     /* type code -> model type */
	struct hmap pids;                 /* pid -> lane << 1 | comm known */
	uint64_t frames, invalid, by_version[VERSIONS];
	struct buf tmp;
};

extern const struct decoder podtrace_decoder;

/* the records, probing and feeding (feed.c) */
void pt_parse(const uint8_t *frame, uint32_t len, struct rec *r);
void pt_rename_target(const struct rec *r, struct buf *b);
const char *pt_http_transport(uint32_t bits);
const char *pt_http_method_name(uint8_t code);
const char *pt_http_method_of(const struct rec *r);
const char *pt_server_kind(uint32_t k);
const char *pt_category_of(const struct rec *r);
int pt_probe(const uint8_t *p, size_t n, bool final);
void *pt_open(struct input *in);
void pt_close(void *st);
size_t pt_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final);
bool pt_resumable(void *st);

/* lazy decoding: fields, summaries, info, the saved index (decode.c) */
void pt_summary(void *st, const struct event *e, struct buf *b);
void pt_fields(void *st, const struct event *e, struct fsink *out);
void pt_info(struct source *src, struct fsink *out);
void pt_save(void *st, struct buf *out);
bool pt_restore(void *st, struct blob *r);

#endif
