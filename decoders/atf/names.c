/* atf/names.c: names of architectures, kinds and functions; event types */
#include "decoders/atf/atf.h"

const char *atf_arch_name(uint8_t a) { return a == 1 ? "x86_64" : a == 2 ? "arm64" : NULL; }
const char *atf_os_name(uint8_t o)
{
	static const char *const n[] = {NULL, "iOS", "Android", "macOS", "Linux", "Windows"};
	return o < ARRAY_LEN(n) ? n[o] : NULL;
}
const char *atf_clock_name(uint8_t c)
{
	return c == 1 ? "mach_continuous (real writers: CLOCK_MONOTONIC ns)" : c == 2 ? "QPC" : c == 3 ? "BOOTTIME"
											     : NULL;
}
const char *atf_kind_name(uint32_t k)
{
	return k == K_CALL ? "CALL" : k == K_RETURN ? "RETURN" : k == K_EXCEPTION ? "EXCEPTION" : NULL;
}

/* ---- names and types ------------------------------------------------------ */

uint32_t atf_intern(struct session *ss, const char *s, size_t n) { return model_str(ss->m, s, n); }

/* A symbol as shown: demangled when it is a mangled C++, Rust or Swift
 * name (the model keeps the written one beside it). */
static uint32_t shown_symbol(struct session *ss, uint32_t raw)
{
	size_t n;
	const char *s = model_strget(ss->m, raw, &n);
	struct buf *b = &ss->tmp;
	buf_reset(b);
	if (!demangle(s, n, b))
		return raw;
	uint32_t shown = atf_intern(ss, b->p, b->len);
	model_name_alias(ss->m, shown, raw);
	return shown;
}

/* The display name of a function: its symbol from the manifest (readable:
 * demangled), else the module (basename when known, hash otherwise) and
 * symbol index. */
uint32_t atf_name_of(struct session *ss, uint64_t fid)
{
	size_t slot = (size_t)((fid * 0x9e3779b97f4a7c15ull) >> 56);
	if (ss->nc_used[slot] && ss->nc_key[slot] == fid)
		return ss->nc_val[slot];
	uint64_t v;
	if (!hmap_get(&ss->names, fid, &v)) {
		if (!hmap_get(&ss->sym, fid, &v)) {
			struct buf *b = &ss->tmp;
			buf_reset(b);
			uint64_t mod;
			if (hmap_get(&ss->mod, fid >> 32, &mod)) {
				size_t n;
				const char *s = model_strget(ss->m, (uint32_t)mod, &n);
				buf_add(b, s, n);
				buf_printf(b, " #%u", (unsigned)(fid & 0xffffffffu));
			} else {
				buf_printf(b, "module 0x%08x #%u", (unsigned)(fid >> 32), (unsigned)(fid & 0xffffffffu));
			}
			v = atf_intern(ss, b->p, b->len);
		} else {
			v = shown_symbol(ss, (uint32_t)v);
		}
		hmap_put(&ss->names, fid, v);
	}
	ss->nc_used[slot] = true;
	ss->nc_key[slot] = fid;
	ss->nc_val[slot] = (uint32_t)v;
	return (uint32_t)v;
}

uint32_t atf_make_type(struct session *ss, const char *name, enum ev_role role, uint32_t pair)
{
	struct model *m = ss->m;
	return model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
					    .name_field = model_str(m, "function", 8),
					    .role = (uint8_t)role,
					    .pair = pair,
					    .owner = &atf_decoder});
}

/* The type of an unknown event_kind: made while feeding (never while a
 * writer walks the events: --stats sizes its tables by the type count). */
uint32_t atf_kind_type(struct session *ss, uint32_t kind, bool create)
{
	if (kind == K_CALL)
		return ss->t_call;
	if (kind == K_RETURN)
		return ss->t_ret;
	if (kind == K_EXCEPTION)
		return ss->t_exc;
	uint64_t v;
	if (hmap_get(&ss->kinds, kind, &v))
		return (uint32_t)v;
	if (!create || ss->kinds.n >= MAX_KIND_TYPES)
		return ss->t_kind_other;
	char name[32];
	snprintf(name, sizeof name, "KIND(%u)", kind);
	uint32_t t = atf_make_type(ss, name, ROLE_INSTANT, 0);
	hmap_put(&ss->kinds, kind, t);
	return t;
}
