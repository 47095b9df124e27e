/* The config file (see src/cli.h): defaults the command line overrides. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/cli.h"
#include "src/esc.h"

const char *config_path(void)
{
	static char path[4096];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(path, sizeof path, "%s/ttv/config", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.config/ttv/config", home);
	else
		return NULL;
	return path;
}

static bool parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false", "off", "0"};
	for (size_t i = 0; i < ARRAY_LEN(yes); i++) {
		if (!strcmp(v, yes[i]))
			return *out = true;
		if (!strcmp(v, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

static void bad(struct buf *errors, const char *path, int line, const char *fmt, const char *arg)
{
	if (errors->len)
		buf_addc(errors, '\n');
	esc_term_cstr(errors, path);
	buf_printf(errors, ":%d: ", line);
	struct buf a = {0};
	esc_term(&a, arg, strlen(arg));
	buf_printf(errors, fmt, buf_str(&a));
	buf_free(&a);
}

struct config *config_load(const char *path, struct buf *errors)
{
	struct config *cfg = xcalloc(1, sizeof *cfg);
	if (!path)
		path = config_path();
	if (!path)
		return cfg;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT) {
			if (errors->len)
				buf_addc(errors, '\n');
			esc_term_cstr(errors, path);
			buf_printf(errors, ": %s", strerror(errno));
		}
		return cfg;
	}
	cfg->path = xstrdup(path);
	char line[1024];
	int lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			bad(errors, path, lineno, "%sline too long", "");
			int ch;
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			bad(errors, path, lineno, "want key = value, got '%s'", s);
			continue;
		}
		*eq = 0;
		char *key = trim(s), *val = trim(eq + 1);
		if (!*val) {
			bad(errors, path, lineno, "%s: no value", key);
		} else if (!strcmp(key, "keymap")) {
			free(cfg->keymap);
			cfg->keymap = xstrdup(val);
		} else if (!strcmp(key, "theme")) {
			free(cfg->theme);
			cfg->theme = xstrdup(val);
		} else if (!strcmp(key, "time")) {
			if (!time_mode_parse(val, &cfg->time))
				bad(errors, path, lineno, "time: want relative, trace or wall, got '%s'", val);
		} else if (!strcmp(key, "follow")) {
			if (!parse_bool(val, &cfg->follow))
				bad(errors, path, lineno, "follow: want yes or no, got '%s'", val);
		} else {
			bad(errors, path, lineno, "unknown key '%s' (keymap, theme, time, follow)", key);
		}
	}
	fclose(f);
	return cfg;
}

void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	free(cfg->keymap);
	free(cfg->theme);
	free(cfg->path);
	free(cfg);
}
