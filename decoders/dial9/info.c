/* dial9/info.c: --info: frames, schemas, annotations, clocks and segments */
#include "decoders/dial9/dial9.h"

static const char *const frame_names[FR_KINDS] = {"header",    "schema",          "event",
						  "string_pool", "stack_pool", "timestamp_reset",
						  "schema_annotations"};

/* The schemas' annotations, as "Schema.field key=value", once each. */
static void info_annotations(struct source *src, struct fsink *out)
{
	struct input *in;
	f_arr(out, "annotations");
	struct hmap seen = {0};
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct d9 *d = in->dstate;
		if (!d || d->magic != D9_INPUT)
			continue;
		for (size_t k = 0; k < d->nsch; k++) {
			const struct schema *s = d->sch[k];
			for (const uint8_t *p = s->key + s->nraw, *e = s->key + s->nkey; p < e;) {
				uint16_t fi = ld16le(p), kl = ld16le(p + 2);
				uint32_t vl = ld32le(p + 4 + kl);
				struct buf b = {0};
				buf_printf(&b, "%s.", s->name);
				if (fi < s->nfields)
					buf_adds(&b, s->f[fi].name);
				else
					buf_printf(&b, "#%u", fi);
				buf_addc(&b, ' ');
				buf_add(&b, p + 4, kl);
				buf_addc(&b, '=');
				buf_add(&b, p + 8 + kl, vl);
				p += 8 + kl + vl;
				uint64_t sid = model_str(d->m, b.p, b.len), one;
				if (!hmap_get(&seen, sid, &one)) {
					hmap_put(&seen, sid, 1);
					f_str(out, NULL, b.p, b.len);
				}
				buf_free(&b);
			}
		}
	}
	f_end(out);
	hmap_free(&seen);
}

void d9_info(struct source *src, struct fsink *out)
{
	uint64_t fr[FR_KINDS] = {0}, no_ts = 0, beyond = 0, bad_spans = 0, back = 0, ustr = 0, ustk = 0, reps = 0, askip = 0, nopt = 0,
		 syms = 0, clocks = 0, mapped = 0, nschemas = 0;
	struct d9 *first_clock = NULL;
	struct hmap names = {0}; /* distinct schema names */
	struct input *in;
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct d9 *d = in->dstate;
		if (!d || d->magic != D9_INPUT)
			continue;
		for (int k = 0; k < FR_KINDS; k++)
			fr[k] += d->frames[k];
		no_ts += d->no_ts, beyond += d->ts_beyond, bad_spans += d->bad_spans, back += d->back_steps, ustr += d->unres_str, ustk += d->unres_stk;
		reps += d->schema_repeats, askip += d->annot_skipped, nopt += d->nested_opt;
		d9_sort_syms(d);
		syms += d->nsyms, clocks += d->nclocks, mapped += d->mapped_samples;
		nschemas += d->nsch;
		for (size_t k = 0; k < d->nsch; k++)
			hmap_put(&names, model_str(d->m, d->sch[k]->name, strlen(d->sch[k]->name)), 1);
		if (!first_clock && d->nclocks && d->have_min)
			first_clock = d;
	}
	f_uint(out, "version", 1);
	struct input *first = dec_source_input(src, 0);
	if (dec_source_state(src) || (first && strcmp(first->path, dec_source_path(src)))) { /* a directory's trace */
		f_arr(out, "segments");
		for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
			struct d9 *d = in->dstate;
			f_obj(out, NULL);
			f_cstr(out, "file", in->path);
			f_uint(out, "sub_streams", d ? d->frames[FR_HEADER] : 0);
			f_uint(out, "events", d ? d->frames[FR_EVENT] : 0);
			f_end(out);
		}
		f_end(out);
	}
	f_uint(out, "sub_streams", fr[FR_HEADER]);
	f_obj(out, "frames");
	for (int k = FR_SCHEMA; k < FR_KINDS; k++)
		f_uint(out, frame_names[k], fr[k]);
	f_end(out);
	f_uint(out, "schema_names", names.n);
	f_uint(out, "schemas_kept", nschemas);
	f_uint(out, "schema_repeats", reps);
	info_annotations(src, out);
	hmap_free(&names);
	f_uint(out, "annotations_skipped", askip);
	f_uint(out, "clock_syncs", clocks);
	if (first_clock) {
		struct buf b = {0};
		if (d9_wall_clock(first_clock, first_clock->min_ts, &b))
			f_put(out, &(struct field){F_NAME("wall_clock_start"), .kind = FK_STR, .v.s = {b.p, b.len},
						   .meaning = "UTC"});
		buf_free(&b);
	}
	f_uint(out, "symbols", syms);
	f_uint(out, "thread_events_on_workers", mapped);
	f_uint(out, "events_without_timestamp", no_ts);
	f_uint(out, "back_steps", back);
	if (bad_spans)
		f_put(out, &(struct field){F_NAME("spans_not_placed"), .kind = FK_UINT, .v.u = bad_spans,
					   .meaning = "start or duration absent or out of range: kept as instants"});
	if (beyond)
		f_put(out, &(struct field){F_NAME("events_beyond_2^63_ns"), .kind = FK_UINT, .v.u = beyond,
					   .meaning = "kept at 2^63-1 ns, flagged damaged"});
	f_obj(out, "unresolved");
	f_uint(out, "strings", ustr);
	f_uint(out, "stacks", ustk);
	f_end(out);
	if (nopt)
		f_uint(out, "optional_inside_dynamic_values", nopt);
}
