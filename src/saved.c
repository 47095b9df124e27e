#include "src/saved.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/util.h"

#define ID_SPAN 4096u /* a page at each end: a fleet of 256 files reads 2 MB to know them, not 32 */
#define MAGIC "ttv-idx\n"
#define VERSION 8 /* 2: the meta hashed with hash_big; 3: parts (strings, gzip inputs); 4: an example event per type;
		   5: the events' pool of each source's part; 6: each lane's part; 7: each lane's last begin or end;
		   8: each block's lanes */
#define BYTE_ORDER_MARK 0x0102030405060708ull
#define DEFAULT_LIMIT (2ull << 30)

/* The file's first bytes. */
struct header {
	char magic[8];
	uint64_t version, order, key;
	uint64_t nmeta, meta_hash; /* meta follows the header */
	uint64_t nparts;
	struct {
		uint64_t off, n; /* off: a multiple of the page size */
	} part[SAVED_MAX_PARTS];
};

static uint64_t limit = DEFAULT_LIMIT;

void saved_set_limit(uint64_t bytes) { limit = bytes; }
uint64_t saved_limit(void) { return limit; }

/* A hash of bytes [0, size) of fd: of their first and last ID_SPAN (read,
 * not mapped: a gzip file's own bytes are not). */
static bool ends_hash(int fd, uint64_t size, uint64_t *hash)
{
	uint64_t head = MIN(size, ID_SPAN), tail = MIN(size - head, ID_SPAN);
	uint8_t b[2 * ID_SPAN];
	bool ok = pread(fd, b, head, 0) == (ssize_t)head &&
		  (!tail || pread(fd, b + ID_SPAN, tail, (off_t)(size - tail)) == (ssize_t)tail); /* (a small file: one read) */
	*hash = hash_bytes(b, head) ^ hash_bytes(b + ID_SPAN, tail) * 31;
	return ok;
}

/* (of fd, whose stat is st) */
static bool id_of(int fd, const struct stat *st, struct file_id *id)
{
	if (!S_ISREG(st->st_mode))
		return false;
	uint64_t size = (uint64_t)st->st_size;
	*id = (struct file_id){(uint64_t)st->st_dev, (uint64_t)st->st_ino, size,
			       (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec, 0};
	return ends_hash(fd, size, &id->hash);
}

bool file_id_of(int fd, uint64_t size, struct file_id *id)
{
	struct stat st;
	return !fstat(fd, &st) && (uint64_t)st.st_size == size && id_of(fd, &st, id);
}

enum file_fate file_fate(const struct file_id *then, int fd)
{
	struct stat st;
	struct file_id now;
	uint64_t hash;
	if (fstat(fd, &st) || !id_of(fd, &st, &now) || now.dev != then->dev || now.ino != then->ino)
		return FILE_OTHER;
	if (!memcmp(&now, then, sizeof now))
		return FILE_SAME;
	return now.size > then->size && ends_hash(fd, then->size, &hash) && hash == then->hash ? FILE_GREW : FILE_OTHER;
}

static void index_path(struct buf *b, uint64_t key)
{
	buf_printf(b, "/index-%016llx", (unsigned long long)key);
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* The index in fd used now: its time from the fine clock, which the
 * kernel's own file times (a tick of a few ms) are not, so that an index
 * used just after another is newer than it when the directory is pruned. */
static void mark_used(int fd)
{
	struct timespec now[2];
	clock_gettime(CLOCK_REALTIME, &now[0]);
	now[1] = now[0];
	futimens(fd, now);
}

bool saved_open(uint64_t key, struct saved *s)
{
	struct buf path = {0};
	*s = (struct saved){.fd = -1};
	if (!limit || !cache_dir(&path)) {
		buf_free(&path);
		return false;
	}
	index_path(&path, key);
	s->fd = open(path.p, O_RDONLY | O_CLOEXEC);
	buf_free(&path);
	struct stat st;
	struct header h;
	if (s->fd < 0 || fstat(s->fd, &st) || pread(s->fd, &h, sizeof h, 0) != sizeof h)
		goto fail;
	uint64_t size = (uint64_t)st.st_size;
	if (memcmp(h.magic, MAGIC, 8) || h.version != VERSION || h.order != BYTE_ORDER_MARK || h.key != key ||
	    h.nmeta > size - sizeof h || h.nparts > SAVED_MAX_PARTS)
		goto fail;
	s->nparts = h.nparts;
	for (unsigned i = 0; i < h.nparts; i++) {
		if (h.part[i].off % page_size() || h.part[i].off < sizeof h + h.nmeta || h.part[i].off > size ||
		    h.part[i].n > size - h.part[i].off)
			goto fail;
		s->part_off[i] = h.part[i].off;
		s->npart[i] = h.part[i].n;
	}
	s->maplen = sizeof h + h.nmeta;
	s->map = mmap(NULL, s->maplen, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		goto fail;
	}
	const uint8_t *meta = (const uint8_t *)s->map + sizeof h;
	if (hash_big(meta, h.nmeta) != h.meta_hash)
		goto fail;
	s->meta = (struct blob){meta, meta + h.nmeta, false};
	mark_used(s->fd); /* the last to go when the directory is pruned */
	return true;
fail:
	saved_close(s);
	return false;
}

bool saved_map_part(struct saved *s, unsigned i, struct bigmem *part)
{
	*part = (struct bigmem){0};
	if (i >= s->nparts)
		return false;
	size_t page = page_size(), bytes = (s->npart[i] + page - 1) / page * page;
	return !bytes || bigmem_map_saved(part, s->fd, s->part_off[i], bytes);
}

void saved_close(struct saved *s)
{
	if (s->map)
		munmap(s->map, s->maplen);
	if (s->fd >= 0)
		close(s->fd);
	*s = (struct saved){.fd = -1};
}

void saved_forget(uint64_t key)
{
	struct buf path = {0};
	if (cache_dir(&path)) {
		index_path(&path, key);
		unlink(path.p);
	}
	buf_free(&path);
}

#define WRITE_PIECE (8u << 20) /* between looks at *stop */

static bool write_all(int fd, const void *p, size_t n, const atomic_bool *stop)
{
	const uint8_t *q = p;
	while (n) {
		if (stop && atomic_load(stop))
			return false;
		ssize_t w = write(fd, q, MIN(n, WRITE_PIECE));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		q += w;
		n -= (size_t)w;
	}
	return true;
}

static bool write_index(int fd, uint64_t key, const struct buf *meta, const struct saved_part *part, size_t nparts,
			const atomic_bool *stop)
{
	size_t page = page_size();
	struct header h = {.version = VERSION, .order = BYTE_ORDER_MARK, .key = key, .nmeta = meta->len,
			   .meta_hash = hash_big(meta->p, meta->len), .nparts = nparts};
	memcpy(h.magic, MAGIC, 8);
	/* parts are mapped in whole pages: the file holds their last ones whole */
	uint64_t end = (sizeof h + meta->len + page - 1) / page * page;
	for (size_t i = 0; i < nparts; i++) {
		h.part[i].off = end;
		h.part[i].n = part[i].n;
		end += (part[i].n + page - 1) / page * page;
	}
	bool ok = write_all(fd, &h, sizeof h, stop) && write_all(fd, meta->p, meta->len, stop);
	for (size_t i = 0; ok && i < nparts; i++) {
		ok = lseek(fd, (off_t)h.part[i].off, SEEK_SET) == (off_t)h.part[i].off;
		if (!part[i].npieces)
			ok = ok && write_all(fd, part[i].p, part[i].n, stop);
		for (size_t k = 0; ok && k < part[i].npieces; k++)
			ok = write_all(fd, part[i].piece[k].p, part[i].piece[k].n, stop);
	}
	return ok && ftruncate(fd, (off_t)end) == 0;
}

/* A saved index in the directory: its name, size and last use. */
struct entry {
	char *name;
	uint64_t bytes;
	struct timespec used;
};

static int by_use(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	if (a->used.tv_sec != b->used.tv_sec)
		return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
	return (a->used.tv_nsec > b->used.tv_nsec) - (a->used.tv_nsec < b->used.tv_nsec);
}

/* Remove the least recently used indexes until the rest fit the limit. */
static void prune(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	for (struct dirent *de; (de = readdir(d));) {
		struct stat st;
		if (strncmp(de->d_name, "index-", 6) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		xgrow(&e, &cap, n + 1, sizeof *e);
		e[n++] = (struct entry){xstrdup(de->d_name), (uint64_t)st.st_size, st.st_mtim};
		total += (uint64_t)st.st_size;
	}
	qsort(e, n, sizeof *e, by_use);
	for (size_t i = 0; i < n; i++) {
		if (total > limit && !unlinkat(dirfd(d), e[i].name, 0))
			total -= e[i].bytes;
		free(e[i].name);
	}
	free(e);
	closedir(d);
}

bool saved_write(uint64_t key, const struct buf *meta, const struct saved_part *part, size_t nparts,
		 const atomic_bool *stop, char **err)
{
	struct buf dir = {0}, tmp = {0}, path = {0};
	bool ok = false;
	uint64_t bytes = sizeof(struct header) + meta->len + (nparts + 1) * page_size();
	for (size_t i = 0; i < nparts; i++)
		bytes += part[i].n;
	if (!limit || nparts > SAVED_MAX_PARTS || bytes > limit || !cache_dir(&dir))
		goto out;
	buf_printf(&tmp, "%s/index-%016llx.XXXXXX", dir.p, (unsigned long long)key);
	buf_printf(&path, "%s", dir.p);
	index_path(&path, key);
	int fd = mkostemp(tmp.p, O_CLOEXEC), e = errno;
	if (fd >= 0) {
		ok = write_index(fd, key, meta, part, nparts, stop) || (e = errno, false);
		if (ok)
			mark_used(fd);
		close(fd);
		ok = ok && (!rename(tmp.p, path.p) || (e = errno, false));
		if (!ok)
			unlink(tmp.p);
		else
			prune(dir.p);
	}
	if (!ok && err && !(stop && atomic_load(stop))) {
		struct buf b = {0};
		buf_printf(&b, "cannot write it in %s: %s", dir.p, strerror(e));
		*err = b.p;
	}
out:
	buf_free(&dir);
	buf_free(&tmp);
	buf_free(&path);
	return ok;
}
