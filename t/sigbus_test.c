/* A trace file cut short by another program while ttv reads it: its
 * mapping faults (SIGBUS) past the new end.  A batch load stops with
 * exit 3, naming the file and the offset; --dump -f reads the file again
 * and goes on following it.  Each case runs in a child: the truncation
 * comes after the first slice is read, so the fault is certain.
 *
 *   sigbus_test TRACE SCRATCH
 *
 * TRACE: a podtrace file of several MB (left alone); SCRATCH: a path for
 * the copy that is cut.  Prints TAP. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/batch.h"
#include "t/tap.h"

#define KEEP 4096 /* what is left of the file: a few whole records */

static void copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char chunk[1 << 16];
	size_t n;
	if (!in || !out) {
		perror(in ? to : from);
		exit(2);
	}
	while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
		if (fwrite(chunk, 1, n, out) != n)
			exit(2);
	fclose(in);
	if (fclose(out))
		exit(2);
}

/* In the child: open the copy, read a first slice, cut the file to KEEP
 * bytes behind the loader's back.  Exits 4 if the slice already took
 * everything (then no fault could follow). */
static void open_and_cut(struct trace *t, const char *path)
{
	trace_init(t);
	trace_catch_sigbus(t);
	trace_open(t, path);
	trace_step(t, 1000000, false);
	if (!t->nin || t->in[0]->consumed <= KEEP || t->in[0]->consumed >= t->in[0]->size / 2)
		_exit(4);
	if (truncate(path, KEEP) != 0)
		_exit(5);
}

/* Read fd to its end or until `want` lines came or 20 s passed. */
static void drain(int fd, struct buf *b, size_t want)
{
	for (int waited = 0; waited < 200; waited++) {
		size_t lines = 0;
		for (size_t i = 0; i < b->len; i++)
			lines += b->p[i] == '\n';
		if (want && lines >= want)
			return;
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 100) <= 0)
			continue;
		char chunk[4096];
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n <= 0)
			return;
		buf_add(b, chunk, (size_t)n);
		waited = 0;
	}
}

/* Whole records in the first KEEP bytes: what a fresh read of the cut file lists. */
static uint64_t events_when_cut(const char *trace, const char *scratch)
{
	copy(trace, scratch);
	if (truncate(scratch, KEEP) != 0)
		exit(2);
	struct trace t;
	trace_init(&t);
	trace_open(&t, scratch);
	trace_load_all(&t);
	uint64_t n = model_count(t.m);
	trace_free(&t);
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: sigbus_test TRACE SCRATCH\n");
		return 2;
	}
	const char *trace = argv[1], *scratch = argv[2];
	uint64_t kept = events_when_cut(trace, scratch);
	ok(kept > 0, "the first %d bytes hold %llu whole records", KEEP, (unsigned long long)kept);

	/* a batch load: exit 3, the file and the offset named */
	copy(trace, scratch);
	int err[2];
	if (pipe(err))
		return 2;
	pid_t pid = fork();
	if (!pid) {
		dup2(err[1], 2);
		close(err[0]);
		struct trace t;
		open_and_cut(&t, scratch);
		trace_load_all(&t);
		_exit(0); /* not reached: the load faults */
	}
	close(err[1]);
	struct buf msg = {0};
	drain(err[0], &msg, 0);
	close(err[0]);
	int st;
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 3, "batch: a file cut while it is read ends with exit 3 (status %#x)", st);
	ok(strstr(buf_str(&msg), scratch) && strstr(buf_str(&msg), ": offset ") &&
		   strstr(buf_str(&msg), "shrank while it was read"),
	   "batch: the message names the file and the offset");
	if (!strstr(buf_str(&msg), "shrank"))
		printf("#   stderr: %s\n", buf_str(&msg));

	/* --dump -f: the file is read again; its events are listed once */
	copy(trace, scratch);
	int out[2];
	if (pipe(out) || pipe(err))
		return 2;
	pid = fork();
	if (!pid) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		struct trace t;
		open_and_cut(&t, scratch);
		struct filterset fs = {0};
		batch_follow(&t, &fs, false, TIME_RELATIVE, stdout);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	struct buf lines = {0};
	buf_reset(&msg);
	drain(out[0], &lines, kept);
	kill(pid, SIGTERM);
	drain(err[0], &msg, 0);
	waitpid(pid, &st, 0);
	size_t n = 0;
	for (size_t i = 0; i < lines.len; i++)
		n += lines.p[i] == '\n';
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "--dump -f: still following when stopped (status %#x)", st);
	is_int((long long)n, (long long)kept, "--dump -f: the cut file's events, each once");
	ok(strstr(buf_str(&msg), "shrank while it was read") != NULL, "--dump -f: the fault is told");
	if (!strstr(buf_str(&msg), "shrank"))
		printf("#   stderr: %s\n", buf_str(&msg));
	buf_free(&lines);
	buf_free(&msg);
	return done_testing();
}
