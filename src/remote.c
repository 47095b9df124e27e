/* Remote paths through ssh: see remote.h. */
#include "src/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "src/util.h"

/* The far side: one line of POSIX shell (no ' or !, so that any login
 * shell passes it on), reading requests of four lines (what, two numbers,
 * a path) and answering each in turn.
 *   H: "ttv1" when gzip is there
 *   S: "d", "f INODE SIZE", "u" (a file it cannot read), "o" (other), "n" (none)
 *   L: "KIND NAME" per entry, then "."
 *   R INODE: "z INODE SIZE" and the bytes [a, a+b) of the file through
 *      gzip -1; "c INODE SIZE" when the path names another file than the
 *      one asked for (rotated; INODE 0: any); "e" when it names no file
 *      that can be read */
static const char far_side[] =
	"while IFS= read -r c && IFS= read -r a && IFS= read -r b && IFS= read -r p; do case $c in "
	"H) if command -v gzip >/dev/null; then echo ttv1; else echo nogzip; fi;; "
	"S) if [ -d \"$p\" ]; then echo d; elif [ -f \"$p\" ]; then if [ -r \"$p\" ]; then "
	"ls -lnid -- \"$p\" | { read -r i m l u g s r; echo \"f $i $s\"; }; else echo u; fi; "
	"elif [ -e \"$p\" ]; then echo o; else echo n; fi;; "
	"L) for e in \"$p\"/* \"$p\"/.*; do n=${e##*/}; case $n in .|..) continue;; esac; "
	"[ -e \"$e\" ] || continue; if [ -d \"$e\" ]; then k=d; elif [ -f \"$e\" ]; then k=f; else k=o; fi; "
	"printf \"%s %s\\n\" $k \"$n\"; done; echo .;; "
	"R*) if [ -f \"$p\" ] && [ -r \"$p\" ]; then ls -lnid -- \"$p\" | { read -r i m l u g s r; "
	"if [ \"$c\" = \"R $i\" ] || [ \"$c\" = \"R 0\" ]; then echo \"z $i $s\"; tail -c +$((a+1)) -- \"$p\" 2>/dev/null | "
	"head -c \"$b\" | gzip -1; else echo \"c $i $s\"; fi; }; else echo e; fi;; "
	"*) exit 1;; esac; done";

/* Without $TTV_SSH: give up on a host that does not answer within
 * seconds, and notice a connection that died while following. */
#define DEFAULT_SSH "ssh -o ConnectTimeout=10 -o ServerAliveInterval=15 -o ServerAliveCountMax=3"

#define FIRST_ASK (256u << 10) /* a file's first request: the first screen comes soon */
#define MAX_ASK (8u << 20)     /* later ones grow to this */
#define CONN_BUF (64u << 10)
#define RETRY_NS 2000000000ull /* a lost connection: tried again this often */
/* What a far side may send: a range's gzip stream is at most this much
 * larger than the bytes asked for (gzip -1 of incompressible bytes adds
 * 5 bytes per 16 KB block and its header), lines before the first answer
 * (a login script's) at most PREAMBLE_MAX bytes, a listing LISTING_MAX
 * entries.  Past these it is broken off: memory stays bounded. */
#define ZSLACK(ask) ((ask) / 64 + (64u << 10))
#define PREAMBLE_MAX (1u << 20)
#define LISTING_MAX 1000000u

static unsigned answer_s = 30; /* --remote-timeout */

void remote_set_timeout(unsigned seconds) { answer_s = seconds ? seconds : 1; }

struct conn {
	char *key; /* "[USER@]HOST" or "ssh://[USER@]HOST[:PORT]" */
	pid_t pid;
	int to, from, err; /* ssh's standard input, output and error */
	uint8_t buf[CONN_BUF];
	size_t lo, hi;       /* unread bytes of its output in buf */
	char errtail[512];   /* the end of what ssh wrote to its standard error */
	size_t nerrtail;
	char *error;         /* the connection is gone: why */
	bool ok;             /* it worked once: when lost, connect again (following) */
	bool hello;          /* its first answer has not come yet */
	uint64_t preamble;   /* bytes of lines before it */
	uint64_t heard;      /* when it last sent a byte, or was asked something */
	uint64_t retry_at;   /* lost: when to try again */
	struct remote_file *busy; /* the file whose R reply is being read */
	struct listing *listing;  /* or the directory whose L reply is */
	z_stream z;
};

/* A directory as the far side last listed it.  Listed again (a rescan
 * while following), its new entries are read as they come, in turn with
 * the connection's other replies: only its first listing is waited for. */
struct listing {
	char *path; /* HOST:PATH, as given */
	char *rpath;
	struct conn *c;
	struct dir_entry *e; /* the last whole listing */
	size_t n;
	bool known;          /* one has come */
	uint64_t wanted;     /* to be asked for when the connection is free, in this turn (0: not) */
	struct dir_entry *next; /* the one coming */
	size_t nnext, capnext;
};

struct remote_file {
	struct conn *c;
	char *rpath; /* its path on the far side */
	uint64_t off;   /* the next byte to ask for */
	uint64_t ino, size; /* the file, as the last reply saw it */
	bool gone;      /* ... or its path named no file it could read */
	uint32_t ask;   /* bytes per request */
	uint64_t got;   /* bytes of the reply being read */
	uint64_t zin;   /* ... and of its gzip stream */
	bool closed;    /* closed while its reply was in flight: freed once it is read */
	enum { IDLE, STATUS, BODY } state;
	bool ended;     /* the last reply was short: its end, for now */
	uint8_t *pend;  /* a reply read while another file needed the connection */
	size_t npend, pendlo, cappend;
};

static struct conn **conns;
static size_t nconns, capconns;
static struct listing **listings;
static size_t nlistings, caplistings;

bool remote_is(const char *path)
{
	if (!strncmp(path, "ssh://", 6))
		return true;
	if (!strncmp(path, "tcp:", 4))
		return false;
	if (path[0] == '[') {
		const char *e = strchr(path, ']');
		return e && e[1] == ':';
	}
	const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
	return colon && colon != path && (!slash || colon < slash);
}

size_t remote_host_len(const char *path)
{
	if (!strncmp(path, "ssh://", 6))
		return strcspn(path + 6, "/") + 6;
	return (size_t)((path[0] == '[' ? strchr(path, ']') + 1 : strchr(path, ':')) - path) + 1;
}

/* Split a remote path into its connection's key and the path over there
 * (a relative path is the login directory's, as for scp). */
static void split(const char *path, char **key, char **rpath)
{
	size_t host = remote_host_len(path);
	*key = xstrndup(path, strncmp(path, "ssh://", 6) ? host - 1 : host); /* (HOST: without its colon) */
	*rpath = xstrdup(path[host] ? path + host : ".");
}

/* ssh's arguments for a key: [-p PORT] [USER@]HOST (brackets gone). */
static int ssh_target(const char *key, char *host, size_t nhost, char *port, size_t nport)
{
	const char *h = key, *end = key + strlen(key);
	port[0] = 0;
	if (!strncmp(key, "ssh://", 6)) {
		h = key + 6;
		const char *at = strrchr(h, '@'), *hs = at ? at + 1 : h;
		const char *c = *hs == '[' ? strchr(hs, ']') : hs;
		c = c ? strchr(c, ':') : NULL;
		if (c) {
			snprintf(port, nport, "%s", c + 1);
			end = c;
		}
	}
	size_t n = 0;
	for (const char *p = h; p < end && n + 1 < nhost; p++)
		if (*p != '[' && *p != ']')
			host[n++] = *p;
	host[n] = 0;
	if (!n || host[0] == '-' || (port[0] && strspn(port, "0123456789") != strlen(port)))
		return -1;
	return 0;
}

/* ---- the connection ------------------------------------------------------ */

/* Keep the end of what ssh wrote to its standard error; at its end, close it. */
static void take_stderr(struct conn *c)
{
	char b[1024];
	ssize_t n = -1;
	while (c->err >= 0 && (n = read(c->err, b, sizeof b)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			n = 0;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (c->nerrtail == sizeof c->errtail - 1) { /* keep the end */
				memmove(c->errtail, c->errtail + 256, c->nerrtail - 256);
				c->nerrtail -= 256;
			}
			c->errtail[c->nerrtail++] = b[i];
		}
		if (!n)
			break;
	}
	if (c->err >= 0 && n == 0) {
		close(c->err);
		c->err = -1;
	}
	c->errtail[c->nerrtail] = 0;
}

/* ssh's last line of error, or how it ended. */
static char *why_gone(struct conn *c, int status)
{
	char *s = c->errtail, *end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		*--end = 0;
	char *line = strrchr(s, '\n');
	line = line ? line + 1 : s;
	struct buf b = {0};
	if (*line)
		buf_printf(&b, "%s%s", strncmp(line, "ssh:", 4) ? "ssh: " : "", line);
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		buf_printf(&b, "ssh exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		buf_printf(&b, "ssh was killed by signal %d", WTERMSIG(status));
	else
		buf_printf(&b, "ssh: the connection to %s closed", c->key);
	return b.p;
}

/* ssh, whose input is closed: given ms to end by itself, then stopped. */
static void reap(struct conn *c, int ms, int *status)
{
	for (int i = 0; c->pid > 0 && i < ms / 10 && waitpid(c->pid, status, WNOHANG) == 0; i++)
		usleep(10000);
	if (c->pid > 0 && waitpid(c->pid, status, WNOHANG) == 0) {
		kill(c->pid, SIGTERM);
		waitpid(c->pid, status, 0);
	}
	c->pid = -1;
}

static void file_free(struct remote_file *f);

/* The connection is gone: say why, once, and let ssh go.  what: ttv broke
 * it off (ssh is stopped at once); NULL: it ended, and ssh's last words
 * say why. */
static void conn_fail(struct conn *c, const char *what)
{
	if (c->error)
		return;
	close(c->to);
	c->to = -1;
	int status = 0;
	/* its last words: what it writes before it exits (at most 2 s) */
	for (uint64_t until = now_ns() + 2000000000ull; !what && c->err >= 0 && now_ns() < until;) {
		struct pollfd p = {c->err, POLLIN, 0};
		if (poll(&p, 1, 100) > 0)
			take_stderr(c);
	}
	reap(c, what ? 0 : 1000, &status);
	c->error = what ? xstrdup(what) : why_gone(c, status);
	if (c->busy && c->busy->closed)
		file_free(c->busy);
	else if (c->busy) /* its reply is cut short: asked again, from where it stopped */
		c->busy->state = IDLE;
	c->busy = NULL;
	if (c->listing) { /* and a listing: asked again */
		dir_free(c->listing->next, c->listing->nnext);
		c->listing->next = NULL;
		c->listing->nnext = c->listing->capnext = 0;
		c->listing->wanted = 1; /* (first) */
	}
	c->listing = NULL;
	c->retry_at = now_ns() + RETRY_NS;
}

static bool conn_send(struct conn *c, const char *what, uint64_t a, uint64_t b, const char *rpath)
{
	if (c->error)
		return false;
	struct buf req = {0};
	buf_printf(&req, "%s\n%llu\n%llu\n%s\n", what, (unsigned long long)a, (unsigned long long)b, rpath);
	c->heard = now_ns();
	for (size_t done = 0; done < req.len;) {
		ssize_t n = send(c->to, req.p + done, req.len - done, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			conn_fail(c, NULL);
			break;
		}
		done += (size_t)n;
	}
	buf_free(&req);
	return !c->error;
}

/* An answer is awaited: has the far side been silent too long?  Then it
 * is broken off.  Else the ms it may still take. */
static int conn_patience(struct conn *c)
{
	uint64_t limit = c->heard + (uint64_t)answer_s * 1000000000ull, now = now_ns();
	if (now < limit)
		return (int)MIN((limit - now + 999999) / 1000000, INT32_MAX);
	char why[128];
	snprintf(why, sizeof why, "no answer from %s for %u s", c->key, answer_s);
	conn_fail(c, why);
	return -1;
}

/* More of ssh's output into buf: false when none came (!wait) or it is
 * gone (or has said nothing for the --remote-timeout). */
static bool conn_fill(struct conn *c, bool wait)
{
	if (c->error)
		return false;
	if (c->lo == c->hi)
		c->lo = c->hi = 0;
	if (c->hi == sizeof c->buf) {
		memmove(c->buf, c->buf + c->lo, c->hi - c->lo);
		c->hi -= c->lo;
		c->lo = 0;
	}
	for (;;) {
		int ms = conn_patience(c);
		if (ms < 0)
			return false;
		struct pollfd p[2] = {{c->from, POLLIN, 0}, {c->err, POLLIN, 0}};
		if (poll(p, 2, wait ? ms : 0) < 0 && errno != EINTR) {
			conn_fail(c, NULL);
			return false;
		}
		if (p[1].revents)
			take_stderr(c);
		if (!p[0].revents) {
			if (wait)
				continue;
			conn_patience(c);
			return false;
		}
		ssize_t n = read(c->from, c->buf + c->hi, sizeof c->buf - c->hi);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			conn_fail(c, NULL);
			return false;
		}
		c->hi += (size_t)n;
		c->heard = now_ns();
		return true;
	}
}

/* The next line of ssh's output (its newline gone), NULL when it has not
 * all come yet (!wait) or the connection is gone. */
static char *conn_line(struct conn *c, bool wait)
{
	for (;;) {
		uint8_t *nl = memchr(c->buf + c->lo, '\n', c->hi - c->lo);
		if (nl) {
			char *line = (char *)c->buf + c->lo;
			*nl = 0;
			c->lo = (size_t)(nl - c->buf) + 1;
			return line;
		}
		if (c->lo == 0 && c->hi == sizeof c->buf) {
			conn_fail(c, "ssh: the far side answered with something other than ttv's replies");
			return NULL;
		}
		if (!conn_fill(c, wait))
			return NULL;
	}
}

/* batch: no questions (the viewer is on the terminal) */
static pid_t spawn_ssh(const char *host, const char *port, bool batch, int in, int out, int err)
{
	const char *ssh = getenv("TTV_SSH");
	struct buf sh = {0}, far = {0};
	buf_printf(&sh, "exec %s%s \"$@\"", ssh && *ssh ? ssh : DEFAULT_SSH, batch ? " -o BatchMode=yes" : "");
	buf_printf(&far, "exec /bin/sh -c '%s'", far_side);
	const char *argv[9] = {"/bin/sh", "-c", sh.p, "ttv-ssh"};
	size_t n = 4;
	if (port[0]) {
		argv[n++] = "-p";
		argv[n++] = port;
	}
	argv[n++] = host;
	argv[n++] = far.p;
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		/* gone with ttv, whatever ends it */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	buf_free(&sh);
	buf_free(&far);
	return pid;
}

/* At exit: the end of its input ends the loop over there, and ssh; one
 * that lingers is stopped. */
static void conn_free_all(void)
{
	for (size_t i = 0; i < nconns; i++) {
		struct conn *c = conns[i];
		if (c->busy && c->busy->closed)
			file_free(c->busy);
		if (c->to >= 0)
			close(c->to);
		int status;
		reap(c, 100, &status);
		if (c->from >= 0)
			close(c->from);
		if (c->err >= 0)
			close(c->err);
		inflateEnd(&c->z);
		free(c->key);
		free(c->error);
		free(c);
	}
	free(conns);
	conns = NULL;
	nconns = capconns = 0;
	for (size_t i = 0; i < nlistings; i++) {
		struct listing *l = listings[i];
		dir_free(l->e, l->n);
		dir_free(l->next, l->nnext);
		free(l->path);
		free(l->rpath);
		free(l);
	}
	free(listings);
	listings = NULL;
	nlistings = caplistings = 0;
}

/* Start ssh and ask for the far side's first answer (read by conn_hello). */
static void conn_spawn(struct conn *c, bool batch)
{
	char host[256], port[16];
	int sv[2], out[2], err[2];
	if (ssh_target(c->key, host, sizeof host, port, sizeof port) < 0) {
		c->error = xstrdup("not a host ssh can reach (want HOST:PATH or ssh://[USER@]HOST[:PORT]/PATH)");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		c->error = xstrdup(strerror(errno));
		return;
	}
	c->pid = spawn_ssh(host, port, batch, sv[1], out[1], err[1]);
	close(sv[1]);
	close(out[1]);
	close(err[1]);
	c->preamble = 0;
	c->to = sv[0];
	c->from = out[0];
	c->err = err[0];
	fcntl(c->err, F_SETFL, O_NONBLOCK);
	if (c->pid < 0) {
		c->pid = 0;
		conn_fail(c, strerror(errno));
		return;
	}
	c->hello = conn_send(c, "H", 0, 0, ".");
}

/* The far side's first answer (a login script may print lines before it):
 * true once it came. */
static bool conn_hello(struct conn *c, bool wait)
{
	for (char *line; c->hello && (line = conn_line(c, wait));) {
		if (!strcmp(line, "ttv1"))
			c->hello = false, c->ok = true;
		else if (!strcmp(line, "nogzip"))
			conn_fail(c, "the far side has no gzip");
		else if ((c->preamble += strlen(line) + 1) > PREAMBLE_MAX)
			conn_fail(c, "the far side sent 1 MB of lines but not ttv's first answer");
	}
	return !c->hello && !c->error;
}

/* Ready for a request: connected (again, when it was lost and it is time:
 * without questions now), and the far side has answered. */
static bool conn_ready(struct conn *c, bool wait)
{
	if (c->error) {
		if (!c->ok || now_ns() < c->retry_at)
			return false;
		close(c->from);
		if (c->err >= 0)
			close(c->err);
		free(c->error);
		c->error = NULL;
		c->lo = c->hi = c->nerrtail = 0;
		c->errtail[0] = 0;
		conn_spawn(c, true);
	}
	return conn_hello(c, wait);
}

static struct conn *conn_start(const char *key)
{
	struct conn *c = xcalloc(1, sizeof *c);
	c->key = xstrdup(key);
	c->to = c->from = c->err = -1;
	c->pid = -1;
	if (inflateInit2(&c->z, 15 + 16) != Z_OK)
		oom(sizeof c->z);
	if (!nconns)
		atexit(conn_free_all);
	xgrow(&conns, &capconns, nconns + 1, sizeof *conns);
	conns[nconns++] = c;
	/* Password and host key questions are asked here, on the terminal,
	 * before anything is drawn. */
	conn_spawn(c, false);
	conn_hello(c, true);
	return c;
}

static struct conn *conn_for(const char *key)
{
	for (size_t i = 0; i < nconns; i++)
		if (!strcmp(conns[i]->key, key))
			return conns[i];
	return conn_start(key);
}

/* ---- reading a file ------------------------------------------------------ */

static ssize_t reply_read(struct remote_file *f, void *buf, size_t n, bool wait);

static bool listing_read(struct conn *c, bool wait);

/* Another request needs the connection: read the reply in flight (a
 * file's or a listing's) to its end; a file's is kept for it (it is at
 * most the bytes asked for), unless the file was closed. */
static void conn_drain(struct conn *c)
{
	while (c->listing && !listing_read(c, true))
		;
	struct remote_file *f = c->busy;
	while (f && f->state != IDLE && !c->error) {
		static uint8_t junk[CONN_BUF];
		if (!f->closed)
			xgrow(&f->pend, &f->cappend, f->npend + CONN_BUF, 1);
		ssize_t r = reply_read(f, f->closed ? junk : f->pend + f->npend, CONN_BUF, true);
		if (r > 0 && !f->closed)
			f->npend += (size_t)r;
	}
	if (c->busy && c->busy->closed)
		file_free(c->busy);
	c->busy = NULL;
}

/* The reply to f's R request, as far as it has come. */
static ssize_t reply_read(struct remote_file *f, void *buf, size_t n, bool wait)
{
	struct conn *c = f->c;
	while (!c->error) {
		if (f->state == STATUS) {
			char *line = conn_line(c, wait);
			if (!line)
				break;
			unsigned long long ino, size;
			f->gone = sscanf(line, "%*[zc] %llu %llu", &ino, &size) != 2;
			if (!f->gone) {
				f->ino = ino;
				f->size = size;
			}
			if (line[0] != 'z') { /* gone, or another file there now: its end, for now */
				f->state = IDLE;
				c->busy = NULL;
				return 0;
			}
			f->state = BODY;
			f->zin = 0;
			inflateReset(&c->z);
		}
		if (c->lo == c->hi && !conn_fill(c, wait))
			break;
		/* At most the bytes asked for; one more (into a byte of its own)
		 * would be the far side's fault. */
		uint8_t extra;
		size_t room = MIN(n, f->ask - MIN(f->got, f->ask));
		c->z.next_in = c->buf + c->lo;
		c->z.avail_in = (uInt)(c->hi - c->lo);
		c->z.next_out = room ? buf : &extra;
		c->z.avail_out = room ? (uInt)MIN(room, UINT32_MAX) : 1;
		int r = inflate(&c->z, Z_NO_FLUSH);
		f->zin += c->hi - c->lo - c->z.avail_in;
		c->lo = c->hi - c->z.avail_in;
		size_t got = room ? room - c->z.avail_out : 0;
		if ((!room && !c->z.avail_out) || f->zin > f->ask + ZSLACK(f->ask)) {
			char why[160];
			snprintf(why, sizeof why, "the far side sent more than the %u bytes asked for", f->ask);
			conn_fail(c, why);
			return got ? (ssize_t)got : -1;
		}
		f->got += got;
		f->off += got;
		if (r == Z_STREAM_END) {
			f->state = IDLE;
			c->busy = NULL;
			f->ended = f->got < f->ask;
			if (!f->ended)
				f->ask = MIN(2 * f->ask, MAX_ASK);
			if (got)
				return (ssize_t)got;
			if (f->ended) {
				f->ended = false;
				return 0;
			}
			return -1; /* (a full reply of nothing: cannot be) */
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			conn_fail(c, "ssh: the far side's gzip stream is damaged");
			break;
		}
		if (got)
			return (ssize_t)got;
	}
	errno = EAGAIN;
	return -1;
}

static bool listing_settle(struct conn *c, bool wait);

ssize_t remote_read(struct remote_file *f, void *buf, size_t n, bool wait, char **err)
{
	struct conn *c = f->c;
	if (f->pendlo < f->npend) {
		size_t k = MIN(n, f->npend - f->pendlo);
		memcpy(buf, f->pend + f->pendlo, k);
		f->pendlo += k;
		if (f->pendlo == f->npend)
			f->pendlo = f->npend = 0;
		return (ssize_t)k;
	}
	if (f->ended) {
		f->ended = false;
		return 0;
	}
	if (f->state == IDLE && conn_ready(c, wait) && listing_settle(c, wait)) {
		if (c->busy)
			conn_drain(c);
		f->got = 0;
		char what[32];
		snprintf(what, sizeof what, "R %llu", (unsigned long long)f->ino);
		if (conn_send(c, what, f->off, f->ask, f->rpath)) {
			f->state = STATUS;
			c->busy = f;
		}
	}
	ssize_t r = f->state == IDLE ? -1 : reply_read(f, buf, n, wait);
	if (r < 0 && c->error) {
		*err = xstrdup(c->error);
		errno = EIO;
	} else if (r < 0) {
		errno = EAGAIN;
	}
	return r;
}

struct remote_file *remote_open(const char *path, char **err)
{
	struct remote_stat st;
	if (!remote_stat(path, &st, err))
		return NULL;
	const char *why = st.kind == PATH_NONE ? "No such file or directory"
			  : st.kind == PATH_DIR    ? "is a directory"
			  : st.kind == PATH_OTHER  ? "not a regular file"
			  : !st.readable          ? "Permission denied"
						  : NULL;
	if (why) {
		struct buf b = {0};
		buf_printf(&b, st.kind == PATH_FILE || st.kind == PATH_NONE ? "cannot open: %s" : "%s", why);
		*err = b.p;
		return NULL;
	}
	struct remote_file *f = xcalloc(1, sizeof *f);
	f->ino = st.ino;
	f->size = st.size;
	char *key;
	split(path, &key, &f->rpath);
	f->c = conn_for(key);
	f->ask = FIRST_ASK;
	free(key);
	return f;
}

bool remote_identity(const struct remote_file *f, uint64_t *ino, uint64_t *size)
{
	*ino = f->ino;
	*size = f->size;
	return !f->gone;
}

void remote_rename(struct remote_file *f, const char *path)
{
	char *key;
	free(f->rpath);
	split(path, &key, &f->rpath);
	free(key);
}

int remote_fd(const struct remote_file *f) { return f->c->error ? -1 : f->c->from; }

void remote_rewind(struct remote_file *f)
{
	if (f->c->busy == f)
		conn_drain(f->c);
	f->off = 0;
	f->ask = FIRST_ASK;
	f->ended = false;
	f->npend = f->pendlo = 0;
}

static void file_free(struct remote_file *f)
{
	free(f->rpath);
	free(f->pend);
	free(f);
}

/* Never waits for the far side: a reply in flight is read (and dropped)
 * when another request needs the connection. */
void remote_close(struct remote_file *f)
{
	if (f && f->c->busy == f)
		f->closed = true;
	else if (f)
		file_free(f);
}

/* ---- what is at a path ----------------------------------------------------- */

/* Send a request about a path; the connection, or NULL (and *err). */
static struct conn *ask(const char *what, const char *path, char **err)
{
	char *key, *rpath;
	split(path, &key, &rpath);
	struct conn *c = conn_for(key);
	free(key);
	if (strchr(rpath, '\n')) {
		if (err)
			*err = xstrdup("a remote path cannot hold a newline");
		free(rpath);
		return NULL;
	}
	if (conn_ready(c, true)) {
		conn_drain(c);
		conn_send(c, what, 0, 0, rpath);
	}
	free(rpath);
	if (c->error) {
		if (err)
			*err = xstrdup(c->error);
		return NULL;
	}
	return c;
}

bool remote_stat(const char *path, struct remote_stat *st, char **err)
{
	*st = (struct remote_stat){PATH_NONE, false, 0, 0};
	struct conn *c = ask("S", path, err);
	char *line = c ? conn_line(c, true) : NULL;
	if (!line) {
		if (c && err)
			*err = xstrdup(c->error);
		return false;
	}
	unsigned long long ino = 0, size = 0;
	switch (line[0]) {
	case 'd': st->kind = PATH_DIR; break;
	case 'o': st->kind = PATH_OTHER; break;
	case 'u': st->kind = PATH_FILE; break;
	case 'f':
		st->kind = PATH_FILE;
		st->readable = sscanf(line, "f %llu %llu", &ino, &size) == 2;
		st->ino = ino;
		st->size = size;
		break;
	}
	return true;
}

/* ---- directories ------------------------------------------------------------ */

/* What has come of the L reply in flight: true when none is in flight
 * now (it all came, or the connection is gone). */
static bool listing_read(struct conn *c, bool wait)
{
	struct listing *l = c->listing;
	for (char *line; l && (line = conn_line(c, wait));) {
		if (!strcmp(line, ".")) { /* its end: the new listing */
			dir_free(l->e, l->n);
			l->e = l->next, l->n = l->nnext;
			l->next = NULL;
			l->nnext = l->capnext = 0;
			l->known = true;
			c->listing = NULL;
			return true;
		}
		if (!line[0] || line[1] != ' ')
			continue;
		if (l->nnext == LISTING_MAX) {
			conn_fail(c, "the far side listed more than 1000000 entries in one directory");
			break;
		}
		xgrow(&l->next, &l->capnext, l->nnext + 1, sizeof *l->next);
		l->next[l->nnext++] = (struct dir_entry){xstrdup(line + 2), line[0] == 'd'   ? PATH_DIR
									: line[0] == 'f' ? PATH_FILE
											 : PATH_OTHER};
	}
	return !c->listing;
}

/* Before another request: what has come of the listing in flight is
 * read, and when it is all there, a listing wanted is asked for (each in
 * turn); true when none is in flight. */
static bool listing_settle(struct conn *c, bool wait)
{
	if (c->listing && !listing_read(c, wait))
		return false;
	struct listing *next = NULL; /* the one wanted longest */
	for (size_t i = 0; i < nlistings; i++)
		if (listings[i]->c == c && listings[i]->wanted && (!next || listings[i]->wanted < next->wanted))
			next = listings[i];
	if (next && !c->busy && conn_send(c, "L", 0, 0, next->rpath)) {
		next->wanted = 0;
		c->listing = next;
		return listing_read(c, wait);
	}
	return !c->listing;
}

/* l is to be listed (again): in turn after those wanted before it. */
static void listing_want(struct listing *l)
{
	static uint64_t turn = 1;
	if (!l->wanted)
		l->wanted = ++turn;
}

static struct listing *listing_for(const char *dir)
{
	for (size_t i = 0; i < nlistings; i++)
		if (!strcmp(listings[i]->path, dir))
			return listings[i];
	struct listing *l = xcalloc(1, sizeof *l);
	char *key;
	l->path = xstrdup(dir);
	split(dir, &key, &l->rpath);
	l->c = conn_for(key);
	free(key);
	xgrow(&listings, &caplistings, nlistings + 1, sizeof *listings);
	listings[nlistings++] = l;
	return l;
}

size_t remote_list(const char *dir, struct dir_entry **out)
{
	*out = NULL;
	if (strchr(dir, '\n'))
		return 0;
	struct listing *l = listing_for(dir);
	struct conn *c = l->c;
	if (conn_ready(c, !l->known)) {
		if (c->listing == l) /* what came of the last asking */
			listing_read(c, false);
		if (c->listing != l) /* asked anew */
			listing_want(l);
		if (!l->known) /* the first time: waited for */
			conn_drain(c);
		while (listing_settle(c, !l->known) && !l->known && !c->error)
			;
	}
	*out = l->n ? xmalloc(l->n * sizeof **out) : NULL;
	for (size_t i = 0; i < l->n; i++)
		(*out)[i] = (struct dir_entry){xstrdup(l->e[i].name), l->e[i].kind};
	return l->n;
}

char *remote_list_error(const char *dir)
{
	struct listing *l = listing_for(dir);
	return l->known ? NULL : xstrdup(l->c->error ? l->c->error : "no listing came");
}

size_t remote_head(const char *path, void *buf, size_t n)
{
	size_t want = MIN(n, MAX_ASK), got = 0;
	struct remote_file f = {.ask = (uint32_t)want};
	char *key, *err = NULL;
	split(path, &key, &f.rpath);
	f.c = conn_for(key);
	free(key);
	for (ssize_t r; got < want && (r = remote_read(&f, (uint8_t *)buf + got, want - got, true, &err)) > 0;)
		got += (size_t)r;
	if (f.c->busy == &f)
		conn_drain(f.c);
	free(err);
	free(f.rpath);
	free(f.pend);
	return got;
}
