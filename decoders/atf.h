/* ATF v2 links between index events and detail records, for the viewer.
 *
 * Linked detail records are not events of their own (the index event that
 * links to them is; a session lists each call once).  Both directions are
 * O(1):
 *
 *   - forward: atf_detail_of(t, e, &ref) gives the detail record an index
 *     event links to (its input, byte offset and detail_seq), when the link
 *     resolves; atf_detail_fields() decodes that record on its own (the
 *     event's fields() already nest it as "detail");
 *   - back: atf_index_pos(t, detail_input, detail_seq, &pos) gives the model
 *     position of the index event a detail record links back to (record
 *     index_seq of the thread's index.atf, placed in the timeline).
 *
 * Detail records whose back link does not resolve (their index record was
 * lost in a crash, or links elsewhere) are events of their own, type DETAIL,
 * flagged EVF_DAMAGED; atf_detail_of() on such an event gives the record
 * itself.  The viewer: Enter on an index event shows atf_detail_fields() of
 * atf_detail_of(); Enter again (from the detail record) jumps to
 * atf_index_pos() of it. */
#ifndef TTV_ATF_H
#define TTV_ATF_H

#include <stdbool.h>
#include <stdint.h>

#include "src/fields.h"
#include "src/trace.h"

struct atf_ref {
	uint32_t input;      /* the detail.atf input id */
	uint64_t off;        /* byte offset of the record in it */
	uint32_t detail_seq; /* its position in detail.atf */
};

/* The detail record event e links to (false: not an ATF event, no link, or
 * the link dangles). */
bool atf_detail_of(struct trace *t, const struct event *e, struct atf_ref *out);
/* The model position of the index event that detail record detail_seq of
 * input detail_input links back to (false when the back link dangles). */
bool atf_index_pos(struct trace *t, uint32_t detail_input, uint32_t detail_seq, uint64_t *pos);
/* Every field of that detail record (registers named per architecture). */
void atf_detail_fields(struct trace *t, uint32_t detail_input, uint32_t detail_seq, struct fsink *out);

#endif
