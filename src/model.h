/* The timeline model: lanes, event types, interned strings and events in
 * time order.
 *
 * Events from streaming decoders are stored compactly (time, where the
 * record's bytes are, duration, lane, type, one interned string, flags;
 * packed in blocks to 10-13 bytes each, src/evstore.h), each source's in a
 * *part* of its own sorted by (time, input, offset): sources that cover the
 * same time (the instances of a fleet, read one after another) each append
 * to their own part instead of rewriting another's.  Fields are never
 * stored: they are decoded lazily from the record's bytes when shown.
 *
 * Formats whose records are fixed-size and already on disk (ATF index files)
 * are not copied: a decoder registers them as a *sequence* (see seq_ops),
 * and the model merges the parts and every sequence into one global time
 * order (by time, then the parts' events by input and offset, then the
 * sequences' in turn), addressed by position 0..count-1.
 *
 * Spans: an event is an instant, a complete span (it carries its own
 * duration), or the begin or end of a span.  Begin/end events are paired per
 * lane (so within its part) with a stack in time order (or as their decoder says: struct
 * type.keyed); the pair's duration is stored on both, so either end finds
 * the other by seeking in time.  What does not pair keeps
 * no duration and is flagged as unpaired, never hidden. */
#ifndef TTV_MODEL_H
#define TTV_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/strtab.h"

#define TTV_NODUR UINT64_MAX
/* What a compact event can address: byte offsets below 64 GiB, 4096 inputs. */
#define TTV_OFF_LIMIT (1ull << 36)
#define TTV_INPUT_LIMIT 4096u

enum ev_role { ROLE_INSTANT = 0, ROLE_COMPLETE = 1, ROLE_BEGIN = 2, ROLE_END = 3 };

enum ev_flag {
	EVF_ROLE = 3,         /* mask for enum ev_role */
	EVF_NO_TS = 1 << 2,   /* the record had no time; placed at the time of the record before it */
	EVF_META = 1 << 3,    /* metadata (schemas, symbols): listed, not part of the time span */
	EVF_COPY = 1 << 4,    /* a duplicate the writer emitted (ATF detail-lane copy) */
	EVF_LINK = 1 << 5,    /* has a linked record (ATF detail) */
	EVF_DAMAGED = 1 << 6, /* decoded, but something in it did not resolve */
	EVF_MARK = 1 << 7,    /* spare bit for decoders (meaning given by the decoder) */
};

/* An event as views, writers and decoders see it. */
struct event {
	int64_t ts;      /* ns */
	uint64_t dur;    /* ns, TTV_NODUR when none (unpaired begin/end, instant) */
	uint32_t lane;   /* model lane id */
	uint32_t type;   /* model type id */
	uint32_t name;   /* interned principal string (function, label, target), 0 = none */
	uint32_t flags;  /* enum ev_flag */
	uint32_t input;  /* input id: whose bytes these are */
	uint32_t seq;    /* 0 = the compact array, else the sequence that holds it */
	uint64_t off;    /* byte offset of the record in its input (a sequence's records too) */
	uint64_t pos;    /* global position in time order (set by model_get) */
};

static inline enum ev_role ev_role(const struct event *e) { return (enum ev_role)(e->flags & EVF_ROLE); }

/* Where an event lies in the trace's order: its time, then its position,
 * or when parts are read apart (model_part_read: no position), as the
 * merged order has them at one time: a part's by input and offset (then
 * by type), after them a sequence's by sequence and record. */
typedef unsigned __int128 place_t;
static inline place_t event_place(const struct event *e)
{
	uint64_t at = e->pos != UINT64_MAX ? e->pos
		      : e->seq	       ? 1ull << 63 | (uint64_t)e->seq << 40 | e->off
				       : (uint64_t)e->input << 40 | e->off;
	return (place_t)((uint64_t)e->ts ^ (1ull << 63)) << 64 | at;
}

struct lane {
	uint32_t name;   /* interned display name */
	uint32_t source; /* source id (which PATH it came from) */
	uint64_t key;    /* decoder's key (pid, thread id, worker id ...) */
	uint64_t count;  /* events on this lane */
	int64_t first, last; /* time span of its timeline events (valid when has_span) */
	bool has_span;
	/* (its spans: model_lane_longest, model_lane_open) */
	/* a counter track: its events are samples of one number (the field
	 * its type's value_field names), drawn as a value row */
	bool counter;
};

struct type {
	uint32_t name;       /* interned type name ("DNS", "CALL", "PollStartEvent") */
	uint32_t category;   /* interned category ("NET", "FS") or 0 */
	uint32_t name_field; /* interned name of the field that event.name holds ("target") or 0 */
	uint32_t pair;       /* for begin types: the end type that closes it (0 = any end) */
	uint32_t source;
	uint8_t role;        /* default role of its events */
	const void *owner;   /* decoder that made it (types are per decoder) */
	uint32_t value_field; /* samples of a counter track: the interned name of the field with the value, or 0 */
	/* Begins and ends the decoder pairs on a key the model does not keep
	 * (dial9 span ids): an end flagged EVF_MARK carries in dur the distance
	 * back to its begin; an end without it pairs with a begin of another
	 * input (one its decoder did not see).  Either takes its begin out of
	 * the lane's stack wherever it is, and other spans closing over such
	 * a begin leave it open. */
	bool keyed;
	/* Its spans are operations side by side, not calls within calls
	 * (podtrace's, a syscall capture's): the call tree groups them by
	 * type, then by name, instead of nesting them by time. */
	bool grouped;
};

/* The longest spans of a lane, so a view can draw spans that began long
 * before its window without scanning back to them. */
#define LONG_SPANS 8
struct long_span {
	int64_t ts;
	uint64_t dur;
	uint32_t input;
	uint64_t off; /* identity, to check it still holds (spans re-pair when late events land) */
};

/* A sequence: records that live elsewhere (mapped files) in time order. */
struct seq_ops {
	uint64_t (*count)(void *ctx);
	int64_t (*ts)(void *ctx, uint64_t i);
	/* first i with ts(i) >= t, and first i with ts(i) > t */
	uint64_t (*lower)(void *ctx, int64_t t);
	uint64_t (*upper)(void *ctx, int64_t t);
	/* fill everything but pos and seq */
	void (*get)(void *ctx, uint64_t i, struct event *e);
	/* optional: the position (in this sequence) of the span partner of i */
	bool (*partner)(void *ctx, uint64_t i, uint64_t *j);
	/* optional: the lane all its events are on, known without reading
	 * one (a lane's records in a file of their own) */
	uint32_t (*lane)(void *ctx);
};

struct model;

struct model *model_new(void);
void model_free(struct model *m);
struct strtab *model_strings(struct model *m);
uint32_t model_str(struct model *m, const void *p, size_t n);
const char *model_strget(const struct model *m, uint32_t id, size_t *len);

/* Lanes: found or created by (source, key). */
uint32_t model_lane(struct model *m, uint32_t source, uint64_t key, uint32_t name);
void model_lane_rename(struct model *m, uint32_t lane, uint32_t name);
/* Make a lane a counter track (struct lane.counter). */
void model_lane_set_counter(struct model *m, uint32_t lane);
/* How many renames so far (a view that measured lane names looks again). */
uint64_t model_lane_renames(const struct model *m);
uint32_t model_nlanes(const struct model *m);
/* A name shown in place of the one written (a demangled function name for
 * its symbol): model_name_raw() gives the written one back (or `shown`
 * itself), for a view that shows names as written. */
void model_name_alias(struct model *m, uint32_t shown, uint32_t raw);
uint32_t model_name_raw(const struct model *m, uint32_t shown);
const struct lane *model_lane_get(const struct model *m, uint32_t lane);
/* For lanes of sequences: add n events spanning [first, last]. */
void model_lane_count(struct model *m, uint32_t lane, uint64_t n, int64_t first, int64_t last);
/* ... and take n away again (a file of the sequence is read anew). */
void model_lane_uncount(struct model *m, uint32_t lane, uint64_t n);

/* Types: found or created by (owner, source, name, category, role). */
uint32_t model_type(struct model *m, const struct type *t);
uint32_t model_ntypes(const struct model *m);
const struct type *model_type_get(const struct model *m, uint32_t type);

/* Add an event to the compact array (any order); model_commit() sorts what
 * was added, merges it into place and pairs spans.  Events added but not yet
 * committed are not visible.  (Chains of a source's events that came late
 * and far back, its sub-streams over a period already read, wait in piles
 * of their own, read in order but not paired, until model_commit(): it
 * merges and pairs them once, where each batch would have rewritten what
 * lay after it.) */
void model_add(struct model *m, const struct event *e);
void model_commit(struct model *m);
/* The same in a pipeline (a loader's batches; piles wait): the pending
 * events are sorted, then merged, paired and packed on another thread
 * while more are added, until the next commit (any call that reads the committed events,
 * or model_commit(), waits for it). */
void model_commit_some(struct model *m);
/* Wait for the commit under way, if any: the model can be read again; the
 * events still pending stay out of it until the next commit. */
void model_sync(struct model *m);
/* Everything is committed and nothing more will be added (the sources
 * read to their ends, not followed): every event packed (evs_seal_step),
 * in steps until now_ns() passes deadline.  True while some are left. */
bool model_seal(struct model *m, uint64_t deadline);
/* Events added and waiting for a commit (not those being committed). */
uint64_t model_pending(const struct model *m);
/* How far back (in events from the newest) late events landed lately:
 * each commit of late events costs about that much. */
uint64_t model_late_reach(const struct model *m);

/* The parts read apart, for what is counted per lane: each part holds
 * whole lanes (a source's), each lane's events in time order, so no
 * merged order need be followed.  Sequences count as parts after the
 * parts (model_lane_part names no sequence: their reading is not shared
 * between threads).  model_parts() is 0 when that does not hold (piles
 * waiting, a sequence's lane with other events); events read have pos
 * UINT64_MAX. */
size_t model_parts(const struct model *m);
uint64_t model_part_count(const struct model *m, size_t k);
uint32_t model_lane_part(const struct model *m, uint32_t lane);
void model_part_read(const struct model *m, size_t k, uint64_t i, size_t n, struct event *e);
/* The first event of part k at or after time t (upper: after it). */
uint64_t model_part_bound(const struct model *m, size_t k, int64_t t, bool upper);
/* Where event e, read from part k, lies in the merged order: what the
 * merged order compares (exact, where event_place is not: merging what
 * was read apart gives the merged order). */
place_t model_part_place(const struct model *m, size_t k, const struct event *e);

/* Every source's events in one store from now on (once all are read or
 * caught up): what a position costs to find then no longer grows with the
 * number of sources.  Nothing's position changes.  model_merge_parts()
 * does it at once, for sources that go on growing (it pairs the store
 * as it fills, so that their late batches pair again from near where
 * they land); model_merge_step()
 * merges for about budget_ns at a time (the parts are read as they are
 * meanwhile; events committed meanwhile make it start again): true while
 * there is more to do. */
void model_merge_parts(struct model *m);
/* Among many streams, places in their merged order noted every few
 * thousand events, for about budget_ns at a time (true while there is
 * more): cursors this thread places later start from the nearest, not
 * from a search in every stream.  For the thread that reads most (the
 * viewer's); made again after the model changes. */
bool model_index_step(struct model *m, uint64_t budget_ns);
bool model_merge_step(struct model *m, uint64_t budget_ns);
bool model_merging(const struct model *m);
/* Are there parts to make one (or is it under way)? */
bool model_merge_wanted(const struct model *m);

/* Remove every event of an input (its file was truncated: the bytes they
 * point at are gone).  Returns how many were removed. */
uint64_t model_drop_input(struct model *m, uint32_t input);

/* Register a sequence; returns its id (>= 1).  Call model_seq_changed()
 * when its records change (a growing file). */
uint32_t model_add_seq(struct model *m, const struct seq_ops *ops, void *ctx);
void model_seq_changed(struct model *m);

/* The global time order. */
uint64_t model_count(const struct model *m);
void model_get(struct model *m, uint64_t pos, struct event *e);
/* Events [pos, pos + n) into e[0..n), as model_get() on each: for readers
 * that go in order (n at most what is left). */
void model_read(struct model *m, uint64_t pos, size_t n, struct event *e);
int64_t model_ts(struct model *m, uint64_t pos);
/* The first position in [pos, end) whose event is on one of the lanes of
 * the set (src/util.h), else end (at most the count); the last in [begin,
 * pos), else UINT64_MAX.  Cheap for a few lanes among many (the store
 * passes over blocks without them); else every event is read. */
struct idset;
uint64_t model_lanes_next(struct model *m, const struct idset *lanes, uint64_t pos, uint64_t end);
uint64_t model_lanes_prev(struct model *m, const struct idset *lanes, uint64_t pos, uint64_t begin);
/* First position whose time is >= t (count when none). */
uint64_t model_seek(struct model *m, int64_t t);
/* A place this thread reads again and again (a view's selection): a
 * cursor there stays while other reads and seeks come and go (among many
 * parts placing one anew is a search in each). */
void model_keep(struct model *m, uint64_t pos);
/* How many searches in every stream this thread's cursors over m made to
 * place themselves at positions (tests: a kept place needs none, a place
 * is found in few). */
uint64_t model_searches(const struct model *m);
/* Position of the event with this time whose bytes are (input, off): how
 * views find an event again after late events moved it. */
bool model_find(struct model *m, int64_t ts, uint32_t input, uint64_t off, uint64_t *pos);
/* Global position of record j (in the sequence's own time order) of
 * sequence seq: how a decoder's link (ATF detail -> index) becomes a place
 * in the timeline. */
uint64_t model_seq_pos(struct model *m, uint32_t seq, uint64_t j);
/* Position of the other end of a span (begin <-> end). */
bool model_partner(struct model *m, uint64_t pos, uint64_t *other);
/* The other end itself, for readers that go in order: its pos is left
 * UINT64_MAX when finding it would cost more than the rest (the order
 * merges several sources: model_partner finds it). */
bool model_partner_event(struct model *m, uint64_t pos, struct event *o);
/* The longest spans of a lane (at most LONG_SPANS, longest first) and, in
 * *rest, a bound on the duration of every other span of the lane
 * (UINT64_MAX for a lane of sequences: their spans are not looked at). */
size_t model_lane_longest(const struct model *m, uint32_t lane, const struct long_span **out, uint64_t *rest);
/* Begins of a lane that no end has closed yet (positions). */
size_t model_lane_open(struct model *m, uint32_t lane, const uint64_t **pos);
/* Time span of the timeline events (metadata excluded); false when empty. */
bool model_span(const struct model *m, int64_t *first, int64_t *last);
/* May model_get() run on several threads at once (while nothing is added)?
 * Not with sequences: their own reading may not be shared. */
bool model_get_shared(const struct model *m);
/* How many streams the order is merged from (one store: 1; else its parts
 * and sequences): a seek by time searches each of them, and reading from
 * a position costs more than what is read (a reader steps over what lies
 * between its reads: threads that each read every other run of events
 * step over all of them). */
size_t model_streams(const struct model *m);
/* How many times the event order changed behind already committed
 * positions (late events merged in); views use it to re-find their place. */
uint64_t model_generation(const struct model *m);
/* Unique among the models of the process (never reused): what a cache
 * keyed by string ids keeps beside them. */
uint64_t model_serial(const struct model *m);
/* Events whose fields name every field the trace's events have (a
 * decoder gives the events of one type the same fields): the first event
 * added of each type, and the first record of each sequence.  fn is called
 * for each (pos is not set). */
void model_examples(struct model *m, void (*fn)(void *ctx, const struct event *e), void *ctx);
/* How many events of a type were added (not counting sequences' records). */
uint64_t model_type_count(const struct model *m, uint32_t type);
/* Are a type's events metadata (its first is EVF_META)? */
bool model_type_meta(const struct model *m, uint32_t type);
/* The lowest position whose event changed (added, moved, dropped) since
 * the last call; model_count() when none did.  For following in batch. */
uint64_t model_take_changed(struct model *m);

/* The saved index (src/saved.h).  model_savable(): the model can be saved
 * (everything committed).  Sequences are not saved: the decoders that
 * registered them do so again when they open the same files, in the same
 * order, and restore what they hold.  model_save() writes all but the
 * events' pools (one per source), whose bytes model_pool() gives (saved one
 * after another, as one), and the strings, written
 * apart into `strings` (strtab_save); types name their owner by its index
 * in owners[].  model_restore() reads it back into a model that holds only
 * what the same decoders' open() made, taking over the mapped pool and
 * strings; everything is checked against what exists (ids, positions, the
 * pool's size).  False: the model is unusable (free it). */
struct buf;
struct blob;
struct bigmem;
bool model_savable(struct model *m);
void model_save(const struct model *m, struct buf *out, struct buf *strings, const void *const *owners,
		size_t nowners);
size_t model_npools(const struct model *m);
const uint8_t *model_pool(const struct model *m, size_t i, size_t *n);
bool model_restore(struct model *m, struct blob *r, struct bigmem *pool, size_t npool, struct bigmem *strings,
		   size_t nstrings, uint64_t nsources, uint64_t ninputs, const void *const *owners, size_t nowners);

#endif
