/* ui floor 1 */
/* The common terminals' descriptions compiled in (ui/builtin.h), for a
 * host that has none for $TERM: a binary copied into a container with no
 * terminfo database still draws.  ncurses asks its fallback hook once its
 * database has no entry (lib_setup.c: _nc_fallback2); a library built
 * without fallbacks, as Debian's is, has an empty one, which this takes
 * the place of in a static link (and in a dynamic one where it may).
 * libtermkey needs no terminfo to read keys: its CSI driver does without. */
#define NCURSES_INTERNALS 1 /* (TERMTYPE2, and ncurses' own reader of a compiled entry) */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>

#include "ui/builtin.h"

const TERMTYPE2 *_nc_fallback2(const char *name);
const TERMTYPE *_nc_fallback(const char *name);

const TERMTYPE2 *_nc_fallback2(const char *name)
{
	static TERMTYPE2 entry[16];
	static bool read[16];
	for (size_t i = 0; name && i < nbuiltin_terms && i < 16; i++) {
		if (strcmp(builtin_terms[i].name, name))
			continue;
		if (!read[i]) {
			char *copy = malloc(builtin_terms[i].size); /* (it reads from a buffer it may change) */
			if (!copy)
				return NULL;
			memcpy(copy, builtin_terms[i].data, builtin_terms[i].size);
			read[i] = _nc_read_termtype(&entry[i], copy, (int)builtin_terms[i].size) == 1;
			free(copy);
		}
		return read[i] ? &entry[i] : NULL;
	}
	return NULL;
}

/* (the older hook, for the narrow library: none) */
const TERMTYPE *_nc_fallback(const char *name)
{
	(void)name;
	return NULL;
}
