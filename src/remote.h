/* Remote paths: HOST:PATH and ssh://[USER@]HOST[:PORT]/PATH, read through
 * the user's own ssh client (`ssh`, or the shell command in $TTV_SSH).
 *
 * One ssh connection per host runs a small POSIX shell loop on the far
 * side that answers requests one at a time: what a path is, a directory's
 * entries, and a range of a file's bytes (sent through `gzip -1`).
 * Nothing is written there.  input.c reads through this; the loader asks
 * only remote_is(). */
#ifndef TTV_REMOTE_H
#define TTV_REMOTE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/input.h"

/* Is this path on another machine?  As for scp: a colon before any slash
 * (so ./a:b and /a:b are local), or ssh://; tcp: is a stream, not a host. */
bool remote_is(const char *path);

/* How much of a remote path names the host: "HOST:" or "ssh://HOST". */
size_t remote_host_len(const char *path);

struct remote_stat {
	enum path_kind kind;
	bool readable;
	uint64_t ino, size; /* files */
};
/* What is at a remote path.  False (and *err, when err is not NULL) when
 * the host cannot be reached. */
bool remote_stat(const char *path, struct remote_stat *st, char **err);
/* A remote directory's entries (as dir_list).  Only a directory's first
 * listing is waited for: listed again, it is the listing the last call
 * asked for as far as it has come (else the one before), and another is
 * asked for, so that following never waits for the far side. */
size_t remote_list(const char *dir, struct dir_entry **out);
/* Why a remote directory has no listing yet (caller frees); NULL: it has. */
char *remote_list_error(const char *dir);

/* The first n bytes of a remote file (fewer when it is shorter, 0 when it
 * cannot be read). */
size_t remote_head(const char *path, void *buf, size_t n);

/* Reading a remote file's bytes in order, from offset 0. */
struct remote_file;
struct remote_file *remote_open(const char *path, char **err);
/* The next bytes of the file: > 0 bytes copied to buf; 0 at its end (for
 * now: it may grow, and the next call asks again); -1 with errno EAGAIN
 * when none have come yet and !wait, or with *err set when the connection
 * is lost.  A lost connection that had worked is made again, without
 * questions, by the calls after it (at most every 2 s). */
ssize_t remote_read(struct remote_file *f, void *buf, size_t n, bool wait, char **err);
/* The file at its path as the last request saw it (following notices
 * truncation and rotation by them): false when the path named no file
 * that could be read.  Bytes are only ever read from the file first
 * opened (its inode). */
bool remote_identity(const struct remote_file *f, uint64_t *ino, uint64_t *size);
/* The same file is now at another path (renamed over there). */
void remote_rename(struct remote_file *f, const char *path);
/* The descriptor that says more has come (for poll); -1 once gone. */
int remote_fd(const struct remote_file *f);
/* Read again from offset 0 (the file was truncated or replaced). */
void remote_rewind(struct remote_file *f);
/* Never waits for the far side (a reply in flight is dropped later). */
void remote_close(struct remote_file *f);

/* How long any answer may take (--remote-timeout; 30 s unless set): a far
 * side silent that long is broken off, as a lost connection. */
void remote_set_timeout(unsigned seconds);

#endif
