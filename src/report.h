/* --report, --export folded and speedscope: where the time went, from the call tree
 * (src/calltree.h), for the terminal and for flame graph tools. */
#ifndef TTV_REPORT_H
#define TTV_REPORT_H

#include <stdio.h>

#include "src/calltree.h"
#include "src/query.h"
#include "src/trace.h"

/* --report: per name, its calls, total time (a recursive call's time
 * counted once, in the outermost), self time, least, greatest and mean
 * call; sorted by `sort` (total, self, calls, min, max, mean: largest
 * first; name); a table, or JSON lines. */
bool report_sort_known(const char *sort);
void batch_report(struct trace *t, struct filterset *fs, const char *sort, bool json, FILE *out);
/* --diff A B: the sources of the first PATH (A's) against the rest (B's):
 * per name (as its strings tell it: a type of one side is not the other's),
 * total, self and calls on each side and the change, the largest change of
 * total first; a table, or JSON lines. */
void batch_diff(struct trace *t, struct filterset *fs, bool json, FILE *out);
/* One side's scope: the spans of base's whose source is the first PATH's
 * (A, b false) or another's (B).  sc refers to sd, which outlives it. */
struct diff_side {
	struct ct_scope base;
	bool b;
};
void diff_side_scope(struct diff_side *sd, const struct ct_scope *base, bool b, struct ct_scope *sc);
/* The same for any two trees (the viewer's: two time ranges, two filters,
 * two lanes): side A's names added, then side B's; then the table into b
 * (written out to `out` as it grows, when given). */
struct diff;
struct calltree;
struct diff *diff_new(void);
void diff_add(struct diff *d, const struct calltree *ct, bool b);
void diff_table(struct diff *d, struct model *m, bool json, struct buf *b, FILE *out);
void diff_free(struct diff *d);
/* --export folded: a line per call path with its self time in ns,
 * "main;parse;read 1200" (flamegraph.pl, inferno and speedscope read it);
 * a ';' in a name becomes ','. */
void export_folded(struct trace *t, struct filterset *fs, FILE *out);
/* --export speedscope: speedscope's own JSON, an evented profile per lane
 * (a lane whose spans overlap without nesting gets more: "LANE (2)" ...),
 * times in ns from the earliest span. */
void export_speedscope(struct trace *t, struct filterset *fs, FILE *out);

#endif
