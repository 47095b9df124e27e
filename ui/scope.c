/* ui floor 10 */
/* scope.c: what the call-tree views (the tree, the flame graph, the
 * butterfly, a node's calls) are of, and going from them to a span in the
 * lanes view. */
#include <string.h>

#include "src/batch.h"
#include "src/calltree.h"
#include "ui/app.h"
#include "ui/nav.h"
#include "ui/prompt.h"
#include "ui/scope.h"
#include "ui/view.h"

/* What the views show: a visible event, or a pair whose end is. */
static bool shown(const struct ct_scope *sc, uint64_t pos, const struct event *e)
{
	struct app *a = sc->ctx;
	uint64_t other;
	return vis_is(a, pos) || (ev_role(e) == ROLE_BEGIN && model_partner(a->m, pos, &other) && vis_is(a, other));
}

/* What the tree was built of: the events (their order: appended ones it
 * takes in as they come), the filters, the lanes shown and the time
 * range.  The same, the tree opens again as it was left. */
uint64_t scope_hash(struct app *a)
{
	struct buf b = {0};
	buf_printf(&b, "%llu %d%d %lld %lld %d", (unsigned long long)model_generation(a->m), a->range.has_lo,
		   a->range.has_hi, (long long)a->range.lo, (long long)a->range.hi, a->per_lane);
	for (size_t i = 0; i < a->fs->n; i++)
		buf_printf(&b, "\n%d %s", a->fs->f[i].enabled, a->fs->f[i].spec);
	buf_add(&b, a->lane_flags, a->norder);
	uint64_t h = hash_bytes(b.p, b.len);
	buf_free(&b);
	return h;
}

/* What the views show, as a call tree's scope. */
void scope_fill(struct app *a, struct ct_scope *sc)
{
	*sc = (struct ct_scope){.t = a->t, .fs = a->fs, .keep = shown, .ctx = a,
				.lo = a->range.has_lo ? a->range.lo : INT64_MIN,
				.hi = a->range.has_hi ? a->range.hi : INT64_MAX, .per_lane = a->per_lane};
}

/* n and N go through the events of the spans called (type, name): a
 * search for the name in the field that holds it (exactly), or in the
 * events' text. */
static bool search_occurrences(struct app *a, uint32_t type, uint32_t name_sid)
{
	uint32_t field = model_type_get(a->m, type)->name_field;
	if (!name_sid)
		return false;
	struct buf spec = {0};
	size_t n;
	if (field) {
		const char *f = model_strget(a->m, field, &n);
		buf_add(&spec, f, n);
		buf_adds(&spec, ":^");
	}
	const char *name = model_strget(a->m, name_sid, &n);
	for (size_t i = 0; i < n; i++) { /* (the name as it is, not as a pattern) */
		if (strchr("\\^$.|?*+()[]{}", name[i]))
			buf_addc(&spec, '\\');
		buf_addc(&spec, name[i]);
	}
	if (field)
		buf_addc(&spec, '$');
	bool ok = !memchr(name, 0, n) && search_for(a, buf_str(&spec));
	buf_free(&spec);
	return ok;
}

void scope_go_span(struct app *a, const struct ct_ref *ref, struct ct_sym s, size_t rank, uint64_t calls, uint64_t dur)
{
	struct evref r = {ref->ts, ref->input, ref->off, true};
	uint64_t pos;
	if (!ref_pos(a, &r, &pos)) {
		message(a, true, "that span is no longer in the trace");
		return;
	}
	view_close_all(a);
	a->base = V_LANES;
	jump_to(a, pos);
	view_ops_of(view_top(a))->action(a, ACT_ZOOM_SPAN); /* (the lanes view's, through its ops) */
	bool others = search_occurrences(a, s.type, s.name);
	struct buf b = {0}, d = {0};
	term_sid(&b, a->m, ct_sym_sid(a->m, s));
	fmt_dur(&d, dur);
	if (rank)
		message(a, false, "call %zu of %llu of %s, longest first: %s%s", rank + 1, (unsigned long long)calls,
			buf_str(&b), buf_str(&d), others ? "; n, N: the others" : "");
	else
		message(a, false, "the longest of %llu calls of %s: %s%s", (unsigned long long)calls, buf_str(&b),
			buf_str(&d), others ? "; n, N: the others" : "");
	buf_free(&b);
	buf_free(&d);
}
