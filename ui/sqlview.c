/* ui floor 8 */
/* ; SQL over the trace (src/sql.h's tables): the query runs on the loop's
 * thread, so the model holds still under it (a snapshot while following);
 * app.busy() keeps the terminal answering and stops it on Esc or C-c.  Its
 * result is a table: numbers to the right, and as bars behind them where a
 * column measures something; Enter on a row with an id or ts goes to that
 * event. */
#include <curses.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <strings.h>

#include "src/esc.h"
#include "src/sql.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/sqlview.h"
#include "ui/view.h"

#define MAX_CELLS (4u << 20) /* a result's cells kept (about 100 MB at most) */
#define COL_MAX 48           /* a text column is at most this wide */
#define BAR_MIN 12           /* a bar column is at least this wide */
#define TEXT_MIN 12          /* a text column gives way to others down to this */

enum { COL_TEXT, COL_NUMBER, COL_BAR };

/* The last query's result as a table (kept while other views are shown:
 * ; Enter shows it again), and the database it came from. */
struct sql_view {
	struct sql_db *db;     /* opened at the first query */
	struct sql_host host;  /* what it asks of the viewer (app.busy) */
	struct sql_result res;
	char *query;           /* what res is of */
	uint64_t gen;          /* the model's generation then (positions as ids) */
	uint64_t ns;           /* how long it ran */
	int *width;            /* per column: cells */
	uint8_t *kind;         /* per column: COL_TEXT, COL_NUMBER, COL_BAR */
	double *max;           /* per bar column: its largest value */
	size_t cur, top;
	int first_col;         /* columns scrolled off to the left */
};

static struct sql_view *sv_of(struct app *a) { return view_state(a, V_SQL); }

static int rows(const struct app *a) { return a->lines - 2; /* header and status line */ }

static const struct sql_cell *cell(const struct sql_result *r, size_t row, int col)
{
	return &r->cell[row * (size_t)r->ncols + (size_t)col];
}

static double number(const struct sql_cell *c) { return c->type == SQLITE_INTEGER ? (double)c->v.i : c->v.f; }

/* A column of ids or times is not a measure: no bar. */
static bool is_place(const char *name)
{
	size_t n = strlen(name);
	return !strcasecmp(name, "id") || !strcasecmp(name, "ts") || !strcasecmp(name, "offset") ||
	       (n > 3 && !strcasecmp(name + n - 3, "_id")) || (n > 3 && !strcasecmp(name + n - 3, "_ts"));
}

/* Each column's width and kind, from every row. */
static void measure(struct sql_view *v)
{
	const struct sql_result *r = &v->res;
	free(v->width), free(v->kind), free(v->max);
	v->width = xcalloc((size_t)r->ncols + 1, sizeof *v->width);
	v->kind = xcalloc((size_t)r->ncols + 1, sizeof *v->kind);
	v->max = xcalloc((size_t)r->ncols + 1, sizeof *v->max);
	for (int i = 0; i < r->ncols; i++) {
		const char *name = sql_text(r, r->name_at[i]);
		bool numbers = r->nrows > 0, positive = false;
		int w = text_width(name, strlen(name));
		for (size_t row = 0; row < r->nrows; row++) {
			const struct sql_cell *c = cell(r, row, i);
			const char *s = sql_text(r, c->at);
			w = MAX(w, text_width(s, strlen(s)));
			if (c->type == SQLITE_INTEGER || c->type == SQLITE_FLOAT) {
				double d = number(c);
				positive |= d > 0;
				v->max[i] = MAX(v->max[i], isfinite(d) ? d : 0);
			} else if (c->type != SQLITE_NULL) {
				numbers = false;
			}
		}
		v->kind[i] = !numbers ? COL_TEXT : positive && !is_place(name) ? COL_BAR : COL_NUMBER;
		v->width[i] = v->kind[i] == COL_BAR ? MAX(w, BAR_MIN) : MIN(w, COL_MAX);
	}
}

static void sql_free(struct app *a)
{
	struct sql_view *v = sv_of(a);
	sql_close(v->db);
	sql_result_free(&v->res);
	free(v->query);
	free(v->width), free(v->kind), free(v->max);
	*v = (struct sql_view){0};
}

/* (task.abandon: a file shrank under the query) */
static void sql_abandon(struct app *a)
{
	sql_close(sv_of(a)->db);
	sv_of(a)->db = NULL;
	a->task.running = false;
}

static bool busy(void *arg) { return ((struct app *)arg)->busy(arg); }

/* The marks table (src/sql.h): a->marks, with their notes. */
static bool mark_get(void *arg, int letter, uint64_t *pos, const char **note)
{
	struct app *a = arg;
	*note = a->mark_note[letter];
	return a->marks[letter].set && ref_pos(a, &a->marks[letter], pos);
}

static void mark_set(void *arg, int letter, bool set, uint64_t pos, const char *note)
{
	struct app *a = arg;
	free(a->mark_note[letter]);
	a->mark_note[letter] = set && note ? xstrdup(note) : NULL;
	a->marks[letter] = set ? ref_of(a, pos) : (struct evref){0};
}

/* The result comes on top (once). */
static void show(struct app *a) { view_open(a, V_SQL); }

static void say_result(struct app *a)
{
	const struct sql_result *r = &sv_of(a)->res;
	struct buf b = {0};
	fmt_count(&b, r->nrows);
	buf_printf(&b, " row%s%s in ", r->nrows == 1 ? "" : "s", r->cut ? " kept (the rest not: LIMIT, OFFSET)" : "");
	fmt_dur(&b, sv_of(a)->ns);
	message(a, false, "%s", b.p);
	buf_free(&b);
}

long sql_run(struct app *a, const char *query, char **error)
{
	struct sql_view *v = sv_of(a);
	long back = -1;
	if (!*query) { /* ; Enter: the last result again */
		if (v->query && v->res.ncols)
			show(a);
		else
			message(a, true, "no SQL result yet: ;SELECT ... FROM events (or spans, lanes, types, sources, damage, marks)");
		return back;
	}
	char *err = NULL;
	v->host = (struct sql_host){.arg = a, .stop = busy, .mark_get = mark_get, .mark_set = mark_set};
	if (!v->db && !(v->db = sql_open(a->t, a->fs, &v->host, &err))) {
		message(a, true, "SQL: %s", err);
		free(err);
		return back;
	}
	a->task = (struct task){.what = "SQL", .running = true, .abandon = sql_abandon};
	a->task.started = a->task.drawn = now_ns();
	struct sql_result fresh = {0};
	bool ok = sql_query(v->db, query, MAX_CELLS, &fresh);
	a->task.running = false;
	uint64_t ns = now_ns() - a->task.started;
	if (!ok && fresh.stopped) {
		message(a, false, "SQL stopped after %.1f s", (double)ns / 1e9);
	} else if (!ok && fresh.error_at >= 0) { /* back to the prompt, at the place */
		back = (long)MIN((size_t)fresh.error_at, strlen(query));
		*error = xstrdup(fresh.error);
	} else if (!ok) {
		message(a, true, "SQL: %s", fresh.error);
	} else if (!fresh.ncols) {
		message(a, false, "SQL done: %lld row%s changed", (long long)fresh.changed, fresh.changed == 1 ? "" : "s");
	} else { /* the new result in place of the last */
		sql_result_free(&v->res);
		v->res = fresh;
		fresh = (struct sql_result){0};
		v->ns = ns;
		v->gen = model_generation(a->m);
		free(v->query);
		v->query = xstrdup(query);
		v->cur = v->top = 0;
		v->first_col = 0;
		measure(v);
		show(a);
		say_result(a);
	}
	sql_result_free(&fresh);
	return back;
}

/* ---- the table -------------------------------------------------------------- */

/* Text in column i: numbers (and their names) to the right. */
static void padded(const struct sql_view *v, int i, const char *s, struct buf *b)
{
	size_t n = strlen(s);
	buf_printf(b, "%*s", v->kind[i] == COL_TEXT ? 0 : MAX(0, v->width[i] - text_width(s, n)), "");
	buf_add(b, s, n);
}

/* A cell at x, w cells: a bar column's first cells in the bar role, as
 * many as its value is of the column's largest. */
static void draw_cell(struct app *a, int y, int x, int w, int i, const struct sql_cell *c, enum role base)
{
	struct sql_view *v = sv_of(a);
	struct buf b = {0};
	padded(v, i, sql_text(&v->res, c->at), &b);
	int barw = 0;
	if (v->kind[i] == COL_BAR && c->type != SQLITE_NULL && number(c) > 0)
		barw = MIN(w, MAX(1, (int)lround(number(c) / v->max[i] * v->width[i])));
	size_t cut = text_fit(b.p, b.len, barw);
	if (barw) {
		draw_role(R_BAR);
		draw_fill(y, x, barw, " ");
		draw_text(y, x, barw, b.p, cut);
	}
	draw_role(base);
	if (barw < w)
		draw_clipped(a, y, x + barw, w - barw, b.p + (barw ? cut : 0), b.len - (barw ? cut : 0));
	buf_free(&b);
}

/* The columns' widths on a screen `cols` wide: when they do not all fit,
 * the widest text columns give way first, down to TEXT_MIN. */
static int *fit(const struct sql_view *v, int cols)
{
	int n = v->res.ncols, *w = xcalloc((size_t)n + 1, sizeof *w), total = 0;
	for (int i = v->first_col; i < n; i++)
		total += (w[i] = v->width[i]) + (i > v->first_col ? 2 : 0);
	while (total > cols) {
		int widest = -1;
		for (int i = v->first_col; i < n; i++)
			if (v->kind[i] == COL_TEXT && w[i] > TEXT_MIN && (widest < 0 || w[i] > w[widest]))
				widest = i;
		if (widest < 0)
			break;
		w[widest]--, total--;
	}
	return w;
}

/* One line of the table: the column names (row SIZE_MAX) or a row. */
static void draw_line(struct app *a, int y, size_t row, enum role role, const int *width)
{
	struct sql_view *v = sv_of(a);
	draw_role(role);
	draw_fill(y, 0, a->cols, " ");
	for (int i = v->first_col, x = 0; i < v->res.ncols && x < a->cols; i++) {
		int w = MIN(width[i], a->cols - x);
		if (row == SIZE_MAX) {
			struct buf b = {0};
			padded(v, i, sql_text(&v->res, v->res.name_at[i]), &b);
			draw_clipped(a, y, x, w, b.p, b.len);
			buf_free(&b);
		} else {
			draw_cell(a, y, x, w, i, cell(&v->res, row, i), role);
		}
		x += w + 2;
	}
}

static void sql_draw(struct app *a)
{
	struct sql_view *v = sv_of(a);
	cursor_in_sight(&v->top, v->cur, rows(a));
	int *width = fit(v, a->cols);
	draw_line(a, 0, SIZE_MAX, R_TITLE, width);
	for (int y = 1; y <= rows(a) && v->top + (size_t)(y - 1) < v->res.nrows; y++) {
		size_t row = v->top + (size_t)(y - 1);
		draw_line(a, y, row, row == v->cur ? R_SELECTED : R_NORMAL, width);
	}
	free(width);
	if (!v->res.nrows) {
		draw_role(R_DIM);
		draw_str(2, 2, a->cols - 4, "no rows");
	}
}

/* ---- going to a row's event ----------------------------------------------------- */

static int column_named(const struct sql_result *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (!strcasecmp(sql_text(r, r->name_at[i]), name))
			return i;
	return -1;
}

/* Enter: the event the row's id names (while the positions are as they
 * were), else the first at its ts. */
static void go_to_row(struct app *a)
{
	struct sql_view *v = sv_of(a);
	const struct sql_result *r = &v->res;
	if (v->cur >= r->nrows)
		return;
	int id = column_named(r, "id"), ts = column_named(r, "ts");
	const struct sql_cell *ci = id >= 0 ? cell(r, v->cur, id) : NULL, *ct = ts >= 0 ? cell(r, v->cur, ts) : NULL;
	uint64_t n = model_count(a->m), pos = NO_POS;
	bool moved = v->gen != model_generation(a->m);
	if (ci && ci->type == SQLITE_INTEGER && ci->v.i >= 0 && (uint64_t)ci->v.i < n && (!moved || !ct))
		pos = (uint64_t)ci->v.i;
	else if (ct && ct->type == SQLITE_INTEGER)
		pos = model_seek(a->m, ct->v.i);
	if (pos >= n) {
		message(a, true, "%s", id < 0 && ts < 0 ? "this result has no id or ts column to go to"
							: "no event there in the trace");
		return;
	}
	uint64_t shown = vis_nearest(a, pos);
	if (shown == NO_POS) {
		message(a, true, "that event is hidden, and nothing near it is shown");
		return;
	}
	view_close_all(a);
	jump_to(a, shown);
	message(a, false, "row %zu of %zu%s (C-o back; ; Enter: the result again)", v->cur + 1, r->nrows,
		shown != pos ? ": its event is hidden, the nearest shown" : "");
}

static bool sql_action(struct app *a, enum action act)
{
	struct sql_view *v = sv_of(a);
	switch (act) {
	case ACT_DETAIL: go_to_row(a); return true;
	case ACT_PAN_LEFT: v->first_col = MAX(0, v->first_col - 1); return true;
	case ACT_PAN_RIGHT: v->first_col = MIN(MAX(0, v->res.ncols - 1), v->first_col + 1); return true;
	default: return cursor_move(&v->cur, v->res.nrows, rows(a), act);
	}
}

static void sql_click(struct app *a, int line, int col)
{
	(void)col;
	struct sql_view *v = sv_of(a);
	if (line >= 1 && line <= rows(a) && v->top + (size_t)(line - 1) < v->res.nrows)
		v->cur = v->top + (size_t)(line - 1);
}

/* The status line: the query, and the row the cursor is on. */
static bool sql_status(struct app *a, struct buf *out, int room)
{
	(void)room; /* (cut to fit by the status line) */
	struct sql_view *v = sv_of(a);
	buf_adds(out, ";");
	if (v->query)
		esc_typed(out, v->query, strlen(v->query));
	return true;
}

static bool sql_where(struct app *a, struct buf *out)
{
	const struct sql_view *v = sv_of(a);
	buf_printf(out, "row %zu/%zu", v->res.nrows ? v->cur + 1 : 0, v->res.nrows);
	return true;
}

static const char *sql_meaning(enum action act)
{
	switch (act) {
	case ACT_MOVE_DOWN: return "next row";
	case ACT_MOVE_UP: return "previous row";
	case ACT_PAN_LEFT: return "the columns left";
	case ACT_PAN_RIGHT: return "the columns right";
	case ACT_DETAIL: return "go to the row's event";
	default: return NULL;
	}
}

const struct view_ops sql_ops = {.state_size = sizeof(struct sql_view), .draw = sql_draw, .action = sql_action, .click = sql_click, .meaning = sql_meaning,
				 .status = sql_status, .where = sql_where, .free = sql_free};
