/* syscall/info.c: --info: streams, gaps, fillers, duplicates */
#include "decoders/syscall/syscall.h"

static void areas(struct fsink *out, const char *name, const struct area *a, unsigned n, uint64_t total)
{
	f_arr(out, name);
	for (unsigned i = 0; i < n; i++) {
		f_obj(out, NULL);
		f_uint(out, "offset", a[i].off);
		f_unit(out, "bytes", a[i].len, "bytes");
		f_end(out);
	}
	f_end(out);
	if (total > n)
		f_uint(out, "not_listed", total - n);
}

static void stream_info(const struct sc *sc, uint32_t si, struct fsink *out)
{
	const struct stream *s = &sc->s[si];
	f_obj(out, NULL);
	f_uint(out, "stream", si + 1);
	f_uint(out, "offset", s->off);
	f_cstr(out, "role", s->child ? "child (has clone() = 0)" : "process");
	f_int(out, "tid", s->tid);
	char d[64];
	sc_utc_date(d, sizeof d, s->epoch);
	f_put(out, &(struct field){F_NAME("epoch_s"), .kind = FK_INT, .v.i = s->epoch, .meaning = d});
	if (s->hdr_len == HDR_LEN)
		f_unit(out, "mono_ref", (uint64_t)s->ref, "ns");
	else
		f_put(out, &(struct field){F_NAME("mono_ref"), .kind = FK_NULL, .meaning = "20-byte header (before 2019-09-18)"});
	f_uint(out, "version", s->version);
	f_cstr(out, "byte_order", s->be ? "big-endian" : "little-endian");
	if (s->seg16)
		f_cstr(out, "segments", "16-bit tags and lengths (the spec's TLV)");
	if (s->uname_len) {
		/* read, not touched through the mapping: a fault there maps a large
		 * folio of the page cache, and a capture of many processes has a
		 * header every few MB (--info would hold much of the file) */
		uint8_t raw[512]; /* (utsname: six fields of 65 bytes) */
		uint64_t avail = s->uname_len;
		const uint8_t *p = raw;
		if (s->uname_len > sizeof raw || !input_copy(sc->in, s->uname_off, raw, s->uname_len))
			p = input_bytes(sc->in, s->uname_off, &avail);
		struct buf u = {0};
		for (size_t i = 0; p && i < s->uname_len && i < avail; i++)
			buf_addc(&u, p[i] ? (char)p[i] : ' ');
		while (u.len && u.p[u.len - 1] == ' ')
			u.p[--u.len] = 0;
		f_str(out, "uname", u.p ? u.p : "", u.len);
		buf_free(&u);
	} else {
		f_null(out, "uname");
	}
	if (!s->x86)
		f_cstr(out, "names", "not an x86_64 machine: syscalls shown by number");
	f_uint(out, "records", s->records);
	if (s->literal)
		f_uint(out, "spec_layout_records", s->literal);
	if (s->damaged)
		f_uint(out, "damaged_records", s->damaged);
	if (s->votes_mu || s->votes_f32 || s->errno_seen)
		f_cstr(out, "durations", s->errno_seen || s->votes_mu > s->votes_f32 ? "multi-unit u32 (before 2020-07-17)"
										     : "f32 ns");
	f_uint(out, "pages", s->fillers + (s->since_filler > 0));
	f_uint(out, "fillers", s->fillers);
	f_unit(out, "filler_bytes", s->filler_bytes, "bytes");
	areas(out, "filler_list", s->listed ? s->listed + MAX_LISTED : NULL, s->nlisted_fillers, s->fillers);
	f_uint(out, "gaps", s->gaps);
	f_unit(out, "gap_bytes", s->gap_bytes, "bytes");
	areas(out, "gap_list", s->listed, s->nlisted_gaps, s->gaps);
	if (s->unpaged)
		f_put(out, &(struct field){F_NAME("flushes_without_filler"), .kind = FK_UINT, .v.u = s->unpaged,
					   .meaning = "the writer's layout predicted a page here but none was written: no gap skipped"});
	if (s->family != si)
		f_put(out, &(struct field){F_NAME("same_header_as_stream"), .kind = FK_UINT, .v.u = s->family + 1,
					   .meaning = "forked from one process"});
	if (s->dups)
		f_put(out, &(struct field){F_NAME("duplicates"), .kind = FK_UINT, .v.u = s->dups,
					   .meaning = "records from before a fork, also in an earlier stream (marked [copy])"});
	if (s->dup_of)
		f_uint(out, "duplicates_of_stream", s->dup_of);
	f_end(out);
}

void sc_info(struct source *src, struct fsink *out)
{
	struct input *in;
	for (size_t i = 0; (in = dec_source_input(src, i)); i++) {
		struct sc *sc = in->dstate;
		if (!sc)
			continue;
		f_uint(out, "streams", sc->ns);
		if (!sc->ns && !in->size)
			f_cstr(out, "capture", "empty (0 bytes)");
		f_arr(out, "stream_list");
		for (uint32_t k = 0; k < sc->ns; k++)
			stream_info(sc, k, out);
		f_end(out);
		if (sc->has_stale) {
			f_obj(out, "stale_tail");
			f_uint(out, "offset", sc->stale.off);
			f_unit(out, "bytes", sc->stale.len, "bytes");
			f_end(out);
		}
		if (sc->gap_past_end)
			f_put(out, &(struct field){F_NAME("gap_past_end"), .kind = FK_UINT, .v.u = sc->gap_past_end,
						   .unit = "bytes", .meaning = "the file ends inside a gap: nothing lost"});
		if (sc->fprints_full)
			f_cstr(out, "duplicate_search", "stopped: too many records from before forks");
	}
}
