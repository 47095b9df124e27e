/* --report and the folded export: the call tree (src/calltree.h) as a
 * flat table per name, and as one line per call path. */
#include "src/report.h"

#include <stdlib.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "src/esc.h"

/* ---- --report ------------------------------------------------------------- */

struct row {
	uint32_t sym;
	uint64_t calls, total, all, self, min, max; /* all: every call's time, recursion too */
};

static const char *const sort_keys[] = {"total", "self", "calls", "min", "max", "mean", "name"};

bool report_sort_known(const char *sort)
{
	for (size_t i = 0; i < ARRAY_LEN(sort_keys); i++)
		if (!strcmp(sort, sort_keys[i]))
			return true;
	return false;
}

struct tally {
	const struct calltree *ct;
	struct row *row;   /* per sym */
	uint32_t *on_path; /* per sym: how many of the nodes from the root to here have it */
};

/* A node's time counts in its name's total unless a caller has that name
 * too (a recursive call's time is in the outer call's already). */
static void tally_enter(void *ctx, uint32_t v)
{
	struct tally *ta = ctx;
	const struct ct_node *nd = &ta->ct->node[v];
	struct row *r = &ta->row[nd->sym];
	if (!ta->on_path[nd->sym]++)
		r->total += nd->total;
	if (!nd->calls)
		return;
	r->min = r->calls ? MIN(r->min, nd->min) : nd->min;
	r->max = MAX(r->max, nd->max);
	r->calls += nd->calls;
	r->all += nd->total;
	r->self += nd->self;
}

static void tally_leave(void *ctx, uint32_t v)
{
	struct tally *ta = ctx;
	ta->on_path[ta->ct->node[v].sym]--;
}

static uint64_t mean(const struct row *r) { return r->calls ? r->all / r->calls : 0; }

/* (qsort has no context: the sort key and names for the comparison) */
static const char *sort_by;
static const struct calltree *sort_ct;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t u, v;
	switch (*sort_by) {
	case 's': u = x->self, v = y->self; break;
	case 'c': u = x->calls, v = y->calls; break;
	case 'm':
		if (sort_by[1] == 'e')
			u = mean(x), v = mean(y);
		else if (sort_by[1] == 'i')
			u = x->min, v = y->min;
		else
			u = x->max, v = y->max;
		break;
	case 'n': {
		size_t na, nb;
		const char *sa = model_strget(sort_ct->t->m, calltree_sid(sort_ct, x->sym), &na);
		const char *sb = model_strget(sort_ct->t->m, calltree_sid(sort_ct, y->sym), &nb);
		int c = memcmp(sa, sb, MIN(na, nb));
		if (c || na != nb)
			return c ? c : na < nb ? -1 : 1;
		u = v = 0;
		break;
	}
	default: u = x->total, v = y->total; break;
	}
	if (u != v)
		return u < v ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	place_t fx = sort_ct->sym[x->sym].first, fy = sort_ct->sym[y->sym].first; /* (read apart: not made in that order) */
	if (fx != fy)
		return fx < fy ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* A name's label, a line's end: "name  (type category)", the type left
 * out when it is the name (types of one name differ in their category). */
static void label_text(struct model *m, uint32_t name, uint32_t type, uint32_t category, struct buf *b)
{
	term_sid(b, m, name);
	if (name != type || category) {
		buf_adds(b, "  (");
		if (name != type)
			term_sid(b, m, type);
		if (category) {
			buf_adds(b, name != type ? " " : "");
			term_sid(b, m, category);
		}
		buf_addc(b, ')');
	}
	buf_addc(b, '\n');
}

static void row_text(const struct calltree *ct, const struct row *r, struct buf *b)
{
	struct model *m = ct->t->m;
	buf_adds(b, " ");
	fmt_dur_cell(b, r->total, 11);
	fmt_dur_cell(b, r->self, 11);
	buf_printf(b, " %10llu", (unsigned long long)r->calls);
	fmt_dur_cell(b, r->min, 11);
	fmt_dur_cell(b, r->max, 11);
	fmt_dur_cell(b, mean(r), 11);
	buf_adds(b, "  ");
	const struct type *ty = model_type_get(m, ct->sym[r->sym].type);
	label_text(m, calltree_sid(ct, r->sym), ty->name, ty->category, b);
}

static void row_json(const struct calltree *ct, const struct row *r, struct buf *b)
{
	struct model *m = ct->t->m;
	buf_adds(b, "{\"name\":");
	json_sid(b, m, calltree_sid(ct, r->sym));
	const struct type *ty = model_type_get(m, ct->sym[r->sym].type);
	buf_adds(b, ",\"type\":");
	json_sid(b, m, ty->name);
	if (ty->category) {
		buf_adds(b, ",\"category\":");
		json_sid(b, m, ty->category);
	}
	buf_printf(b, ",\"calls\":%llu,\"total\":%llu,\"self\":%llu,\"min\":%llu,\"max\":%llu,\"mean\":%llu}\n",
		   (unsigned long long)r->calls, (unsigned long long)r->total, (unsigned long long)r->self,
		   (unsigned long long)r->min, (unsigned long long)r->max, (unsigned long long)mean(r));
}

/* Per name (sym) of the tree: its row (a fresh array of ct->nsym). */
static struct row *name_rows(const struct calltree *ct)
{
	struct tally ta = {ct, xcalloc(ct->nsym + 1, sizeof *ta.row), xcalloc(ct->nsym + 1, sizeof *ta.on_path)};
	for (uint32_t s = 0; s < ct->nsym; s++)
		ta.row[s].sym = s;
	calltree_walk(ct, tally_enter, tally_leave, &ta);
	free(ta.on_path);
	return ta.row;
}

void batch_report(struct trace *t, struct filterset *fs, const char *sort, bool json, FILE *out)
{
	struct calltree ct;
	calltree_build(&ct, t, fs);
	struct tally ta = {&ct, name_rows(&ct), NULL};
	sort_by = sort ? sort : "total";
	sort_ct = &ct;
	if (ct.nsym)
		qsort(ta.row, ct.nsym, sizeof *ta.row, row_cmp);
	struct buf b = {0};
	if (!json)
		buf_printf(&b, "%12s%11s %10s%11s%11s%11s  %s\n", "total", "self", "calls", "min", "max", "mean",
			   "name  (type category)");
	for (uint32_t s = 0; s < ct.nsym; s++) {
		(json ? row_json : row_text)(&ct, &ta.row[s], &b);
		out_flush(&b, out, OUT_CHUNK);
	}
	if (!json && ct.nsym) /* (--stats counts every call: its totals differ where calls recurse) */
		buf_adds(&b, "total: a call inside a call of the same name counts once; self: total less its callees'\n");
	out_flush(&b, out, 1);
	buf_free(&b);
	free(ta.row);
	calltree_free(&ct);
}

/* ---- --diff --------------------------------------------------------------- */

static bool side_keep(const struct ct_scope *sc, uint64_t pos, const struct event *e)
{
	const struct diff_side *s = sc->ctx;
	if ((sc->t->in[e->input]->src->id >= sc->t->nsrc_first) != s->b)
		return false;
	return !s->base.keep || s->base.keep(&s->base, pos, e);
}

void diff_side_scope(struct diff_side *sd, const struct ct_scope *base, bool b, struct ct_scope *sc)
{
	*sd = (struct diff_side){*base, b};
	*sc = *base;
	sc->keep = side_keep;
	sc->ctx = sd;
}

/* A name on both sides: told by its strings (each side's types are its own). */
struct pair {
	uint32_t name, type, category;
	struct row side[2];
};

struct diff {
	struct pair *p;
	size_t n, cap;
	struct hmap at; /* hash of the strings -> index + 1 (chained by probing on) */
};

static struct pair *pair_of(struct diff *ps, uint32_t name, uint32_t type, uint32_t category)
{
	uint32_t k[3] = {name, type, category};
	for (uint64_t h = hash_bytes(k, sizeof k);; h++) {
		uint64_t *v = hmap_ref(&ps->at, h);
		if (*v) {
			struct pair *p = &ps->p[*v - 1];
			if (p->name == name && p->type == type && p->category == category)
				return p;
			continue;
		}
		xgrow(&ps->p, &ps->cap, ps->n + 1, sizeof *ps->p);
		ps->p[ps->n] = (struct pair){.name = name, .type = type, .category = category};
		*v = ++ps->n;
		return &ps->p[ps->n - 1];
	}
}

struct diff *diff_new(void) { return xcalloc(1, sizeof(struct diff)); }

void diff_free(struct diff *d)
{
	if (!d)
		return;
	free(d->p);
	hmap_free(&d->at);
	free(d);
}

void diff_add(struct diff *ps, const struct calltree *ct, bool b)
{
	struct model *m = ct->t->m;
	struct row *r = name_rows(ct);
	for (uint32_t s = 0; s < ct->nsym; s++) {
		if (ct->sym[s].type == CT_LANE)
			continue; /* (a lane is no name of the trace's) */
		const struct type *ty = model_type_get(m, ct->sym[s].type);
		struct pair *p = pair_of(ps, calltree_sid(ct, s), ty->name, ty->category);
		struct row *d = &p->side[b];
		d->min = d->calls ? MIN(d->min, r[s].min) : r[s].min;
		d->max = MAX(d->max, r[s].max);
		d->calls += r[s].calls;
		d->total += r[s].total;
		d->all += r[s].all;
		d->self += r[s].self;
	}
	free(r);
}

static void add_side(const struct ct_scope *filters, bool b, struct diff *ps)
{
	struct diff_side sd;
	struct ct_scope sc;
	diff_side_scope(&sd, filters, b, &sc);
	struct calltree ct;
	calltree_begin(&ct, &sc);
	calltree_step(&ct, 0, false);
	diff_add(ps, &ct, b);
	calltree_free(&ct);
}

static int64_t change(uint64_t a, uint64_t b) { return (int64_t)b - (int64_t)a; }
static uint64_t size_of(int64_t v) { return v < 0 ? -(uint64_t)v : (uint64_t)v; }

static int by_change(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	uint64_t u = size_of(change(a->side[0].total, a->side[1].total));
	uint64_t v = size_of(change(b->side[0].total, b->side[1].total));
	if (u != v)
		return u < v ? 1 : -1;
	u = a->side[0].total + a->side[1].total, v = b->side[0].total + b->side[1].total;
	return u < v ? 1 : u > v ? -1 : 0;
}

static void signed_dur(struct buf *b, int64_t ns)
{
	struct buf t = {0};
	buf_addc(&t, ns < 0 ? '-' : '+');
	fmt_dur(&t, size_of(ns));
	buf_printf(b, "%11s", buf_str(&t));
	buf_free(&t);
}

static void pair_text(struct model *m, const struct pair *p, struct buf *b)
{
	buf_adds(b, " ");
	fmt_dur_cell(b, p->side[0].total, 11);
	fmt_dur_cell(b, p->side[1].total, 11);
	signed_dur(b, change(p->side[0].total, p->side[1].total));
	fmt_dur_cell(b, p->side[0].self, 11);
	fmt_dur_cell(b, p->side[1].self, 11);
	buf_printf(b, " %9llu %9llu  ", (unsigned long long)p->side[0].calls, (unsigned long long)p->side[1].calls);
	label_text(m, p->name, p->type, p->category, b);
}

static void side_json(const struct row *r, struct buf *b)
{
	buf_printf(b, "{\"calls\":%llu,\"total\":%llu,\"self\":%llu}", (unsigned long long)r->calls,
		   (unsigned long long)r->total, (unsigned long long)r->self);
}

static void pair_json(struct model *m, const struct pair *p, struct buf *b)
{
	buf_adds(b, "{\"name\":");
	json_sid(b, m, p->name);
	buf_adds(b, ",\"type\":");
	json_sid(b, m, p->type);
	if (p->category) {
		buf_adds(b, ",\"category\":");
		json_sid(b, m, p->category);
	}
	buf_adds(b, ",\"a\":");
	side_json(&p->side[0], b);
	buf_adds(b, ",\"b\":");
	side_json(&p->side[1], b);
	buf_printf(b, ",\"change\":{\"calls\":%lld,\"total\":%lld,\"self\":%lld}}\n",
		   (long long)change(p->side[0].calls, p->side[1].calls),
		   (long long)change(p->side[0].total, p->side[1].total),
		   (long long)change(p->side[0].self, p->side[1].self));
}

void diff_table(struct diff *d, struct model *m, bool json, struct buf *b, FILE *out)
{
	if (d->n)
		qsort(d->p, d->n, sizeof *d->p, by_change);
	if (!json)
		buf_printf(b, "%12s%11s%11s%11s%11s %9s %9s  %s\n", "total A", "total B", "change", "self A", "self B",
			   "calls A", "calls B", "name  (type category)");
	for (size_t i = 0; i < d->n; i++) {
		(json ? pair_json : pair_text)(m, &d->p[i], b);
		if (out)
			out_flush(b, out, OUT_CHUNK);
	}
}

void batch_diff(struct trace *t, struct filterset *fs, bool json, FILE *out)
{
	struct ct_scope filters;
	ct_scope_filters(&filters, t, fs);
	struct diff *d = diff_new();
	add_side(&filters, false, d);
	add_side(&filters, true, d);
	struct buf b = {0};
	diff_table(d, t->m, json, &b, out);
	out_flush(&b, out, 1);
	buf_free(&b);
	diff_free(d);
}

/* ---- --export folded ------------------------------------------------------ */

struct folding {
	const struct calltree *ct;
	struct buf path;
	size_t *len; /* per depth: the path's length before that frame */
	size_t depth, cap;
	FILE *out;
	struct buf line;
};

static void fold_enter(void *ctx, uint32_t v)
{
	struct folding *f = ctx;
	const struct ct_node *nd = &f->ct->node[v];
	xgrow(&f->len, &f->cap, f->depth + 1, sizeof *f->len);
	f->len[f->depth++] = f->path.len;
	if (f->path.len)
		buf_addc(&f->path, ';');
	size_t at = f->path.len;
	term_sid(&f->path, f->ct->t->m, calltree_sid(f->ct, nd->sym));
	for (size_t i = at; i < f->path.len; i++) /* (';' parts frames, a space the weight) */
		if (f->path.p[i] == ';')
			f->path.p[i] = ',';
	if (!nd->self)
		return;
	buf_add(&f->line, f->path.p, f->path.len);
	buf_printf(&f->line, " %llu\n", (unsigned long long)nd->self);
	out_flush(&f->line, f->out, OUT_CHUNK);
}

static void fold_leave(void *ctx, uint32_t v)
{
	(void)v;
	struct folding *f = ctx;
	f->path.len = f->len[--f->depth];
}

void export_folded(struct trace *t, struct filterset *fs, FILE *out)
{
	struct calltree ct;
	calltree_build(&ct, t, fs);
	struct folding f = {.ct = &ct, .out = out};
	calltree_walk(&ct, fold_enter, fold_leave, &f);
	out_flush(&f.line, out, 1);
	buf_free(&f.line);
	buf_free(&f.path);
	free(f.len);
	calltree_free(&ct);
}

/* ---- --export speedscope -------------------------------------------------- */

struct ss_span {
	int64_t start, end;
	uint32_t frame;
	uint64_t order; /* (what came first holds what starts and ends with it) */
};

struct ss_lane {
	struct ss_span *s;
	size_t n, cap;
};

struct ss_collect {
	struct model *m;
	struct ss_lane *lane;
	struct hmap frame_of; /* string id -> frame + 1 */
	uint32_t *frame_sid;
	size_t nframes, capframes;
	uint64_t n;
	int64_t base; /* the earliest start: "at" counts from it */
};

static void ss_span(void *ctx, const struct event *e)
{
	struct ss_collect *c = ctx;
	uint32_t sid = e->name ? e->name : model_type_get(c->m, e->type)->name;
	uint64_t *f = hmap_ref(&c->frame_of, sid);
	if (!*f) {
		xgrow(&c->frame_sid, &c->capframes, c->nframes + 1, sizeof *c->frame_sid);
		c->frame_sid[c->nframes] = sid;
		*f = ++c->nframes;
	}
	struct ss_lane *l = &c->lane[e->lane];
	xgrow(&l->s, &l->cap, l->n + 1, sizeof *l->s);
	l->s[l->n++] = (struct ss_span){e->ts, ts_add(e->ts, e->dur), (uint32_t)(*f - 1), c->n++};
	c->base = MIN(c->base, e->ts);
}

static int ss_by_start(const void *a, const void *b)
{
	const struct ss_span *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* One evented profile: spans that nest, opened and closed in time order. */
struct ss_track {
	struct ss_span *open;
	size_t n, cap;
	struct buf ev;
	int64_t first, last;
};

static void ss_event(struct ss_track *t, char type, uint32_t frame, int64_t at, int64_t base)
{
	if (!t->ev.len)
		t->first = at;
	buf_printf(&t->ev, "%s{\"type\":\"%c\",\"frame\":%u,\"at\":%llu}", t->ev.len ? "," : "", type, frame,
		   (unsigned long long)ts_span(base, at));
	t->last = at;
}

static void ss_close_until(struct ss_track *t, int64_t at, int64_t base)
{
	while (t->n && t->open[t->n - 1].end <= at) {
		t->n--;
		ss_event(t, 'C', t->open[t->n].frame, t->open[t->n].end, base);
	}
}

/* A lane's spans, on its own profile where they nest, else on its first
 * extra one where they do ("LANE (2)" ...): nothing dropped, nothing drawn
 * as nesting that does not. */
static size_t ss_place(struct ss_lane *l, struct ss_track **tr, size_t *cap, int64_t base)
{
	size_t ntr = 0;
	if (l->n)
		qsort(l->s, l->n, sizeof *l->s, ss_by_start);
	for (size_t i = 0; i < l->n; i++) {
		const struct ss_span *s = &l->s[i];
		size_t k = 0;
		for (;; k++) {
			if (k == ntr) {
				xgrow(tr, cap, ntr + 1, sizeof **tr);
				(*tr)[ntr++] = (struct ss_track){0};
			}
			struct ss_track *t = &(*tr)[k];
			ss_close_until(t, s->start, base);
			if (!t->n || s->end <= t->open[t->n - 1].end)
				break;
		}
		struct ss_track *t = &(*tr)[k];
		xgrow(&t->open, &t->cap, t->n + 1, sizeof *t->open);
		t->open[t->n++] = *s;
		ss_event(t, 'O', s->frame, s->start, base);
	}
	for (size_t k = 0; k < ntr; k++)
		ss_close_until(&(*tr)[k], INT64_MAX, base);
	return ntr;
}

static void ss_profiles(struct ss_collect *c, struct buf *b, FILE *out)
{
	struct ss_track *tr = NULL;
	size_t cap = 0;
	bool first = true;
	for (uint32_t l = 0; l < model_nlanes(c->m); l++) {
		size_t ntr = ss_place(&c->lane[l], &tr, &cap, c->base);
		for (size_t k = 0; k < ntr; k++) {
			struct ss_track *t = &tr[k];
			buf_adds(b, first ? "\n{\"type\":\"evented\",\"name\":" : ",\n{\"type\":\"evented\",\"name\":");
			first = false;
			struct buf name = {0};
			size_t n;
			const char *s = model_strget(c->m, lane_name(c->m, l), &n);
			buf_add(&name, s, n);
			if (k)
				buf_printf(&name, " (%zu)", k + 1);
			esc_json(b, name.p, name.len);
			buf_free(&name);
			buf_printf(b, ",\"unit\":\"nanoseconds\",\"startValue\":%llu,\"endValue\":%llu,\"events\":[",
				   (unsigned long long)ts_span(c->base, t->first),
				   (unsigned long long)ts_span(c->base, t->last));
			out_flush(b, out, 1);
			out_flush(&t->ev, out, 1);
			buf_adds(b, "]}");
			buf_free(&t->ev);
			free(t->open);
		}
		free(c->lane[l].s);
	}
	free(tr);
}

void export_speedscope(struct trace *t, struct filterset *fs, FILE *out)
{
	struct ss_collect c = {.m = t->m, .lane = xcalloc(model_nlanes(t->m) + 1, sizeof *c.lane), .base = INT64_MAX};
	spans_each(t, fs, ss_span, &c);
	struct buf b = {0};
	buf_adds(&b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"ttv\","
		     "\"name\":");
	const char *title = t->nsrc ? t->src[0]->path : "";
	esc_json(&b, title, strlen(title));
	buf_adds(&b, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
	for (size_t i = 0; i < c.nframes; i++) {
		buf_adds(&b, i ? ",\n{\"name\":" : "\n{\"name\":");
		json_sid(&b, t->m, c.frame_sid[i]);
		buf_addc(&b, '}');
	}
	buf_adds(&b, "]},\n\"profiles\":[");
	ss_profiles(&c, &b, out);
	buf_adds(&b, "]}\n");
	out_flush(&b, out, 1);
	buf_free(&b);
	free(c.lane);
	free(c.frame_sid);
	hmap_free(&c.frame_of);
}
