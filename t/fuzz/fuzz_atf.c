/* libFuzzer target: an ATF session directory built from the input (parts
 * split at FZ_SEP: manifest, then index and detail of two threads). */
#include "t/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_atf(data, size); }
