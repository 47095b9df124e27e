/* Lying sizes: a length or count anywhere in a small file claims 100 MB or
 * 4 GB, and decoding must not allocate it (lengths and counts are checked
 * against the bytes present first).
 *
 *   lie_test [--format NAME] [--max N] FILE
 *
 * At every offset of FILE (the first N bytes), each of these overwrites the
 * bytes there: 100 MB as u32 little- and big-endian and as a LEB128 varint,
 * 0xffffffff, and 100 MB as u64 little-endian.  Every copy is decoded
 * in-process as everything a user can ask of it (fuzz harness: --dump,
 * --json, --info, --stats, details), with the address space limited to what
 * the process had plus 64 MB, so that allocating a claimed size fails (out
 * of memory: exit 1, the test fails).  Under AddressSanitizer the address
 * space cannot be limited; the peak RSS growth is checked instead.
 * Prints TAP. */
#include <sys/resource.h>

#include "t/fuzz/harness.h"
#include "t/tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#ifdef ASAN
/* ASan keeps freed memory in quarantine (256 MB by default): keep it small,
 * so that the RSS measures what decoding holds. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=4"; }
#endif

#define ROOM (64u << 20)

static long rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

#ifndef ASAN
static size_t vm_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}
#endif

int main(int argc, char **argv)
{
	const char *format = NULL, *path = NULL;
	size_t max = SIZE_MAX;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(argv[i], "--max") && i + 1 < argc)
			max = strtoull(argv[++i], NULL, 0);
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: lie_test [--format NAME] [--max N] FILE\n");
		return 2;
	}
	struct buf data = {0};
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 2;
	}
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&data, chunk, got);
	fclose(f);

	static const uint8_t pats[][8] = {
		{0x00, 0x00, 0x40, 0x06},                         /* 100 MB, u32 LE */
		{0x06, 0x40, 0x00, 0x00},                         /* 100 MB, u32 BE */
		{0x80, 0x80, 0x80, 0x32},                         /* 100 MB, LEB128 */
		{0xff, 0xff, 0xff, 0xff},                         /* 4 GB - 1 */
		{0x00, 0x00, 0x40, 0x06, 0x00, 0x00, 0x00, 0x00}, /* 100 MB, u64 LE */
	};
	static const size_t plen[] = {4, 4, 4, 4, 8};
	char file[300];
	snprintf(file, sizeof file, "%s/lie", fz_dir());
	/* warm up (libraries, the harness's own allocations), then limit */
	fz_write(file, data.p, data.len);
	size_t n;
	free(fz_load(file, format, 0, true, &n));
	ok(n > 0, "%s decodes (%zu events)", path, n);
	long rss0 = rss_kb();
#ifndef ASAN
	struct rlimit rl = {vm_bytes() + ROOM, vm_bytes() + ROOM};
	ok(setrlimit(RLIMIT_AS, &rl) == 0, "address space limited to %zu MB", (size_t)(rl.rlim_cur >> 20));
#endif
	struct buf copy = {0};
	uint64_t copies = 0;
	for (size_t at = 0; at < data.len && at < max; at++)
		for (size_t k = 0; k < ARRAY_LEN(pats); k++) {
			buf_reset(&copy);
			buf_add(&copy, data.p, data.len);
			memcpy(copy.p + at, pats[k], MIN(plen[k], data.len - at));
			fz_write(file, copy.p, copy.len);
			free(fz_load(file, format, 0, true, &n));
			copies++;
		}
	long grew = rss_kb() - rss0;
	ok(grew < (long)(ROOM >> 10), "%llu copies with a lying size decode; peak RSS grew by %ld KB",
	   (unsigned long long)copies, grew);
	buf_free(&copy);
	buf_free(&data);
	fz_cleanup();
	return done_testing();
}
