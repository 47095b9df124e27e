/* libFuzzer target: the filter syntax (src/query.c), each line a filter,
 * run over a small trace; the whole input also as a search pattern. */
#include "t/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_query(data, size); }
