/* --stats: counts per lane and type, durations per type, spans by name with
 * their self time, counter tracks.
 *
 * The walk over every event runs on two threads: each piece of 2048 events
 * is decoded half by each into a ring both read, then each accounts the
 * events of its own lanes (a lane's spans nest in that lane's order only),
 * and at the end the two tallies are added.  Lanes are shared out by their
 * event counts. */
#include "src/stats.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "src/batch.h"
#include "src/esc.h"
#include "src/hmap.h"
#include "src/worker.h"

struct durstat {
	uint64_t n, total, self, min, max;
};

static void durstat_add(struct durstat *d, uint64_t v, uint64_t self)
{
	if (!d->n || v < d->min)
		d->min = v;
	if (!d->n || v > d->max)
		d->max = v;
	d->n++;
	d->total += v;
	d->self += self;
}

static void durstat_merge(struct durstat *d, const struct durstat *o)
{
	if (!o->n)
		return;
	if (!d->n) {
		*d = *o;
		return;
	}
	d->min = MIN(d->min, o->min);
	d->max = MAX(d->max, o->max);
	d->n += o->n;
	d->total += o->total;
	d->self += o->self;
}

struct spanstat {
	uint32_t type, name;
	place_t first; /* of its first event: the order of equal rows */
	struct durstat d;
};

struct open_span {
	int64_t start, end; /* end = INT64_MAX while a begin waits for its end */
	uint64_t child;
	uint32_t stat; /* index into spans */
};

struct lane_stack {
	struct open_span *s;
	size_t n, cap;
};

/* A counter track's samples. */
struct counterstat {
	uint64_t n;
	double min, max, sum, last;
};

#define RECENT_BITS 12 /* span rows remembered per thread (by type and name) */

/* What one thread counted: the stacks and counters of its own lanes, and
 * its share of every total. */
struct tally {
	_Alignas(64) struct trace *t; /* (the other thread's tally on other cache lines) */
	uint64_t *dense;         /* counts by lane * ntypes + type, when the table is small */
	uint32_t ntypes;
	struct hmap lane_type;   /* else lane << 16 | type -> count */
	struct slot_cache {
		uint64_t key; /* type << 32 | name, + 1 (0: empty) */
		uint32_t slot;
	} *recent; /* span_index's recent answers */
	struct durstat *by_type; /* per type id */
	struct hmap span_index;  /* type << 32 | name -> index into spans */
	struct spanstat *spans;
	size_t nspans, capspans;
	struct lane_stack *stacks;
	struct counterstat *counters; /* per lane: its samples, when it is a counter track */
	uint64_t events, unclosed, unopened;
};

static void tally_init(struct tally *st, struct trace *t)
{
	struct model *m = t->m;
	uint32_t nl = model_nlanes(m) + 1;
	*st = (struct tally){.t = t, .ntypes = model_ntypes(m)};
	st->by_type = xcalloc(st->ntypes + 1, sizeof *st->by_type);
	if ((uint64_t)nl * st->ntypes <= (1u << 20))
		st->dense = xcalloc((size_t)nl * st->ntypes, sizeof *st->dense);
	st->recent = xcalloc(1u << RECENT_BITS, sizeof *st->recent);
	st->stacks = xcalloc(nl, sizeof *st->stacks);
	st->counters = xcalloc(nl, sizeof *st->counters);
}

static void tally_free(struct tally *st)
{
	hmap_free(&st->lane_type);
	free(st->dense);
	free(st->recent);
	hmap_free(&st->span_index);
	free(st->by_type);
	free(st->spans);
	free(st->stacks);
	free(st->counters);
}

static uint32_t span_slot(struct tally *st, uint32_t type, uint32_t name, place_t first)
{
	uint64_t key = (uint64_t)type << 32 | name, v;
	struct slot_cache *c = &st->recent[(key * 0x9e3779b97f4a7c15ull) >> (64 - RECENT_BITS)];
	if (c->key == key + 1) {
		v = c->slot;
	} else if (!hmap_get(&st->span_index, key, &v)) {
		xgrow(&st->spans, &st->capspans, st->nspans + 1, sizeof *st->spans);
		st->spans[st->nspans] = (struct spanstat){.type = type, .name = name, .first = first};
		hmap_put(&st->span_index, key, st->nspans);
		v = st->nspans++;
	}
	*c = (struct slot_cache){key + 1, (uint32_t)v};
	if (first < st->spans[v].first) /* (parts read apart: not in order) */
		st->spans[v].first = first;
	return (uint32_t)v;
}

/* A span on the stack ends: account it and charge its time to its parent. */
static void finish(struct tally *st, struct lane_stack *ls, int64_t end)
{
	struct open_span o = ls->s[--ls->n];
	uint64_t d = ts_span(o.start, end);
	uint64_t self = d > o.child ? d - o.child : 0;
	durstat_add(&st->spans[o.stat].d, d, self);
	if (ls->n)
		ls->s[ls->n - 1].child += d;
}

/* Close complete spans that ended at or before t. */
static void close_ended(struct tally *st, struct lane_stack *ls, int64_t t)
{
	while (ls->n && ls->s[ls->n - 1].end != INT64_MAX && ls->s[ls->n - 1].end <= t)
		finish(st, ls, ls->s[ls->n - 1].end);
}

/* Open a span at stack position j (the top unless a child came first). */
static void push_at(struct tally *st, struct lane_stack *ls, size_t j, const struct event *e, int64_t end)
{
	if (UNLIKELY(ls->n == ls->cap))
		xgrow(&ls->s, &ls->cap, ls->n + 1, sizeof *ls->s);
	if (j < ls->n)
		memmove(ls->s + j + 1, ls->s + j, (ls->n - j) * sizeof *ls->s);
	ls->n++;
	ls->s[j] = (struct open_span){e->ts, end, 0, span_slot(st, e->type, e->name, event_place(e))};
}

static void push(struct tally *st, struct lane_stack *ls, const struct event *e, int64_t end)
{
	push_at(st, ls, ls->n, e, end);
}

static void counter_sample(struct tally *st, const struct event *e)
{
	struct counterstat *c = &st->counters[e->lane];
	double v;
	if (!event_value(st->t, e, &v))
		return;
	c->min = c->n ? MIN(c->min, v) : v;
	c->max = c->n ? MAX(c->max, v) : v;
	c->sum += v;
	c->last = v;
	c->n++;
}

static void complete(struct tally *st, struct lane_stack *ls, const struct event *e)
{
	durstat_add(&st->by_type[e->type], e->dur, 0);
	int64_t end = ts_add(e->ts, e->dur);
	if (!ls->n || end <= ls->s[ls->n - 1].end) {
		push(st, ls, e, end); /* nested in what is open: its time counts against the parent */
		return;
	}
	/* Open spans that start when this one does and end within it are its
	 * children that came first (writers that emit a scope when it ends
	 * put children before parents): it goes beneath them. */
	size_t j = ls->n;
	while (j && ls->s[j - 1].start == e->ts && ls->s[j - 1].end <= end)
		j--;
	if (j < ls->n && (!j || end <= ls->s[j - 1].end)) {
		push_at(st, ls, j, e, end);
	} else { /* overlaps without nesting (e.g. calls of several threads of one process) */
		uint32_t slot = span_slot(st, e->type, e->name, event_place(e));
		durstat_add(&st->spans[slot].d, e->dur, e->dur);
	}
}

/* Pair like the model does: the nearest compatible begin. */
static void end(struct tally *st, struct lane_stack *ls, const struct event *e)
{
	struct model *m = st->t->m;
	for (size_t j = ls->n; j-- > 0;) {
		struct open_span *o = &ls->s[j];
		if (o->end != INT64_MAX)
			continue;
		const struct spanstat *b = &st->spans[o->stat];
		const struct type *bt = model_type_get(m, b->type);
		if ((bt->pair && bt->pair != e->type) || (b->name && e->name && b->name != e->name))
			continue;
		while (ls->n > j + 1) {
			if (ls->s[ls->n - 1].end == INT64_MAX) {
				st->unclosed++;
				ls->n--;
			} else {
				finish(st, ls, ls->s[ls->n - 1].end);
			}
		}
		durstat_add(&st->by_type[b->type], ts_span(o->start, e->ts), 0);
		finish(st, ls, e->ts);
		return;
	}
	st->unopened++;
}

static void tally_event(struct tally *st, const struct event *e, bool counter)
{
	st->events++;
	if (UNLIKELY(counter))
		counter_sample(st, e);
	if (st->dense)
		st->dense[(size_t)e->lane * st->ntypes + e->type]++;
	else
		(*hmap_ref(&st->lane_type, (uint64_t)e->lane << 16 | e->type))++;
	if (e->flags & EVF_META)
		return;
	struct lane_stack *ls = &st->stacks[e->lane];
	close_ended(st, ls, e->ts);
	enum ev_role r = ev_role(e);
	if (r == ROLE_COMPLETE && e->dur != TTV_NODUR)
		complete(st, ls, e);
	else if (r == ROLE_BEGIN)
		push(st, ls, e, INT64_MAX);
	else if (r == ROLE_END)
		end(st, ls, e);
}

/* Spans still open at the end: those that have an end close now, the
 * rest are counted as never closed. */
static void tally_close(struct tally *st)
{
	for (uint32_t l = 0; l < model_nlanes(st->t->m); l++) {
		struct lane_stack *ls = &st->stacks[l];
		while (ls->n) {
			if (ls->s[ls->n - 1].end == INT64_MAX) {
				st->unclosed++;
				ls->n--;
			} else {
				finish(st, ls, ls->s[ls->n - 1].end);
			}
		}
		free(ls->s);
		ls->s = NULL;
	}
}

/* Add what the other thread counted (its lanes are not ours). */
static void tally_merge(struct tally *st, const struct tally *o)
{
	st->events += o->events;
	st->unclosed += o->unclosed;
	st->unopened += o->unopened;
	if (st->dense) {
		size_t nd = (size_t)(model_nlanes(st->t->m) + 1) * st->ntypes;
		for (size_t i = 0; i < nd; i++)
			if (o->dense[i]) /* (a page nothing was counted in stays untouched) */
				st->dense[i] += o->dense[i];
	} else {
		for (size_t i = 0; i < o->lane_type.cap; i++)
			if (o->lane_type.used[i])
				*hmap_ref(&st->lane_type, o->lane_type.keys[i]) += o->lane_type.vals[i];
	}
	for (uint32_t ty = 0; ty < st->ntypes; ty++)
		durstat_merge(&st->by_type[ty], &o->by_type[ty]);
	for (size_t i = 0; i < o->nspans; i++) {
		const struct spanstat *s = &o->spans[i];
		uint32_t slot = span_slot(st, s->type, s->name, s->first); /* (may move spans) */
		durstat_merge(&st->spans[slot].d, &s->d);
	}
	for (uint32_t l = 0; l < model_nlanes(st->t->m); l++)
		if (o->counters[l].n)
			st->counters[l] = o->counters[l];
}

/* ---- the walk ------------------------------------------------------------- */

#define STRETCH 65536 /* events filtered, then walked, at a time */
#define PIECE 2048     /* events decoded, then accounted, at a time */
#define RING 8         /* pieces decoded ahead (1 MB): how far the threads may drift apart */

enum { LANE_SECOND = 1, LANE_COUNTER = 2 };

struct walk {
	struct trace *t;
	struct filterset *fs;
	bool filtering;
	bool two;       /* the worker takes its part (else this thread has every lane) */
	uint8_t *lane;  /* per lane: LANE_SECOND (the worker's), LANE_COUNTER */
	uint64_t lo, n; /* the stretch */
	uint64_t pass[STRETCH / 64];
	struct event *ring[RING];
	size_t nparts;    /* walk_parts: the parts (model_parts) */
	uint8_t *part_of; /* walk_parts: per part, the thread that counts it */
	uint64_t piece_pass[2][PIECE / 64]; /* walk_parts, filtering: per thread, its piece's */
	/* per thread, on a cache line of its own: pieces decoded and tallied */
	struct progress {
		_Alignas(64) atomic_uint_fast64_t n;
	} decoded[2], tallied[2];
	struct tally part[2];
};

/* Lanes shared out by their events, the busiest first, each to the thread
 * with fewer so far. */
static int by_count_desc(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? 1 : x > y ? -1 : 0;
}

static void share_lanes(struct walk *w)
{
	struct model *m = w->t->m;
	uint32_t nl = model_nlanes(m);
	uint64_t(*c)[2] = xcalloc(nl + 1, sizeof *c), load[2] = {0, 0};
	for (uint32_t l = 0; l < nl; l++) {
		c[l][0] = model_lane_get(m, l)->count;
		c[l][1] = l;
		w->lane[l] = model_lane_get(m, l)->counter ? LANE_COUNTER : 0;
	}
	qsort(c, nl, sizeof *c, by_count_desc);
	/* when the first thread reads every piece (streams merged), the
	 * second takes twice its share of accounting */
	uint64_t heavier = model_streams(m) == 1 ? 1 : 2;
	for (uint32_t i = 0; w->two && i < nl; i++) { /* (one thread: every lane its own) */
		unsigned to = load[1] < heavier * load[0];
		load[to] += c[i][0];
		w->lane[c[i][1]] |= (uint8_t)to;
	}
	free(c);
}

/* Account the events of this thread's lanes among ev[0, n) that pass:
 * bit at + i of pass (NULL: all). */
static void tally_piece(struct walk *w, unsigned me, const struct event *ev, const uint64_t *pass, uint64_t at,
			uint64_t n)
{
	struct tally *st = &w->part[me];
	for (uint64_t i = 0; i < n; i++) {
		const struct event *e = &ev[i];
		uint8_t l = w->lane[e->lane];
		uint64_t k = at + i;
		if ((l & LANE_SECOND) == me && (!pass || pass[k / 64] >> (k % 64) & 1))
			tally_event(st, e, l & LANE_COUNTER);
	}
}

/* Wait until the other thread's count reaches n. */
static void await(const atomic_uint_fast64_t *c, uint64_t n)
{
	for (unsigned spins = 0; atomic_load_explicit(c, memory_order_acquire) < n; spins++)
		if (spins > 1000)
			sched_yield();
}

/* Each thread decodes half of every piece of the stretch into the ring
 * (or the first all of it, when reading apart costs: streams merged),
 * and accounts a piece once the other half is there too; a slot is
 * decoded again once both are done with the piece it held. */
static void walk_part(struct walk *w, unsigned me)
{
	uint64_t pieces = (w->n + PIECE - 1) / PIECE;
	bool split = model_streams(w->t->m) == 1;
	for (uint64_t k = 0; k < pieces; k++) {
		uint64_t a = k * PIECE, b = MIN(w->n, a + PIECE), mid = split ? a + (b - a) / 2 : b;
		uint64_t from = me ? mid : a, to = me ? b : mid;
		struct event *ev = w->ring[k % RING];
		if (k >= RING)
			await(&w->tallied[!me].n, k - RING + 1);
		model_read(w->t->m, w->lo + from, (size_t)(to - from), ev + (from - a));
		atomic_store_explicit(&w->decoded[me].n, k + 1, memory_order_release);
		await(&w->decoded[!me].n, k + 1);
		tally_piece(w, me, ev, w->filtering ? w->pass : NULL, a, b - a);
		atomic_store_explicit(&w->tallied[me].n, k + 1, memory_order_release);
	}
}

static void second_part(void *arg) { walk_part(arg, 1); }

static void walk_stretch(struct walk *w)
{
	for (unsigned i = 0; i < 2; i++) {
		atomic_store(&w->decoded[i].n, 0);
		atomic_store(&w->tallied[i].n, 0);
	}
	if (w->two && worker_start(second_part, w)) {
		walk_part(w, 0);
		worker_wait();
		return;
	}
	for (uint64_t a = 0; a < w->n; a += PIECE) {
		uint64_t n = MIN(PIECE, w->n - a);
		model_read(w->t->m, w->lo + a, (size_t)n, w->ring[0]);
		const uint64_t *pass = w->filtering ? w->pass : NULL;
		tally_piece(w, 0, w->ring[0], pass, a, n);
		if (w->two) /* (the worker was busy: its lanes too) */
			tally_piece(w, 1, w->ring[0], pass, a, n);
	}
}

/* Which of ev[0, n) pass the filters: into this thread's piece_pass. */
static const uint64_t *pass_piece(struct walk *w, unsigned me, const struct event *ev, size_t n)
{
	uint64_t *pass = w->piece_pass[me];
	memset(pass, 0, sizeof w->piece_pass[me]);
	for (size_t i = 0; i < n; i++) {
		trace_scan(w->t, &ev[i]);
		if (filterset_match(w->fs, w->t, &ev[i]))
			pass[i / 64] |= 1ull << (i % 64);
	}
	return pass;
}

/* When the model's parts hold whole lanes (model_parts), each thread
 * counts whole parts, read apart: what is counted is per lane, so no
 * merged order (a tournament per event among many sources) need be
 * followed, and filters decode each source in its own order (not jumping
 * from file to file).  Parts are shared out by their events, the biggest
 * first, each to the thread with fewer so far. */
static void count_parts(struct walk *w, unsigned me)
{
	struct model *m = w->t->m;
	struct release_pace pace = {0};
	for (size_t k = 0; k < w->nparts; k++) {
		if (w->part_of[k] != me)
			continue;
		uint64_t n = model_part_count(m, k);
		for (uint64_t i = 0; i < n; i += PIECE) {
			size_t got = (size_t)MIN(PIECE, n - i);
			struct event *ev = w->ring[me];
			model_part_read(m, k, i, got, ev);
			tally_piece(w, me, ev, w->filtering ? pass_piece(w, me, ev, got) : NULL, 0, got);
			trace_release_as_read(w->t, &pace, &ev[got - 1], got, i + got == n);
		}
	}
}

static void second_parts(void *arg) { count_parts(arg, 1); }

static bool walk_parts(struct walk *w)
{
	struct model *m = w->t->m;
	size_t np = w->nparts = model_parts(m);
	if (np < 2)
		return false;
	if (w->filtering && w->two)
		filterset_prepare(w->fs, w->t);
	uint64_t(*c)[2] = xcalloc(np, sizeof *c), load[2] = {0, 0};
	w->part_of = xcalloc(np, 1);
	for (size_t k = 0; k < np; k++)
		c[k][0] = model_part_count(m, k), c[k][1] = k;
	qsort(c, np, sizeof *c, by_count_desc);
	for (size_t i = 0; w->two && i < np; i++) {
		unsigned to = load[1] < load[0];
		load[to] += c[i][0];
		w->part_of[c[i][1]] = (uint8_t)to;
	}
	free(c);
	for (uint32_t l = 0; l < model_nlanes(m); l++)
		w->lane[l] = (uint8_t)((w->lane[l] & LANE_COUNTER) | w->part_of[model_lane_part(m, l)]);
	bool started = w->two && worker_start(second_parts, w);
	count_parts(w, 0);
	if (started)
		worker_wait();
	else if (w->two) /* (the worker was busy: its parts too) */
		count_parts(w, 1);
	free(w->part_of);
	return true;
}

/* Count the events the filters keep. */
static void walk(struct walk *w)
{
	struct trace *t = w->t;
	uint64_t n = model_count(t->m);
	for (w->lo = 0; w->lo < n; w->lo += STRETCH) {
		w->n = MIN(STRETCH, n - w->lo);
		/* Sequences read their records from the mapped files: let the
		 * pages go as the walk moves on, as --dump does. */
		if (w->lo)
			trace_release(t);
		if (w->filtering)
			filterset_mark(w->fs, t, w->lo, w->lo + w->n, w->lo, w->pass, NULL, NULL, 0);
		walk_stretch(w);
	}
}

/* ---- the report ----------------------------------------------------------- */

static int by_calls(const void *a, const void *b)
{
	const struct spanstat *x = a, *y = b;
	if (x->d.n != y->d.n)
		return x->d.n < y->d.n ? 1 : -1;
	if (x->d.total != y->d.total)
		return x->d.total < y->d.total ? 1 : -1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

#define STATS_TEXT_SPANS 50
#define STATS_JSON_SPANS 10000

/* The (lane, type) counts in key order (by lane, then type), the count per
 * type, and how many spans a report lists. */
struct stats_cells {
	struct cell {
		uint64_t key, count;
	} *cell;     /* a sparse table's, sorted (a dense one is read where it is: cell_next) */
	size_t ncell, ndense, nspans_shown;
	uint64_t *per_type;
	bool *same_name; /* per type: another type that has events has its name */
	struct buf *label; /* per type, as cells name it (made when first wanted: many lanes share them) */
	uint32_t ntypes;
};

/* Types that share a name (podtrace's HTTP_REQ of HTTP/2 and of HTTP/3)
 * are told apart by their category: JSON keys must differ. */
static void note_same_names(struct model *m, struct stats_cells *c)
{
	struct hmap first = {0}; /* name -> type + 1 */
	c->same_name = xcalloc(c->ntypes + 1, sizeof *c->same_name);
	for (uint32_t ty = 0; ty < c->ntypes; ty++) {
		if (!c->per_type[ty])
			continue;
		uint64_t *seen = hmap_ref(&first, model_type_get(m, ty)->name);
		if (*seen)
			c->same_name[ty] = c->same_name[*seen - 1] = true;
		else
			*seen = ty + 1;
	}
	hmap_free(&first);
}

/* A type as a lane's counts name it (JSON or text: a report is one). */
static void type_label(struct model *m, struct stats_cells *c, uint32_t ty, bool json, struct buf *b)
{
	struct buf *l = &c->label[ty];
	if (!l->len) {
		const struct type *tp = model_type_get(m, ty);
		struct buf t = {0};
		size_t n;
		const char *s = model_strget(m, tp->name, &n);
		buf_add(&t, s, n);
		if (c->same_name[ty] && tp->category) {
			s = model_strget(m, tp->category, &n);
			buf_adds(&t, " (");
			buf_add(&t, s, n);
			buf_addc(&t, ')');
		}
		(json ? esc_json : esc_term)(l, t.p, t.len);
		buf_free(&t);
	}
	buf_add(b, l->p, l->len);
}

/* The counts by lane and type in key order, from *at on: the next;
 * false after the last.  (A dense table's counts are read in place: a
 * fleet's lanes times types would be copied, 16 bytes a cell.) */
static bool cell_next(const struct tally *st, const struct stats_cells *c, size_t *at, struct cell *out)
{
	if (!st->dense) {
		if (*at >= c->ncell)
			return false;
		*out = c->cell[(*at)++];
		return true;
	}
	for (; *at < c->ndense; (*at)++)
		if (st->dense[*at]) {
			*out = (struct cell){(uint64_t)(*at / st->ntypes) << 16 | *at % st->ntypes, st->dense[*at]};
			(*at)++;
			return true;
		}
	return false;
}

static void stats_cells(const struct tally *st, bool json, struct stats_cells *c)
{
	struct model *m = st->t->m;
	c->ncell = 0;
	if (st->dense) {
		c->ndense = (size_t)(model_nlanes(m) + 1) * st->ntypes;
	} else {
		c->cell = xcalloc(st->lane_type.n + 1, sizeof *c->cell);
		for (size_t i = 0; i < st->lane_type.cap; i++)
			if (st->lane_type.used[i])
				c->cell[c->ncell++] = (struct cell){st->lane_type.keys[i], st->lane_type.vals[i]};
		qsort(c->cell, c->ncell, sizeof *c->cell, by_key);
	}
	c->ntypes = model_ntypes(m);
	c->per_type = xcalloc(c->ntypes + 1, sizeof *c->per_type);
	c->label = xcalloc(c->ntypes + 1, sizeof *c->label);
	struct cell cl;
	for (size_t at = 0; cell_next(st, c, &at, &cl);)
		c->per_type[cl.key & 0xffff] += cl.count;
	note_same_names(m, c);
	c->nspans_shown = MIN(st->nspans, json ? (size_t)STATS_JSON_SPANS : (size_t)STATS_TEXT_SPANS);
}

/* Counter tracks: samples, least, greatest, mean and last value. */
static void counters_text(const struct tally *st, struct buf *b)
{
	struct model *m = st->t->m;
	bool head = false;
	for (uint32_t l = 0; l < model_nlanes(m); l++) {
		const struct counterstat *c = &st->counters[l];
		if (!c->n)
			continue;
		if (!head)
			buf_adds(b, "\ncounters\n       samples          min          max         mean         last  lane\n");
		head = true;
		buf_printf(b, "  %12llu %12.6g %12.6g %12.6g %12.6g  ", (unsigned long long)c->n, c->min, c->max,
			   c->sum / (double)c->n, c->last);
		term_sid(b, m, lane_name(m, l));
		buf_addc(b, '\n');
	}
}

static void counters_json(const struct tally *st, struct buf *b)
{
	struct model *m = st->t->m;
	bool first = true;
	buf_adds(b, ",\"counters\":[");
	for (uint32_t l = 0; l < model_nlanes(m); l++) {
		const struct counterstat *c = &st->counters[l];
		if (!c->n)
			continue;
		buf_adds(b, first ? "{\"lane\":" : ",{\"lane\":");
		first = false;
		json_sid(b, m, lane_name(m, l));
		buf_printf(b, ",\"samples\":%llu,\"min\":", (unsigned long long)c->n);
		fmt_double(b, c->min);
		buf_adds(b, ",\"max\":");
		fmt_double(b, c->max);
		buf_adds(b, ",\"mean\":");
		fmt_double(b, c->sum / (double)c->n);
		buf_adds(b, ",\"last\":");
		fmt_double(b, c->last);
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
}

static void stats_json(const struct tally *st, struct stats_cells *c, struct buf *b, FILE *out)
{
	struct model *m = st->t->m;
	buf_printf(b, "{\"events\":%llu,\"lanes\":[", (unsigned long long)st->events);
	struct cell cl;
	uint64_t prev = UINT64_MAX; /* (the lane of the cell before) */
	for (size_t at = 0; cell_next(st, c, &at, &cl);) {
		uint32_t lane = (uint32_t)(cl.key >> 16), ty = (uint32_t)(cl.key & 0xffff);
		if (lane != prev) {
			buf_adds(b, prev != UINT64_MAX ? "}},{\"lane\":" : "{\"lane\":");
			json_sid(b, m, lane_name(m, lane));
			buf_adds(b, ",\"types\":{");
		} else {
			buf_addc(b, ',');
		}
		prev = lane;
		type_label(m, c, ty, true, b);
		buf_addc(b, ':');
		buf_u64(b, cl.count);
		out_flush(b, out, OUT_CHUNK);
	}
	buf_adds(b, prev != UINT64_MAX ? "}}],\"types\":[" : "],\"types\":[");
	bool firstt = true;
	for (uint32_t ty = 0; ty < c->ntypes; ty++) {
		if (!c->per_type[ty])
			continue;
		const struct type *tp = model_type_get(m, ty);
		buf_adds(b, firstt ? "{\"type\":" : ",{\"type\":");
		firstt = false;
		json_sid(b, m, tp->name);
		if (tp->category) {
			buf_adds(b, ",\"category\":");
			json_sid(b, m, tp->category);
		}
		buf_printf(b, ",\"count\":%llu", (unsigned long long)c->per_type[ty]);
		const struct durstat *d = &st->by_type[ty];
		if (d->n)
			buf_printf(b, ",\"dur\":{\"n\":%llu,\"total\":%llu,\"min\":%llu,\"max\":%llu}",
				   (unsigned long long)d->n, (unsigned long long)d->total,
				   (unsigned long long)d->min, (unsigned long long)d->max);
		buf_addc(b, '}');
	}
	buf_adds(b, "],\"spans\":[");
	for (size_t i = 0; i < c->nspans_shown; i++) {
		const struct spanstat *sp = &st->spans[i];
		buf_adds(b, i ? ",{\"type\":" : "{\"type\":");
		json_sid(b, m, model_type_get(m, sp->type)->name);
		buf_adds(b, ",\"name\":");
		json_sid(b, m, sp->name);
		buf_printf(b, ",\"calls\":%llu,\"total\":%llu,\"self\":%llu,\"min\":%llu,\"max\":%llu}",
			   (unsigned long long)sp->d.n, (unsigned long long)sp->d.total,
			   (unsigned long long)sp->d.self, (unsigned long long)sp->d.min,
			   (unsigned long long)sp->d.max);
		out_flush(b, out, OUT_CHUNK);
	}
	buf_printf(b, "],\"spans_not_listed\":%zu,\"unclosed\":%llu,\"unopened\":%llu",
		   st->nspans - c->nspans_shown, (unsigned long long)st->unclosed, (unsigned long long)st->unopened);
	counters_json(st, b);
	buf_adds(b, "}\n");
}

static void stats_text(const struct tally *st, struct stats_cells *c, struct buf *b, FILE *out)
{
	struct model *m = st->t->m;
	buf_printf(b, "%llu events\n\nevents by lane and type\n", (unsigned long long)st->events);
	struct cell cl;
	uint64_t prev = UINT64_MAX; /* (the lane of the cell before) */
	for (size_t at = 0; cell_next(st, c, &at, &cl);) {
		uint32_t lane = (uint32_t)(cl.key >> 16), ty = (uint32_t)(cl.key & 0xffff);
		if (lane != prev) {
			prev = lane;
			buf_adds(b, "  ");
			term_sid(b, m, lane_name(m, lane));
			buf_addc(b, '\n');
		}
		buf_adds(b, "    ");
		buf_u64_right(b, cl.count, 10);
		buf_adds(b, "  ");
		type_label(m, c, ty, false, b);
		buf_addc(b, '\n');
		out_flush(b, out, OUT_CHUNK);
	}
	buf_adds(b, "\nevents by type\n         count       total         min         max  type\n");
	for (uint32_t ty = 0; ty < c->ntypes; ty++) {
		if (!c->per_type[ty])
			continue;
		const struct durstat *d = &st->by_type[ty];
		buf_printf(b, "  %12llu", (unsigned long long)c->per_type[ty]);
		if (d->n) {
			fmt_dur_cell(b, d->total, 12);
			fmt_dur_cell(b, d->min, 12);
			fmt_dur_cell(b, d->max, 12);
		} else {
			buf_printf(b, "%36s", "");
		}
		buf_adds(b, "  ");
		const struct type *tp = model_type_get(m, ty);
		term_sid(b, m, tp->name);
		if (tp->category) {
			buf_adds(b, " (");
			term_sid(b, m, tp->category);
			buf_addc(b, ')');
		}
		buf_addc(b, '\n');
	}
	if (st->nspans) {
		buf_adds(b, "\nspans by calls (total: every call, one inside a call of the same name too; --report counts it once)\n"
			     "         calls       total        self         min         max  type  name\n");
		for (size_t i = 0; i < c->nspans_shown; i++) {
			const struct spanstat *sp = &st->spans[i];
			buf_printf(b, "  %12llu", (unsigned long long)sp->d.n);
			fmt_dur_cell(b, sp->d.total, 12);
			fmt_dur_cell(b, sp->d.self, 12);
			fmt_dur_cell(b, sp->d.min, 12);
			fmt_dur_cell(b, sp->d.max, 12);
			buf_adds(b, "  ");
			term_sid(b, m, model_type_get(m, sp->type)->name);
			buf_adds(b, "  ");
			term_sid(b, m, sp->name);
			buf_addc(b, '\n');
		}
		if (st->nspans > c->nspans_shown)
			buf_printf(b, "  ... %zu more (--stats --json lists up to %d)\n", st->nspans - c->nspans_shown,
				   STATS_JSON_SPANS);
	}
	if (st->unclosed || st->unopened)
		buf_printf(b, "\nunpaired: %llu begins never closed, %llu ends never opened\n",
			   (unsigned long long)st->unclosed, (unsigned long long)st->unopened);
	counters_text(st, b);
}

void batch_stats(struct trace *t, struct filterset *fs, bool json, FILE *out)
{
	struct model *m = t->m;
	struct walk *w = aligned_alloc(64, sizeof *w);
	if (!w)
		oom(sizeof *w);
	memset(w, 0, sizeof *w);
	w->t = t;
	w->fs = fs;
	w->filtering = filterset_active(fs);
	/* the worker decodes too: only the shared array and reentrant decoders */
	w->two = model_get_shared(m) && trace_reentrant(t);
	if (w->two)
		trace_settle(t);
	w->lane = xcalloc(model_nlanes(m) + 1, 1);
	for (unsigned i = 0; i < RING; i++)
		w->ring[i] = xcalloc(PIECE, sizeof *w->ring[i]);
	share_lanes(w);
	tally_init(&w->part[0], t);
	tally_init(&w->part[1], t);
	if (!walk_parts(w))
		walk(w);
	struct tally *st = &w->part[0];
	tally_close(st);
	tally_close(&w->part[1]);
	tally_merge(st, &w->part[1]);
	if (st->nspans) /* spans is NULL when there are none */
		qsort(st->spans, st->nspans, sizeof *st->spans, by_calls);
	struct stats_cells c = {0};
	stats_cells(st, json, &c);
	struct buf b = {0};
	if (json)
		stats_json(st, &c, &b, out);
	else
		stats_text(st, &c, &b, out);
	fwrite(buf_str(&b), 1, b.len, out);
	buf_free(&b);
	free(c.cell);
	free(c.per_type);
	free(c.same_name);
	for (uint32_t ty = 0; ty <= c.ntypes; ty++)
		buf_free(&c.label[ty]);
	free(c.label);
	tally_free(&w->part[0]);
	tally_free(&w->part[1]);
	for (unsigned i = 0; i < RING; i++)
		free(w->ring[i]);
	free(w->lane);
	free(w);
}
