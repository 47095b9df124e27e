/* libFuzzer target: one dial9 file through the loader and every consumer;
 * then the same bytes as a file of a directory tree (found by content, its
 * first frames read for its metadata), whole and in slices. */
#include "t/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_decoder("dial9", data, size);
	char dir[300], path[400];
	snprintf(dir, sizeof dir, "%s/tree", fz_dir());
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/segment", dir);
	fz_write(path, data, size);
	fz_run(dir, NULL, fz_slice(data, size), false);
	return 0;
}
