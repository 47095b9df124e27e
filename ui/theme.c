/* ui floor 1 */
/* Colour themes: themes/NAME.theme gives each role (ui/app.h ROLES) its
 * colours and attributes.
 *
 *   ROLE FG BG [ATTR...]
 *
 * FG and BG are `default`, a colour name (black red green yellow blue
 * magenta cyan white) or a number 0-255, optionally followed by `/` and the
 * colour to use on an 8-colour terminal (`244/white`).  ATTR: bold dim
 * reverse underline standout.  A bad line is reported as file:line and the
 * rest still loads.  NO_COLOR, a terminal without colour, or the mono theme
 * use attributes only. */
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ui/app.h"
#include "ui/builtin.h"
#include "ui/theme.h"
#include "ui/ui.h"

static const char *const role_words[R_COUNT] = {
#define X(id, word) word,
	ROLES(X)
#undef X
};

static int attrs[R_COUNT];

static const char *const colour_names[] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};

/* Where keymaps/ and themes/ live: $TTV_DATADIR, next to the binary in the
 * source tree (build/ttv -> ./), or PREFIX/share/ttv when installed. */
static const char *datadir_find(const char *kind, const char *name, const char *ext)
{
	static char found[PATH_MAX];
	if (strchr(name, '/')) {
		snprintf(found, sizeof found, "%s", name);
		return access(found, R_OK) == 0 ? found : NULL;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	const char *env = getenv("TTV_DATADIR");
	const char *fmts[][2] = {
		{env, "%s/%s/%s%s"},
		{exe, "%s/../%s/%s%s"},
		{exe, "%s/../share/ttv/%s/%s%s"},
	};
	for (size_t i = 0; i < ARRAY_LEN(fmts); i++) {
		if (!fmts[i][0] || !*fmts[i][0])
			continue;
		snprintf(found, sizeof found, fmts[i][1], fmts[i][0], kind, name, ext);
		if (access(found, R_OK) == 0)
			return found;
	}
	return NULL;
}

FILE *data_open(const char *kind, const char *name, const char *ext, const char **where)
{
	static char label[PATH_MAX];
	const char *path = datadir_find(kind, name, ext);
	if (path) {
		*where = path;
		return fopen(path, "r");
	}
	snprintf(label, sizeof label, "%s/%s%s", kind, name, ext);
	for (size_t i = 0; i < nbuiltin_files && !strchr(name, '/'); i++)
		if (!strcmp(builtin_files[i].path, label)) {
			snprintf(label, sizeof label, "built-in %s", builtin_files[i].path);
			*where = label;
			return fmemopen((void *)builtin_files[i].text, strlen(builtin_files[i].text), "r");
		}
	return NULL;
}

bool ui_data_exists(const char *kind, const char *name, const char *ext)
{
	const char *where;
	FILE *f = data_open(kind, name, ext, &where);
	if (f)
		fclose(f);
	return f != NULL;
}

/* "244/white" -> the colour for this terminal; -1 = default. */
static bool parse_colour(const char *s, int *out)
{
	char full[32], basic[32] = "";
	const char *sl = strchr(s, '/');
	snprintf(full, sizeof full, "%.*s", sl ? (int)(sl - s) : (int)strlen(s), s);
	if (sl)
		snprintf(basic, sizeof basic, "%s", sl + 1);
	const char *use = COLORS >= 256 || !*basic ? full : basic;
	if (!strcmp(use, "default")) {
		*out = -1;
		return true;
	}
	for (int i = 0; i < 8; i++)
		if (!strcmp(use, colour_names[i])) {
			*out = i;
			return true;
		}
	char *end;
	long v = strtol(use, &end, 10);
	if (*end || v < 0 || v > 255)
		return false;
	*out = (int)(v < COLORS ? v : v % 8); /* no fallback given: a basic colour */
	return true;
}

static int parse_attr(const char *w)
{
	static const struct {
		const char *w;
		int a;
	} t[] = {{"bold", A_BOLD}, {"dim", A_DIM}, {"reverse", A_REVERSE}, {"underline", A_UNDERLINE},
		 {"standout", A_STANDOUT}};
	for (size_t i = 0; i < ARRAY_LEN(t); i++)
		if (!strcmp(w, t[i].w))
			return t[i].a;
	return -1;
}

int theme_attr(enum role r) { return r < R_COUNT ? attrs[r] : 0; }

/* Defaults that keep every role distinguishable before any file is read. */
static void defaults(void)
{
	for (int r = 0; r < R_COUNT; r++)
		attrs[r] = A_NORMAL;
	attrs[R_SELECTED] = A_REVERSE;
	attrs[R_CURSOR] = A_REVERSE;
	attrs[R_STATUS] = A_REVERSE;
	attrs[R_MATCH] = A_UNDERLINE | A_BOLD;
	attrs[R_WARNING] = A_BOLD;
	attrs[R_ERROR] = A_BOLD;
	attrs[R_TITLE] = A_BOLD;
	attrs[R_KEY] = A_BOLD;
	attrs[R_DIM] = A_DIM;
	attrs[R_LANE_NAME] = A_BOLD;
}

bool theme_load(const char *name, bool mono, char **err)
{
	defaults();
	const char *path = NULL;
	FILE *f = data_open("themes", name, ".theme", &path);
	struct buf e = {0};
	if (!f) {
		if (path)
			buf_printf(&e, "%s: %s", path, strerror(errno));
		else
			buf_printf(&e, "theme '%s' not found", name);
		*err = e.p;
		return false;
	}
	bool colour = !mono && has_colors();
	if (colour) {
		start_color();
		use_default_colors();
	}
	char line[512];
	int lineno = 0, pair = 1, pair_fg[R_COUNT + 1], pair_bg[R_COUNT + 1];
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *w[8];
		int nw = 0;
		for (char *tok = strtok(line, " \t\r\n"); tok && nw < 8; tok = strtok(NULL, " \t\r\n"))
			w[nw++] = tok;
		if (!nw || w[0][0] == '#')
			continue;
		int r = -1;
		for (int i = 0; i < R_COUNT; i++)
			if (!strcmp(w[0], role_words[i]))
				r = i;
		int fg, bg, a = A_NORMAL;
		if (r < 0 || nw < 3 || !parse_colour(w[1], &fg) || !parse_colour(w[2], &bg)) {
			buf_printf(&e, "%s%s:%d: %s", e.len ? "; " : "", path, lineno,
				   r < 0 ? "unknown role" : nw < 3 ? "want ROLE FG BG [ATTR...]" : "bad colour");
			continue;
		}
		bool ok = true;
		for (int i = 3; i < nw; i++) {
			int v = parse_attr(w[i]);
			if (v < 0) {
				buf_printf(&e, "%s%s:%d: unknown attribute '%s'", e.len ? "; " : "", path, lineno, w[i]);
				ok = false;
			} else {
				a |= v;
			}
		}
		if (!ok)
			continue;
		if (colour) {
			/* roles of the same colours share a pair: text of one next to
			 * the other's is drawn without a colour change between them */
			int p = 1;
			while (p < pair && (pair_fg[p] != fg || pair_bg[p] != bg))
				p++;
			if (p == pair && pair < MIN(COLOR_PAIRS, (int)ARRAY_LEN(pair_fg))) {
				init_pair((short)pair, (short)fg, (short)bg);
				pair_fg[pair] = fg, pair_bg[pair] = bg;
				pair++;
			}
			if (p < pair)
				a |= COLOR_PAIR(p);
		}
		attrs[r] = a;
	}
	fclose(f);
	*err = e.p;
	return !e.p;
}
