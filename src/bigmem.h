/* Arrays that may outgrow memory (the model's events and its sort space).
 *
 * They live in anonymous memory while all of them together stay under the
 * memory budget (--memory; by default half the RAM).  An array that would
 * pass it moves to a file in $XDG_CACHE_HOME/ttv (else ~/.cache/ttv, then
 * $TMPDIR, /tmp), mapped shared: the kernel can then write its pages out
 * and read them back instead of the process running out of memory.  When
 * that directory's disk fills up, the array moves on to the next one with
 * room, and when none has any, back to memory (past the budget).  The
 * file has no name (O_TMPFILE, or unlinked at once), so nothing is left
 * behind however ttv ends.  Nothing in it is ever read back by a later
 * run. */
#ifndef TTV_BIGMEM_H
#define TTV_BIGMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bigmem {
	void *p;      /* the array (NULL while empty) */
	size_t bytes; /* mapped */
	int fd;       /* its file + 1, 0 while in memory */
	bool saved;   /* a private mapping of a saved index (bigmem_map_saved) */
	unsigned char rank; /* its file's directory: 0 the cache, 1 $TMPDIR, 2 /tmp */
};

/* The budget in bytes (0: half the RAM). */
void bigmem_set_budget(uint64_t bytes);
uint64_t bigmem_budget(void);
/* Room for `need` elements of `size` bytes, growing by about half as
 * xgrow() does; *cap is in elements.  Returns the (maybe moved) array,
 * which keeps what its first `need` elements held (the callers' used part
 * is below that). */
void *bigmem_grow(struct bigmem *b, size_t *cap, size_t need, size_t size);
void bigmem_free(struct bigmem *b);
/* The array's first `bytes` (whole pages) let go, without moving the rest
 * (b->p moves on by that much); false when it cannot be (in a file, a saved
 * index's mapping). */
bool bigmem_drop_front(struct bigmem *b, size_t bytes);
/* An array read back from a saved index: `bytes` bytes of file fd from
 * `off` (a multiple of the page size) mapped privately, so that what is
 * written stays in this process (the file is never written); growing it
 * copies it to memory of its own first.  False when it cannot be mapped. */
bool bigmem_map_saved(struct bigmem *b, int fd, uint64_t off, size_t bytes);
/* Bytes of such arrays now in memory and in files. */
void bigmem_usage(uint64_t *in_memory, uint64_t *in_files);
/* The directories found full while arrays were moved or grown there,
 * appended to b (", " between them); false when none was. */
struct buf;
bool bigmem_full_dirs(struct buf *b);
/* Another's file found dir full (said with them; NULL: nothing). */
void bigmem_note_full(const char *dir);
/* Parse a size: a number of bytes with an optional K, M, G or T (powers of
 * 1024).  False when it is not one or is zero. */
bool bigmem_parse_size(const char *s, uint64_t *bytes);

#endif
