/* dial9/segments.c: the decoder: probing, opening and closing a segment; directories of segments */
#include <ctype.h>

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

static void free_segs(struct seg *s, size_t n);
static void free_groups(struct group *g, size_t n);

static void d9_close(void *st)
{
	if (!st)
		return;
	if (*(uint32_t *)st == D9_DIR) {
		struct d9dir *dd = st;
		free_segs(dd->segs, dd->nsegs);
		free_groups(dd->groups, dd->ngroups);
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
	hmap_free(&d->metric_lanes);
	hmap_free(&d->tid_worker);
	hmap_free(&d->pend_head);
	free(d->pend);
	free(d->syms);
	free(d->clocks);
	buf_free(&d->tmp);
	free(d);
}

/* ---- directories of segments ---------------------------------------------- */

/* A tree of segments as dial9 writes it (trace.N.bin, .bin.active while
 * written, .bin.gz once compressed, under {dir}/{boot_id}/ beside a .lock),
 * as its S3 uploader names them ({prefix}/{date}/{HHMM}/{service}/
 * {instance}/{boot_id}/{epoch}-{index}.bin.gz, or version=1/date=../
 * service=../time=../instance=../boot=../ with %XX escapes), or any files
 * that hold dial9 data (window-07.bin.gz): a file is a segment by its name
 * (an active one may be empty yet) or by its content.  The segments of one
 * service, instance and boot (or of one directory, when the path does not
 * say) are one trace, a source of its own: its clock is its boot's. */

#define TREE_DEPTH 8      /* directories below the top */
#define TREE_FILES 100000 /* files looked at, at most */

/* The kind suffix of a segment's name and its rank (the file to read when
 * one segment has several); -1 when the name has none. */
static int seg_rank(const char *name, size_t *keylen)
{
	static const struct {
		const char *suffix;
		int rank;
	} kinds[] = {{".bin", 0}, {".bin.gz", 1}, {".bin.active", 2}};
	size_t len = strlen(name);
	for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
		size_t sl = strlen(kinds[k].suffix);
		if (len > sl && !strcmp(name + len - sl, kinds[k].suffix)) {
			*keylen = len - sl;
			return kinds[k].rank;
		}
	}
	*keylen = len > 3 && !strcmp(name + len - 3, ".gz") ? len - 3 : len;
	return -1;
}

static bool is_dial9_data(const char *path)
{
	uint8_t head[4];
	return file_head(path, head, 4) == 4 && !memcmp(head, "TRC", 4);
}

/* Names compared as people count: "trace.9" before "trace.10". */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t na = 0, nb = 0;
			while (isdigit((unsigned char)a[na]))
				na++;
			while (isdigit((unsigned char)b[nb]))
				nb++;
			if (na != nb)
				return na < nb ? -1 : 1;
			int c = strncmp(a, b, na);
			if (c)
				return c;
			a += na, b += nb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int by_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	if (!c)
		c = natural_cmp(x->key, y->key);
	if (!c)
		c = x->rank - y->rank;
	return c;
}

/* What a tree's directory path says of the trace in it. */
struct ident {
	char *service, *instance, *boot;
};

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static bool is_date(const char *s) /* YYYY-MM-DD */
{
	return strlen(s) == 10 && all_digits(s, 4) && s[4] == '-' && all_digits(s + 5, 2) && s[7] == '-' &&
	       all_digits(s + 8, 2);
}

static bool is_boot_id(const char *s) /* four letters, '-', the pid */
{
	for (int i = 0; i < 4; i++)
		if (s[i] < 'a' || s[i] > 'z')
			return false;
	return s[4] == '-' && all_digits(s + 5, strlen(s + 5));
}

/* "payments%2Fapi": the Hive escapes undone. */
static char *unescape(const char *s)
{
	char *o = xstrdup(s), *w = o;
	for (const char *p = s; *p; p++) {
		if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			char h[3] = {p[1], p[2], 0};
			*w++ = (char)strtoul(h, NULL, 16);
			p += 2;
		} else {
			*w++ = *p;
		}
	}
	*w = 0;
	return o;
}

static void set(char **field, char *v)
{
	free(*field);
	*field = v;
}

/* The components of rel (a directory below the top, '/'-separated). */
static void identify(const char *rel, struct ident *id)
{
	char *copy = xstrdup(rel), *parts[64];
	size_t n = 0;
	for (char *p = strtok(copy, "/"); p && n < ARRAY_LEN(parts); p = strtok(NULL, "/"))
		parts[n++] = p;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(parts[i], "service=", 8))
			set(&id->service, unescape(parts[i] + 8));
		else if (!strncmp(parts[i], "instance=", 9))
			set(&id->instance, unescape(parts[i] + 9));
		else if (!strncmp(parts[i], "boot=", 5))
			set(&id->boot, unescape(parts[i] + 5));
		else if (is_date(parts[i]) && i + 1 < n && strlen(parts[i + 1]) == 4 &&
			 all_digits(parts[i + 1], 4)) { /* date/HHMM/service/instance[/boot] */
			if (i + 2 < n)
				set(&id->service, xstrdup(parts[i + 2]));
			if (i + 3 < n)
				set(&id->instance, xstrdup(parts[i + 3]));
			if (i + 4 < n)
				set(&id->boot, xstrdup(parts[i + 4]));
		}
	}
	if (!id->boot && n && is_boot_id(parts[n - 1]))
		set(&id->boot, xstrdup(parts[n - 1]));
	free(copy);
}

/* The group a segment in directory rel belongs to: its key, and the group
 * made when new. */
static struct group *group_for(struct d9dir *dd, const char *rel)
{
	struct ident id = {0};
	identify(rel, &id);
	struct buf key = {0}, label = {0};
	if (id.service || id.instance) {
		buf_printf(&key, "s:%s\n%s\n%s", id.service ? id.service : "", id.instance ? id.instance : "",
			   id.boot ? id.boot : "");
		buf_printf(&label, "%s/%s", id.service ? id.service : "?", id.instance ? id.instance : "?");
	} else {
		buf_printf(&key, "d:%s", rel);
		buf_adds(&label, rel);
	}
	struct group *g = NULL;
	for (size_t i = 0; i < dd->ngroups && !g; i++)
		if (!strcmp(dd->groups[i].key, buf_str(&key)))
			g = &dd->groups[i];
	if (!g) {
		xgrow(&dd->groups, &dd->capgroups, dd->ngroups + 1, sizeof *dd->groups);
		g = &dd->groups[dd->ngroups++];
		*g = (struct group){.key = xstrdup(buf_str(&key)), .label = xstrdup(buf_str(&label)),
				    .boot = id.boot ? xstrdup(id.boot) : NULL, .lane_prefix = xstrdup("")};
	}
	free(id.service), free(id.instance), free(id.boot);
	buf_free(&key), buf_free(&label);
	return g;
}

struct walk_dir {
	struct d9dir *dd;
	struct seg *s;
	size_t n, cap, files;
};

static void walk_tree(struct walk_dir *w, const char *rel, int depth)
{
	struct buf path = {0};
	buf_printf(&path, "%s%s%s", w->dd->path, *rel ? "/" : "", rel);
	struct dir_entry *e;
	size_t ne = dir_list(path.p, &e);
	for (size_t i = 0; i < ne && w->files < TREE_FILES; i++) {
		const char *name = e[i].name;
		if (name[0] == '.') /* .lock, and anything hidden */
			continue;
		struct buf sub = {0}, full = {0};
		buf_printf(&sub, "%s%s%s", rel, *rel ? "/" : "", name);
		buf_printf(&full, "%s/%s", path.p, name);
		size_t keylen;
		int rank = seg_rank(name, &keylen);
		size_t len = strlen(name);
		bool partial = len > 8 && !strcmp(name + len - 8, ".partial"); /* the writer's temporary copy */
		if (e[i].kind == PATH_DIR && depth < TREE_DEPTH) {
			walk_tree(w, sub.p, depth + 1);
		} else if (e[i].kind == PATH_FILE && !partial && (w->files++, rank >= 0 || is_dial9_data(full.p))) {
			xgrow(&w->s, &w->cap, w->n + 1, sizeof *w->s);
			w->s[w->n++] = (struct seg){group_for(w->dd, rel)->key, xstrndup(name, keylen),
						    rank >= 0 ? rank : 3, xstrdup(full.p), NULL};
		}
		buf_free(&sub), buf_free(&full);
	}
	dir_free(e, ne);
	buf_free(&path);
}

static void free_segs(struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].key);
		free(s[i].path);
	}
	free(s);
}

static void free_groups(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].key);
		free(g[i].label);
		free(g[i].boot);
		free(g[i].lane_prefix);
	}
	free(g);
}

static int d9_probe_dir(const char *dir)
{
	struct d9dir dd = {.path = (char *)dir};
	struct walk_dir w = {.dd = &dd};
	walk_tree(&w, "", 0);
	free_segs(w.s, w.n);
	free_groups(dd.groups, dd.ngroups);
	return w.n ? PROBE_MAGIC : PROBE_NO;
}

static bool same_seg(const struct seg *a, const struct seg *b)
{
	return a->group == b->group && !strcmp(a->key, b->key);
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

static struct group *group_of(struct d9dir *dd, const char *key)
{
	for (size_t i = 0; i < dd->ngroups; i++)
		if (dd->groups[i].key == key)
			return &dd->groups[i];
	return NULL;
}

/* Each group's source: the first is the top's own; with several, each is
 * named by its label (and boot) and so are its lanes. */
static void place_groups(struct source *top, struct d9dir *dd)
{
	bool several = dd->ngroups > 1;
	for (size_t i = 0; i < dd->ngroups; i++) {
		struct group *g = &dd->groups[i];
		if (g->src && !several)
			continue;
		struct buf name = {0};
		buf_adds(&name, dd->path);
		if (several) {
			buf_printf(&name, ": %s", g->label);
			if (g->boot && !strstr(g->label, g->boot))
				buf_printf(&name, " (boot %s)", g->boot);
		}
		if (!g->src)
			g->src = i == 0 ? top : dec_add_source(top, buf_str(&name));
		if (several) {
			dec_rename_source(g->src, buf_str(&name));
			/* (a trace's lanes keep the names they were given: one
			 * found alone before others appeared has no prefix) */
			if (!g->prefix_used && *g->label) {
				free(g->lane_prefix);
				g->lane_prefix = xmalloc(strlen(g->label) + 3);
				strcpy(g->lane_prefix, g->label);
				strcat(g->lane_prefix, ": ");
			}
		}
		buf_free(&name);
	}
}

/* Add the segments not seen before, in order; one per (group, key). */
static size_t add_segments(struct source *src, struct d9dir *dd)
{
	struct walk_dir w = {.dd = dd};
	walk_tree(&w, "", 0);
	if (w.n)
		qsort(w.s, w.n, sizeof *w.s, by_seg);
	place_groups(src, dd);
	size_t added = 0;
	for (size_t i = 0, k; i < w.n; i = k) {
		for (k = i + 1; k < w.n && same_seg(&w.s[i], &w.s[k]); k++)
			;
		struct seg *known = seg_known(dd, &w.s[i]);
		if (known) {
			seg_moved(known, w.s + i, k - i);
			continue;
		}
		struct group *g = group_of(dd, w.s[i].group);
		struct input *in = dec_add_input(g->src, w.s[i].path);
		xgrow(&dd->segs, &dd->capsegs, dd->nsegs + 1, sizeof *dd->segs);
		dd->segs[dd->nsegs++] = (struct seg){w.s[i].group, xstrdup(w.s[i].key), w.s[i].rank,
						     xstrdup(w.s[i].path), in};
		if (!in)
			continue;
		in->dec = &dial9_decoder;
		struct d9 *d = d9_open(in);
		d->lane_prefix = g->lane_prefix;
		g->prefix_used = true;
		in->dstate = d;
		added++;
	}
	free_segs(w.s, w.n);
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
