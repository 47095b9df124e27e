/* Batch writers: the same model and filters as the viewer, written to a
 * stream.  They are also how tests see what a decoder decoded. */
#ifndef TTV_BATCH_H
#define TTV_BATCH_H

#include <stdio.h>

#include "src/query.h"
#include "src/trace.h"

/* Every event passing the filters, one per line, in time order. */
void batch_dump(struct trace *t, struct filterset *fs, bool json, enum time_mode tm, FILE *out);
/* --dump --follow: the same, then every event that arrives as the files grow,
 * until the inputs end (pipes) or the process is stopped.  False when a
 * filter names a field the events read have not (batch_filters_fit). */
bool batch_follow(struct trace *t, struct filterset *fs, bool json, enum time_mode tm, FILE *out);
/* Does every FIELD:RE name a field the trace has?  Else it is said on
 * stderr (a usage error: exit 2). */
bool batch_filters_fit(const struct filterset *fs, struct trace *t);
/* Per source: format, size, lanes, counts, time span, damage, decoder findings. */
void batch_info(struct trace *t, bool json, FILE *out);

/* The info document, shared with the viewer's info view. */
void info_text(struct trace *t, struct buf *b);
/* What info_text says beside the events and the model (damage, the index
 * saved or restored, memory past its budget), as one number: a text made
 * before says the same while it and the model's count and generation are
 * the same. */
uint64_t info_stamp(const struct trace *t);
void info_json(struct trace *t, struct buf *b);
/* Sources recorded on different clocks and not --align'ed: a warning for
 * the viewer's status line in *b, and true. */
bool clock_warning(struct trace *t, struct buf *b);

/* Detail of one event as lines `name: value` (also used by the detail view). */
void event_detail(struct trace *t, const struct event *e, struct buf *b, int width);
/* One --dump line (without newline). */
void dump_line(struct trace *t, const struct event *e, int64_t base, enum time_mode tm, struct buf *b);
/* An event's time as --time asks (base: the first event, for relative
 * times; date: with the day, for wall-clock times); "metadata" for none. */
void event_time(struct trace *t, const struct event *e, int64_t base, enum time_mode tm, bool date, struct buf *b);
void dump_json(struct trace *t, const struct event *e, struct buf *b);
/* What --dump --json says of an event after ts and lane ("type" ... "fields"),
 * as members of an open object (the Chrome export's args too). */
void event_json_members(struct trace *t, const struct event *e, struct buf *b);
/* An event role as --dump --json and --sql name it: instant, complete, begin, end. */
const char *role_word(enum ev_role r);
/* A source's status as --info says it: ok, damaged or failed. */
const char *source_status(const struct source *s);
/* An interned string as a JSON string. */
void json_sid(struct buf *b, const struct model *m, uint32_t sid);
/* An interned string for the terminal (escaped). */
void term_sid(struct buf *b, struct model *m, uint32_t sid);
/* A lane's interned name (0 for none). */
uint32_t lane_name(struct model *m, uint32_t lane);
/* Write out what b holds once it holds `least` bytes or more (big
 * outputs go out as they are made, OUT_CHUNK at a time; 1: whatever is
 * left), and empty it. */
#define OUT_CHUNK (64u << 10)
void out_flush(struct buf *b, FILE *out, size_t least);

#endif
