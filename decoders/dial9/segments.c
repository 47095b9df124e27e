/* dial9/segments.c: the decoder: probing, opening and closing a segment; directories of segments */
#include "decoders/dial9/dial9.h"

/* ---- probe, open, close --------------------------------------------------- */

static int d9_probe(const uint8_t *p, size_t n, bool final)
{
	static const uint8_t magic[4] = {'T', 'R', 'C', 0};
	static const uint8_t legacy[8] = "TOKIOTRC";
	if (!n)
		return final ? PROBE_NO : PROBE_MORE;
	if (n >= 4 && !memcmp(p, magic, 4))
		return PROBE_MAGIC;
	if (n >= 8 && !memcmp(p, legacy, 8))
		return PROBE_MAGIC; /* to name it and refuse it */
	bool could = n < 4 ? !memcmp(p, magic, n) || !memcmp(p, legacy, n) : !memcmp(p, legacy, n < 8 ? n : 8);
	if (could && !final)
		return PROBE_MORE;
	/* "TRC" and nothing more: a dial9 file cut inside its header */
	return final && n == 3 && !memcmp(p, magic, 3) ? PROBE_WEAK : PROBE_NO;
}

static void *d9_open(struct input *in)
{
	struct d9 *d = xcalloc(1, sizeof *d);
	d->magic = D9_INPUT;
	d->in = in;
	d->m = dec_model(in);
	return d;
}

static void d9_close(void *st)
{
	if (!st)
		return;
	if (*(uint32_t *)st == D9_DIR) {
		struct d9dir *dd = st;
		for (size_t i = 0; i < dd->nsegs; i++) {
			free(dd->segs[i].sub);
			free(dd->segs[i].stem);
			free(dd->segs[i].path);
		}
		free(dd->segs);
		free(dd->path);
		free(dd);
		return;
	}
	struct d9 *d = st;
	for (size_t i = 0; i < d->nsch; i++)
		d9_schema_free(d->sch[i]);
	free(d->sch);
	hmap_free(&d->sch_by_hash);
	free(d->subs);
	free(d->tents);
	for (int k = 0; k < 2; k++) {
		free(d->pools[k]);
		free(d->cur[k].v);
		hmap_free(&d->cur[k].big);
	}
	for (unsigned i = 0; i < 256; i++)
		free(d->page[i]);
	hmap_free(&d->tlane);
	hmap_free(&d->tid_worker);
	hmap_free(&d->pend_head);
	free(d->pend);
	free(d->syms);
	free(d->clocks);
	buf_free(&d->tmp);
	free(d);
}

/* ---- directories of segments ---------------------------------------------- */

/* "STEM.N.bin", "STEM.N.bin.gz", "STEM.N.bin.active": N and the rank. */
static bool seg_name(const char *name, char **stem, uint64_t *n, int *rank)
{
	static const struct {
		const char *suffix;
		int rank;
	} kinds[] = {{".bin", 0}, {".bin.gz", 1}, {".bin.active", 2}};
	size_t len = strlen(name);
	for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
		size_t sl = strlen(kinds[k].suffix);
		if (len <= sl || strcmp(name + len - sl, kinds[k].suffix))
			continue;
		size_t end = len - sl, dig = end;
		while (dig > 0 && name[dig - 1] >= '0' && name[dig - 1] <= '9')
			dig--;
		if (dig == end || end - dig > 18 || dig < 2 || name[dig - 1] != '.')
			return false;
		*n = strtoull(name + dig, NULL, 10);
		*stem = xstrndup(name, dig - 1);
		*rank = kinds[k].rank;
		return true;
	}
	return false;
}

static int by_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = strcmp(x->sub, y->sub);
	if (!c)
		c = strcmp(x->stem, y->stem);
	if (!c)
		c = x->n < y->n ? -1 : x->n > y->n;
	if (!c)
		c = x->rank - y->rank;
	return c;
}

/* Segments directly in dir, or else in its subdirectories (boot ids). */
static void list_segments(const char *dir, const char *sub, struct seg **out, size_t *n, size_t *cap, int depth)
{
	struct buf path = {0};
	buf_printf(&path, "%s%s%s", dir, *sub ? "/" : "", sub);
	struct dir_entry *e;
	size_t ne = dir_list(path.p, &e);
	size_t before = *n;
	char **subdirs = NULL;
	size_t nsub = 0, capsub = 0;
	for (size_t i = 0; i < ne; i++) {
		const char *name = e[i].name;
		char *stem;
		uint64_t num;
		int rank;
		if (name[0] == '.')
			continue;
		if (e[i].kind == PATH_DIR) {
			if (depth == 0) {
				xgrow(&subdirs, &capsub, nsub + 1, sizeof *subdirs);
				subdirs[nsub++] = xstrdup(name);
			}
			continue;
		}
		if (e[i].kind != PATH_FILE || !seg_name(name, &stem, &num, &rank))
			continue;
		struct buf full = {0};
		buf_printf(&full, "%s/%s", path.p, name);
		xgrow(out, cap, *n + 1, sizeof **out);
		(*out)[(*n)++] = (struct seg){xstrdup(sub), stem, num, rank, full.p, NULL};
	}
	dir_free(e, ne);
	if (*n == before && depth == 0)
		for (size_t i = 0; i < nsub; i++)
			list_segments(dir, subdirs[i], out, n, cap, 1);
	for (size_t i = 0; i < nsub; i++)
		free(subdirs[i]);
	free(subdirs);
	buf_free(&path);
}

static void free_segs(struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].sub);
		free(s[i].stem);
		free(s[i].path);
	}
	free(s);
}

static int d9_probe_dir(const char *dir)
{
	struct seg *s = NULL;
	size_t n = 0, cap = 0;
	list_segments(dir, "", &s, &n, &cap, 0);
	free_segs(s, n);
	return n ? PROBE_MAGIC : PROBE_NO;
}

static bool same_seg(const struct seg *a, const struct seg *b)
{
	return a->n == b->n && !strcmp(a->sub, b->sub) && !strcmp(a->stem, b->stem);
}

static struct seg *seg_known(const struct d9dir *dd, const struct seg *s)
{
	for (size_t i = 0; i < dd->nsegs; i++)
		if (same_seg(&dd->segs[i], s))
			return &dd->segs[i];
	return NULL;
}

/* A segment read before whose file is no longer listed under its name: the
 * writer sealed it (trace.N.bin.active renamed trace.N.bin) or compressed
 * it (trace.N.bin replaced by trace.N.bin.gz).  s[0..n): its files now, in
 * rank order. */
static void seg_moved(struct seg *known, const struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].path, known->path))
			return; /* still there (being compressed: the copy is not done) */
	struct input *now = known->in ? dec_move_input(known->in, s[0].path) : NULL;
	if (!now)
		return;
	known->in = now;
	known->rank = s[0].rank;
	free(known->path);
	known->path = xstrdup(s[0].path);
}

/* Add the segments not seen before, in order; one per (subdir, stem, N). */
static size_t add_segments(struct source *src, struct d9dir *dd)
{
	struct seg *s = NULL;
	size_t n = 0, cap = 0, added = 0;
	list_segments(dd->path, "", &s, &n, &cap, 0);
	if (n)
		qsort(s, n, sizeof *s, by_seg);
	for (size_t i = 0, k; i < n; i = k) {
		for (k = i + 1; k < n && same_seg(&s[i], &s[k]); k++)
			;
		struct seg *known = seg_known(dd, &s[i]);
		if (known) {
			seg_moved(known, s + i, k - i);
			continue;
		}
		struct input *in = dec_add_input(src, s[i].path);
		xgrow(&dd->segs, &dd->capsegs, dd->nsegs + 1, sizeof *dd->segs);
		dd->segs[dd->nsegs++] = (struct seg){xstrdup(s[i].sub), xstrdup(s[i].stem), s[i].n, s[i].rank,
						     xstrdup(s[i].path), in};
		if (!in)
			continue;
		in->dec = &dial9_decoder;
		in->dstate = d9_open(in);
		added++;
	}
	free_segs(s, n);
	return added;
}

static bool d9_open_dir(struct source *src, const char *dir)
{
	struct d9dir *dd = xcalloc(1, sizeof *dd);
	dd->magic = D9_DIR;
	dd->path = xstrdup(dir);
	dec_set_source_state(src, dd);
	return add_segments(src, dd) > 0;
}

static void d9_rescan(struct source *src)
{
	struct d9dir *dd = dec_source_state(src);
	if (dd)
		add_segments(src, dd);
}

const struct decoder dial9_decoder = {
	.name = "dial9",
	.title = "dial9-trace-format (tokio telemetry)",
	.reentrant = true,
	.settle = d9_settle,
	.probe = d9_probe,
	.open = d9_open,
	.feed = d9_feed,
	.probe_dir = d9_probe_dir,
	.open_dir = d9_open_dir,
	.rescan = d9_rescan,
	.fields = d9_fields,
	.summary = d9_summary,
	.info = d9_info,
	.close = d9_close,
};
