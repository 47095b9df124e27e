/* Readable function names: C++ (_Z...) and Rust (_R..., and the legacy
 * _ZN...17h<hash>E) through libiberty, the common Swift forms ($s...) by
 * hand, to Module.Type.method(label:). */
#ifndef TTV_DEMANGLE_H
#define TTV_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/util.h"

/* Append the demangled form of s[0..n) to out; false (out unchanged) when
 * it is not a mangled name ttv reads.  Safe on two threads at once. */
bool demangle(const char *s, size_t n, struct buf *out);

#endif
