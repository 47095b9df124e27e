#include "src/bigmem.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/util.h"

static uint64_t budget, in_memory, in_files;
enum { NDIRS = 3 };
static unsigned full; /* directories found full (1 << rank) */
static char *full_others[4]; /* and others (bigmem_note_full) */
static pthread_mutex_t full_lock = PTHREAD_MUTEX_INITIALIZER;

void bigmem_set_budget(uint64_t bytes) { __atomic_store_n(&budget, bytes, __ATOMIC_RELAXED); }

/* (the model's committer thread grows its arrays too) */
uint64_t bigmem_budget(void)
{
	uint64_t b = __atomic_load_n(&budget, __ATOMIC_RELAXED);
	if (!b) {
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		b = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : (uint64_t)1 << 32;
		__atomic_store_n(&budget, b, __ATOMIC_RELAXED);
	}
	return b;
}

void bigmem_usage(uint64_t *mem, uint64_t *files)
{
	*mem = __atomic_load_n(&in_memory, __ATOMIC_RELAXED);
	*files = __atomic_load_n(&in_files, __ATOMIC_RELAXED);
}

static void count(struct bigmem *b, int64_t delta)
{
	__atomic_add_fetch(b->fd ? &in_files : &in_memory, (uint64_t)delta, __ATOMIC_RELAXED);
}

/* The directories index files go to, in order (rank 0, 1, 2). */
static bool file_dir(int rank, struct buf *dir)
{
	const char *tmp = getenv("TMPDIR");
	buf_reset(dir);
	if (rank == 0)
		return cache_dir(dir);
	if (rank == 1 && tmp && *tmp == '/')
		buf_adds(dir, tmp);
	if (rank == 2)
		buf_adds(dir, "/tmp");
	return dir->len;
}

/* The room n bytes need in fd is taken (now, not as its pages are
 * written: a full disk then would be a SIGBUS); a full disk is noted. */
static bool take_room(int fd, int rank, size_t n)
{
	int e = posix_fallocate(fd, 0, (off_t)n);
	if (e == ENOSPC || e == EDQUOT || e == EFBIG)
		__atomic_or_fetch(&full, 1u << rank, __ATOMIC_RELAXED);
	return !e;
}

/* A file with no name and room for n bytes in the first directory from
 * rank `from` on that has it (*rank: which); -1 when none has. */
static int index_file(int from, size_t n, int *rank)
{
	struct buf dir = {0};
	int fd = -1;
	for (*rank = from; fd < 0 && *rank < NDIRS; ++*rank) {
		if (!file_dir(*rank, &dir) || (fd = nameless_file(dir.p, "ttv-index")) < 0)
			continue;
		if (!take_room(fd, *rank, n)) {
			close(fd);
			fd = -1;
		}
	}
	--*rank;
	buf_free(&dir);
	return fd;
}

/* b's array moved to q (n bytes, in file fd + 1, 0: memory), its first
 * `keep` bytes copied (not the spare room: it would be written out). */
static void move_to(struct bigmem *b, void *q, size_t n, int fd, int rank, size_t keep)
{
	if (b->p) {
		memcpy(q, b->p, MIN(keep, b->bytes));
		munmap(b->p, b->bytes);
	}
	count(b, -(int64_t)b->bytes);
	if (b->fd)
		close(b->fd - 1);
	*b = (struct bigmem){q, n, fd + 1, false, (unsigned char)rank};
	count(b, (int64_t)n);
}

/* Move b's array into a file of n bytes in a directory from rank `from`
 * on; false when there is no file to be had. */
static bool to_file(struct bigmem *b, size_t n, size_t keep, int from)
{
	int rank, fd = index_file(from, n, &rank);
	if (fd < 0)
		return false;
	void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (q == MAP_FAILED) {
		close(fd);
		return false;
	}
	move_to(b, q, n, fd, rank, keep);
	return true;
}

/* Its file's disk is full and no other has room: back to memory (past
 * the budget, rather than ending). */
static void to_memory(struct bigmem *b, size_t n, size_t keep)
{
	void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		oom(n);
	move_to(b, q, n, -1, 0, keep);
}

/* Anonymous memory moved to n bytes.  ThreadSanitizer does not see
 * mremap: what it knew of the old pages would stick to the addresses, and
 * another thread that maps them next would seem to race with this one.
 * Its builds copy instead. */
static void *remap(void *p, size_t old, size_t n)
{
#if defined(__SANITIZE_THREAD__)
	void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q != MAP_FAILED) {
		memcpy(q, p, old);
		munmap(p, old);
	}
	return q;
#else
	return mremap(p, old, n, MREMAP_MAYMOVE);
#endif
}

bool bigmem_map_saved(struct bigmem *b, int fd, uint64_t off, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)off);
	if (p == MAP_FAILED)
		return false;
	*b = (struct bigmem){p, bytes, 0, true, 0}; /* (counted nowhere: its pages are the saved file's) */
	return true;
}

/* A saved index's array, copied to anonymous memory before it grows (the
 * file's mapping cannot). */
static void unsave(struct bigmem *b)
{
	void *q = mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		oom(b->bytes);
	memcpy(q, b->p, b->bytes);
	munmap(b->p, b->bytes);
	b->p = q;
	b->saved = false;
	count(b, (int64_t)b->bytes);
}

void *bigmem_grow(struct bigmem *b, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return b->p;
	if (b->saved)
		unsave(b);
	/* in a file, room is taken as it grows: smaller steps waste less disk */
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c += (b->fd ? c / 8 : c / 2) + 16;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (c > (SIZE_MAX - page) / size)
		oom(SIZE_MAX);
	size_t n = (c * size + page - 1) / page * page, least = (need * size + page - 1) / page * page;
	uint64_t mem, files, others;
	bigmem_usage(&mem, &files);
	others = mem - b->bytes;
	if (!b->fd && others + n > bigmem_budget()) {
		if (others + least <= bigmem_budget()) /* what is needed fits: grow up to the budget, no further */
			n = MAX(least, (size_t)(bigmem_budget() - others) / page * page);
		else if (to_file(b, n, need * size, 0)) {
			*cap = n / size;
			return b->p;
		}
	}
	if (b->fd && !take_room(b->fd - 1, b->rank, n)) {
		/* its disk is full: on in the next directory with room, else in memory */
		if (!to_file(b, n, need * size, b->rank + 1))
			to_memory(b, n, need * size);
		*cap = n / size;
		return b->p;
	}
	void *q = b->p ? (b->fd ? mremap(b->p, b->bytes, n, MREMAP_MAYMOVE) : remap(b->p, b->bytes, n))
		       : mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		oom(n);
	count(b, (int64_t)(n - b->bytes));
	b->p = q;
	b->bytes = n;
	*cap = n / size;
	return q;
}

bool bigmem_drop_front(struct bigmem *b, size_t bytes)
{
	if (b->fd || b->saved || !bytes || bytes >= b->bytes || bytes % (size_t)sysconf(_SC_PAGESIZE))
		return false;
	munmap(b->p, bytes);
	b->p = (char *)b->p + bytes;
	b->bytes -= bytes;
	count(b, -(int64_t)bytes);
	return true;
}

void bigmem_free(struct bigmem *b)
{
	if (b->p)
		munmap(b->p, b->bytes);
	if (!b->saved)
		count(b, -(int64_t)b->bytes);
	if (b->fd)
		close(b->fd - 1);
	*b = (struct bigmem){0};
}

/* Is item one of the list's ", "-separated items? */
static bool listed(const char *list, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
		if (!strncmp(p, item, n) && (!p[n] || p[n] == ','))
			return true;
	return false;
}

bool bigmem_full_dirs(struct buf *b)
{
	unsigned f = __atomic_load_n(&full, __ATOMIC_RELAXED);
	struct buf dir = {0};
	const char *sep = "";
	size_t start = b->len;
	for (int rank = 0; rank < NDIRS; rank++) {
		if ((f & 1u << rank) && file_dir(rank, &dir) && !listed(b->p ? b->p + start : "", dir.p)) {
			buf_printf(b, "%s%s", sep, dir.p);
			sep = ", ";
		}
	}
	buf_free(&dir);
	pthread_mutex_lock(&full_lock);
	for (size_t i = 0; i < sizeof full_others / sizeof *full_others && full_others[i]; i++) {
		buf_printf(b, "%s%s", sep, full_others[i]);
		sep = ", ";
	}
	pthread_mutex_unlock(&full_lock);
	return *sep;
}

void bigmem_note_full(const char *dir)
{
	struct buf d = {0};
	bool known = false;
	for (int rank = 0; dir && rank < NDIRS && !known; rank++)
		known = (full & 1u << rank) && file_dir(rank, &d) && !strcmp(d.p, dir);
	buf_free(&d);
	pthread_mutex_lock(&full_lock);
	size_t i = 0, n = sizeof full_others / sizeof *full_others;
	while (i < n && full_others[i] && strcmp(full_others[i], dir ? dir : ""))
		i++;
	if (dir && !known && i < n && !full_others[i])
		full_others[i] = xstrdup(dir);
	pthread_mutex_unlock(&full_lock);
}

bool bigmem_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !(v > 0))
		return false;
	if (*end) {
		const char *u = strchr("KMGT", toupper((unsigned char)*end));
		if (!u || end[1])
			return false;
		for (const char *k = "KMGT"; k <= u; k++)
			v *= 1024;
	}
	if (v >= 18e18 || v < 1)
		return false;
	*bytes = (uint64_t)v;
	return true;
}
