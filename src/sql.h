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
 *   marks    mark (a letter), id, ts, note: the viewer's marks (none in a
 *            batch run); INSERT (mark, id or ts, note; without a mark the
 *            first letter free), UPDATE and DELETE set and clear them
 */
#ifndef TTV_SQL_H
#define TTV_SQL_H

#include <stdbool.h>
#include <stdio.h>

#include "src/query.h"
#include "src/trace.h"
#include "src/util.h"

enum sql_format { SQL_TABLE, SQL_JSON, SQL_CSV };

/* What the viewer lends the database. */
struct sql_host {
	void *arg;
	/* Asked every few milliseconds while a statement runs (SQLite's
	 * progress handler, the tables' long scans): true stops it, as
	 * sqlite3_interrupt() does. */
	bool (*stop)(void *arg);
	/* The viewer's marks, a to z (letter 0 to 25): the event one is on
	 * (its position) and its note (NULL: none); false when it is not set. */
	bool (*mark_get)(void *arg, int letter, uint64_t *pos, const char **note);
	/* Set a mark on the event at pos, with a note (NULL: none), or clear it. */
	void (*mark_set)(void *arg, int letter, bool set, uint64_t pos, const char *note);
};

/* A database over a trace, kept open while the viewer runs. */
struct sql_db;
struct sql_db *sql_open(struct trace *t, struct filterset *fs, const struct sql_host *host, char **err);
void sql_close(struct sql_db *d);

/* One cell of a result: its type (SQLITE_INTEGER ...), its text as shown
 * (sanitized, at `at` in the result's text) and its number. */
struct sql_cell {
	uint32_t at;
	uint8_t type;
	union {
		int64_t i;
		double f;
	} v;
};

/* The last result of a query's statements, held for the viewer. */
struct sql_result {
	int ncols;
	struct buf text;       /* column names, then cells; each NUL-ended */
	uint32_t *name_at;     /* where each column's name is in text */
	struct sql_cell *cell; /* nrows x ncols */
	size_t nrows, capcells;
	bool cut;              /* more rows came than are kept */
	int64_t changed;       /* rows a statement without a result changed */
	char *error;           /* why it failed (sanitized); NULL: it did not */
	int error_at;          /* where in the text SQLite stopped reading; -1: not known */
	bool stopped;          /* the host stopped it */
};

/* Run every statement of `text`; the result is the last one's that has
 * columns, at most `max_cells` cells of it kept.  False with r->error when
 * one could not be read or failed as it ran (what came before stays). */
bool sql_query(struct sql_db *d, const char *text, size_t max_cells, struct sql_result *r);
void sql_result_free(struct sql_result *r);
static inline const char *sql_text(const struct sql_result *r, uint32_t at) { return r->text.p + at; }

/* --sql: run the statements of `sql` over a loaded trace and write each
 * result: an aligned table, JSON lines or CSV.  A statement SQLite cannot
 * read is said with where (exit status 2), one that fails as it runs with
 * why (1); else 0. */
int batch_sql(struct trace *t, struct filterset *fs, const char *sql, enum sql_format format, FILE *out);

#endif
