#include "src/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "decoders/decoder.h"
#include "src/esc.h"

#define PROBE_WINDOW (64u << 10)
#define MAX_DAMAGE 1000

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof *t);
	t->m = model_new();
	t->slice = 8u << 20;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nin; i++) {
		struct input *in = t->in[i];
		/* Directory decoders share one state between inputs: close it once. */
		if (in->dec && in->dec->close && in->dstate && in->dstate != in->src->dstate)
			in->dec->close(in->dstate);
		input_close(in);
	}
	for (size_t i = 0; i < t->nsrc; i++) {
		struct source *s = t->src[i];
		if (s->dec && s->dec->close && s->dstate)
			s->dec->close(s->dstate);
		for (size_t d = 0; d < s->ndmg; d++) {
			free(s->dmg[d].path);
			free(s->dmg[d].msg);
		}
		free(s->dmg);
		free(s->inputs);
		free(s->error);
		free(s->path);
		free(s);
	}
	free(t->src);
	free(t->in);
	model_free(t->m);
}

static void vdamage(struct source *src, const char *path, bool has_off, uint64_t off, bool fatal, const char *fmt,
		    va_list ap)
{
	if (src->ndmg >= MAX_DAMAGE && !fatal) {
		src->dmg_dropped++;
		return;
	}
	struct buf b = {0};
	buf_vprintf(&b, fmt, ap);
	xgrow(&src->dmg, &src->capdmg, src->ndmg + 1, sizeof *src->dmg);
	src->dmg[src->ndmg++] = (struct damage){xstrdup(path), off, has_off, b.p, fatal};
}

void source_damage(struct source *src, const char *path, bool has_off, uint64_t off, bool fatal, const char *fmt,
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

struct input *source_add_input(struct source *src, const char *path)
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

static const struct decoder *probe_dir(const char *path)
{
	const struct decoder *best = NULL;
	int score = 0;
	for (size_t i = 0; decoders[i]; i++) {
		if (!decoders[i]->probe_dir)
			continue;
		int s = decoders[i]->probe_dir(path);
		if (s > score)
			score = s, best = decoders[i];
	}
	return best;
}

struct source *trace_open(struct trace *t, const char *path)
{
	struct source *src = xcalloc(1, sizeof *src);
	src->id = (uint32_t)t->nsrc;
	src->path = xstrdup(path);
	src->trace = t;
	xgrow(&t->src, &t->capsrc, t->nsrc + 1, sizeof *t->src);
	t->src[t->nsrc++] = src;

	const struct decoder *forced = NULL;
	if (t->format && !(forced = decoder_find(t->format))) {
		source_fail(src, "unknown format '%s'", t->format);
		return src;
	}
	struct stat st;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		const struct decoder *d = forced ? forced : probe_dir(path);
		if (!d || !d->open_dir) {
			source_fail(src, forced ? "format %s does not read directories"
						: "directory holds no trace ttv recognises%s",
				    forced ? forced->name : "");
			return src;
		}
		src->dec = d;
		if (!d->open_dir(src, path) && !src->error)
			source_fail(src, "no %s trace in this directory", d->name);
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

/* Choose a decoder for an input by content.  False while undecided. */
static bool probe_input(struct input *in, bool final)
{
	size_t n = in->size < PROBE_WINDOW ? (size_t)in->size : PROBE_WINDOW;
	bool all = final && n == in->size;
	const struct decoder *best = NULL;
	int score = 0;
	bool more = false;
	for (size_t i = 0; decoders[i]; i++) {
		if (!decoders[i]->probe)
			continue;
		int s = decoders[i]->probe(in->map, n, all);
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
		if (src->ninputs == 1)
			source_fail(src, in->size ? "unknown format (no decoder recognises its content)"
						  : "empty file (0 bytes): nothing to decode");
		else
			source_damage(src, in->path, false, 0, true, "unknown format");
		in->done = true;
		return false;
	}
	in->dec = best;
	if (!in->src->dec)
		in->src->dec = best;
	in->dstate = best->open(in);
	return true;
}

static void step_input(struct trace *t, struct input *in, bool wait)
{
	input_refresh(in, t->slice, wait);
	bool final = in->eof && !t->follow;
	if (in->zerror && !in->zreported) {
		source_damage(in->src, in->path, false, 0, false, "%s", in->zerror);
		in->zreported = true;
	}
	if (!in->dec && !probe_input(in, final))
		return;
	size_t before = in->src->ndmg;
	uint64_t avail = in->size - in->consumed;
	uint64_t n = avail < t->slice ? avail : t->slice;
	bool last = final && n == avail;
	const uint8_t *p = in->map ? in->map + in->consumed : NULL;
	input_prefetch(in, in->consumed, n);
	size_t used = in->dec->feed(in->dstate, p, (size_t)n, in->consumed, last);
	if (!used && !in->done && n < avail) {
		/* A record larger than a slice: hand over everything there is. */
		last = final;
		used = in->dec->feed(in->dstate, p, (size_t)avail, in->consumed, last);
	}
	/* Back off a little: fault-around maps pages on both sides of a fault. */
	uint64_t back = MIN(in->consumed, 256u << 10);
	input_release(in, in->consumed - back, used + back);
	in->consumed += used;
	if (!in->done && last) {
		/* With final set a decoder consumes all it can; what is left is damage. */
		if (in->consumed < in->size && in->src->ndmg == before)
			dec_damage(in, in->consumed, "%llu bytes at the end could not be decoded",
				   (unsigned long long)(in->size - in->consumed));
		in->done = true;
	}
	if (in->done && in->gzip && in->zpartial && !in->zerror)
		source_damage(in->src, in->path, false, 0, false,
			      "gzip stream cut short after %llu decompressed bytes", (unsigned long long)in->size);
}

bool trace_step(struct trace *t, uint64_t budget_ns, bool wait)
{
	uint64_t deadline = now_ns() + budget_ns;
	bool more = false;
	for (size_t i = 0; i < t->nin; i++) {
		struct input *in = t->in[i];
		if (in->done)
			continue;
		uint64_t before = in->consumed;
		step_input(t, in, wait);
		if (!in->done)
			more = true;
		/* Stay on a busy input while time remains (fewer, larger commits). */
		while (!in->done && in->consumed > before && now_ns() < deadline) {
			before = in->consumed;
			step_input(t, in, wait);
			/* Commit in moderate batches: the sort's scratch stays small. */
			if (model_pending(t->m) > (256u << 10))
				model_commit(t->m);
		}
		if (now_ns() >= deadline)
			break;
	}
	model_commit(t->m);
	return more;
}

void trace_load_all(struct trace *t)
{
	while (trace_step(t, 100000000, true))
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

const struct decoder *trace_decoder_of(const struct trace *t, const struct event *e, void **st)
{
	if (e->input >= t->nin)
		return NULL;
	*st = t->in[e->input]->dstate;
	return t->in[e->input]->dec;
}

void trace_release(struct trace *t)
{
	for (size_t i = 0; i < t->nin; i++)
		input_release(t->in[i], 0, t->in[i]->size);
}

void trace_progress(const struct trace *t, uint64_t *done, uint64_t *total)
{
	*done = *total = 0;
	for (size_t i = 0; i < t->nin; i++) {
		*done += t->in[i]->consumed;
		*total += t->in[i]->size;
	}
}

/* ---- helpers for decoders ------------------------------------------------- */

struct model *dec_model(const struct input *in) { return in->src->trace->m; }

uint32_t dec_str(const struct input *in, const void *p, size_t n) { return model_str(dec_model(in), p, n); }

uint32_t dec_lane(const struct input *in, uint64_t key, const char *name)
{
	struct model *m = dec_model(in);
	return model_lane(m, in->src->id, key, model_str(m, name, strlen(name)));
}

uint32_t dec_type(const struct input *in, const struct decoder *d, const char *name, const char *category,
		  enum ev_role role)
{
	struct model *m = dec_model(in);
	return model_type(m, &(struct type){.name = model_str(m, name, strlen(name)),
					    .category = category ? model_str(m, category, strlen(category)) : 0,
					    .role = (uint8_t)role,
					    .owner = d});
}

bool dec_emit(struct input *in, struct event *e)
{
	if (e->off >= TTV_OFF_LIMIT || in->id >= TTV_INPUT_LIMIT) {
		dec_fatal(in, e->off, "beyond what ttv can address (64 GiB per file, 4096 files)");
		return false;
	}
	e->input = in->id;
	model_add(dec_model(in), e);
	return true;
}

void dec_damage(struct input *in, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdamage(in->src, in->path, true, off, false, fmt, ap);
	va_end(ap);
}

void dec_fatal(struct input *in, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdamage(in->src, in->path, true, off, true, fmt, ap);
	va_end(ap);
	in->done = true;
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
