/* Inputs: one byte stream each (a file, standard input, or the contents of
 * a gzip file).  All trace I/O lives in input.c and trace.c; decoders only see
 * bytes.
 *
 * A regular file is mapped read-only.  Gzip files and pipes are decoded or
 * copied into an unlinked temporary file that is mapped instead, so every
 * input offers the same thing: bytes [0, size) at `map`, which stay
 * addressable for lazy decoding.  The mapping may move when the input grows:
 * keep offsets, never pointers. */
#ifndef TTV_INPUT_H
#define TTV_INPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct decoder;
struct source;
struct remote_file;
struct gz;
struct gz_thread;

struct input {
	uint32_t id;
	char *path;          /* for messages */
	int fd;              /* the trace itself, opened O_RDONLY; -1 once closed */
	struct remote_file *rf; /* or the trace on another machine (src/remote.h) */
	bool is_stdin, gzip; /* gzip: detected by magic, never by name */
	bool regular;        /* fd is a regular file */
	const uint8_t *map;  /* bytes [0, size) */
	uint64_t size;
	bool eof;            /* everything written so far has been read */

	/* spool: decoded or piped bytes land in an unlinked temporary file
	 * (or memory: src/input.c's spool_place) */
	int spool;
	int place;
	size_t maplen;
	struct gz *gz;   /* inflating (src/gzip.h) */
	struct gz_thread *gz_thread; /* a gzip file: inflating ahead of the reader */
	uint64_t raw;    /* raw bytes read from fd (or the far side) */
	char *zerror;    /* a gzip error, reported once by the loader */
	char *lost;      /* a remote file: its connection is lost (why), until bytes come again */
	bool zreported;
	bool zpartial;   /* inside a gzip member: cut short if no more bytes come */
	bool sniffed;    /* a pipe's first bytes were checked for the gzip magic */
	uint8_t head[2];

	/* identity of the file, to notice replacement and truncation */
	uint64_t dev, ino;

	/* decoding, owned by the loader */
	const struct decoder *dec;
	void *dstate;
	struct source *src;
	uint64_t consumed; /* bytes the decoder has consumed */
	int64_t last_ts;   /* the last timed event it gave (where damage after it goes on the timeline) */
	bool has_last_ts;
	uint64_t feed;     /* bytes to hand it next: small at first, so the first screen comes soon */
	bool quiet;        /* following: read to the end, nothing new since */
	bool gone;         /* following: its path no longer names it */
	bool missed;       /* following: its path named nothing at the last look (gone at the next) */
	bool replaced;     /* following: another input reads the file now at its path */
	int wd;            /* inotify watch on it, -1 when none */
	bool done;         /* the decoder stopped, or consumed everything of a final input */
	/* scans: [warm_lo, warm_hi) was mapped in ahead of one and not let go
	 * since (a hint shared by the scanning threads: a scan that takes up
	 * this input again need not map it in again) */
	_Atomic uint64_t warm_lo, warm_hi;
};

/* Open a path ("-" = standard input, "tcp:HOST:PORT" = a stream served on
 * a TCP port, as HawkTracer programs do, HOST:PATH or ssh://... = a file on
 * another machine: src/remote.h).  On failure returns NULL and sets
 * *err to a message (caller frees). */
struct input *input_open(const char *path, char **err);
void input_close(struct input *in);

/* What happened to the file since we opened it (follow mode). */
enum input_change {
	INPUT_SAME,      /* nothing, or it grew (input_refresh reads the growth) */
	INPUT_TRUNCATED, /* same file, now shorter than what was read */
	INPUT_REPLACED,  /* the path names another file now (rotation) */
	INPUT_GONE,      /* the path is gone (deleted, or renamed away) */
};
enum input_change input_check(struct input *in);
/* A file (here or on another machine) that may grow while it is followed:
 * not a pipe or socket, whose end is final. */
bool input_may_grow(const struct input *in);
/* How far it has been read, for progress: of a gzip or remote file, its
 * own bytes (decoded as far as decoding went), else the bytes there are. */
void input_progress(const struct input *in, uint64_t *done, uint64_t *total);
/* The identity of the file at a path (dev is 0 for a remote one); false
 * when there is none. */
bool path_identity(const char *path, uint64_t *dev, uint64_t *ino);
/* The file the input reads was renamed to path. */
void input_rename(struct input *in, const char *path);
/* The descriptor to poll for more of a stream (a pipe, a socket, the
 * connection to the far side); -1 for a file. */
int input_poll_fd(const struct input *in);
/* Start reading a truncated file again from its first byte. */
void input_restart(struct input *in);

/* Read what has arrived: growth of a file, more of a gzip stream or pipe.
 * At most about `budget` new bytes; when `wait`, block for a pipe.
 * Returns true when size grew. */
bool input_refresh(struct input *in, size_t budget, bool wait);

/* The bytes [off, off+len) are not needed for now: let the kernel drop them
 * from this process (a mapped file would otherwise count in full towards
 * its memory).  They are read again, transparently, when next used. */
void input_release(struct input *in, uint64_t off, uint64_t len);

/* The bytes [off, off+len) are about to be read in order: map them in one
 * go rather than one page fault at a time. */
void input_prefetch(struct input *in, uint64_t off, uint64_t len);

/* Copy the bytes [off, off+n) of a mapped regular file into buf, in order
 * to read them once from start to end (the loader's pass): cheaper than
 * mapping them, because pages mapped and released again cost the kernel
 * page-table work and, with other threads running, every core's TLB.
 * False when the input is not such a file (a spooled pipe, a gzip file's
 * contents) or the read falls short (then use the mapping). */
bool input_copy(const struct input *in, uint64_t off, void *buf, size_t n);

/* A long scan is reading around offset off (mostly forwards): keep a
 * window of the file mapped ahead of it and let go of what is behind. */
void input_scan(struct input *in, uint64_t off);

/* A gzip file's contents read back from a saved index (src/saved.h),
 * mapped in `contents` (taken over): they stand for its spool, and nothing
 * more is read from the file. */
struct bigmem;
void input_adopt(struct input *in, struct bigmem *contents, uint64_t size);

/* Bytes at offset off (NULL when out of range); *avail = bytes from there. */
const uint8_t *input_bytes(const struct input *in, uint64_t off, uint64_t *avail);

/* The directory a path is in, as a path (the host of a remote one kept):
 * "a/b" -> "a", "b" -> ".", "/b" -> "/", "far:b" -> "far:.".  Caller frees. */
char *path_dir(const char *path);
/* What is at a path (directories are listed here, not by decoders). */
enum path_kind { PATH_NONE, PATH_FILE, PATH_DIR, PATH_OTHER };
enum path_kind path_kind(const char *path);
/* The entries of a directory but . and .. (names; free with dir_free), and
 * what each one is; 0 when it cannot be read. */
struct dir_entry {
	char *name;
	enum path_kind kind;
};
size_t dir_list(const char *dir, struct dir_entry **out);
void dir_free(struct dir_entry *d, size_t n);
/* Why a directory could not be listed (caller frees); NULL when it can. */
char *dir_error(const char *dir);
/* The first bytes of a regular file (decompressed when it is gzip), for a
 * directory decoder telling its files by content: how many were read
 * into buf (at most n; 0 when none could be). */
size_t file_head(const char *path, void *buf, size_t n);

#endif
