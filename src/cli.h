/* The parsed command line. */
#ifndef TTV_CLI_H
#define TTV_CLI_H

#include <stdbool.h>
#include <stddef.h>

enum mode { MODE_VIEW, MODE_DUMP, MODE_INFO, MODE_STATS };

struct cli {
	enum mode mode;
	bool json, follow, help, version;
	const char **filters;
	size_t nfilters, capfilters;
	const char *format, *keymap, *theme;
	char **paths;
	size_t npaths;
};

/* Returns 0, or 2 after printing a usage error. */
int cli_parse(struct cli *c, int argc, char **argv);

#endif
