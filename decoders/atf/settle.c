/* atf/settle.c: settling a thread: links checked both ways, orphan detail records */
#include "decoders/atf/atf.h"

static void add_ex(struct link_ex *ex, size_t *n, uint32_t from, uint32_t to)
{
	if (*n < EXAMPLES)
		ex[(*n)++] = (struct link_ex){from, to};
}

void atf_ex_text(struct buf *b, const struct link_ex *ex, size_t n, uint64_t total, bool fwd)
{
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s %u -> %s %u", i ? ", " : "", fwd ? "index" : "detail", ex[i].from,
			   fwd ? "detail" : "index", ex[i].to);
	if (total > n)
		buf_adds(b, ", ...");
}

static uint32_t det_name(struct thread *th, const uint8_t *q, uint32_t len)
{
	if (len == DREC_REAL)
		return atf_name_of(th->ss, ld64le(q + 32));
	if (len >= DREC_HDR + 8)
		return atf_name_of(th->ss, ld64le(q + DREC_HDR)); /* spec layout: function_id first */
	return 0;
}

/* Check the back links of detail records [d->checked, upto) against the
 * finished index; a record that no index record reaches becomes an event
 * of its own.  Done while the detail file is fed (its pages are at hand),
 * or when the thread settles if the index was not finished then. */
void atf_check_back(struct thread *th, uint64_t upto)
{
	struct idx *x = &th->ix;
	struct det *d = &th->dt;
	bool have_ix = x->in != NULL;
	for (uint64_t k = d->checked; k < upto; k++) {
		uint64_t off = atf_det_off(d, k);
		if ((k & 0x3fff) == 0x3fff) { /* a long pass: let the pages go behind it */
			input_release(d->in, d->S, off - d->S);
			if (have_ix)
				input_release(x->in, 0, x->in->size);
		}
		const uint8_t *q = d->in->map + off;
		uint32_t i = ld32le(q + 8);
		if (have_ix && i < x->n && ld32le(irec(x, i) + 28) == k) {
			th->fwd_ok++;
			continue;
		}
		bool check = !atf_unchecked(th);
		if (check && (!have_ix || i >= x->n))
			th->back_past++;
		else if (check)
			th->back_mismatch++;
		if (check)
			add_ex(th->ex_back, &th->nex_back, (uint32_t)k, i);
		struct event e = {.ts = (int64_t)ld64le(q + 16), .dur = TTV_NODUR, .lane = th->lane,
				  .type = th->ss->t_detail, .name = det_name(th, q, ld32le(q)),
				  .flags = ROLE_INSTANT | (check ? EVF_DAMAGED : 0), .off = off};
		if (!dec_emit(d->in, &e))
			break;
	}
	d->checked = upto;
}

/* When both files of a thread are read: check every link, report what
 * dangles, and let the pages go. */
void atf_settle(struct thread *th)
{
	struct idx *x = &th->ix;
	struct det *d = &th->dt;
	if (th->settled || !x->final || !d->final)
		return;
	th->settled = true;
	bool have_ix = x->in != NULL;
	if (d->in)
		atf_check_back(th, d->n);
	uint64_t bad = x->linked - MIN(x->linked, th->fwd_ok);
	if (bad && have_ix && !atf_unchecked(th)) {
		for (uint64_t r = 0; r < x->n; r++) {
			uint32_t link = ld32le(irec(x, r) + 28);
			if (link == NO_LINK || atf_link_ok(th, r, link))
				continue;
			if (link >= d->n)
				th->fwd_dangling++;
			else
				th->fwd_mismatch++;
			add_ex(th->ex_fwd, &th->nex_fwd, (uint32_t)r, link);
		}
	}
	struct buf b = {0};
	if (th->fwd_dangling || th->fwd_mismatch) {
		buf_printf(&b, "%llu forward links dangle", (unsigned long long)(th->fwd_dangling + th->fwd_mismatch));
		if (th->fwd_dangling)
			buf_printf(&b, ", %llu past the end of %s (%llu records)", (unsigned long long)th->fwd_dangling,
				   d->in ? "detail.atf" : "a missing detail.atf", (unsigned long long)d->n);
		if (th->fwd_mismatch)
			buf_printf(&b, ", %llu to detail records that link elsewhere",
				   (unsigned long long)th->fwd_mismatch);
		buf_adds(&b, ": ");
		atf_ex_text(&b, th->ex_fwd, th->nex_fwd, th->fwd_dangling + th->fwd_mismatch, true);
		dec_damage(x->in, x->E + REC * (uint64_t)th->ex_fwd[0].from, "%s", b.p);
	}
	if (th->back_past || th->back_mismatch) {
		buf_reset(&b);
		buf_printf(&b, "%llu detail records are not reached from the index",
			   (unsigned long long)(th->back_past + th->back_mismatch));
		if (th->back_past)
			buf_printf(&b, ", %llu point past the end of %s (%llu records)", (unsigned long long)th->back_past,
				   have_ix ? "index.atf" : "a missing index.atf", (unsigned long long)x->n);
		if (th->back_mismatch)
			buf_printf(&b, ", %llu to index records that link elsewhere",
				   (unsigned long long)th->back_mismatch);
		buf_adds(&b, " (listed as DETAIL events): ");
		atf_ex_text(&b, th->ex_back, th->nex_back, th->back_past + th->back_mismatch, false);
		dec_damage(d->in, atf_det_off(d, th->ex_back[0].from), "%s", b.p);
	}
	buf_free(&b);
	if (x->in)
		input_release(x->in, 0, x->in->size);
	if (d->in)
		input_release(d->in, 0, d->in->size);
}
