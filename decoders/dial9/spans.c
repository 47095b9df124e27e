/* Span enters and exits paired as the span wire contract says: on
 * (span_instance_id, thread) when the instance id is set, else on
 * (span_id, thread), else on (name, thread); each key a stack of open
 * enters, an exit matching the latest one at or before it.  An exit that
 * finds its enter carries the distance back to it (EVF_MARK on a keyed
 * type, see model.h), so the model pairs the two whatever else opened or
 * closed on the lane between them.  An exit whose enter is in another
 * segment is left to the model.
 *
 * Close events that name their span and its parent (span_instance_id,
 * parent_span_instance_id) are kept by offset, so views nest each span's
 * life under its parent's (trace_span_ids). */
#include "decoders/dial9/dial9.h"

/* The key: which id (instance, span id, name) and its value, with the thread. */
static void key_of(const struct span_ids *k, uint64_t *id, uint64_t *hash)
{
	uint64_t kind = k->instance ? 1 : k->span_id ? 2 : 3;
	*id = k->instance ? k->instance : k->span_id ? k->span_id : k->name;
	uint64_t v[3] = {kind, *id, k->thread};
	*hash = hash_bytes(v, sizeof v);
	*id ^= kind << 62; /* tells the kinds apart on the rare id that reaches bit 62 */
}

void d9_span_enter(struct d9 *d, const struct span_ids *k, int64_t ts)
{
	uint64_t id, h, top = 0;
	key_of(k, &id, &h);
	hmap_get(&d->open_top, h, &top);
	if (top && (d->opens[top - 1].id != id || d->opens[top - 1].thread != k->thread))
		return; /* another key with the same hash: this enter is left to the model */
	uint32_t i;
	if (d->free_open) {
		i = d->free_open - 1;
		d->free_open = d->opens[i].below;
	} else if (d->nopens < OPEN_ENTERS_MAX) {
		xgrow(&d->opens, &d->capopens, d->nopens + 1, sizeof *d->opens);
		i = (uint32_t)d->nopens++;
	} else {
		return; /* too many open at once: left to the model */
	}
	d->opens[i] = (struct open_enter){id, k->thread, ts, (uint32_t)top};
	hmap_put(&d->open_top, h, i + 1u);
}

uint64_t d9_span_exit(struct d9 *d, const struct span_ids *k, int64_t ts)
{
	uint64_t id, h, top;
	key_of(k, &id, &h);
	if (!hmap_get(&d->open_top, h, &top) || !top)
		return TTV_NODUR;
	struct open_enter *o = &d->opens[top - 1];
	if (o->id != id || o->thread != k->thread)
		return TTV_NODUR;
	int64_t at = o->ts;
	if (o->below)
		hmap_put(&d->open_top, h, o->below);
	else
		hmap_del(&d->open_top, h);
	o->below = d->free_open;
	d->free_open = (uint32_t)top;
	return at <= ts ? (uint64_t)ts - (uint64_t)at : TTV_NODUR;
}

void d9_span_link(struct d9 *d, uint64_t off, uint64_t id, uint64_t parent)
{
	xgrow(&d->links, &d->caplinks, d->nlinks + 1, sizeof *d->links);
	d->links[d->nlinks++] = (struct span_link){off, id, parent};
}

/* (links come in file order: sorted by offset) */
bool d9_span_ids(void *st, const struct event *e, uint64_t *id, uint64_t *parent)
{
	const struct d9 *d = st;
	size_t lo = 0, hi = d->nlinks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->links[mid].off < e->off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nlinks || d->links[lo].off != e->off)
		return false;
	*id = d->links[lo].id;
	*parent = d->links[lo].parent;
	return true;
}

void d9_spans_free(struct d9 *d)
{
	hmap_free(&d->open_top);
	free(d->opens);
	free(d->links);
}
