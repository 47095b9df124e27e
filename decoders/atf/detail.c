/* atf/detail.c: detail.atf: records by position, link checks, feeding */
#include "decoders/atf/atf.h"

/* ---- detail records ------------------------------------------------------- */

uint64_t atf_det_off(const struct det *d, uint64_t k)
{
	return k < d->nuni ? d->S + k * d->len0 : d->offs[k - d->nuni];
}

/* Does index record r link to detail k, and k back to r? */
bool atf_link_ok(const struct thread *th, uint64_t r, uint32_t k)
{
	const struct det *d = &th->dt;
	return d->in && k < d->n && ld32le(drec(d, k) + 8) == r;
}

/* A file opened by itself, without the other: its links are not checked. */
bool atf_unchecked(const struct thread *th) { return th->alone && (!th->ix.in || !th->dt.in); }

/* ---- feeding detail.atf --------------------------------------------------- */

static bool det_header(struct det *d, const uint8_t *h)
{
	struct input *in = d->in;
	if (memcmp(h, "ATD2", 4)) {
		dec_fatal(in, 0, "not an ATF v2 detail file (magic is not \"ATD2\"): file skipped");
		return false;
	}
	d->endian = h[4];
	d->version = h[5];
	d->arch = h[6];
	d->os = h[7];
	d->flags = ld32le(h + 8);
	d->hdr_tid = ld32le(h + 12);
	d->raw_S = ld64le(h + 20);
	d->hdr_count = ld64le(h + 28);
	d->hdr_bytes = ld64le(h + 36);
	d->seq_start = ld64le(h + 44);
	d->seq_end = ld64le(h + 52);
	if (d->endian != 1) {
		dec_fatal(in, 4, "endian byte is %u (only 1, little-endian, is defined): file skipped", d->endian);
		return false;
	}
	if (d->version != 1) {
		dec_fatal(in, 5, "version %u (only 1 is defined): file skipped", d->version);
		return false;
	}
	d->S = d->raw_S;
	if (d->S < 60 || d->S > in->size) {
		dec_damage(in, 20, "events_offset %llu is outside the file: using 64", (unsigned long long)d->raw_S);
		d->S = HDR;
	}
	d->have_hdr = true;
	return true;
}

static void det_record(struct det *d, uint64_t off, const uint8_t *q, uint32_t len)
{
	struct thread *th = d->th;
	uint64_t k = d->n;
	if (k == 0) {
		d->len0 = len;
		d->seq_min = d->seq_max = ld32le(q + 8);
		d->tmin = d->tmax = (int64_t)ld64le(q + 16);
	}
	if (d->offs || len != d->len0) {
		xgrow(&d->offs, &d->capoffs, d->noffs + 1, sizeof *d->offs);
		d->offs[d->noffs++] = off;
	} else {
		d->nuni = k + 1;
	}
	uint16_t type = ld16le(q + 4);
	if (type == 3)
		d->calls++;
	else if (type == 4)
		d->returns++;
	else
		d->other_types++;
	uint32_t seq = ld32le(q + 8);
	d->seq_min = MIN(d->seq_min, seq);
	d->seq_max = MAX(d->seq_max, seq);
	int64_t ts = (int64_t)ld64le(q + 16);
	d->tmin = MIN(d->tmin, ts);
	d->tmax = MAX(d->tmax, ts);
	if (len == DREC_REAL) {
		uint32_t tid = ld32le(q + 40);
		if (!d->tid_known) {
			d->tid = tid;
			d->tid_known = true;
			th->name_tid = tid;
			struct session *ss = th->ss;
			atf_lane_name(th, &ss->tmp);
			model_lane_rename(ss->m, th->lane, atf_intern(ss, ss->tmp.p, ss->tmp.len));
		} else if (tid != d->tid) {
			d->tid_other++;
		}
	} else if (len >= DREC_HDR + SPEC_PAYLOAD && ld16le(q + DREC_HDR + 96) == len - DREC_HDR - SPEC_PAYLOAD) {
		d->spec_layout++;
	} else {
		d->odd_layout++;
	}
	d->n = k + 1;
}

/* The end of the file: the footer if there is one (counts, checksum), and
 * what follows the last whole record at pos. */
static void det_finish(struct det *d, uint64_t pos)
{
	struct input *in = d->in;
	uint64_t size = in->size;
	d->size = size;
	d->end = pos;
	uint64_t rend = d->footer ? size - 64 : size;
	d->partial = rend > pos ? rend - pos : 0;
	if (d->footer) {
		const uint8_t *f = in->map + size - 64;
		d->footer_crc = ld32le(f + 4);
		d->footer_count = ld64le(f + 8);
		d->footer_bytes = ld64le(f + 16);
		d->footer_t0 = ld64le(f + 24);
		d->footer_t1 = ld64le(f + 32);
		d->state = d->hdr_count == d->footer_count && d->hdr_bytes == d->footer_bytes
				   ? (d->footer_count ? "finalized" : "finalized-empty")
				   : "footer found, header not rewritten";
		if (d->footer_count != d->n || d->footer_bytes != pos - d->S)
			dec_damage(in, size - 64, "footer counts %llu records in %llu bytes; found %llu in %llu",
				   (unsigned long long)d->footer_count, (unsigned long long)d->footer_bytes,
				   (unsigned long long)d->n, (unsigned long long)(pos - d->S));
		else if (d->hdr_count != d->footer_count)
			dec_damage(in, 28,
				   "header not rewritten (count %llu) although a complete footer is at %llu: killed while "
				   "finalizing",
				   (unsigned long long)d->hdr_count, (unsigned long long)(size - 64));
		if (d->footer_crc) {
			d->crc_calc = (uint32_t)crc32_z(0, in->map + d->S, (z_size_t)(pos - d->S));
			d->crc = d->crc_calc == d->footer_crc ? 1 : 2;
			if (d->crc == 2)
				dec_damage(in, size - 60,
					   "checksum mismatch: footer says 0x%08x, CRC-32 of the records is 0x%08x",
					   d->footer_crc, d->crc_calc);
		}
	} else {
		d->state = "unfinalized (recovered from file size)";
		if (!d->partial)
			dec_damage(in, pos, "not finalized (placeholder header, no footer): %llu records",
				   (unsigned long long)d->n);
	}
	if (d->partial) {
		if (d->bad_len_at == pos)
			dec_damage(in, pos, "record length %u is shorter than a record header: the last %llu bytes are "
					    "not decodable",
				   d->bad_len, (unsigned long long)d->partial);
		else
			dec_damage(in, pos, "%s%llu records; a partial record (the last %llu bytes) dropped",
				   d->footer ? "" : "not finalized (placeholder header, no footer): ",
				   (unsigned long long)d->n, (unsigned long long)d->partial);
	}
}

size_t atf_det_feed(struct det *d, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	struct input *in = d->in;
	size_t used = 0;
	if (d->final)
		return n;
	if (!d->have_hdr) {
		if (off + n < HDR) {
			if (!final)
				return 0;
			d->state = n ? "shorter than the header" : "empty / no header";
			dec_damage(in, 0, n ? "%zu bytes: shorter than the 64-byte header, no records"
					    : "%zu bytes: no header, no records (normal after a crash)",
				   n);
			d->final = true;
			atf_settle(d->th);
			return n;
		}
		if (!det_header(d, p)) {
			d->rejected = true;
			d->state = "not an ATF v2 detail file";
			d->final = true;
			atf_settle(d->th);
			return 0;
		}
	}
	uint64_t pos = off;
	if (pos < d->S) {
		uint64_t k = MIN(d->S - pos, (uint64_t)n);
		used += (size_t)k;
		pos += k;
		if (pos < d->S)
			return used;
	}
	uint64_t size = in->size, stop = off + n;
	d->footer = size >= d->S + 64 && !memcmp(in->map + size - 64, "2DTA", 4);
	/* A footer at a record boundary reads as a record of impossible
	 * length: records before it are safe to take while the file grows. */
	uint64_t end = d->footer ? size - 64 : size;
	end = MIN(end, stop);
	while (pos + DREC_HDR <= end && d->n < MAX_RECORDS) {
		const uint8_t *q = p + (pos - off);
		uint32_t len = ld32le(q);
		if (len < DREC_HDR || len > end - pos) {
			if (len < DREC_HDR && !d->bad_len_at) {
				d->bad_len = len;
				d->bad_len_at = pos;
			}
			break;
		}
		det_record(d, pos, q, len);
		pos += len;
	}
	used = (size_t)(pos - off);
	if (d->th->ix.final)
		atf_check_back(d->th, d->n);
	/* finalized (footer written, header rewritten: read it again) while
	 * following: nothing more comes */
	bool sealed = d->footer && pos == size - 64 && !memcmp(in->map + 28, in->map + size - 56, 16);
	if (sealed) {
		d->hdr_count = ld64le(in->map + 28);
		d->hdr_bytes = ld64le(in->map + 36);
	}
	if (!final && !in->done && !sealed)
		return used;
	det_finish(d, pos);
	d->final = true;
	atf_settle(d->th);
	return n;
}
