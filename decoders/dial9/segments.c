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
		d9_schemas_free(&dd->schemas);
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
	d9_spans_free(d);
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
#define HEAD_BYTES 65536  /* of a new segment, read for what its first frames say */

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

static bool has_digit(const char *s)
{
	for (; *s; s++)
		if (isdigit((unsigned char)*s))
			return true;
	return false;
}

/* A trace's segments: by the numbers in their names (trace.9 before
 * trace.10), or, when names have none, by their first wall clock; the
 * files of one segment together, the one to read first. */
static int by_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	if (!c && !(has_digit(x->key) && has_digit(y->key)) && x->wall != y->wall)
		c = x->wall < y->wall ? -1 : 1;
	if (!c)
		c = natural_cmp(x->key, y->key);
	if (!c)
		c = strcmp(x->rel, y->rel);
	if (!c)
		c = strcmp(x->key, y->key);
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

/* The components of a directory's path ('/'-separated). */
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

/* ---- what a segment's first frames say ---- */

/* The first bytes of a segment, read as frames until an event other than a
 * ClockSyncEvent or SegmentMetadataEvent (the writer opens each segment
 * with them): every length checked against the bytes read. */
struct head {
	const uint8_t *p, *e;
	struct {
		uint16_t id;
		uint8_t kind; /* 1 ClockSyncEvent, 2 SegmentMetadataEvent */
		bool has_ts;
		uint16_t nf;
		uint8_t tag[4];
	} sch[8];
	int nsch;
};

static bool head_take(struct head *h, size_t n, const uint8_t **at)
{
	if ((size_t)(h->e - h->p) < n)
		return false;
	*at = h->p;
	h->p += n;
	return true;
}

static bool head_varint(struct head *h, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64 && h->p < h->e; s += 7) {
		uint8_t b = *h->p++;
		*v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* A u32-length string; into out (NUL-terminated, cut at 255 bytes) when given. */
static bool head_str(struct head *h, char *out)
{
	const uint8_t *q;
	if (!head_take(h, 4, &q))
		return false;
	uint32_t n = ld32le(q);
	if (!head_take(h, n, &q))
		return false;
	if (out) {
		size_t k = MIN(n, 255u);
		memcpy(out, q, k);
		out[k] = 0;
	}
	return true;
}

static bool head_schema(struct head *h)
{
	const uint8_t *q;
	if (!head_take(h, 4, &q))
		return false;
	uint16_t id = ld16le(q), nl = ld16le(q + 2);
	const uint8_t *name;
	if (!head_take(h, nl, &name) || !head_take(h, 3, &q))
		return false;
	int k = h->nsch < 8 ? h->nsch++ : 7;
	h->sch[k].id = id;
	h->sch[k].kind = nl == 14 && !memcmp(name, "ClockSyncEvent", 14)	     ? 1
			 : nl == 20 && !memcmp(name, "SegmentMetadataEvent", 20) ? 2
										  : 0;
	h->sch[k].has_ts = q[0] != 0;
	h->sch[k].nf = ld16le(q + 1);
	for (unsigned i = 0; i < h->sch[k].nf; i++) {
		if (!head_take(h, 2, &q) || !head_take(h, ld16le(q), &q) || !head_take(h, 1, &q))
			return false;
		if (i < 4)
			h->sch[k].tag[i] = q[0];
	}
	return true;
}

/* One event of a known opening schema: the wall clock or the metadata
 * entries wanted.  False: stop reading. */
static bool head_event(struct head *h, struct ident *id, uint64_t *wall)
{
	const uint8_t *q;
	if (!head_take(h, 2, &q))
		return false;
	uint16_t tid = ld16le(q);
	int k = -1;
	for (int i = 0; i < h->nsch; i++)
		if (h->sch[i].id == tid)
			k = i;
	if (k < 0 || !h->sch[k].kind || h->sch[k].nf > 4 || (h->sch[k].has_ts && !head_take(h, 3, &q)))
		return false;
	for (unsigned i = 0; i < h->sch[k].nf; i++) {
		uint8_t tag = h->sch[k].tag[i];
		uint64_t v;
		if (tag == 9) { /* Varint: ClockSyncEvent's realtime_ns */
			if (!head_varint(h, &v))
				return false;
			if (h->sch[k].kind == 1 && !*wall)
				*wall = v;
		} else if (tag == 10) { /* StringMap: the metadata */
			if (!head_take(h, 4, &q))
				return false;
			for (uint32_t n = ld32le(q); n; n--) {
				char key[256], val[256];
				if (!head_str(h, key) || !head_str(h, val))
					return false;
				char **to = !strcmp(key, "service") || !strcmp(key, "service_name") ? &id->service
					    : !strcmp(key, "host") || !strcmp(key, "instance_path") ? &id->instance
					    : !strcmp(key, "boot_id")				 ? &id->boot
												 : NULL;
				if (to && *val && !*to)
					*to = xstrdup(val);
			}
		} else {
			return false;
		}
	}
	return true;
}

static void head_identity(const char *path, struct ident *id, uint64_t *wall)
{
	uint8_t *buf = xmalloc(HEAD_BYTES);
	struct head h = {.p = buf, .e = buf + file_head(path, buf, HEAD_BYTES)};
	const uint8_t *q;
	for (bool go = true; go && h.p < h.e;) {
		switch (*h.p++) {
		case 'T': go = head_take(&h, 4, &q); break; /* "RC\0" and the version */
		case 0x01: go = head_schema(&h); break;
		case 0x02: go = head_event(&h, id, wall); break;
		case 0x03: /* a string pool: count, then (id, string) */
			go = head_take(&h, 4, &q);
			for (uint32_t n = go ? ld32le(q) : 0; go && n; n--)
				go = head_take(&h, 4, &q) && head_str(&h, NULL);
			break;
		case 0x05: go = head_take(&h, 8, &q); break; /* a timestamp reset */
		case 0x06: { /* annotations: type id, count, (field, key, value) */
			uint64_t v;
			go = head_varint(&h, &v) && head_take(&h, 2, &q);
			for (uint16_t n = go ? ld16le(q) : 0; go && n; n--)
				go = head_take(&h, 4, &q) && head_take(&h, ld16le(q + 2), &q) && head_str(&h, NULL);
			break;
		}
		default: go = false; break;
		}
	}
	free(buf);
}

/* The group a segment at path (in directory rel) belongs to: by what the
 * tree's path says, else by what its metadata says, else by its
 * directory; the group made when new.  *wall: its first wall clock (0:
 * none), for the order of segments whose names have no numbers. */
static struct group *group_for(struct d9dir *dd, const char *rel, const char *path, uint64_t *wall)
{
	/* the top's own path counts too: a directory given inside the
	 * uploader's tree (its date, HHMM or service) still names instances */
	struct ident id = {0};
	struct buf where = {0};
	buf_printf(&where, "%s/%s", dd->path, rel);
	identify(where.p, &id);
	buf_free(&where);
	*wall = 0;
	if (!id.service && !id.instance)
		head_identity(path, &id, wall);
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

static int by_entry_name(const void *a, const void *b)
{
	return natural_cmp(((const struct dir_entry *)a)->name, ((const struct dir_entry *)b)->name);
}

/* A segment added before, by its directory and name. */
static struct seg *seg_at(const struct d9dir *dd, const char *rel, const char *key)
{
	for (size_t i = 0; i < dd->nsegs; i++)
		if (!strcmp(dd->segs[i].rel, rel) && !strcmp(dd->segs[i].key, key))
			return &dd->segs[i];
	return NULL;
}

struct walk_dir {
	struct d9dir *dd;
	bool probing; /* only whether there is a segment: no groups, no heads read, done at the first */
	struct seg *s;
	size_t n, cap, files;
};

static void walk_tree(struct walk_dir *w, const char *rel, int depth)
{
	struct buf path = {0};
	buf_printf(&path, "%s%s%s", w->dd->path, *rel ? "/" : "", rel);
	struct dir_entry *e;
	size_t ne = dir_list(path.p, &e);
	if (ne) /* in the same order on every file system: traces (sources) are made in it */
		qsort(e, ne, sizeof *e, by_entry_name);
	for (size_t i = 0; i < ne && w->files < TREE_FILES && !(w->probing && w->n); i++) {
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
			struct seg s = {.key = xstrndup(name, keylen), .rank = rank >= 0 ? rank : 3, .path = xstrdup(full.p)};
			const struct seg *known = w->probing ? NULL : seg_at(w->dd, rel, s.key);
			s.group = known ? known->group : w->probing ? NULL : group_for(w->dd, rel, full.p, &s.wall)->key;
			s.rel = xstrdup(rel);
			xgrow(&w->s, &w->cap, w->n + 1, sizeof *w->s);
			w->s[w->n++] = s;
		}
		buf_free(&sub), buf_free(&full);
	}
	dir_free(e, ne);
	buf_free(&path);
}

static void free_segs(struct seg *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].rel);
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
	struct walk_dir w = {.dd = &dd, .probing = true};
	walk_tree(&w, "", 0);
	free_segs(w.s, w.n);
	return w.n ? PROBE_MAGIC : PROBE_NO;
}

static bool same_seg(const struct seg *a, const struct seg *b)
{
	return !strcmp(a->rel, b->rel) && !strcmp(a->key, b->key);
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

/* A group's lanes named after it ("svc/instance: worker 0"): from now on,
 * and those its inputs made while it was the only one (following). */
static void set_lane_prefix(struct d9dir *dd, struct group *g)
{
	char *p = xmalloc(strlen(g->label) + 3);
	strcpy(p, g->label);
	strcat(p, ": ");
	if (g->prefix_used) {
		dec_prefix_lanes(g->src, p);
		for (size_t i = 0; i < dd->nsegs; i++)
			if (dd->segs[i].group == g->key && dd->segs[i].in && dd->segs[i].in->dstate)
				((struct d9 *)dd->segs[i].in->dstate)->lane_prefix = p;
	}
	free(g->lane_prefix);
	g->lane_prefix = p;
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
			if (!*g->lane_prefix && *g->label)
				set_lane_prefix(dd, g);
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
		struct seg *known = seg_at(dd, w.s[i].rel, w.s[i].key);
		if (known) {
			seg_moved(known, w.s + i, k - i);
			continue;
		}
		struct group *g = group_of(dd, w.s[i].group);
		struct input *in = dec_add_input(g->src, w.s[i].path);
		xgrow(&dd->segs, &dd->capsegs, dd->nsegs + 1, sizeof *dd->segs);
		dd->segs[dd->nsegs++] = (struct seg){.group = w.s[i].group, .rel = xstrdup(w.s[i].rel),
						     .key = xstrdup(w.s[i].key), .wall = w.s[i].wall,
						     .rank = w.s[i].rank, .path = xstrdup(w.s[i].path), .in = in};
		if (!in)
			continue;
		in->dec = &dial9_decoder;
		struct d9 *d = d9_open(in);
		d->lane_prefix = g->lane_prefix;
		d->shared = &dd->schemas;
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
	.summary_fields = d9_summary_fields,
	.span_ids = d9_span_ids,
	.save = d9_save,
	.restore = d9_restore,
	.resumable = d9_resumable,
	.info = d9_info,
	.close = d9_close,
};
