/* make bench: how fast this machine gives a process fresh memory.  Writes
 * MB megabytes of newly mapped memory once (every page faulted in and
 * cleared by the kernel), then again (already mapped), and prints both
 * rates.  The first is the floor under any loader that stores N bytes per
 * event: events/s <= rate / N.
 *
 *   pagetouch [MB]      (default 1024) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	size_t n = mb << 20;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("pagetouch: mmap");
		return 1;
	}
	double t0 = now();
	memset(p, 1, n);
	double t1 = now();
	memset(p, 2, n);
	double t2 = now();
	printf("%zu MB: first touch %.2f GB/s, written again %.2f GB/s\n", mb, (double)n / (t1 - t0) / 1e9,
	       (double)n / (t2 - t1) / 1e9);
	munmap(p, n);
	return 0;
}
