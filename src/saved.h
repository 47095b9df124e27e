/* The saved index: what a run that indexed a trace leaves in ttv's cache
 * directory for the next run that opens the same files, so that reopening
 * a big trace takes a moment instead of a full decode.
 *
 * One file per set of opened paths (named by a hash of them and of how
 * they were opened): a header, then the loader's and the model's state
 * (`meta`, src/trace.c writes it), then its big arrays (`parts`: the
 * events' packed bytes, the strings; page-aligned, mapped back privately,
 * never read into memory).  The
 * meta is checked against its hash, and every value read from it against
 * what exists before use (src/blob.h); the files it was made from are
 * checked by the loader (file_id).  Written whole to a nameless file and
 * renamed into place, so a reader never sees half of one.  The directory
 * is kept under a size limit, the least recently used index going first. */
#ifndef TTV_SAVED_H
#define TTV_SAVED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/bigmem.h"
#include "src/blob.h"

/* What identifies a file's contents: device, inode, size, modification
 * time, and a hash of its first and last 4 KB. */
struct file_id {
	uint64_t dev, ino, size, mtime_ns, hash;
};
/* Of an open regular file of `size` bytes (false when it has not). */
bool file_id_of(int fd, uint64_t size, struct file_id *id);
/* What became of a file since its id `then` was taken: the same bytes; the
 * same file with more after them (its first then.size bytes hash as they
 * did); or something else. */
enum file_fate { FILE_SAME, FILE_GREW, FILE_OTHER };
enum file_fate file_fate(const struct file_id *then, int fd);

/* The limit on the directory's saved indexes (bytes; 0: save nothing). */
void saved_set_limit(uint64_t bytes);
uint64_t saved_limit(void);

/* Arrays saved after the meta, page-aligned: mapped back privately,
 * never read into memory (the events' packed bytes, the strings, the
 * contents of gzip files). */
#define SAVED_MAX_PARTS 64
struct saved_part {
	const void *p;
	size_t n;
	/* or, when npieces: written from pieces, one after another (n: their total) */
	const struct saved_part *piece;
	size_t npieces;
};

struct saved {
	int fd;
	void *map; /* header and meta */
	size_t maplen;
	struct blob meta;
	size_t nparts;
	uint64_t part_off[SAVED_MAX_PARTS], npart[SAVED_MAX_PARTS];
};

/* The saved index for `key`, its meta checked; false when there is none
 * (or it is not whole). */
bool saved_open(uint64_t key, struct saved *s);
/* Its part i, mapped privately into *part (nothing when it is empty);
 * false when it has no part i or it cannot be mapped. */
bool saved_map_part(struct saved *s, unsigned i, struct bigmem *part);
void saved_close(struct saved *s);
/* The index for `key` is no good: remove it. */
void saved_forget(uint64_t key);
/* Save meta and parts for `key` (replacing what was there), then keep the
 * directory under the limit.  False when it could not be written (*err
 * says why, when err is not NULL), or *stop was set meanwhile (NULL:
 * never): nothing of it is left. */
bool saved_write(uint64_t key, const struct buf *meta, const struct saved_part *part, size_t nparts,
		 const atomic_bool *stop, char **err);

#endif
