/* htdump/info.c: --info: streams, classes, events per class, threads */
#include "decoders/htdump/htdump.h"

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The byte order, library version, header layout and streams. */
static void info_streams(const struct ht *h, struct fsink *out)
{
	const struct hstream *s0 = &h->st[0];
	f_cstr(out, "byte_order", s0->be ? "big-endian" : "little-endian");
	if (h->have_version) {
		char v[48];
		snprintf(v, sizeof v, "HawkTracer %u.%u.%u", h->version[0], h->version[1], h->version[2]);
		f_cstr(out, "library", v);
	} else {
		f_null(out, "library");
	}
	f_cstr(out, "header_order", s0->spec_hdr ? "timestamp, id, klass_id (the spec's order)"
						 : "klass_id, timestamp, id");
	f_cstr(out, "data_types", ht_spec_numbering(s0, UINT64_MAX) ? "0..6 (the spec's numbering)"
								  : "1..6, 99 (the library's numbering)");
	f_uint(out, "streams", h->nst);
	if (h->nst > 1) {
		f_arr(out, "stream_starts");
		for (size_t i = 0; i < h->nst; i++) {
			f_obj(out, NULL);
			f_uint(out, "offset", h->st[i].start);
			f_cstr(out, "byte_order", h->st[i].be ? "big-endian" : "little-endian");
			f_uint(out, "events", h->st[i].events);
			f_end(out);
		}
		f_end(out);
	}
}

/* Classes as described (the built-in defaults only when a stream did not
 * describe them), one line each: "9 SampleEvent: 13 fields, base HT_Event,
 * 17 events". */
static void info_classes(const struct ht *h, struct fsink *out)
{
	struct model *m = dec_model(h->in);
	size_t ncls = 0;
	for (size_t i = 0; i < h->nkd; i++)
		ncls += !h->kd[i].builtin;
	f_uint(out, "classes", ncls);
	f_arr(out, "class_list");
	struct buf line = {0};
	for (size_t i = 0; i < h->nkd; i++) {
		const struct kdesc *d = &h->kd[i];
		if (d->builtin && !d->events)
			continue;
		size_t nl;
		const char *nm = model_strget(m, d->name, &nl);
		buf_reset(&line);
		buf_printf(&line, "%u ", d->id);
		buf_add(&line, nm, nl);
		buf_printf(&line, ": %zu fields", d->nf);
		if (d->nf != d->declared && !d->builtin)
			buf_printf(&line, " (field_count says %u)", d->declared);
		if (d->nf && ht_dt_of(d->f[0].dt, !d->f[0].canon && ht_spec_numbering(&h->st[d->stream], UINT64_MAX)) ==
				     DT_STRUCT) {
			nm = model_strget(m, d->f[0].type, &nl);
			buf_adds(&line, ", base ");
			buf_add(&line, nm, nl);
		}
		if (d->builtin)
			buf_adds(&line, ", not described (built-in layout)");
		buf_printf(&line, ", %llu events", (unsigned long long)(d->id < K_HARD ? h->hard_events[d->id] : d->events));
		f_str(out, NULL, line.p, line.len);
	}
	buf_free(&line);
	f_end(out);
}

/* Events per class name, in order of first description. */
static void info_events_per_class(struct ht *h, struct fsink *out)
{
	f_obj(out, "events_per_class");
	for (int k = 0; k < K_HARD; k++)
		if (h->hard_events[k])
			f_uint(out, ht_hard_names[k], h->hard_events[k]);
	struct hmap seen = {0};
	for (size_t i = 0; i < h->nkd; i++) {
		const struct kdesc *d = &h->kd[i];
		if (d->id < K_HARD || !d->events || hmap_get(&seen, d->name, &(uint64_t){0}))
			continue;
		hmap_put(&seen, d->name, 1);
		uint64_t total = 0;
		for (size_t j = i; j < h->nkd; j++)
			if (h->kd[j].name == d->name && h->kd[j].id >= K_HARD)
				total += h->kd[j].events;
		f_uint(out, sname(h, d->name), total);
	}
	hmap_free(&seen);
	f_end(out);
}

/* Threads, by id. */
static void info_threads(const struct ht *h, struct fsink *out)
{
	uint64_t *tids = xcalloc(h->nthreads + 1, sizeof *tids);
	size_t nt = 0;
	for (uint64_t t = 0; t < FAST_TIDS; t++)
		if (h->tlane[t])
			tids[nt++] = t;
	for (size_t i = 0; i < h->tlanes.cap; i++)
		if (h->tlanes.used[i])
			tids[nt++] = h->tlanes.keys[i];
	qsort(tids, nt, sizeof *tids, by_u64);
	f_uint(out, "threads", nt);
	f_arr(out, "thread_ids");
	for (size_t i = 0; i < nt && i < 1000; i++)
		f_uint(out, NULL, tids[i]);
	f_end(out);
	free(tids);
}

void ht_info(struct source *src, struct fsink *out)
{
	struct input *in = dec_source_input(src, 0);
	if (!in || !in->dstate)
		return;
	struct ht *h = in->dstate;
	if (!h->nst) {
		f_cstr(out, "stream", "no events");
		return;
	}
	info_streams(h, out);
	info_classes(h, out);
	info_events_per_class(h, out);
	info_threads(h, out);
	f_uint(out, "string_mappings", h->mappings);
	f_uint(out, "mapped_labels", h->map.n);
	if (h->conflicts)
		f_put(out, &(struct field){F_NAME("conflicting_mappings"), .kind = FK_UINT, .v.u = h->conflicts,
					   .meaning = "the first mapping of an identifier is used"});
	if (h->redefined)
		f_put(out, &(struct field){F_NAME("redefined_classes"), .kind = FK_UINT, .v.u = h->redefined,
					   .meaning = "events after a redefinition use the new description"});
	if (h->orphan_fields)
		f_uint(out, "ignored_field_infos", h->orphan_fields + h->too_many_fields);
	if (in->consumed < in->size)
		f_put(out, &(struct field){F_NAME("undecoded_bytes"), .kind = FK_UINT,
					   .v.u = in->size - in->consumed,
					   .meaning = "from the offset where decoding stopped"});
}
