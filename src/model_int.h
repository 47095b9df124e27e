/* The model's private parts, shared by its files: src/model.c (adding,
 * committing, piles, the streams), src/model_cursor.c (reading them in
 * order), src/model_pair.c (durations and pairing), src/model_merge.c (the
 * parts made one), src/model_saved.c (the saved index).  Nothing outside src/model*.c includes this: src/model.h is
 * the model's interface. */
#ifndef TTV_MODEL_INT_H
#define TTV_MODEL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "src/bigmem.h"
#include "src/blob.h"
#include "src/evstore.h"
#include "src/hmap.h"
#include "src/model.h"
#include "src/util.h"

/* ---- compact events ------------------------------------------------------ */

_Static_assert(TTV_OFF_LIMIT == 1ull << OFF_BITS && TTV_INPUT_LIMIT == 1u << IN_BITS, "limits match the packing");
#define DUR_NONE 0xffffffffu
#define DUR_LONG 0xf0000000u
#define MAX_LANES (1u << 24)
#define NO_EXAMPLE UINT32_MAX /* struct event.input of a type none of whose events was added */

static inline enum ev_role cev_role(const struct cev *c) { return (enum ev_role)(c->lanef & EVF_ROLE); }

/* ---- the model ----------------------------------------------------------- */

struct seqent {
	const struct seq_ops *ops;
	void *ctx;
};

/* The global order merges streams: the parts (each source's compact
 * events, in (time, place) order), then the sequences 1.. (records that
 * live elsewhere).  Ties in time go to the parts first, among them by
 * place (as one store would order them), then to the sequences in turn. */

/* Where an event lies in the global order, as one number, unique among
 * the streams' heads: its time, then its place for a part's event, or
 * for a sequence's a place after every part's, by the sequences' order.
 * NO_KEY: the key of a stream with no head. */
typedef unsigned __int128 skey;
#define NO_KEY (~(skey)0)

/* A position in that merge: idx[s] events of stream s come before `pos`.
 * Kept at hand, so that a step forward asks one stream for one event, not
 * all: each stream's count and its head's key (the event at idx[s]); a
 * tournament over the heads; and, for each part, a run of its events
 * unpacked (run[s], from runs[s].start), so that reading in order
 * unpacks each part's blocks once. */
#define CUR_RUN 64
struct cur_run {
	uint64_t start;
	uint32_t n;
	uint32_t want; /* unpacked at a time: doubled while reading on, 1 once placed */
};
/* A tournament over streams' keys: top is the stream whose key is least;
 * each match's loser is kept, so that when the winner's key changes it
 * plays only the losers on its way up. */
struct tourney {
	skey *key;      /* of each stream (NO_KEY past the last one) */
	uint32_t *lose; /* lose[1..nleaf): the loser of each match */
	uint32_t *win;  /* (room for tourney_play) */
	uint32_t top;
	size_t nleaf;
};

struct cursor {
	uint64_t pos;
	uint64_t *idx, *n;
	struct tourney t; /* over the streams' heads */
	struct cev *run; /* CUR_RUN per part */
	struct cur_run *runs;
	size_t nstreams;
	bool valid;
};

/* A reader's cursors (one thread's: readers on several threads each
 * have their own), for one model in one state (its serial and epoch):
 * a view reads where it shows, its ends and the spans around, each
 * place kept by a cursor of its own. */
#define NCURSORS 4
/* Places in the merged order every CKPT_EVERY positions (each stream's
 * index there, and the time of the event there), made by the thread that
 * reads the model most (the viewer's, model_index_step) once it holds
 * still: a cursor placed from the row below steps at most CKPT_EVERY ahead
 * instead of searching every stream some 5 to 15 times.  Kept with that
 * thread's cursors, so no other thread sees them, while the model's
 * positions hold (a commit of nothing leaves them). */
#define CKPT_EVERY 4096
#define CKPT_STREAMS 16 /* (fewer streams: a search in each costs less than the steps) */
struct ckpts {
	uint32_t *idx; /* row k: nstreams indices at position k * CKPT_EVERY */
	int64_t *ts;   /* row k: the time of the event there */
	size_t n, capidx, capts, nstreams;
	uint64_t generation, count; /* of the model they are of (positions unmoved while these hold) */
	struct cursor walk; /* making them: at row n's position or before it */
	bool done, useless; /* every row made; or none can be (a stream past 2^32) */
};

struct cursors {
	uint64_t serial, epoch;
	struct ckpts ck;
	struct cursor cur[NCURSORS];
	uint64_t used[NCURSORS]; /* when each was last used (the least recently is placed anew) */
	uint64_t clock;
	int seek_slot; /* the cursor the last model_seek placed, + 1: seeks one after another reuse it */
	uint64_t kept; /* model_keep's place + 1 (0: none): its cursor is not placed anew */
	uint64_t searches; /* searches in every stream to place cursors (model_searches) */
};

/* Pairing state saved at a position, so late events can be re-paired from
 * there instead of from the start. */
struct snap {
	uint64_t pos;
	uint64_t *data; /* lane, depth, positions... for every lane with depth > 0 */
	size_t n;
};

#define SNAP_MAX 32

/* What a batch of added events holds. */
struct batch_kind {
	bool pairs; /* begins or ends */
	bool spans; /* complete spans (with a duration) */
};

/* A batch of several parts' events grouped by part, each group sorted
 * (the main thread's work while the committer is busy): part i's are at
 * [at[i], at[i + 1]), kind[i] what they hold.  nparts: 0 when not made. */
struct grouping {
	size_t *at;
	struct batch_kind *kind;
	size_t nparts, cap;
};

/* The compact events of one source in (time, place) order, and what
 * pairs them: lanes never span sources, so each part pairs on its own,
 * and a source read after another that covers the same time appends to
 * its own part instead of rewriting the other's.  Positions in a part's
 * stacks and snapshots are the part's own. */
struct part {
	struct evstore store;
	struct snap snaps[SNAP_MAX];
	size_t nsnaps;
	bool has_pairs; /* some committed event is a begin or an end */
	/* A source's events that came late and far back (a chain of its
	 * sub-streams over a period already read: cat f f) go to piles of
	 * their own, in order, instead of rewriting what lies after them; they
	 * are merged into their home and paired once all is read
	 * (model_commit).  Piles are parts no lane names. */
	struct part **piles;
	size_t npiles, cappiles;
	struct part *home; /* (a pile's) */
	/* Lanes whose events all came late, far back (a quiet thread's batch
	 * drained late, a forked parent's stream written at its exit): their
	 * pile, which becomes a part of its own once all is read (nothing of
	 * the home rewritten or paired again for them) */
	struct part *own_pile;
	struct cev far_start; /* the first of the late events that last landed far back */
	bool far_seen;
	/* the sources' one store (model_merge_parts): what comes to it is
	 * settled at once (the sources caught up), so a pile would be merged
	 * whole at every commit: late events are merged in place */
	bool one;
	/* pairing stacks of its own, a lane_pairs for each of nstacks lanes
	 * (the one store while it is made: the parts pair on in m->lp);
	 * NULL: m->lp */
	struct lane_pairs *stacks;
	size_t nstacks;
	/* a commit's events for this part: where they lie in the batch */
	struct cev *batch;
	size_t nbatch;
	struct batch_kind kind;
};

#define SNAP_EVERY 65536
#define MATCH_DEPTH 64
#define STACK_MAX (1u << 20)

/* Room a sort works in (one per thread that sorts). */
struct sortbuf {
	struct cev *scratch;
	size_t capscratch;
	uint64_t *rkeys; /* radix_sort's keys */
	size_t caprkeys;
	struct bigmem scratch_mem, rkeys_mem;
};

/* A lane's spans: the longest seen and the pairing stack.  The committer's
 * while it runs, so apart from struct lane (which the main thread writes
 * as it adds events): the two threads never write one cache line. */
struct lane_pairs {
	/* the LONG_SPANS longest spans seen, and the longest of all others */
	struct long_span *longest;
	uint8_t nlongest;
	uint64_t other_max;
	/* pairing stack (begin positions in its part): the spans still open */
	uint64_t *stk;
	size_t cap;
	uint32_t depth;
	/* no begin or end of the lane lies later than this (saved with the
	 * index): a late batch's lanes are paired again only as far as their
	 * events go.  Written as events are added, read by the committer,
	 * which has their commit's already. */
	int64_t pairs_until;
	uint32_t part; /* its source's (or the part its own pile became) */
	bool in_home;      /* (the committer's) some event of it is in its part */
	bool repairing;    /* (the committer's) late begins or ends came to it: paired again */
	struct part *own;  /* (the committer's) the own pile its events go to */
	uint64_t *open; /* model_lane_open's answer: stk's global positions */
	size_t capopen;
};

struct type_seen {
	struct event ex; /* .input NO_EXAMPLE: none yet */
	uint64_t count;
};

struct model {
	struct strtab *st;

	struct lane *lanes;
	size_t nlanes, caplanes;
	struct lane_pairs *lp; /* by lane, as lanes */
	size_t caplp;
	uint64_t lane_renames; /* views that measured names measure again */
	struct hmap raw_names;  /* a name shown (demangled) -> the name as written */
	uint32_t *lane_slot; /* hash (source, key) -> lane id + 1 */
	size_t nlane_slot;

	struct type *types;
	size_t ntypes, captypes;
	uint32_t *type_slot; /* hash of the type's identity -> type id + 1 */
	size_t ntype_slot;
	/* by type: the first event of it added (model_examples), and how many
	 * of its events the compact array holds (model_type_count) */
	struct type_seen *seen;
	size_t capseen;

	struct part **parts; /* committed: [0] made first, then one per source after the first, and piles */
	size_t nparts, capparts;
	struct merging *merging; /* model_merge_step's, under way */
	struct part **newpiles; /* piles the committer made, added to parts when it is done */
	size_t nnewpiles, capnewpiles;
	/* the lanes and parts the committer sees (those made before its batch
	 * was sealed: later ones are made meanwhile, in room kept for them) */
	size_t clanes, cparts;
	uint64_t ncompact; /* events in the parts (set as commits end: model_count asks often) */
	uint32_t *source_part; /* source id -> part + 1 (0: none yet) */
	size_t capsource_part;
	bool part0_given; /* to the first source */
	struct cev *pend;     /* added, not yet committed */
	size_t npend, cappend;
	struct bigmem pend_mem; /* where pend lives */
	/* model_commit_some(): pend, sorted, is merged, paired and packed on
	 * another thread meanwhile (the committer), which then owns the store,
	 * the pairing state (lanes' stacks and long spans, snapshots), the long
	 * durations and the cursors; what is added in that time waits in next.
	 * Anything else that would touch those, or grow the lane or type
	 * tables, waits for it first (finish_commit). */
	pthread_t commit_thread;
	bool committing;
	struct batch_kind sealed; /* what the events being committed hold */
	struct cev *next;
	size_t nnext, capnext;
	struct bigmem next_mem;
	struct sortbuf sort_main, sort_committer; /* each thread's room to sort in */
	_Atomic bool commit_done; /* the committer has finished its batch */
	bool sealed_sorted;       /* the batch it was given is sorted already */
	struct grouping next_by_part, pend_by_part; /* next's (and then pend's) grouping, if made */
	uint64_t *longdur;
	size_t nlong, caplong;
	uint64_t reach_seen; /* the store's reach after the last commit (model_late_reach) */

	bool have_span;
	int64_t first, last;
	struct batch_kind tail; /* what the events added since the last commit hold */

	struct seqent *seqs; /* [0] stands for the parts */
	size_t nseqs, capseqs;
	uint64_t epoch; /* changes whenever cursors placed before are stale */
	struct bigmem restored; /* a saved index's pools, lent to the parts */

	uint64_t generation;
	uint64_t changed_from; /* lowest position changed since model_take_changed() */
	uint64_t serial;       /* model_serial() */
};

/* ---- shared helpers -------------------------------------------------------- */

static inline uint64_t pcount(const struct part *p) { return evs_count(&p->store); }
static inline struct cev pev(const struct part *p, uint64_t i)
{
	struct cev c;
	evs_get(&p->store, i, &c);
	return c;
}

/* Compact events in the first n parts. */
static inline uint64_t nev_in(const struct model *m, size_t n)
{
	uint64_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += pcount(m->parts[i]);
	return k;
}

static inline uint64_t nev(const struct model *m) { return m->ncompact; }

static inline bool lane_in(const struct model *m, size_t lane, const struct part *p)
{
	return m->parts[m->lp[lane].part] == p;
}

/* The stacks part p pairs in. */
static inline struct lane_pairs *part_stacks(const struct model *m, const struct part *p)
{
	return p->stacks ? p->stacks : m->lp;
}

static inline uint64_t dur_decode(const struct model *m, uint32_t v)
{
	if (v == DUR_NONE)
		return TTV_NODUR;
	if (v >= DUR_LONG) /* (checked: a saved index's durations are not trusted) */
		return v - DUR_LONG < m->nlong ? m->longdur[v - DUR_LONG] : TTV_NODUR;
	return v;
}

/* How pair_range pairs: events new since the last time; again, after late
 * events came (what they were paired with is let go); or afresh, noting
 * complete spans too (every lane's long spans were forgotten). */
enum pairing { PAIR_NEW, PAIR_AGAIN, PAIR_AFRESH };

/* A position in the pairing stacks or the snapshots that late events will
 * move: the event it names, to find it again after the merge. */
struct held {
	uint64_t *where;
	uint64_t pos; /* key's position, before the move */
	struct cev key;
	bool after; /* the position just after key (a snapshot at the old end) */
};

/* ---- tournaments ------------------------------------------------------------ */

static inline void tourney_init(struct tourney *t, size_t n)
{
	for (t->nleaf = 1; t->nleaf < n; t->nleaf *= 2)
		;
	t->key = xcalloc(t->nleaf, sizeof *t->key);
	for (size_t i = n; i < t->nleaf; i++)
		t->key[i] = NO_KEY;
	t->lose = xcalloc(t->nleaf, sizeof *t->lose);
	t->win = xcalloc(2 * t->nleaf, sizeof *t->win);
}

static inline void tourney_free(struct tourney *t)
{
	free(t->key);
	free(t->lose);
	free(t->win);
	*t = (struct tourney){0};
}

/* Every match played from the start. */
static inline void tourney_play(struct tourney *t)
{
	uint32_t *win = t->win;
	for (size_t i = 0; i < t->nleaf; i++)
		win[t->nleaf + i] = (uint32_t)i;
	for (size_t i = t->nleaf; i-- > 1;) {
		uint32_t a = win[2 * i], b = win[2 * i + 1];
		bool ba = t->key[b] < t->key[a];
		win[i] = ba ? b : a;
		t->lose[i] = ba ? a : b;
	}
	t->top = win[1];
}

/* The winner's key changed: it plays the losers on its way up (without
 * branches: who wins is a coin toss when streams interleave finely). */
static inline void tourney_replay(struct tourney *t)
{
	uint32_t w = t->top;
	skey kw = t->key[w];
	for (size_t i = (t->nleaf + w) / 2; i; i /= 2) {
		uint32_t l = t->lose[i];
		skey kl = t->key[l];
		bool lw = kl < kw;
		t->lose[i] = lw ? w : l;
		w = lw ? l : w;
		kw = lw ? kl : kw;
	}
	t->top = w;
}

/* model_merge.c's (merge_stores: the parts merged are read once and
 * freed after, their pages given back as they are read) */
void merge_stores(struct model *m, struct part *const *ps, size_t k, struct part *into, bool pairing);
void merging_end(struct model *m);

/* model_pair.c's */
uint32_t dur_encode(struct model *m, uint64_t d);
void note_span(struct lane_pairs *l, int64_t ts, uint64_t dur, uint64_t loc);
bool pair_compatible(const struct model *m, const struct cev *b, const struct cev *e);
void pair_range(struct model *m, struct part *p, uint64_t from, enum pairing how);
void snap_take(struct model *m, struct part *p, uint64_t pos);
void hold_stacks(struct model *m, const struct part *p, uint64_t at, struct held **h, size_t *n, size_t *cap);
void find_held(struct held *h, size_t n, const struct evstore *st);
void merge_late(struct model *m, struct part *p);

/* model.c's, for the other files */
void part_free(struct part *p);
void add_part(struct model *m);
uint32_t source_part(struct model *m, uint32_t source);
void finish_commit(struct model *m);
void lanes_at_home(struct model *m);
void piles_settle(struct model *m);
void sources_in_one(struct model *m);

/* model.c's helpers that model_cursor.c reads the streams with */
/* A compact event's loc: its input, offset and type (the order of events at one time). */
static inline uint64_t loc_of(uint32_t input, uint64_t off, uint32_t type)
{
	return (uint64_t)(input & ((1u << IN_BITS) - 1)) << (OFF_BITS + TYPE_BITS) |
	       (off & ((1ull << OFF_BITS) - 1)) << TYPE_BITS | type;
}

static inline void cev_event(const struct model *m, const struct cev *c, struct event *e)
{
	e->ts = c->ts;
	e->dur = dur_decode(m, c->dur);
	e->lane = cev_lane(c);
	e->type = cev_type(c);
	e->name = c->name;
	e->flags = cev_flags(c);
	e->input = cev_input(c);
	e->off = cev_off(c);
}

#define SEQ(m, s, op, ...) ((m)->seqs[s].ops->op((m)->seqs[s].ctx, ##__VA_ARGS__))

static inline size_t nstreams(const struct model *m) { return m->nparts + m->nseqs - 1; }
static inline bool is_part(const struct model *m, size_t s) { return s < m->nparts; }
/* (the sequence of stream s, when it is not a part) */
static inline size_t stream_seq(const struct model *m, size_t s) { return s - m->nparts + 1; }
uint64_t stream_count(const struct model *m, size_t s);
int64_t stream_ts(const struct model *m, size_t s, uint64_t i);
/* First event of stream s whose time is not before t (upper: after t). */
uint64_t stream_bound(const struct model *m, size_t s, int64_t t, bool upper);
/* This thread's cursors over m let go (model_free). */
void cursors_let_go(const struct model *m);

#endif
