/* ui floor 15 */
/* script.c: TTV_SCRIPT=FILE, the viewer driven by steps from a file
 * instead of a terminal, for the tests and the bench (ui/ui.h lists the
 * steps): keys, typed and pasted text, clicks and drags, resizes, shell
 * commands, looking at growing files, and screens written out. */
#include <curses.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termkey.h>
#include <time.h>

#include "src/esc.h"
#include "ui/app.h"
#include "ui/loop.h"
#include "ui/nav.h"
#include "ui/prompt.h"
#include "ui/script.h"
#include "ui/view.h"

/* The files looked at and what they grew by loaded, as the loop does
 * when woken. */
static void take_in(struct app *a)
{
	ui_check_files(a, true);
	a->loading = true;
	while (a->loading)
		ui_load_step(a, SLICE_NS, false);
}

/* The follow loop run until there are `want` events, or for ms. */
static void follow_until(struct app *a, uint64_t want, uint64_t ms)
{
	uint64_t until = now_ns() + ms * 1000000;
	while (model_count(a->m) < want && now_ns() < until) {
		struct pollfd p[17];
		poll(p, trace_poll_fds(a->t, p, ARRAY_LEN(p)), 100);
		take_in(a);
	}
}

static bool script_step(struct app *a, char *line)
{
	line[strcspn(line, "\r\n")] = 0;
	if (!*line || *line == '#')
		return true;
	TermKeyKey k;
	if (!strncmp(line, "dump ", 5)) {
		ui_draw(a);
		ui_dump_screen(line + 5);
	} else if (!strncmp(line, "dumpattr ", 9)) {
		ui_draw(a);
		ui_dump_attrs(line + 9);
	} else if (!strncmp(line, "dumplooks ", 10)) {
		ui_draw(a);
		ui_dump_looks(line + 10);
	} else if (!strncmp(line, "type ", 5) || !strncmp(line, "paste ", 6)) {
		bool paste = *line == 'p';
		const char *s = line + (paste ? 6 : 5);
		if (paste)
			a->prompt.pasting = true;
		while (*s) {
			uint32_t cp;
			size_t n = utf8_decode((const uint8_t *)s, strlen(s), &cp);
			if (!n)
				n = 1, cp = (uint8_t)*s;
			memset(&k, 0, sizeof k);
			k.type = TERMKEY_TYPE_UNICODE;
			k.code.codepoint = (long)cp;
			snprintf(k.utf8, sizeof k.utf8, "%.*s", (int)n, s);
			ui_key(a, &k);
			s += n;
		}
		if (paste)
			a->prompt.pasting = false;
	} else if (!strcmp(line, "check")) {
		a->t->last_check = 0; /* (now, whenever they were last looked at) */
		take_in(a);
	} else if (!strcmp(line, "await") || !strncmp(line, "await ", 6)) {
		/* until new events arrive, or until there are N (at most 5 s) */
		follow_until(a, line[5] ? strtoull(line + 6, NULL, 10) : model_count(a->m) + 1, 5000);
	} else if (!strncmp(line, "follow ", 7)) {
		follow_until(a, UINT64_MAX, strtoull(line + 7, NULL, 10));
	} else if (!strncmp(line, "shell ", 6)) {
		if (system(line + 6) != 0)
			fprintf(stderr, "%s: script: '%s' failed\n", progname, line + 6);
	} else if (!strncmp(line, "resize ", 7)) {
		int c, l;
		if (sscanf(line + 7, "%dx%d", &c, &l) == 2) {
			resizeterm(l, c);
			a->lines = LINES;
			a->cols = COLS;
		}
	} else if (!strncmp(line, "drag ", 5)) { /* drag LINE COL COL: press, then release further on */
		int y, x0, x1;
		if (sscanf(line + 5, "%d %d %d", &y, &x0, &x1) != 3)
			return false;
		char seq[64];
		snprintf(seq, sizeof seq, "\033[<0;%d;%dM\033[<0;%d;%dm", x0 + 1, y + 1, x1 + 1, y + 1);
		ui_feed(a, seq, strlen(seq));
	} else if (!strncmp(line, "click ", 6) || !strncmp(line, "wheel ", 6)) {
		char dir[8] = "";
		int y = 0, x = 0;
		bool wheel = line[0] == 'w';
		if (wheel ? sscanf(line + 6, "%7s %d %d", dir, &y, &x) != 3 : sscanf(line + 6, "%d %d", &y, &x) != 2)
			return false;
		/* An SGR mouse report, as a terminal would send it. */
		char seq[64];
		int b = wheel ? (strcmp(dir, "up") ? 65 : 64) : 0;
		snprintf(seq, sizeof seq, "\033[<%d;%d;%dM\033[<%d;%d;%dm", b, x + 1, y + 1, b, x + 1, y + 1);
		ui_feed(a, seq, strlen(seq));
	} else {
		const char *end = termkey_strpkey(ui_termkey(), line, &k, TERMKEY_FORMAT_VIM);
		if (!end || *end) {
			fprintf(stderr, "%s: script: cannot read key '%s'\n", progname, line);
			return false;
		}
		ui_key(a, &k);
	}
	return true;
}

/* TTV_SCRIPT=FILE: keys from a file, for the tests and the bench.
 * Deterministic: everything is read and filtered before the first step. */
void run_script(struct app *a, const char *script)
{
	while (a->loading)
		ui_load_step(a, SLICE_NS, !a->follow);
	while (vis_step(a, SLICE_NS))
		;
	refresh_selection(a);
	FILE *f = fopen(script, "r");
	/* TTV_SCRIPT_TIMING=FILE: each step is drawn, and a line written there
	 * (the bench uses it): the step, ns from the key to the finished
	 * screen, and the wall-clock time (ns since 1970) when it was done. */
	const char *tpath = getenv("TTV_SCRIPT_TIMING");
	FILE *timing = tpath && *tpath ? fopen(tpath, "w") : NULL;
	char line[4096];
	bool partial = false; /* `partial`: filters advance a little per step, as in a busy loop */
	while (f && !a->quit && fgets(line, sizeof line, f)) {
		uint64_t t0 = now_ns();
		if (!strncmp(line, "partial", 7)) {
			partial = true;
			continue;
		}
		if (!script_step(a, line))
			break;
		if (partial)
			vis_step_events(a, 32768);
		else
			while (vis_step(a, SLICE_NS)) /* filters finish before the next step */
				;
		refresh_selection(a);
		while (search_step(a, partial ? 0 : SLICE_NS) && !partial) /* and searches */
			;
		while (!partial && hits_step(a, SLICE_NS))
			;
		while (!partial && views_step(a, SLICE_NS)) /* and the views' own work */
			;
		if (timing) {
			ui_draw(a);
			line[strcspn(line, "\r\n")] = 0;
			uint64_t t1 = now_ns();
			struct timespec wall; /* for latencies against other processes' clocks */
			clock_gettime(CLOCK_REALTIME, &wall);
			fprintf(timing, "%s\t%llu\t%llu%09ld\n", line, (unsigned long long)(t1 - t0),
				(unsigned long long)wall.tv_sec, wall.tv_nsec);
		}
	}
	if (timing)
		fclose(timing);
	if (f)
		fclose(f);
}
