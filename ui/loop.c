/* ui floor 14 */
/* The viewer's event loop: one poll() over the terminal (libtermkey's fd)
 * and a signal self-pipe; loading runs in bounded slices between keys, so
 * the first screen shows before a large file is read.  Signal handlers only
 * write to the pipe; the loop does the work. */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <termkey.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "src/batch.h"
#include "src/esc.h"
#include "src/report.h"
#include "ui/app.h"
#include "ui/keymap.h"
#include "ui/lanes.h"
#include "ui/loop.h"
#include "ui/nav.h"
#include "ui/prompt.h"
#include "ui/sqlview.h"
#include "ui/theme.h"
#include "ui/view.h"


static struct {
	FILE *tty;
	SCREEN *scr;
	TermKey *tk;
	int sigpipe[2];
	bool modes; /* mouse and bracketed paste switched on */
	/* for a last-resort exit from a signal handler: the terminal as it was,
	 * and what puts its screen back (modes off, main screen, cursor) */
	int fd;
	struct termios saved;
	char leave[128];
	size_t nleave;
	/* what switches the modes on and off: only those the terminal's
	 * description has (prepare_modes) */
	char modes_on[64], modes_off[64];
} term = {.sigpipe = {-1, -1}, .fd = -1};

/* The first SIGTERM, SIGINT or SIGHUP: the loop leaves at once, and if it
 * has not within a second (a step that overran), on_alarm ends the process. */
static volatile sig_atomic_t fatal_sig;

/* mouse: button events, drag, SGR coordinates */
#define MOUSE_ON "\033[?1000h\033[?1002h\033[?1006h"
#define MOUSE_OFF "\033[?1006l\033[?1002l\033[?1000l"

/* ---- terminal life -------------------------------------------------------- */

static void on_signal(int sig)
{
	int e = errno;
	if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) && !fatal_sig) {
		fatal_sig = sig;
		alarm(1);
	}
	unsigned char c = (unsigned char)sig;
	if (write(term.sigpipe[1], &c, 1) < 0) {
		/* the pipe is full: the loop will see the earlier bytes */
	}
	errno = e;
}

/* Put the terminal back as well as can be done without curses: only
 * async-signal-safe calls (signal handlers and fatal errors use it). */
static void term_restore_raw(void)
{
	if (term.fd < 0)
		return;
	if (write(term.fd, term.leave, term.nleave) < 0) {
		/* the terminal is gone: nothing to put back */
	}
	tcsetattr(term.fd, TCSANOW, &term.saved);
	term.fd = -1; /* once */
}

/* Die of the signal that asked us to go, the terminal put back. */
static void on_alarm(int unused)
{
	(void)unused;
	term_restore_raw();
	signal(fatal_sig, SIG_DFL);
	raise(fatal_sig);
	_exit(128 + fatal_sig);
}

static const char *cap(const char *name)
{
	const char *c = tigetstr(name);
	return c && c != (char *)-1 && *c ? c : NULL;
}

/* Mouse reporting where the terminal's description has a mouse (kmous),
 * bracketed paste where it has BE (with BD, or xterm's, to end it): a
 * vt100 is sent neither. */
static void prepare_modes(void)
{
	const char *be = cap("BE"), *bd = cap("BD"), *mouse = cap("kmous");
	snprintf(term.modes_on, sizeof term.modes_on, "%s%s", mouse ? MOUSE_ON : "", be && strlen(be) < 24 ? be : "");
	snprintf(term.modes_off, sizeof term.modes_off, "%s%s",
		 be && strlen(be) < 24 ? (bd && strlen(bd) < 24 ? bd : "\033[?2004l") : "", mouse ? MOUSE_OFF : "");
}

/* What on_alarm writes: made now, as a signal handler cannot ask terminfo. */
static void prepare_leave(void)
{
	struct buf b = {0};
	buf_adds(&b, term.modes_off);
	const char *caps[] = {"rmcup", "cnorm", "sgr0"};
	for (size_t i = 0; i < ARRAY_LEN(caps); i++) {
		const char *c = tigetstr(caps[i]);
		if (c && c != (char *)-1)
			buf_adds(&b, c);
	}
	term.nleave = MIN(b.len, sizeof term.leave);
	memcpy(term.leave, b.p, term.nleave);
	buf_free(&b);
}

static void modes(bool on)
{
	if (!term.tty || on == term.modes)
		return;
	fputs(on ? term.modes_on : term.modes_off, term.tty);
	fflush(term.tty);
	term.modes = on;
}

static void term_resize(struct app *a)
{
	struct winsize ws;
	if (term.tty && ioctl(fileno(term.tty), TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	a->lines = LINES;
	a->cols = COLS;
}

bool ui_term_open(struct app *a)
{
	if (pipe(term.sigpipe) == 0) {
		fcntl(term.sigpipe[0], F_SETFL, O_NONBLOCK);
		fcntl(term.sigpipe[1], F_SETFL, O_NONBLOCK);
		fcntl(term.sigpipe[0], F_SETFD, FD_CLOEXEC);
		fcntl(term.sigpipe[1], F_SETFD, FD_CLOEXEC);
	}
	if (a->scripted) {
		const char *size = getenv("TTV_SIZE");
		int cols = 80, lines = 24;
		if (size)
			sscanf(size, "%dx%d", &cols, &lines);
		char buf[16];
		snprintf(buf, sizeof buf, "%d", lines);
		setenv("LINES", buf, 1);
		snprintf(buf, sizeof buf, "%d", cols);
		setenv("COLUMNS", buf, 1);
		FILE *null_out = fopen("/dev/null", "w"), *null_in = fopen("/dev/null", "r");
		term.scr = newterm("xterm-256color", null_out, null_in);
		term.tk = termkey_new_abstract("xterm-256color", TERMKEY_FLAG_NOTERMIOS | TERMKEY_FLAG_UTF8);
	} else {
		/* Keys come from the terminal, never from stdin (which may be the trace). */
		term.tty = fopen("/dev/tty", "r+");
		if (!term.tty) {
			fprintf(stderr, "%s: the viewer needs a terminal (/dev/tty): %s; use --dump for batch output\n",
				progname, strerror(errno));
			return false;
		}
		fcntl(fileno(term.tty), F_SETFD, FD_CLOEXEC);
		if (tcgetattr(fileno(term.tty), &term.saved) == 0)
			term.fd = fileno(term.tty);
		term.scr = newterm(NULL, term.tty, term.tty);
		/* We read the terminal ourselves (see feed_input) and hand termkey
		 * the bytes: libtermkey misreads SGR mouse reports when terminfo's
		 * kmous is "\E[<", as it is for current xterm entries. */
		const char *tn = getenv("TERM");
		if (term.scr)
			term.tk = termkey_new_abstract(tn && *tn ? tn : "xterm", TERMKEY_FLAG_NOTERMIOS | TERMKEY_FLAG_CTRLC);
	}
	if (!term.scr || !term.tk) {
		fprintf(stderr, "%s: cannot start the terminal (TERM=%s)\n", progname,
			getenv("TERM") ? getenv("TERM") : "unset");
		return false;
	}
	raw();
	noecho();
	nonl();
	curs_set(0);
	keypad(stdscr, FALSE);
	prepare_modes();
	if (!a->scripted) {
		prepare_leave();
		fatal_cleanup = term_restore_raw;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	int sigs[] = {SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGCONT, SIGTSTP};
	for (size_t i = 0; i < ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	modes(true);
	a->lines = LINES;
	a->cols = COLS;
	return true;
}

void ui_term_close(void)
{
	fatal_cleanup = NULL;
	modes(false);
	if (term.scr) {
		endwin();
		delscreen(term.scr);
	}
	if (term.tk)
		termkey_destroy(term.tk);
	if (term.tty)
		fclose(term.tty);
	for (int i = 0; i < 2; i++)
		if (term.sigpipe[i] >= 0)
			close(term.sigpipe[i]);
	signal(SIGTSTP, SIG_DFL);
}

static void suspend(struct app *a)
{
	if (a->scripted)
		return;
	modes(false);
	endwin();
	signal(SIGTSTP, SIG_DFL);
	kill(0, SIGTSTP); /* stops here until `fg` */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
	modes(true);
	term_resize(a);
	clearok(curscr, TRUE);
}

/* ---- screen dumps (scripted mode) ----------------------------------------- */

void ui_dump_screen(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	wchar_t *w = xcalloc((size_t)COLS + 1, sizeof *w);
	for (int y = 0; y < LINES; y++) {
		int n = mvwinnwstr(stdscr, y, 0, w, COLS);
		if (n < 0)
			n = 0;
		while (n > 0 && w[n - 1] == L' ')
			n--;
		for (int i = 0; i < n; i++) {
			char mb[MB_LEN_MAX];
			mbstate_t st = {0};
			size_t k = wcrtomb(mb, w[i], &st);
			fwrite(mb, 1, k == (size_t)-1 ? 0 : k, f);
		}
		fputc('\n', f);
	}
	free(w);
	fclose(f);
}

/* A cell's attributes and colour pair, as theme_attr() gives a role's. */
static int cell_attr(int y, int x)
{
	cchar_t cc;
	wchar_t wc[CCHARW_MAX + 1];
	attr_t at = 0;
	short pair = 0;
	if (mvwin_wch(stdscr, y, x, &cc) == ERR || getcchar(&cc, wc, &at, &pair, NULL) == ERR)
		return 0;
	return (int)(at | (attr_t)COLOR_PAIR(pair));
}

/* A cell's look: "FG/BG/ATTRS" (colour numbers, -1 the terminal's own;
 * b bold, d dim, r reverse, u underline). */
static void cell_look(int at, char *out, size_t n)
{
	short fg = -1, bg = -1;
	if (PAIR_NUMBER(at) && pair_content((short)PAIR_NUMBER(at), &fg, &bg) == ERR)
		fg = bg = -1;
	snprintf(out, n, "%d/%d/%s%s%s%s", fg, bg, at & A_BOLD ? "b" : "", at & A_DIM ? "d" : "",
		 at & A_REVERSE ? "r" : "", at & A_UNDERLINE ? "u" : "");
}

/* The screen (as ui_dump_screen), then a line of the looks its cells have
 * (a=FG/BG/ATTRS b=..., in the order they first come), then under it a
 * line a screen line, each cell's look as its letter: what a picture of
 * the screen is drawn from (t/picture.py). */
void ui_dump_looks(const char *path)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char looks[sizeof letters - 1][32];
	size_t nlooks = 0;
	struct buf cells = {0};
	for (int y = 0; y < LINES; y++) {
		for (int x = 0; x < COLS; x++) {
			char look[32];
			cell_look(cell_attr(y, x), look, sizeof look);
			size_t i = 0;
			while (i < nlooks && strcmp(looks[i], look))
				i++;
			if (i == nlooks && nlooks < sizeof looks / sizeof *looks)
				snprintf(looks[nlooks++], sizeof *looks, "%s", look);
			buf_addc(&cells, i < nlooks ? letters[i] : '?');
		}
		buf_addc(&cells, '\n');
	}
	ui_dump_screen(path);
	FILE *f = fopen(path, "a");
	if (f) {
		fputs("looks:", f);
		for (size_t i = 0; i < nlooks; i++)
			fprintf(f, " %c=%s", letters[i], looks[i]);
		fprintf(f, "\n%s", buf_str(&cells));
		fclose(f);
	}
	buf_free(&cells);
}

/* Under each line, a line marking highlighted cells: m a search match
 * (underlined), s the selection (reverse), . anything else.  Mono theme. */
void ui_dump_attrs(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	for (int y = 0; y < LINES; y++) {
		struct buf line = {0};
		for (int x = 0; x < COLS; x++) {
			int at = cell_attr(y, x);
			bool bar = at == theme_attr(R_BAR);
			buf_addc(&line, bar ? 'b' : (attr_t)at & A_UNDERLINE ? 'm' : (attr_t)at & A_REVERSE ? 's' : '.');
		}
		while (line.len && line.p[line.len - 1] == '.')
			line.p[--line.len] = 0;
		fprintf(f, "%s\n", buf_str(&line));
		buf_free(&line);
	}
	fclose(f);
}

/* ---- drawing -------------------------------------------------------------- */

void ui_draw(struct app *a)
{
	/* blank cells in the normal role's colours, as the text beside them:
	 * a row's end is cleared without an attribute change first */
	bkgdset((chtype)theme_attr(R_NORMAL) | ' ');
	erase();
	if (a->sel != NO_POS)
		model_keep(a->m, a->sel); /* (read by every view, around their other reads) */
	view_ops_of(view_top(a))->draw(a);
	if (a->prompt.kind != PROMPT_NONE)
		prompt_draw(a);
	else
		status_draw(a);
	refresh();
}

/* ---- background work ------------------------------------------------------ */

/* Work done a slice at a time between keys, in this order: the filters,
 * the search, its matches counted, then what the views do (their step). */
static bool work_pending(const struct app *a)
{
	return vis_pending(a) || a->seek.on || hits_pending(a) || views_pending(a);
}

static void work_step(struct app *a, uint64_t budget_ns)
{
	if (vis_pending(a)) {
		vis_step(a, budget_ns);
		refresh_selection(a); /* off an event the filter hid */
		return;
	}
	if (a->seek.on) {
		search_step(a, budget_ns); /* after the filters: it walks what they show */
		return;
	}
	if (hits_pending(a)) {
		hits_step(a, budget_ns);
		return;
	}
	views_step(a, budget_ns);
}

/* ---- actions -------------------------------------------------------------- */

void ui_toggle_follow(struct app *a)
{
	if (a->follow && a->paused) { /* F while paused: back to the end */
		jump_to(a, vis_last(a));
		a->paused = false;
		return;
	}
	a->follow = !a->follow;
	a->t->follow = a->follow;
	a->paused = false;
	if (a->follow) {
		for (size_t i = 0; i < a->t->nin; i++) {
			struct input *in = a->t->in[i];
			if (!in->src->error && !in->gone)
				in->done = in->quiet = false; /* look again: the end is not final now */
		}
		/* every file looked at, and watched from then on, in the loop's next
		 * turn (at start: after the first screen, which a fleet's watches,
		 * one a file and a directory, kept waiting 5 ms) */
		a->t->last_check = 0;
		a->loading = true;
		if (a->sel != NO_POS) /* (at start the first load selects the last event) */
			jump_to(a, vis_last(a));
		message(a, false, "following: new events appear as they are written (F stops)");
	} else {
		message(a, false, "stopped following");
	}
}

/* t: relative, the trace's clock, the wall clock (when a source anchors it). */
static void cycle_time(struct app *a)
{
	int64_t wall;
	a->time = (a->time + 1) % 3;
	if (a->time == TIME_WALL && !trace_wall_at(a->t, 0, &wall)) {
		a->time = TIME_RELATIVE;
		message(a, false, "times relative to the first event (no wall-clock anchor in the trace)");
		return;
	}
	static const char *const said[] = {"times relative to the first event", "times on the trace's own clock",
					   "wall-clock times (local time, from the trace's clock anchor)"};
	message(a, false, "%s", said[a->time]);
}

/* Actions every view shares; false when the action means nothing here. */
static bool global_action(struct app *a, enum action act)
{
	switch (act) {
	case ACT_QUIT:
		if (a->depth)
			view_close(a);
		else
			a->quit = true;
		return true;
	case ACT_BACK:
		if (a->depth) {
			view_close(a);
		} else if (a->range.has_lo || a->range.has_hi) {
			a->range = (struct time_range){0};
			message(a, false, "time range cleared");
		}
		return true;
	case ACT_SWITCH_VIEW:
		if (!a->depth)
			view_switch_base(a);
		return true;
	case ACT_JUMP_BACK: jump_history(a, -1); return true;
	case ACT_JUMP_FORWARD: jump_history(a, +1); return true;
	case ACT_PARTNER: {
		uint64_t other;
		if (a->sel == NO_POS || !model_partner(a->m, a->sel, &other))
			message(a, true, "not a span with a matching begin or end");
		else
			jump_to(a, other);
		return true;
	}
	case ACT_SET_MARK:
	case ACT_GOTO_MARK: a->pending = act; return true;
	case ACT_SEARCH: prompt_open(a, PROMPT_SEARCH, NULL); return true;
	case ACT_SEARCH_BACK: prompt_open(a, PROMPT_SEARCH_BACK, NULL); return true;
	case ACT_NEXT_MATCH: search_next(a, true); return true;
	case ACT_PREV_MATCH: search_next(a, false); return true;
	case ACT_FILTER: prompt_open(a, PROMPT_FILTER, NULL); return true;
	case ACT_COMMAND: prompt_open(a, PROMPT_COMMAND, NULL); return true;
	case ACT_SQL: prompt_open(a, PROMPT_SQL, NULL); return true;
	case ACT_FOLLOW: ui_toggle_follow(a); return true;
	case ACT_TOGGLE_TIME:
		cycle_time(a);
		return true;
	case ACT_INTERRUPT: message(a, false, "nothing to interrupt (q quits)"); return true;
	case ACT_RAW_NAMES:
		a->raw_names = !a->raw_names;
		message(a, false, "%s", a->raw_names ? "function names as written" : "function names readable (demangled)");
		return true;
	case ACT_REDRAW: clearok(curscr, TRUE); return true;
	case ACT_SUSPEND: suspend(a); return true;
	default: return view_open_by(a, act); /* (the views opened from anywhere) */
	}
}

/* A key or click: the status line's message has been seen. */
static void status_clear(struct app *a)
{
	snprintf(a->msg, sizeof a->msg, "%s", a->setup_error);
	a->msg_error = a->setup_error[0] != 0;
}

static void do_action(struct app *a, enum action act)
{
	status_clear(a);
	if ((act == ACT_BACK && !a->depth) || act == ACT_MESSAGES) /* read: it goes */
		a->msg[0] = a->setup_error[0] = 0;
	if (a->follow && act == ACT_LAST)
		a->paused = false;
	bool done = view_ops_of(view_top(a))->action(a, act);
	if (!done && !global_action(a, act) && act != ACT_NONE)
		message(a, false, "%s: not in this view", action_word(act));
}

/* A mouse report: SGR button code, press (true) or release, 0-based cell. */
static void mouse(struct app *a, int code, bool press, int line, int col)
{
	if (a->task.running) /* (a click waits for nothing) */
		return;
	a->touched = true;
	a->end_held = false;
	status_clear(a);
	int button = code & ~(4 | 8 | 16); /* without shift, meta, ctrl */
	if (!press && button == 0 && a->press.on) { /* a drag ends: the lanes take a range */
		a->press.on = false;
		const struct view_ops *ops = view_ops_of(view_top(a));
		if (ops->drag && abs(col - a->press.col) >= 2)
			ops->drag(a, a->press.line, a->press.col, col);
		return;
	}
	if (!press || code & 32) /* other releases and motion carry no command */
		return;
	if (button == 64 || button == 65) {
		for (int i = 0; i < 3; i++)
			do_action(a, button == 64 ? ACT_MOVE_UP : ACT_MOVE_DOWN);
		return;
	}
	if (button != 0)
		return;
	a->press.on = true;
	a->press.line = line;
	a->press.col = col;
	if (view_ops_of(view_top(a))->click)
		view_ops_of(view_top(a))->click(a, line, col);
}

/* Keys that came while a task ran: done after it, in order. */
static TermKeyKey waiting[32];
static size_t nwaiting;

static void task_key(struct app *a, const TermKeyKey *k)
{
	enum action act = keymap_lookup(a->km, view_top(a), k);
	if (act == ACT_BACK || act == ACT_INTERRUPT) {
		a->task.stop = true;
		nwaiting = 0; /* (typed at a task that took too long: not wanted now) */
	} else if (nwaiting < ARRAY_LEN(waiting))
		waiting[nwaiting++] = *k;
}

void ui_key(struct app *a, TermKeyKey *k);

static void keys_waiting(struct app *a)
{
	TermKeyKey k[ARRAY_LEN(waiting)];
	size_t n = nwaiting;
	memcpy(k, waiting, n * sizeof *k);
	nwaiting = 0;
	for (size_t i = 0; i < n && !a->quit; i++)
		ui_key(a, &k[i]);
}

void ui_key(struct app *a, TermKeyKey *k)
{
	a->touched = true;
	a->end_held = false; /* the user may move away from the end */
	if (k->type == TERMKEY_TYPE_UNKNOWN_CSI) {
		long args[4];
		size_t nargs = 4;
		unsigned long cmd;
		if (termkey_interpret_csi(term.tk, k, args, &nargs, &cmd) == TERMKEY_RES_KEY && cmd == '~' && nargs &&
		    (args[0] == 200 || args[0] == 201)) {
			a->prompt.pasting = args[0] == 200;
			if (a->prompt.pasting && a->prompt.kind == PROMPT_NONE)
				message(a, false, "paste ignored: open a prompt (/ & :) first");
		}
		return;
	}
	if (a->task.running) {
		task_key(a, k);
		return;
	}
	if (a->prompt.kind != PROMPT_NONE) {
		prompt_key(a, k);
		if (a->command_act) {
			enum action act = a->command_act;
			a->command_act = ACT_NONE;
			do_action(a, act);
		}
		return;
	}
	if (a->prompt.pasting)
		return; /* pasted text outside a prompt is never a command */
	if (a->pending) {
		enum action p = a->pending;
		a->pending = ACT_NONE;
		int c = k->type == TERMKEY_TYPE_UNICODE && !k->modifiers ? (int)k->code.codepoint : 0;
		if (p == ACT_SET_MARK)
			set_mark(a, c);
		else
			goto_mark(a, c);
		return;
	}
	enum action act = keymap_lookup(a->km, view_top(a), k);
	if ((act == ACT_BACK || act == ACT_INTERRUPT) && (search_cancel(a) || filter_cancel(a)))
		return;
	do_action(a, act);
}

/* ---- terminal input ------------------------------------------------------- */

/* A mouse report split across reads (or a lone Esc, which may start one)
 * waits here for its end; release_held() hands it to libtermkey when no
 * more came within libtermkey's wait time. */
static char held[64];
static size_t nheld;

/* Every whole key libtermkey holds; AGAIN when what is left may be the
 * start of one (with `force`, even that is taken as it stands). */
static TermKeyResult drain_keys(struct app *a, bool force)
{
	TermKeyKey k;
	TermKeyResult r;
	while ((r = force ? termkey_getkey_force(term.tk, &k) : termkey_getkey(term.tk, &k)) == TERMKEY_RES_KEY && !a->quit)
		ui_key(a, &k);
	return r;
}

static void release_held(struct app *a)
{
	termkey_push_bytes(term.tk, held, nheld);
	nheld = 0;
	drain_keys(a, true); /* a lone Escape is a key now */
}

/* Bytes from the terminal: SGR mouse reports (ESC [ < b ; x ; y M|m) are
 * taken out here; everything else goes to libtermkey.  True when a key may
 * be incomplete (held here, or in libtermkey: a lone Escape?). */
bool ui_feed(struct app *a, const char *p, size_t n)
{
	char buf[4096 + sizeof held];
	size_t len = nheld;
	memcpy(buf, held, nheld);
	n = MIN(n, sizeof buf - len);
	memcpy(buf + len, p, n);
	len += n;
	nheld = 0;
	size_t i = 0, plain = 0;
	while (i < len) {
		if (buf[i] != '\033' || len - i < 3 || memcmp(buf + i, "\033[<", 3)) {
			if (buf[i] == '\033' && len - i < 3 && !memcmp(buf + i, "\033[<", len - i)) {
				break; /* maybe the start of a report */
			}
			i++;
			continue;
		}
		size_t j = i + 3;
		while (j < len && j - i < sizeof held && ((buf[j] >= '0' && buf[j] <= '9') || buf[j] == ';'))
			j++;
		if (j == len && j - i < sizeof held)
			break; /* incomplete: wait for the rest */
		termkey_push_bytes(term.tk, buf + plain, i - plain);
		int code, x, y;
		if (j < len && (buf[j] == 'M' || buf[j] == 'm') && sscanf(buf + i + 3, "%d;%d;%d", &code, &x, &y) == 3)
			mouse(a, code, buf[j] == 'M', y - 1, x - 1);
		i = plain = j < len ? j + 1 : j;
	}
	termkey_push_bytes(term.tk, buf + plain, i - plain);
	nheld = len - i;
	memcpy(held, buf + i, nheld);
	return drain_keys(a, false) == TERMKEY_RES_AGAIN || nheld;
}

/* ---- loading -------------------------------------------------------------- */

/* Damage is told as soon as it is found (the first screen of a crashed
 * session says so): the first new report, and how many there are; the
 * info view (=) lists them all. */
static void tell_damage(struct app *a)
{
	uint64_t n = 0;
	const struct source *last = NULL;
	for (size_t i = 0; i < a->t->nsrc; i++) {
		const struct source *s = a->t->src[i];
		n += s->ndmg + s->dmg_dropped + (s->error != NULL);
		if (s->ndmg || s->error)
			last = s;
	}
	if (n <= a->damage_told || !last) {
		a->damage_told = n; /* a truncated file read again drops its reports */
		return;
	}
	uint64_t fresh = n - a->damage_told;
	a->damage_told = n;
	char where[64] = "";
	const char *path = last->path, *what = last->error;
	if (last->ndmg) { /* the first new one: where the damage starts */
		const struct damage *d = source_damage_found(last, fresh < last->ndmg ? last->ndmg - fresh : 0);
		path = d->path;
		what = d->msg;
		if (d->has_off)
			snprintf(where, sizeof where, ": offset %llu", (unsigned long long)d->off);
	}
	/* the status line is short: the file's name and its folder's */
	const char *name = path + strlen(path);
	for (int slashes = 0; name > path && slashes < 2; name--)
		if (name[-1] == '/' && ++slashes == 2)
			break;
	message(a, true, "damaged: %s%s: %s (%llu report%s; = lists them)", name, where, what, (unsigned long long)n,
		n > 1 ? "s" : "");
}

/* The first screen says what is there and where the keys are, as lnav does;
 * once everything is read it says how much. */
#define HINT_KEYS "? shows the keys, q quits"

static void hint(struct app *a)
{
	/* (not over another message, but over its own "reading…" one) */
	if (a->touched || a->hinted || (a->msg[0] && !strstr(a->msg, HINT_KEYS)))
		return;
	struct buf b = {0};
	if (a->loading) {
		buf_adds(&b, "reading; ");
	} else {
		a->hinted = true;
		fmt_count(&b, vis_count(a));
		buf_printf(&b, " event%s in %u lane%s; ", vis_count(a) == 1 ? "" : "s", model_nlanes(a->m),
			   model_nlanes(a->m) == 1 ? "" : "s");
	}
	buf_adds(&b, HINT_KEYS);
	message(a, false, "%s", b.p);
	buf_free(&b);
}

/* was_last: the last visible event before this load */
static void after_load(struct app *a, uint64_t before, bool was_at_end, struct evref was_last)
{
	lanes_sync(a);
	uint64_t n = model_count(a->m);
	if (model_generation(a->m) != a->vis.gen)
		vis_reset(a);
	vis_step(a, SLICE_NS); /* more slices follow from the loop */
	lanes_first_fit(a);
	if (a->sel == NO_POS && !a->sel_ref.set) /* the first events: following starts at the end */
		select_pos(a, a->follow ? vis_last(a) : vis_first_timed(a));
	else if (!a->touched && !a->follow) /* untouched: on the first timeline event as more is read */
		select_pos(a, vis_first_timed(a));
	else /* (back on its event if a truncated file brought it back) */
		refresh_selection(a);
	if (a->sel != NO_POS && a->follow && n > before) {
		a->end_held = false;
		if (was_at_end && !a->paused) {
			select_pos(a, vis_last(a)); /* at the end: move with the new events */
		} else if (!a->paused) {
			a->paused = true; /* scrolled away: hold still, count what arrives */
			a->pause_mark = was_last;
		}
	}
	if (a->t->notices != a->notices) {
		a->notices = a->t->notices;
		message(a, false, "%s", a->t->notice);
	}
	if (!a->loading && !a->clocks_said) {
		struct buf w = {0};
		a->clocks_said = true;
		if (clock_warning(a->t, &w))
			message(a, true, "%s", w.p);
		buf_free(&w);
	}
	hint(a);
}

/* Look at the files (truncated, replaced, gone): a truncated file's events
 * are dropped, so whether the selection was at the end is taken first, and
 * held until events come again. */
bool ui_check_files(struct app *a, bool woken)
{
	a->end_held |= a->follow && at_end(a);
	return trace_check(a->t, woken);
}

/* The index saved meanwhile: said when it could not be. */
static void tell_save(struct app *a)
{
	if (trace_save_poll(a->t) && a->t->save_error && !a->t->save_error_said) {
		a->t->save_error_said = true;
		message(a, false, "the index was not saved for the next run: %s", a->t->save_error);
	}
}

void ui_load_step(struct app *a, uint64_t budget_ns, bool wait)
{
	uint64_t before = model_count(a->m);
	bool was_at_end = at_end(a) || a->end_held;
	struct evref was_last = ref_of(a, vis_last(a));
	uint64_t read_before, total_before, read, total;
	trace_progress(a->t, &read_before, &total_before);
	a->loading = trace_step(a->t, budget_ns, wait);
	trace_progress(a->t, &read, &total);
	/* (nothing read, nothing to wait for: waiting for more to come) */
	a->load_waits = read == read_before && total == total_before && !model_merging(a->m);
	if (model_count(a->m) != before || model_generation(a->m) != a->vis.gen || !a->loading ||
	    a->t->notices != a->notices)
		after_load(a, before, was_at_end, was_last);
	tell_damage(a);
	if (!a->loading && !a->fields_checked && model_count(a->m)) {
		a->fields_checked = true;
		filters_check_fields(a);
	}
	if (!a->loading && !a->t->follow) /* all there: its index saved for the next run meanwhile, not on q */
		trace_save_begin(a->t);
	tell_save(a);
}

/* ---- scripted runs -------------------------------------------------------- */

/* The terminal is gone (SIGHUP, or EOF or EIO on it): leave at once, and
 * die of SIGHUP once what can be put back is (ui_run), as a process whose
 * terminal hung up does.  That skips exit-time work: the sanitizers' leak
 * check stops every thread with ptrace, and the SIGCONT that follows a
 * hangup can cancel its SIGSTOP, leaving the check waiting forever. */
static void hangup(struct app *a)
{
	a->quit = true;
	fatal_sig = SIGHUP;
}

static void handle_signals(struct app *a)
{
	unsigned char sig;
	while (read(term.sigpipe[0], &sig, 1) == 1) {
		switch (sig) {
		case SIGWINCH: term_resize(a); break;
		case SIGCONT:
			modes(true);
			term_resize(a);
			clearok(curscr, TRUE);
			break;
		case SIGTSTP: suspend(a); break;
		case SIGHUP: hangup(a); break;
		default: a->quit = true; break; /* SIGTERM, SIGINT: leave cleanly */
		}
	}
}

#define FOLLOW_TICK_MS 250 /* following: look at the files at least this often */
#define BUSY_LOOK_NS 20000000ull  /* a task running: the terminal is looked at this often */
#define BUSY_SAY_NS 150000000ull  /* and the screen drawn, once it has run this long */

/* A key begun but not finished when a task ended (the loop takes it as
 * it stands after libtermkey's wait time). */
static bool busy_left_key;

/* (app.busy: while a task runs) */
bool ui_busy(struct app *a)
{
	static uint64_t key_due;
	uint64_t now = now_ns();
	if (a->scripted || now - a->task.drawn < BUSY_LOOK_NS)
		return a->task.stop || a->quit;
	struct pollfd p[2] = {{fileno(term.tty), POLLIN, 0}, {term.sigpipe[0], POLLIN, 0}};
	if (poll(p, 2, 0) > 0) {
		if (p[1].revents)
			handle_signals(a);
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
			char buf[4096];
			ssize_t n = read(fileno(term.tty), buf, sizeof buf);
			if (n > 0)
				key_due = ui_feed(a, buf, (size_t)n) ? now + (uint64_t)termkey_get_waittime(term.tk) * 1000000 : 0;
			else if (n == 0 || (errno != EINTR && errno != EAGAIN))
				hangup(a);
		}
	}
	if (key_due && now >= key_due) {
		key_due = 0;
		release_held(a); /* a lone Escape: stop */
	}
	busy_left_key = key_due != 0;
	if (now - a->task.started >= BUSY_SAY_NS) {
		ui_draw(a);
		a->task.drawn = now_ns();
	} else {
		a->task.drawn = now;
	}
	return a->task.stop || a->quit;
}

void ui_loop(struct app *a)
{
	/* a key begun but not finished (a lone Escape?) is taken as it stands at
	 * this time (libtermkey's wait time after its last byte); volatile: it
	 * survives the SIGBUS longjmp */
	volatile uint64_t key_due = 0;
	/* for make bench: quit once a screen with events is on the terminal,
	 * and write the time it took to that file */
	const char *first_screen = getenv("TTV_QUIT_AT_FIRST_SCREEN");
	while (!a->quit) {
		/* a file we map shrank: leave what we were doing, look at every
		 * input (trace_check reads what is gone again), redraw */
		if (sigsetjmp(trace_bus_jmp, 1)) {
			a->t->last_check = 0;
			ui_check_files(a, false);
			a->loading = true;
			if (a->task.running)
				a->task.abandon(a);
			message(a, true, "a file shrank while it was read: looked at every file again");
		}
		trace_bus_armed = 1;
		ui_draw(a);
		if (first_screen && (model_count(a->m) || !a->loading)) {
			FILE *f = fopen(first_screen, "w");
			if (f) {
				fprintf(f, "%llu\n", (unsigned long long)(now_ns() - start_ns));
				fclose(f);
			}
			break;
		}
		/* (a slow stream: poll wakes when its fd says more came, at the latest soon) */
		bool busy = (a->loading && !a->load_waits) || work_pending(a); /* else poll sleeps */
		struct pollfd p[2 + 16] = {{fileno(term.tty), POLLIN, 0}, {term.sigpipe[0], POLLIN, 0}};
		nfds_t np = 2 + trace_poll_fds(a->t, p + 2, ARRAY_LEN(p) - 2);
		int wait_ms = -1;
		if (key_due) {
			uint64_t t = now_ns();
			wait_ms = key_due > t ? (int)((key_due - t + 999999) / 1000000) : 0;
		}
		bool ticks = a->follow || a->loading || a->t->saving; /* (a save: its end is told) */
		int timeout = busy ? 0 : ticks ? (wait_ms >= 0 ? MIN(wait_ms, FOLLOW_TICK_MS) : FOLLOW_TICK_MS) : wait_ms;
		int r = poll(p, np, timeout);
		if (r < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			handle_signals(a);
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
			char buf[4096];
			ssize_t n = read(fileno(term.tty), buf, sizeof buf);
			if (n > 0 && ui_feed(a, buf, (size_t)n))
				key_due = now_ns() + (uint64_t)termkey_get_waittime(term.tk) * 1000000;
			else if (n > 0)
				key_due = 0;
			else if (n == 0 || (errno != EINTR && errno != EAGAIN))
				hangup(a); /* EOF or EIO: the terminal went away */
		}
		if (key_due && now_ns() >= key_due) {
			key_due = 0;
			release_held(a); /* nothing more came: a lone Escape is a key */
		}
		if (busy_left_key) { /* a task ran while a key came in halves */
			busy_left_key = false;
			key_due = now_ns() + (uint64_t)termkey_get_waittime(term.tk) * 1000000;
		}
		if (nwaiting)
			keys_waiting(a);
		bool streams = false, woken = false; /* data on a pipe or socket; the watch saw a change */
		for (nfds_t i = 2; i < np; i++) {
			bool ready = p[i].revents & (POLLIN | POLLHUP);
			if (p[i].fd == trace_watch_fd(a->t))
				woken |= ready;
			else
				streams |= ready;
		}
		if (a->follow) {
			if (ui_check_files(a, woken) || streams)
				a->loading = true;
		} else if (streams) {
			a->loading = true;
		}
		if (a->t->saving)
			tell_save(a);
		if (a->loading)
			ui_load_step(a, SLICE_NS, false);
		else
			work_step(a, SLICE_NS);
		if (a->fs->too_expensive) {
			a->fs->too_expensive = false;
			message(a, true, "pattern too expensive for some events (pcre2 limits): they do not match");
		}
	}
	trace_bus_armed = 0;
}

TermKey *ui_termkey(void) { return term.tk; }

int ui_fatal_signal(void) { return fatal_sig; }
