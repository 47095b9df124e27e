/* model_pair.c: durations (long ones in a side table), and the pairing of
 * begins with ends per lane: stacks, snapshots to pair late events again
 * from, and the longest spans each lane keeps. */
#include "src/model_int.h"

uint32_t dur_encode(struct model *m, uint64_t d)
{
	if (d == TTV_NODUR)
		return DUR_NONE;
	if (d < DUR_LONG)
		return (uint32_t)d;
	if (m->nlong >= DUR_NONE - DUR_LONG)
		return DUR_LONG - 1; /* side table full: clamp (never happens in practice) */
	xgrow(&m->longdur, &m->caplong, m->nlong + 1, sizeof *m->longdur);
	m->longdur[m->nlong] = d;
	return DUR_LONG + (uint32_t)m->nlong++;
}

/* Keep the lane's longest spans; anything else only raises other_max. */
void note_span(struct lane_pairs *l, int64_t ts, uint64_t dur, uint64_t loc)
{
	if (!l->longest)
		l->longest = xcalloc(LONG_SPANS, sizeof *l->longest);
	struct cev c = {.loc = loc};
	struct long_span s = {ts, dur, cev_input(&c), cev_off(&c)};
	for (uint8_t i = 0; i < l->nlongest; i++)
		if (l->longest[i].ts == s.ts && l->longest[i].input == s.input && l->longest[i].off == s.off) {
			/* re-paired: drop the old entry and place it again */
			memmove(l->longest + i, l->longest + i + 1, (size_t)(l->nlongest - i - 1) * sizeof s);
			l->nlongest--;
			break;
		}
	uint8_t at = l->nlongest;
	while (at > 0 && l->longest[at - 1].dur < dur)
		at--;
	if (at == LONG_SPANS) {
		l->other_max = MAX(l->other_max, dur);
		return;
	}
	if (l->nlongest == LONG_SPANS)
		l->other_max = MAX(l->other_max, l->longest[LONG_SPANS - 1].dur);
	else
		l->nlongest++;
	memmove(l->longest + at + 1, l->longest + at, (size_t)(l->nlongest - 1 - at) * sizeof s);
	l->longest[at] = s;
}

size_t model_lane_longest(const struct model *m, uint32_t lane, const struct long_span **out, uint64_t *rest)
{
	if (lane >= m->nlanes) {
		*rest = 0;
		return 0;
	}
	*out = m->lp[lane].longest;
	*rest = m->lp[lane].other_max;
	return m->lp[lane].nlongest;
}

bool pair_compatible(const struct model *m, const struct cev *b, const struct cev *e)
{
	const struct type *bt = &m->types[cev_type(b)];
	if (bt->pair && bt->pair != cev_type(e))
		return false;
	return !b->name || !e->name || b->name == e->name;
}

static void set_dur(struct model *m, struct part *p, uint64_t i, uint64_t d)
{
	evs_set_dur(&p->store, i, dur_encode(m, d));
}

static bool cev_keyed(const struct model *m, const struct cev *c) { return m->types[cev_type(c)].keyed; }
/* A keyed end its decoder paired: its dur is the distance to its begin. */
static bool cev_hinted(const struct model *m, const struct cev *c)
{
	return (cev_flags(c) & EVF_MARK) && cev_keyed(m, c) && c->dur != DUR_NONE;
}

/* A span closed at stack entry j: what was above stays unpaired, except
 * the begins of keyed types (they wait for their own ends). */
static void stack_close(const struct model *m, const struct part *p, struct lane_pairs *l, uint32_t j)
{
	uint32_t k = j;
	for (uint32_t i = j + 1; i < l->depth; i++) {
		struct cev b = pev(p, l->stk[i]);
		if (cev_keyed(m, &b))
			l->stk[k++] = l->stk[i];
	}
	l->depth = k;
}

/* The stack entry of keyed end e's begin (-1: none): the one its dur
 * points back to, or else the latest compatible one of another input.
 * The stack holds begins in time order. */
static int64_t keyed_begin(const struct model *m, const struct part *p, const struct lane_pairs *l,
			   const struct cev *e)
{
	if (cev_hinted(m, e)) {
		int64_t t = (int64_t)((uint64_t)e->ts - dur_decode(m, e->dur));
		uint32_t lo = 0, hi = l->depth;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (evs_ts(&p->store, l->stk[mid]) < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t j = lo; j < l->depth; j++) {
			struct cev b = pev(p, l->stk[j]);
			if (b.ts != t)
				break;
			if (cev_input(&b) == cev_input(e) && pair_compatible(m, &b, e))
				return j;
		}
		return -1;
	}
	uint32_t lim = l->depth > MATCH_DEPTH ? l->depth - MATCH_DEPTH : 0;
	for (uint32_t j = l->depth; j-- > lim;) {
		struct cev b = pev(p, l->stk[j]);
		if (cev_input(&b) != cev_input(e) && pair_compatible(m, &b, e))
			return j;
	}
	return -1;
}

/* Keyed end e, at position i. */
static void pair_keyed(struct model *m, struct part *p, struct lane_pairs *l, const struct cev *e, uint64_t i)
{
	int64_t j = keyed_begin(m, p, l, e);
	if (j < 0)
		return;
	struct cev b = pev(p, l->stk[j]);
	uint64_t d = (uint64_t)e->ts - (uint64_t)b.ts;
	set_dur(m, p, l->stk[j], d);
	if (!cev_hinted(m, e))
		set_dur(m, p, i, d);
	note_span(l, b.ts, d, b.loc);
	memmove(l->stk + j, l->stk + j + 1, (l->depth - (size_t)j - 1) * sizeof *l->stk);
	l->depth--;
}

/* End e, at position i: pair it with the latest compatible begin. */
static void pair_end(struct model *m, struct part *p, struct lane_pairs *l, const struct cev *e, uint64_t i)
{
	uint32_t lim = l->depth > MATCH_DEPTH ? l->depth - MATCH_DEPTH : 0;
	for (uint32_t j = l->depth; j-- > lim;) {
		struct cev b = pev(p, l->stk[j]);
		if (!pair_compatible(m, &b, e))
			continue;
		uint64_t d = (uint64_t)e->ts - (uint64_t)b.ts; /* e comes later: exact, even for hostile times */
		set_dur(m, p, l->stk[j], d);
		set_dur(m, p, i, d);
		note_span(l, b.ts, d, b.loc);
		stack_close(m, p, l, j);
		return;
	}
}

void snap_take(struct model *m, struct part *p, uint64_t pos);

/* Event e at position i of part p paired (how: pair_range's). */
static inline void pair_one(struct model *m, struct part *p, struct lane_pairs *lp, const struct cev *e, uint64_t i,
			    enum pairing how)
{
	enum ev_role r = cev_role(e);
	if (r != ROLE_BEGIN && r != ROLE_END) {
		if (UNLIKELY(how == PAIR_AFRESH) && r == ROLE_COMPLETE && e->dur != DUR_NONE)
			note_span(&lp[cev_lane(e)], e->ts, dur_decode(m, e->dur), e->loc);
		return;
	}
	if (how != PAIR_NEW && e->dur != DUR_NONE && !cev_hinted(m, e))
		evs_set_dur(&p->store, i, DUR_NONE); /* (e's other fields stay) */
	struct lane_pairs *l = &lp[cev_lane(e)];
	if (r == ROLE_BEGIN) {
		if (l->depth < STACK_MAX) {
			xgrow(&l->stk, &l->cap, l->depth + 1, sizeof *l->stk);
			l->stk[l->depth++] = i;
		}
	} else if (UNLIKELY(cev_keyed(m, e))) {
		pair_keyed(m, p, l, e, i);
	} else {
		pair_end(m, p, l, e, i);
	}
}

/* Pair the begins and ends of part p from position from on. */
void pair_range(struct model *m, struct part *p, uint64_t from, enum pairing how)
{
	if (!p->has_pairs && how != PAIR_AFRESH)
		return; /* nothing to pair: skip the scan */
	uint64_t next = (p->nsnaps ? p->snaps[p->nsnaps - 1].pos : 0) + SNAP_EVERY, n = pcount(p);
	struct lane_pairs *lp = part_stacks(m, p);
	for (uint64_t i = from; i < n; i++) {
		if (UNLIKELY(i >= next)) { /* snapshots as we go: late events re-pair from near them */
			snap_take(m, p, i);
			next = p->snaps[p->nsnaps - 1].pos + SNAP_EVERY;
		}
		struct cev room;
		pair_one(m, p, lp, evs_peek(&p->store, i, &room), i, how);
	}
}

/* Save the stacks of p's lanes as the state before position pos.  When
 * the table is full, the older half is thinned: snapshots stay dense near
 * the end (where late events usually land) and sparse further back. */
void snap_take(struct model *m, struct part *p, uint64_t pos)
{
	uint64_t last = p->nsnaps ? p->snaps[p->nsnaps - 1].pos : 0;
	if (pos - last < SNAP_EVERY)
		return;
	if (p->nsnaps == SNAP_MAX) {
		size_t k = 0;
		for (size_t i = 0; i < SNAP_MAX; i++) {
			if (i < SNAP_MAX / 2 && i % 2) {
				free(p->snaps[i].data);
				continue;
			}
			p->snaps[k++] = p->snaps[i];
		}
		p->nsnaps = k;
	}
	struct snap *s = &p->snaps[p->nsnaps++];
	*s = (struct snap){.pos = pos};
	size_t cap = 0;
	const struct lane_pairs *lp = part_stacks(m, p);
	for (size_t li = 0; li < (p->stacks ? p->nstacks : m->clanes); li++) {
		const struct lane_pairs *l = &lp[li];
		if (!l->depth || (!p->stacks && !lane_in(m, li, p)))
			continue;
		xgrow(&s->data, &cap, s->n + 2 + l->depth, sizeof *s->data);
		s->data[s->n++] = li;
		s->data[s->n++] = l->depth;
		memcpy(s->data + s->n, l->stk, l->depth * sizeof *l->stk);
		s->n += l->depth;
	}
}

/* Snapshot s's stacks of the lanes paired again (lp.repairing: lanes[0,
 * nl)) replaced by what they are now. */
static void snap_update(struct model *m, struct snap *s, const uint32_t *lanes, size_t nl)
{
	uint64_t *data = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < s->n;) {
		size_t len = 2 + s->data[i + 1];
		if (!m->lp[s->data[i]].repairing) {
			xgrow(&data, &cap, n + len, sizeof *data);
			memcpy(data + n, s->data + i, len * sizeof *data);
			n += len;
		}
		i += len;
	}
	for (size_t k = 0; k < nl; k++) {
		const struct lane_pairs *l = &m->lp[lanes[k]];
		if (!l->depth)
			continue;
		xgrow(&data, &cap, n + 2 + l->depth, sizeof *data);
		data[n++] = lanes[k];
		data[n++] = l->depth;
		memcpy(data + n, l->stk, l->depth * sizeof *data);
		n += l->depth;
	}
	free(s->data);
	s->data = data;
	s->n = n;
}

/* Late begins or ends landed at position at of part p, on lanes[0, nl)
 * (lp.repairing): those lanes paired again from the last snapshot at or
 * before it, the snapshots after it brought up to date for them.  The
 * other lanes' pairs stand: their stacks and the snapshots followed their
 * events (hold_moved), so a fleet's late batch pairs again its own lanes,
 * not every instance's. */
static void repair_lanes(struct model *m, struct part *p, uint64_t at, const uint32_t *lanes, size_t nl)
{
	size_t j = p->nsnaps;
	while (j && p->snaps[j - 1].pos > at)
		j--;
	const struct snap *s = j ? &p->snaps[j - 1] : NULL;
	for (size_t k = 0; k < nl; k++)
		m->lp[lanes[k]].depth = 0;
	for (size_t i = 0; s && i < s->n;) {
		struct lane_pairs *l = &m->lp[s->data[i]];
		uint32_t depth = (uint32_t)s->data[i + 1];
		i += 2;
		if (l->repairing) {
			xgrow(&l->stk, &l->cap, depth, sizeof *l->stk);
			for (uint32_t d = 0; d < depth; d++) {
				l->stk[d] = s->data[i + d];
				evs_set_dur(&p->store, l->stk[d], DUR_NONE);
			}
			l->depth = depth;
		}
		i += depth;
	}
	int64_t until = INT64_MIN; /* past it, those lanes have nothing to pair */
	for (size_t k = 0; k < nl; k++)
		until = MAX(until, __atomic_load_n(&m->lp[lanes[k]].pairs_until, __ATOMIC_RELAXED));
	/* only those lanes' events are read (a fleet's late batch: one
	 * instance's lanes among every instance's events), a snapshot brought
	 * up to date before the first of them after it */
	uint64_t stop = until == INT64_MIN ? 0 : evs_time_bound(&p->store, until, true);
	struct idset set;
	idset_make(&set, lanes, nl);
	for (uint64_t i = s ? s->pos : 0; (i = evs_lanes_next(&p->store, i, stop, &set)) < stop; i++) {
		while (UNLIKELY(j < p->nsnaps && p->snaps[j].pos <= i))
			snap_update(m, &p->snaps[j++], lanes, nl);
		struct cev room;
		pair_one(m, p, m->lp, evs_peek(&p->store, i, &room), i, PAIR_AGAIN);
	}
	idset_free(&set);
	for (; j < p->nsnaps; j++) /* (at the end, or past their last events) */
		snap_update(m, &p->snaps[j], lanes, nl);
}

/* (keyed: its event read, to be found again by it; else its position
 * is moved by where the events merged went) */
static void hold(struct held **h, size_t *n, size_t *cap, const struct part *p, uint64_t *where, uint64_t old,
		 bool keyed)
{
	xgrow(h, cap, *n + 1, sizeof **h);
	uint64_t pos = *where < old ? *where : old - 1;
	(*h)[(*n)++] = (struct held){where, pos, keyed ? pev(p, pos) : (struct cev){0}, *where >= old};
}

static void hold_lanes(struct model *m, const struct part *p, uint64_t at, struct held **h, size_t *n, size_t *cap,
		       bool keyed)
{
	for (size_t li = 0; li < m->clanes; li++) {
		struct lane_pairs *l = &m->lp[li];
		const struct part *q = p ? p : m->parts[l->part];
		for (uint32_t j = 0; j < l->depth && (!p || lane_in(m, li, p)); j++)
			if (l->stk[j] >= at)
				hold(h, n, cap, q, &l->stk[j], pcount(q), keyed);
	}
}

/* Hold the open spans' positions at or after `at` on the lanes of part p
 * (NULL: of every part), each at its event, to be found again once their
 * part's events move (find_held). */
void hold_stacks(struct model *m, const struct part *p, uint64_t at, struct held **h, size_t *n, size_t *cap)
{
	hold_lanes(m, p, at, h, n, cap, true);
}

/* The held positions, found again in the store their events are in now. */
void find_held(struct held *h, size_t n, const struct evstore *st)
{
	for (size_t i = 0; i < n; i++)
		*h[i].where = evs_bound(st, &h[i].key, false) + h[i].after;
	free(h);
}

/* How many of the sorted v[0..n) are at most x. */
static size_t upto(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The held positions once na events were merged among theirs, the i-th
 * going before the event then at ins[i] (evs_merge): each moved up by
 * those that went before it. */
static void find_moved(struct held *h, size_t n, const uint64_t *ins, size_t na)
{
	for (size_t i = 0; i < n; i++)
		*h[i].where = h[i].pos + upto(ins, na, h[i].pos) + h[i].after;
	free(h);
}

/* Late events will be merged into part p at at, moving the committed
 * events at [at, old) up.  Hold every position at or after it that the
 * stacks and the snapshots keep, so that they follow their events: then
 * late events that neither begin nor end a span (a thread's samples,
 * symbols at time 0) need no re-pairing. */
static size_t hold_moved(struct model *m, struct part *p, uint64_t at, uint64_t old, struct held **h)
{
	size_t n = 0, cap = 0;
	hold_lanes(m, p, at, h, &n, &cap, false);
	for (size_t s = 0; s < p->nsnaps; s++) {
		struct snap *sn = &p->snaps[s];
		if (sn->pos < at)
			continue;
		hold(h, &n, &cap, p, &sn->pos, old, false); /* the state before an event stays before it */
		for (size_t i = 0; i < sn->n;) {
			uint64_t depth = sn->data[i + 1];
			for (uint64_t k = 0; k < depth; k++)
				if (sn->data[i + 2 + k] >= at)
					hold(h, &n, &cap, p, &sn->data[i + 2 + k], old, false);
			i += 2 + depth;
		}
	}
	return n;
}

/* Merge p's batch, sorted, before its last committed event; keep the
 * positions held in the stacks and snapshots on their events and pair
 * what changed. */
void merge_late(struct model *m, struct part *p)
{
	const struct cev *a = p->batch;
	uint64_t old = pcount(p), at = evs_bound(&p->store, &a[0], true);
	struct cev last_old = pev(p, old - 1);
	/* the first late begin or end: pairing changes from there on */
	struct cev first_pair = {0};
	bool late_pairs = false;
	for (size_t i = 0; p->kind.pairs && i < p->nbatch && cev_less(&a[i], &last_old); i++)
		if (cev_role(&a[i]) >= ROLE_BEGIN) {
			first_pair = a[i];
			late_pairs = true;
			break;
		}
	struct held *held = NULL;
	size_t nheld = hold_moved(m, p, at, old, &held);
	uint64_t *ins = xmalloc(p->nbatch * sizeof *ins);
	evs_merge(&p->store, a, p->nbatch, ins);
	find_moved(held, nheld, ins, p->nbatch);
	free(ins);
	if (!late_pairs) { /* nothing late pairs: pair what is new after the last old event */
		pair_range(m, p, evs_bound(&p->store, &last_old, false) + 1, PAIR_NEW);
		return;
	}
	/* the lanes of the batch's begins and ends (the new ones after the
	 * old end too) are paired again; the others' pairs stand */
	uint32_t *lanes = NULL;
	size_t nl = 0, cap = 0;
	for (size_t i = 0; i < p->nbatch; i++) {
		struct lane_pairs *l = &m->lp[cev_lane(&a[i])];
		if (cev_role(&a[i]) < ROLE_BEGIN || l->repairing)
			continue;
		l->repairing = true;
		xgrow(&lanes, &cap, nl + 1, sizeof *lanes);
		lanes[nl++] = cev_lane(&a[i]);
	}
	repair_lanes(m, p, evs_bound(&p->store, &first_pair, false), lanes, nl);
	for (size_t k = 0; k < nl; k++)
		m->lp[lanes[k]].repairing = false;
	free(lanes);
}
