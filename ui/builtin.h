/* keymaps/ and themes/ compiled into the binary (the Makefile writes
 * BUILD/gen/builtin.c from them), used when no data directory has the file:
 * a binary copied alone still has its keys and colours, and (below) can
 * still draw on a host without terminfo. */
#ifndef TTV_BUILTIN_H
#define TTV_BUILTIN_H

#include <stddef.h>

struct builtin_file {
	const char *path; /* keymaps/less.keys */
	const char *text;
};
extern const struct builtin_file builtin_files[];
extern const size_t nbuiltin_files;

/* ... and the build host's compiled terminal descriptions of the common
 * terminals (BUILD/gen/terminfo.c; ui/terminfo.c uses them). */
struct builtin_term {
	const char *name; /* xterm-256color */
	const char *data; /* the compiled entry, as terminfo keeps it */
	size_t size;
};
extern const struct builtin_term builtin_terms[];
extern const size_t nbuiltin_terms;

#endif
