/* A saved index damaged on purpose, for t/saved.t:
 *
 *   rehash FILE OFFSET XOR
 *
 * xors the byte at OFFSET of its meta (the part after the 64-byte header)
 * with XOR, then writes the meta's hash again into the header, so that the
 * damage passes the hash and reaches the checks of every value read back.
 * The header (src/saved.c): magic, version, byte order, key, meta bytes at
 * 32, meta hash at 40, pool offset, pool bytes; 8 bytes each. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/util.h"

#define HEADER 64

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: rehash FILE OFFSET XOR\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size < HEADER) {
		perror(argv[1]);
		return 1;
	}
	uint8_t *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uint64_t nmeta, off = strtoull(argv[2], NULL, 0);
	memcpy(&nmeta, p + 32, 8);
	if (nmeta > (uint64_t)st.st_size - HEADER || off >= nmeta) {
		fprintf(stderr, "rehash: offset %llu is not in the meta (%llu bytes)\n", (unsigned long long)off,
			(unsigned long long)nmeta);
		return 1;
	}
	p[HEADER + off] ^= (uint8_t)strtoul(argv[3], NULL, 0);
	uint64_t h = hash_bytes(p + HEADER, nmeta);
	memcpy(p + 40, &h, 8);
	printf("%llu\n", (unsigned long long)nmeta);
	munmap(p, (size_t)st.st_size);
	close(fd);
	return 0;
}
