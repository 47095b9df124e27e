/* Paths: which are remote (as scp tells), and the directory of a path,
 * local or remote (decoders find a file's neighbours by it). */
#include <stdlib.h>

#include "src/input.h"
#include "src/remote.h"
#include "t/tap.h"

static const char *dir(const char *path)
{
	static char *last;
	free(last);
	return last = path_dir(path);
}

int main(void)
{
	ok(remote_is("far:/t.bin"), "HOST:PATH is remote");
	ok(remote_is("me@far:t.bin"), "USER@HOST:PATH is remote");
	ok(remote_is("ssh://far/t.bin") && remote_is("ssh://me@far:2222/t"), "ssh:// is remote");
	ok(remote_is("[::1]:/t.bin"), "[IPv6]:PATH is remote");
	ok(!remote_is("./far:t.bin") && !remote_is("/a:b") && !remote_is("dir/a:b"), "a colon after a slash is local");
	ok(!remote_is("t.bin") && !remote_is("-") && !remote_is(":t"), "plain names, - and a leading colon are local");
	ok(!remote_is("tcp:127.0.0.1:9000"), "tcp: is a stream, not a host");

	is_str(dir("a/b"), "a", "a/b is in a");
	is_str(dir("b"), ".", "b is in .");
	is_str(dir("/b"), "/", "/b is in /");
	is_str(dir("far:b"), "far:.", "far:b is in far:. (the login directory over there)");
	is_str(dir("far:/b"), "far:/", "far:/b is in far:/");
	is_str(dir("far:/x/y"), "far:/x", "far:/x/y is in far:/x");
	is_str(dir("ssh://me@far:22/a/b"), "ssh://me@far:22/a", "ssh://... keeps its host");
	is_str(dir("ssh://far/a"), "ssh://far/", "ssh://far/a is in ssh://far/");
	is_str(dir("[::1]:x/y"), "[::1]:x", "[IPv6]:x/y is in [IPv6]:x");
	is_str(dir("./a:b/c"), "./a:b", "a local name with a colon");
	return done_testing();
}
