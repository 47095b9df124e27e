/* libFuzzer target: one podtrace file through the loader and every consumer. */
#include "t/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_decoder("podtrace", data, size); }
