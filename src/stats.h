/* --stats: what a trace holds, counted (src/stats.c). */
#ifndef TTV_STATS_H
#define TTV_STATS_H

#include <stdio.h>

#include "src/query.h"
#include "src/trace.h"

/* Counts per type and lane, durations per type, spans by name (with self
 * time), counter tracks; of the events the filters keep. */
void batch_stats(struct trace *t, struct filterset *fs, bool json, FILE *out);

#endif
