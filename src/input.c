#include "src/input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "src/bigmem.h"
#include "src/gzip.h"
#include "src/remote.h"
#include "src/util.h"

#define SPOOL_MIN (1u << 20)
#define RAW_CHUNK (256u << 10)
#define AHEAD_LEAST (1u << 20) /* a decoder short of this many bytes waits for more */

static char *msg(const char *fmt, ...) PRINTF_LIKE(1, 2);
static char *msg(const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return b.p;
}

/* $TMPDIR, else /tmp. */
static const char *spool_dir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

/* Where a spool may be, in turn: an unlinked file in $TMPDIR; memory, as
 * far as the --memory budget goes; an unlinked file in ttv's cache
 * directory, then in /tmp.  It moves on when where it is has no room. */
enum spool_place { SPOOL_TMPDIR, SPOOL_MEMORY, SPOOL_CACHE, SPOOL_TMP, SPOOL_PLACES };
static uint64_t spools_in_memory; /* bytes */

/* The directory of a place (NULL: memory, or none). */
static const char *place_dir(enum spool_place p, struct buf *dir)
{
	buf_reset(dir);
	if (p == SPOOL_TMPDIR)
		buf_adds(dir, spool_dir());
	else if (p == SPOOL_CACHE && !cache_dir(dir))
		buf_reset(dir);
	else if (p == SPOOL_TMP && strcmp(spool_dir(), "/tmp"))
		buf_adds(dir, "/tmp");
	return dir->len ? dir->p : NULL;
}

static int place_open(enum spool_place p)
{
	if (p == SPOOL_MEMORY)
		return memfd_create("ttv-spool", MFD_CLOEXEC);
	struct buf dir = {0};
	int fd = place_dir(p, &dir) ? nameless_file(dir.p, "ttv-spool") : -1;
	buf_free(&dir);
	return fd;
}

/* Room for bytes [from, to) of a spool at p: in a file, the blocks
 * themselves, not a sparse size (a write into the mapping that finds the
 * disk full would raise SIGBUS, and be taken for a trace cut short); in
 * memory, within the budget.  A full directory is noted for --info. */
static bool spool_room(int fd, enum spool_place p, uint64_t from, uint64_t to)
{
	if (p == SPOOL_MEMORY) {
		uint64_t mem, files;
		bigmem_usage(&mem, &files);
		uint64_t others = __atomic_load_n(&spools_in_memory, __ATOMIC_RELAXED);
		if (mem + others + (to - from) > bigmem_budget() || ftruncate(fd, (off_t)to))
			return false;
		__atomic_add_fetch(&spools_in_memory, to - from, __ATOMIC_RELAXED);
		return true;
	}
	int e = posix_fallocate(fd, (off_t)from, (off_t)(to - from));
	if (e == ENOSPC || e == EDQUOT || e == EFBIG) {
		struct buf dir = {0};
		bigmem_note_full(place_dir(p, &dir));
		buf_free(&dir);
	}
	return !e;
}

/* Room for `need` bytes of the spool where it is (doubling; when there is
 * not that much, just what is needed). */
static bool spool_grow(struct input *in, uint64_t need)
{
	size_t cap = in->maplen ? in->maplen : SPOOL_MIN;
	while (cap < need)
		cap = cap < (1u << 30) ? cap * 2 : cap + (1u << 30);
	if (!spool_room(in->spool, in->place, in->maplen, cap)) {
		cap = (need + 4095) & ~(uint64_t)4095;
		if (!spool_room(in->spool, in->place, in->maplen, cap))
			return false;
	}
	void *p = in->map ? mremap((void *)in->map, in->maplen, cap, MREMAP_MAYMOVE)
			  : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, in->spool, 0);
	if (p == MAP_FAILED)
		return false;
	in->map = p;
	in->maplen = cap;
	return true;
}

static void spool_drop(struct input *in)
{
	if (in->map)
		munmap((void *)in->map, in->maplen);
	if (in->place == SPOOL_MEMORY)
		__atomic_sub_fetch(&spools_in_memory, in->maplen, __ATOMIC_RELAXED);
	if (in->spool >= 0)
		close(in->spool);
	in->map = NULL;
	in->maplen = 0;
	in->spool = -1;
}

/* Where a spool could be and is full, for messages. */
static char *spool_full(void)
{
	struct buf b = {0}, dir = {0};
	for (int p = 0; p < SPOOL_PLACES; p++) {
		const char *d = place_dir(p, &dir);
		if (p == SPOOL_MEMORY || d)
			buf_printf(&b, "%s%s", b.len ? ", " : "full: ", p == SPOOL_MEMORY ? "memory within --memory" : d);
	}
	buf_free(&dir);
	return b.p;
}

/* The spool moved to place p, with room for `need` bytes and what it
 * held copied; false (nothing changed) when p has no room. */
static bool spool_move(struct input *in, enum spool_place p, uint64_t need)
{
	struct input to = {.spool = place_open(p), .place = p};
	if (to.spool < 0)
		return false;
	if (!spool_grow(&to, MAX(need, SPOOL_MIN))) {
		spool_drop(&to);
		return false;
	}
	if (in->size)
		memcpy((void *)to.map, in->map, in->size);
	spool_drop(in);
	in->spool = to.spool;
	in->place = p;
	in->map = to.map;
	in->maplen = to.maplen;
	return true;
}

/* Room for `need` bytes in the spool mapping: where it is, else in the
 * next place that has it. */
static bool spool_reserve(struct input *in, uint64_t need)
{
	if (need <= in->maplen)
		return true;
	if (in->spool >= 0 && spool_grow(in, need))
		return true;
	for (int p = in->spool >= 0 ? in->place + 1 : 0; p < SPOOL_PLACES; p++)
		if (spool_move(in, p, need))
			return true;
	return false;
}

/* A spool: somewhere with room (*err: none has). */
static bool spool_start(struct input *in, char **err)
{
	in->spool = -1;
	if (spool_reserve(in, SPOOL_MIN))
		return true;
	char *full = spool_full();
	*err = msg("no room for a temporary copy; %s", full);
	free(full);
	return false;
}

static bool map_file(struct input *in, uint64_t size)
{
	if (size == in->size)
		return true;
	if (size == 0) {
		if (in->map)
			munmap((void *)in->map, in->maplen);
		in->map = NULL;
		in->maplen = 0;
		in->size = 0;
		return true;
	}
	void *p = in->map ? mremap((void *)in->map, in->maplen, size, MREMAP_MAYMOVE)
			  : mmap(NULL, size, PROT_READ, MAP_SHARED, in->fd, 0);
	if (p == MAP_FAILED)
		return false;
	in->map = p;
	in->maplen = size;
	in->size = size;
	return true;
}

/* Connect to tcp:HOST:PORT (waiting at most timeout_ms); -1 and *err on failure. */
static int tcp_connect(const char *spec, int timeout_ms, char **err)
{
	const char *hp = spec + 4, *colon = strrchr(hp, ':');
	if (!colon || colon == hp || !colon[1]) {
		*err = msg("want tcp:HOST:PORT");
		return -1;
	}
	char host[256];
	snprintf(host, sizeof host, "%.*s", (int)MIN((size_t)(colon - hp), sizeof host - 1), hp);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') { /* [::1] */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	int e = getaddrinfo(host, colon + 1, &hints, &res);
	if (e) {
		*err = msg("cannot resolve %s: %s", spec + 4, gai_strerror(e));
		return -1;
	}
	int fd = -1, why = 0;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno == EINPROGRESS) {
			struct pollfd p = {fd, POLLOUT, 0};
			socklen_t len = sizeof why;
			if (poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &why, &len) == 0 && !why)
				break;
			why = why ? why : ETIMEDOUT;
		} else if (errno != EINPROGRESS && errno) {
			why = errno;
		} else {
			break;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		*err = msg("cannot connect to %s: %s", spec + 4, strerror(why ? why : ECONNREFUSED));
	return fd;
}

struct input *input_open(const char *path, char **err)
{
	struct input *in = xcalloc(1, sizeof *in);
	in->path = xstrdup(path);
	in->spool = -1;
	in->wd = -1;
	if (!strncmp(path, "tcp:", 4)) {
		in->fd = tcp_connect(path, 2000, err);
		if (in->fd < 0)
			goto fail;
		if (!spool_start(in, err))
			goto fail;
		return in;
	}
	if (remote_is(path)) {
		in->fd = -1;
		in->rf = remote_open(path, err);
		if (!in->rf)
			goto fail;
		uint64_t size;
		remote_identity(in->rf, &in->ino, &size);
		if (!spool_start(in, err))
			goto fail;
		return in;
	}
	if (!strcmp(path, "-")) {
		in->is_stdin = true;
		in->fd = dup(0);
		if (in->fd < 0) {
			*err = msg("cannot read standard input: %s", strerror(errno));
			goto fail;
		}
		fcntl(in->fd, F_SETFD, FD_CLOEXEC);
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (in->fd < 0) {
			*err = msg("cannot open: %s", strerror(errno));
			goto fail;
		}
	}
	struct stat st;
	if (fstat(in->fd, &st) != 0) {
		*err = msg("cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		*err = msg("is a directory");
		goto fail;
	}
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	in->regular = S_ISREG(st.st_mode);
	if (in->regular) {
		uint8_t magic[2];
		in->gzip = pread(in->fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	}
	if (in->regular && !in->gzip) {
		if (!map_file(in, (uint64_t)st.st_size)) {
			*err = msg("cannot map: %s", strerror(errno));
			goto fail;
		}
		in->eof = true;
		return in;
	}
	if (!spool_start(in, err))
		goto fail;
	return in;
fail:
	input_close(in);
	return NULL;
}

static bool start_inflate(struct input *in)
{
	in->gz = xcalloc(1, sizeof *in->gz);
	if (gz_init(in->gz))
		return true;
	in->zerror = xstrdup(in->gz->err);
	return false;
}

/* Inflating ends: its thread, then its state. */
static void gz_end(struct input *in)
{
	gz_thread_end(in->gz_thread);
	in->gz_thread = NULL;
	if (in->gz)
		gz_free(in->gz);
	free(in->gz);
	in->gz = NULL;
}

void input_close(struct input *in)
{
	if (!in)
		return;
	if (in->spool >= 0)
		spool_drop(in);
	else if (in->map)
		munmap((void *)in->map, in->maplen);
	if (in->fd >= 0)
		close(in->fd);
	remote_close(in->rf);
	gz_end(in);
	free(in->zerror);
	free(in->lost);
	free(in->path);
	free(in);
}

/* Append raw bytes to the spool: as they are, or through inflate. */
static bool spool_raw(struct input *in, const uint8_t *p, size_t n)
{
	if (!in->gzip) {
		if (!spool_reserve(in, in->size + n))
			return false;
		memcpy((uint8_t *)in->map + in->size, p, n);
		in->size += n;
		return true;
	}
	struct gz *g = in->gz;
	size_t off = 0;
	while (off < n || g->partial) {
		if (!spool_reserve(in, in->size + RAW_CHUNK))
			return false;
		size_t used, made = gz_inflate(g, p + off, n - off, &used, (uint8_t *)in->map + in->size, in->maplen - in->size);
		in->size += made;
		off += used;
		if (g->err) {
			in->zerror = xstrdup(g->err);
			break;
		}
		if (!made && !used)
			break; /* needs more input */
	}
	in->zpartial = g->partial;
	return true;
}

/* More raw bytes, from the file, pipe or socket, or the far side: > 0
 * bytes; 0 at the end (for now; a read error ends a pipe too); -1 when none
 * have come (!wait), or when the far side's connection is lost (in->lost
 * says why). */
static ssize_t read_raw(struct input *in, void *buf, size_t n, bool wait)
{
	if (in->rf) {
		char *err = NULL;
		ssize_t r = remote_read(in->rf, buf, n, wait, &err);
		if (err || r >= 0) {
			free(in->lost);
			in->lost = err;
		}
		return r;
	}
	for (;;) {
		if (!in->regular && !wait) {
			struct pollfd pfd = {in->fd, POLLIN, 0};
			if (poll(&pfd, 1, 0) <= 0)
				return -1;
		}
		ssize_t r = read(in->fd, buf, n);
		if (r >= 0 || (errno != EINTR && errno != EAGAIN))
			return r < 0 ? 0 : r;
	}
}

static void no_room(struct input *in)
{
	char *full = spool_full();
	in->zerror = msg("no room for more of its temporary copy after %llu bytes; %s", (unsigned long long)in->size, full);
	free(full);
}

/* Its thread has read to the end of the file (as it is now) or met
 * damage: what it knows is the input's. */
static void ahead_ended(struct input *in)
{
	gz_thread_end(in->gz_thread);
	in->gz_thread = NULL;
	in->raw = in->gz->raw;
	lseek(in->fd, (off_t)in->raw, SEEK_SET); /* (for read_raw, should it read on here) */
	in->zpartial = in->gz->partial;
	if (in->gz->err && !in->zerror)
		in->zerror = xstrdup(in->gz->err);
	in->eof = true;
}

/* A gzip file: inflated on a thread of its own, a few pieces ahead, and
 * the pieces spooled here as they come; the reader waits for one only when
 * its decoder is short of bytes.  False when no thread is to be had (then
 * it is inflated here, as a pipe is). */
static bool refresh_ahead(struct input *in, size_t budget, bool *grew)
{
	uint64_t before = in->size;
	*grew = false;
	if (!in->gz_thread) {
		struct stat st;
		if (in->zerror || fstat(in->fd, &st) != 0 || (uint64_t)st.st_size <= in->gz->raw) {
			in->eof = true; /* nothing more, for now */
			return true;
		}
		in->gz_thread = gz_thread_start(in->fd, in->gz);
		if (!in->gz_thread)
			return false;
	}
	in->eof = false;
	while (in->size - before < budget) {
		const uint8_t *p;
		size_t n;
		uint64_t raw;
		bool ended, short_of = in->size - in->consumed < AHEAD_LEAST;
		if (!gz_thread_next(in->gz_thread, short_of, &p, &n, &raw, &ended)) {
			if (ended)
				ahead_ended(in);
			break;
		}
		if (!spool_reserve(in, in->size + n)) {
			no_room(in);
			gz_thread_end(in->gz_thread);
			in->gz_thread = NULL;
			in->eof = true;
			break;
		}
		memcpy((uint8_t *)in->map + in->size, p, n);
		in->size += n;
		in->raw = raw;
	}
	*grew = in->size > before;
	return true;
}

bool input_refresh(struct input *in, size_t budget, bool wait)
{
	if (in->fd < 0 && !in->rf)
		return false;
	uint64_t before = in->size;
	if (in->regular && !in->gzip) {
		struct stat st;
		if (fstat(in->fd, &st) == 0 && (uint64_t)st.st_size > in->size)
			map_file(in, (uint64_t)st.st_size);
		in->eof = true;
		return in->size > before;
	}
	if (in->gzip && !in->gz && !start_inflate(in)) {
		in->eof = true;
		return false;
	}
	bool grew;
	if (in->gzip && in->regular && refresh_ahead(in, budget, &grew))
		return grew;
	static uint8_t chunk[RAW_CHUNK];
	in->eof = false;
	while (in->size - before < budget && !in->zerror) {
		/* A pipe: read its first two bytes alone to see whether it is gzip. */
		bool sniff = !in->regular && in->raw < 2 && !in->sniffed;
		ssize_t r = read_raw(in, sniff ? in->head + in->raw : chunk, sniff ? 2 - in->raw : sizeof chunk, wait);
		if (r < 0)
			break;
		if (r == 0) {
			in->eof = true;
			if (sniff && in->raw) {
				in->sniffed = true;
				spool_raw(in, in->head, (size_t)in->raw);
			}
			break;
		}
		in->raw += (uint64_t)r;
		if (sniff) {
			if (in->raw < 2)
				continue;
			in->sniffed = true;
			in->gzip = in->head[0] == 0x1f && in->head[1] == 0x8b;
			if (in->gzip && !start_inflate(in))
				break;
			r = 2;
			memcpy(chunk, in->head, 2);
		}
		if (!spool_raw(in, chunk, (size_t)r)) {
			no_room(in);
			break;
		}
	}
	/* (a remote file whose connection is being made again is not at its end) */
	if (in->zerror || (in->lost && input_poll_fd(in) < 0))
		in->eof = true;
	return in->size > before;
}

void input_release(struct input *in, uint64_t off, uint64_t len)
{
	const uint64_t page = 4096;
	uint64_t a = (off + page - 1) & ~(page - 1), b = (off + len) & ~(page - 1);
	if (!in->map || b <= a || b > in->maplen)
		return;
	if (a < atomic_load_explicit(&in->warm_hi, memory_order_relaxed) &&
	    b > atomic_load_explicit(&in->warm_lo, memory_order_relaxed))
		atomic_store_explicit(&in->warm_hi, 0, memory_order_relaxed);
	madvise((uint8_t *)in->map + a, b - a, MADV_DONTNEED);
}

void input_prefetch(struct input *in, uint64_t off, uint64_t len)
{
	uint64_t a = off & ~4095ull, b = MIN(off + len, in->maplen);
	if (in->map && b > a)
		madvise((uint8_t *)in->map + a, b - a, MADV_POPULATE_READ); /* a hint: failure is harmless */
}

bool input_copy(const struct input *in, uint64_t off, void *buf, size_t n)
{
	if (!in->regular || in->gzip || in->spool >= 0 || in->fd < 0 || off > in->size || n > in->size - off)
		return false; /* (a gzip file's contents are not its bytes) */
	for (size_t done = 0; done < n;) {
		ssize_t r = pread(in->fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false; /* the file shrank under us: the mapping's reader reports it */
		done += (size_t)r;
	}
	return true;
}

#define SCAN_WINDOW (16u << 20)
#define SCAN_WINDOWS 8 /* per thread: regions read at once (a trace in time order reads
			* several parts of a file in turn: concatenated captures, merged streams) */

/* A thread's scan windows: each a region of one input mapped ahead of the
 * reads in it and let go behind them.  Each thread has its own, so two
 * filter threads never release what the other reads, and a scan that
 * moves between regions in turn keeps a window in each. */
static __thread struct scan_window {
	const struct input *in; /* NULL: free */
	uint64_t lo, hi, used;
} windows[SCAN_WINDOWS];
static __thread uint64_t scan_tick;

static struct scan_window *window_for(struct input *in, uint64_t off)
{
	struct scan_window *lru = &windows[0];
	for (int i = 0; i < SCAN_WINDOWS; i++) {
		struct scan_window *w = &windows[i];
		if (w->in == in && off >= w->lo && off <= w->hi + SCAN_WINDOW)
			return w;
		if (w->used < lru->used)
			lru = w;
	}
	/* the least used region gives way (its pages stay until trace_release:
	 * its input may be gone, and is only ever compared).  A scan in time
	 * order over more inputs than windows takes each up again in turn:
	 * what is still mapped ahead of off is not mapped again (the window
	 * starts at off: what is behind may be another thread's) */
	uint64_t lo = atomic_load_explicit(&in->warm_lo, memory_order_relaxed);
	uint64_t hi = atomic_load_explicit(&in->warm_hi, memory_order_relaxed);
	*lru = (struct scan_window){.in = in, .lo = off, .hi = off >= lo && off < hi ? hi : off};
	return lru;
}

void input_scan(struct input *in, uint64_t off)
{
	struct scan_window *w = window_for(in, off);
	w->used = ++scan_tick;
	if (off + SCAN_WINDOW / 2 < w->hi || (w->hi == in->size && w->hi > w->lo))
		return; /* well inside the window, or it already reaches the end */
	if (off - w->lo > SCAN_WINDOW)
		input_release(in, w->lo, off - SCAN_WINDOW - w->lo);
	w->lo = off > SCAN_WINDOW ? off - SCAN_WINDOW : 0;
	w->hi = MIN(off + 2 * (uint64_t)SCAN_WINDOW, in->size);
	input_prefetch(in, off, w->hi - off);
	atomic_store_explicit(&in->warm_lo, off, memory_order_relaxed);
	atomic_store_explicit(&in->warm_hi, w->hi, memory_order_relaxed);
}


enum input_change input_check(struct input *in)
{
	if (in->rf) { /* as the last request saw it: the checks cost no round trip */
		uint64_t ino, size;
		if (!remote_identity(in->rf, &ino, &size))
			return INPUT_GONE;
		return ino != in->ino ? INPUT_REPLACED : size < in->raw ? INPUT_TRUNCATED : INPUT_SAME;
	}
	if (in->is_stdin || in->fd < 0 || !in->regular)
		return INPUT_SAME;
	struct stat st, now;
	if (fstat(in->fd, &st) == 0 && !in->gzip && (uint64_t)st.st_size < in->size)
		return INPUT_TRUNCATED;
	if (in->gzip && fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->raw)
		return INPUT_TRUNCATED;
	if (stat(in->path, &now) != 0)
		return INPUT_GONE;
	if (now.st_dev != in->dev || now.st_ino != in->ino)
		return INPUT_REPLACED;
	return INPUT_SAME;
}

bool input_may_grow(const struct input *in) { return in->regular || in->rf; }

void input_progress(const struct input *in, uint64_t *done, uint64_t *total)
{
	uint64_t whole = 0, ino;
	struct stat st;
	if (in->rf)
		remote_identity(in->rf, &ino, &whole);
	else if (in->gzip && fstat(in->fd, &st) == 0)
		whole = (uint64_t)st.st_size;
	if (!whole || whole < in->raw || !in->size) { /* the bytes as they are */
		*done = in->consumed;
		*total = in->size;
		return;
	}
	/* the file's bytes read, as far as what came of them is decoded */
	*done = (uint64_t)((double)in->raw * (double)in->consumed / (double)in->size);
	*total = whole;
}

bool path_identity(const char *path, uint64_t *dev, uint64_t *ino)
{
	if (remote_is(path)) {
		struct remote_stat rs;
		*dev = 0;
		*ino = 0;
		if (!remote_stat(path, &rs, NULL) || rs.kind == PATH_NONE)
			return false;
		*ino = rs.ino;
		return true;
	}
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

void input_rename(struct input *in, const char *path)
{
	free(in->path);
	in->path = xstrdup(path);
	if (in->rf)
		remote_rename(in->rf, path);
}

int input_poll_fd(const struct input *in)
{
	return in->rf ? remote_fd(in->rf) : in->regular ? -1 : in->fd;
}

void input_restart(struct input *in)
{
	bool spooled = in->spool >= 0;
	if (spooled)
		spool_drop(in);
	else if (in->map)
		munmap((void *)in->map, in->maplen);
	in->map = NULL;
	atomic_store_explicit(&in->warm_hi, 0, memory_order_relaxed);
	in->maplen = 0;
	in->size = in->consumed = in->raw = 0;
	in->has_last_ts = false;
	in->eof = false;
	gz_end(in);
	free(in->zerror);
	in->zerror = NULL;
	in->zreported = in->zpartial = false;
	if (spooled) {
		if (in->rf)
			remote_rewind(in->rf);
		else
			lseek(in->fd, 0, SEEK_SET);
		spool_start(in, &in->zerror);
	}
}

void input_adopt(struct input *in, struct bigmem *contents, uint64_t size)
{
	gz_thread_end(in->gz_thread); /* (what it made is in the contents) */
	in->gz_thread = NULL;
	if (in->spool >= 0)
		spool_drop(in);
	else if (in->map)
		munmap((void *)in->map, in->maplen);
	in->map = contents->p;
	in->maplen = contents->bytes;
	in->size = MIN(size, (uint64_t)contents->bytes);
	in->eof = in->sniffed = true;
	struct stat st;
	in->raw = fstat(in->fd, &st) == 0 ? (uint64_t)st.st_size : 0; /* (all of it read, as far as --info goes) */
	*contents = (struct bigmem){0};
}

const uint8_t *input_bytes(const struct input *in, uint64_t off, uint64_t *avail)
{
	if (off > in->size || !in->map) {
		*avail = 0;
		return NULL;
	}
	*avail = in->size - off;
	return in->map + off;
}

char *path_dir(const char *path)
{
	size_t host = remote_is(path) ? remote_host_len(path) : 0; /* (it stays) */
	const char *s = strrchr(path + host, '/');
	struct buf b = {0};
	if (!s)
		buf_printf(&b, "%.*s.", (int)host, path);
	else
		buf_add(&b, path, s == path + host ? host + 1 : (size_t)(s - path));
	return b.p;
}

enum path_kind path_kind(const char *path)
{
	struct remote_stat rs;
	if (remote_is(path))
		return remote_stat(path, &rs, NULL) ? rs.kind : PATH_NONE;
	struct stat st;
	if (stat(path, &st) != 0)
		return PATH_NONE;
	return S_ISDIR(st.st_mode) ? PATH_DIR : S_ISREG(st.st_mode) ? PATH_FILE : PATH_OTHER;
}

size_t dir_list(const char *dir, struct dir_entry **out)
{
	if (remote_is(dir))
		return remote_list(dir, out);
	*out = NULL;
	/* (read as the kernel gives it, not by opendir: that asks for the
	 * directory's stat too, a call more each of a fleet's 516) */
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0, cap = 0;
	struct buf full = {0};
	_Alignas(struct dirent64) char ents[32768];
	ssize_t got;
	while ((got = getdents64(fd, ents, sizeof ents)) > 0) {
		for (ssize_t at = 0; at < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(ents + at);
			at += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			/* (what the directory says, when it says: one stat less per entry) */
			enum path_kind k = de->d_type == DT_DIR ? PATH_DIR : de->d_type == DT_REG ? PATH_FILE : PATH_NONE;
			if (de->d_type != DT_DIR && de->d_type != DT_REG) { /* unknown, a link, or other */
				buf_reset(&full);
				buf_printf(&full, "%s/%s", dir, de->d_name);
				k = path_kind(full.p);
			}
			xgrow(out, &cap, n + 1, sizeof **out);
			(*out)[n++] = (struct dir_entry){xstrdup(de->d_name), k};
		}
	}
	buf_free(&full);
	close(fd);
	return n;
}

char *dir_error(const char *dir)
{
	if (remote_is(dir))
		return remote_list_error(dir);
	DIR *d = opendir(dir);
	if (d)
		closedir(d);
	return d ? NULL : xstrdup(strerror(errno));
}

/* The first n bytes of a regular file, as they are: how many (-1: none). */
static ssize_t raw_head(const char *path, void *buf, size_t n)
{
	if (remote_is(path))
		return (ssize_t)remote_head(path, buf, n);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, buf, n, 0) : -1;
	close(fd);
	return got;
}

size_t file_head(const char *path, void *buf, size_t n)
{
	uint8_t raw[16384];
	ssize_t got = raw_head(path, raw, sizeof raw);
	if (got <= 0)
		return 0;
	if (got < 2 || raw[0] != 0x1f || raw[1] != 0x8b) {
		size_t k = MIN((size_t)got, n);
		memcpy(buf, raw, k);
		return k;
	}
	z_stream z = {.next_in = raw, .avail_in = (uInt)got, .next_out = buf, .avail_out = (uInt)n};
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return 0;
	inflate(&z, Z_SYNC_FLUSH); /* as far as these bytes go */
	size_t k = n - z.avail_out;
	inflateEnd(&z);
	return k;
}

void dir_free(struct dir_entry *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}
