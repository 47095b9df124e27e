#include "src/gzip.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "src/util.h"

bool gz_init(struct gz *g)
{
	*g = (struct gz){.z = xcalloc(1, sizeof(z_stream))};
	if (inflateInit2(g->z, 15 + 16) == Z_OK)
		return true;
	free(g->z);
	g->z = NULL;
	g->err = xstrdup("cannot start gzip decoding");
	return false;
}

void gz_free(struct gz *g)
{
	if (g->z)
		inflateEnd(g->z);
	free(g->z);
	free(g->err);
	*g = (struct gz){0};
}

size_t gz_inflate(struct gz *g, const uint8_t *in, size_t n, size_t *used, uint8_t *out, size_t cap)
{
	z_stream *z = g->z;
	size_t made = 0;
	*used = 0;
	while (!g->err && cap > made && (*used < n || g->partial)) {
		z->next_in = (Bytef *)in + *used;
		z->avail_in = (uInt)MIN(n - *used, UINT32_MAX);
		z->next_out = out + made;
		z->avail_out = (uInt)MIN(cap - made, UINT32_MAX);
		uInt in_before = z->avail_in, out_before = z->avail_out;
		int r = inflate(z, Z_NO_FLUSH);
		*used += in_before - z->avail_in;
		made += out_before - z->avail_out;
		g->raw += in_before - z->avail_in;
		g->made += out_before - z->avail_out;
		g->partial = r != Z_STREAM_END;
		if (r == Z_STREAM_END) {
			/* Another gzip member may follow (several members concatenated). */
			if (n - *used >= 2 && (in[*used] != 0x1f || in[*used + 1] != 0x8b)) {
				struct buf b = {0};
				buf_printf(&b, "data after the end of the gzip stream at compressed offset %llu",
					   (unsigned long long)g->raw);
				g->err = b.p;
				break;
			}
			inflateReset(z);
			g->partial = false;
		} else if (r == Z_BUF_ERROR) {
			break; /* needs more input, or more room */
		} else if (r != Z_OK) {
			struct buf b = {0};
			buf_printf(&b, "gzip error after %llu decompressed bytes: %s", (unsigned long long)g->made,
				   z->msg ? z->msg : "corrupt data");
			g->err = b.p;
			break;
		}
		if (*used == n && z->avail_out)
			break; /* everything taken, and room left: all there is was made */
	}
	return made;
}

/* ---- a thread ahead of the reader ------------------------------------------- */

#define PIECE (512u << 10) /* bytes: what the loader hands a decoder at a time */
#define PIECES 8
#define READ (256u << 10)
#define MAX_THREADS 2 /* (fleets of gzip segments: the rest inflate on the reader's thread) */

static atomic_int running;

struct gz_thread {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	struct gz *g;
	uint8_t *buf[PIECES];
	size_t len[PIECES];
	uint64_t raw[PIECES];
	unsigned first, count; /* the pieces made, the first of them the reader's when taken */
	bool taken;            /* the first piece is with the reader */
	bool stop, ended, started;
	uint8_t *in;
};

/* Wait for a piece to fill: the one after the last made (only this thread
 * makes them); -1 when told to stop. */
static int room(struct gz_thread *t)
{
	pthread_mutex_lock(&t->mu);
	while (t->count == PIECES && !t->stop)
		pthread_cond_wait(&t->cv, &t->mu);
	int k = t->stop ? -1 : (int)((t->first + t->count) % PIECES);
	pthread_mutex_unlock(&t->mu);
	return k;
}

static void made(struct gz_thread *t, int k, size_t n)
{
	pthread_mutex_lock(&t->mu);
	t->len[k] = n;
	t->raw[k] = t->g->raw;
	t->count++;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

static void *run(void *arg)
{
	struct gz_thread *t = arg;
	struct gz *g = t->g;
	for (;;) {
		ssize_t r = pread(t->fd, t->in, READ, (off_t)g->raw);
		if (r <= 0)
			break;
		size_t off = 0;
		while ((off < (size_t)r || g->partial) && !g->err) {
			int k = room(t);
			if (k < 0)
				goto out;
			size_t used, n = gz_inflate(g, t->in + off, (size_t)r - off, &used, t->buf[k], PIECE);
			off += used;
			if (n)
				made(t, k, n);
			if (!n && !used)
				break; /* needs more input */
		}
		if (g->err)
			break;
	}
out:
	pthread_mutex_lock(&t->mu);
	t->ended = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

struct gz_thread *gz_thread_start(int fd, struct gz *g)
{
	if (atomic_fetch_add(&running, 1) >= MAX_THREADS) {
		atomic_fetch_sub(&running, 1);
		return NULL;
	}
	struct gz_thread *t = xcalloc(1, sizeof *t);
	t->fd = fd;
	t->g = g;
	t->in = xmalloc(READ);
	for (unsigned i = 0; i < PIECES; i++)
		t->buf[i] = xmalloc(PIECE);
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->started = pthread_create(&t->th, NULL, run, t) == 0;
	if (t->started)
		return t;
	gz_thread_end(t);
	return NULL;
}

bool gz_thread_next(struct gz_thread *t, bool wait, const uint8_t **p, size_t *n, uint64_t *raw, bool *ended)
{
	pthread_mutex_lock(&t->mu);
	if (t->taken) { /* the reader is done with it */
		t->first = (t->first + 1) % PIECES;
		t->count--;
		t->taken = false;
		pthread_cond_broadcast(&t->cv);
	}
	while (wait && !t->count && !t->ended)
		pthread_cond_wait(&t->cv, &t->mu);
	bool got = t->count > 0;
	if (got) {
		*p = t->buf[t->first];
		*n = t->len[t->first];
		*raw = t->raw[t->first];
		t->taken = true;
	}
	*ended = !got && t->ended;
	pthread_mutex_unlock(&t->mu);
	return got;
}

void gz_thread_end(struct gz_thread *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	if (t->started)
		pthread_join(t->th, NULL);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	for (unsigned i = 0; i < PIECES; i++)
		free(t->buf[i]);
	free(t->in);
	free(t);
	atomic_fetch_sub(&running, 1);
}
