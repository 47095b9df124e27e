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
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static void dur_cell(struct buf *b, uint64_t ns)
{
	struct buf t = {0};
	fmt_dur(&t, ns);
	buf_printf(b, "%11s", buf_str(&t));
	buf_free(&t);
}

static void row_text(const struct calltree *ct, const struct row *r, struct buf *b)
{
	struct model *m = ct->t->m;
	buf_adds(b, " ");
	dur_cell(b, r->total);
	dur_cell(b, r->self);
	buf_printf(b, " %10llu", (unsigned long long)r->calls);
	dur_cell(b, r->min);
	dur_cell(b, r->max);
	dur_cell(b, mean(r));
	buf_adds(b, "  ");
	term_sid(b, m, calltree_sid(ct, r->sym));
	const struct type *ty = model_type_get(m, ct->sym[r->sym].type);
	if (ct->sym[r->sym].name) { /* (its type, and category: types of one name differ in it) */
		buf_adds(b, "  (");
		term_sid(b, m, ty->name);
		if (ty->category) {
			buf_addc(b, ' ');
			term_sid(b, m, ty->category);
		}
		buf_addc(b, ')');
	}
	buf_addc(b, '\n');
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

void batch_report(struct trace *t, struct filterset *fs, const char *sort, bool json, FILE *out)
{
	struct calltree ct;
	calltree_build(&ct, t, fs);
	struct tally ta = {&ct, xcalloc(ct.nsym + 1, sizeof *ta.row), xcalloc(ct.nsym + 1, sizeof *ta.on_path)};
	for (uint32_t s = 0; s < ct.nsym; s++)
		ta.row[s].sym = s;
	calltree_walk(&ct, tally_enter, tally_leave, &ta);
	sort_by = sort ? sort : "total";
	sort_ct = &ct;
	qsort(ta.row, ct.nsym, sizeof *ta.row, row_cmp);
	struct buf b = {0};
	if (!json)
		buf_printf(&b, "%12s%11s %10s%11s%11s%11s  %s\n", "total", "self", "calls", "min", "max", "mean",
			   "name  (type category)");
	for (uint32_t s = 0; s < ct.nsym; s++) {
		(json ? row_json : row_text)(&ct, &ta.row[s], &b);
		if (b.len > (64u << 10)) {
			fwrite(b.p, 1, b.len, out);
			buf_reset(&b);
		}
	}
	fwrite(b.p, 1, b.len, out);
	buf_free(&b);
	free(ta.row);
	free(ta.on_path);
	calltree_free(&ct);
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
	if (f->line.len > (64u << 10)) {
		fwrite(f->line.p, 1, f->line.len, f->out);
		buf_reset(&f->line);
	}
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
	fwrite(f.line.p, 1, f.line.len, out);
	buf_free(&f.line);
	buf_free(&f.path);
	free(f.len);
	calltree_free(&ct);
}
