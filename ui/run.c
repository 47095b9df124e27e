/* ui floor 16 */
/* run.c: the viewer's life: the terminal and the settings set up, the
 * loop (or a script) run, and what it leaves told and saved. */
#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ui/app.h"
#include "ui/keymap.h"
#include "ui/loop.h"
#include "ui/nav.h"
#include "ui/prompt.h"
#include "ui/script.h"
#include "ui/theme.h"
#include "ui/ui.h"
#include "ui/view.h"
#include "ui/viewtree.h"

/* The keymap, the user's own bindings, the theme, the config file; what
 * could not be read is said on the status line. */
static void apply_settings(struct app *a, const struct cli *c)
{
	struct buf errors = {0};
	a->km = keymap_new(ui_termkey());
	const char *kmname = c->keymap ? c->keymap : "less";
	const char *kmpath = NULL;
	FILE *kmf = data_open("keymaps", kmname, ".keys", &kmpath);
	if (!kmf) { /* the keys of less (built in) rather than none at all */
		buf_printf(&errors, "keymap '%s' not found: the less keys instead", kmname);
		kmf = data_open("keymaps", "less", ".keys", &kmpath);
	}
	if (kmf)
		keymap_read(a->km, kmf, kmpath, &errors);
	const char *cfg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct buf user = {0};
	if (cfg && *cfg)
		buf_printf(&user, "%s/ttv/keys", cfg);
	else if (home)
		buf_printf(&user, "%s/.config/ttv/keys", home);
	if (user.len && access(user.p, R_OK) == 0)
		keymap_load(a->km, user.p, &errors);
	buf_free(&user);
	const char *nc = getenv("NO_COLOR");
	bool mono = (nc && *nc) || !has_colors();
	char *terr = NULL;
	theme_load(c->theme ? c->theme : mono ? "mono" : "dark", mono, &terr);
	if (terr)
		buf_printf(&errors, "%s%s", errors.len ? "; " : "", terr);
	free(terr);
	/* the config file's bad lines (file:line: why), after its own messages */
	for (const char *p = buf_str(&c->cfg_errors); *p;) {
		size_t n = strcspn(p, "\n");
		buf_printf(&errors, "%s%.*s", errors.len ? "; " : "", (int)n, p);
		p += n + (p[n] == '\n');
	}
	a->time = c->time;
	if (c->follow)
		ui_toggle_follow(a);
	if (errors.len) { /* after follow's own message: errors matter more */
		message(a, true, "%s (Esc: seen)", errors.p);
		snprintf(a->setup_error, sizeof a->setup_error, "%s", a->msg);
	}
	buf_free(&errors);
}

static void app_free(struct app *a)
{
	keymap_free(a->km);
	free(a->vis.bits);
	free(a->vis.rank);
	free(a->order);
	free(a->lane_flags);
	free(a->type_role);
	free(a->hist);
	views_free(a);
	viewtree_free(a);
	for (size_t i = 0; i < ARRAY_LEN(a->mark_note); i++)
		free(a->mark_note[i]);
	buf_free(&a->messages);
	prompt_free(a);
	filter_free(&a->search);
	free(a->search_text);
	free(a->hits.bits);
}

int ui_run(struct trace *t, struct filterset *fs, const struct cli *c)
{
	setlocale(LC_ALL, "");
	/* (the visible set is of no generation yet: the first load step sets up
	 * the views even when main()'s first look read everything there is) */
	struct app app = {.t = t, .m = t->m, .fs = fs, .base = V_LANES, .sel = NO_POS, .loading = true,
			  .vis.gen = UINT64_MAX};
	struct app *a = &app;
	const char *script = getenv("TTV_SCRIPT");
	a->scripted = script && *script;
	a->unicode = MB_CUR_MAX > 1;
	a->busy = ui_busy;
	if (!ui_term_open(a)) {
		ui_term_close();
		return 1;
	}
	apply_settings(a, c);
	if (a->scripted) {
		run_script(a, script);
	} else {
		ui_load_step(a, model_count(a->m) ? 0 : FIRST_SLICE_NS, false); /* (main's first look found some: show them) */
		ui_loop(a);
	}
	ui_term_close();
	trace_save_end(t, ui_fatal_signal()); /* (on a signal: given up, nothing left of it) */
	if (ui_fatal_signal() == SIGHUP) {
		signal(SIGHUP, SIG_DFL);
		raise(SIGHUP);
	}
	alarm(0); /* the loop has left: no last-resort exit now */
	app_free(a);
	trace_report(t);
	if (!ui_fatal_signal()) /* quit: a trace read in full keeps its index for the next run (not on a signal) */
		trace_save(t);
	trace_save_tell(t, stderr);
	return !trace_any_readable(t) ? 1 : trace_damaged(t) ? 3 : 0;
}
