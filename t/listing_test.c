/* A remote directory listed again while following does not wait for the
 * far side: the listing that has come is given at once, the new one when
 * it comes; two directories listed in turn (a tree) are each listed anew.
 * Usage: listing_test HOST:DIR DIR (the same directory, here: the test's
 * sshd runs on this machine; DIR holds a file `first` and a directory `sub`
 * with a file `a`), with $TTV_SSH reaching HOST over a slow link
 * (t/remote/remote.t). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/input.h"
#include "src/remote.h"
#include "src/util.h"
#include "t/tap.h"

static bool has(const struct dir_entry *e, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			return true;
	return false;
}

/* Make a file DIR/NAME. */
static bool make(const char *dir, const char *name)
{
	struct buf path = {0};
	buf_printf(&path, "%s/%s", dir, name);
	FILE *f = fopen(path.p, "w");
	buf_free(&path);
	return f && fclose(f) == 0;
}

/* List both, as rescans do, until each has its new file (at most 10 s). */
static bool both_seen(const char *dir, const char *sub)
{
	for (int i = 0; i < 100; i++) {
		struct dir_entry *e, *s;
		size_t n = remote_list(dir, &e), ns = remote_list(sub, &s);
		bool seen = has(e, n, "second") && has(s, ns, "b");
		dir_free(e, n);
		dir_free(s, ns);
		if (seen)
			return true;
		usleep(100000);
	}
	return false;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: listing_test HOST:DIR DIR\n");
		return 2;
	}
	struct buf sub = {0}, here = {0};
	buf_printf(&sub, "%s/sub", argv[1]);
	buf_printf(&here, "%s/sub", argv[2]);
	struct dir_entry *e;
	size_t n = remote_list(argv[1], &e);
	ok(n == 2 && has(e, n, "first") && has(e, n, "sub"), "the first listing is waited for (%zu entries)", n);
	dir_free(e, n);
	n = remote_list(sub.p, &e);
	ok(n == 1 && has(e, n, "a"), "and a directory's in it");
	dir_free(e, n);

	ok(make(argv[2], "second") && make(here.p, "b"), "a file made in each");
	uint64_t t0 = now_ns();
	n = remote_list(argv[1], &e);
	uint64_t took = now_ns() - t0;
	ok(n == 2 && !has(e, n, "second"), "listed again: the last listing, at once (%.3f s), not waiting for the new one",
	   (double)took / 1e9);
	dir_free(e, n);
	ok(both_seen(argv[1], sub.p), "listed again and again in turn: each new listing comes, with its new file");
	buf_free(&sub);
	buf_free(&here);
	return done_testing();
}
