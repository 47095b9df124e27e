/* SQL over the timeline: see sql.h. */
#include "src/sql.h"

#include <locale.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "src/esc.h"
#include "src/fields.h"

struct small_table;

/* What every table reads. */
struct sql_ctx {
	struct trace *t;
	struct filterset *fs;
	const struct sql_host *host; /* NULL: a batch run */
	sqlite3 *db;
	bool stopped; /* the host asked to stop the statement running */
};

/* Asked every so often during long work (SQLite's steps, the tables'
 * scans): true once the host wants the statement stopped. */
static bool should_stop(struct sql_ctx *x)
{
	if (!x->stopped && x->host && x->host->stop && x->host->stop(x->host->arg)) {
		x->stopped = true;
		sqlite3_interrupt(x->db);
	}
	return x->stopped;
}

#define STOP_EVERY 65536 /* events a scan looks at between two should_stop() */

/* ---- events ---------------------------------------------------------------- */

enum ev_col { EC_ID, EC_TS, EC_DUR, EC_LANE, EC_TYPE, EC_CATEGORY, EC_NAME, EC_SUMMARY, EC_ROLE, EC_FLAGS, EC_FILE,
	      EC_OFFSET, EC_FIELDS };

static const char events_schema[] =
	"CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, lane TEXT, type TEXT, category TEXT, name TEXT, "
	"summary TEXT, role TEXT, flags TEXT, file TEXT, offset INTEGER, fields TEXT)";

#define SCAN_CHUNK 65536 /* events whose filters are run at a time */

struct ev_cursor {
	sqlite3_vtab_cursor base;
	struct sql_ctx *x;
	uint64_t pos, hi;     /* the event at pos; the scan ends before hi */
	uint8_t *lanes, *types; /* lane = / type = : which ids (NULL: any) */
	/* grouped by lane or type (GROUP BY, ORDER BY): the wanted events'
	 * positions in that order, read in turn (k) */
	uint32_t *order;
	uint64_t norder, k;
	struct event e;
	uint64_t pass_base;   /* the filters' verdicts for [pass_base, +SCAN_CHUNK) */
	bool pass_valid;
	uint64_t pass[SCAN_CHUNK / 64];
	struct buf b;
};

struct vtab {
	sqlite3_vtab base;
	struct sql_ctx *x;
	const struct small_table *small; /* NULL: events */
};

/* A table declared by schema, reading x (small: one of the small tables). */
static int vt_connect(sqlite3 *db, const char *schema, struct sql_ctx *x, const struct small_table *small,
		      sqlite3_vtab **out)
{
	int rc = sqlite3_declare_vtab(db, schema);
	if (rc != SQLITE_OK)
		return rc;
	struct vtab *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->x = x;
	v->small = small;
	*out = &v->base;
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int ev_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc, (void)argv, (void)err;
	return vt_connect(db, events_schema, aux, NULL, out);
}

/* The constraints the model answers, one letter each in idxStr (their
 * values in argv, in order): ts > >= < <= = as a b c d e, id as f g h i j,
 * lane = as l, type = as t (compared as bytes: not under another collation).  Where the value is known now and the model's
 * answer is exact (an integer time or id; a name), SQLite
 * does not check it again per row; else it does, and these only narrow
 * what is read.  A first letter L or T (M or U
 * descending) asks for the rows in the order of their lane's or type's
 * name: GROUP BY and ORDER BY lane or type without SQLite's sort. */
/* Is the model's answer to constraint i (op) exactly the constraint's? */
static bool exact(sqlite3_index_info *ii, int i, char op)
{
	sqlite3_value *v = NULL;
	if (sqlite3_vtab_rhs_value(ii, i, &v) != SQLITE_OK)
		return false; /* (known only when the statement runs) */
	if (op == 'l' || op == 't')
		return sqlite3_value_type(v) == SQLITE_TEXT;
	sqlite3_int64 x = sqlite3_value_int64(v);
	return sqlite3_value_type(v) == SQLITE_INTEGER && x != INT64_MAX && x != INT64_MIN;
}

static int ev_best_index(sqlite3_vtab *vt, sqlite3_index_info *ii)
{
	struct vtab *v = (struct vtab *)vt;
	char *ops = sqlite3_malloc(ii->nConstraint + 2);
	if (!ops)
		return SQLITE_NOMEM;
	int n = 0, grouped = 0;
	if (ii->nOrderBy == 1 && (ii->aOrderBy[0].iColumn == EC_LANE || ii->aOrderBy[0].iColumn == EC_TYPE) &&
	    model_count(v->x->t->m) <= UINT32_MAX) {
		ops[grouped++] = (char)((ii->aOrderBy[0].iColumn == EC_LANE ? 'L' : 'T') + ii->aOrderBy[0].desc);
		ii->orderByConsumed = 1;
	}
	double rows = (double)model_count(v->x->t->m) + 1;
	for (int i = 0; i < ii->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ii->aConstraint[i];
		if (!c->usable)
			continue;
		static const unsigned char cmp[] = {SQLITE_INDEX_CONSTRAINT_GT, SQLITE_INDEX_CONSTRAINT_GE,
						    SQLITE_INDEX_CONSTRAINT_LT, SQLITE_INDEX_CONSTRAINT_LE,
						    SQLITE_INDEX_CONSTRAINT_EQ};
		int k = 0;
		while (k < 5 && cmp[k] != c->op)
			k++;
		char op = 0;
		if (k < 5 && (c->iColumn == EC_TS || c->iColumn == EC_ID))
			op = (char)((c->iColumn == EC_TS ? 'a' : 'f') + k);
		else if (k == 4 && (c->iColumn == EC_LANE || c->iColumn == EC_TYPE) &&
			 !strcmp(sqlite3_vtab_collation(ii, i), "BINARY")) /* (names as bytes) */
			op = c->iColumn == EC_LANE ? 'l' : 't';
		if (!op)
			continue;
		ops[grouped + n++] = op;
		ii->aConstraintUsage[i].argvIndex = n;
		ii->aConstraintUsage[i].omit = exact(ii, i, op);
		rows /= k == 4 ? 100 : 4; /* (a guess: equality narrows most) */
	}
	ops[grouped + n] = 0;
	ii->idxStr = ops;
	ii->needToFreeIdxStr = 1;
	ii->estimatedRows = (sqlite3_int64)rows + 1;
	ii->estimatedCost = rows + 1;
	/* in time order already */
	if (!grouped && ii->nOrderBy == 1 && !ii->aOrderBy[0].desc &&
	    (ii->aOrderBy[0].iColumn == EC_ID || ii->aOrderBy[0].iColumn == EC_TS))
		ii->orderByConsumed = 1;
	return SQLITE_OK;
}

static int ev_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct ev_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	c->x = ((struct vtab *)vt)->x;
	*out = &c->base;
	return SQLITE_OK;
}

static int ev_close(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	free(c->lanes);
	free(c->types);
	free(c->order);
	buf_free(&c->b);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* An integer bound from a value: false when it is no number (then it
 * does not narrow).  up: round a fraction up, else down. */
static bool int_bound(sqlite3_value *v, bool up, int64_t *out)
{
	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER: *out = sqlite3_value_int64(v); return true;
	case SQLITE_FLOAT: {
		double d = up ? ceil(sqlite3_value_double(v)) : floor(sqlite3_value_double(v));
		if (!(d > -9.2e18 && d < 9.2e18))
			return false;
		*out = (int64_t)d;
		return true;
	}
	default: return false;
	}
}

/* The ids of the lanes (or types) named s, as a byte per id. */
static uint8_t *named(struct model *m, bool lanes, const char *s)
{
	uint32_t n = lanes ? model_nlanes(m) : model_ntypes(m);
	uint8_t *set = xcalloc(n + 1, 1);
	size_t len = strlen(s), k;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = model_strget(m, lanes ? model_lane_get(m, i)->name : model_type_get(m, i)->name, &k);
		set[i] = k == len && !memcmp(name, s, len);
	}
	return set;
}

static bool ev_wanted(struct ev_cursor *c)
{
	struct trace *t = c->x->t;
	model_get(t->m, c->pos, &c->e);
	if ((c->lanes && !c->lanes[c->e.lane]) || (c->types && !c->types[c->e.type]))
		return false;
	if (!filterset_active(c->x->fs))
		return true;
	uint64_t base = c->pos - c->pos % SCAN_CHUNK;
	if (!c->pass_valid || c->pass_base != base) {
		filterset_mark(c->x->fs, t, base, MIN(model_count(t->m), base + SCAN_CHUNK), base, c->pass, NULL, NULL, 0);
		c->pass_base = base;
		c->pass_valid = true;
	}
	return c->pass[(c->pos - base) / 64] >> ((c->pos - base) % 64) & 1;
}

/* On to the next wanted event at or after pos. */
static void ev_seek(struct ev_cursor *c)
{
	for (uint64_t n = 1; c->pos < c->hi && !ev_wanted(c); c->pos++, n++)
		if (n % STOP_EVERY == 0 && should_stop(c->x))
			c->pos = c->hi - 1; /* (then past the end) */
}

/* Names in SQLite's BINARY order: bytes, then the shorter first. */
static int binary_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int r = memcmp(a, b, MIN(na, nb));
	return r ? r : (na > nb) - (na < nb);
}

/* The names of two lanes (or types) compared. */
static int name_cmp(struct model *m, bool lanes, uint32_t a, uint32_t b)
{
	size_t na, nb;
	const char *sa = model_strget(m, lanes ? model_lane_get(m, a)->name : model_type_get(m, a)->name, &na);
	const char *sb = model_strget(m, lanes ? model_lane_get(m, b)->name : model_type_get(m, b)->name, &nb);
	return binary_cmp(sa, na, sb, nb);
}

static struct model *sort_model; /* (qsort has no context) */
static bool sort_lanes;

static int by_name(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int r = name_cmp(sort_model, sort_lanes, a, b);
	return r ? r : (a > b) - (a < b);
}

#define NO_RANK UINT32_MAX

/* The rank of the name of the event at p's lane (or type), if it is wanted. */
static uint32_t group_rank(struct ev_cursor *c, uint64_t p, bool lanes, const uint32_t *rank)
{
	c->pos = p;
	return ev_wanted(c) ? rank[lanes ? c->e.lane : c->e.type] : NO_RANK;
}

/* The wanted events of [pos, hi) in the order of their lane's (or type's)
 * name, those of one name together in time order: a counting sort on the
 * rank of the name, in two passes over the range. */
static void ev_group(struct ev_cursor *c, bool lanes, bool desc)
{
	struct model *m = c->x->t->m;
	uint32_t nids = lanes ? model_nlanes(m) : model_ntypes(m), nranks = 0;
	uint32_t *ids = xmalloc(((size_t)nids + 1) * sizeof *ids), *rank = xmalloc(((size_t)nids + 1) * sizeof *rank);
	for (uint32_t i = 0; i < nids; i++)
		ids[i] = i;
	sort_model = m, sort_lanes = lanes;
	qsort(ids, nids, sizeof *ids, by_name);
	for (uint32_t i = 0; i < nids; i++) { /* one rank per name */
		nranks += i && name_cmp(m, lanes, ids[i - 1], ids[i]) != 0;
		rank[ids[i]] = nranks;
	}
	nranks++;
	for (uint32_t i = 0; desc && i < nids; i++)
		rank[i] = nranks - 1 - rank[i];
	uint64_t *start = xcalloc((size_t)nranks + 1, sizeof *start), from = c->pos, to = c->hi;
	/* each event's rank from the first pass, for the second (when ranks
	 * fit in 16 bits: else it reads the events again) */
	uint16_t *kept = nranks < UINT16_MAX ? xmalloc((size_t)(to - from) * sizeof *kept + 1) : NULL;
	for (uint64_t p = from; p < to && !((p - from) % STOP_EVERY == 0 && should_stop(c->x)); p++) { /* how many of each name */
		uint32_t r = group_rank(c, p, lanes, rank);
		if (r != NO_RANK)
			start[r + 1]++;
		if (kept)
			kept[p - from] = r == NO_RANK ? UINT16_MAX : (uint16_t)r;
	}
	for (uint32_t r = 0; r < nranks; r++)
		start[r + 1] += start[r];
	c->norder = start[nranks];
	c->order = xmalloc((size_t)c->norder * sizeof *c->order + 1);
	c->pass_valid = false;
	for (uint64_t p = from; p < to && !((p - from) % STOP_EVERY == 0 && should_stop(c->x)); p++) { /* where each goes */
		uint32_t r = !kept ? group_rank(c, p, lanes, rank) : kept[p - from] == UINT16_MAX ? NO_RANK : kept[p - from];
		if (r != NO_RANK)
			c->order[start[r]++] = (uint32_t)p;
	}
	free(kept);
	c->k = 0;
	if (c->x->stopped) /* (SQLite ends the statement as interrupted) */
		c->norder = 0;
	if (c->norder) {
		c->pos = c->order[0];
		model_get(m, c->pos, &c->e);
	}
	free(ids);
	free(rank);
	free(start);
}

static int ev_filter(sqlite3_vtab_cursor *cur, int idx, const char *ops, int argc, sqlite3_value **argv)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	struct model *m = c->x->t->m;
	(void)idx;
	free(c->lanes);
	free(c->types);
	free(c->order);
	c->lanes = c->types = NULL;
	c->order = NULL;
	c->pos = 0;
	c->hi = model_count(m);
	char group = ops && ops[0] && strchr("LMTU", ops[0]) ? *ops++ : 0;
	for (int i = 0; i < argc && ops && ops[i]; i++) {
		int64_t v;
		char op = ops[i];
		if (op == 'l' || op == 't') {
			const char *s = (const char *)sqlite3_value_text(argv[i]);
			uint8_t *set = named(m, op == 'l', s ? s : "");
			uint8_t **slot = op == 'l' ? &c->lanes : &c->types;
			if (*slot) { /* two of them: both */
				uint32_t n = op == 'l' ? model_nlanes(m) : model_ntypes(m);
				for (uint32_t k = 0; k < n; k++)
					set[k] &= (*slot)[k];
				free(*slot);
			}
			*slot = set;
			continue;
		}
		/* a b c d e: ts > >= < <= = ; f g h i j: id the same */
		bool ts = op <= 'e';
		int k = op - (ts ? 'a' : 'f');
		/* (a fraction: > and <= round down, >= < = up) */
		if (!int_bound(argv[i], k == 1 || k == 2 || k == 4, &v))
			continue;
		uint64_t lo = 0, hi = UINT64_MAX;
		if (k == 0 || k == 1 || k == 4) { /* a lower bound: the first at or after */
			int64_t from = k == 0 && v < INT64_MAX ? v + 1 : v;
			lo = ts ? model_seek(m, from) : from < 0 ? 0 : (uint64_t)from;
		}
		if (k == 2 || k == 3 || k == 4) { /* an upper bound: the first past it */
			int64_t past = k == 2 ? v : v < INT64_MAX ? v + 1 : v;
			hi = ts ? (k != 2 && v == INT64_MAX ? model_count(m) : model_seek(m, past))
				: past < 0 ? 0 : (uint64_t)past;
		}
		c->pos = MAX(c->pos, lo);
		c->hi = MIN(c->hi, hi);
	}
	c->pass_valid = false;
	if (group)
		ev_group(c, group == 'L' || group == 'M', group == 'M' || group == 'U');
	else
		ev_seek(c);
	return SQLITE_OK;
}

static int ev_next(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	if (c->order) {
		if (++c->k < c->norder) {
			c->pos = c->order[c->k];
			model_get(c->x->t->m, c->pos, &c->e);
		}
		return SQLITE_OK;
	}
	c->pos++;
	ev_seek(c);
	return SQLITE_OK;
}

static int ev_eof(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	return c->order ? c->k >= c->norder : c->pos >= c->hi;
}

static int ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *id)
{
	*id = (sqlite3_int64)((struct ev_cursor *)cur)->pos;
	return SQLITE_OK;
}

static void result_sid(sqlite3_context *ctx, const struct model *m, uint32_t sid)
{
	size_t n;
	const char *s = model_strget(m, sid, &n);
	sqlite3_result_text(ctx, s, (int)n, SQLITE_TRANSIENT);
}

static void result_buf(sqlite3_context *ctx, const struct buf *b)
{
	sqlite3_result_text(ctx, buf_str(b), (int)b->len, SQLITE_TRANSIENT);
}

static void event_flags(const struct event *e, struct buf *b)
{
	static const struct { uint32_t flag; const char *word; } words[] = {
		{EVF_DAMAGED, "damaged"}, {EVF_COPY, "copy"}, {EVF_META, "meta"}, {EVF_NO_TS, "no_ts"}};
	enum ev_role r = ev_role(e);
	if ((r == ROLE_BEGIN || r == ROLE_END) && e->dur == TTV_NODUR)
		buf_adds(b, "unpaired");
	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		if (e->flags & words[i].flag)
			buf_printf(b, "%s%s", b->len ? "," : "", words[i].word);
}

static int ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	struct trace *t = c->x->t;
	struct model *m = t->m;
	const struct event *e = &c->e;
	const struct type *ty = model_type_get(m, e->type);
	buf_reset(&c->b);
	switch ((enum ev_col)col) {
	case EC_ID: sqlite3_result_int64(ctx, (sqlite3_int64)c->pos); break;
	case EC_TS: sqlite3_result_int64(ctx, e->ts); break;
	case EC_DUR:
		if (e->dur != TTV_NODUR)
			sqlite3_result_int64(ctx, (sqlite3_int64)e->dur);
		break;
	case EC_LANE: result_sid(ctx, m, model_lane_get(m, e->lane)->name); break;
	case EC_TYPE: result_sid(ctx, m, ty->name); break;
	case EC_CATEGORY:
		if (ty->category)
			result_sid(ctx, m, ty->category);
		break;
	case EC_NAME:
		if (e->name)
			result_sid(ctx, m, e->name);
		break;
	case EC_SUMMARY:
		trace_scan(t, e);
		event_summary(t, e, &c->b);
		result_buf(ctx, &c->b);
		break;
	case EC_ROLE: sqlite3_result_text(ctx, role_word(ev_role(e)), -1, SQLITE_STATIC); break;
	case EC_FLAGS:
		event_flags(e, &c->b);
		result_buf(ctx, &c->b);
		break;
	case EC_FILE:
		sqlite3_result_text(ctx, e->input < t->nin ? t->in[e->input]->path : "", -1, SQLITE_TRANSIENT);
		break;
	case EC_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)e->off); break;
	case EC_FIELDS: {
		struct json_sink js;
		trace_scan(t, e);
		json_sink_begin(&js, &c->b);
		trace_event_fields(t, e, &js.s);
		json_sink_end(&js);
		result_buf(ctx, &c->b);
		break;
	}
	}
	return SQLITE_OK;
}

static const sqlite3_module events_module = {
	.xConnect = ev_connect,
	.xBestIndex = ev_best_index,
	.xDisconnect = vt_disconnect,
	.xOpen = ev_open,
	.xClose = ev_close,
	.xFilter = ev_filter,
	.xNext = ev_next,
	.xEof = ev_eof,
	.xColumn = ev_column,
	.xRowid = ev_rowid,
};

/* ---- spans: as the call tree nests them ------------------------------------------ */

static const char spans_schema[] = "CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, self INTEGER, depth INTEGER, "
				   "parent_id INTEGER, lane TEXT, type TEXT, name TEXT)";

#define SPAN_STEP_NS 20000000 /* the call tree is built this long at a time */

/* The call tree built as rows are read: the spans it counts wait in q. */
struct sp_cursor {
	sqlite3_vtab_cursor base;
	struct sql_ctx *x;
	struct calltree ct;
	bool building;
	struct ct_span *q;
	size_t nq, capq, k;
};

static int sp_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc, (void)argv, (void)err;
	return vt_connect(db, spans_schema, aux, NULL, out);
}

static int sp_best_index(sqlite3_vtab *vt, sqlite3_index_info *ii)
{
	ii->estimatedRows = (sqlite3_int64)model_count(((struct vtab *)vt)->x->t->m) / 2 + 1;
	ii->estimatedCost = (double)ii->estimatedRows * 4;
	return SQLITE_OK;
}

static int sp_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct sp_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	c->x = ((struct vtab *)vt)->x;
	*out = &c->base;
	return SQLITE_OK;
}

static int sp_close(sqlite3_vtab_cursor *cur)
{
	struct sp_cursor *c = (struct sp_cursor *)cur;
	calltree_free(&c->ct);
	free(c->q);
	sqlite3_free(c);
	return SQLITE_OK;
}

static void sp_counted(void *ctx, const struct ct_span *s)
{
	struct sp_cursor *c = ctx;
	xgrow(&c->q, &c->capq, c->nq + 1, sizeof *c->q);
	c->q[c->nq++] = *s;
}

/* On to the next span: built further when none waits. */
static void sp_advance(struct sp_cursor *c)
{
	c->k++;
	while (c->k >= c->nq && !c->ct.done && !should_stop(c->x)) {
		c->nq = 0, c->k = 0;
		calltree_step(&c->ct, now_ns() + SPAN_STEP_NS, false);
	}
}

static int sp_filter(sqlite3_vtab_cursor *cur, int idx, const char *s, int argc, sqlite3_value **argv)
{
	(void)idx, (void)s, (void)argc, (void)argv;
	struct sp_cursor *c = (struct sp_cursor *)cur;
	struct ct_scope sc;
	calltree_free(&c->ct);
	ct_scope_filters(&sc, c->x->t, c->x->fs);
	calltree_begin(&c->ct, &sc);
	c->ct.spanned = sp_counted;
	c->ct.spanned_ctx = c;
	c->nq = 0;
	c->k = (size_t)-1;
	sp_advance(c);
	return SQLITE_OK;
}

static int sp_next(sqlite3_vtab_cursor *cur)
{
	sp_advance((struct sp_cursor *)cur);
	return SQLITE_OK;
}

static int sp_eof(sqlite3_vtab_cursor *cur)
{
	struct sp_cursor *c = (struct sp_cursor *)cur;
	return c->k >= c->nq;
}

static int sp_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *id)
{
	struct sp_cursor *c = (struct sp_cursor *)cur;
	*id = (sqlite3_int64)c->q[c->k].pos;
	return SQLITE_OK;
}

static int sp_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct sp_cursor *c = (struct sp_cursor *)cur;
	const struct ct_span *sp = &c->q[c->k];
	struct model *m = c->x->t->m;
	switch (col) {
	case 0: sqlite3_result_int64(ctx, (sqlite3_int64)sp->pos); break;
	case 1: sqlite3_result_int64(ctx, sp->start); break;
	case 2: sqlite3_result_int64(ctx, (sqlite3_int64)sp->dur); break;
	case 3: sqlite3_result_int64(ctx, (sqlite3_int64)sp->self); break;
	case 4: sqlite3_result_int(ctx, (int)sp->depth); break;
	case 5:
		if (sp->parent != CT_NO_SPAN)
			sqlite3_result_int64(ctx, (sqlite3_int64)sp->parent);
		break;
	case 6: result_sid(ctx, m, model_lane_get(m, sp->lane)->name); break;
	case 7: result_sid(ctx, m, model_type_get(m, sp->type)->name); break;
	case 8: result_sid(ctx, m, sp->name ? sp->name : model_type_get(m, sp->type)->name); break;
	}
	return SQLITE_OK;
}

static const sqlite3_module spans_module = {
	.xConnect = sp_connect,
	.xBestIndex = sp_best_index,
	.xDisconnect = vt_disconnect,
	.xOpen = sp_open,
	.xClose = sp_close,
	.xFilter = sp_filter,
	.xNext = sp_next,
	.xEof = sp_eof,
	.xColumn = sp_column,
	.xRowid = sp_rowid,
};

/* ---- the small tables: a row per lane, type, source, damage report ---------- */

struct small_table {
	const char *name, *schema;
	int64_t (*rows)(struct sql_ctx *x);
	void (*column)(struct sql_ctx *x, int64_t row, int col, sqlite3_context *ctx);
	bool (*present)(struct sql_ctx *x, int64_t row); /* NULL: every row is */
	/* xUpdate's arguments (NULL: read-only); SQLITE_OK, or an error and why */
	int (*update)(struct sql_ctx *x, int argc, sqlite3_value **argv, sqlite3_int64 *rowid, const char **why);
};

static int64_t lanes_rows(struct sql_ctx *x) { return model_nlanes(x->t->m); }

static void lanes_column(struct sql_ctx *x, int64_t row, int col, sqlite3_context *ctx)
{
	struct trace *t = x->t;
	const struct lane *ln = model_lane_get(t->m, (uint32_t)row);
	switch (col) {
	case 0: sqlite3_result_int64(ctx, row); break;
	case 1: result_sid(ctx, t->m, ln->name); break;
	case 2: sqlite3_result_int64(ctx, ln->source); break;
	case 3: sqlite3_result_int64(ctx, (sqlite3_int64)ln->key); break;
	case 4: sqlite3_result_int64(ctx, (sqlite3_int64)ln->count); break;
	case 5:
	case 6:
		if (ln->has_span)
			sqlite3_result_int64(ctx, col == 5 ? ln->first : ln->last);
		break;
	case 7: sqlite3_result_int(ctx, ln->counter); break;
	}
}

/* Type 0 is what an event gets when the type table is full: a row only
 * when some event has it. */
static uint32_t types_from(struct sql_ctx *x) { return model_type_count(x->t->m, 0) ? 0 : 1; }

static int64_t types_rows(struct sql_ctx *x) { return model_ntypes(x->t->m) - types_from(x); }

static void types_column(struct sql_ctx *x, int64_t row, int col, sqlite3_context *ctx)
{
	struct trace *t = x->t;
	row += types_from(x);
	const struct type *ty = model_type_get(t->m, (uint32_t)row);
	switch (col) {
	case 0: sqlite3_result_int64(ctx, row); break;
	case 1: result_sid(ctx, t->m, ty->name); break;
	case 2:
		if (ty->category)
			result_sid(ctx, t->m, ty->category);
		break;
	case 3: sqlite3_result_text(ctx, role_word((enum ev_role)ty->role), -1, SQLITE_STATIC); break;
	case 4:
		if (ty->name_field)
			result_sid(ctx, t->m, ty->name_field);
		break;
	}
}

static int64_t sources_rows(struct sql_ctx *x) { return (int64_t)x->t->nsrc; }

static void sources_column(struct sql_ctx *x, int64_t row, int col, sqlite3_context *ctx)
{
	struct trace *t = x->t;
	const struct source *s = t->src[row];
	switch (col) {
	case 0: sqlite3_result_int64(ctx, row); break;
	case 1: sqlite3_result_text(ctx, s->path, -1, SQLITE_TRANSIENT); break;
	case 2: {
		const char *title, *f = trace_source_format(s, &title);
		if (f)
			sqlite3_result_text(ctx, f, -1, SQLITE_TRANSIENT);
		break;
	}
	case 3: sqlite3_result_text(ctx, source_status(s), -1, SQLITE_STATIC); break;
	case 4: sqlite3_result_int64(ctx, (sqlite3_int64)s->ninputs); break;
	case 5: sqlite3_result_int64(ctx, (sqlite3_int64)(s->ndmg + s->dmg_dropped)); break;
	case 6:
		if (s->error)
			sqlite3_result_text(ctx, s->error, -1, SQLITE_TRANSIENT);
		break;
	}
}

/* Damage reports, source by source: row -> (source, report). */
static const struct damage *damage_at(struct trace *t, int64_t row, size_t *src)
{
	for (size_t i = 0; i < t->nsrc; i++) {
		if ((uint64_t)row < t->src[i]->ndmg) {
			*src = i;
			return &t->src[i]->dmg[row];
		}
		row -= (int64_t)t->src[i]->ndmg;
	}
	return NULL;
}

static int64_t damage_rows(struct sql_ctx *x)
{
	struct trace *t = x->t;
	int64_t n = 0;
	for (size_t i = 0; i < t->nsrc; i++)
		n += (int64_t)t->src[i]->ndmg;
	return n;
}

static void damage_column(struct sql_ctx *x, int64_t row, int col, sqlite3_context *ctx)
{
	struct trace *t = x->t;
	size_t src;
	const struct damage *d = damage_at(t, row, &src);
	if (!d)
		return;
	switch (col) {
	case 0: sqlite3_result_int64(ctx, (sqlite3_int64)src); break;
	case 1: sqlite3_result_text(ctx, d->path, -1, SQLITE_TRANSIENT); break;
	case 2:
		if (d->has_off)
			sqlite3_result_int64(ctx, (sqlite3_int64)d->off);
		break;
	case 3: sqlite3_result_text(ctx, d->msg, -1, SQLITE_TRANSIENT); break;
	case 4: sqlite3_result_int(ctx, d->fatal); break;
	case 5:
		if (d->has_ts)
			sqlite3_result_int64(ctx, d->ts);
		break;
	}
}

/* ---- marks: the viewer's, a row per mark set, writable ---------------------- */

#define MARKS 26 /* a to z: the row is the letter's number */

static int64_t marks_rows(struct sql_ctx *x) { return x->host && x->host->mark_get ? MARKS : 0; }

static bool marks_present(struct sql_ctx *x, int64_t row)
{
	uint64_t pos;
	const char *note;
	return x->host->mark_get(x->host->arg, (int)row, &pos, &note);
}

static void marks_column(struct sql_ctx *x, int64_t row, int col, sqlite3_context *ctx)
{
	uint64_t pos;
	const char *note;
	struct event e;
	if (!x->host->mark_get(x->host->arg, (int)row, &pos, &note))
		return;
	char letter[2] = {(char)('a' + row), 0};
	switch (col) {
	case 0: sqlite3_result_text(ctx, letter, 1, SQLITE_TRANSIENT); break;
	case 1: sqlite3_result_int64(ctx, (sqlite3_int64)pos); break;
	case 2:
		model_get(x->t->m, pos, &e);
		sqlite3_result_int64(ctx, e.ts);
		break;
	case 3:
		if (note)
			sqlite3_result_text(ctx, note, -1, SQLITE_TRANSIENT);
		break;
	}
}

/* Which event a mark written with this id and ts is on: the id when it is
 * given (and, for a mark that was on `was`, changed), else the first event
 * at or after ts. */
static bool mark_event(struct sql_ctx *x, sqlite3_value *id, sqlite3_value *ts, uint64_t was, uint64_t *pos,
		       const char **why)
{
	struct model *m = x->t->m;
	struct event e;
	bool has_id = sqlite3_value_type(id) != SQLITE_NULL, has_ts = sqlite3_value_type(ts) != SQLITE_NULL;
	if (was != UINT64_MAX) { /* an UPDATE gives every column: what changed? */
		model_get(m, was, &e);
		has_id &= sqlite3_value_int64(id) != (sqlite3_int64)was;
		has_ts &= sqlite3_value_int64(ts) != e.ts;
		if (!has_id && !has_ts) {
			*pos = was;
			return true;
		}
	}
	if (has_id) {
		sqlite3_int64 i = sqlite3_value_int64(id);
		*pos = (uint64_t)i;
		*why = "a mark's id is an event's (0 to the count of events - 1)";
		return i >= 0 && (uint64_t)i < model_count(m);
	}
	*why = "a mark needs the id or the ts of an event";
	if (!has_ts)
		return false;
	*pos = model_seek(m, sqlite3_value_int64(ts));
	*why = "no event at or after that ts";
	return *pos < model_count(m);
}

/* INSERT (mark, id | ts, note), UPDATE, DELETE: the viewer's marks.  An
 * INSERT without a mark takes the first letter free. */
static int marks_update(struct sql_ctx *x, int argc, sqlite3_value **argv, sqlite3_int64 *rowid, const char **why)
{
	const struct sql_host *h = x->host;
	uint64_t pos, was = UINT64_MAX;
	const char *note;
	if (!h || !h->mark_set) {
		*why = "only the viewer has them";
		return SQLITE_READONLY;
	}
	if (argc == 1) {
		h->mark_set(h->arg, (int)sqlite3_value_int64(argv[0]), false, 0, NULL);
		return SQLITE_OK;
	}
	int old = sqlite3_value_type(argv[0]) == SQLITE_NULL ? -1 : (int)sqlite3_value_int64(argv[0]), letter = old;
	if (old >= 0)
		h->mark_get(h->arg, old, &was, &note);
	const unsigned char *s = sqlite3_value_text(argv[2]);
	if (s) {
		letter = s[0] >= 'a' && s[0] <= 'z' && !s[1] ? s[0] - 'a' : -1;
		*why = "a mark is a letter, a to z";
	} else if (old < 0) { /* the first one free */
		for (letter = 0; letter < MARKS && h->mark_get(h->arg, letter, &pos, &note); letter++)
			;
		*why = "every mark, a to z, is set";
	}
	if (letter < 0 || letter >= MARKS)
		return SQLITE_CONSTRAINT;
	if (letter != old && h->mark_get(h->arg, letter, &pos, &note)) {
		*why = "that mark is set: UPDATE it";
		return SQLITE_CONSTRAINT;
	}
	if (!mark_event(x, argv[3], argv[4], was, &pos, why))
		return SQLITE_CONSTRAINT;
	if (old >= 0 && old != letter)
		h->mark_set(h->arg, old, false, 0, NULL);
	h->mark_set(h->arg, letter, true, pos, (const char *)sqlite3_value_text(argv[5]));
	*rowid = letter;
	return SQLITE_OK;
}

static const struct small_table small_tables[] = {
	{"lanes",
	 "CREATE TABLE x(id INTEGER, name TEXT, source INTEGER, key INTEGER, events INTEGER, first_ts INTEGER, "
	 "last_ts INTEGER, counter INTEGER)",
	 lanes_rows, lanes_column, NULL, NULL},
	{"types", "CREATE TABLE x(id INTEGER, name TEXT, category TEXT, role TEXT, name_field TEXT)", types_rows,
	 types_column, NULL, NULL},
	{"sources",
	 "CREATE TABLE x(id INTEGER, path TEXT, format TEXT, status TEXT, files INTEGER, damage INTEGER, error TEXT)",
	 sources_rows, sources_column, NULL, NULL},
	{"damage", "CREATE TABLE x(source INTEGER, file TEXT, offset INTEGER, message TEXT, fatal INTEGER, ts INTEGER)",
	 damage_rows, damage_column, NULL, NULL},
	{"marks", "CREATE TABLE x(mark TEXT, id INTEGER, ts INTEGER, note TEXT)", marks_rows, marks_column, marks_present,
	 marks_update},
};

/* A small table's module gets this as its aux: the trace and which table. */
struct small_aux {
	struct sql_ctx *x;
	const struct small_table *table;
};

struct small_cursor {
	sqlite3_vtab_cursor base;
	int64_t row, n;
};

static int small_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc, (void)argv, (void)err;
	struct small_aux *a = aux;
	return vt_connect(db, a->table->schema, a->x, a->table, out);
}

static int small_best_index(sqlite3_vtab *vt, sqlite3_index_info *ii)
{
	struct vtab *v = (struct vtab *)vt;
	ii->estimatedRows = v->small->rows(v->x) + 1;
	ii->estimatedCost = (double)ii->estimatedRows;
	return SQLITE_OK;
}

static int small_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct small_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int small_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int small_next(sqlite3_vtab_cursor *cur);

static int small_filter(sqlite3_vtab_cursor *cur, int idx, const char *s, int argc, sqlite3_value **argv)
{
	(void)idx, (void)s, (void)argc, (void)argv;
	struct small_cursor *c = (struct small_cursor *)cur;
	struct vtab *v = (struct vtab *)cur->pVtab;
	c->n = v->small->rows(v->x);
	c->row = -1;
	return small_next(cur);
}

static int small_next(sqlite3_vtab_cursor *cur)
{
	struct small_cursor *c = (struct small_cursor *)cur;
	struct vtab *v = (struct vtab *)cur->pVtab;
	while (++c->row < c->n && v->small->present && !v->small->present(v->x, c->row))
		;
	return SQLITE_OK;
}

static int small_eof(sqlite3_vtab_cursor *cur)
{
	struct small_cursor *c = (struct small_cursor *)cur;
	return c->row >= c->n;
}

static int small_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct vtab *v = (struct vtab *)cur->pVtab;
	v->small->column(v->x, ((struct small_cursor *)cur)->row, col, ctx);
	return SQLITE_OK;
}

static int small_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *id)
{
	*id = ((struct small_cursor *)cur)->row;
	return SQLITE_OK;
}

static int small_update(sqlite3_vtab *vt, int argc, sqlite3_value **argv, sqlite3_int64 *rowid)
{
	struct vtab *v = (struct vtab *)vt;
	const char *why = "";
	int rc = v->small->update(v->x, argc, argv, rowid, &why);
	if (rc != SQLITE_OK) {
		sqlite3_free(vt->zErrMsg);
		vt->zErrMsg = sqlite3_mprintf("%s: %s", v->small->name, why);
	}
	return rc;
}

#define SMALL_MODULE                                                                                   \
	.xConnect = small_connect, .xBestIndex = small_best_index, .xDisconnect = vt_disconnect,         \
	.xOpen = small_open, .xClose = small_close, .xFilter = small_filter, .xNext = small_next,         \
	.xEof = small_eof, .xColumn = small_column, .xRowid = small_rowid
static const sqlite3_module small_module = {SMALL_MODULE};
static const sqlite3_module small_writable_module = {SMALL_MODULE, .xUpdate = small_update};

/* ---- a database over the trace ------------------------------------------------ */

#define SQL_HEAP_LIMIT (1ll << 30) /* SQLite's own memory (sorts, groups): at most this */

/* An in-memory database whose tables (eponymous: no CREATE needed) read
 * the trace. */
#define SQL_NTABLES ARRAY_LEN(small_tables)
#define PROGRESS_OPS 4096 /* SQLite's steps between two should_stop() */

struct sql_db {
	sqlite3 *db;
	struct sql_ctx x;
	struct small_aux aux[SQL_NTABLES];
};

static int progress(void *x) { return should_stop(x); }

struct sql_db *sql_open(struct trace *t, struct filterset *fs, const struct sql_host *host, char **err)
{
	struct sql_db *d = xcalloc(1, sizeof *d);
	d->x = (struct sql_ctx){.t = t, .fs = fs, .host = host};
	sqlite3_hard_heap_limit64(SQL_HEAP_LIMIT);
	if (sqlite3_open_v2(":memory:", &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		*err = xstrdup(d->db ? sqlite3_errmsg(d->db) : "cannot start SQLite");
		sql_close(d);
		return NULL;
	}
	d->x.db = d->db;
	int rc = sqlite3_create_module_v2(d->db, "events", &events_module, &d->x, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module_v2(d->db, "spans", &spans_module, &d->x, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < SQL_NTABLES; i++) {
		d->aux[i] = (struct small_aux){&d->x, &small_tables[i]};
		rc = sqlite3_create_module_v2(d->db, small_tables[i].name,
					      small_tables[i].update ? &small_writable_module : &small_module, &d->aux[i], NULL);
	}
	if (rc != SQLITE_OK) {
		*err = xstrdup(sqlite3_errmsg(d->db));
		sql_close(d);
		return NULL;
	}
	if (host)
		sqlite3_progress_handler(d->db, PROGRESS_OPS, progress, &d->x);
	return d;
}

void sql_close(struct sql_db *d)
{
	if (!d)
		return;
	for (sqlite3_stmt *st; (st = sqlite3_next_stmt(d->db, NULL));) /* (one left running by a longjmp) */
		sqlite3_finalize(st);
	sqlite3_close(d->db);
	free(d);
}

/* The statement at *at, which then moves past it (*st NULL: only a comment
 * or spaces were left).  False when SQLite cannot read it: why (sanitized)
 * in err, and where in text it stopped in *err_at (-1: not known). */
static bool next_statement(sqlite3 *db, const char *text, const char **at, sqlite3_stmt **st, struct buf *err,
			   int *err_at)
{
	const char *tail = NULL;
	*st = NULL;
	if (sqlite3_prepare_v2(db, *at, -1, st, &tail) != SQLITE_OK) {
		const char *msg = sqlite3_errmsg(db);
		esc_term_cstr(err, msg);
		int off = sqlite3_error_offset(db);
		*err_at = off >= 0 ? (int)(*at - text) + off : -1;
		return false;
	}
	*at = tail;
	return true;
}

/* ---- the viewer's results ------------------------------------------------------ */

static void value_text(sqlite3_stmt *st, int i, struct buf *b);

#define RESULT_TEXT_MAX (256u << 20) /* a result's text: at most this (cell offsets are 32-bit) */

void sql_result_free(struct sql_result *r)
{
	buf_free(&r->text);
	free(r->name_at);
	free(r->cell);
	free(r->error);
	*r = (struct sql_result){.error_at = -1};
}

/* A statement's rows into r (a statement with columns: a new result). */
static bool collect(struct sql_db *d, sqlite3_stmt *st, size_t max_cells, struct sql_result *r)
{
	int ncols = sqlite3_column_count(st), rc;
	if (ncols) {
		struct sql_result fresh = {.ncols = ncols, .error_at = -1};
		sql_result_free(r);
		*r = fresh;
		r->name_at = xcalloc((size_t)ncols, sizeof *r->name_at);
		for (int i = 0; i < ncols; i++) {
			const char *name = sqlite3_column_name(st, i);
			r->name_at[i] = (uint32_t)r->text.len;
			esc_term(&r->text, name, strlen(name));
			buf_addc(&r->text, 0);
		}
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = (r->nrows + 1) * (size_t)ncols;
		if (n > max_cells || r->text.len > RESULT_TEXT_MAX) {
			r->cut = true;
			return true;
		}
		xgrow(&r->cell, &r->capcells, n, sizeof *r->cell);
		for (int i = 0; i < ncols; i++) {
			struct sql_cell *c = &r->cell[r->nrows * (size_t)ncols + (size_t)i];
			c->at = (uint32_t)r->text.len;
			c->type = (uint8_t)sqlite3_column_type(st, i);
			if (c->type == SQLITE_INTEGER)
				c->v.i = sqlite3_column_int64(st, i);
			else if (c->type == SQLITE_FLOAT)
				c->v.f = sqlite3_column_double(st, i);
			value_text(st, i, &r->text);
			buf_addc(&r->text, 0);
		}
		r->nrows++;
	}
	if (rc != SQLITE_DONE) {
		struct buf m = {0};
		const char *msg = d->x.stopped ? "stopped" : sqlite3_errmsg(d->db);
		esc_term(&m, msg, strlen(msg));
		r->error = m.p ? m.p : xstrdup("");
		r->stopped = d->x.stopped;
		return false;
	}
	if (!ncols)
		r->changed = sqlite3_changes64(d->db);
	return true;
}

bool sql_query(struct sql_db *d, const char *text, size_t max_cells, struct sql_result *r)
{
	sql_result_free(r);
	d->x.stopped = false;
	for (const char *at = text; *at;) {
		sqlite3_stmt *st;
		struct buf err = {0};
		if (!next_statement(d->db, text, &at, &st, &err, &r->error_at)) {
			r->error = err.p ? err.p : xstrdup("");
			return false;
		}
		bool ok = !st || collect(d, st, max_cells, r);
		sqlite3_finalize(st);
		if (!ok)
			return false;
	}
	return true;
}

/* ---- --sql's output ----------------------------------------------------------- */

#define WIDTH_ROWS 1000 /* a table's columns are as wide as in its first rows */

/* A value as text for a table or CSV (sanitized for the terminal). */
static void value_text(sqlite3_stmt *st, int i, struct buf *b)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: buf_adds(b, "NULL"); break;
	case SQLITE_INTEGER: buf_i64(b, sqlite3_column_int64(st, i)); break;
	case SQLITE_FLOAT: fmt_double(b, sqlite3_column_double(st, i)); break;
	case SQLITE_BLOB: {
		const uint8_t *p = sqlite3_column_blob(st, i);
		int n = sqlite3_column_bytes(st, i);
		buf_adds(b, "x'");
		for (int k = 0; k < n; k++)
			buf_printf(b, "%02x", p[k]);
		buf_addc(b, '\'');
		break;
	}
	default: esc_term(b, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
	}
}

static void json_row(sqlite3_stmt *st, struct buf *b)
{
	int n = sqlite3_column_count(st);
	buf_addc(b, '{');
	for (int i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (i)
			buf_addc(b, ',');
		esc_json(b, name, strlen(name));
		buf_addc(b, ':');
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL: buf_adds(b, "null"); break;
		case SQLITE_INTEGER: buf_i64(b, sqlite3_column_int64(st, i)); break;
		case SQLITE_FLOAT: {
			double d = sqlite3_column_double(st, i);
			if (isfinite(d))
				fmt_double(b, d);
			else
				buf_adds(b, "null");
			break;
		}
		default: esc_json(b, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
		}
	}
	buf_adds(b, "}\n");
}

static void csv_cell(struct buf *b, const char *s, size_t n)
{
	if (!n || strcspn(s, ",\"\r\n") < n || s[0] == ' ' || s[n - 1] == ' ') {
		buf_addc(b, '"');
		for (size_t k = 0; k < n; k++) {
			if (s[k] == '"')
				buf_addc(b, '"');
			buf_addc(b, s[k]);
		}
		buf_addc(b, '"');
	} else {
		buf_add(b, s, n);
	}
}

static void csv_row(sqlite3_stmt *st, bool header, struct buf *b, struct buf *cell)
{
	int n = sqlite3_column_count(st);
	for (int i = 0; i < n; i++) {
		buf_reset(cell);
		if (header) {
			const char *name = sqlite3_column_name(st, i);
			esc_term_cstr(cell, name);
		} else if (sqlite3_column_type(st, i) != SQLITE_NULL) { /* (NULL: an empty cell) */
			value_text(st, i, cell);
		}
		if (i)
			buf_addc(b, ',');
		if (header || sqlite3_column_type(st, i) != SQLITE_NULL)
			csv_cell(b, buf_str(cell), cell->len);
	}
	buf_addc(b, '\n');
}

/* An aligned table: the first rows are held to size the columns, the rest
 * follow in those widths (numbers to the right). */
struct table_out {
	int ncols;
	int *width;
	bool *right;
	struct buf held;   /* cells of the held rows, each NUL-ended */
	size_t nheld;
	bool started;
};

static void table_line(struct table_out *o, const char *const *cells, struct buf *b);

/* A row's cells into o->held; before the table starts, they size it. */
static void table_cells(sqlite3_stmt *st, struct table_out *o, struct buf *cell)
{
	for (int i = 0; i < o->ncols; i++) {
		buf_reset(cell);
		value_text(st, i, cell);
		if (!o->started) {
			o->width[i] = MAX(o->width[i], esc_width(buf_str(cell), cell->len));
			o->right[i] |= sqlite3_column_type(st, i) == SQLITE_INTEGER ||
				       sqlite3_column_type(st, i) == SQLITE_FLOAT;
		}
		buf_add(&o->held, buf_str(cell), cell->len);
		buf_addc(&o->held, 0);
	}
	o->nheld++;
}

/* The held rows, printed. */
static void table_held(struct table_out *o, struct buf *b)
{
	const char **cells = xcalloc((size_t)o->ncols + 1, sizeof *cells);
	const char *p = buf_str(&o->held);
	for (size_t r = 0; r < o->nheld; r++) {
		for (int i = 0; i < o->ncols; i++, p += strlen(p) + 1)
			cells[i] = p;
		table_line(o, cells, b);
	}
	free(cells);
	buf_reset(&o->held);
	o->nheld = 0;
}

static void table_line(struct table_out *o, const char *const *cells, struct buf *b)
{
	for (int i = 0; i < o->ncols; i++) {
		int w = esc_width(cells[i], strlen(cells[i])), padn = MAX(0, o->width[i] - w);
		bool last = i == o->ncols - 1;
		if (o->right[i])
			buf_printf(b, "%*s", padn, "");
		buf_adds(b, cells[i]);
		if (!o->right[i] && !last)
			buf_printf(b, "%*s", padn, "");
		if (!last)
			buf_adds(b, "  ");
	}
	buf_addc(b, '\n');
}

/* The header and the held rows, once the widths are known. */
static void table_start(sqlite3_stmt *st, struct table_out *o, struct buf *b)
{
	struct buf held = o->held; /* (the names go first) */
	size_t nheld = o->nheld;
	o->held = (struct buf){0};
	o->nheld = 1;
	for (int i = 0; i < o->ncols; i++) {
		const char *name = sqlite3_column_name(st, i);
		size_t at = o->held.len;
		esc_term(&o->held, name, strlen(name));
		o->width[i] = MAX(o->width[i], esc_width(o->held.p + at, o->held.len - at));
		buf_addc(&o->held, 0);
	}
	bool *right = o->right;
	o->right = xcalloc((size_t)o->ncols + 1, sizeof *o->right); /* (names to the left) */
	table_held(o, b);
	free(o->right);
	o->right = right;
	for (int i = 0; i < o->ncols; i++) {
		for (int k = 0; k < o->width[i]; k++)
			buf_addc(b, '-');
		buf_adds(b, i < o->ncols - 1 ? "  " : "\n");
	}
	buf_free(&o->held);
	o->held = held;
	o->nheld = nheld;
	table_held(o, b);
	o->started = true;
}

/* Print the bad statement with a caret under where SQLite stopped. */
static void say_where(const char *sql, int at)
{
	const char *line = sql, *end;
	for (const char *p = sql; p < sql + at && *p; p++)
		if (*p == '\n')
			line = p + 1;
	end = line + strcspn(line, "\n");
	struct buf b = {0};
	esc_term(&b, line, (size_t)(end - line));
	fprintf(stderr, "  %s\n  %*s^\n", buf_str(&b), esc_width(line, (size_t)(sql + at - line)), "");
	buf_free(&b);
}

/* One statement's rows to out; false (and said) when it failed. */
static bool run_statement(sqlite3 *db, sqlite3_stmt *st, enum sql_format format, FILE *out)
{
	int ncols = sqlite3_column_count(st);
	struct table_out o = {.ncols = ncols};
	o.width = xcalloc((size_t)ncols + 1, sizeof *o.width);
	o.right = xcalloc((size_t)ncols + 1, sizeof *o.right);
	struct buf b = {0}, cell = {0};
	bool first = true;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (format == SQL_JSON) {
			json_row(st, &b);
		} else if (format == SQL_CSV) {
			if (first)
				csv_row(st, true, &b, &cell);
			csv_row(st, false, &b, &cell);
		} else {
			table_cells(st, &o, &cell);
			if (o.started)
				table_held(&o, &b);
			else if (o.nheld == WIDTH_ROWS)
				table_start(st, &o, &b);
		}
		first = false;
		out_flush(&b, out, 64u << 10);
	}
	if (format == SQL_TABLE && ncols && !o.started)
		table_start(st, &o, &b);
	if (format == SQL_CSV && first && ncols)
		csv_row(st, true, &b, &cell);
	out_flush(&b, out, 0);
	if (rc != SQLITE_DONE) {
		struct buf m = {0};
		const char *msg = sqlite3_errmsg(db);
		esc_term(&m, msg, strlen(msg));
		fprintf(stderr, "%s: --sql: %s\n", progname, buf_str(&m));
		buf_free(&m);
	}
	free(o.width);
	free(o.right);
	buf_free(&o.held);
	buf_free(&b);
	buf_free(&cell);
	return rc == SQLITE_DONE;
}

int batch_sql(struct trace *t, struct filterset *fs, const char *sql, enum sql_format format, FILE *out)
{
	setlocale(LC_CTYPE, ""); /* (the widths of the table's cells) */
	char *err = NULL;
	struct sql_db *d = sql_open(t, fs, NULL, &err);
	if (!d) {
		fprintf(stderr, "%s: --sql: %s\n", progname, err);
		free(err);
		return 1;
	}
	int status = 0;
	bool shown = false;
	for (const char *at = sql; status == 0 && *at;) {
		sqlite3_stmt *st;
		struct buf m = {0};
		int off;
		if (!next_statement(d->db, sql, &at, &st, &m, &off)) {
			fprintf(stderr, "%s: --sql: %s", progname, buf_str(&m));
			if (off >= 0) {
				fprintf(stderr, " (at character %d)\n", off + 1);
				say_where(sql, off);
			} else {
				fputc('\n', stderr);
			}
			buf_free(&m);
			status = 2;
			break;
		}
		if (st) { /* (NULL: only a comment or spaces were left) */
			if (shown && format == SQL_TABLE && sqlite3_column_count(st))
				fputc('\n', out); /* a blank line between two tables */
			shown |= sqlite3_column_count(st) > 0;
			if (!run_statement(d->db, st, format, out))
				status = 1;
			sqlite3_finalize(st);
		}
	}
	sql_close(d);
	return status;
}
