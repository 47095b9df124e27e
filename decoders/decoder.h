/* The decoder interface.
 *
 * A decoder turns bytes into events.  It never opens or reads files: the
 * loader (src/trace.c) hands it the bytes of an input that it has not yet
 * consumed, and it consumes whole records only, returning how many bytes it
 * consumed.  Its state (schemas, string pools, time bases) lives in the
 * state it returned from open(), so the same code serves a finished file
 * and a file that is still growing: a record torn at the end of the bytes is
 * simply left for the next call, unless `final` says no more bytes will
 * come, in which case it is reported as damage.
 *
 * Events go to the model with a reference to their bytes (input, offset);
 * the decoder decodes their fields lazily, when a view or a writer asks
 * (fields(), summary()).  Damage is reported as {offset, message} through
 * dec_damage() (decoding goes on) or dec_fatal() (this input stops here);
 * a decoder never aborts the program and never trusts a length or count it
 * has not checked against the bytes present.
 *
 * Bytes beyond those handed to feed() are read through src/input.h
 * (input_bytes(); fixed-size records used in place, as ATF's index, from
 * in->map below in->size).  Formats that are a directory (ATF sessions,
 * dial9 segment directories) claim it with probe_dir() and create inputs
 * for its files in open_dir(); they look at directories through
 * src/input.h (dir_list, path_kind), never with opendir or stat of their
 * own.  A decoder never sees struct trace: a source is opaque, known
 * through the dec_* port below. */
#ifndef TTV_DECODER_H
#define TTV_DECODER_H

#include "src/blob.h"
#include "src/fields.h"
#include "src/input.h"
#include "src/model.h"

/* One PATH argument (the loader's, opaque here): a file, or a directory
 * whose files are its inputs. */
struct source;

/* Probe confidence. */
enum {
	PROBE_NO = 0,
	PROBE_WEAK = 20,   /* plausible, no magic (e.g. podtrace framing) */
	PROBE_GOOD = 60,   /* structure checks out over several records */
	PROBE_MAGIC = 100, /* a magic number matched */
	PROBE_MORE = -1,   /* cannot tell yet: need more bytes */
};

struct decoder {
	const char *name;  /* --format NAME */
	const char *title; /* "podtrace event records" */
	/* fields() and summary() keep no state between calls (per-thread scratch
	 * only; after settle(), where there is one), so a filter may run them on
	 * two threads at once.  Decoders without it are called one thread at a
	 * time. */
	bool reentrant;
	/* Optional: make now what fields() and summary() would make on first
	 * use (tables sorted lazily), so that they only read until the next
	 * feed.  Called before they run on two threads. */
	void (*settle)(void *st);

	/* Stream formats. */
	/* p/n: the first bytes of the stream; final: there are no more. */
	int (*probe)(const uint8_t *p, size_t n, bool final);
	void *(*open)(struct input *in);
	/* Consume whole records from p[0..n), which start at byte `off` of the
	 * input; returns the bytes consumed. */
	size_t (*feed)(void *st, const uint8_t *p, size_t n, uint64_t off, bool final);

	/* Directory formats: claim a directory, then add its inputs with
	 * dec_add_input() and set their dec/dstate.  rescan() looks again
	 * for new members when following. */
	int (*probe_dir)(const char *dir);
	bool (*open_dir)(struct source *src, const char *dir);
	void (*rescan)(struct source *src);

	/* Lazy decoding of one event (st = the event's input's dstate). */
	void (*fields)(void *st, const struct event *e, struct fsink *out);
	/* One-line summary for the list and --dump (optional: fields otherwise). */
	void (*summary)(void *st, const struct event *e, struct buf *out);
	/* Optional: summary() and fields() at once, the fields as one line
	 * (line_sink_init), for full-text search, which looks at both: the
	 * event read once, not twice. */
	void (*summary_fields)(void *st, const struct event *e, struct buf *summary, struct buf *fields);
	/* Optional: links between records (an ATF index record and its detail
	 * record).  A record is named by (input, byte offset) and need not be
	 * an event.  linked(): the record event e links to (false: none, or the
	 * link dangles).  record_fields(): decode the record at `off` of the
	 * input of state st.  record_back(): the model position of the event
	 * that record links back to. */
	bool (*linked)(void *st, const struct event *e, uint32_t *input, uint64_t *off);
	void (*record_fields)(void *st, uint64_t off, struct fsink *out);
	bool (*record_back)(void *st, uint64_t off, uint64_t *pos);
	/* Optional: a span that names itself and its parent (dial9 close
	 * events): its id and its parent's (0: a root).  Views nest it under
	 * that parent.  False: e names none. */
	bool (*span_ids)(void *st, const struct event *e, uint64_t *id, uint64_t *parent);
	/* Optional: the input of state st was truncated (following) and is
	 * read again from its first byte; its events in the model's array are
	 * gone.  Forget what was decoded from it.  Without it, the state is
	 * closed and opened again. */
	void (*restart)(void *st);
	/* Optional: the saved index (src/saved.h), for formats of one file.
	 * save(): what fields(), summary(), info() and further feeds need of
	 * state st, once everything is read.  restore(): that read back into
	 * the state open() has just made for the same file (its strings,
	 * lanes and types are in the model already, with the same ids), each
	 * value checked against what exists (model_ntypes, model_nlanes ...);
	 * false when anything does not hold.  Without them a source is
	 * always indexed afresh. */
	void (*save)(void *st, struct buf *out);
	bool (*restore)(void *st, struct blob *r);
	/* With save: would more bytes after these go on as a fresh decode of
	 * all of them would (nothing held back was let go at the end, nothing
	 * cut short given up)?  Then a file that grew is read on from the
	 * saved state; otherwise it is indexed afresh. */
	bool (*resumable)(void *st);
	/* Format findings for --info and the info view, once per source. */
	void (*info)(struct source *src, struct fsink *out);
	void (*close)(void *st);
};

/* The registry (decoders/registry.c), in probe order. */
extern const struct decoder *const decoders[];
const struct decoder *decoder_find(const char *name);

/* Helpers for decoders (src/trace.c): the port through which they reach
 * the model and the loader (never struct trace). */
struct model *dec_model(const struct input *in);
struct model *dec_source_model(const struct source *src);
uint32_t dec_str(const struct input *in, const void *p, size_t n);
/* The lane of this source keyed by `key` (a pid, a thread id), named. */
uint32_t dec_lane(const struct input *in, uint64_t key, const char *name);
uint32_t dec_lane_sid(const struct source *src, uint64_t key, uint32_t name_sid);
/* Following: more of this input may still come (a live file). */
bool dec_following(const struct input *in);
/* Something the user should know, said once on the status line. */
void dec_notice(const struct source *src, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* What a decoder may know of a source: the source an input belongs to,
 * its path (as given), its i-th input (NULL past the last), and the
 * state of the whole source that a directory decoder keeps (NULL until
 * set; the loader hands it to no one else). */
struct source *dec_source(const struct input *in);
const char *dec_source_path(const struct source *src);
struct input *dec_source_input(const struct source *src, size_t i);
void *dec_source_state(const struct source *src);
void dec_set_source_state(struct source *src, void *st);
/* A directory that holds several traces (a synced tree of services,
 * instances and boots): a source of its own for each, beside src, with the
 * same decoder and no state (the first source's decoder adds their inputs
 * and rescans for all).  `path` names it (a directory, or the directory
 * and a label after it).  A source's name can change once its decoder
 * knows what it holds. */
struct source *dec_add_source(struct source *src, const char *path);
void dec_rename_source(struct source *src, const char *path);
/* Put `prefix` before the name of every lane of src made so far. */
void dec_prefix_lanes(struct source *src, const char *prefix);
/* Add an input (a file of a directory source).  NULL on failure (reported
 * as damage of the source). */
struct input *dec_add_input(struct source *src, const char *path);
/* Read a small input (a manifest) to its end now, however its bytes come
 * (inflated, from another machine).  False when it holds more than max. */
bool dec_read_whole(struct input *in, uint64_t max);
/* A directory decoder found the file it reads as `in` under another name:
 * the same file renamed (dial9 seals trace.N.bin.active as trace.N.bin), or,
 * once in's own path is gone, a copy that starts with the same bytes, maybe
 * compressed and with more after them (trace.N.bin replaced by
 * trace.N.bin.gz).  The input reads on from there, nothing read twice.
 * Returns the input that reads `path` now: in, or a new input when `path`
 * holds other data; NULL when it cannot tell yet (look again later). */
struct input *dec_move_input(struct input *in, const char *path);
/* Add an event; sets e->input.  Returns false when the event cannot be
 * stored (offset beyond what the model can address). */
bool dec_emit(struct input *in, struct event *e);
/* Sequences (model_add_seq) and their lanes' counts (model_lane_count),
 * through the source, so that --align can shift their times. */
uint32_t dec_add_seq(struct input *in, const struct seq_ops *ops, void *ctx);
void dec_lane_count(struct input *in, uint32_t lane, uint64_t n, int64_t first, int64_t last);
/* A wall-clock reading (Unix ns) taken at the trace's time `ts`: where the
 * format has one, it tells which boot of which machine the monotonic clock
 * belongs to, so that --info can say whether sources share a clock.  The
 * first anchor of a source is kept. */
void dec_clock_anchor(struct input *in, int64_t ts, int64_t wall_ns);
void dec_damage(struct input *in, uint64_t off, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Damage after which this input cannot be decoded further. */
void dec_fatal(struct input *in, uint64_t off, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* The input is not of this format at all (bad magic, unsupported version):
 * when it is the source's only input, nothing of the source is readable
 * (exit 1); in a directory, that file stops with damage at offset 0. */
void dec_reject(struct input *in, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
