/* Gzip streams read: members one after another, damage said with where it
 * is, and a thread that inflates a gzip file ahead of its reader, so that
 * inflating and decoding run side by side (src/input.c spools what it
 * makes, as it spools what it inflates itself). */
#ifndef TTV_GZIP_H
#define TTV_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gz {
	void *z;       /* z_stream */
	uint64_t raw;  /* compressed bytes taken */
	uint64_t made; /* bytes inflated */
	bool partial;  /* inside a member: cut short if no more bytes come */
	char *err;     /* the first error (nothing is made after it) */
};

/* False (and g->err) when zlib cannot start. */
bool gz_init(struct gz *g);
void gz_free(struct gz *g);
/* Inflate in[0, n), the bytes after those taken so far, into out[0, cap):
 * the bytes made; *used: those of in taken.  Stops when out is full, in is
 * used up, or at damage (g->err). */
size_t gz_inflate(struct gz *g, const uint8_t *in, size_t n, size_t *used, uint8_t *out, size_t cap);

/* A thread inflating a file's bytes from g->raw on, a few pieces ahead of
 * its reader.  g is the thread's until gz_thread_end(). */
struct gz_thread;
/* NULL when no thread is to be had (a few run at most: the caller then
 * inflates itself). */
struct gz_thread *gz_thread_start(int fd, struct gz *g);
/* The next piece: true with p[0, n) (until the next call) and the
 * compressed bytes taken to make it (*raw).  When none is ready: with
 * wait, the next one, or false once the thread has read to the end of the
 * file or met damage (*ended); without, false at once. */
bool gz_thread_next(struct gz_thread *t, bool wait, const uint8_t **p, size_t *n, uint64_t *raw, bool *ended);
/* Stop the thread (if it runs) and wait for it: g is the caller's again,
 * as far as the pieces taken go (pieces made and not taken are lost: call
 * this at the end, or to let go of the file). */
void gz_thread_end(struct gz_thread *t);

#endif
