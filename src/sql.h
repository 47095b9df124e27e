/* SQL over the timeline: SQLite virtual tables over the model, nothing
 * copied.
 *
 *   events   id (its position in time order), ts, dur, lane, type,
 *            category, name, summary, role, flags, file, offset, fields (a
 *            JSON object, decoded when asked for).  Filters (-e) restrict it
 *            as they restrict every view; WHERE ts ranges, id ranges, lane =
 *            and type = are answered from the model (binary search on time),
 *            not by reading every event.
 *   spans    id (its event's), ts, dur, self, depth, parent_id, lane, type,
 *            name: nested as the call tree nests them (src/calltree.h), each
 *            counted as it ends
 *   lanes    id, name, source, key, events, first_ts, last_ts, counter
 *   types    id, name, category, role, name_field
 *   sources  id, path, format, status, files, damage, error
 *   damage   source, file, offset, message, fatal, ts
 */
#ifndef TTV_SQL_H
#define TTV_SQL_H

#include <stdio.h>

#include "src/query.h"
#include "src/trace.h"

enum sql_format { SQL_TABLE, SQL_JSON, SQL_CSV };

/* --sql: run the statements of `sql` over a loaded trace and write each
 * result: an aligned table, JSON lines or CSV.  A statement SQLite cannot
 * read is said with where (exit status 2), one that fails as it runs with
 * why (1); else 0. */
int batch_sql(struct trace *t, struct filterset *fs, const char *sql, enum sql_format format, FILE *out);

#endif
