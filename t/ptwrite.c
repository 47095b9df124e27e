/* Podtrace capture writer for tests and benchmarks.
 *
 *   ptwrite OUT < SPEC            records from a text spec
 *   ptwrite --generate N [--seed S] OUT
 *                                 N records of every type and version,
 *                                 mostly in time order (like a ring buffer)
 *
 * Spec lines (see t/writer.h for value escapes):
 *   V1..V9 [len=L] ts= pid= type= latency= error= bytes= tcp_state=
 *          stack_key= cgroup= netns= comm= target= details=
 *          old= new=          (RENAME halves: target bytes 0..62 and 64..127)
 *          dns_ip= (4 bytes, network order) dns_transport=     (V5 on)
 *          dns_ip6= (16 bytes)                                  (V6 on)
 *          peer_family= peer_saddr= peer_daddr= (u32, host order)
 *          peer_sport= peer_dport= peer_saddr6= peer_daddr6=  (V7 on)
 *          correlation=                                         (V8 on)
 *          http_method= agg=                                    (V9 on)
 *   frame len=L [fill=B]       a frame of L bytes that is not a record
 *   prefix VALUE               a bare u32 length prefix (for damaged files)
 *   raw HEX...                 raw bytes
 */
#include "t/writer.h"

static const unsigned sizes[] = {312, 320, 336, 344, 352, 368, 416, 424, 432};
static const unsigned target_off[] = {56, 64, 80, 80, 80, 80, 80, 80, 80};
static const unsigned details_off[] = {184, 192, 208, 208, 208, 208, 208, 208, 208};

struct rec {
	int version; /* 1..9 */
	unsigned len;
	uint64_t ts, latency, bytes, stack_key, cgroup, correlation;
	uint32_t pid, type, tcp_state, netns, peer_saddr, peer_daddr;
	uint16_t peer_sport, peer_dport;
	uint8_t dns_transport, peer_family, http_method, agg;
	int32_t error;
	const char *comm, *target, *details, *old, *new_, *dns_ip, *dns_ip6, *peer_saddr6, *peer_daddr6;
	size_t ncomm, ntarget, ndetails, nold, nnew, ndns_ip, ndns_ip6, npeer_saddr6, npeer_daddr6;
};

static void put_str(uint8_t *p, size_t cap, const char *s, size_t n)
{
	memcpy(p, s, n < cap ? n : cap);
}

static void write_rec(struct wbuf *w, const struct rec *r)
{
	unsigned len = r->len ? r->len : sizes[r->version - 1];
	wb_u32(w, len);
	size_t at = w->len;
	wb_zero(w, len);
	uint8_t *p = w->p + at;
	wb_put(w, at + 0, r->ts, 8, false);
	wb_put(w, at + 8, r->pid, 4, false);
	wb_put(w, at + 12, r->type, 4, false);
	wb_put(w, at + 16, r->latency, 8, false);
	wb_put(w, at + 24, (uint32_t)r->error, 4, false);
	wb_put(w, at + 32, r->bytes, 8, false);
	wb_put(w, at + 40, r->tcp_state, 4, false);
	wb_put(w, at + 48, r->stack_key, 8, false);
	int v = r->version;
	if (v >= 2)
		wb_put(w, at + 56, r->cgroup, 8, false);
	if (v >= 3 && r->comm)
		put_str(p + 64, 16, r->comm, r->ncomm);
	uint8_t *t = p + target_off[v - 1];
	if (r->old || r->new_) {
		if (r->old)
			put_str(t, 63, r->old, r->nold);
		t[63] = '>';
		if (r->new_)
			put_str(t + 64, 64, r->new_, r->nnew);
	} else if (r->target) {
		put_str(t, 128, r->target, r->ntarget);
	}
	if (r->details)
		put_str(p + details_off[v - 1], 128, r->details, r->ndetails);
	if (v >= 4)
		wb_put(w, at + 336, r->netns, 4, false);
	if (v >= 5) {
		if (r->dns_ip)
			put_str(p + 344, 4, r->dns_ip, r->ndns_ip);
		p[348] = r->dns_transport;
	}
	if (v >= 6 && r->dns_ip6)
		put_str(p + 352, 16, r->dns_ip6, r->ndns_ip6);
	if (v >= 7) {
		wb_put(w, at + 368, r->peer_saddr, 4, false);
		wb_put(w, at + 372, r->peer_daddr, 4, false);
		wb_put(w, at + 376, r->peer_sport, 2, false);
		wb_put(w, at + 378, r->peer_dport, 2, false);
		p[380] = r->peer_family;
		if (r->peer_saddr6)
			put_str(p + 384, 16, r->peer_saddr6, r->npeer_saddr6);
		if (r->peer_daddr6)
			put_str(p + 400, 16, r->peer_daddr6, r->npeer_daddr6);
	}
	if (v >= 8)
		wb_put(w, at + 416, r->correlation, 8, false);
	if (v >= 9) {
		p[424] = r->http_method;
		p[425] = r->agg;
	}
}

static void from_spec(struct wbuf *w)
{
	static char line[1 << 16];
	struct spec s = {0};
	while (spec_next(stdin, &s, line, sizeof line)) {
		if (s.kind[0] == 'V' && s.kind[1] >= '1' && s.kind[1] <= '9' && !s.kind[2]) {
			struct rec r = {.version = s.kind[1] - '0'};
			r.len = (unsigned)spec_num(&s, "len", 0);
			r.ts = spec_num(&s, "ts", 0);
			r.pid = (uint32_t)spec_num(&s, "pid", 0);
			r.type = (uint32_t)spec_num(&s, "type", 0);
			r.latency = spec_num(&s, "latency", 0);
			r.error = (int32_t)spec_num(&s, "error", 0);
			r.bytes = spec_num(&s, "bytes", 0);
			r.tcp_state = (uint32_t)spec_num(&s, "tcp_state", 0);
			r.stack_key = spec_num(&s, "stack_key", 0);
			r.cgroup = spec_num(&s, "cgroup", 0);
			r.netns = (uint32_t)spec_num(&s, "netns", 0);
			r.comm = spec_str(&s, "comm", &r.ncomm);
			r.target = spec_str(&s, "target", &r.ntarget);
			r.details = spec_str(&s, "details", &r.ndetails);
			r.old = spec_str(&s, "old", &r.nold);
			r.new_ = spec_str(&s, "new", &r.nnew);
			r.dns_ip = spec_str(&s, "dns_ip", &r.ndns_ip);
			r.dns_transport = (uint8_t)spec_num(&s, "dns_transport", 0);
			r.dns_ip6 = spec_str(&s, "dns_ip6", &r.ndns_ip6);
			r.peer_family = (uint8_t)spec_num(&s, "peer_family", 0);
			r.peer_saddr = (uint32_t)spec_num(&s, "peer_saddr", 0);
			r.peer_daddr = (uint32_t)spec_num(&s, "peer_daddr", 0);
			r.peer_sport = (uint16_t)spec_num(&s, "peer_sport", 0);
			r.peer_dport = (uint16_t)spec_num(&s, "peer_dport", 0);
			r.peer_saddr6 = spec_str(&s, "peer_saddr6", &r.npeer_saddr6);
			r.peer_daddr6 = spec_str(&s, "peer_daddr6", &r.npeer_daddr6);
			r.correlation = spec_num(&s, "correlation", 0);
			r.http_method = (uint8_t)spec_num(&s, "http_method", 0);
			r.agg = (uint8_t)spec_num(&s, "agg", 0);
			write_rec(w, &r);
		} else if (!strcmp(s.kind, "frame")) {
			uint32_t len = (uint32_t)spec_num(&s, "len", 0);
			wb_u32(w, len);
			size_t at = w->len;
			wb_zero(w, len);
			memset(w->p + at, (int)spec_num(&s, "fill", 0), len);
		} else if (!strcmp(s.kind, "prefix")) {
			wb_u32(w, (uint32_t)strtoull(s.key[0], NULL, 0));
		} else if (!strcmp(s.kind, "raw")) {
			for (int i = 0; i < s.nkeys; i++)
				wb_u8(w, (uint8_t)strtoul(s.key[i], NULL, 16));
		} else {
			fprintf(stderr, "ptwrite: line %d: unknown record kind '%s'\n", s.line, s.kind);
			exit(2);
		}
	}
}

static const char *const comms[] = {"envoy", "nginx", "postgres", "redis-server", "java", "node", "curl",
				    "python3"};
static const char *const targets[] = {"api.example.com", "10.0.3.7:8080", "/etc/resolv.conf",
				      "SELECT * FROM orders WHERE id = $1", "postgresql-pool", "eth0",
				      "mutex@0x55d1c2a04e80", "app.log", "192.168.49.2:53", "/var/lib/data"};

struct gen {
	uint64_t rng, ts, i;
};

static void generate(struct wbuf *w, uint64_t n, struct gen *g)
{
	char tbuf[64];
	for (uint64_t k = 0; k < n; k++) {
		uint64_t x = rng_next(&g->rng), i = g->i++;
		uint64_t ts = (g->ts += 50 + x % 2000);
		struct rec r = {.version = 1 + (int)(x % 4)};
		if (x % 97 == 0) /* now and then a newer record: V5..V9 */
			r.version = 5 + (int)((x >> 8) % 5);
		/* a ring buffer shared by CPUs: now and then a record a little out of order */
		r.ts = (x >> 8) % 16 == 0 ? ts - (x >> 12) % 40000 : ts;
		r.pid = 1000 + (uint32_t)((x >> 16) % 64);
		/* every known type (0..46) and now and then one no writer uses */
		r.type = (uint32_t)(i % 48 == 47 ? 47 + (x >> 20) % 5 : i % 47);
		r.latency = (x >> 24) % 50000000;
		r.error = (x >> 28) % 5 == 0 ? -(int32_t)((x >> 32) % 120) : 0;
		r.bytes = (x >> 36) % 100000;
		r.tcp_state = (uint32_t)((x >> 40) % 13);
		r.stack_key = x;
		r.cgroup = 8000 + r.pid;
		r.netns = 4026531840u;
		r.comm = comms[r.pid % 8];
		r.ncomm = strlen(r.comm);
		if ((x >> 44) % 64 == 0) { /* now and then a target not seen before */
			snprintf(tbuf, sizeof tbuf, "host-%u.example.com:%u", (unsigned)((x >> 48) % 5000),
				 (unsigned)(x % 65536));
			r.target = tbuf;
		} else {
			r.target = targets[(x >> 48) % 10];
		}
		r.ntarget = strlen(r.target);
		r.dns_transport = (uint8_t)((x >> 4) % 4);
		r.peer_family = (x >> 6) % 2 ? 2 : 10;
		r.peer_saddr = 0x0a000001u + (uint32_t)(x % 250);
		r.peer_daddr = 0xc0a83102u;
		r.peer_sport = (uint16_t)(30000 + x % 30000);
		r.peer_dport = 443;
		r.peer_saddr6 = r.peer_daddr6 = "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01";
		r.npeer_saddr6 = r.npeer_daddr6 = 16;
		r.correlation = r.ts - r.latency;
		r.http_method = (uint8_t)((x >> 12) % 9);
		r.agg = (x >> 14) % 2;
		write_rec(w, &r);
	}
}

static int spec_run(const char *out)
{
	struct wbuf w = {0};
	from_spec(&w);
	wb_write_file(&w, out);
	free(w.p);
	return 0;
}

/* Streams in chunks: a bench capture is gigabytes. */
static int generate_run(const char *out, uint64_t n, uint64_t seed)
{
	FILE *f = fopen(out, "wb");
	if (!f) {
		perror(out);
		return 1;
	}
	const uint64_t chunk = 100000;
	struct wbuf w = {0};
	struct gen g = {.rng = seed * 0x9e3779b97f4a7c15ull + 1, .ts = 1000000000000ull};
	for (uint64_t done = 0; done < n; done += chunk) {
		w.len = 0;
		generate(&w, n - done < chunk ? n - done : chunk, &g);
		if (fwrite(w.p, 1, w.len, f) != w.len) {
			perror(out);
			return 1;
		}
	}
	free(w.p);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct writer w = {"ptwrite", "OUT < SPEC", NULL, spec_run,
					 "--generate N [--seed S] OUT", NULL, generate_run, "%s/instance-%03u.ptrace"};
	return writer_main(argc, argv, &w);
}
