/* The parsed command line, over the defaults of the config file. */
#ifndef TTV_CLI_H
#define TTV_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "src/util.h"

enum mode { MODE_VIEW, MODE_DUMP, MODE_INFO, MODE_STATS, MODE_REPORT, MODE_DIFF, MODE_EXPORT, MODE_SQL };

struct cli {
	enum mode mode;
	bool json, csv, follow, help, version, align;
	enum time_mode time; /* --time */
	const char **filters;
	size_t nfilters, capfilters;
	const char *format, *keymap, *theme;
	const char *export_format; /* --export FORMAT */
	const char *sort;          /* --sort KEY (--report) */
	const char *sql;           /* --sql QUERY */
	char **paths;
	size_t npaths;
	/* the config file: what it set (the command line overrides it) and
	 * what was wrong in it, one `file:line: why` per line */
	struct config *cfg;
	struct buf cfg_errors;
};

/* Returns 0, or 2 after printing a usage error.  Reads the config file first. */
int cli_parse(struct cli *c, int argc, char **argv);
void cli_free(struct cli *c);

/* The config file: $XDG_CONFIG_HOME/ttv/config (~/.config/ttv/config),
 * `key = value` lines, `#` comments:
 *   keymap = NAME      theme = NAME      time = relative|trace|wall
 *   follow = yes|no
 * A bad line is reported as file:line and the rest still loads. */
struct config {
	char *keymap, *theme;
	enum time_mode time;
	bool follow;
	char *path; /* the file read, NULL when there was none */
};
/* Read the config file (NULL path: the default place); errors are appended
 * to *errors.  Returns a config (all defaults when there is no file). */
struct config *config_load(const char *path, struct buf *errors);
void config_free(struct config *cfg);
/* The default place, in a static buffer; NULL without HOME and XDG_CONFIG_HOME. */
const char *config_path(void);

#endif
