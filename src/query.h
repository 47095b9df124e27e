/* Filters and search: pcre2 patterns over what the user sees.
 *
 * Syntax (the same for -e, the `&` prompt and the `/` search):
 *   RE          keep events whose text (lane, type, summary) matches RE
 *   !RE         drop them instead
 *   lane:RE     match the lane name        type:RE   match the type name
 *   FIELD:RE    match one decoded field by name (e.g. target:, comm:); a
 *               field the trace does not have is an error (filterset_check),
 *               and `::` is never a scope (tokio::runtime is full text)
 *   text:RE     full text, for a pattern that itself starts with `word:`
 *   range:A..B  events whose time is in [A, B]: TIME is relative to the first
 *               event with a unit or sign (1.2s, +500ms, 3us, 40ns), absolute
 *               ns as a bare integer, or absolute seconds after @ (@93417.36)
 * Several filters stack: every enabled include must match, no enabled
 * exclude may.  Patterns are compiled with UTF, UCP and MATCH_INVALID_UTF,
 * JIT-compiled, and smart-case (caseless unless the pattern has an upper-case
 * letter outside an escape).  Matching is against the sanitized text, so what
 * matches is what is shown.
 *
 * Cost: lane and type patterns run once per lane or type; a FIELD pattern on
 * the field an event's interned string holds runs once per distinct string;
 * other fields and the full text are decoded per event. */
#ifndef TTV_QUERY_H
#define TTV_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"
#include "src/trace.h"
#include "src/util.h"

enum scope { SC_TEXT, SC_LANE, SC_TYPE, SC_FIELD, SC_RANGE };

/* A time as typed: relative to the first event, or absolute ns. */
struct tspec {
	int64_t v;
	bool rel;
};
bool tspec_parse(const char *s, size_t n, struct tspec *out);
int64_t tspec_resolve(const struct tspec *t, const struct model *m);

struct pattern; /* a compiled pcre2 pattern with its limits */

struct filter {
	char *spec; /* as typed */
	enum scope scope;
	char *field;   /* SC_FIELD */
	uint32_t field_sid;
	struct tspec lo, hi; /* SC_RANGE */
	bool exclude;
	bool enabled;
	struct pattern *re;
	/* verdict per string id (lane, type and name strings are interned, so
	 * the pattern runs once per distinct string): 0 = not yet known,
	 * 1 = no match, 2 = match */
	uint8_t *by_sid;
	size_t nby_sid;
	/* events this filter was the first to drop (added once per run of
	 * events marked, not per event: both threads read this struct) */
	uint64_t dropped;
};

struct filterset {
	struct filter *f;
	size_t n, cap;
	bool too_expensive; /* a match hit the pcre2 limits */
	bool drops_approx;  /* a step cut short counted some drops twice (filter_dropped) */
};

/* Compile one pattern.  On error returns NULL and sets *err (caller frees),
 * naming the offset in the pattern. */
struct pattern *pattern_new(const char *re, char **err);
void pattern_free(struct pattern *p);
/* Match s[0..n).  Returns 1 match, 0 no match, -1 too expensive.
 * When ms/me are given they receive the first match's start and end. */
int pattern_match(struct pattern *p, const char *s, size_t n, size_t *ms, size_t *me);
/* The same, starting at offset `from` (to find every match in a line). */
int pattern_find(struct pattern *p, const char *s, size_t n, size_t from, size_t *ms, size_t *me);
/* The same pattern without JIT (tests compare both). */
/* A match in s[0, n) that needs nothing after it (s starts a longer
 * text: a match here is one there too).  0 also when one might need more:
 * *resume is where a match in the longer text may start (none before). */
int pattern_match_start(struct pattern *p, const char *s, size_t n, size_t *resume);
int pattern_match_nojit(struct pattern *p, const char *s, size_t n);

/* Parse and compile a filter spec.  False (and *err) on a bad pattern, and
 * where in spec the error is in *err_at (when given). */
bool filter_parse(struct filter *f, const char *spec, char **err, size_t *err_at);
/* Does a FIELD:RE name a field the trace's events have?  False and *err
 * (naming the fields there are) when not; a trace with no events yet
 * (following) has every field. */
bool filter_check(const struct filter *f, struct trace *t, char **err);
void filter_free(struct filter *f);

bool filterset_add(struct filterset *fs, const char *spec, char **err);
/* Add a parsed filter (the set owns it now). */
void filterset_push(struct filterset *fs, struct filter *f);
/* The first filter filter_check() refuses (-1: none), with its *err. */
long filterset_check(const struct filterset *fs, struct trace *t, char **err);
void filterset_remove(struct filterset *fs, size_t i);
void filterset_free(struct filterset *fs);
bool filterset_active(const struct filterset *fs);
/* Can filterset_mark() use two threads on this trace?  (Filters are on,
 * every decoder is reentrant, the model has no sequences.) */
bool filterset_parallel_ok(const struct filterset *fs, const struct trace *t);
/* Before filters run on two threads: every lazily made thing made now (the
 * decoders' tables, the caches sized for every string the model holds). */
void filterset_prepare(struct filterset *fs, struct trace *t);
/* Which events at positions [lo, hi) pass keep() (when given) and every
 * filter: sets or clears bit p - base of bits for each (base is a multiple
 * of 64 or equals lo; bits outside [lo, hi) are left as they were).  Stops
 * once now_ns() passes `deadline` (0: no deadline), but always marks at
 * least one event; returns the position reached: [lo, reached) is marked.
 * Long ranges are shared with the worker thread when
 * filterset_parallel_ok(); nothing may decode meanwhile. */
typedef bool filter_keep_fn(void *ctx, const struct event *e);
uint64_t filterset_mark(struct filterset *fs, struct trace *t, uint64_t lo, uint64_t hi, uint64_t base, uint64_t *bits,
			filter_keep_fn *keep, void *ctx, uint64_t deadline);
/* How many events each filter was the first (in order) to drop, counted by
 * filterset_mark since the last reset (more than that when drops_approx). */
void filterset_reset_counts(struct filterset *fs);
uint64_t filter_dropped(const struct filter *f);
/* Does the event pass every enabled filter?  (The caller keeps the event's
 * bytes mapped: trace_scan.) */
bool filterset_match(struct filterset *fs, struct trace *t, const struct event *e);
/* Does one pattern-bearing filter match the event (ignoring include/exclude)? */
bool filter_hit(struct filter *f, struct trace *t, const struct event *e, bool *too_expensive);

/* A counter track's sample: the number its type's value_field names
 * (false: not a sample, or the field is no number). */
bool event_value(struct trace *t, const struct event *e, double *v);

/* The line an event is shown as (lane, type, summary), sanitized.  True
 * when the summary is the decoder's own, with its fields on one line in
 * `fields` (unless NULL), false when the summary is the fields on one line
 * (a format without summaries; `fields` left as it is). */
bool event_text(struct trace *t, const struct event *e, struct buf *b, struct buf *fields);
/* Just the summary (sanitized): the decoder's own (true), or its fields on
 * one line (false). */
bool event_summary(struct trace *t, const struct event *e, struct buf *b);

#endif
