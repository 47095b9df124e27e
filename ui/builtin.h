/* keymaps/ and themes/ compiled into the binary (the Makefile writes
 * BUILD/gen/builtin.c from them), used when no data directory has the file:
 * a binary copied alone still has its keys and colours. */
#ifndef TTV_BUILTIN_H
#define TTV_BUILTIN_H

#include <stddef.h>

struct builtin_file {
	const char *path; /* keymaps/less.keys */
	const char *text;
};
extern const struct builtin_file builtin_files[];
extern const size_t nbuiltin_files;

#endif
