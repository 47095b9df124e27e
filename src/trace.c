#include "src/trace.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoders/decoder.h"
#include "src/esc.h"
#include "src/remote.h"

#define PROBE_WINDOW (64u << 10)
#define MAX_DAMAGE 1000
#define COPY_CHUNK (512u << 10) /* the loader's read buffer: fits in the cache */
_Static_assert(COPY_CHUNK >= PROBE_WINDOW, "a probe's bytes fit in the read buffer");

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof *t);
	t->m = model_new();
	t->slice = 8u << 20;
	t->watch = -1;
}

void trace_free(struct trace *t)
{
	trace_save_end(t, true);
	for (size_t i = 0; i < t->nin; i++) {
		struct input *in = t->in[i];
		/* Directory decoders share one state between inputs: close it once. */
		if (in->dec && in->dec->close && in->dstate && in->dstate != in->src->dstate)
			in->dec->close(in->dstate);
		input_close(in);
	}
	free(t->chunk);
	free(t->save_error);
	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];
		if (s->dec && s->dec->close && s->dstate)
			s->dec->close(s->dstate);
		for (size_t d = 0; d < s->ndmg; d++) {
			free(s->dmg[d].path);
			free(s->dmg[d].msg);
		}
		free(s->dmg);
		free(s->held);
		free(s->held_counts);
		free(s->inputs);
		free(s->error);
		free(s->path);
		free(s->given);
		free(s);
	}
	free(t->src);
	free(t->in);
	model_free(t->m);
	for (size_t i = 0; i < t->nseqs; i++)
		free(t->seqs[i]);
	free(t->seqs);
	if (t->watch >= 0)
		close(t->watch);
}

static bool damage_before(const struct damage *a, const struct damage *b)
{
	int c = strcmp(a->path, b->path);
	return c ? c < 0 : a->has_off != b->has_off ? !a->has_off : a->off < b->off;
}

/* Kept in place by file and offset, after any equal one: returns where. */
static struct damage *vdamage(struct source *src, const char *path, bool has_off, uint64_t off, bool fatal,
			      const char *fmt, va_list ap)
{
	if (src->ndmg >= MAX_DAMAGE && !fatal) {
		src->dmg_dropped++;
		return NULL;
	}
	struct buf b = {0};
	buf_vprintf(&b, fmt, ap);
	struct damage d = {xstrdup(path), off, has_off, b.p, fatal, false, 0, src->ndmg};
	xgrow(&src->dmg, &src->capdmg, src->ndmg + 1, sizeof *src->dmg);
	size_t at = src->ndmg++;
	for (; at && damage_before(&d, &src->dmg[at - 1]); at--)
		src->dmg[at] = src->dmg[at - 1];
	src->dmg[at] = d;
	return &src->dmg[at];
}

const struct damage *source_damage_found(const struct source *src, size_t found)
{
	for (size_t i = 0; i < src->ndmg; i++)
		if (src->dmg[i].found == found)
			return &src->dmg[i];
	return NULL;
}

static void source_damage(struct source *src, const char *path, bool has_off, uint64_t off, bool fatal, const char *fmt,
		   ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdamage(src, path, has_off, off, fatal, fmt, ap);
	va_end(ap);
}

static void source_fail(struct source *src, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void source_fail(struct source *src, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(src->error);
	src->error = b.p;
}

static struct input *add_input(struct source *src, struct input *in)
{
	struct trace *t = src->trace;
	in->id = (uint32_t)t->nin;
	in->src = src;
	xgrow(&t->in, &t->capin, t->nin + 1, sizeof *t->in);
	t->in[t->nin++] = in;
	xgrow(&src->inputs, &src->capinputs, src->ninputs + 1, sizeof *src->inputs);
	src->inputs[src->ninputs++] = in;
	return in;
}

struct input *dec_add_input(struct source *src, const char *path)
{
	char *err = NULL;
	struct input *in = input_open(path, &err);
	if (!in) {
		source_damage(src, path, false, 0, true, "%s", err);
		free(err);
		return NULL;
	}
	return add_input(src, in);
}

bool dec_read_whole(struct input *in, uint64_t max)
{
	while (!in->eof && in->size <= max)
		input_refresh(in, max + 1 - in->size, true);
	return in->size <= max;
}

/* The decoder that claims the directory most surely; the first to know
 * it by its magic ends the search (a probe may walk a whole tree: dial9's
 * opens every file it finds in a directory of another format's). */
static const struct decoder *probe_dir(const char *path)
{
	const struct decoder *best = NULL;
	int score = 0;
	for (size_t i = 0; decoders[i] && score < PROBE_MAGIC; i++) {
		if (!decoders[i]->probe_dir)
			continue;
		int s = decoders[i]->probe_dir(path);
		if (s > score)
			score = s, best = decoders[i];
	}
	return best;
}

static struct source *new_source(struct trace *t, const char *path)
{
	struct source *src = xcalloc(1, sizeof *src);
	src->id = (uint32_t)t->nsrc;
	src->path = xstrdup(path);
	src->trace = t;
	src->align = t->align ? ALIGN_WAIT : ALIGN_NONE;
	xgrow(&t->src, &t->capsrc, t->nsrc + 1, sizeof *t->src);
	t->src[t->nsrc++] = src;
	return src;
}

struct source *dec_add_source(struct source *src, const char *path)
{
	struct source *s = new_source(src->trace, path);
	s->dec = src->dec;
	return s;
}

void dec_rename_source(struct source *src, const char *path)
{
	free(src->path);
	src->path = xstrdup(path);
}

void dec_prefix_lanes(struct source *src, const char *prefix)
{
	struct model *m = src->trace->m;
	struct buf b = {0};
	for (uint32_t l = 0; l < model_nlanes(m); l++) {
		const struct lane *ln = model_lane_get(m, l);
		if (ln->source != src->id)
			continue;
		size_t n;
		const char *name = model_strget(m, ln->name, &n);
		buf_reset(&b);
		buf_adds(&b, prefix);
		buf_add(&b, name, n);
		model_lane_rename(m, l, model_str(m, b.p, b.len));
	}
	buf_free(&b);
}

/* A session's manifest given alone stands for its directory (when a
 * directory format claims that). */
static char *manifest_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (strcmp(slash ? slash + 1 : path, "manifest.json") || path_kind(path) != PATH_FILE)
		return NULL;
	char *dir = path_dir(path);
	if (probe_dir(dir))
		return dir;
	free(dir);
	return NULL;
}

static void open_dir(struct source *src, const struct decoder *forced, const char *path)
{
	const struct decoder *d = forced ? forced : probe_dir(path);
	char *why = d ? NULL : dir_error(path);
	if (why) {
		source_fail(src, "cannot list the directory: %s", why);
		free(why);
		return;
	}
	if (!d || !d->open_dir) {
		source_fail(src, forced ? "format %s does not read directories" : "directory holds no trace ttv recognises%s",
			    forced ? forced->name : "");
		return;
	}
	src->dec = d;
	if (!d->open_dir(src, path) && !src->error)
		source_fail(src, "no %s trace in this directory", d->name);
}

struct source *trace_open(struct trace *t, const char *path)
{
	struct source *src = new_source(t, path);
	src->given = xstrdup(path);

	const struct decoder *forced = NULL;
	if (t->format && !(forced = decoder_find(t->format))) {
		source_fail(src, "unknown format '%s'", t->format);
		return src;
	}
	char *dir = manifest_dir(path);
	if (dir || (strcmp(path, "-") != 0 && path_kind(path) == PATH_DIR)) {
		open_dir(src, forced, dir ? dir : path);
		free(dir);
		return src;
	}
	char *err = NULL;
	struct input *in = input_open(path, &err);
	if (!in) {
		source_fail(src, "%s", err);
		free(err);
		return src;
	}
	add_input(src, in);
	src->live = !strncmp(path, "tcp:", 4);
	if (forced) {
		if (!forced->open) {
			source_fail(src, "format %s reads directories, not single files", forced->name);
			in->done = true;
			return src;
		}
		in->dec = forced;
		src->dec = forced;
		in->dstate = forced->open(in);
	}
	return src;
}

/* Would a decoder want more of these bytes to tell? */
static bool probe_wants_more(const struct input *in, size_t n)
{
	for (size_t i = 0; decoders[i]; i++)
		if (decoders[i]->probe && decoders[i]->probe(in->map, n, false) == PROBE_MORE)
			return true;
	return false;
}

/* Why an input has nothing a decoder recognises. */
static char *unknown_why(struct input *in, size_t n)
{
	struct buf b = {0};
	bool more = in->lost && probe_wants_more(in, n);
	if (in->zerror && !in->size) {
		in->zreported = true;
		return xstrdup(in->zerror);
	}
	if (in->lost && !in->size)
		buf_printf(&b, "the connection ended before any of it came: %s", in->lost);
	else if (in->lost && more)
		buf_printf(&b, "the connection ended after %llu bytes, too few to tell the format: %s",
			   (unsigned long long)in->size, in->lost);
	if (b.p)
		return b.p;
	if (in->size)
		return xstrdup("unknown format (no decoder recognises its content)");
	if (in->gzip)
		return xstrdup(in->zpartial ? "nothing to decode: the gzip stream is cut short before any data"
					    : "nothing to decode: the gzip stream gives 0 bytes");
	return xstrdup("empty file (0 bytes): nothing to decode");
}

/* The loader's read buffer (COPY_CHUNK bytes), made at first use. */
static uint8_t *read_buffer(struct trace *t)
{
	if (!t->chunk)
		t->chunk = xmalloc(COPY_CHUNK);
	return t->chunk;
}

/* Choose a decoder for an input by content.  False while undecided. */
static bool probe_input(struct trace *t, struct input *in, bool final)
{
	size_t n = in->size < PROBE_WINDOW ? (size_t)in->size : PROBE_WINDOW;
	bool all = final && n == in->size;
	/* A file's first bytes read, not touched through its mapping: a fault
	 * there may map far more of the file than is looked at (a large folio
	 * of the page cache), and that counts in the process's memory */
	const uint8_t *p = n && input_copy(in, 0, read_buffer(t), n) ? t->chunk : in->map;
	const struct decoder *best = NULL;
	int score = 0;
	bool more = false;
	for (size_t i = 0; decoders[i]; i++) {
		if (!decoders[i]->probe)
			continue;
		int s = decoders[i]->probe(p, n, all);
		if (s == PROBE_MORE)
			more = true;
		else if (s > score)
			score = s, best = decoders[i];
	}
	if (more && !all && score < PROBE_MAGIC)
		return false;
	if (!best) {
		if (!in->size && !final)
			return false;
		struct source *src = in->src;
		char *why = unknown_why(in, n);
		if (src->ninputs == 1)
			source_fail(src, "%s", why);
		else
			source_damage(src, in->path, false, 0, true, "%s", in->lost ? why : "unknown format");
		free(why);
		in->done = true;
		return false;
	}
	in->dec = best;
	if (!in->src->dec)
		in->src->dec = best;
	in->dstate = best->open(in);
	return true;
}

static void align_settle(struct source *src);

/* The next n bytes for a decoder (n may shrink): a mapped file's copied
 * into a buffer that stays in the cache (input_copy says why), others
 * (spooled pipes and gzip) read where they are mapped. */
static const uint8_t *next_bytes(struct trace *t, struct input *in, uint64_t *n)
{
	uint64_t want = MIN(*n, COPY_CHUNK);
	if (want && input_copy(in, in->consumed, read_buffer(t), (size_t)want)) {
		*n = want;
		return t->chunk;
	}
	/* A spool (gzip, a pipe) in pieces of the same size: a step's events
	 * then commit in batches of the same size as a file's */
	*n = want;
	input_prefetch(in, in->consumed, *n);
	return in->map ? in->map + in->consumed : NULL;
}

/* A remote file's connection lost or back: following, said, and made
 * again; else the file is cut short there. */
static void tell_connection(struct trace *t, struct input *in, bool was_lost)
{
	if (!in->lost == !was_lost)
		return;
	if (!in->lost)
		trace_notice(t, "%s: connected again: reading on", in->path);
	else if (t->follow)
		trace_notice(t, "%s: the connection ended (%s): connecting again", in->path, in->lost);
	/* (else the file ends there: tell_early_end says so) */
}

/* Decoding of an input ended (its last bytes decoded, or the decoder
 * stopped) where the file does not: its connection ended, its copy had
 * no room, or (at its last bytes) its gzip stream is cut short.  Said
 * once: first, then what the decoder said of its cut record, or alone. */
static void tell_early_end(struct input *in, size_t before, bool last)
{
	struct source *src = in->src;
	struct buf why = {0};
	if (in->lost)
		buf_printf(&why, "the connection ended: %s", in->lost);
	else if (in->zerror && !in->zreported)
		buf_adds(&why, in->zerror);
	else if (last && in->gzip && in->zpartial && !in->zerror)
		buf_printf(&why, "gzip stream cut short after %llu decompressed bytes", (unsigned long long)in->size);
	else
		return;
	in->zreported = true;
	if (src->ndmg > before) {
		struct damage *d = (struct damage *)source_damage_found(src, src->ndmg - 1);
		struct buf both = {0};
		buf_printf(&both, "%s; here: %s", why.p, d->msg);
		free(d->msg);
		d->msg = both.p;
	} else {
		source_damage(src, in->path, in->lost, in->size, false, "%s", why.p);
	}
	buf_free(&why);
}

static void step_input(struct trace *t, struct input *in, bool wait)
{
	bool was_lost = in->lost;
	input_refresh(in, t->slice, wait);
	tell_connection(t, in, was_lost);
	/* A file may still grow while following; a pipe at its end cannot. */
	bool final = in->eof && (!t->follow || !input_may_grow(in));
	if (in->zerror && !in->zreported && !final) { /* (at the end: tell_early_end) */
		source_damage(in->src, in->path, false, 0, false, "%s", in->zerror);
		in->zreported = true;
	}
	if (!in->dec && !probe_input(t, in, final))
		return;
	size_t before = in->src->ndmg;
	uint64_t avail = in->size - in->consumed;
	in->feed = in->feed ? MIN(2 * in->feed, t->slice) : MIN(256u << 10, t->slice);
	uint64_t n = MIN(avail, in->feed);
	const uint8_t *p = next_bytes(t, in, &n);
	bool last = final && n == avail;
	size_t used = in->dec->feed(in->dstate, p, (size_t)n, in->consumed, last);
	if (!used && !in->done && n < avail) {
		/* A record larger than a slice: hand over everything there is. */
		last = final;
		n = avail;
		p = in->map ? in->map + in->consumed : NULL;
		used = in->dec->feed(in->dstate, p, (size_t)avail, in->consumed, last);
	}
	if (used > n) {
		/* A decoder bug: never trust bytes it did not see (the fuzz harness aborts on this). */
		dec_fatal(in, in->consumed, INTERNAL_ERROR ": the %s decoder took %zu bytes of the %llu it was given",
			  in->dec->name, used, (unsigned long long)n);
		used = 0;
	}
	if (p != t->chunk && used) {
		/* Back off a little: fault-around maps pages on both sides of a fault. */
		uint64_t back = MIN(in->consumed, 256u << 10);
		input_release(in, in->consumed - back, used + back);
	}
	in->consumed += used;
	/* With final set a decoder consumes all it can; what is left is damage. */
	if (!in->done && last && in->consumed < in->size && in->src->ndmg == before)
		dec_damage(in, in->consumed, "%llu bytes at the end could not be decoded",
			   (unsigned long long)(in->size - in->consumed));
	if (last || in->done) {
		tell_early_end(in, before, last);
		in->done = true;
	}
	if (in->src->align == ALIGN_WAIT)
		align_settle(in->src);
}

/* Commit in moderate batches (the sort's room stays small), each on the
 * committer thread while decoding goes on.  Short steps (the viewer's)
 * take smaller ones, so that the committer works beside the decoding
 * within the step, and what is left to wait for at its end is little. */
#define BATCH_LONG (256u << 10)
#define BATCH_SHORT (64u << 10)
#define SHORT_STEP_NS 50000000
#define LATE_SHARE 4

static void commit_batch(struct model *m, uint64_t budget_ns)
{
	/* A batch of late events rewrites (and pairs again) what lies after
	 * where it lands: when they land far back (sources over the same
	 * period, read one after another), batches grow with that reach, so
	 * that the rewriting stays a few times the events committed. */
	uint64_t least = budget_ns < SHORT_STEP_NS ? BATCH_SHORT : BATCH_LONG;
	if (model_pending(m) > MAX(least, model_late_reach(m) / LATE_SHARE))
		model_commit_some(m);
}

#define MERGE_LEAST_NS 2000000

bool trace_step(struct trace *t, uint64_t budget_ns, bool wait)
{
	trace_save_end(t, false); /* (the events it writes change now) */
	/* (nothing committed yet: the step's end commits what it read on this
	 * thread, about as long as reading it took; half the time for each) */
	uint64_t deadline = now_ns() + (model_count(t->m) ? budget_ns : budget_ns / 2);
	bool more = false;
	for (size_t i = 0; i < t->nin; i++) {
		struct input *in = t->in[i];
		if (in->done || in->quiet)
			continue;
		uint64_t before = in->consumed, size = in->size, t0 = now_ns();
		step_input(t, in, wait);
		uint64_t took = now_ns() - t0;
		commit_batch(t->m, budget_ns);
		if (t->follow && in->consumed == before && in->size == size) {
			/* caught up (maybe with a torn record waiting for its rest):
			 * wait for the watch or the check (a file), or the fd (a
			 * stream, or a remote file's answer on its way), to say more came */
			in->quiet = input_may_grow(in) && in->eof;
			continue;
		}
		if (!in->done)
			more = true;
		/* Stay on a busy input while time remains (fewer, larger commits):
		 * time for another step as long as the last one (feeds grow, and
		 * one past the deadline kept the first screen waiting). */
		while (!in->done && in->consumed > before && now_ns() + took < deadline) {
			before = in->consumed;
			t0 = now_ns();
			step_input(t, in, wait);
			took = now_ns() - t0;
			commit_batch(t->m, budget_ns);
		}
		if (now_ns() >= deadline) {
			/* out of time: the inputs after this one were not stepped */
			for (size_t j = i + 1; j < t->nin && !more; j++)
				more = !t->in[j]->done && !t->in[j]->quiet;
			break;
		}
	}
	/* When more is coming, a batch short of the commit size may wait for the
	 * next step; everything is committed once all is read (a live file
	 * caught up) and for the first screen. */
	model_sync(t->m);
	if (!more || !model_count(t->m))
		model_commit(t->m);
	/* the viewer's sources made one store: in steps while the keys are
	 * read (a file that grows: at once, or appends would start it again,
	 * and paired as it is made, for appends that land far back); not
	 * begun in a step of no time (the first screen's: it need not wait) */
	if (!more && t->one_store && !budget_ns)
		more = model_merge_wanted(t->m);
	else if (!more && t->one_store && t->follow)
		model_merge_parts(t->m);
	else if (!more && t->one_store)
		more = model_merge_step(t->m, MAX(deadline - MIN(deadline, now_ns()), MERGE_LEAST_NS));
	if (!more && !t->follow)
		more = model_seal(t->m, deadline);
	/* then, among many streams (an ATF session's sequences), the viewer's
	 * places in their merged order, each placing a cursor near (not while
	 * following: each append moves them, and they would be made again) */
	if (!more && t->one_store && budget_ns && !t->follow)
		more = model_index_step(t->m, MAX(deadline - MIN(deadline, now_ns()), MERGE_LEAST_NS));
	return more;
}

/* Loading everything: steps long enough that the model commits in the
 * background throughout (each step ends with a commit on this thread). */
#define LOAD_ALL_STEP_NS 10000000000ull

void trace_load_all(struct trace *t)
{
	while (trace_step(t, LOAD_ALL_STEP_NS, true))
		;
}

bool trace_damaged(const struct trace *t)
{
	for (size_t i = 0; i < t->nsrc; i++)
		if (t->src[i]->ndmg || t->src[i]->error)
			return true;
	return false;
}

bool trace_any_readable(const struct trace *t)
{
	for (size_t i = 0; i < t->nsrc; i++)
		if (!t->src[i]->error)
			return true;
	return false;
}

void trace_report(const struct trace *t)
{
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		struct buf b = {0};
		if (s->error) {
			buf_printf(&b, "%s: ", progname);
			esc_term(&b, s->path, strlen(s->path));
			buf_adds(&b, ": ");
			esc_term(&b, s->error, strlen(s->error));
			buf_addc(&b, '\n');
		}
		for (size_t d = 0; d < s->ndmg; d++) {
			buf_printf(&b, "%s: ", progname);
			esc_term(&b, s->dmg[d].path, strlen(s->dmg[d].path));
			if (s->dmg[d].has_off)
				buf_printf(&b, ": offset %llu", (unsigned long long)s->dmg[d].off);
			buf_adds(&b, ": ");
			esc_term(&b, s->dmg[d].msg, strlen(s->dmg[d].msg));
			buf_addc(&b, '\n');
		}
		if (s->dmg_dropped) {
			buf_printf(&b, "%s: ", progname);
			esc_term(&b, s->path, strlen(s->path));
			buf_printf(&b, ": %llu more damage reports not shown\n", (unsigned long long)s->dmg_dropped);
		}
		fputs(buf_str(&b), stderr);
		buf_free(&b);
	}
}

/* ---- what the decoders know, for everyone else -------------------------- */

static const struct decoder *decoder_of(const struct trace *t, const struct event *e, void **st)
{
	if (e->input >= t->nin)
		return NULL;
	*st = t->in[e->input]->dstate;
	return t->in[e->input]->dec;
}

bool trace_event_fields(struct trace *t, const struct event *e, struct fsink *out)
{
	void *st;
	const struct decoder *d = decoder_of(t, e, &st);
	if (!d || !d->fields)
		return false;
	struct event own = trace_own(t, e);
	d->fields(st, &own, out);
	return true;
}

bool trace_event_summary(struct trace *t, const struct event *e, struct buf *out)
{
	void *st;
	const struct decoder *d = decoder_of(t, e, &st);
	if (!d || !d->summary)
		return false;
	struct event own = trace_own(t, e);
	d->summary(st, &own, out);
	return true;
}

bool trace_event_summary_fields(struct trace *t, const struct event *e, struct buf *summary, struct buf *fields)
{
	void *st;
	const struct decoder *d = decoder_of(t, e, &st);
	if (!d || !d->summary)
		return false;
	struct event own = trace_own(t, e);
	if (d->summary_fields) {
		d->summary_fields(st, &own, summary, fields);
		return true;
	}
	d->summary(st, &own, summary);
	if (d->fields) {
		struct line_sink ls;
		line_sink_init(&ls, fields);
		d->fields(st, &own, &ls.s);
	}
	return true;
}

bool trace_summary_fields_at_once(struct trace *t, const struct event *e)
{
	void *st;
	const struct decoder *d = decoder_of(t, e, &st);
	return d && d->summary && d->summary_fields;
}

bool trace_event_link(struct trace *t, const struct event *e, uint32_t *input, uint64_t *off)
{
	void *st;
	const struct decoder *d = decoder_of(t, e, &st);
	return d && d->linked && d->linked(st, e, input, off);
}

bool trace_span_ids(struct trace *t, const struct event *e, uint64_t *id, uint64_t *parent)
{
	void *st;
	const struct decoder *d = decoder_of(t, e, &st);
	return d && d->span_ids && d->span_ids(st, e, id, parent);
}

bool trace_record_fields(struct trace *t, uint32_t input, uint64_t off, struct fsink *out)
{
	const struct input *in = input < t->nin ? t->in[input] : NULL;
	if (!in || !in->dec || !in->dec->record_fields)
		return false;
	in->dec->record_fields(in->dstate, off, out);
	return true;
}

bool trace_record_back(struct trace *t, uint32_t input, uint64_t off, uint64_t *pos)
{
	const struct input *in = input < t->nin ? t->in[input] : NULL;
	return in && in->dec && in->dec->record_back && in->dec->record_back(in->dstate, off, pos);
}

const char *trace_source_format(const struct source *s, const char **title)
{
	*title = s->dec ? s->dec->title : NULL;
	return s->dec ? s->dec->name : NULL;
}

bool trace_source_info(const struct source *s, struct fsink *out)
{
	if (!s->dec || !s->dec->info)
		return false;
	s->dec->info((struct source *)s, out);
	return true;
}

bool trace_reentrant(const struct trace *t)
{
	for (size_t i = 0; i < t->nsrc; i++)
		if (t->src[i]->dec && !t->src[i]->dec->reentrant)
			return false;
	return true;
}

void trace_settle(struct trace *t)
{
	for (uint32_t i = 0; i < t->nin; i++) {
		const struct input *in = t->in[i];
		if (in->dec && in->dec->settle && in->dstate)
			in->dec->settle(in->dstate);
	}
}

bool trace_format_known(const char *name) { return decoder_find(name) != NULL; }

const char *trace_format_name(size_t i)
{
	size_t n = 0;
	while (decoders[n])
		n++;
	return i < n ? decoders[i]->name : NULL;
}

void trace_release(struct trace *t)
{
	for (size_t i = 0; i < t->nin; i++)
		input_release(t->in[i], 0, t->in[i]->size);
}

#define RELEASE_FILE (1u << 16)        /* events read between letting a file's pages go */
#define RELEASE_ALL (16 * RELEASE_FILE) /* and every file's */

void trace_release_as_read(struct trace *t, struct release_pace *p, const struct event *last, uint64_t got,
			   bool part_done)
{
	p->all += got;
	if ((p->file += got) < RELEASE_FILE && !part_done)
		return;
	if (last->input < t->nin)
		input_release(t->in[last->input], 0, t->in[last->input]->size);
	p->file = 0;
	if (p->all >= RELEASE_ALL) {
		trace_release(t);
		p->all = 0;
	}
}

void trace_progress(const struct trace *t, uint64_t *done, uint64_t *total)
{
	*done = *total = 0;
	for (size_t i = 0; i < t->nin; i++) {
		uint64_t d, n;
		input_progress(t->in[i], &d, &n);
		*done += d;
		*total += n;
	}
}

/* ---- following ------------------------------------------------------------ */

#define CHECK_EVERY_NS 1000000000ull    /* look at every input this often anyway */
#define CHECK_NO_WATCH_NS 200000000ull  /* without inotify, this often */

void trace_notice(struct trace *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->notice, sizeof t->notice, fmt, ap);
	va_end(ap);
	t->notices++;
}

static void watch_dir(struct trace *t, const char *dir)
{
	inotify_add_watch(t->watch, dir, IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR);
}

void trace_watch(struct trace *t)
{
	if (t->watch < 0) {
		t->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (t->watch < 0)
			return; /* the periodic check does the work */
	}
	for (size_t i = 0; i < t->nin; i++) {
		struct input *in = t->in[i];
		if (in->wd >= 0 || in->is_stdin || !in->regular)
			continue;
		in->wd = inotify_add_watch(t->watch, in->path,
					   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVE_SELF | IN_DELETE_SELF);
		/* the directories above it, up to its source's: renames, new files */
		char *copy = xstrdup(in->path);
		const char *top = in->src->path;
		for (char *d = dirname(copy);; d = dirname(d)) {
			watch_dir(t, d);
			if (!strcmp(d, top) || !strncmp(top, d, strlen(d)) || !strcmp(d, ".") || !strcmp(d, "/"))
				break;
		}
		free(copy);
	}
	struct stat st;
	for (size_t i = 0; i < t->nsrc; i++)
		if (!remote_is(t->src[i]->path) && stat(t->src[i]->path, &st) == 0 && S_ISDIR(st.st_mode))
			watch_dir(t, t->src[i]->path);
}

int trace_watch_fd(const struct trace *t) { return t->watch; }

size_t trace_poll_fds(const struct trace *t, struct pollfd *p, size_t max)
{
	size_t n = 0;
	if (t->follow && t->watch >= 0 && n < max)
		p[n++] = (struct pollfd){t->watch, POLLIN, 0};
	for (size_t i = 0; i < t->nin && n < max; i++)
		if (!t->in[i]->done && input_poll_fd(t->in[i]) >= 0)
			p[n++] = (struct pollfd){input_poll_fd(t->in[i]), POLLIN, 0};
	return n;
}

/* Which input does an inotify watch belong to? */
static struct input *input_of_wd(struct trace *t, int wd)
{
	for (size_t i = 0; i < t->nin; i++)
		if (t->in[i]->wd == wd)
			return t->in[i];
	return NULL;
}

static void restart_truncated(struct trace *t, struct input *in)
{
	uint64_t dropped = model_drop_input(t->m, in->id);
	if (in->dec && in->dec->restart) {
		input_restart(in);
		in->dec->restart(in->dstate);
	} else {
		if (in->dec && in->dec->close && in->dstate && in->dstate != in->src->dstate)
			in->dec->close(in->dstate);
		input_restart(in);
		in->dstate = in->dec && in->dec->open ? in->dec->open(in) : NULL;
	}
	in->done = in->quiet = false;
	if (dropped)
		trace_notice(t, "%s was truncated: its %llu events are gone from the file; reading it again from the start",
			     in->path, (unsigned long long)dropped);
	else /* records read in place (a sequence): not counted here */
		trace_notice(t, "%s was truncated: its events are gone from the file; reading it again from the start",
			     in->path);
}

/* Look at one input: truncated, replaced, gone, or back.  defer: a file of
 * a directory source that is gone may have been renamed or replaced by a
 * copy; the full check (rescan first) decides, so say so in *all. */
static bool check_input(struct trace *t, struct input *in, bool *defer)
{
	if (in->replaced)
		return false; /* its successor is the one to watch */
	switch (input_check(in)) {
	case INPUT_TRUNCATED:
		restart_truncated(t, in);
		return true;
	case INPUT_REPLACED: {
		/* rotation: keep what we read; read the new file as a new input */
		char *path = xstrdup(in->path);
		in->done = in->replaced = true;
		if (in->wd >= 0 && t->watch >= 0)
			inotify_rm_watch(t->watch, in->wd);
		in->wd = -1;
		struct input *next = dec_add_input(in->src, path);
		if (next && in->src->dec && in->src->dec->open) {
			next->dec = in->dec;
			next->dstate = in->dec->open(next);
		}
		trace_notice(t, "%s was replaced by a new file: reading the new one (the old one's events stay)", path);
		free(path);
		trace_watch(t);
		return true;
	}
	case INPUT_GONE:
		if (!in->gone && defer && in->src->dec && in->src->dec->rescan) {
			*defer = true;
			return false;
		}
		/* a remote directory's listing comes a look after its files'
		 * state (src/remote.h): a rename shows in the next rescan */
		if (!in->gone && !in->missed && remote_is(in->path) && in->src->dec && in->src->dec->rescan) {
			in->missed = true;
			return false;
		}
		if (!in->gone)
			trace_notice(t, "%s was renamed or deleted: its events stay", in->path);
		in->gone = true;
		return false;
	case INPUT_SAME:
		in->gone = in->missed = false;
		return false;
	}
	return false;
}

struct input *dec_move_input(struct input *in, const char *path)
{
	struct trace *t = in->src->trace;
	uint64_t dev, ino;
	if (!path_identity(path, &dev, &ino))
		return NULL;
	if (dev == in->dev && ino == in->ino) { /* renamed: the same file */
		if (strcmp(in->path, path))
			input_rename(in, path);
		in->gone = false;
		return in;
	}
	if (in->replaced || path_identity(in->path, &dev, &ino))
		return NULL; /* both are there (a copy being made): stay with ours */
	char *err = NULL;
	struct input *nw = input_open(path, &err);
	free(err);
	if (!nw)
		return NULL;
	/* The copy must start with every byte we have (for a gzip file, once
	 * inflated); it may hold more. */
	while (nw->size < in->size && input_refresh(nw, 64u << 20, false))
		;
	uint64_t n = MIN(nw->size, in->size);
	bool same = !n || !memcmp(nw->map, in->map, n);
	if (same && nw->size < in->size) {
		input_close(nw); /* still being written: look again later */
		return NULL;
	}
	if (in->wd >= 0 && t->watch >= 0)
		inotify_rm_watch(t->watch, in->wd);
	in->wd = -1;
	if (!same) {
		/* other data under the successor's name: a new file of its own */
		in->replaced = true;
		add_input(in->src, nw);
		nw->dec = in->dec;
		nw->dstate = in->dec && in->dec->open ? in->dec->open(nw) : NULL;
		trace_notice(t, "%s is gone; %s holds other data: reading it as a new file (the old events stay)",
			     in->path, path);
		return nw;
	}
	/* The same data: the input reads on from the new file, where it was.
	 * Its events keep their offsets, which name the same bytes there. */
	struct input old = *in;
	*in = *nw;
	in->id = old.id;
	in->src = old.src;
	in->dec = old.dec;
	in->dstate = old.dstate;
	in->consumed = old.consumed;
	in->done = old.done;
	in->quiet = in->gone = in->replaced = false;
	in->wd = -1;
	*nw = old;
	nw->dec = NULL;
	nw->dstate = NULL;
	trace_notice(t, "%s became %s (same data%s): reading on", nw->path, in->path,
		     in->size > nw->size ? " and more" : "");
	input_close(nw);
	return in;
}

#define RECONNECT_NS 1000000000ull

/* A tcp: source whose program went away: connect again when it is back
 * (each connection is a new stream, read as a new input). */
static bool reconnect(struct trace *t, struct source *s, uint64_t now)
{
	if (strncmp(s->path, "tcp:", 4))
		return false;
	if (s->live) {
		struct input *last = s->ninputs ? s->inputs[s->ninputs - 1] : NULL;
		if (last && !last->done)
			return false;
		s->live = false;
		s->retry_at = now + RECONNECT_NS;
		trace_notice(t, "%s closed the connection: connecting again when it is back", s->path);
		return true;
	}
	if (now < s->retry_at)
		return false;
	s->retry_at = now + RECONNECT_NS;
	char *err = NULL;
	struct input *in = input_open(s->path, &err);
	free(err);
	if (!in)
		return false;
	add_input(s, in);
	free(s->error);
	s->error = NULL;
	s->live = true;
	trace_notice(t, "%s: connected (a new stream: labels sent before it are not repeated)", s->path);
	return true;
}

bool trace_check(struct trace *t, bool woken)
{
	bool changed = false, all = false;
	uint64_t now = now_ns();
	for (size_t i = 0; i < t->nsrc; i++)
		changed |= reconnect(t, t->src[i], now);
	if (woken && t->watch >= 0) {
		char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t n;
		while ((n = read(t->watch, ev, sizeof ev)) > 0) {
			for (char *p = ev; p < ev + n;) {
				struct inotify_event *ie = (struct inotify_event *)p;
				struct input *in = input_of_wd(t, ie->wd);
				if (in) {
					in->quiet = false;
					if (ie->mask & (IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF | IN_MODIFY))
						changed |= check_input(t, in, &all);
				} else {
					all = true; /* a directory changed: new files, renames */
				}
				p += sizeof *ie + ie->len;
			}
		}
		changed = true;
	}
	uint64_t every = t->watch >= 0 ? CHECK_EVERY_NS : CHECK_NO_WATCH_NS;
	if (all || now - t->last_check >= every) {
		t->last_check = now;
		/* Rescan first: a directory decoder moves the inputs whose files
		 * were renamed or replaced by a copy (dec_move_input) before
		 * they are taken for gone. */
		size_t nin = t->nin;
		for (size_t i = 0; i < t->nsrc; i++) {
			struct source *s = t->src[i];
			size_t before = s->ninputs;
			uint64_t told = t->notices;
			if (s->dec && s->dec->rescan)
				s->dec->rescan(s);
			changed |= t->notices != told;
			if (s->ninputs != before && t->notices == told) { /* the decoder's own notice says more */
				trace_notice(t, "%s: %zu new file%s", s->path, s->ninputs - before,
					     s->ninputs - before == 1 ? "" : "s");
				changed = true;
			}
		}
		for (size_t i = 0; i < nin; i++) {
			struct input *in = t->in[i];
			if (in->done && !input_may_grow(in))
				continue;
			in->quiet = false;
			changed |= check_input(t, in, NULL);
		}
		trace_watch(t);
		changed = true;
	}
	return changed;
}

/* ---- SIGBUS: a mapped file shrank underneath ------------------------------- */

sigjmp_buf trace_bus_jmp;
volatile sig_atomic_t trace_bus_armed;
static const struct trace *bus_trace;
static pid_t bus_tid; /* the thread that may jump: the worker's stack holds no jump */

/* Only async-signal-safe calls here: write(2) and _exit. */
static void bus_write(const char *s, size_t n)
{
	if (write(2, s, n) < 0) {
		/* nothing more can be done here */
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	if (trace_bus_armed && gettid() == bus_tid) {
		trace_bus_armed = 0;
		siglongjmp(trace_bus_jmp, 1);
	}
	const uint8_t *at = si->si_addr;
	if (fatal_cleanup)
		fatal_cleanup();
	bus_write("ttv: ", 5);
	for (uint32_t i = 0; bus_trace && i < bus_trace->nin; i++) {
		const struct input *in = bus_trace->in[i];
		if (!in->map || at < in->map || at >= in->map + in->maplen)
			continue;
		char b[256];
		size_t n = 0;
		for (const char *p = in->path; *p && n < sizeof b - 1; p++) /* no control bytes to the terminal */
			b[n++] = (uint8_t)*p < 0x20 || *p == 0x7f ? '?' : *p;
		bus_write(b, n);
		char num[24];
		size_t k = sizeof num;
		uint64_t off = (uint64_t)(at - in->map);
		do
			num[--k] = (char)('0' + off % 10);
		while ((off /= 10) && k);
		bus_write(": offset ", 9);
		bus_write(num + k, sizeof num - k);
		bus_write(": ", 2);
		break;
	}
	static const char msg[] = "the file shrank while it was read (truncated by another program): stopped\n";
	bus_write(msg, sizeof msg - 1);
	_exit(3);
}

void trace_catch_sigbus(const struct trace *t)
{
	bus_trace = t;
	bus_tid = gettid();
	struct sigaction sa = {.sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* ---- helpers for decoders ------------------------------------------------- */

struct model *dec_model(const struct input *in) { return in->src->trace->m; }

uint32_t dec_str(const struct input *in, const void *p, size_t n) { return model_str(dec_model(in), p, n); }

uint32_t dec_lane(const struct input *in, uint64_t key, const char *name)
{
	struct model *m = dec_model(in);
	return dec_lane_sid(in->src, key, model_str(m, name, strlen(name)));
}

struct model *dec_source_model(const struct source *src) { return src->trace->m; }

uint32_t dec_lane_sid(const struct source *src, uint64_t key, uint32_t name_sid)
{
	return model_lane(src->trace->m, src->id, key, name_sid);
}

bool dec_following(const struct input *in) { return in->src->trace->follow; }

void dec_notice(const struct source *src, const char *fmt, ...)
{
	char text[sizeof src->trace->notice];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	trace_notice(src->trace, "%s", text);
}

struct source *dec_source(const struct input *in) { return in->src; }

const char *dec_source_path(const struct source *src) { return src->path; }

struct input *dec_source_input(const struct source *src, size_t i)
{
	return i < src->ninputs ? src->inputs[i] : NULL;
}

void *dec_source_state(const struct source *src) { return src->dstate; }

void dec_set_source_state(struct source *src, void *st) { src->dstate = st; }

bool dec_emit(struct input *in, struct event *e)
{
	if (e->off >= TTV_OFF_LIMIT || in->id >= TTV_INPUT_LIMIT) {
		dec_fatal(in, e->off, "beyond what ttv can address (64 GiB per file, 4096 files)");
		return false;
	}
	e->input = in->id;
	struct source *src = in->src;
	if (UNLIKELY(src->trace->decode_only)) {
		src->trace->decoded++;
		return true;
	}
	if (!(e->flags & EVF_META)) {
		in->last_ts = e->ts;
		in->has_last_ts = true;
	}
	if (LIKELY(!src->shift && src->align != ALIGN_WAIT)) {
		model_add(dec_model(in), e);
	} else if (src->align == ALIGN_WAIT) {
		xgrow(&src->held, &src->capheld, src->nheld + 1, sizeof *src->held);
		src->held[src->nheld++] = *e;
	} else {
		struct event x = *e; /* the decoder may look at its event again */
		x.ts = shift_ts(x.ts, src->shift);
		model_add(dec_model(in), &x);
	}
	return true;
}

void dec_clock_anchor(struct input *in, int64_t ts, int64_t wall_ns)
{
	struct source *src = in->src;
	if (!src->has_boot) {
		src->has_boot = true;
		src->boot_ns = shift_ts(wall_ns, ts == INT64_MIN ? INT64_MAX : -ts);
	}
}

/* ---- --align: a shift per source ----------------------------------------- */

/* Times move by the shift; one pushed past the int64 range stays at its end. */
int64_t shift_ts(int64_t ts, int64_t shift)
{
	__int128 v = (__int128)ts + shift;
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int64_t source_wall(const struct source *s, int64_t ts)
{
	return shift_ts(shift_ts(ts, s->shift == INT64_MIN ? INT64_MAX : -s->shift), s->boot_ns);
}

bool trace_wall(const struct trace *t, const struct event *e, int64_t *wall)
{
	if (e->input >= t->nin || !t->in[e->input]->src->has_boot)
		return false;
	*wall = source_wall(t->in[e->input]->src, e->ts);
	return true;
}

bool trace_wall_at(const struct trace *t, int64_t ts, int64_t *wall)
{
	for (size_t i = 0; i < t->nsrc; i++)
		if (t->src[i]->has_boot) {
			*wall = source_wall(t->src[i], ts);
			return true;
		}
	return false;
}

/* Metadata at its source's (shifted) zero has no time. */
bool trace_untimed(const struct trace *t, const struct event *e)
{
	if (!(e->flags & EVF_META))
		return false;
	int64_t zero = e->input < t->nin ? shift_ts(0, t->in[e->input]->src->shift) : 0;
	return e->ts == zero;
}

void dec_lane_count(struct input *in, uint32_t lane, uint64_t n, int64_t first, int64_t last)
{
	struct source *src = in->src;
	if (src->align == ALIGN_WAIT) {
		xgrow(&src->held_counts, &src->capheld_counts, src->nheld_counts + 1, sizeof *src->held_counts);
		src->held_counts[src->nheld_counts++] = (struct held_count){lane, n, first, last};
		return;
	}
	model_lane_count(dec_model(in), lane, n, shift_ts(first, src->shift), shift_ts(last, src->shift));
}

/* A sequence of a source that --align shifts: the model sees it through
 * these, which move its times by the source's shift (0 until it is known). */
struct seq_shift {
	const struct seq_ops *ops;
	void *ctx;
	const struct source *src;
};

static uint64_t sh_count(void *c)
{
	struct seq_shift *w = c;
	return w->ops->count(w->ctx);
}

static int64_t sh_ts(void *c, uint64_t i)
{
	struct seq_shift *w = c;
	return shift_ts(w->ops->ts(w->ctx, i), w->src->shift);
}

/* first i with ts(i) + shift >= t (or > t), exactly */
static uint64_t sh_bound(struct seq_shift *w, int64_t t, bool upper)
{
	__int128 raw = (__int128)t - w->src->shift;
	if (raw > INT64_MAX || (upper && raw == INT64_MAX))
		return w->ops->count(w->ctx);
	if (raw < INT64_MIN)
		return 0;
	return upper ? w->ops->upper(w->ctx, (int64_t)raw) : w->ops->lower(w->ctx, (int64_t)raw);
}

static uint64_t sh_lower(void *c, int64_t t) { return sh_bound(c, t, false); }
static uint64_t sh_upper(void *c, int64_t t) { return sh_bound(c, t, true); }

static void sh_get(void *c, uint64_t i, struct event *e)
{
	struct seq_shift *w = c;
	w->ops->get(w->ctx, i, e);
	e->ts = shift_ts(e->ts, w->src->shift);
}

static bool sh_partner(void *c, uint64_t i, uint64_t *j)
{
	struct seq_shift *w = c;
	return w->ops->partner && w->ops->partner(w->ctx, i, j);
}

static uint32_t sh_lane(void *c)
{
	struct seq_shift *w = c;
	return w->ops->lane(w->ctx);
}

static const struct seq_ops shift_ops = {sh_count, sh_ts, sh_lower, sh_upper, sh_get, sh_partner, NULL};
static const struct seq_ops shift_lane_ops = {sh_count, sh_ts, sh_lower, sh_upper, sh_get, sh_partner, sh_lane};

uint32_t dec_add_seq(struct input *in, const struct seq_ops *ops, void *ctx)
{
	struct trace *t = in->src->trace;
	if (in->src->align == ALIGN_NONE)
		return model_add_seq(t->m, ops, ctx);
	struct seq_shift *w = xmalloc(sizeof *w);
	*w = (struct seq_shift){ops, ctx, in->src};
	xgrow(&t->seqs, &t->capseqs, t->nseqs + 1, sizeof *t->seqs);
	t->seqs[t->nseqs++] = w;
	return model_add_seq(t->m, ops->lane ? &shift_lane_ops : &shift_ops, w);
}

/* A waiting source has decoded a slice: once it has timeline events, its
 * earliest one sets the shift, and what waited goes to the model. */
static void align_settle(struct source *src)
{
	bool done = true;
	for (size_t i = 0; i < src->ninputs; i++)
		done &= src->inputs[i]->done;
	bool have = false;
	int64_t first = 0;
	for (size_t i = 0; i < src->nheld; i++)
		if (!(src->held[i].flags & EVF_META) && (!have || src->held[i].ts < first))
			first = src->held[i].ts, have = true;
	for (size_t i = 0; i < src->nheld_counts; i++)
		if (src->held_counts[i].n && (!have || src->held_counts[i].first < first))
			first = src->held_counts[i].first, have = true;
	if (!have && !done)
		return; /* nothing on the timeline yet: wait for more */
	struct model *m = src->trace->m;
	src->shift = !have ? 0 : first == INT64_MIN ? INT64_MAX : -first;
	src->align = ALIGN_SET;
	for (size_t i = 0; i < src->nheld; i++) {
		src->held[i].ts = shift_ts(src->held[i].ts, src->shift);
		model_add(m, &src->held[i]);
	}
	for (size_t i = 0; i < src->nheld_counts; i++) {
		const struct held_count *h = &src->held_counts[i];
		model_lane_count(m, h->lane, h->n, shift_ts(h->first, src->shift), shift_ts(h->last, src->shift));
	}
	free(src->held);
	free(src->held_counts);
	src->held = NULL;
	src->held_counts = NULL;
	src->nheld = src->capheld = src->nheld_counts = src->capheld_counts = 0;
	model_seq_changed(m); /* its sequences' times moved */
}

/* A new report of an input's: after its last event on the timeline. */
static void place_damage(struct input *in, struct damage *d)
{
	if (d && in->has_last_ts) {
		d->has_ts = true;
		d->ts = shift_ts(in->last_ts, in->src->shift);
	}
}

void dec_damage(struct input *in, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct damage *d = vdamage(in->src, in->path, true, off, false, fmt, ap);
	va_end(ap);
	place_damage(in, d);
}

const char *trace_internal_error(const struct trace *t)
{
	for (size_t i = 0; i < t->nsrc; i++)
		for (size_t j = 0; j < t->src[i]->ndmg; j++)
			if (!strncmp(t->src[i]->dmg[j].msg, INTERNAL_ERROR, strlen(INTERNAL_ERROR)))
				return t->src[i]->dmg[j].msg;
	return NULL;
}

void dec_fatal(struct input *in, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct damage *d = vdamage(in->src, in->path, true, off, true, fmt, ap);
	va_end(ap);
	in->done = true;
	place_damage(in, d);
}

void dec_reject(struct input *in, const char *fmt, ...)
{
	struct source *src = in->src;
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (src->ninputs == 1) {
		free(src->error);
		src->error = b.p;
		in->done = true;
	} else {
		dec_fatal(in, 0, "%s", buf_str(&b));
		buf_free(&b);
	}
}
