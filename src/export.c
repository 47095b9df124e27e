#include "src/export.h"

#include <stdlib.h>

#include "src/batch.h"
#include "src/esc.h"
#include "src/hmap.h"

/* Tracks.  Perfetto and chrome://tracing want the slices of a thread to
 * nest; spans of one lane may overlap without nesting (podtrace: calls of
 * several threads of one pid).  A span goes on the lane's own track when it
 * nests there, else on the lane's first extra track where it does ("LANE
 * (2)", ...), so that nothing is dropped or drawn wrong. */
struct track {
	int64_t last_start; /* spans arrive by start; one that does not moves on */
	int64_t *ends;      /* the open spans' ends, innermost last */
	size_t n, cap;
	uint32_t tid;
};

struct tracks {
	struct track *t;
	size_t n, cap;
	struct hmap by_key; /* lane << 32 | k -> index + 1 */
	uint32_t next_tid;  /* for extra tracks, after the lanes' */
};

/* The tid for a span [start, end) of lane l; *k: which of the lane's tracks
 * (0: its own). */
static uint32_t track_place(struct tracks *ts, uint32_t l, int64_t start, int64_t end, uint32_t *k)
{
	for (*k = 0;; (*k)++) {
		uint64_t key = (uint64_t)l << 32 | *k, idx;
		struct track *t;
		if (!hmap_get(&ts->by_key, key, &idx)) {
			xgrow(&ts->t, &ts->cap, ts->n + 1, sizeof *ts->t);
			ts->t[ts->n] = (struct track){.last_start = INT64_MIN, .tid = *k ? ts->next_tid++ : l + 1};
			hmap_put(&ts->by_key, key, ++ts->n);
			idx = ts->n;
		}
		t = &ts->t[idx - 1];
		if (start < t->last_start)
			continue;
		while (t->n && t->ends[t->n - 1] <= start)
			t->n--;
		if (t->n && end > t->ends[t->n - 1])
			continue;
		t->last_start = start;
		xgrow(&t->ends, &t->cap, t->n + 1, sizeof *t->ends);
		t->ends[t->n++] = end;
		return t->tid;
	}
}

/* a lane's extra tracks sort right after it */
#define SORT_INDEX(lane, k) ((unsigned long long)(lane) * 64 + MIN((k), 63u))

static void tracks_free(struct tracks *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->t[i].ends);
	free(ts->t);
	hmap_free(&ts->by_key);
}

/* ns as microseconds with three decimals: exact, and a JSON number. */
static void put_us(struct buf *b, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		buf_addc(b, '-');
	buf_u64(b, mag / 1000);
	buf_printf(b, ".%03u", (unsigned)(mag % 1000));
}

static void head(struct trace *t, const struct event *e, const char *ph, uint32_t tid, int64_t ts, int64_t base,
		 struct buf *b)
{
	struct model *m = t->m;
	const struct lane *l = model_lane_get(m, e->lane);
	const struct type *ty = model_type_get(m, e->type);
	buf_printf(b, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", ph, (l ? l->source : 0) + 1, tid);
	put_us(b, ts - base);
	buf_adds(b, ",\"name\":");
	json_sid(b, m, e->name ? e->name : ty->name);
	buf_adds(b, ",\"cat\":");
	json_sid(b, m, ty->category ? ty->category : ty->name);
}

static void metadata(struct trace *t, struct buf *b)
{
	struct model *m = t->m;
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		buf_printf(b, "{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":", s->id + 1);
		struct buf name = {0};
		buf_adds(&name, s->path);
		const char *title, *format = trace_source_format(s, &title);
		if (format)
			buf_printf(&name, " (%s)", format);
		esc_json(b, name.p, name.len);
		buf_free(&name);
		buf_printf(b, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_sort_index\","
			      "\"args\":{\"sort_index\":%zu}},\n", s->id + 1, i);
	}
	for (uint32_t l = 0; l < model_nlanes(m); l++) {
		const struct lane *ln = model_lane_get(m, l);
		buf_printf(b, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
			   ln->source + 1, l + 1);
		json_sid(b, m, ln->name);
		buf_printf(b, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\","
			      "\"args\":{\"sort_index\":%llu}},\n", ln->source + 1, l + 1, SORT_INDEX(l, 0));
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
	struct tracks tr = {.next_tid = model_nlanes(m) + 1};
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
		bool have_o = paired && model_partner_event(m, pos, &o);
		if (paired && r == ROLE_END && have_o && (!filtering || filterset_match(fs, t, &o)))
			continue; /* exported with its begin */
		if (!first)
			buf_adds(&b, ",\n");
		first = false;
		exported++;
		const struct event *begin = paired && r == ROLE_END && have_o ? &o : &e;
		const struct event *end = paired && r == ROLE_END ? &e : have_o ? &o : NULL;
		int64_t dur = e.dur == TTV_NODUR ? 0 : (int64_t)MIN(e.dur, (uint64_t)INT64_MAX);
		int64_t ts = paired && r == ROLE_END ? shift_ts(e.ts, -dur) : e.ts;
		const char *ph = paired || (e.dur != TTV_NODUR && r != ROLE_END) ? "X" : r == ROLE_BEGIN ? "B" : "i";
		uint32_t tid = e.lane + 1, k = 0;
		if (*ph != 'i') /* a B lasts to the end of the trace */
			tid = track_place(&tr, e.lane, ts, *ph == 'B' ? INT64_MAX : shift_ts(ts, dur), &k);
		if (k) {
			/* a new extra track: name it after its lane, sorted after it */
			const struct lane *ln = model_lane_get(m, e.lane);
			buf_printf(&b, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
				   ln->source + 1, tid);
			struct buf name = {0};
			size_t len;
			const char *str = model_strget(m, ln->name, &len);
			buf_add(&name, str, len);
			buf_printf(&name, " (%u)", k + 1);
			esc_json(&b, name.p, name.len);
			buf_free(&name);
			buf_printf(&b, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\","
				       "\"args\":{\"sort_index\":%llu}},\n", ln->source + 1, tid, SORT_INDEX(e.lane, k));
		}
		head(t, begin, ph, tid, ts, base, &b);
		if (*ph == 'X') {
			buf_adds(&b, ",\"dur\":");
			put_us(&b, dur);
		} else if (*ph == 'i') {
			buf_adds(&b, ",\"s\":\"t\"");
		}
		spans += paired || (e.dur != TTV_NODUR && r != ROLE_END);
		buf_adds(&b, ",\"args\":{");
		event_json_members(t, begin, &b);
		if (end && end != begin) {
			buf_adds(&b, ",\"end\":{");
			event_json_members(t, end, &b);
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
	tracks_free(&tr);
}
