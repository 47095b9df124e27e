/* podtrace/feed.c: a record parsed, its type and lane; probing and feeding; the decoder */
#include "decoders/podtrace/podtrace.h"

static size_t cstrlen(const uint8_t *p, size_t max)
{
	const uint8_t *z = memchr(p, 0, max);
	return z ? (size_t)(z - p) : max;
}

void pt_parse(const uint8_t *frame, uint32_t len, struct rec *r)
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
void pt_rename_target(const struct rec *r, struct buf *b)
{
	size_t nold = cstrlen(r->target, 63), nnew = cstrlen(r->target + 64, 64);
	buf_reset(b);
	buf_add(b, r->target, nold);
	if (nnew) {
		buf_addc(b, '>');
		buf_add(b, r->target + 64, nnew);
	}
}

const char *pt_http_transport(uint32_t bits)
{
	return bits & 4 ? "HTTP/3" : bits & 2 ? "HTTP/2" : bits & 1 ? "HTTPS" : "HTTP";
}

/* V9's http_method codes (podtrace's HTTP_METHOD_*); NULL: none. */
const char *pt_http_method_name(uint8_t code)
{
	static const char *const n[] = {NULL, "GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS"};
	return code < ARRAY_LEN(n) ? n[code] : NULL;
}

const char *pt_http_method_of(const struct rec *r)
{
	return r->lay->version >= 9 ? pt_http_method_name(r->p[O_HTTP_METHOD]) : NULL;
}

/* REQUEST_DONE's tcp_state: the kind of server (threaded, or Go's when
 * 0x100 is set); NULL: one podtrace does not name. */
const char *pt_server_kind(uint32_t k)
{
	static const char *const threaded[] = {"HTTP/1", "HTTP/2", "HTTP/3"};
	static const char *const go[] = {NULL, "Go net/http", "Go HTTP/2", "Go gRPC", "Go HTTP/3"};
	if (k < ARRAY_LEN(threaded))
		return threaded[k];
	return k >= 0x100 && k - 0x100 < ARRAY_LEN(go) ? go[k - 0x100] : NULL;
}

const char *pt_category_of(const struct rec *r)
{
	const struct ptype *pt = ptype_of(r->type);
	return pt->state == S_HTTP ? pt_http_transport(r->tcp_state) : pt->category;
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
	const char *cat = pt_category_of(r);
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

int pt_probe(const uint8_t *p, size_t n, bool final)
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

void *pt_open(struct input *in)
{
	static uint64_t opened;
	struct pt *pt = xcalloc(1, sizeof *pt);
	pt->in = in;
	pt->serial = __atomic_add_fetch(&opened, 1, __ATOMIC_RELAXED);
	return pt;
}

void pt_close(void *st)
{
	struct pt *pt = st;
	hmap_free(&pt->unknown_types);
	hmap_free(&pt->pids);
	buf_free(&pt->tmp);
	free(pt);
}

size_t pt_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
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
			pt_rename_target(&r, &pt->tmp);
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

/* (a record cut short at the end is damage: a source with damage is not
 * read on) */
bool pt_resumable(void *st)
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
