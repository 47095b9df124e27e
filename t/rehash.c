/* A saved index damaged on purpose, for t/engine/saved.t:
 *
 *   rehash FILE OFFSET XOR
 *   rehash --strings FILE OFFSET XOR
 *
 * xors the byte at OFFSET of its meta with XOR and writes the meta's hash
 * again (t/savedhdr.h), or (--strings) the byte at OFFSET of its strings
 * part (no hash covers it); prints the meta's or the part's size. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t/savedhdr.h"

int main(int argc, char **argv)
{
	bool strings = argc == 5 && !strcmp(argv[1], "--strings");
	argv += strings;
	if (argc != 4 + strings) {
		fprintf(stderr, "usage: rehash [--strings] FILE OFFSET XOR\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	uint8_t *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uint64_t off = strtoull(argv[2], NULL, 0), at, n;
	if (strings) {
		n = index_strings(p, (uint64_t)st.st_size, &at);
		if (off >= n) {
			fprintf(stderr, "rehash: offset %llu is not in the strings (%llu bytes)\n", (unsigned long long)off,
				(unsigned long long)n);
			return 1;
		}
		index_damage_strings(p, (uint64_t)st.st_size, off, (uint8_t)strtoul(argv[3], NULL, 0));
		printf("%llu\n", (unsigned long long)n);
		return 0;
	}
	n = index_meta(p, (uint64_t)st.st_size);
	if (off >= n || !index_damage(p, (uint64_t)st.st_size, off, (uint8_t)strtoul(argv[3], NULL, 0))) {
		fprintf(stderr, "rehash: offset %llu is not in the meta (%llu bytes)\n", (unsigned long long)off,
			(unsigned long long)n);
		return 1;
	}
	printf("%llu\n", (unsigned long long)n);
	munmap(p, (size_t)st.st_size);
	close(fd);
	return 0;
}
