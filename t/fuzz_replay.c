/* Replay inputs through the fuzz harness (t/fuzz/harness.h), without
 * libFuzzer: the crashes and hangs fuzzing found, kept in t/fuzz/regress/,
 * run in `make check` on the normal and the sanitizer build.
 *
 *   fuzz_replay TARGET FILE...     TARGET: podtrace syscall htdump dial9 atf query saved
 *
 * Prints TAP: one line per file (a crash or sanitizer report fails the run). */
#define FZ_REPLAY
#include "t/fuzz/harness.h"
#include "t/tap.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_replay TARGET FILE...\n");
		return 2;
	}
	const char *target = argv[1];
	for (int i = 2; i < argc; i++) {
		struct buf data = {0};
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		char chunk[65536];
		size_t got;
		while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
			buf_add(&data, chunk, got);
		fclose(f);
		const uint8_t *p = (const uint8_t *)data.p;
		if (!strcmp(target, "atf"))
			fz_atf(p, data.len);
		else if (!strcmp(target, "query"))
			fz_query(p, data.len);
		else if (!strcmp(target, "saved"))
			fz_saved(p, data.len);
		else
			fz_decoder(target, p, data.len);
		const char *base = strrchr(argv[i], '/');
		ok(true, "%s: %s replays (%zu bytes)", target, base ? base + 1 : argv[i], data.len);
		buf_free(&data);
	}
	fz_cleanup();
	return done_testing();
}
