/* libFuzzer target: a saved index damaged (past its hash), read back. */
#include "t/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_saved(data, size); }
