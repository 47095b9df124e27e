/* Unit tests of src/bigmem.c: an array grows in memory while it fits the
 * budget, up to the budget but not past it when what it needs still fits,
 * and moves to a nameless file, its contents kept, when it does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/bigmem.h"
#include "t/tap.h"

#define MB (1u << 20)

static bool holds(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4093)
		if (p[i] != (unsigned char)(i % 251))
			return false;
	return true;
}

static void fill(unsigned char *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		p[i] = (unsigned char)(i % 251);
}

int main(void)
{
	char dir[] = "/tmp/ttv-bigmem-XXXXXX";
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	setenv("XDG_CACHE_HOME", dir, 1);
	bigmem_set_budget(64 * MB);
	struct bigmem b = {0};
	size_t cap = 0;
	uint64_t mem, files;

	unsigned char *p = bigmem_grow(&b, &cap, 40 * MB, 1);
	fill(p, 0, 40 * MB);
	ok(!b.fd && cap >= 40 * MB && cap <= 64 * MB, "40 MB of a 64 MB budget: in memory (room for %zu MB)", cap / MB);

	p = bigmem_grow(&b, &cap, 62 * MB, 1);
	fill(p, 40 * MB, 62 * MB);
	ok(!b.fd && cap >= 62 * MB && cap <= 64 * MB,
	   "62 MB: still in memory, grown up to the budget and no further (room for %zu MB)", cap / MB);
	ok(holds(p, 62 * MB), "... what it held kept");

	p = bigmem_grow(&b, &cap, 80 * MB, 1);
	bigmem_usage(&mem, &files);
	ok(b.fd && files >= 80 * MB && mem == 0, "80 MB: moved to a file (%llu MB in files, %llu in memory)",
	   (unsigned long long)(files / MB), (unsigned long long)(mem / MB));
	ok(holds(p, 62 * MB), "... what it held kept");

	ok(!bigmem_drop_front(&b, MB), "in a file: its front is not let go");
	bigmem_free(&b);
	bigmem_usage(&mem, &files);
	ok(!mem && !files, "freed: nothing counted");

	/* the front let go in memory: the rest stays where it was */
	cap = 0;
	p = bigmem_grow(&b, &cap, 4 * MB, 1);
	fill(p, 0, 4 * MB);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	ok(!bigmem_drop_front(&b, page + 1), "not a whole number of pages: kept");
	ok(bigmem_drop_front(&b, MB) && (unsigned char *)b.p == p + MB && b.bytes == cap - MB,
	   "1 MB let go from the front: the array starts 1 MB on");
	bigmem_usage(&mem, &files);
	ok(mem == cap - MB, "... and counts %llu MB less", (unsigned long long)MB / MB);
	bool same = true;
	for (size_t i = MB; i < 4 * MB; i += 4093)
		same &= p[i] == (unsigned char)(i % 251);
	ok(same, "... what follows it kept in place");
	size_t left = cap - MB;
	unsigned char *q = bigmem_grow(&b, &left, 8 * MB, 1);
	same = true;
	for (size_t i = 0; i < 3 * MB; i += 4093)
		same &= q[i] == (unsigned char)((i + MB) % 251);
	ok(same && left >= 8 * MB, "... and grows on from there");
	ok(!bigmem_drop_front(&b, b.bytes), "letting go of all of it is freeing: refused");
	bigmem_free(&b);
	bigmem_usage(&mem, &files);
	ok(!mem && !files, "freed: nothing counted");
	char sub[sizeof dir + 8];
	snprintf(sub, sizeof sub, "%s/ttv", dir);
	ok(!rmdir(sub) && !rmdir(dir), "nothing left in the cache directory");
	return done_testing();
}
