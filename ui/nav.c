/* ui floor 3 */
/* Selection, the visible set, jumps and marks. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/esc.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"

#define BLOCK 512 /* positions per rank entry: 8 bitmap words */

#define MESSAGES_MAX (256u << 10) /* bytes of the messages log; the older half goes beyond */

void message(struct app *a, bool error, const char *fmt, ...)
{
	char was[sizeof a->msg];
	memcpy(was, a->msg, sizeof was);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
	a->msg_error = error;
	if (!strcmp(was, a->msg))
		return; /* said again (each step of a costly filter): logged once */
	struct buf *log = &a->messages;
	if (log->len > MESSAGES_MAX) {
		const char *half = strchr(log->p + log->len / 2, '\n');
		size_t drop = half ? (size_t)(half + 1 - log->p) : log->len;
		memmove(log->p, log->p + drop, log->len - drop + 1);
		log->len -= drop;
	}
	time_t now = time(NULL);
	struct tm tm;
	char when[16] = "";
	if (localtime_r(&now, &tm))
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	buf_printf(log, "%s  %s%s\n", when, error ? "error: " : "", a->msg);
}

/* ---- lanes shown ---------------------------------------------------------- */

void lanes_sync(struct app *a)
{
	names_sync(a);
	uint32_t n = model_nlanes(a->m);
	if (n > a->caplaneflags) {
		size_t old = a->caplaneflags;
		xgrow(&a->lane_flags, &a->caplaneflags, n, 1);
		memset(a->lane_flags + old, 0, a->caplaneflags - old);
	}
	/* Lanes join the display order as they appear. */
	for (uint32_t l = (uint32_t)a->norder; l < n; l++) {
		xgrow(&a->order, &a->caporder, a->norder + 1, sizeof *a->order);
		a->order[a->norder++] = l;
	}
}

static int name_cells(struct app *a, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(a->m, sid, &n);
	struct buf b = {0};
	esc_term(&b, s, n);
	int w = text_width(buf_str(&b), b.len);
	buf_free(&b);
	return w;
}

void names_sync(struct app *a)
{
	uint32_t nl = model_nlanes(a->m), nt = model_ntypes(a->m);
	if (model_lane_renames(a->m) != a->known_renames) { /* measure every lane name again */
		a->known_renames = model_lane_renames(a->m);
		a->known_lanes = 0;
		a->lane_w = 0;
	}
	for (uint32_t l = a->known_lanes; l < nl; l++)
		a->lane_w = MAX(a->lane_w, name_cells(a, model_lane_get(a->m, l)->name));
	if (nt > a->captyperole)
		xgrow(&a->type_role, &a->captyperole, nt, 1);
	for (uint32_t t = a->known_types; t < nt; t++) {
		const struct type *ty = model_type_get(a->m, t);
		a->type_w = MAX(a->type_w, name_cells(a, ty->name));
		/* a span's colour: by category (or type), so one kind keeps its colour */
		size_t n;
		const char *s = model_strget(a->m, ty->category ? ty->category : ty->name, &n);
		a->type_role[t] = (uint8_t)(R_SPAN1 + hash_bytes(s, n) % SPAN_ROLES);
	}
	a->known_lanes = nl;
	a->known_types = nt;
}

static bool any_picked(const struct app *a)
{
	for (size_t i = 0; i < a->norder; i++)
		if (a->lane_flags[a->order[i]] & LANE_PICKED)
			return true;
	return false;
}

bool lane_shown(const struct app *a, uint32_t lane)
{
	return lane >= a->caplaneflags || !(a->lane_flags[lane] & LANE_HIDDEN);
}

/* ---- the visible set ------------------------------------------------------ */

void vis_reset(struct app *a)
{
	struct visible *v = &a->vis;
	bool hidden = false;
	for (size_t i = 0; i < a->norder; i++)
		hidden |= (a->lane_flags[a->order[i]] & LANE_HIDDEN) != 0;
	v->all = !hidden && !any_picked(a) && !filterset_active(a->fs);
	v->done = 0;
	filterset_reset_counts(a->fs);
	v->n = model_count(a->m);
	v->gen = model_generation(a->m);
}

/* Does the event's lane let it through: not hidden, and picked when some are? */
struct lane_filter {
	const struct app *a;
	bool picked;
};

static bool lane_passes(void *ctx, const struct event *e)
{
	const struct lane_filter *lf = ctx;
	const struct app *a = lf->a;
	uint8_t f = e->lane < a->caplaneflags ? a->lane_flags[e->lane] : 0;
	return !(f & LANE_HIDDEN) && (!lf->picked || (f & LANE_PICKED));
}

bool vis_pending(const struct app *a) { return !a->vis.all && a->vis.done < model_count(a->m); }

/* Filters over millions of events take seconds: they run in steps bounded
 * in time (filterset_mark shares each with the worker thread), and the loop
 * reads keys and signals between steps.  A step ends at `upto` events or at
 * the deadline (0: none), whichever comes first. */
static bool vis_mark(struct app *a, uint64_t upto, uint64_t deadline)
{
	struct visible *v = &a->vis;
	uint64_t n = model_count(a->m);
	if (model_generation(a->m) != v->gen)
		vis_reset(a); /* positions moved: start over */
	v->n = n;
	if (v->all || v->done >= n)
		return false;
	size_t words = (size_t)((n + 63) / 64), blocks = (size_t)(n / BLOCK + 1);
	if (words > v->capbits) {
		size_t old = v->capbits;
		xgrow(&v->bits, &v->capbits, words, sizeof *v->bits);
		memset(v->bits + old, 0, (v->capbits - old) * sizeof *v->bits);
	}
	xgrow(&v->rank, &v->caprank, blocks + 1, sizeof *v->rank);
	struct lane_filter lf = {a, any_picked(a)};
	uint64_t p = v->done;
	if (!p)
		v->rank[0] = 0;
	uint64_t q = filterset_mark(a->fs, a->t, p, MIN(n, upto), 0, v->bits, lane_passes, &lf, deadline);
	/* blocks now complete: rank[b] = visible before block b */
	for (uint64_t b = p / BLOCK + 1; b * BLOCK <= q; b++) {
		uint64_t c = 0;
		for (uint64_t i = (b - 1) * (BLOCK / 64); i < b * (BLOCK / 64); i++)
			c += (uint64_t)__builtin_popcountll(v->bits[i]);
		v->rank[b] = v->rank[b - 1] + c;
	}
	v->done = q;
	return q < n;
}

bool vis_step(struct app *a, uint64_t budget_ns) { return vis_mark(a, UINT64_MAX, now_ns() + budget_ns); }

bool vis_step_events(struct app *a, uint64_t count) { return vis_mark(a, a->vis.done + count, 0); }

bool vis_is(struct app *a, uint64_t pos)
{
	struct visible *v = &a->vis;
	if (pos >= model_count(a->m))
		return false;
	if (v->all)
		return true;
	if (pos >= v->done)
		return false;
	return v->bits[pos / 64] >> (pos % 64) & 1;
}

uint64_t vis_next(struct app *a, uint64_t pos)
{
	struct visible *v = &a->vis;
	uint64_t n = a->vis.all ? model_count(a->m) : v->done;
	uint64_t p = pos == NO_POS ? 0 : pos + 1;
	if (v->all)
		return p < n ? p : NO_POS;
	while (p < n) {
		uint64_t w = v->bits[p / 64] >> (p % 64);
		if (w)
			return p + (uint64_t)__builtin_ctzll(w) < n ? p + (uint64_t)__builtin_ctzll(w) : NO_POS;
		p = (p / 64 + 1) * 64;
	}
	return NO_POS;
}

uint64_t vis_prev(struct app *a, uint64_t pos)
{
	struct visible *v = &a->vis;
	uint64_t n = a->vis.all ? model_count(a->m) : v->done;
	if (pos == 0 || !n)
		return NO_POS;
	uint64_t p = (pos == NO_POS || pos > n ? n : pos) - 1;
	if (v->all)
		return p;
	for (;;) {
		uint64_t w = v->bits[p / 64] & (~0ull >> (63 - p % 64));
		if (w)
			return p / 64 * 64 + 63 - (uint64_t)__builtin_clzll(w);
		if (p < 64)
			return NO_POS;
		p = p / 64 * 64 - 1;
	}
}

uint64_t vis_first(struct app *a) { return vis_next(a, NO_POS); }
uint64_t vis_last(struct app *a) { return vis_prev(a, NO_POS); }

/* Symbol tables, class descriptions and other metadata come first (or
 * last) in many traces, and have no place on the time axis. */
#define METADATA_SCAN 100000 /* looked at before giving up: the first event then */

static uint64_t timed_from(struct app *a, uint64_t p, uint64_t (*step)(struct app *, uint64_t))
{
	uint64_t start = p;
	for (int n = 0; p != NO_POS && n < METADATA_SCAN; n++, p = step(a, p)) {
		struct event e;
		model_get(a->m, p, &e);
		if (!(e.flags & EVF_META))
			return p;
	}
	return start;
}

/* Every event before the first timed event's time, or after the last's,
 * is metadata: where they end (or begin), found by time (a fleet's 256
 * instances put 100,000 symbols first). */
static uint64_t timed_bound(struct app *a, bool at_end)
{
	int64_t first, last;
	if (!model_span(a->m, &first, &last))
		return at_end ? NO_POS : 0;
	return model_seek(a->m, at_end ? ts_add(last, 1) : first);
}

uint64_t vis_first_timed(struct app *a)
{
	uint64_t b = timed_bound(a, false), p = timed_from(a, vis_next(a, b ? b - 1 : NO_POS), vis_next);
	return p != NO_POS ? p : vis_first(a);
}

uint64_t vis_last_timed(struct app *a)
{
	uint64_t p = timed_from(a, vis_prev(a, timed_bound(a, true)), vis_prev);
	return p != NO_POS ? p : vis_last(a);
}

uint64_t vis_count(struct app *a)
{
	if (a->vis.all)
		return model_count(a->m);
	return vis_rank(a, a->vis.done);
}

uint64_t vis_rank(struct app *a, uint64_t pos)
{
	struct visible *v = &a->vis;
	if (v->all)
		return pos;
	if (pos > v->done)
		pos = v->done;
	uint64_t b = pos / BLOCK, r = v->rank ? v->rank[b] : 0;
	for (uint64_t i = b * BLOCK / 64; i < pos / 64; i++)
		r += (uint64_t)__builtin_popcountll(v->bits[i]);
	if (pos % 64)
		r += (uint64_t)__builtin_popcountll(v->bits[pos / 64] & ((1ull << (pos % 64)) - 1));
	return r;
}

uint64_t vis_nearest(struct app *a, uint64_t pos)
{
	if (pos != NO_POS && vis_is(a, pos))
		return pos;
	uint64_t p = vis_next(a, pos);
	return p != NO_POS ? p : vis_prev(a, pos);
}

/* ---- selection and jumps -------------------------------------------------- */

struct evref ref_of(struct app *a, uint64_t pos)
{
	if (pos == NO_POS || pos >= model_count(a->m))
		return (struct evref){0};
	struct event e;
	model_get(a->m, pos, &e);
	return (struct evref){e.ts, e.input, e.off, true};
}

bool ref_pos(struct app *a, const struct evref *r, uint64_t *pos)
{
	return r->set && model_find(a->m, r->ts, r->input, r->off, pos);
}

void select_pos(struct app *a, uint64_t pos)
{
	a->sel = pos;
	a->sel_ref = ref_of(a, pos);
}

void refresh_selection(struct app *a)
{
	uint64_t pos;
	if (a->sel_ref.set && ref_pos(a, &a->sel_ref, &pos))
		a->sel = pos;
	else if (a->sel == NO_POS || a->sel >= model_count(a->m))
		a->sel = vis_first(a);
	if (a->sel != NO_POS && !vis_is(a, a->sel) && a->vis.done > a->sel)
		a->sel = vis_nearest(a, a->sel);
	if (!a->sel_ref.set && a->sel != NO_POS)
		a->sel_ref = ref_of(a, a->sel);
}

static void hist_push(struct app *a, struct evref r)
{
	a->nhist = a->hist_at; /* a new jump drops the forward history */
	if (a->nhist && a->hist[a->nhist - 1].ts == r.ts && a->hist[a->nhist - 1].off == r.off &&
	    a->hist[a->nhist - 1].input == r.input)
		return;
	xgrow(&a->hist, &a->caphist, a->nhist + 1, sizeof *a->hist);
	a->hist[a->nhist++] = r;
	a->hist_at = a->nhist;
}

void jump_to(struct app *a, uint64_t pos)
{
	if (pos == NO_POS)
		return;
	if (a->sel != NO_POS && pos != a->sel)
		hist_push(a, a->sel_ref);
	select_pos(a, pos);
}

bool at_end(struct app *a) { return a->sel == NO_POS || a->sel == vis_last(a); }

uint64_t follow_new(struct app *a)
{
	uint64_t pos;
	if (!ref_pos(a, &a->pause_mark, &pos)) /* gone (the file was truncated): after the cursor */
		pos = a->sel;
	return pos == NO_POS ? vis_count(a) : vis_count(a) - MIN(vis_count(a), vis_rank(a, pos + 1));
}

void jump_history(struct app *a, int dir)
{
	if (dir < 0) {
		if (!a->hist_at) {
			message(a, false, "at the oldest jump");
			return;
		}
		if (a->hist_at == a->nhist) { /* remember where we are, to come back */
			hist_push(a, a->sel_ref);
			a->hist_at = a->nhist - 1;
		}
		a->hist_at--;
	} else {
		if (a->hist_at + 1 >= a->nhist) {
			message(a, false, "at the newest jump");
			return;
		}
		a->hist_at++;
	}
	uint64_t pos;
	if (ref_pos(a, &a->hist[a->hist_at], &pos))
		select_pos(a, pos);
	else
		message(a, true, "that event is gone (the file changed)");
}

void set_mark(struct app *a, int letter)
{
	if (letter < 'a' || letter > 'z' || a->sel == NO_POS) {
		message(a, true, "marks are a to z");
		return;
	}
	a->marks[letter - 'a'] = a->sel_ref;
	free(a->mark_note[letter - 'a']);
	a->mark_note[letter - 'a'] = NULL;
	message(a, false, "mark '%c' set", letter);
}

void goto_mark(struct app *a, int letter)
{
	uint64_t pos;
	if (letter < 'a' || letter > 'z' || !a->marks[letter - 'a'].set) {
		message(a, true, "no mark '%c'", letter);
		return;
	}
	if (!ref_pos(a, &a->marks[letter - 'a'], &pos)) {
		message(a, true, "mark '%c': that event is gone", letter);
		return;
	}
	jump_to(a, pos);
	const char *note = a->mark_note[letter - 'a'];
	if (note) {
		struct buf b = {0};
		esc_typed(&b, note, strlen(note));
		message(a, false, "mark '%c': %s", letter, b.p);
		buf_free(&b);
	}
}

/* ---- moving the selection -------------------------------------------------- */

/* Move the selection by n visible events (negative: back). */
static void move_by(struct app *a, int64_t n)
{
	uint64_t p = a->sel == NO_POS ? vis_first(a) : a->sel;
	for (; n > 0 && p != NO_POS; n--) {
		uint64_t q = vis_next(a, p);
		if (q == NO_POS)
			break;
		p = q;
	}
	for (; n < 0 && p != NO_POS; n++) {
		uint64_t q = vis_prev(a, p);
		if (q == NO_POS)
			break;
		p = q;
	}
	select_pos(a, p);
}

/* Movement shared with the detail view. */
bool move_action(struct app *a, enum action act)
{
	int page = MAX(1, a->lines - 3); /* the list's rows (header, status line) less one */
	switch (act) {
	case ACT_MOVE_DOWN: move_by(a, 1); return true;
	case ACT_MOVE_UP: move_by(a, -1); return true;
	case ACT_PAGE_DOWN: move_by(a, page); return true;
	case ACT_PAGE_UP: move_by(a, -page); return true;
	case ACT_HALF_DOWN: move_by(a, page / 2); return true;
	case ACT_HALF_UP: move_by(a, -page / 2); return true;
	case ACT_FIRST: jump_to(a, vis_first_timed(a)); return true;
	case ACT_LAST: jump_to(a, vis_last_timed(a)); return true;
	default: return false;
	}
}

/* ---- match counts --------------------------------------------------------- */

/* Every event the search finds, over all events (the filters do not change
 * it); counts are taken with the visible set. */
bool hits_pending(const struct app *a) { return a->search.spec && a->hits.done < model_count(a->m); }

bool hits_step(struct app *a, uint64_t budget_ns)
{
	struct hits *h = &a->hits;
	uint64_t n = model_count(a->m);
	if (h->gen != model_generation(a->m)) {
		h->gen = model_generation(a->m);
		h->done = 0;
	}
	if (!hits_pending(a))
		return false;
	size_t words = (size_t)((n + 63) / 64);
	if (words > h->cap) {
		size_t old = h->cap;
		xgrow(&h->bits, &h->cap, words, sizeof *h->bits);
		memset(h->bits + old, 0, (h->cap - old) * sizeof *h->bits);
	}
	struct filterset one = {.f = &a->search, .n = 1, .cap = 1};
	h->done = filterset_mark(&one, a->t, h->done, n, 0, h->bits, NULL, NULL, now_ns() + budget_ns);
	return h->done < n;
}

bool search_hits(const struct app *a, uint64_t pos)
{
	return a->search.spec && pos < a->hits.done && (a->hits.bits[pos / 64] >> (pos % 64) & 1);
}

uint64_t hits_before(struct app *a, uint64_t pos)
{
	uint64_t end = MIN(pos, MIN(a->hits.done, a->vis.all ? model_count(a->m) : a->vis.done)), c = 0;
	for (uint64_t w = 0; w * 64 < end; w++) {
		uint64_t bits = a->hits.bits[w] & (a->vis.all ? ~0ull : a->vis.bits[w]);
		if (end - w * 64 < 64)
			bits &= (1ull << (end - w * 64)) - 1;
		c += (uint64_t)__builtin_popcountll(bits);
	}
	return c;
}
