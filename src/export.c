#include "src/export.h"

#include "decoders/decoder.h"
#include "src/esc.h"

/* ns as microseconds with three decimals: exact, and a JSON number. */
static void put_us(struct buf *b, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		buf_addc(b, '-');
	buf_u64(b, mag / 1000);
	buf_printf(b, ".%03u", (unsigned)(mag % 1000));
}

static void put_str(struct buf *b, struct model *m, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(m, sid, &n);
	esc_json(b, s, n);
}

/* What --dump --json says of an event, as members of an open object. */
static void describe(struct trace *t, const struct event *e, struct buf *b)
{
	struct model *m = t->m;
	const struct type *ty = model_type_get(m, e->type);
	static const char *const roles[] = {"instant", "complete", "begin", "end"};
	enum ev_role r = ev_role(e);
	buf_adds(b, "\"type\":");
	put_str(b, m, ty->name);
	if (ty->category) {
		buf_adds(b, ",\"category\":");
		put_str(b, m, ty->category);
	}
	buf_printf(b, ",\"role\":\"%s\"", roles[r]);
	if ((r == ROLE_BEGIN || r == ROLE_END) && e->dur == TTV_NODUR)
		buf_adds(b, ",\"unpaired\":true");
	if (e->flags & EVF_NO_TS)
		buf_adds(b, ",\"no_ts\":true");
	if (e->flags & EVF_COPY)
		buf_adds(b, ",\"copy\":true");
	if (e->flags & EVF_DAMAGED)
		buf_adds(b, ",\"damaged\":true");
	buf_adds(b, ",\"file\":");
	const char *path = e->input < t->nin ? t->in[e->input]->path : "";
	esc_json(b, path, strlen(path));
	buf_printf(b, ",\"offset\":%llu,\"fields\":", (unsigned long long)e->off);
	struct json_sink js;
	json_sink_begin(&js, b);
	void *st;
	const struct decoder *d = trace_decoder_of(t, e, &st);
	struct event own = trace_own(t, e);
	if (d && d->fields)
		d->fields(st, &own, &js.s);
	json_sink_end(&js);
}

static void head(struct trace *t, const struct event *e, const char *ph, int64_t ts, int64_t base, struct buf *b)
{
	struct model *m = t->m;
	const struct lane *l = model_lane_get(m, e->lane);
	const struct type *ty = model_type_get(m, e->type);
	buf_printf(b, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", ph, (l ? l->source : 0) + 1, e->lane + 1);
	put_us(b, ts - base);
	buf_adds(b, ",\"name\":");
	put_str(b, m, e->name ? e->name : ty->name);
	buf_adds(b, ",\"cat\":");
	put_str(b, m, ty->category ? ty->category : ty->name);
}

static void metadata(struct trace *t, struct buf *b)
{
	struct model *m = t->m;
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		buf_printf(b, "{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":", s->id + 1);
		struct buf name = {0};
		buf_adds(&name, s->path);
		if (s->dec)
			buf_printf(&name, " (%s)", s->dec->name);
		esc_json(b, name.p, name.len);
		buf_free(&name);
		buf_printf(b, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_sort_index\","
			      "\"args\":{\"sort_index\":%zu}},\n", s->id + 1, i);
	}
	for (uint32_t l = 0; l < model_nlanes(m); l++) {
		const struct lane *ln = model_lane_get(m, l);
		buf_printf(b, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
			   ln->source + 1, l + 1);
		put_str(b, m, ln->name);
		buf_printf(b, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\","
			      "\"args\":{\"sort_index\":%u}},\n", ln->source + 1, l + 1, l);
	}
}

void export_chrome(struct trace *t, struct filterset *fs, FILE *out)
{
	struct model *m = t->m;
	int64_t base = 0, last;
	if (!model_span(m, &base, &last))
		base = 0;
	bool filtering = filterset_active(fs);
	uint64_t n = model_count(m), exported = 0, meta = 0, spans = 0;
	struct buf b = {0};
	buf_adds(&b, "{\"traceEvents\":[\n");
	metadata(t, &b);
	struct event e, o;
	bool first = true;
	for (uint64_t pos = 0; pos < n; pos++) {
		if ((pos & 0xffff) == 0xffff)
			trace_release(t);
		model_get(m, pos, &e);
		if (e.flags & EVF_META) {
			meta++;
			continue;
		}
		trace_scan(t, &e);
		if (filtering && !filterset_match(fs, t, &e))
			continue;
		enum ev_role r = ev_role(&e);
		bool paired = (r == ROLE_BEGIN || r == ROLE_END) && e.dur != TTV_NODUR;
		bool have_o = paired && model_partner(m, pos, &o.pos);
		if (have_o)
			model_get(m, o.pos, &o);
		if (paired && r == ROLE_END && have_o && (!filtering || filterset_match(fs, t, &o)))
			continue; /* exported with its begin */
		if (!first)
			buf_adds(&b, ",\n");
		first = false;
		exported++;
		const struct event *begin = paired && r == ROLE_END && have_o ? &o : &e;
		const struct event *end = paired && r == ROLE_END ? &e : have_o ? &o : NULL;
		if (paired) {
			int64_t ts = r == ROLE_END ? shift_ts(e.ts, -(int64_t)MIN(e.dur, (uint64_t)INT64_MAX)) : e.ts;
			head(t, begin, "X", ts, base, &b);
			buf_adds(&b, ",\"dur\":");
			put_us(&b, (int64_t)MIN(e.dur, (uint64_t)INT64_MAX));
		} else if (r == ROLE_BEGIN) {
			head(t, &e, "B", e.ts, base, &b);
		} else if (e.dur != TTV_NODUR && r != ROLE_END) {
			head(t, &e, "X", e.ts, base, &b);
			buf_adds(&b, ",\"dur\":");
			put_us(&b, (int64_t)MIN(e.dur, (uint64_t)INT64_MAX));
		} else {
			head(t, &e, "i", e.ts, base, &b);
			buf_adds(&b, ",\"s\":\"t\"");
		}
		spans += paired || (e.dur != TTV_NODUR && r != ROLE_END);
		buf_adds(&b, ",\"args\":{");
		describe(t, begin, &b);
		if (end && end != begin) {
			buf_adds(&b, ",\"end\":{");
			describe(t, end, &b);
			buf_addc(&b, '}');
		}
		buf_adds(&b, "}}");
		if (b.len > (64u << 10)) {
			fwrite(b.p, 1, b.len, out);
			buf_reset(&b);
		}
	}
	buf_printf(&b, "%s],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"ttv\",\"time_base_ns\":%lld,"
		       "\"events\":%llu,\"spans\":%llu,\"metadata_events_left_out\":%llu}}\n",
		   first ? "" : "\n", (long long)base, (unsigned long long)exported, (unsigned long long)spans,
		   (unsigned long long)meta);
	fwrite(b.p, 1, b.len, out);
	buf_free(&b);
}
