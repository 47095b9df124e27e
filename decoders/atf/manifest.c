/* atf/manifest.c: manifest.json: symbols, modules, the clock, threads listed */
#include "decoders/atf/atf.h"

char *atf_json_dup(const struct json *j, uint32_t id)
{
	struct buf b = {0};
	if (!json_str(j, id, &b))
		return NULL;
	buf_addc(&b, 0); /* NUL-terminated even when empty */
	return b.p;
}

static bool parse_hex_id(const struct json *j, uint32_t id, uint64_t *v)
{
	if (json_u64(j, id, v))
		return true;
	struct buf b = {0};
	bool ok = false;
	if (json_str(j, id, &b) && b.len > 2 && b.len <= 18 && b.p[0] == '0' && (b.p[1] | 32) == 'x') {
		char *end;
		*v = strtoull(b.p + 2, &end, 16);
		ok = *end == 0 && b.p[2] != '-' && b.p[2] != '+' && b.p[2] != ' ';
	}
	buf_free(&b);
	return ok;
}

static void read_session_manifest(struct session *ss, struct pidinfo *pi, const struct json *j, uint32_t root)
{
	struct buf b = {0};
	pi->format_version = atf_json_dup(j, json_get(j, root, "format_version"));
	pi->have_clock = json_u64(j, json_get(j, root, "clock_type"), &pi->clock_type);
	for (uint32_t t = json_child(j, json_get(j, root, "threads")); t; t = json_next(j, t)) {
		uint64_t id;
		if (json_u64(j, json_get(j, t, "id"), &id) && id <= UINT32_MAX) {
			xgrow(&pi->listed, &pi->caplisted, pi->nlisted + 1, sizeof *pi->listed);
			pi->listed[pi->nlisted++] = (uint32_t)id;
		}
	}
	for (uint32_t mo = json_child(j, json_get(j, root, "modules")); mo; mo = json_next(j, mo)) {
		uint64_t id;
		buf_reset(&b);
		if (!json_u64(j, json_get(j, mo, "module_id"), &id) || id > UINT32_MAX ||
		    !json_str(j, json_get(j, mo, "path"), &b))
			continue;
		pi->nmodules++;
		const char *s = b.p ? b.p : "";
		size_t k = b.len;
		const char *slash = NULL;
		for (size_t i = 0; i < k; i++)
			if (s[i] == '/')
				slash = s + i;
		const char *base = slash && slash + 1 < s + k ? slash + 1 : s;
		hmap_put(&ss->mod, id, atf_intern(ss, base, k - (size_t)(base - s)));
	}
	for (uint32_t sy = json_child(j, json_get(j, root, "symbols")); sy; sy = json_next(j, sy)) {
		uint64_t fid;
		buf_reset(&b);
		if (!parse_hex_id(j, json_get(j, sy, "function_id"), &fid) || !json_str(j, json_get(j, sy, "name"), &b))
			continue;
		pi->nsymbols++;
		hmap_put(&ss->sym, fid, atf_intern(ss, b.p ? b.p : "", b.len));
	}
	buf_free(&b);
}

/* Add a JSON file as an input and parse it now (it is small and must be
 * known before records are named).  Returns false when absent. */
bool atf_load_json(struct session *ss, const char *path, struct json *j, struct input **inp)
{
	*inp = NULL;
	*j = (struct json){0}; /* (json_parse is not reached for a file not read whole) */
	if (!atf_is_file(path))
		return false;
	struct input *in = atf_add_input(ss, path, &ss->meta_tag);
	*inp = in;
	if (!in)
		return false;
	if (!dec_read_whole(in, JSON_MAX_BYTES) || !json_parse(j, in->map ? (const char *)in->map : "", in->size)) {
		if (!j->err[0])
			snprintf(j->err, sizeof j->err, "not a readable JSON file");
		dec_damage(in, j->err_off, "%s", j->err);
		json_free(j);
		return false;
	}
	if (json_type(j, json_root(j)) != JSON_OBJ) {
		dec_damage(in, 0, "not a JSON object");
		json_free(j);
		return false;
	}
	return true;
}

/* A session manifest that parsed as JSON. */
void atf_pid_manifest(struct session *ss, struct pidinfo *pi, const char *path, struct input *in, struct json *j)
{
	uint32_t root = json_root(j);
	if (json_get(j, root, "threads")) {
		pi->manifest = M_OK;
		pi->manifest_path = xstrdup(path);
		read_session_manifest(ss, pi, j, root);
	} else {
		pi->manifest = M_BAD;
		pi->manifest_path = xstrdup(path);
		pi->manifest_err = xstrdup("has no \"threads\" key: not a session manifest");
		dec_damage(in, 0, "no \"threads\" key: not an ATF session manifest");
	}
}

void atf_load_pid_manifest(struct session *ss, size_t pidx, const char *pdir)
{
	char *path = atf_path_join(pdir, "manifest.json");
	struct json j;
	struct input *in;
	struct pidinfo *pi = &ss->pids[pidx];
	if (atf_load_json(ss, path, &j, &in)) {
		atf_pid_manifest(ss, pi, path, in, &j);
		json_free(&j);
	} else if (in) {
		pi->manifest = M_BAD;
		pi->manifest_path = xstrdup(path);
		pi->manifest_err = xstrdup("not readable JSON");
	}
	free(path);
}
