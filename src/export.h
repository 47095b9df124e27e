/* Exports of the model to other tools' formats. */
#ifndef TTV_EXPORT_H
#define TTV_EXPORT_H

#include <stdio.h>

#include "src/query.h"
#include "src/trace.h"

/* Chrome trace event JSON (the "JSON Object Format" that Perfetto and
 * chrome://tracing open) of every event passing the filters:
 *   - a process per source (pid = source number + 1, named by its path and
 *     format) and a thread per lane (tid = lane number + 1, named by the lane),
 *     as metadata events (ph "M"), in ttv's order; the slices of a thread
 *     nest (as both viewers need), so a span overlapping another of its lane
 *     without nesting goes on an extra thread "LANE (2)", "LANE (3)"...
 *     (tids after the lanes'), sorted after its lane;
 *   - spans as complete events (ph "X"): events with a duration, and
 *     begin/end pairs, once, at their begin, with the end's record in
 *     args.end (a pair is exported when either of its events passes);
 *   - a begin never closed as ph "B" (it lasts to the end of the trace), an
 *     end never opened and events without duration as instants (ph "i");
 *   - ts and dur in microseconds with three decimals, exact to the ns, ts
 *     counted from the first timeline event (otherData.time_base_ns);
 *   - args as --dump --json has them: type, category, role, flags, file,
 *     offset and the decoded fields.
 * Metadata events (schemas, symbols) are not timeline events: they are left
 * out and counted in otherData. */
void export_chrome(struct trace *t, struct filterset *fs, FILE *out);

#endif
