/* atf/info.c: --info: the recovery report of each thread */
#include "decoders/atf/atf.h"

static void put_opt(struct fsink *out, const char *name, const char *v)
{
	if (v)
		f_cstr(out, name, v);
	else
		f_null(out, name);
}

static void put_enum(struct fsink *out, const char *name, uint64_t v, const char *value_name)
{
	f_put(out, &(struct field){.name = name, .kind = FK_UINT, .v.u = v, .value_name = value_name,
				   .meaning = value_name ? NULL : "unknown"});
}

static const char *crc_text(int crc, uint32_t stored, bool have)
{
	if (!have)
		return "no footer";
	if (!stored)
		return "not computed";
	return crc == 1 ? "ok" : "mismatch";
}

static void info_index(struct idx *x, struct fsink *out)
{
	f_obj(out, "index");
	f_str(out, "file", x->in->path, strlen(x->in->path));
	f_unit(out, "size", x->in->size, "bytes");
	put_opt(out, "state", x->state);
	put_opt(out, "recovered_from", x->from);
	f_uint(out, "records", x->n);
	if (x->have_hdr) {
		f_uint(out, "header_count", x->hdr_count);
		if (x->footer)
			f_uint(out, "footer_count", x->footer_count);
		else
			f_null(out, "footer_count");
		f_uint(out, "size_count", x->size_count);
		f_unit(out, "partial_tail_bytes", x->partial, "bytes");
		f_unit(out, "bytes_after_footer", x->trailing, "bytes");
		f_unit(out, "events_offset", x->raw_E, "bytes");
		f_unit(out, "header_footer_offset", x->hdr_footer, "bytes");
		if (x->footer) {
			f_unit(out, "footer_at", x->footer_at, "bytes");
			f_hex(out, "footer_checksum", x->footer_crc);
		} else {
			f_null(out, "footer_at");
		}
		f_cstr(out, "checksum", crc_text(x->crc, x->footer_crc, x->footer));
		f_put(out, &(struct field){F_NAME("flags"), .kind = FK_HEX, .v.u = x->flags,
					   .meaning = x->flags & 1 ? "has_detail_file" : NULL});
		put_enum(out, "arch", x->arch, atf_arch_name(x->arch));
		put_enum(out, "os", x->os, atf_os_name(x->os));
		put_enum(out, "clock_type", x->clock, atf_clock_name(x->clock));
		f_put(out, &(struct field){F_NAME("thread_id"), .kind = FK_UINT, .v.u = x->hdr_tid, .meaning = "slot"});
		f_uint(out, "calls", x->calls);
		f_uint(out, "returns", x->returns);
		f_uint(out, "exceptions", x->exceptions);
		f_uint(out, "unknown_kinds", x->unknown);
		f_uint(out, "with_detail_seq", x->linked);
		if (x->n) {
			/* times in ns, without the unit: not durations to be rendered as such */
			f_int(out, "first_ts", x->first);
			f_int(out, "last_ts", x->last);
			f_int(out, "min_ts", x->min);
			f_int(out, "max_ts", x->max);
		}
		f_bool(out, "time_sorted", !x->backsteps);
		f_uint(out, "time_steps_back", x->backsteps);
		f_cstr(out, "layout", x->drain ? "drain batches (records with a detail_seq are detail-lane copies)"
					       : "as written (no step back in time)");
		uint64_t big = 0;
		for (size_t c = 0; c < x->nch; c++)
			big = MAX(big, chunk_end(x, c) - x->ch[c].start);
		f_uint(out, "time_chunks", x->nch);
		f_put(out, &(struct field){F_NAME("largest_chunk"), .kind = FK_UINT, .v.u = big,
					   .meaning = x->nch == 1 && big > CHUNK_MIN
							      ? "the whole file is one chunk: sorting it takes 4 bytes per record"
							      : NULL});
		f_uint(out, "long_pairs", x->far_pairs);
		if (x->stk_full)
			f_put(out, &(struct field){F_NAME("calls_too_deep"), .kind = FK_UINT, .v.u = x->stk_full,
						   .meaning = "nested deeper than 65536: their far returns are not paired"});
	}
	f_end(out);
}

static void info_detail(struct det *d, struct fsink *out)
{
	f_obj(out, "detail");
	f_str(out, "file", d->in->path, strlen(d->in->path));
	f_unit(out, "size", d->in->size, "bytes");
	put_opt(out, "state", d->state);
	f_uint(out, "records", d->n);
	if (d->have_hdr) {
		f_uint(out, "header_count", d->hdr_count);
		if (d->footer)
			f_uint(out, "footer_count", d->footer_count);
		else
			f_null(out, "footer_count");
		f_unit(out, "header_bytes_length", d->hdr_bytes, "bytes");
		f_unit(out, "partial_tail_bytes", d->partial, "bytes");
		f_unit(out, "events_offset", d->raw_S, "bytes");
		f_cstr(out, "checksum", crc_text(d->crc, d->footer_crc, d->footer));
		f_uint(out, "header_index_seq_start", d->seq_start);
		f_uint(out, "header_index_seq_end", d->seq_end);
		if (d->n) {
			f_uint(out, "index_seq_min", d->seq_min);
			f_uint(out, "index_seq_max", d->seq_max);
			f_int(out, "min_ts", d->tmin);
			f_int(out, "max_ts", d->tmax);
		}
		f_uint(out, "calls", d->calls);
		f_uint(out, "returns", d->returns);
		if (d->other_types)
			f_uint(out, "other_event_types", d->other_types);
		if (d->len0)
			f_unit(out, "record_length", d->len0, "bytes");
		if (d->spec_layout)
			f_put(out, &(struct field){F_NAME("spec_layout_records"), .kind = FK_UINT, .v.u = d->spec_layout,
						   .meaning = "the spec's DetailFunctionPayload: never written by real tools"});
		if (d->odd_layout)
			f_uint(out, "unknown_layout_records", d->odd_layout);
		if (d->tid_other)
			f_uint(out, "records_of_another_os_thread", d->tid_other);
	}
	f_end(out);
}

static void info_thread(struct thread *th, struct fsink *out)
{
	struct session *ss = th->ss;
	struct idx *x = &th->ix;
	struct det *d = &th->dt;
	const struct pidinfo *pi = &ss->pids[th->pidx];
	f_obj(out, NULL);
	if (pi->known)
		f_uint(out, "pid", pi->pid);
	f_uint(out, "slot", th->slot);
	atf_put_str_id(out, ss, "lane", model_lane_get(ss->m, th->lane)->name);
	if (d->tid_known)
		f_uint(out, "os_thread_id", d->tid);
	else
		f_null(out, "os_thread_id");
	f_uint(out, "index_events", x->n);
	f_uint(out, "detail_events", d->n);
	put_opt(out, "recovered_from", x->in ? x->from : "no index.atf");
	f_unit(out, "partial_tail_bytes", x->partial + d->partial, "bytes");
	f_cstr(out, "checksum", x->in ? crc_text(x->crc, x->footer_crc, x->footer) : "no index.atf");
	f_uint(out, "dangling_links", th->fwd_dangling + th->fwd_mismatch + th->back_past + th->back_mismatch);
	bool listed = false;
	for (size_t i = 0; i < pi->nlisted; i++)
		listed |= pi->listed[i] == th->slot;
	if (pi->manifest == M_OK)
		f_bool(out, "in_manifest", listed);
	f_put(out, &(struct field){F_NAME("has_detail"), .kind = FK_BOOL, .v.b = d->in != NULL,
				   .meaning = x->have_hdr && (bool)(x->flags & 1) != (d->in != NULL)
						      ? (d->in ? "detail.atf exists; the header flag says none"
							       : "the header flag says detail, there is no detail.atf")
						      : NULL});
	if (x->in)
		info_index(x, out);
	else
		f_null(out, "index");
	if (d->in)
		info_detail(d, out);
	else
		f_null(out, "detail");
	f_obj(out, "links");
	f_bool(out, "checked", !atf_unchecked(th));
	f_uint(out, "forward", x->linked);
	f_uint(out, "ok", th->fwd_ok);
	f_uint(out, "forward_dangling", th->fwd_dangling);
	f_uint(out, "forward_mismatched", th->fwd_mismatch);
	f_uint(out, "back_past_index", th->back_past);
	f_uint(out, "back_mismatched", th->back_mismatch);
	struct buf b = {0};
	if (th->nex_fwd) {
		atf_ex_text(&b, th->ex_fwd, th->nex_fwd, th->fwd_dangling + th->fwd_mismatch, true);
		f_str(out, "first_dangling_forward", b.p, b.len);
	}
	if (th->nex_back) {
		buf_reset(&b);
		atf_ex_text(&b, th->ex_back, th->nex_back, th->back_past + th->back_mismatch, false);
		f_str(out, "first_dangling_back", b.p, b.len);
	}
	buf_free(&b);
	f_end(out);
	f_end(out);
}

void atf_info(struct source *src, struct fsink *out)
{
	struct session *ss = dec_source_state(src);
	if (!ss || ss->tag != T_SESSION)
		return;
	put_opt(out, "layout", ss->layout);
	if (ss->bundle) {
		f_obj(out, "bundle");
		put_opt(out, "manifest", ss->bundle_manifest);
		put_opt(out, "trace_session", ss->trace_session);
		put_opt(out, "status", ss->bundle_status);
		f_end(out);
	}
	f_arr(out, "processes");
	for (size_t i = 0; i < ss->npids; i++) {
		const struct pidinfo *pi = &ss->pids[i];
		f_obj(out, NULL);
		if (pi->known)
			f_uint(out, "pid", pi->pid);
		else
			f_null(out, "pid");
		if (pi->dir)
			f_str(out, "directory", pi->dir, strlen(pi->dir));
		static const char *const mstate[] = {"missing", "present", "unreadable"};
		f_put(out, &(struct field){F_NAME("manifest"), .kind = FK_STR,
					   .v.s = {mstate[pi->manifest], strlen(mstate[pi->manifest])},
					   .meaning = pi->manifest == M_BAD       ? pi->manifest_err
						      : pi->manifest == M_MISSING ? "normal after a crash: symbol names are unavailable"
										  : NULL});
		if (pi->manifest == M_OK) {
			put_opt(out, "format_version", pi->format_version);
			if (pi->have_clock)
				put_enum(out, "clock_type", pi->clock_type,
					 pi->clock_type < 256 ? atf_clock_name((uint8_t)pi->clock_type) : NULL);
			f_uint(out, "modules", pi->nmodules);
			f_uint(out, "symbols", pi->nsymbols);
			f_arr(out, "threads_listed");
			for (size_t k = 0; k < pi->nlisted; k++)
				f_uint(out, NULL, pi->listed[k]);
			f_end(out);
			/* listed threads without files */
			f_arr(out, "listed_without_files");
			for (size_t k = 0; k < pi->nlisted; k++) {
				bool found = false;
				for (size_t t = 0; t < ss->nth && !found; t++)
					found = ss->th[t]->pidx == i && ss->th[t]->slot == pi->listed[k];
				if (!found)
					f_uint(out, NULL, pi->listed[k]);
			}
			f_end(out);
		}
		f_end(out);
	}
	f_end(out);
	f_arr(out, "threads");
	for (size_t i = 0; i < ss->nth; i++)
		info_thread(ss->th[i], out);
	f_end(out);
}
