/* Cursors: places in the model's global order, over its streams (the
 * parts, then the sequences) merged by time, a few per reading thread.
 * Reading the model event by event (model_read, model_get, model_seek)
 * goes through them. */
#include <pthread.h>

#include "src/model_int.h"

/* ---- a few per reading thread ---------------------------------------------- */

static void cursor_free(struct cursor *c)
{
	free(c->idx); /* (and n) */
	tourney_free(&c->t);
	free(c->run);
	free(c->runs);
	*c = (struct cursor){0};
}

static void ckpts_free(struct ckpts *ck)
{
	free(ck->idx);
	free(ck->ts);
	cursor_free(&ck->walk);
	*ck = (struct ckpts){0};
}

static pthread_key_t cursors_key;
static pthread_once_t cursors_once = PTHREAD_ONCE_INIT;

static void cursors_free(void *p)
{
	struct cursors *cs = p;
	for (int i = 0; i < NCURSORS; i++)
		cursor_free(&cs->cur[i]);
	ckpts_free(&cs->ck);
	free(cs);
}

static void cursors_key_make(void)
{
	if (pthread_key_create(&cursors_key, cursors_free))
		oom(0);
}

/* This thread's cursors, for m as it is now. */
static struct cursors *cursors_of(const struct model *m)
{
	pthread_once(&cursors_once, cursors_key_make);
	struct cursors *cs = pthread_getspecific(cursors_key);
	if (!cs) {
		cs = xcalloc(1, sizeof *cs);
		pthread_setspecific(cursors_key, cs);
	}
	if (cs->serial != m->serial || cs->epoch != m->epoch) {
		if (cs->serial != m->serial || cs->ck.nstreams != nstreams(m) || cs->ck.generation != m->generation ||
		    cs->ck.count != model_count(m))
			ckpts_free(&cs->ck);
		cs->serial = m->serial;
		cs->epoch = m->epoch;
		for (int i = 0; i < NCURSORS; i++)
			cs->cur[i].valid = false;
	}
	return cs;
}

void cursors_let_go(const struct model *m)
{
	struct cursors *cs = cursors_of(m);
	for (int i = 0; i < NCURSORS; i++)
		cursor_free(&cs->cur[i]);
	ckpts_free(&cs->ck);
	cs->serial = 0;
}

/* ---- cursors: places in the global order ----------------------------------- */

static inline skey stream_key(const struct model *m, size_t s, int64_t ts, uint64_t loc)
{
	/* (a sequence's place: past any part's (inputs < 4096), by its order) */
	return (skey)((uint64_t)ts ^ (1ull << 63)) << 64 | (is_part(m, s) ? loc : UINT64_MAX - 1 - nstreams(m) + s);
}

/* Event i of part s, from the cursor's run of it (unpacked anew when it
 * is not there: from i on, or, going back, up to i; more at a time while
 * a reader goes on in turn, one after a jump). */
static const struct cev *run_ev(const struct model *m, struct cursor *c, size_t s, uint64_t i, bool back)
{
	struct cur_run *r = &c->runs[s];
	struct cev *run = c->run + s * CUR_RUN;
	if (i - r->start >= r->n) {
		bool on = r->n && (back ? i + 1 == r->start : i == r->start + r->n); /* (reading on from the last run) */
		r->want = on ? MIN(2 * r->want, CUR_RUN) : 1;
		r->start = back ? (i + 1 > r->want ? i + 1 - r->want : 0) : i;
		r->n = (uint32_t)MIN(r->want, c->n[s] - r->start);
		evs_copy(&m->parts[s]->store, r->start, r->n, run);
	}
	return &run[i - r->start];
}

static void cursor_alloc(const struct model *m, struct cursor *c)
{
	size_t n = nstreams(m);
	if (c->idx && c->nstreams == n)
		return;
	cursor_free(c);
	c->nstreams = n;
	c->idx = xcalloc(2 * n, sizeof *c->idx);
	c->n = c->idx + n;
	tourney_init(&c->t, n);
	c->run = xcalloc(m->nparts * CUR_RUN, sizeof *c->run);
	c->runs = xcalloc(m->nparts, sizeof *c->runs);
}

static inline bool live(const struct cursor *c, size_t s) { return s < c->nstreams && c->idx[s] < c->n[s]; }

static void head_of(const struct model *m, struct cursor *c, size_t s)
{
	if (c->idx[s] >= c->n[s]) {
		c->t.key[s] = NO_KEY;
	} else if (is_part(m, s)) {
		const struct cev *e = run_ev(m, c, s, c->idx[s], false);
		c->t.key[s] = stream_key(m, s, e->ts, e->loc);
	} else {
		c->t.key[s] = stream_key(m, s, SEQ(m, stream_seq(m, s), ts, c->idx[s]), 0);
	}
}

/* The cursor placed (idx and pos set): what it keeps at hand. */
static void cursor_placed(const struct model *m, struct cursor *c)
{
	for (size_t s = 0; s < c->nstreams; s++) {
		c->n[s] = stream_count(m, s);
		if (is_part(m, s))
			c->runs[s] = (struct cur_run){0};
		head_of(m, c, s);
	}
	tourney_play(&c->t);
	c->valid = true;
}

/* Is cursor i the one at model_keep's place? */
static bool kept(const struct cursors *cs, int i) { return cs->cur[i].valid && cs->cur[i].pos + 1 == cs->kept; }

void model_keep(struct model *m, uint64_t pos) { cursors_of(m)->kept = pos + 1; }

uint64_t model_searches(const struct model *m) { return cursors_of(m)->searches; }

/* The least recently chosen of this thread's cursors (not the kept one),
 * to be placed anew. */
static struct cursor *cursor_slot(const struct model *m)
{
	struct cursors *cs = cursors_of(m);
	int old = kept(cs, 0) ? 1 : 0;
	for (int i = old + 1; i < NCURSORS; i++)
		if (cs->used[i] < cs->used[old] && !kept(cs, i))
			old = i;
	cs->used[old] = ++cs->clock;
	struct cursor *c = &cs->cur[old];
	cursor_alloc(m, c);
	return c;
}

/* (A sequence that breaks its time order, read back from a damaged saved
 * index, can leave a position with no record at it: NO_HEAD.  Its answers
 * are wrong, never a read outside the sequences.) */
#define NO_HEAD SIZE_MAX

/* The stream holding the event at the cursor. */
static size_t cursor_head(const struct cursor *c) { return live(c, c->t.top) ? c->t.top : NO_HEAD; }

static bool ckpt_seek(const struct model *m, struct cursor *c, int64_t t);

uint64_t model_seek(struct model *m, int64_t t)
{
	if (nstreams(m) == 1)
		return evs_time_bound(&m->parts[0]->store, t, false);
	/* a cursor there too: reading on from a seek needs no bisection (the
	 * last seek's again: a view's seeks one after another, by time, leave
	 * its other places' cursors where they are) */
	struct cursors *cs = cursors_of(m);
	int last = cs->seek_slot - 1;
	struct cursor *c = last >= 0 && cs->cur[last].valid && !kept(cs, last) ? &cs->cur[last] : cursor_slot(m);
	cs->seek_slot = (int)(c - cs->cur) + 1;
	cs->used[cs->seek_slot - 1] = ++cs->clock;
	cursor_alloc(m, c);
	if (ckpt_seek(m, c, t))
		return c->pos;
	c->pos = 0;
	for (size_t s = 0; s < c->nstreams; s++)
		c->pos += c->idx[s] = stream_bound(m, s, t, false);
	cursor_placed(m, c);
	return c->pos;
}

#define TIES_READ 8192 /* fewer events at one time are read and sorted, not bisected by place
			  * (each step of which is a search in every part: a fleet's clock syncs) */

struct tie {
	uint64_t loc;
	size_t s;
};

static int tie_cmp(const void *x, const void *y)
{
	const struct tie *a = x, *b = y;
	return a->loc != b->loc ? (a->loc < b->loc ? -1 : 1) : (a->s > b->s) - (a->s < b->s);
}

/* place_ties' first r of the tied events [idx[s], upto[s]) of each part, read. */
static void ties_sorted(const struct model *m, struct cursor *c, const uint64_t *upto, uint64_t tied, uint64_t r)
{
	struct tie *v = xmalloc(tied * sizeof *v);
	struct cev *ev = xmalloc(tied * sizeof *ev);
	size_t n = 0;
	for (size_t s = 0; s < m->nparts; s++) {
		size_t k = (size_t)(upto[s] - c->idx[s]);
		evs_copy(&m->parts[s]->store, c->idx[s], k, ev);
		for (size_t i = 0; i < k; i++)
			v[n++] = (struct tie){ev[i].loc, s};
	}
	qsort(v, n, sizeof *v, tie_cmp); /* (equal places: the parts in turn, as the merge takes them) */
	for (uint64_t i = 0; i < r; i++)
		c->idx[v[i].s]++;
	free(ev);
	free(v);
}

/* Of the events at time t (from idx[s] on in each part), the first r go
 * before the cursor: those whose places come first. */
static uint64_t place_ties(const struct model *m, struct cursor *c, int64_t t, uint64_t r)
{
	uint64_t tied = 0, *upto = xcalloc(m->nparts, sizeof *upto);
	size_t last = 0, with = 0;
	for (size_t s = 0; s < m->nparts; s++) {
		upto[s] = evs_time_bound(&m->parts[s]->store, t, true);
		if (upto[s] > c->idx[s])
			tied += upto[s] - c->idx[s], last = s, with++;
	}
	if (tied <= r || with <= 1) {
		for (size_t s = 0; s < m->nparts; s++)
			c->idx[s] = tied <= r ? upto[s] : s == last ? c->idx[s] + r : c->idx[s];
		free(upto);
		return tied <= r ? r - tied : 0;
	}
	if (tied <= TIES_READ) {
		ties_sorted(m, c, upto, tied, r);
		free(upto);
		return 0;
	}
	/* the least place with more than r of the tied events at or before it */
	uint64_t lo = 0, hi = UINT64_MAX;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, le = 0;
		struct cev key = {.ts = t, .loc = mid};
		for (size_t s = 0; s < m->nparts; s++)
			le += evs_bound(&m->parts[s]->store, &key, true) - c->idx[s];
		if (le > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	struct cev key = {.ts = t, .loc = lo};
	for (size_t s = 0; s < m->nparts; s++) {
		uint64_t before = evs_bound(&m->parts[s]->store, &key, false);
		r -= before - c->idx[s];
		c->idx[s] = before;
	}
	for (size_t s = 0; s < m->nparts && r; s++) { /* (the same place twice: a duplicate) */
		uint64_t same = MIN(r, evs_bound(&m->parts[s]->store, &key, true) - c->idx[s]);
		c->idx[s] += same;
		r -= same;
	}
	free(upto);
	return 0;
}

/* Place cursor c at global position p by a search on time: find the
 * smallest t with more than p events at or before t. */
static void cursor_bisect(const struct model *m, struct cursor *c, uint64_t p)
{
	/* the time of event p lies between the earliest and the latest time
	 * of the streams: searched there, not over all 64 bits */
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t below = 0, upto = 0; /* events before lo (<= p), at or before hi (> p) */
	for (size_t s = 0; s < c->nstreams; s++) {
		uint64_t n = stream_count(m, s);
		if (n) {
			lo = MIN(lo, stream_ts(m, s, 0));
			hi = MAX(hi, stream_ts(m, s, n - 1));
			upto += n;
		}
	}
	if (lo > hi)
		lo = hi = 0; /* no events */
	/* each guess is a search in every stream (among 1,024 sequences, 40
	 * halvings cost 12 ms): a guess where p's share of the events puts it
	 * (times are spread about evenly at a fine enough scale), halving the
	 * range whenever a guess did not */
	bool halve = false;
	while (lo < hi) {
		uint64_t range = (uint64_t)hi - (uint64_t)lo;
		int64_t mid = halve || upto <= below || p < below
				      ? (lo & hi) + ((lo ^ hi) >> 1) /* floor average, no overflow */
				      : (int64_t)((uint64_t)lo + (uint64_t)((unsigned __int128)(p - below) * range /
									   (upto - below)));
		uint64_t le = 0;
		for (size_t s = 0; s < c->nstreams; s++)
			le += stream_bound(m, s, mid, true);
		cursors_of(m)->searches++;
		if (le > p)
			hi = mid, upto = le;
		else
			lo = mid + 1, below = le;
		halve = !halve && (uint64_t)hi - (uint64_t)lo > range / 2;
	}
	uint64_t before = 0;
	for (size_t s = 0; s < c->nstreams; s++)
		before += (c->idx[s] = stream_bound(m, s, lo, false));
	/* of the events at lo: the parts' first, by place, then each sequence's */
	uint64_t r = place_ties(m, c, lo, p - before);
	for (size_t s = m->nparts; s < c->nstreams; s++) {
		uint64_t same = stream_bound(m, s, lo, true) - c->idx[s];
		if (r < same) {
			c->idx[s] += r;
			break;
		}
		c->idx[s] += same;
		r -= same;
	}
	c->pos = p;
	cursor_placed(m, c);
}

static void cursor_back(const struct model *m, struct cursor *c);
static bool ckpt_place(const struct model *m, struct cursor *c, uint64_t p);

/* Place c at p: at either end without looking (every stream at its start,
 * or its end and one step back), else from the checkpoint below, else by
 * bisection. */
static void cursor_place(const struct model *m, struct cursor *c, uint64_t p)
{
	uint64_t n = 0;
	for (size_t s = 0; s < c->nstreams; s++)
		n += stream_count(m, s);
	if (p && p + 1 < n) {
		if (!ckpt_place(m, c, p))
			cursor_bisect(m, c, p);
		return;
	}
	for (size_t s = 0; s < c->nstreams; s++)
		c->idx[s] = p ? stream_count(m, s) : 0;
	c->pos = p ? n : 0;
	cursor_placed(m, c);
	if (p && p < n)
		cursor_back(m, c);
	c->pos = p; /* (past the end: no head) */
}

static void cursor_forth(const struct model *m, struct cursor *c)
{
	size_t s = cursor_head(c);
	c->pos++;
	if (s == NO_HEAD)
		return;
	c->idx[s]++;
	head_of(m, c, s);
	tourney_replay(&c->t);
}

static void cursor_back(const struct model *m, struct cursor *c)
{
	size_t best = NO_HEAD;
	skey bk = 0;
	for (size_t s = 0; s < c->nstreams; s++) {
		if (!c->idx[s])
			continue;
		skey k;
		if (is_part(m, s)) {
			const struct cev *e = run_ev(m, c, s, c->idx[s] - 1, true);
			k = stream_key(m, s, e->ts, e->loc);
		} else {
			k = stream_key(m, s, SEQ(m, stream_seq(m, s), ts, c->idx[s] - 1), 0);
		}
		if (best == NO_HEAD || k > bk)
			best = s, bk = k;
	}
	c->pos--;
	if (best == NO_HEAD)
		return;
	c->idx[best]--;
	head_of(m, c, best);
	tourney_play(&c->t); /* (not the winner's key that changed) */
}

/* A step forward plays log(streams) matches, a step back asks every
 * stream, a bisection every stream some 40 times: how far each way to
 * step rather than place a cursor anew. */
#define STEP_LIMIT 4096
#define BACK_LIMIT 32

static struct cursor *cursor_at(const struct model *m, uint64_t p)
{
	struct cursors *cs = cursors_of(m);
	struct cursor *c = NULL;
	uint64_t best = UINT64_MAX;
	int at = 0;
	for (int i = 0; i < NCURSORS; i++) {
		struct cursor *k = &cs->cur[i];
		if (!k->valid)
			continue;
		uint64_t d = k->pos > p ? (k->pos - p) * (STEP_LIMIT / BACK_LIMIT) : p - k->pos;
		if (d < best)
			best = d, c = k, at = i;
	}
	if (!c || best > STEP_LIMIT) {
		c = cursor_slot(m);
		cursor_place(m, c, p);
		return c;
	}
	cs->used[at] = ++cs->clock;
	while (c->pos < p)
		cursor_forth(m, c);
	while (c->pos > p)
		cursor_back(m, c);
	return c;
}

/* ---- checkpoints ------------------------------------------------------------- */

/* The time of the event at the cursor (it has one). */
static int64_t head_ts(const struct cursor *c) { return (int64_t)((uint64_t)(c->t.key[c->t.top] >> 64) ^ (1ull << 63)); }

/* c placed at row k of the checkpoints. */
static void ckpt_row(const struct model *m, const struct ckpts *ck, struct cursor *c, size_t k)
{
	const uint32_t *row = ck->idx + k * ck->nstreams;
	for (size_t s = 0; s < ck->nstreams; s++)
		c->idx[s] = row[s];
	c->pos = (uint64_t)k * CKPT_EVERY;
	cursor_placed(m, c);
}

static bool ckpt_place(const struct model *m, struct cursor *c, uint64_t p)
{
	const struct ckpts *ck = &cursors_of(m)->ck;
	if (p / CKPT_EVERY >= ck->n || ck->nstreams != c->nstreams)
		return false;
	ckpt_row(m, ck, c, (size_t)(p / CKPT_EVERY));
	while (c->pos < p)
		cursor_forth(m, c);
	return true;
}

/* Stream s's first event at or after t, known to lie in [a, b]. */
static uint64_t bound_between(const struct model *m, size_t s, int64_t t, uint64_t a, uint64_t b)
{
	if (is_part(m, s))
		return stream_bound(m, s, t, false);
	size_t q = stream_seq(m, s);
	while (a < b) {
		uint64_t mid = a + (b - a) / 2;
		if (SEQ(m, q, ts, mid) < t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* c placed at the first event at or after t, when that lies among the rows
 * made: each stream's place lies between its places in the rows on either
 * side (a few events apart: a search of a few steps, not of the stream). */
static bool ckpt_seek(const struct model *m, struct cursor *c, int64_t t)
{
	const struct ckpts *ck = &cursors_of(m)->ck;
	if (!ck->n || ck->nstreams != c->nstreams)
		return false;
	size_t lo = 0, hi = ck->n; /* the first row at or after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ck->ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ck->n && !ck->done)
		return false;
	const uint32_t *below = lo ? ck->idx + (lo - 1) * ck->nstreams : NULL;
	const uint32_t *above = lo < ck->n ? ck->idx + lo * ck->nstreams : NULL;
	c->pos = 0;
	for (size_t s = 0; s < ck->nstreams; s++)
		c->pos += c->idx[s] = bound_between(m, s, t, below ? below[s] : 0, above ? above[s] : stream_count(m, s));
	cursor_placed(m, c);
	return true;
}

/* The walk's place noted as the next row (false: a stream's index does not
 * fit one). */
static bool ckpt_note(struct ckpts *ck)
{
	const struct cursor *w = &ck->walk;
	for (size_t s = 0; s < ck->nstreams; s++)
		if (w->idx[s] > UINT32_MAX)
			return !(ck->useless = true);
	xgrow(&ck->idx, &ck->capidx, (ck->n + 1) * ck->nstreams, sizeof *ck->idx);
	xgrow(&ck->ts, &ck->capts, ck->n + 1, sizeof *ck->ts);
	uint32_t *row = ck->idx + ck->n * ck->nstreams;
	for (size_t s = 0; s < ck->nstreams; s++)
		row[s] = (uint32_t)w->idx[s];
	ck->ts[ck->n++] = head_ts(w);
	return true;
}

bool model_index_step(struct model *m, uint64_t budget_ns)
{
	struct ckpts *ck = &cursors_of(m)->ck;
	struct cursor *w = &ck->walk;
	if (nstreams(m) < CKPT_STREAMS || ck->done || ck->useless)
		return false;
	if (!w->valid) {
		ck->nstreams = nstreams(m);
		ck->generation = m->generation;
		ck->count = model_count(m);
		cursor_alloc(m, w);
		cursor_place(m, w, 0);
	}
	uint64_t deadline = now_ns() + budget_ns;
	while (w->pos < ck->count) {
		if (w->pos == (uint64_t)ck->n * CKPT_EVERY && !ckpt_note(ck))
			return false;
		cursor_forth(m, w);
		if (!(w->pos & 1023) && now_ns() >= deadline)
			return true;
	}
	ck->done = true;
	cursor_free(w);
	return false;
}

/* The event at the cursor, from stream s. */
static void cursor_get(const struct model *m, struct cursor *c, size_t s, struct event *e)
{
	if (s == NO_HEAD) {
		*e = (struct event){.ts = m->last, .dur = TTV_NODUR, .flags = EVF_DAMAGED, .input = UINT32_MAX};
	} else if (is_part(m, s)) {
		cev_event(m, run_ev(m, c, s, c->idx[s], false), e);
		e->seq = 0;
	} else {
		SEQ(m, stream_seq(m, s), get, c->idx[s], e);
		e->seq = (uint32_t)stream_seq(m, s);
	}
	e->pos = c->pos;
}

/* (one store: its events' positions are the global ones) */
static void part0_get(const struct model *m, uint64_t pos, struct event *e)
{
	struct cev room;
	cev_event(m, evs_at(&m->parts[0]->store, pos, &room), e);
	e->seq = 0;
	e->pos = pos;
}

void model_get(struct model *m, uint64_t pos, struct event *e)
{
	if (nstreams(m) == 1) {
		part0_get(m, pos, e);
		return;
	}
	struct cursor *c = cursor_at(m, pos);
	cursor_get(m, c, cursor_head(c), e);
}

/* Events [i, i + n) of one store; their position is i onwards when
 * `placed` (the store is the whole model), else unknown (UINT64_MAX). */
static void store_read(const struct model *m, const struct evstore *st, uint64_t i, size_t n, struct event *e,
		       bool placed)
{
	while (n) {
		const struct cev *c;
		size_t got = evs_span(st, i, n, &c);
		for (size_t j = 0; j < got; j++, e++) {
			cev_event(m, &c[j], e);
			e->seq = 0;
			e->pos = placed ? i + j : UINT64_MAX;
		}
		i += got;
		n -= got;
	}
}

void model_read(struct model *m, uint64_t pos, size_t n, struct event *e)
{
	if (nstreams(m) != 1) {
		struct cursor *c = n ? cursor_at(m, pos) : NULL;
		for (size_t k = 0; k < n; k++) {
			cursor_get(m, c, cursor_head(c), &e[k]);
			if (k + 1 < n)
				cursor_forth(m, c);
		}
		return;
	}
	store_read(m, &m->parts[0]->store, pos, n, e, true);
}

/* The lane of the event at the cursor (from stream s), read no further
 * than that: a part's from its run, a sequence's from the lane it is on
 * when it says (no record read), else from its record. */
static uint32_t cursor_lane(const struct model *m, struct cursor *c, size_t s)
{
	if (s == NO_HEAD)
		return UINT32_MAX;
	if (is_part(m, s))
		return cev_lane(run_ev(m, c, s, c->idx[s], false));
	size_t q = stream_seq(m, s);
	if (m->seqs[q].ops->lane)
		return SEQ(m, q, lane);
	struct event e;
	SEQ(m, q, get, c->idx[s], &e);
	return e.lane;
}

/* (among streams: each event's lane looked at as the cursor steps, the
 * cursor left at the one found, where the reader then reads it) */
uint64_t model_lanes_next(struct model *m, const struct idset *lanes, uint64_t pos, uint64_t end)
{
	end = MIN(end, model_count(m));
	if (nstreams(m) == 1)
		return evs_lanes_next(&m->parts[0]->store, pos, end, lanes);
	if (pos >= end)
		return end;
	struct cursor *c = cursor_at(m, pos);
	for (; c->pos < end; cursor_forth(m, c))
		if (idset_has(lanes, cursor_lane(m, c, cursor_head(c))))
			return c->pos;
	return end;
}

enum { LANES_RUN = 256 };

/* (back: runs read forth from further back each time, as a step back
 * among streams looks at every one) */
uint64_t model_lanes_prev(struct model *m, const struct idset *lanes, uint64_t pos, uint64_t begin)
{
	pos = MIN(pos, model_count(m));
	if (nstreams(m) == 1)
		return evs_lanes_prev(&m->parts[0]->store, pos, begin, lanes);
	struct event run[LANES_RUN];
	while (pos > begin) {
		size_t k = (size_t)MIN((uint64_t)LANES_RUN, pos - begin);
		model_read(m, pos - k, k, run);
		for (size_t i = k; i-- > 0;)
			if (idset_has(lanes, run[i].lane))
				return pos - k + i;
		pos -= k;
	}
	return UINT64_MAX;
}

/* (readers on several threads each place cursors of their own; not with
 * sequences, whose own reading may not be shared) */
bool model_get_shared(const struct model *m) { return m->nseqs == 1; }

size_t model_streams(const struct model *m) { return nstreams(m); }

/* Does sequence s hold the whole of its lane?  (A decoder's sequence is
 * one lane's records; a lane with events of a part too, or of another
 * sequence, counts more than the sequence holds.) */
static bool seq_whole_lane(const struct model *m, size_t s)
{
	uint64_t n = SEQ(m, s, count);
	if (!n)
		return true;
	if (m->seqs[s].ops->lane) { /* (reading its ends would touch its file's pages, and what they lead to) */
		uint32_t lane = SEQ(m, s, lane);
		return lane < m->nlanes && m->lanes[lane].count == n;
	}
	struct event first, last;
	SEQ(m, s, get, 0, &first);
	SEQ(m, s, get, n - 1, &last);
	return first.lane == last.lane && first.lane < m->nlanes && m->lanes[first.lane].count == n;
}

size_t model_parts(const struct model *m)
{
	for (size_t k = 0; k < m->nparts; k++)
		if (m->parts[k]->npiles)
			return 0; /* (a lane's events in several) */
	for (size_t s = 1; s < m->nseqs; s++)
		if (!seq_whole_lane(m, s))
			return 0;
	return nstreams(m);
}

uint64_t model_part_count(const struct model *m, size_t k) { return stream_count(m, k); }

uint32_t model_lane_part(const struct model *m, uint32_t lane) { return lane < m->nlanes ? m->lp[lane].part : 0; }

void model_part_read(const struct model *m, size_t k, uint64_t i, size_t n, struct event *e)
{
	if (is_part(m, k)) {
		store_read(m, &m->parts[k]->store, i, n, e, false);
		return;
	}
	size_t s = stream_seq(m, k);
	for (size_t j = 0; j < n; j++) {
		SEQ(m, s, get, i + j, &e[j]);
		e[j].seq = (uint32_t)s;
		e[j].pos = UINT64_MAX;
	}
}

uint64_t model_part_bound(const struct model *m, size_t k, int64_t t, bool upper)
{
	return stream_bound(m, k, t, upper);
}

place_t model_part_place(const struct model *m, size_t k, const struct event *e)
{
	return stream_key(m, k, e->ts, loc_of(e->input, e->off, e->type));
}

int64_t model_ts(struct model *m, uint64_t pos)
{
	if (nstreams(m) == 1)
		return evs_ts(&m->parts[0]->store, pos);
	struct cursor *c = cursor_at(m, pos);
	size_t s = cursor_head(c);
	return s == NO_HEAD ? m->last : (int64_t)((uint64_t)(c->t.key[s] >> 64) ^ (1ull << 63));
}

bool model_find(struct model *m, int64_t ts, uint32_t input, uint64_t off, uint64_t *pos)
{
	uint64_t n = model_count(m);
	struct event e;
	for (uint64_t p = model_seek(m, ts); p < n; p++) {
		model_get(m, p, &e);
		if (e.ts != ts)
			break;
		if (e.input == input && e.off == off) {
			*pos = p;
			return true;
		}
	}
	return false;
}

/* Global position of event j of stream s: j, and what each other stream
 * has before it. */
static uint64_t pos_of(const struct model *m, size_t s, uint64_t j)
{
	if (nstreams(m) == 1)
		return j;
	bool part = is_part(m, s);
	struct cev key = part ? pev(m->parts[s], j) : (struct cev){.ts = stream_ts(m, s, j)};
	uint64_t p = j;
	for (size_t o = 0; o < nstreams(m); o++) {
		if (o == s)
			continue;
		if (is_part(m, o))
			p += part ? evs_bound(&m->parts[o]->store, &key, false) : stream_bound(m, o, key.ts, true);
		else
			p += stream_bound(m, o, key.ts, o < s);
	}
	return p;
}

static bool compact_partner(struct model *m, const struct part *p, uint64_t i, uint64_t *j)
{
	struct cev e = pev(p, i);
	enum ev_role r = cev_role(&e);
	if ((r != ROLE_BEGIN && r != ROLE_END) || e.dur == DUR_NONE)
		return false;
	uint64_t d = dur_decode(m, e.dur), n = pcount(p);
	int64_t t = (int64_t)(r == ROLE_BEGIN ? (uint64_t)e.ts + d : (uint64_t)e.ts - d);
	enum ev_role want = r == ROLE_BEGIN ? ROLE_END : ROLE_BEGIN;
	for (uint64_t k = evs_time_bound(&p->store, t, false); k < n; k++) {
		struct cev o = pev(p, k);
		if (o.ts != t)
			break;
		if (cev_role(&o) == want && cev_lane(&o) == cev_lane(&e) && dur_decode(m, o.dur) == d &&
		    pair_compatible(m, r == ROLE_BEGIN ? &e : &o, r == ROLE_BEGIN ? &o : &e)) {
			*j = k;
			return true;
		}
	}
	return false;
}

uint64_t model_seq_pos(struct model *m, uint32_t seq, uint64_t j)
{
	return pos_of(m, m->nparts + seq - 1, j);
}

/* The other end of the span at pos: event j of stream *s. */
static bool partner_of(struct model *m, uint64_t pos, size_t *s, uint64_t *j)
{
	uint64_t i = pos;
	*s = 0;
	if (nstreams(m) != 1) {
		struct cursor *c = cursor_at(m, pos);
		if ((*s = cursor_head(c)) == NO_HEAD)
			return false;
		i = c->idx[*s];
	}
	if (is_part(m, *s))
		return compact_partner(m, m->parts[*s], i, j);
	const struct seqent *se = &m->seqs[stream_seq(m, *s)];
	struct event e;
	se->ops->get(se->ctx, i, &e);
	return se->ops->partner && se->ops->partner(se->ctx, e.off, j);
}

bool model_partner(struct model *m, uint64_t pos, uint64_t *other)
{
	size_t s;
	uint64_t j;
	if (!partner_of(m, pos, &s, &j))
		return false;
	*other = pos_of(m, s, j);
	return true;
}

bool model_partner_event(struct model *m, uint64_t pos, struct event *o)
{
	size_t s;
	uint64_t j;
	if (!partner_of(m, pos, &s, &j))
		return false;
	if (is_part(m, s)) {
		struct cev c = pev(m->parts[s], j);
		cev_event(m, &c, o);
		o->seq = 0;
	} else {
		SEQ(m, stream_seq(m, s), get, j, o);
		o->seq = (uint32_t)stream_seq(m, s);
	}
	o->pos = nstreams(m) == 1 ? j : UINT64_MAX;
	return true;
}

size_t model_lane_open(struct model *m, uint32_t lane, const uint64_t **pos)
{
	if (lane >= m->nlanes)
		return 0;
	struct lane_pairs *l = &m->lp[lane];
	if (nstreams(m) == 1) {
		*pos = l->stk;
		return l->depth;
	}
	xgrow(&l->open, &l->capopen, l->depth, sizeof *l->open);
	for (uint32_t i = 0; i < l->depth; i++)
		l->open[i] = pos_of(m, l->part, l->stk[i]);
	*pos = l->open;
	return l->depth;
}

bool model_span(const struct model *m, int64_t *first, int64_t *last)
{
	bool have = m->have_span;
	int64_t f = m->first, l = m->last;
	for (size_t s = 1; s < m->nseqs; s++) {
		uint64_t n = SEQ(m, s, count);
		if (!n)
			continue;
		int64_t a = SEQ(m, s, ts, 0), b = SEQ(m, s, ts, n - 1);
		if (!have || a < f)
			f = a;
		if (!have || b > l)
			l = b;
		have = true;
	}
	*first = f;
	*last = l;
	return have;
}
