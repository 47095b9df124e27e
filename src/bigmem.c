#include "src/bigmem.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/util.h"

static uint64_t budget, in_memory, in_files;

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

/* A file with no name in dir, with room for n bytes; -1 when there is none. */
static int index_file(const char *dir, size_t n)
{
	int fd = nameless_file(dir, "ttv-index");
	/* the room is taken now: a full disk later would be a SIGBUS */
	if (fd >= 0 && posix_fallocate(fd, 0, (off_t)n)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int cache_file(size_t n)
{
	const char *tmp = getenv("TMPDIR");
	struct buf dir = {0};
	int fd = -1;
	if (cache_dir(&dir))
		fd = index_file(dir.p, n);
	if (fd < 0 && tmp && *tmp == '/')
		fd = index_file(tmp, n);
	if (fd < 0)
		fd = index_file("/tmp", n);
	buf_free(&dir);
	return fd;
}

/* Move b's array into a file of n bytes, its first `keep` bytes copied;
 * false when there is no file to be had. */
static bool to_file(struct bigmem *b, size_t n, size_t keep)
{
	int fd = cache_file(n);
	if (fd < 0)
		return false;
	void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (q == MAP_FAILED) {
		close(fd);
		return false;
	}
	if (b->p) {
		memcpy(q, b->p, MIN(keep, b->bytes)); /* (not the spare room: it would be written out) */
		munmap(b->p, b->bytes);
	}
	count(b, -(int64_t)b->bytes);
	*b = (struct bigmem){q, n, fd + 1, false};
	count(b, (int64_t)n);
	return true;
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
	*b = (struct bigmem){p, bytes, 0, true}; /* (counted nowhere: its pages are the saved file's) */
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
		else if (to_file(b, n, need * size)) {
			*cap = n / size;
			return b->p;
		}
	}
	if (b->fd && (posix_fallocate(b->fd - 1, 0, (off_t)n) || ftruncate(b->fd - 1, (off_t)n)))
		oom(n); /* the disk is full: as out of memory */
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
