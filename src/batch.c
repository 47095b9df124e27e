#include "src/batch.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "src/bigmem.h"
#include "src/esc.h"
#include "src/hmap.h"
#include "src/worker.h"

/* ---- one event ------------------------------------------------------------ */

void term_sid(struct buf *b, struct model *m, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(m, sid, &n);
	esc_term(b, s, n);
}

void json_sid(struct buf *b, const struct model *m, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(m, sid, &n);
	esc_json(b, s, n);
}

uint32_t lane_name(struct model *m, uint32_t lane)
{
	const struct lane *l = model_lane_get(m, lane);
	return l ? l->name : 0;
}

/* Markers for what the model knows beyond the decoder's summary. */
static void markers(const struct event *e, struct buf *b)
{
	enum ev_role r = ev_role(e);
	if ((r == ROLE_BEGIN || r == ROLE_END) && e->dur != TTV_NODUR) {
		buf_adds(b, " [");
		fmt_dur(b, e->dur);
		buf_addc(b, ']');
	}
	if ((r == ROLE_BEGIN || r == ROLE_END) && e->dur == TTV_NODUR)
		buf_adds(b, r == ROLE_BEGIN ? " [unclosed]" : " [unopened]");
	if (e->flags & EVF_NO_TS)
		buf_adds(b, " [no timestamp]");
	if (e->flags & EVF_COPY)
		buf_adds(b, " [copy]");
	if (e->flags & EVF_DAMAGED)
		buf_adds(b, " [damaged]");
}

void event_time(struct trace *t, const struct event *e, int64_t base, enum time_mode tm, bool date, struct buf *b)
{
	int64_t wall;
	if (trace_untimed(t, e))
		buf_adds(b, "metadata");
	else if (tm == TIME_RELATIVE)
		fmt_reltime(b, e->ts, base);
	else if (tm == TIME_WALL && trace_wall(t, e, &wall))
		fmt_wallclock(b, wall, date);
	else /* (a source with no wall-clock anchor: its own clock) */
		fmt_abstime(b, e->ts);
}

void dump_line(struct trace *t, const struct event *e, int64_t base, enum time_mode tm, struct buf *b)
{
	event_time(t, e, base, tm, true, b);
	buf_addc(b, '\t');
	term_sid(b, t->m, lane_name(t->m, e->lane));
	buf_addc(b, '\t');
	term_sid(b, t->m, model_type_get(t->m, e->type)->name);
	buf_addc(b, '\t');
	event_summary(t, e, b);
	markers(e, b);
}

void event_json_members(struct trace *t, const struct event *e, struct buf *b)
{
	struct model *m = t->m;
	const struct type *ty = model_type_get(m, e->type);
	buf_adds(b, "\"type\":");
	json_sid(b, m, ty->name);
	if (ty->category) {
		buf_adds(b, ",\"category\":");
		json_sid(b, m, ty->category);
	}
	if (e->dur != TTV_NODUR)
		buf_printf(b, ",\"dur\":%llu", (unsigned long long)e->dur);
	enum ev_role r = ev_role(e);
	buf_printf(b, ",\"role\":\"%s\"", role_word(r));
	if ((r == ROLE_BEGIN || r == ROLE_END) && e->dur == TTV_NODUR)
		buf_adds(b, ",\"unpaired\":true");
	if (e->flags & EVF_NO_TS)
		buf_adds(b, ",\"no_ts\":true");
	if (e->flags & EVF_META)
		buf_adds(b, ",\"meta\":true");
	if (e->flags & EVF_COPY)
		buf_adds(b, ",\"copy\":true");
	if (e->flags & EVF_DAMAGED)
		buf_adds(b, ",\"damaged\":true");
	buf_adds(b, ",\"file\":");
	const char *path = e->input < t->nin ? t->in[e->input]->path : "";
	esc_json(b, path, strlen(path));
	buf_printf(b, ",\"offset\":%llu", (unsigned long long)e->off);
	if (e->name) { /* (what views name it by: a function, a label, a target) */
		buf_adds(b, ",\"name\":");
		json_sid(b, m, e->name);
	}
	buf_adds(b, ",\"fields\":");
	struct json_sink js;
	json_sink_begin(&js, b);
	trace_event_fields(t, e, &js.s);
	json_sink_end(&js);
}

void dump_json(struct trace *t, const struct event *e, struct buf *b)
{
	buf_printf(b, "{\"ts\":%lld,\"lane\":", (long long)e->ts);
	json_sid(b, t->m, lane_name(t->m, e->lane));
	buf_addc(b, ',');
	event_json_members(t, e, b);
	buf_addc(b, '}');
}

void event_detail(struct trace *t, const struct event *e, struct buf *b, int width)
{
	struct tree_sink ts;
	tree_sink_init(&ts, b, width);
	trace_event_fields(t, e, &ts.s);
}

/* Filters run over this many events at a time (on two threads when they can). */
#define SCAN_CHUNK 65536

/* ---- --dump of a fleet: each part decoded apart ---------------------------- */

/* When the model's parts hold whole lanes (model_parts: a fleet, each
 * instance its own), each part's events of a window of time are decoded
 * in their own order (not a tournament per event among many sources, and
 * their decoders' state in turn), and the lines merged by their place in
 * the merged order.  Two windows are under way at once: while this
 * thread merges one, the worker decodes the next (and this thread joins
 * it once merged), each taking the window's parts one at a time. */
#define DUMP_WINDOW (1u << 15) /* events in a window (about; two are under way at once) */
#define DUMP_READ 1024

struct dump_line {
	place_t at;
	size_t end; /* where its text ends in its thread's */
};

/* A window's lines as one thread decoded them, part after part: one
 * buffer a thread, not one a part (a fleet's 256 parts each kept room for
 * the most it ever held) */
struct dump_text {
	struct buf text;
	struct dump_line *line;
	size_t nline, capline;
};

struct dump_part {
	uint64_t lo, hi; /* the window's events of the part */
	unsigned me;     /* the thread that decoded them: their lines are */
	size_t first;    /* ... its [first, first + nline) */
	size_t nline, next;
};

struct dump_head { /* a part in the merge's heap, by its next line's place */
	place_t at;
	size_t k;
};

/* A window: each part's events of it, decoded; parts are taken in turn. */
struct dump_window {
	struct dump_part *part;
	struct dump_text out[2]; /* each thread's */
	atomic_size_t taken;     /* parts taken to decode */
};

struct dump_apart {
	struct trace *t;
	bool json;
	enum time_mode tm;
	int64_t base;
	size_t np;
	struct dump_window win[2];
	uint64_t *at;  /* per part: its first event in no window yet */
	int64_t until; /* the windows so far: the events before this time */
	uint64_t step; /* a window's length in time, as the last ones went */
	struct event *ev[2];
	struct dump_head *heap;
	unsigned decoding; /* the window the worker decodes */
	struct buf b;      /* the merged lines, written out now and then */
	FILE *out;
};

static void decode_part(struct dump_apart *d, struct dump_part *p, size_t k, struct dump_text *o, struct event *ev)
{
	p->first = o->nline;
	for (uint64_t i = p->lo; i < p->hi; i += DUMP_READ) {
		size_t got = (size_t)MIN(DUMP_READ, p->hi - i);
		model_part_read(d->t->m, k, i, got, ev);
		xgrow(&o->line, &o->capline, o->nline + got, sizeof *o->line);
		for (size_t j = 0; j < got; j++) {
			trace_scan(d->t, &ev[j]);
			if (d->json)
				dump_json(d->t, &ev[j], &o->text);
			else
				dump_line(d->t, &ev[j], d->base, d->tm, &o->text);
			buf_addc(&o->text, '\n');
			o->line[o->nline++] = (struct dump_line){model_part_place(d->t->m, k, &ev[j]), o->text.len};
		}
	}
	p->nline = o->nline - p->first;
}

/* The parts of window w not taken yet, one at a time, on thread me. */
static void decode_window(struct dump_apart *d, unsigned w, unsigned me)
{
	struct dump_window *win = &d->win[w];
	for (size_t k; (k = atomic_fetch_add_explicit(&win->taken, 1, memory_order_relaxed)) < d->np;) {
		win->part[k].me = me;
		decode_part(d, &win->part[k], k, &win->out[me], d->ev[me]);
	}
}

static void decode_second(void *arg)
{
	struct dump_apart *d = arg;
	decode_window(d, d->decoding, 1);
}

/* Each part's events from where it stands up to time until, in window w:
 * how many events that holds. */
static uint64_t window_to(struct dump_apart *d, unsigned w, int64_t until)
{
	uint64_t in = 0;
	for (size_t k = 0; k < d->np; k++) {
		struct dump_part *p = &d->win[w].part[k];
		p->lo = d->at[k];
		p->hi = until == INT64_MAX ? model_part_count(d->t->m, k) : model_part_bound(d->t->m, k, until, false);
		p->hi = MAX(p->hi, p->lo); /* (a part out of time order: bound behind where it stands) */
		in += p->hi - p->lo;
	}
	return in;
}

/* The time of the next event after the windows so far. */
static int64_t next_time(struct dump_apart *d)
{
	int64_t t = INT64_MAX;
	for (size_t k = 0; k < d->np; k++)
		if (d->at[k] < model_part_count(d->t->m, k)) {
			model_part_read(d->t->m, k, d->at[k], 1, d->ev[0]);
			t = MIN(t, d->ev[0]->ts);
		}
	return t;
}

/* Window w: each part's next event if it is before until, else none.  For
 * a part out of time order (a sequence a damaged saved index left so): its
 * bound by time is behind where it stands, and the window by time would
 * take nothing, again and again. */
static uint64_t window_next_events(struct dump_apart *d, unsigned w, int64_t until)
{
	uint64_t in = 0;
	for (size_t k = 0; k < d->np; k++) {
		struct dump_part *p = &d->win[w].part[k];
		p->lo = p->hi = d->at[k];
		if (p->lo < model_part_count(d->t->m, k)) {
			model_part_read(d->t->m, k, p->lo, 1, d->ev[0]);
			p->hi += d->ev[0]->ts < until || until == INT64_MAX;
		}
		in += p->hi - p->lo;
	}
	return in;
}

/* The next window, in w: each part's events before d->until + d->step,
 * the step halved while that holds more than two windows' worth (unless
 * they are all at one time; each thread's text of two windows is held at
 * once: four windows' worth of a fleet's lines kept 39 MB), and doubled
 * for the next when it held under half.  How many it holds (none: every
 * part is at its end). */
static uint64_t next_window(struct dump_apart *d, unsigned w)
{
	struct dump_window *win = &d->win[w];
	for (size_t k = 0; k < d->np; k++)
		win->part[k].nline = win->part[k].next = 0;
	for (unsigned me = 0; me < 2; me++) {
		buf_reset(&win->out[me].text);
		win->out[me].nline = 0;
	}
	atomic_store_explicit(&win->taken, 0, memory_order_relaxed);
	uint64_t in;
	int64_t until;
	for (;;) {
		until = ts_add(d->until, d->step);
		in = window_to(d, w, until);
		int64_t next = in ? 0 : next_time(d);
		if (!in && until != INT64_MAX && next >= until) {
			d->until = next; /* (a gap in time: on to the next event) */
		} else if (!in) { /* (an event before until, yet none taken: out of order) */
			in = window_next_events(d, w, until);
			break;
		} else if (in > 2 * DUMP_WINDOW && d->step > 1) {
			d->step /= 2;
		} else {
			break;
		}
	}
	d->until = until;
	for (size_t k = 0; k < d->np; k++)
		d->at[k] = win->part[k].hi;
	if (in < DUMP_WINDOW / 2)
		d->step = MIN(d->step, UINT64_MAX / 8) * 2; /* (no overflow to 0: a window of no time, for ever) */
	return in;
}

static void sift_down(struct dump_head *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, least = i;
		if (l < n && h[l].at < h[least].at)
			least = l;
		if (l + 1 < n && h[l + 1].at < h[least].at)
			least = l + 1;
		if (least == i)
			return;
		struct dump_head tmp = h[i];
		h[i] = h[least];
		h[least] = tmp;
		i = least;
	}
}

/* Window w's lines in the merged order: the parts in a heap by their
 * next line's place. */
static void merge_lines(struct dump_apart *d, unsigned w)
{
	struct buf *b = &d->b;
	struct dump_part *part = d->win[w].part;
	const struct dump_text *out = d->win[w].out;
	struct dump_head *h = d->heap;
	size_t n = 0;
	for (size_t k = 0; k < d->np; k++)
		if (part[k].nline)
			h[n++] = (struct dump_head){out[part[k].me].line[part[k].first].at, k};
	for (size_t i = n / 2; i-- > 0;)
		sift_down(h, n, i);
	while (n) {
		struct dump_part *p = &part[h[0].k];
		const struct dump_text *o = &out[p->me];
		size_t at = p->first + p->next, start = at ? o->line[at - 1].end : 0; /* (the thread's line before) */
		buf_add(b, o->text.p + start, o->line[at].end - start);
		if (++p->next == p->nline)
			h[0] = h[--n];
		else
			h[0].at = o->line[at + 1].at;
		sift_down(h, n, 0);
		if (b->len > (64u << 10)) {
			fwrite(b->p, 1, b->len, d->out);
			buf_reset(b);
		}
	}
}

/* Where the parts' events begin and end in time. */
static void parts_span(const struct dump_apart *d, int64_t *first, int64_t *last)
{
	*first = INT64_MAX, *last = INT64_MIN;
	for (size_t k = 0; k < d->np; k++) {
		uint64_t n = model_part_count(d->t->m, k);
		if (!n)
			continue;
		model_part_read(d->t->m, k, 0, 1, d->ev[0]);
		*first = MIN(*first, d->ev[0]->ts);
		model_part_read(d->t->m, k, n - 1, 1, d->ev[0]);
		*last = MAX(*last, d->ev[0]->ts);
	}
}

static void dump_apart_free(struct dump_apart *d)
{
	for (unsigned w = 0; w < 2; w++) {
		for (unsigned me = 0; me < 2; me++) {
			buf_free(&d->win[w].out[me].text);
			free(d->win[w].out[me].line);
		}
		free(d->win[w].part);
	}
	free(d->at);
	free(d->ev[0]);
	free(d->ev[1]);
	free(d->heap);
}

/* Window w decoded: the worker started on it (when it can be: two is
 * set) while this thread merges the window before (merge_before), then
 * this thread takes what parts are left. */
static void decode_beside(struct dump_apart *d, unsigned w, bool two, bool merge_before)
{
	d->decoding = w;
	bool started = two && worker_start(decode_second, d);
	if (merge_before)
		merge_lines(d, w ^ 1);
	decode_window(d, w, 0);
	if (started)
		worker_wait();
}

/* --dump of a model whose parts hold whole lanes; false when they do not. */
static bool dump_apart(struct trace *t, bool json, enum time_mode tm, int64_t base, FILE *out)
{
	size_t np = model_parts(t->m);
	if (np < 2)
		return false;
	struct dump_apart d = {.t = t, .json = json, .tm = tm, .base = base, .np = np,
			       .win = {{.part = xcalloc(np, sizeof(struct dump_part))}, {.part = xcalloc(np, sizeof(struct dump_part))}},
			       .at = xcalloc(np, sizeof *d.at),
			       .ev = {xmalloc(DUMP_READ * sizeof(struct event)), xmalloc(DUMP_READ * sizeof(struct event))},
			       .heap = xmalloc(np * sizeof *d.heap), .out = out};
	uint64_t n = model_count(t->m);
	int64_t first, last;
	parts_span(&d, &first, &last);
	d.until = first;
	d.step = MAX(1, (uint64_t)ts_span(first, last) / MAX(1, n / DUMP_WINDOW));
	/* the worker decodes too: only the shared array and reentrant decoders */
	bool two = model_get_shared(t->m) && trace_reentrant(t);
	if (two)
		trace_settle(t);
	unsigned w = 0;
	uint64_t pos = next_window(&d, w);
	if (pos)
		decode_beside(&d, w, two, false);
	while (pos) {
		/* the next window (none once the parts hold no more: they hold
		 * every event) decoded while this one is merged */
		uint64_t in = pos < n ? next_window(&d, w ^ 1) : 0;
		if (!in) {
			merge_lines(&d, w);
			break;
		}
		decode_beside(&d, w ^ 1, two, true);
		pos += in;
		w ^= 1;
	}
	fwrite(buf_str(&d.b), 1, d.b.len, out);
	buf_free(&d.b);
	dump_apart_free(&d);
	return true;
}

void batch_dump(struct trace *t, struct filterset *fs, bool json, enum time_mode tm, FILE *out)
{
	int64_t first = 0, last;
	model_span(t->m, &first, &last);
	bool filtering = filterset_active(fs);
	if (!filtering && dump_apart(t, json, tm, first, out))
		return;
	uint64_t n = model_count(t->m);
	struct buf b = {0};
	struct event e;
	uint64_t pass[SCAN_CHUNK / 64];
	for (uint64_t pos = 0; pos < n; pos++) {
		if (filtering && pos % SCAN_CHUNK == 0)
			filterset_mark(fs, t, pos, MIN(n, pos + SCAN_CHUNK), pos, pass, NULL, NULL, 0);
		if (filtering && !(pass[pos % SCAN_CHUNK / 64] >> (pos % 64) & 1))
			continue;
		model_get(t->m, pos, &e);
		trace_scan(t, &e);
		if (json)
			dump_json(t, &e, &b);
		else
			dump_line(t, &e, first, tm, &b);
		buf_addc(&b, '\n');
		if (b.len > (64u << 10)) {
			fwrite(b.p, 1, b.len, out);
			buf_reset(&b);
		}
	}
	fwrite(buf_str(&b), 1, b.len, out);
	buf_free(&b);
}

/* Which events were printed: per input (or sequence), the offset (or
 * record number) after the last one.  An input's records are decoded in
 * order, so whatever arrives later lies past it. */
static uint64_t follow_key(const struct event *e) { return e->seq ? (uint64_t)e->seq << 32 : e->input; }

bool batch_filters_fit(const struct filterset *fs, struct trace *t)
{
	char *err = NULL;
	long bad = filterset_check(fs, t, &err);
	if (bad < 0)
		return true;
	struct buf b = {0};
	esc_term(&b, fs->f[bad].spec, strlen(fs->f[bad].spec));
	fprintf(stderr, "%s: -e '%s': %s\n", progname, buf_str(&b), err);
	buf_free(&b);
	free(err);
	return false;
}

bool batch_follow(struct trace *t, struct filterset *fs, bool json, enum time_mode tm, FILE *out)
{
	volatile bool fit = true, checked = false;
	struct hmap printed = {0}, next = {0};
	struct buf b = {0};
	struct event e;
	int64_t first, last; /* model_span's answer */
	volatile int64_t base = 0; /* relative times: to the first event read, fixed once lines are out */
	volatile bool based = false;
	t->follow = true;
	trace_watch(t);
	for (;;) {
		if (sigsetjmp(trace_bus_jmp, 1)) { /* a file shrank as it was read: look again */
			t->last_check = 0;
			trace_check(t, false);
			fprintf(stderr, "%s: a file shrank while it was read: looked at every file again\n", progname);
		}
		trace_bus_armed = 1;
		/* an input read again from the start (it was truncated) starts over */
		for (uint32_t i = 0; i < t->nin; i++) {
			uint64_t *wm = hmap_ref(&printed, i);
			if (t->in[i]->consumed < *wm)
				*wm = 0;
		}
		uint64_t notices = t->notices;
		while (trace_step(t, 100000000, false))
			;
		if (t->notices != notices) /* (the last one: a connection lost or back) */
			fprintf(stderr, "%s: %s\n", progname, t->notice);
		if (!based && model_span(t->m, &first, &last)) {
			base = first;
			based = true;
		}
		uint64_t n = model_count(t->m);
		if (!checked && n) { /* (the fields are known once there are events) */
			checked = true;
			if (!(fit = batch_filters_fit(fs, t)))
				break;
		}
		hmap_clear(&next);
		for (uint64_t pos = model_take_changed(t->m); pos < n; pos++) {
			model_get(t->m, pos, &e);
			uint64_t done = 0;
			if (hmap_get(&printed, follow_key(&e), &done) && e.off < done)
				continue;
			uint64_t *wm = hmap_ref(&next, follow_key(&e));
			*wm = MAX(*wm, e.off + 1);
			trace_scan(t, &e);
			if (filterset_active(fs) && !filterset_match(fs, t, &e))
				continue;
			if (json)
				dump_json(t, &e, &b);
			else
				dump_line(t, &e, base, tm, &b);
			buf_addc(&b, '\n');
			if (b.len > (64u << 10)) {
				fwrite(b.p, 1, b.len, out);
				buf_reset(&b);
			}
		}
		for (size_t i = 0; i < next.cap; i++)
			if (next.used[i]) {
				uint64_t *wm = hmap_ref(&printed, next.keys[i]);
				*wm = MAX(*wm, next.vals[i]);
			}
		fwrite(buf_str(&b), 1, b.len, out);
		buf_reset(&b);
		if (fflush(out) != 0)
			break;
		bool open = false;
		for (uint32_t i = 0; i < t->nin; i++)
			open |= !t->in[i]->done;
		if (!open)
			break;
		struct pollfd p[17];
		notices = t->notices;
		trace_check(t, poll(p, trace_poll_fds(t, p, ARRAY_LEN(p)), 1000) > 0);
		if (t->notices != notices)
			fprintf(stderr, "%s: %s\n", progname, t->notice);
	}
	trace_bus_armed = 0;
	buf_free(&b);
	hmap_free(&printed);
	hmap_free(&next);
	return fit;
}

/* ---- info ----------------------------------------------------------------- */

struct src_summary {
	uint64_t events, bytes, raw;
	size_t nlanes;
	bool span;
	int64_t first, last;
};

/* Every source's lanes summed up (by source id), in one pass over the
 * lanes: a fleet has thousands of lanes and hundreds of sources. */
static struct src_summary *summaries(struct trace *t)
{
	struct src_summary *sum = xcalloc(t->nsrc + 1, sizeof *sum);
	for (uint32_t l = 0; l < model_nlanes(t->m); l++) {
		const struct lane *ln = model_lane_get(t->m, l);
		if (ln->source >= t->nsrc)
			continue;
		struct src_summary *r = &sum[ln->source];
		r->nlanes++;
		r->events += ln->count;
		if (!ln->has_span)
			continue;
		if (!r->span || ln->first < r->first)
			r->first = ln->first;
		if (!r->span || ln->last > r->last)
			r->last = ln->last;
		r->span = true;
	}
	for (size_t k = 0; k < t->nsrc; k++) {
		const struct source *s = t->src[k];
		for (size_t i = 0; i < s->ninputs; i++) {
			sum[s->id].bytes += s->inputs[i]->size;
			sum[s->id].raw += s->inputs[i]->gzip ? s->inputs[i]->raw : s->inputs[i]->size;
		}
	}
	return sum;
}

/* Ids [0, n) (lanes, types) by source id, in id order: source k's are
 * v[at[k] .. at[k + 1]) (one pass over them, as summaries(): not one a
 * source, which a fleet of 256 instances would make 256). */
struct by_source {
	uint32_t *v;
	size_t *at;
};

static uint32_t lane_source(const struct model *m, uint32_t l) { return model_lane_get(m, l)->source; }
static uint32_t type_source(const struct model *m, uint32_t ty) { return model_type_get(m, ty)->source; }

static struct by_source by_source(struct trace *t, uint32_t n, uint32_t (*source_of)(const struct model *, uint32_t))
{
	struct by_source g = {xmalloc(((size_t)n + 1) * sizeof *g.v), xcalloc(t->nsrc + 2, sizeof *g.at)};
	for (uint32_t i = 0; i < n; i++) {
		uint32_t src = source_of(t->m, i);
		if (src < t->nsrc)
			g.at[src + 2]++;
	}
	for (size_t k = 2; k < t->nsrc + 2; k++)
		g.at[k] += g.at[k - 1];
	for (uint32_t i = 0; i < n; i++) { /* (at[k + 1] counts those of k placed so far) */
		uint32_t src = source_of(t->m, i);
		if (src < t->nsrc)
			g.v[g.at[src + 1]++] = i;
	}
	return g;
}

static void by_source_free(struct by_source *g)
{
	free(g->v);
	free(g->at);
}

const char *source_status(const struct source *s)
{
	return s->error ? "failed" : s->ndmg ? "damaged" : "ok";
}

const char *role_word(enum ev_role r)
{
	static const char *const roles[] = {"instant", "complete", "begin", "end"};
	return roles[r & 3];
}

#define INFO_LANES 50

/* Clock domains.  Every format ttv reads stamps events with a monotonic
 * clock (ns since boot), which only relates to itself: two sources share a
 * time axis when they come from the same boot of the same machine.  A
 * source whose format records a wall-clock anchor (dial9 ClockSyncEvent,
 * the syscall header's epoch) says when its clock's zero was; two zeros
 * within CLOCK_SLACK_NS (the syscall epoch has whole seconds) are one boot. */
#define CLOCK_SLACK_NS 2000000000LL

enum clocks { CLOCKS_ONE, CLOCKS_SAME, CLOCKS_DIFFERENT, CLOCKS_UNKNOWN };

/* How the sources with events relate; *a and *b name two that differ or
 * one without an anchor. */
static enum clocks clock_domains(struct trace *t, const struct src_summary *sum, const struct source **a,
				  const struct source **b)
{
	const struct source *ref = NULL;
	size_t n = 0;
	enum clocks r = CLOCKS_SAME;
	*a = *b = NULL;
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		if (!sum[s->id].span)
			continue;
		n++;
		if (!s->has_boot) {
			if (r != CLOCKS_DIFFERENT && !*a)
				r = CLOCKS_UNKNOWN, *a = s;
			continue;
		}
		if (!ref) {
			ref = s;
		} else if (r != CLOCKS_DIFFERENT &&
			   (s->boot_ns - ref->boot_ns > CLOCK_SLACK_NS || ref->boot_ns - s->boot_ns > CLOCK_SLACK_NS)) {
			r = CLOCKS_DIFFERENT, *a = ref, *b = s;
		}
	}
	return n < 2 ? CLOCKS_ONE : r;
}

static void clock_line(const struct source *s, struct buf *b)
{
	buf_adds(b, "  clock:   monotonic ns");
	if (s->has_boot) {
		char d[64];
		time_t sec = (time_t)(s->boot_ns / 1000000000);
		struct tm tm;
		if (gmtime_r(&sec, &tm) && strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S UTC", &tm))
			buf_printf(b, ", zero at %s (booted then, from a wall-clock anchor)", d);
	} else {
		buf_adds(b, ", no wall-clock anchor in the trace");
	}
	if (s->align != ALIGN_NONE) {
		buf_adds(b, "\n  align:   shifted by ");
		buf_printf(b, "%lld ns (its first event at 0)", (long long)s->shift);
	}
	buf_addc(b, '\n');
}

/* Two sources whose times lie far apart (the gap more than ten times the
 * longer one): on one axis each is squashed at an edge. */
static bool far_apart(struct trace *t, const struct src_summary *sum, const struct source **x, const struct source **y)
{
	for (size_t i = 0; i < t->nsrc; i++)
		for (size_t j = i + 1; j < t->nsrc; j++) {
			struct src_summary p = sum[t->src[i]->id], q = sum[t->src[j]->id];
			if (!p.span || !q.span)
				continue;
			uint64_t gap = p.last < q.first ? ts_span(p.last, q.first) : q.last < p.first ? ts_span(q.last, p.first) : 0;
			uint64_t wide = MAX(ts_span(p.first, p.last), ts_span(q.first, q.last));
			if (gap / 10 > wide) {
				*x = t->src[i], *y = t->src[j];
				return true;
			}
		}
	return false;
}

/* A source's name, short: its last component (a directory's too). */
static void short_name(struct buf *b, const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t start = n;
	while (start && path[start - 1] != '/')
		start--;
	esc_term(b, path + start, n - start);
}

/* The advice first, the names short: what to do shows at 80 columns. */
bool clock_warning(struct trace *t, struct buf *b)
{
	const struct source *x, *y;
	struct src_summary *sum = summaries(t);
	enum clocks c = t->align ? CLOCKS_ONE : clock_domains(t, sum, &x, &y);
	bool far = c == CLOCKS_UNKNOWN && far_apart(t, sum, &x, &y);
	free(sum);
	if (!far && c != CLOCKS_DIFFERENT)
		return false;
	buf_adds(b, far ? "--align lines these up (far apart, clocks not known to be related): "
			: "--align lines these up (different clocks, no shared time axis): ");
	short_name(b, x->path);
	buf_adds(b, " and ");
	short_name(b, y->path);
	return true;
}

/* Where the index came from (a saved one), whether it was saved, and
 * where it went when it outgrew the memory budget. */
static void index_summary(struct trace *t, struct buf *b)
{
	uint64_t mem, files;
	if (t->restored)
		buf_printf(b, "\nindex:   the one saved by the last run on these files%s (--no-cache indexes afresh)\n",
			   t->restored_grew ? ", read on where they grew since" : "");
	bigmem_usage(&mem, &files);
	if (files) {
		buf_adds(b, "\nindex:   ");
		fmt_bytes(b, files);
		buf_adds(b, " in a file (over the memory budget of ");
		fmt_bytes(b, bigmem_budget());
		buf_adds(b, ", --memory), ");
		fmt_bytes(b, mem);
		buf_adds(b, mem > bigmem_budget() ? " in memory, over its budget: no directory had room for more\n"
						  : " in memory\n");
	} else if (mem > bigmem_budget()) {
		buf_adds(b, "\nindex:   ");
		fmt_bytes(b, mem);
		buf_adds(b, " in memory, over its budget of ");
		fmt_bytes(b, bigmem_budget());
		buf_adds(b, " (--memory): no directory had room for it\n");
	}
	if (t->save_error) {
		buf_adds(b, "\nindex:   not saved for the next run: ");
		esc_term_cstr(b, t->save_error);
		buf_adds(b, "\n");
		t->save_error_said = true;
	}
	struct buf full = {0};
	if (bigmem_full_dirs(&full)) {
		buf_adds(b, "\nfull:    ");
		esc_term(b, full.p, full.len);
		buf_adds(b, " (the index and temporary copies went on where there was room: the next directory, or memory)\n");
	}
	buf_free(&full);
}

static void clock_summary(struct trace *t, const struct src_summary *sum, struct buf *b)
{
	const struct source *x, *y;
	enum clocks c = clock_domains(t, sum, &x, &y);
	if (c == CLOCKS_ONE)
		return;
	buf_adds(b, "\ntimeline: ");
	if (t->align)
		buf_adds(b, "--align: each source starts at 0 (their own clocks are not compared)\n");
	else if (c == CLOCKS_SAME)
		buf_adds(b, "one clock: every source's clock started at the same time (same boot)\n");
	else if (c == CLOCKS_DIFFERENT) {
		buf_adds(b, "DIFFERENT CLOCKS: ");
		esc_term_cstr(b, x->path);
		buf_adds(b, " and ");
		esc_term_cstr(b, y->path);
		buf_adds(b, " were recorded on different boots or machines; their times cannot be related "
			    "(use --align to line them up by their first events)\n");
	} else {
		buf_adds(b, "clocks not known to be related: ");
		esc_term_cstr(b, x->path);
		buf_adds(b, " has no wall-clock anchor; times are shown as recorded, which lines up only for "
			    "traces of the same boot of one machine (use --align to line them up by their first events)\n");
	}
}

/* A source's metadata (symbol tables, class and string definitions): listed,
 * not on the time axis.  Its events by type, most first. */
#define INFO_META 8
static void meta_text(struct trace *t, const struct source *s, const struct by_source *st, struct buf *b)
{
	uint64_t total = 0;
	size_t n = 0;
	uint32_t *types = xcalloc(st->at[s->id + 1] - st->at[s->id] + 1, sizeof *types);
	for (size_t k = st->at[s->id]; k < st->at[s->id + 1]; k++) {
		uint32_t ty = st->v[k];
		if (model_type_meta(t->m, ty) && model_type_count(t->m, ty)) {
			types[n++] = ty;
			total += model_type_count(t->m, ty);
		}
	}
	for (size_t i = 1; i < n; i++) /* (a few types: most events first) */
		for (size_t j = i; j && model_type_count(t->m, types[j]) > model_type_count(t->m, types[j - 1]); j--) {
			uint32_t x = types[j];
			types[j] = types[j - 1];
			types[j - 1] = x;
		}
	if (n)
		buf_printf(b, "  metadata: %llu events, not on the time axis:", (unsigned long long)total);
	for (size_t i = 0; i < MIN(n, INFO_META); i++) {
		buf_adds(b, i ? ", " : " ");
		term_sid(b, t->m, model_type_get(t->m, types[i])->name);
		buf_printf(b, " %llu", (unsigned long long)model_type_count(t->m, types[i]));
	}
	if (n)
		buf_adds(b, n > INFO_META ? ", ...\n" : "\n");
	free(types);
}

uint64_t info_stamp(const struct trace *t)
{
	uint64_t mem, files, v[9] = {t->nsrc, t->nin, t->restored, t->restored_grew, t->saving != NULL, t->saved_bytes};
	bigmem_usage(&mem, &files);
	v[6] = files;
	v[7] = files || mem > bigmem_budget() ? mem : 0; /* (said only then) */
	for (size_t i = 0; i < t->nsrc; i++)
		v[8] += t->src[i]->ndmg + t->src[i]->dmg_dropped + (t->src[i]->error != NULL);
	return hash_bytes(v, sizeof v);
}

void info_text(struct trace *t, struct buf *b)
{
	struct src_summary *sum = summaries(t);
	struct by_source sl = by_source(t, model_nlanes(t->m), lane_source);
	struct by_source st = by_source(t, model_ntypes(t->m), type_source);
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		struct src_summary r = sum[s->id];
		if (i)
			buf_addc(b, '\n');
		esc_term_cstr(b, s->path);
		buf_addc(b, '\n');
		const char *title, *format = trace_source_format(s, &title);
		/* (put together piece by piece, not printf'd: the info view of a
		 * fleet of 256 sources is made again at each =) */
		if (format) {
			buf_adds(b, "  format:  "), buf_adds(b, format), buf_adds(b, " ("), buf_adds(b, title);
			buf_adds(b, ")\n");
		}
		buf_adds(b, "  status:  "), buf_adds(b, source_status(s)), buf_addc(b, '\n');
		if (s->error) {
			buf_adds(b, "  error:   ");
			esc_term_cstr(b, s->error);
			buf_addc(b, '\n');
		}
		buf_adds(b, "  files:   "), buf_u64(b, s->ninputs), buf_adds(b, ", "), buf_u64(b, r.bytes);
		buf_adds(b, " bytes");
		if (r.raw != r.bytes)
			buf_adds(b, " ("), buf_u64(b, r.raw), buf_adds(b, " compressed)");
		buf_adds(b, "\n  events:  "), buf_u64(b, r.events), buf_adds(b, "\n  lanes:   "), buf_u64(b, r.nlanes);
		buf_addc(b, '\n');
		if (r.span) {
			buf_adds(b, "  time:    "), buf_i64(b, r.first), buf_adds(b, " .. "), buf_i64(b, r.last);
			buf_adds(b, " ns (");
			fmt_dur(b, ts_span(r.first, r.last));
			buf_adds(b, ")\n");
		}
		if (r.span)
			clock_line(s, b);
		struct buf d = {0};
		struct tree_sink ts;
		tree_sink_init(&ts, &d, 0);
		if (trace_source_info(s, &ts.s)) {
			for (const char *p = buf_str(&d); *p;) {
				const char *nl = strchr(p, '\n');
				size_t n = nl ? (size_t)(nl - p) : strlen(p);
				buf_adds(b, "  ");
				buf_add(b, p, n);
				buf_addc(b, '\n');
				p += n + (nl != NULL);
			}
		}
		buf_free(&d);
		for (size_t d = 0; d < s->ndmg; d++) {
			const struct damage *dm = &s->dmg[d];
			buf_adds(b, d ? "           " : "  damage:  ");
			esc_term_cstr(b, dm->path);
			if (dm->has_off)
				buf_printf(b, ": offset %llu", (unsigned long long)dm->off);
			buf_adds(b, ": ");
			esc_term_cstr(b, dm->msg);
			buf_adds(b, dm->fatal ? " (decoding stopped here)\n" : "\n");
		}
		if (s->dmg_dropped)
			buf_printf(b, "           and %llu more\n", (unsigned long long)s->dmg_dropped);
		size_t shown = 0;
		for (size_t k = sl.at[s->id]; k < sl.at[s->id + 1]; k++) {
			const struct lane *ln = model_lane_get(t->m, sl.v[k]);
			if (shown++ == INFO_LANES) {
				buf_printf(b, "           ... %zu more lanes\n", r.nlanes - INFO_LANES);
				break;
			}
			buf_adds(b, shown == 1 ? "  lane:    " : "           ");
			term_sid(b, t->m, ln->name);
			buf_adds(b, ": "), buf_u64(b, ln->count), buf_adds(b, " events\n");
		}
		meta_text(t, s, &st, b);
	}
	clock_summary(t, sum, b);
	index_summary(t, b);
	by_source_free(&sl);
	by_source_free(&st);
	free(sum);
}

void info_json(struct trace *t, struct buf *b)
{
	buf_adds(b, "{\"sources\":[");
	struct src_summary *sum = summaries(t);
	struct by_source sl = by_source(t, model_nlanes(t->m), lane_source);
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		struct src_summary r = sum[s->id];
		if (i)
			buf_addc(b, ',');
		buf_adds(b, "{\"path\":");
		esc_json(b, s->path, strlen(s->path));
		const char *title, *format = trace_source_format(s, &title);
		if (format)
			buf_printf(b, ",\"format\":\"%s\",\"title\":\"%s\"", format, title);
		buf_printf(b, ",\"status\":\"%s\"", source_status(s));
		if (s->error) {
			buf_adds(b, ",\"error\":");
			esc_json(b, s->error, strlen(s->error));
		}
		buf_printf(b, ",\"files\":%zu,\"bytes\":%llu,\"compressed_bytes\":%llu,\"events\":%llu", s->ninputs,
			   (unsigned long long)r.bytes, (unsigned long long)r.raw, (unsigned long long)r.events);
		if (r.span)
			buf_printf(b, ",\"first_ts\":%lld,\"last_ts\":%lld", (long long)r.first, (long long)r.last);
		if (s->has_boot)
			buf_printf(b, ",\"clock_zero_wall_ns\":%lld", (long long)s->boot_ns);
		if (s->align != ALIGN_NONE)
			buf_printf(b, ",\"shift_ns\":%lld", (long long)s->shift);
		buf_adds(b, ",\"lanes\":[");
		bool first = true;
		for (size_t k = sl.at[s->id]; k < sl.at[s->id + 1]; k++) {
			const struct lane *ln = model_lane_get(t->m, sl.v[k]);
			buf_adds(b, first ? "{\"name\":" : ",{\"name\":");
			first = false;
			json_sid(b, t->m, ln->name);
			buf_printf(b, ",\"events\":%llu}", (unsigned long long)ln->count);
		}
		buf_adds(b, "],\"damage\":[");
		for (size_t d = 0; d < s->ndmg; d++) {
			const struct damage *dm = &s->dmg[d];
			buf_adds(b, d ? ",{\"file\":" : "{\"file\":");
			esc_json(b, dm->path, strlen(dm->path));
			if (dm->has_off)
				buf_printf(b, ",\"offset\":%llu", (unsigned long long)dm->off);
			buf_adds(b, ",\"message\":");
			esc_json(b, dm->msg, strlen(dm->msg));
			buf_printf(b, ",\"fatal\":%s}", dm->fatal ? "true" : "false");
		}
		buf_printf(b, "],\"damage_not_listed\":%llu", (unsigned long long)s->dmg_dropped);
		struct buf d = {0};
		struct json_sink js;
		json_sink_begin(&js, &d);
		bool details = trace_source_info(s, &js.s);
		json_sink_end(&js);
		if (details)
			buf_printf(b, ",\"details\":%s", d.p);
		buf_free(&d);
		buf_addc(b, '}');
	}
	int64_t first, last;
	buf_printf(b, "],\"events\":%llu", (unsigned long long)model_count(t->m));
	if (model_span(t->m, &first, &last))
		buf_printf(b, ",\"first_ts\":%lld,\"last_ts\":%lld", (long long)first, (long long)last);
	const struct source *x, *y;
	static const char *const clocks[] = {"one source", "same", "different", "unknown"};
	buf_printf(b, ",\"clocks\":\"%s\",\"aligned\":%s", clocks[clock_domains(t, sum, &x, &y)], t->align ? "true" : "false");
	by_source_free(&sl);
	free(sum);
	uint64_t mem, files;
	bigmem_usage(&mem, &files);
	buf_printf(b, ",\"index\":{\"bytes_in_memory\":%llu,\"bytes_in_files\":%llu,\"memory_budget\":%llu,\"saved\":%s",
		   (unsigned long long)mem, (unsigned long long)files, (unsigned long long)bigmem_budget(),
		   t->restored ? "true" : "false");
	struct buf full = {0};
	if (bigmem_full_dirs(&full)) {
		buf_adds(b, ",\"full_dirs\":");
		esc_json(b, full.p, full.len);
	}
	buf_free(&full);
	if (t->save_error) {
		buf_adds(b, ",\"not_saved\":");
		esc_json(b, t->save_error, strlen(t->save_error));
		t->save_error_said = true;
	}
	buf_adds(b, "}}");
}

void batch_info(struct trace *t, bool json, FILE *out)
{
	struct buf b = {0};
	if (json) {
		info_json(t, &b);
		buf_addc(&b, '\n');
	} else {
		info_text(t, &b);
	}
	fwrite(buf_str(&b), 1, b.len, out);
	buf_free(&b);
}

void out_flush(struct buf *b, FILE *out, size_t least)
{
	if (!b->len || b->len < least)
		return;
	fwrite(b->p, 1, b->len, out);
	buf_reset(b);
}
