/* The loader's side of the saved index (src/saved.h): what is kept of a
 * loaded trace, and how a later run that opens the same files takes it
 * back instead of decoding them again.
 *
 * A trace qualifies when every source's files are regular files (a gzip
 * file's contents are saved: reading it again is inflating it again), one
 * or a directory's (dial9 segments, an ATF session), and its decoder can
 * save its state; opened without --align.  Anything else is indexed as
 * always. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "decoders/decoder.h"
#include "src/saved.h"
#include "src/trace.h"

#define KEY_VERSION "ttv saved index 1"

/* The saved index's parts: then the contents of each gzip input in turn. */
enum { PART_POOL, PART_STRINGS, PART_GZIP };
/* Smaller traces index in less time than the saved index takes to write. */
#define SAVE_MIN_BYTES (16ull << 20)

static size_t ndecoders(void)
{
	size_t n = 0;
	while (decoders[n])
		n++;
	return n;
}

static size_t ngzip(const struct trace *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nin; i++)
		n += t->in[i]->gzip;
	return n;
}

/* A file whose decoder brought others beside it (an ATF index.atf, its
 * detail.atf): its files are known only once it is opened, so its index
 * could not be told to be the same before. */
static bool brought_others(const struct source *s)
{
	return s->ninputs > 1 && s->given && !strcmp(s->inputs[0]->path, s->given);
}

/* Every source regular files, its decoder (when known) one that saves. */
static bool qualifies(const struct trace *t)
{
	if (!t->nsrc || t->align || t->decode_only)
		return false;
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		if (s->error || !s->ninputs || s->live || (s->dec && (!s->dec->save || !s->dec->restore)) ||
		    brought_others(s))
			return false;
		for (size_t k = 0; k < s->ninputs; k++) {
			const struct input *in = s->inputs[k];
			if (!in->regular || in->is_stdin)
				return false;
		}
	}
	return ngzip(t) <= SAVED_MAX_PARTS - PART_GZIP;
}

/* The index's name: the sources' absolute paths and how they are read,
 * and this very ttv (its executable's identity: what another build saved
 * may lay its tables out otherwise; none known, no index). */
static bool trace_key(const struct trace *t, uint64_t *key)
{
	struct buf b = {0};
	struct stat exe;
	if (stat("/proc/self/exe", &exe))
		return false;
	buf_printf(&b, "%s\n%llu %llu %llu %lld.%09ld\n%s\n", KEY_VERSION, (unsigned long long)exe.st_dev,
		   (unsigned long long)exe.st_ino, (unsigned long long)exe.st_size, (long long)exe.st_mtim.tv_sec,
		   exe.st_mtim.tv_nsec, t->format ? t->format : "");
	for (size_t i = 0; i < t->nsrc; i++) {
		if (!t->src[i]->given) /* (made by a directory's decoder, as it will be again) */
			continue;
		char *abs = realpath(t->src[i]->given, NULL);
		if (!abs) {
			buf_free(&b);
			return false;
		}
		buf_printf(&b, "%s%c", abs, 0);
		free(abs);
	}
	*key = hash_bytes(b.p, b.len);
	buf_free(&b);
	return true;
}

static uint64_t consumed(const struct trace *t)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->nin; i++)
		n += t->in[i]->consumed;
	return n;
}

static void put_str(struct buf *out, const char *s) { put_array(out, s, strlen(s), 1); }

/* A string that put_str wrote, NUL-terminated, into *b. */
static const char *get_str(struct blob *r, struct buf *b)
{
	size_t n;
	const char *s = get_array(r, &n, 1);
	buf_reset(b);
	buf_add(b, s, n);
	return buf_str(b);
}

/* (of a gzip file's own bytes, not of its contents) */
static bool input_id(const struct input *in, struct file_id *id)
{
	return file_id_of(in->fd, in->gzip ? in->raw : in->size, id);
}

/* A file that may be read on from here when it grows: all of it decoded,
 * its source without damage, its decoder ready to go on. */
static bool resumable(const struct source *s, const struct input *in)
{
	return !in->gzip && !s->ndmg && !s->dmg_dropped && in->consumed == in->size && s->dec->resumable &&
	       s->dec->resumable(in->dstate);
}

/* Each source's path, decoder and files.  False when a file is no longer
 * what was read (it changed meanwhile). */
static bool save_sources(const struct trace *t, struct buf *out)
{
	put_u64(out, t->nsrc);
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		put_str(out, s->path);
		put_str(out, s->dec->name);
		put_u64(out, s->ninputs);
		for (size_t k = 0; k < s->ninputs; k++) {
			struct file_id id;
			if (!input_id(s->inputs[k], &id))
				return false;
			put_str(out, s->inputs[k]->path);
			put_array(out, &id, 1, sizeof id);
			put_u64(out, resumable(s, s->inputs[k]));
		}
	}
	return true;
}

static void save_damage(const struct source *s, struct buf *out)
{
	put_u64(out, s->ndmg);
	for (size_t d = 0; d < s->ndmg; d++) {
		const struct damage *g = &s->dmg[d];
		put_str(out, g->path);
		put_str(out, g->msg);
		put_u64(out, g->off);
		put_i64(out, g->ts);
		put_u64(out, (uint64_t)g->has_off | (uint64_t)g->fatal << 1 | (uint64_t)g->has_ts << 2);
	}
	put_u64(out, s->dmg_dropped);
	put_u64(out, s->has_boot);
	put_i64(out, s->boot_ns);
}

static void save_input(const struct input *in, struct buf *out)
{
	put_u64(out, in->consumed);
	put_u64(out, in->feed);
	put_i64(out, in->last_ts);
	put_u64(out, in->has_last_ts);
	struct buf st = {0};
	in->dec->save(in->dstate, &st);
	put_array(out, st.p, st.len, 1);
	buf_free(&st);
}

/* What is saved: gathered while nothing else runs, written after, maybe
 * on a thread of its own (trace_save_begin). */
struct save_job {
	uint64_t key;
	struct buf meta, strings;
	struct saved_part part[SAVED_MAX_PARTS];
	size_t nparts;
	struct saved_part *pools; /* PART_POOL's pieces */
	size_t npools;
	pthread_t thread;
	atomic_bool stop;
	char *error; /* why it could not be written */
	atomic_bool finished;
};

/* The job for t, when it is to be saved (NULL: not). */
static struct save_job *gather(struct trace *t)
{
	uint64_t key, bytes = 0, least = SAVE_MIN_BYTES;
	const char *min = getenv("TTV_SAVE_MIN"); /* (tests: save small traces too) */
	if (min)
		least = strtoull(min, NULL, 10);
	if (!saved_limit() || (t->restored && consumed(t) == t->restored_bytes) || consumed(t) == t->saved_bytes ||
	    t->follow || !qualifies(t) ||
	    !model_savable(t->m))
		return NULL;
	for (size_t i = 0; i < t->nin; i++) {
		if (!t->in[i]->done || !t->in[i]->dec)
			return NULL;
		bytes += t->in[i]->size;
	}
	if (bytes < least || !trace_key(t, &key))
		return NULL;
	struct save_job *j = xcalloc(1, sizeof *j);
	j->key = key;
	if (!save_sources(t, &j->meta)) {
		buf_free(&j->meta);
		free(j);
		return NULL;
	}
	model_save(t->m, &j->meta, &j->strings, (const void *const *)decoders, ndecoders());
	for (size_t i = 0; i < t->nsrc; i++)
		save_damage(t->src[i], &j->meta);
	for (size_t i = 0; i < t->nin; i++)
		save_input(t->in[i], &j->meta);
	j->part[PART_STRINGS] = (struct saved_part){.p = j->strings.p, .n = j->strings.len};
	j->npools = model_npools(t->m);
	j->pools = xcalloc(j->npools, sizeof *j->pools);
	for (size_t i = 0; i < j->npools; i++) {
		j->pools[i].p = model_pool(t->m, i, &j->pools[i].n);
		j->part[PART_POOL].n += j->pools[i].n;
	}
	j->part[PART_POOL].piece = j->pools;
	j->part[PART_POOL].npieces = j->npools;
	j->nparts = PART_GZIP;
	for (size_t i = 0; i < t->nin; i++)
		if (t->in[i]->gzip)
			j->part[j->nparts++] = (struct saved_part){.p = t->in[i]->map, .n = t->in[i]->size};
	return j;
}

static void *write_job(void *arg)
{
	struct save_job *j = arg;
	saved_write(j->key, &j->meta, j->part, j->nparts, &j->stop, &j->error);
	atomic_store(&j->finished, true);
	return NULL;
}

/* Written (or not: its error kept, the first one only). */
static void job_free(struct trace *t, struct save_job *j)
{
	if (j->error && !t->save_error)
		t->save_error = j->error;
	else
		free(j->error);
	buf_free(&j->meta);
	buf_free(&j->strings);
	free(j->pools);
	free(j);
}

void trace_save(struct trace *t)
{
	trace_save_end(t, false);
	struct save_job *j = gather(t);
	if (j) {
		write_job(j);
		job_free(t, j);
		t->saved_bytes = consumed(t); /* (tried: not again) */
	}
}

void trace_save_tell(struct trace *t, FILE *f)
{
	if (!t->save_error || t->save_error_said)
		return;
	t->save_error_said = true;
	fprintf(f, "%s: the index was not saved for the next run: %s\n", progname, t->save_error);
}

void trace_save_begin(struct trace *t)
{
	if (!trace_save_poll(t))
		return; /* (being written: what it writes has not changed, trace_step waits for it first) */
	struct save_job *j = gather(t);
	if (!j)
		return;
	if (pthread_create(&j->thread, NULL, write_job, j)) {
		job_free(t, j); /* (saved at the end, then) */
		return;
	}
	t->saving = j;
	t->saved_bytes = consumed(t);
}

bool trace_save_poll(struct trace *t)
{
	if (t->saving && atomic_load(&t->saving->finished))
		trace_save_end(t, false); /* (its error, if any, in t->save_error) */
	return !t->saving;
}

void trace_save_end(struct trace *t, bool give_up)
{
	struct save_job *j = t->saving;
	if (!j)
		return;
	atomic_store(&j->stop, give_up);
	pthread_join(j->thread, NULL);
	job_free(t, j);
	t->saving = NULL;
}

/* The saved file is this input's, unchanged or grown where it can be
 * read on (*grew). */
static bool same_input(const struct trace *t, const struct input *in, struct blob *r, struct buf *b, bool *grew)
{
	struct file_id then;
	size_t n;
	bool same = !strcmp(get_str(r, b), in->path);
	const void *id = get_array(r, &n, sizeof then);
	bool can_grow = get_u64(r) & 1;
	if (!same || r->bad || n != 1)
		return false;
	enum file_fate f = file_fate(memcpy(&then, id, sizeof then), in->fd);
	/* following, every file may grow from here on */
	*grew = f == FILE_GREW || (f == FILE_SAME && t->follow);
	return (f == FILE_SAME && !t->follow) || (*grew && can_grow);
}

/* The saved sources are these, of the same files: their decoders in *dec,
 * the inputs that grew in grew[input id]. */
static bool same_sources(const struct trace *t, struct blob *r, const struct decoder **dec, bool *grew)
{
	struct buf b = {0};
	bool same = get_u64(r) == t->nsrc;
	for (size_t i = 0; same && i < t->nsrc; i++) {
		const struct source *s = t->src[i];
		same = !strcmp(get_str(r, &b), s->path);
		dec[i] = decoder_find(get_str(r, &b));
		same = same && !r->bad && dec[i] && dec[i]->restore && (!s->dec || s->dec == dec[i]) &&
		       get_u64(r) == s->ninputs;
		for (size_t k = 0; same && k < s->ninputs; k++)
			same = same_input(t, s->inputs[k], r, &b, &grew[s->inputs[k]->id]);
	}
	buf_free(&b);
	return same && !r->bad;
}

static bool restore_damage(struct source *s, struct blob *r)
{
	struct buf path = {0}, msg = {0};
	uint64_t n = get_below(r, (uint64_t)(r->end - r->p) / 40 + 1);
	for (uint64_t d = 0; d < n && !r->bad; d++) {
		get_str(r, &path);
		get_str(r, &msg);
		uint64_t off = get_u64(r);
		int64_t ts = get_i64(r);
		uint64_t f = get_u64(r);
		xgrow(&s->dmg, &s->capdmg, s->ndmg + 1, sizeof *s->dmg);
		s->dmg[s->ndmg] = (struct damage){xstrdup(buf_str(&path)), off, f & 1, xstrdup(buf_str(&msg)),
						  f >> 1 & 1, f >> 2 & 1, ts, s->ndmg};
		s->ndmg++;
	}
	s->dmg_dropped = get_u64(r);
	s->has_boot = get_u64(r) & 1;
	s->boot_ns = get_i64(r);
	buf_free(&path);
	buf_free(&msg);
	return !r->bad;
}

static bool restore_input(struct input *in, const struct decoder *dec, struct blob *r)
{
	in->consumed = get_below(r, in->size + 1);
	in->feed = get_u64(r);
	in->last_ts = get_i64(r);
	in->has_last_ts = get_u64(r) & 1;
	size_t n;
	const uint8_t *st = get_array(r, &n, 1);
	if (r->bad)
		return false;
	if (!in->dstate) {
		in->dec = in->src->dec = dec;
		in->dstate = dec->open(in);
	}
	struct blob sub = {st, st + n, false};
	in->done = true;
	return dec->restore(in->dstate, &sub) && !sub.bad && sub.p == sub.end;
}

/* Everything read back, checked as it comes; false at the first thing
 * that does not hold (the trace is then half made). */
static bool restore(struct trace *t, struct saved *s, const struct decoder **dec)
{
	struct bigmem pool, strings;
	struct blob *r = &s->meta;
	if (!saved_map_part(s, PART_POOL, &pool))
		return false;
	if (!saved_map_part(s, PART_STRINGS, &strings)) {
		bigmem_free(&pool);
		return false;
	}
	bool ok = model_restore(t->m, r, &pool, s->npart[PART_POOL], &strings, s->npart[PART_STRINGS], t->nsrc, t->nin,
				(const void *const *)decoders, ndecoders());
	bigmem_free(&pool); /* (what model_restore did not take over) */
	bigmem_free(&strings);
	for (size_t i = 0, part = PART_GZIP; ok && i < t->nin; i++) {
		struct bigmem contents;
		if (t->in[i]->gzip && (ok = saved_map_part(s, (unsigned)part, &contents)))
			input_adopt(t->in[i], &contents, s->npart[part++]);
	}
	if (!ok)
		return false;
	for (size_t i = 0; i < t->nsrc; i++)
		if (!restore_damage(t->src[i], r))
			return false;
	for (size_t i = 0; i < t->nin; i++)
		if (!restore_input(t->in[i], dec[t->in[i]->src->id], r))
			return false;
	return r->p == r->end;
}

/* Start again from the paths: what a failed restore made is dropped, what
 * the command line set is kept. */
static void reopen(struct trace *t)
{
	size_t n = t->nsrc;
	char **paths = xcalloc(n, sizeof *paths);
	for (size_t i = 0; i < n; i++)
		paths[i] = t->src[i]->given ? xstrdup(t->src[i]->given) : NULL;
	const char *format = t->format;
	bool follow = t->follow, one_store = t->one_store, align = t->align;
	uint32_t first = t->nsrc_first; /* (the first path's sources: A of a comparison) */
	trace_free(t);
	trace_init(t);
	t->format = format;
	t->follow = follow;
	t->one_store = one_store;
	t->align = align;
	for (size_t i = 0; i < n; i++) {
		if (paths[i])
			trace_open(t, paths[i]);
		if (i < first)
			t->nsrc_first = (uint32_t)t->nsrc;
		free(paths[i]);
	}
	free(paths);
}

bool trace_restore(struct trace *t)
{
	uint64_t key;
	struct saved s;
	if (!qualifies(t) || model_count(t->m) || !trace_key(t, &key) || !saved_open(key, &s))
		return false;
	const struct decoder **dec = xcalloc(t->nsrc, sizeof *dec);
	bool ok = false, *grew = xcalloc(t->nin, sizeof *grew);
	if (same_sources(t, &s.meta, dec, grew)) {
		ok = restore(t, &s, dec);
		if (!ok) { /* a damaged index: gone, and the trace indexed afresh */
			saved_forget(key);
			reopen(t);
		}
	}
	for (size_t i = 0; ok && i < t->nin; i++)
		if (grew[i]) { /* read on from where the index ends */
			t->in[i]->done = false;
			t->restored_grew = true;
		}
	t->restored_bytes = consumed(t);
	free(grew);
	free(dec);
	saved_close(&s);
	return t->restored = ok;
}
