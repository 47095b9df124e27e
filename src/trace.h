/* A trace: the sources named on the command line, their inputs, the model
 * they feed, and the loader that drives decoding in bounded slices. */
#ifndef TTV_TRACE_H
#define TTV_TRACE_H

#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "src/fields.h"
#include "src/input.h"
#include "src/model.h"
#include "src/util.h"

struct decoder;

/* Damage found while decoding: where and what.  A source's list is kept
 * by file and offset (how much each slice read must not change the order
 * it is shown in); `found` numbers them in the order they were found. */
struct damage {
	char *path;  /* the file */
	uint64_t off;
	bool has_off;
	char *msg;
	bool fatal; /* decoding of that input stopped there */
	bool has_ts; /* its place on the timeline: after the last event before it */
	int64_t ts;
	size_t found; /* the source's ndmg when it was found */
};

/* One PATH argument. */
struct source {
	uint32_t id;
	char *path;
	char *given; /* the PATH it was opened from; NULL: a directory decoder made it */
	struct trace *trace;
	const struct decoder *dec; /* NULL until probed */
	void *dstate;              /* directory decoders: state of the whole source */
	struct input **inputs;
	size_t ninputs, capinputs;
	struct damage *dmg;
	size_t ndmg, capdmg;
	uint64_t dmg_dropped; /* damage beyond what is kept (hostile input can make millions) */
	char *error; /* set when nothing of it could be read */
	uint64_t retry_at; /* tcp: when to try to connect again (following) */
	bool live;         /* tcp: a connection is open */
	/* --align: every time of this source is shifted by `shift` ns (its
	 * first event goes to 0).  Until the first slice has shown where it
	 * starts, its events wait in `held` (and sequence lane counts in
	 * `held_counts`); from then on the shift is applied as they come. */
	enum { ALIGN_NONE, ALIGN_WAIT, ALIGN_SET } align;
	int64_t shift;
	struct event *held;
	size_t nheld, capheld;
	struct held_count *held_counts;
	size_t nheld_counts, capheld_counts;
	/* its clock's zero in wall-clock ns (wall - ts of dec_clock_anchor) */
	bool has_boot;
	int64_t boot_ns;
};

struct held_count {
	uint32_t lane;
	uint64_t n;
	int64_t first, last;
};

struct trace {
	struct model *m;
	struct source **src;
	size_t nsrc, capsrc;
	uint32_t nsrc_first; /* the sources of the first PATH given: A, when the first is compared with the rest */
	struct input **in; /* every input, indexed by input id */
	size_t nin, capin;
	const char *format; /* --format: skip probing */
	bool follow;        /* inputs are never final */
	bool one_store;     /* once all is read (or caught up), the sources' parts become one (a viewer jumps about) */
	bool align;         /* --align: sources opened from now on start at time 0 */
	struct seq_shift **seqs; /* sequences registered through dec_add_seq (--align) */
	size_t nseqs, capseqs;
	size_t slice;       /* bytes handed to a decoder per call */
	uint8_t *chunk;     /* the bytes of a file handed to a decoder (COPY_CHUNK) */
	/* the bench's "decoder alone" (t/decodeonly.c): events are counted in
	 * `decoded`, not added to the model */
	bool decode_only;
	uint64_t decoded;
	/* following: what changed on disk, told to the user */
	int watch;          /* inotify fd, -1 without one */
	uint64_t last_check; /* when every input was last looked at (ns) */
	char notice[512];
	uint64_t notices;   /* bumped with each new notice */
	struct save_job *saving; /* trace_save_begin()'s, being written */
	uint64_t saved_bytes;    /* what the inputs had consumed when a save began (the same: not again) */
	bool restored;      /* loaded from a saved index */
	bool restored_grew; /* ... and read on: its files grew since */
	uint64_t restored_bytes; /* what its inputs had consumed (more: the index is saved again) */
	char *save_error;   /* why the index could not be saved */
	bool save_error_said;
};

void trace_init(struct trace *t);
void trace_free(struct trace *t);
/* Add a source for PATH; on failure the source has `error` set. */
struct source *trace_open(struct trace *t, const char *path);
/* Decode for about budget_ns; true while work remains.  A step of no time
 * (the first screen's) does not begin making the sources' one store. */
bool trace_step(struct trace *t, uint64_t budget_ns, bool wait);
/* Decode everything (batch mode). */
void trace_load_all(struct trace *t);
/* The saved index (src/saved.h).  trace_restore(): right after every
 * trace_open(), take back what the last run that loaded the same files
 * saved (true: everything is loaded, but what they grew by since, which
 * loading reads on); false: nothing was, load as usual.
 * trace_save(): once everything is loaded, save it for the next run (when
 * the trace is big enough to be worth it).  The viewer saves while it is
 * used: trace_save_begin() gathers what the model says and writes it on a
 * thread of its own (the events change only when loading goes on, and
 * trace_step() waits for it first); trace_save_end() waits for it, or
 * (give_up) stops it, leaving nothing behind. */
bool trace_restore(struct trace *t);
void trace_save(struct trace *t);
void trace_save_begin(struct trace *t);
void trace_save_end(struct trace *t, bool give_up);
/* Is no save being written now (one that ended is waited for)? */
bool trace_save_poll(struct trace *t);
/* A save that failed is said once (save_error_said): here, on f, unless
 * the viewer said it already. */
void trace_save_tell(struct trace *t, FILE *f);
/* Is there damage in any source?  Could anything be read at all? */
bool trace_damaged(const struct trace *t);
bool trace_any_readable(const struct trace *t);
/* A source's damage found `found`-th (0: the first), NULL if not kept. */
const struct damage *source_damage_found(const struct source *src, size_t found);

/* Print every error and damage to stderr as `ttv: FILE: offset N: msg`. */
void trace_report(const struct trace *t);
/* Following growing files.  trace_watch() watches every input and
 * directory (inotify, where there is one); the caller polls what
 * trace_poll_fds() gives (the watch, pipes, sockets), then calls
 * trace_check(), which notices truncation (the input's events are dropped
 * and it is read again), replacement (rotation: the new file is read as a
 * new input, the old one's events stay), deletion, new files in directory
 * sources and lost connections, and leaves a notice for each. */
void trace_watch(struct trace *t);
int trace_watch_fd(const struct trace *t);
/* What to poll while following: the watch and the streams' fds (POLLIN). */
size_t trace_poll_fds(const struct trace *t, struct pollfd *p, size_t max);
/* True when something changed (decode with trace_step). */
bool trace_check(struct trace *t, bool woken);
/* A trace file shrank under a mapping (SIGBUS).  Code that can carry on
 * (the viewer's loop, --dump -f) does sigsetjmp(trace_bus_jmp, 1), sets
 * trace_bus_armed, and on the jump calls trace_check, which reads the file
 * again.  Anywhere else (or on another thread than the one that called
 * trace_catch_sigbus) the handler names the file and offset and exits 3. */
extern sigjmp_buf trace_bus_jmp;
extern volatile sig_atomic_t trace_bus_armed;
void trace_catch_sigbus(const struct trace *t);
void trace_notice(struct trace *t, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* What the decoders know, asked through the loader (nothing else holds a
 * decoder).  An event's decoded fields and its one-line summary (false:
 * its decoder has none); the record it links to (ATF: its detail record),
 * that record's fields, and the event that record links back to. */
bool trace_event_fields(struct trace *t, const struct event *e, struct fsink *out);
bool trace_event_summary(struct trace *t, const struct event *e, struct buf *out);
/* The summary and the fields as one line (false: the decoder has no
 * summary, and nothing is written). */
bool trace_event_summary_fields(struct trace *t, const struct event *e, struct buf *summary, struct buf *fields);
/* Whether e's decoder reads both at once (else that costs as much as the
 * summary and the fields apart). */
bool trace_summary_fields_at_once(struct trace *t, const struct event *e);
bool trace_event_link(struct trace *t, const struct event *e, uint32_t *input, uint64_t *off);
bool trace_record_fields(struct trace *t, uint32_t input, uint64_t off, struct fsink *out);
/* A span that names itself and its parent (0: a root); false: e names none. */
bool trace_span_ids(struct trace *t, const struct event *e, uint64_t *id, uint64_t *parent);
bool trace_record_back(struct trace *t, uint32_t input, uint64_t off, uint64_t *pos);
/* A source's format (NULL: none known) and its title; its findings for
 * --info (false: its decoder has none). */
/* The first damage that is a decoder's bug (it took more bytes than it
 * was given), or NULL: tests and the fuzz harness fail on it. */
#define INTERNAL_ERROR "internal error"
const char *trace_internal_error(const struct trace *t);
const char *trace_source_format(const struct source *s, const char **title);
bool trace_source_info(const struct source *s, struct fsink *out);
/* Every decoder in use can decode on two threads at once; settle() them
 * first (the tables they would make on first use, made now). */
bool trace_reentrant(const struct trace *t);
void trace_settle(struct trace *t);
/* The formats ttv reads, by --format name: the i-th, NULL past the last. */
const char *trace_format_name(size_t i);
bool trace_format_known(const char *name);
/* ts + shift, held within the int64 range. */
int64_t shift_ts(int64_t ts, int64_t shift);
/* Metadata at time 0 (dial9 symbol tables, htdump system info; moved with
 * its source by --align): its time is no time at all, and is shown as
 * "metadata" rather than as an offset from the trace start. */
bool trace_untimed(const struct trace *t, const struct event *e);
/* The wall-clock time (Unix ns) of an event, where its source anchors its
 * clock (dial9 ClockSyncEvent, the syscall capture's epoch). */
bool trace_wall(const struct trace *t, const struct event *e, int64_t *wall);
/* The same for a time on the timeline, by the first source with an anchor. */
bool trace_wall_at(const struct trace *t, int64_t ts, int64_t *wall);
/* The event with its source's own time (--align shifts what the model
 * holds): what decoders are handed to decode fields and summaries. */
static inline struct event trace_own(const struct trace *t, const struct event *e)
{
	struct event o = *e;
	if (e->input < t->nin)
		o.ts -= t->in[e->input]->src->shift;
	return o;
}
/* A long scan (filtering, --dump) is about to decode e: keep its file
 * mapped ahead of it, and let go of what it passed. */
static inline void trace_scan(struct trace *t, const struct event *e)
{
	if (e->input < t->nin)
		input_scan(t->in[e->input], e->off);
}
/* A scan decodes e soon (a few events on): start bringing its first bytes
 * (a record's worth) into the cache, so that decoding does not wait for them. */
#define PREFETCH_BYTES 384
static inline void trace_prefetch(const struct trace *t, const struct event *e)
{
	uint64_t n;
	const uint8_t *p = e->input < t->nin ? input_bytes(t->in[e->input], e->off, &n) : NULL;
	for (uint64_t i = 0; p && i < n && i < PREFETCH_BYTES; i += 64)
		__builtin_prefetch(p + i);
}
/* Drop every input's pages from memory until they are used again (long scans). */
void trace_release(struct trace *t);
/* Reading a model part's events in its own order (model_part_read): a
 * sequence's events are read from its file's mapped records, and filters
 * decode records.  The pages of the file being read are let go every so
 * often (and at the part's end), every file's now and then: releasing
 * every file each time costs a system call per file.  got events were
 * just read, the last of them `last`; *p counts what was read since. */
struct release_pace {
	uint64_t file, all;
};
void trace_release_as_read(struct trace *t, struct release_pace *p, const struct event *last, uint64_t got,
			   bool part_done);
/* Bytes processed so far and in total (for progress); total 0 when unknown. */
void trace_progress(const struct trace *t, uint64_t *done, uint64_t *total);

#endif
