/* ui floor 7 */
/* view.c: the views (app.h VIEWS) and the stack of them over the base
 * view (lanes or list): what is on top, what opens and closes, and the
 * work they do in the background. */
#include <stdlib.h>

#include "ui/app.h"
#include "ui/view.h"

/* Each view's ops (app.h VIEWS), and the action that opens it anywhere. */
static const struct view_ops *const views[V_COUNT] = {
#define X(id, word, opener, ops) [V_##id] = &ops,
	VIEWS(X)
#undef X
};
static const enum action openers[V_COUNT] = {
#define X(id, word, opener, ops) [V_##id] = opener,
	VIEWS(X)
#undef X
};

const struct view_ops *view_ops_of(enum view_id v) { return views[v < V_COUNT ? v : V_LANES]; }

const char *view_meaning(enum view_id v, enum action act)
{
	return view_ops_of(v)->meaning ? view_ops_of(v)->meaning(act) : NULL;
}

enum view_id view_top(const struct app *a) { return a->depth ? a->stack[a->depth - 1] : a->base; }

enum view_id view_under(const struct app *a) { return a->depth > 1 ? a->stack[a->depth - 2] : a->base; }

void view_open(struct app *a, enum view_id v)
{
	if (view_top(a) == v)
		return;
	if (a->depth == (int)ARRAY_LEN(a->stack))
		a->depth--;
	a->stack[a->depth++] = v;
	if (views[v]->open && !views[v]->open(a))
		a->depth--; /* (nothing to show: the one under it stays as it was) */
}

void view_close(struct app *a)
{
	if (a->depth)
		a->depth--;
	const struct view_ops *v = views[view_top(a)];
	if (v->back ? v->back : v->open)
		(v->back ? v->back : v->open)(a);
}

void view_close_all(struct app *a) { a->depth = 0; }

void view_switch_base(struct app *a) { a->base = a->base == V_LANES ? V_LIST : V_LANES; }

/* The view that act opens from any view, on top: false when none (a key
 * bound to nothing opens nothing: not the first view whose opener is none). */
bool view_open_by(struct app *a, enum action act)
{
	if (act == ACT_NONE)
		return false;
	for (int v = 0; v < V_COUNT; v++)
		if (openers[v] == act) {
			view_open(a, (enum view_id)v);
			return true;
		}
	return false;
}

bool views_pending(const struct app *a)
{
	for (int v = 0; v < V_COUNT; v++)
		if (views[v]->pending && views[v]->pending(a))
			return true;
	return false;
}

/* A slice of each view's work in turn, up to one that has more left. */
bool views_step(struct app *a, uint64_t budget_ns)
{
	for (int v = 0; v < V_COUNT; v++)
		if (views[v]->pending && views[v]->pending(a) && views[v]->step(a, budget_ns))
			return true;
	return false;
}

/* View v's own state (state_size bytes, zeroed at first). */
void *view_state(struct app *a, enum view_id v) { return view_own(a, v, views[v]->state_size); }

const void *view_state_made(const struct app *a, enum view_id v) { return a->state[v]; }

void views_free(struct app *a)
{
	for (int v = 0; v < V_COUNT; v++) {
		if (views[v]->free)
			views[v]->free(a);
		free(a->state[v]);
		a->state[v] = NULL;
	}
}
