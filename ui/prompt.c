/* ui floor 9 */
/* The prompt line (/ search, & filter, : command), its history, search,
 * and the status line. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <termkey.h>

#include "src/esc.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/nav.h"
#include "ui/prompt.h"
#include "ui/sqlview.h"
#include "ui/view.h"

#define PREVIEW_SCAN 200000 /* events a search looks at per keystroke while typing */
#define HISTORY_MAX 500     /* entries kept per prompt kind */

static const char *const prefix[] = {"", "/", "?", "&", ":", ";"};

/* ---- history: $XDG_STATE_HOME/ttv/history, one `KIND TEXT` per line ------ */

static char *history_path(bool create)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	struct buf b = {0};
	if (state && *state)
		buf_printf(&b, "%s/ttv", state);
	else if (home && *home)
		buf_printf(&b, "%s/.local/state/ttv", home);
	else
		return NULL;
	if (create) {
		/* mkdir -p for the last two levels; failure shows up at fopen */
		char *slash = strrchr(b.p, '/');
		*slash = 0;
		mkdir(b.p, 0700);
		*slash = '/';
		mkdir(b.p, 0700);
	}
	buf_adds(&b, "/history");
	return b.p;
}

static void history_free(struct prompt *p)
{
	for (size_t i = 0; i < p->nhist; i++)
		free(p->hist[i]);
	free(p->hist);
	p->hist = NULL;
	p->nhist = p->hist_at = 0;
}

static void history_load(struct prompt *p)
{
	history_free(p);
	char *path = history_path(false);
	FILE *f = path ? fopen(path, "r") : NULL;
	free(path);
	size_t cap = 0;
	char line[4096];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] != prefix[p->kind][0] || line[1] != ' ')
			continue;
		xgrow(&p->hist, &cap, p->nhist + 1, sizeof *p->hist);
		p->hist[p->nhist++] = xstrdup(line + 2);
	}
	if (f)
		fclose(f);
	if (p->nhist > HISTORY_MAX) {
		for (size_t i = 0; i < p->nhist - HISTORY_MAX; i++)
			free(p->hist[i]);
		memmove(p->hist, p->hist + p->nhist - HISTORY_MAX, HISTORY_MAX * sizeof *p->hist);
		p->nhist = HISTORY_MAX;
	}
	p->hist_at = p->nhist;
}

static void history_add(enum prompt_kind kind, const char *text)
{
	if (!*text || strchr(text, '\n'))
		return;
	char *path = history_path(true);
	FILE *f = path ? fopen(path, "a") : NULL;
	if (f) {
		fprintf(f, "%s %s\n", prefix[kind], text);
		fclose(f);
	}
	free(path);
}

/* ---- opening and closing -------------------------------------------------- */

void prompt_open(struct app *a, enum prompt_kind kind, const char *initial)
{
	struct prompt *p = &a->prompt;
	p->kind = kind;
	buf_reset(&p->text);
	if (initial)
		buf_adds(&p->text, initial);
	p->cursor = p->text.len;
	free(p->error);
	p->error = NULL;
	p->editing = -1;
	p->origin = a->sel;
	history_load(p);
}

static void close_prompt(struct app *a)
{
	a->prompt.kind = PROMPT_NONE;
	free(a->prompt.error);
	a->prompt.error = NULL;
}

void prompt_free(struct app *a)
{
	history_free(&a->prompt);
	buf_free(&a->prompt.text);
	buf_free(&a->prompt.draft);
	free(a->prompt.error);
}

/* ---- search --------------------------------------------------------------- */

/* A search uses the filter syntax (`/type:CONNECT`, `/!re` finds events that
 * do not match) and runs in steps from the loop, as filters do, so a costly
 * pattern or a long trace never blocks keys: Esc or C-c stop it. */

static bool search_hit(struct app *a, uint64_t pos)
{
	struct event e;
	model_get(a->m, pos, &e);
	trace_scan(a->t, &e);
	bool expensive = false;
	bool hit = filter_hit(&a->search, a->t, &e, &expensive) != a->search.exclude;
	if (expensive)
		message(a, true, "pattern too expensive for some events (pcre2 limits): they do not match");
	return hit;
}

static void seek_start(struct app *a, uint64_t from, bool forward, bool preview)
{
	a->seek = (struct seek){.on = true, .forward = forward, .preview = preview, .from = from, .at = from};
}

/* The search ends: on an event, or NO_POS when there is none. */
static void seek_end(struct app *a, uint64_t pos)
{
	struct seek *s = &a->seek;
	s->on = false;
	if (s->preview) {
		if (pos != NO_POS)
			select_pos(a, pos);
	} else if (pos == NO_POS) {
		message(a, true, "pattern not found: %s", a->search.spec);
	} else {
		jump_to(a, pos);
		if (s->wrapped)
			message(a, false, "search wrapped %s", s->forward ? "to the start" : "to the end");
	}
}

bool search_step(struct app *a, uint64_t budget_ns)
{
	struct seek *s = &a->seek;
	uint64_t deadline = now_ns() + budget_ns;
	for (uint64_t n = 0; s->on; n++) {
		if (n && now_ns() >= deadline) /* (at least one event per step) */
			return true;
		if (s->preview && s->looked >= PREVIEW_SCAN) {
			s->on = false; /* while typing, look near the cursor only */
			break;
		}
		uint64_t p = s->forward ? vis_next(a, s->at) : vis_prev(a, s->at);
		if (p == NO_POS) {
			p = s->forward ? vis_first(a) : vis_last(a);
			if (s->wrapped || p == NO_POS) {
				seek_end(a, NO_POS);
				break;
			}
			s->wrapped = true;
		}
		if (s->wrapped && s->from != NO_POS && (s->forward ? p > s->from : p < s->from)) {
			seek_end(a, NO_POS); /* went all the way round */
			break;
		}
		s->at = p;
		s->looked++;
		if (search_hit(a, p))
			seek_end(a, p);
		else if (s->wrapped && p == s->from)
			seek_end(a, NO_POS);
	}
	return false;
}

bool search_cancel(struct app *a)
{
	if (!a->seek.on)
		return false;
	a->seek.on = false;
	message(a, false, "search cancelled");
	return true;
}

void search_next(struct app *a, bool forward)
{
	if (!a->search.spec) {
		message(a, false, "no search yet: / starts one");
		return;
	}
	seek_start(a, a->sel, forward, false);
}

/* A filter or search as typed, checked against the trace (a field it
 * has): false with *err and where in spec it is (*at). */
static bool filter_make(struct app *a, struct filter *f, const char *spec, char **err, size_t *at)
{
	if (!filter_parse(f, spec, err, at))
		return false;
	if (filter_check(f, a->t, err))
		return true;
	*at = *spec == '!'; /* (at the field's name) */
	filter_free(f);
	return false;
}

/* The search as typed (a spec), or false with a->prompt.error and where it
 * is in *at. */
static bool search_set(struct app *a, const char *spec, size_t *at)
{
	struct filter f;
	char *err = NULL;
	if (!filter_make(a, &f, spec, &err, at)) {
		free(a->prompt.error);
		a->prompt.error = err;
		return false;
	}
	filter_free(&a->search);
	a->search = f;
	a->hits.done = 0; /* counted again */
	return true;
}

bool search_for(struct app *a, const char *spec)
{
	size_t at;
	if (!search_set(a, spec, &at))
		return false;
	free(a->search_text);
	a->search_text = xstrdup(spec);
	return true;
}

/* ---- match counts --------------------------------------------------------- */

/* " | match 3 of 9", " | 9 matches", and "+, counting" while they are marked. */
static void match_count(struct app *a, struct buf *b)
{
	if (!a->search.spec || a->seek.preview)
		return;
	uint64_t total = hits_before(a, UINT64_MAX);
	const char *more = hits_pending(a) ? "+, counting" : "";
	bool on = a->sel != NO_POS && search_hits(a, a->sel);
	buf_adds(b, on ? " | match " : " | ");
	if (on) {
		fmt_count(b, hits_before(a, a->sel) + 1);
		buf_adds(b, " of ");
	}
	fmt_count(b, total);
	buf_printf(b, "%s%s", more, on ? "" : total == 1 && !*more ? " match" : " matches");
}

/* ---- commands ------------------------------------------------------------- */

static void command(struct app *a, const char *cmd)
{
	while (*cmd == ' ')
		cmd++;
	if (!strcmp(cmd, "q") || !strcmp(cmd, "quit")) {
		a->quit = true;
	} else if (!strcmp(cmd, "messages") || !strcmp(cmd, "mes")) {
		a->command_act = ACT_MESSAGES; /* (loop.c carries it out, as if its key was pressed) */
	} else if (!strncmp(cmd, "goto ", 5)) {
		struct tspec t;
		if (!tspec_parse(cmd + 5, strlen(cmd + 5), &t)) {
			message(a, true, "goto: a time, e.g. +1.5s, 250ms, 93417364902017 (ns) or @93417.36");
			return;
		}
		jump_to(a, vis_nearest(a, model_seek(a->m, tspec_resolve(&t, a->m))));
	} else if (!strncmp(cmd, "range ", 6)) {
		/* :range A B is the filter range:A..B */
		const char *p = cmd + 6;
		while (*p == ' ')
			p++;
		const char *sp = strchr(p, ' ');
		struct buf spec = {0};
		if (sp)
			buf_printf(&spec, "range:%.*s..%s", (int)(sp - p), p, sp + 1);
		char *err = NULL;
		if (!sp || !filterset_add(a->fs, spec.p, &err)) {
			message(a, true, "range: %s", err ? err : "want :range A B");
		} else {
			a->undo = (struct filter_undo){UNDO_ADDED, a->fs->n - 1};
			vis_reset(a);
			message(a, false, "filter %s", spec.p);
		}
		free(err);
		buf_free(&spec);
	} else if (*cmd) {
		message(a, true, "unknown command: %.60s (goto TIME, range A B, messages, q)", cmd);
	}
}

/* ---- filters -------------------------------------------------------------- */

bool filter_cancel(struct app *a)
{
	struct filter_undo u = a->undo;
	if (u.what == UNDO_NONE || !vis_pending(a) || u.index >= a->fs->n)
		return false;
	if (u.what == UNDO_ADDED)
		filterset_remove(a->fs, u.index);
	else
		a->fs->f[u.index].enabled = !a->fs->f[u.index].enabled;
	a->undo.what = UNDO_NONE;
	vis_reset(a);
	message(a, false, "filter cancelled");
	return true;
}

void prompt_edit_filter(struct app *a, size_t i)
{
	prompt_open(a, PROMPT_FILTER, a->fs->f[i].spec);
	a->prompt.editing = (long)i;
}

/* The prompt again, with what was typed, the error and the cursor at it:
 * what was typed is not lost to a mistake in it. */
static void reopen(struct app *a, enum prompt_kind kind, const char *text, long editing, char *err, size_t at)
{
	prompt_open(a, kind, text);
	a->prompt.editing = editing;
	a->prompt.cursor = MIN(at, a->prompt.text.len);
	a->prompt.error = err;
}

static void add_filter(struct app *a, const char *text, long editing)
{
	struct filter f;
	char *err = NULL;
	size_t at = 0;
	if (!filter_make(a, &f, text, &err, &at)) {
		reopen(a, PROMPT_FILTER, text, editing, err, at);
		return;
	}
	struct filterset *fs = a->fs;
	filterset_push(fs, &f);
	if (editing >= 0 && (size_t)editing < fs->n - 1) {
		/* the new filter takes the edited one's place */
		struct filter f = fs->f[fs->n - 1];
		f.enabled = fs->f[editing].enabled;
		filter_free(&fs->f[editing]);
		fs->f[editing] = f;
		fs->n--;
		a->undo.what = UNDO_NONE; /* an edit is not taken back by Esc */
	} else {
		a->undo = (struct filter_undo){UNDO_ADDED, fs->n - 1};
	}
	vis_reset(a);
	message(a, false, "filter %s", text);
}

void filters_check_fields(struct app *a)
{
	char *err = NULL;
	long bad = filterset_check(a->fs, a->t, &err);
	if (bad < 0)
		return;
	char *text = xstrdup(a->fs->f[bad].spec);
	filterset_remove(a->fs, (size_t)bad);
	vis_reset(a);
	reopen(a, PROMPT_FILTER, text, -1, err, *text == '!');
	free(text);
}

/* ---- accepting ------------------------------------------------------------ */

static void accept(struct app *a)
{
	struct prompt *p = &a->prompt;
	char *text = xstrdup(buf_str(&p->text));
	enum prompt_kind kind = p->kind;
	long editing = p->editing;
	close_prompt(a);
	history_add(kind, text);
	switch (kind) {
	case PROMPT_SEARCH:
	case PROMPT_SEARCH_BACK: {
		bool forward = kind == PROMPT_SEARCH;
		if (!*text) { /* empty: repeat the last search */
			search_next(a, forward);
			break;
		}
		size_t at = 0;
		if (!search_set(a, text, &at)) {
			char *err = a->prompt.error;
			a->prompt.error = NULL;
			reopen(a, kind, text, -1, err, at);
			break;
		}
		free(a->search_text);
		a->search_text = xstrdup(text);
		a->sel = p->origin; /* search from where the prompt opened */
		a->sel_ref = ref_of(a, a->sel);
		search_next(a, forward);
		break;
	}
	case PROMPT_FILTER:
		if (*text)
			add_filter(a, text, editing);
		break;
	case PROMPT_COMMAND: command(a, text); break;
	case PROMPT_SQL: {
		char *error = NULL;
		long at = sql_run(a, text, &error);
		if (at >= 0) { /* back to the prompt, at the place SQLite stopped */
			prompt_open(a, PROMPT_SQL, text);
			a->prompt.cursor = (size_t)at;
			a->prompt.error = error;
		}
		break;
	}
	default: break;
	}
	free(text);
}

/* Show what the typed text does before Enter: a search highlights and moves
 * to its first match (within reach), a filter or pattern shows its error. */
static void preview(struct app *a)
{
	struct prompt *p = &a->prompt;
	free(p->error);
	p->error = NULL;
	if (p->kind == PROMPT_COMMAND || p->kind == PROMPT_SQL || !p->text.len)
		return;
	char *err = NULL;
	size_t at;
	if (p->kind == PROMPT_FILTER) {
		struct filter f;
		if (filter_make(a, &f, buf_str(&p->text), &err, &at))
			filter_free(&f);
		p->error = err;
		return;
	}
	if (search_set(a, buf_str(&p->text), &at))
		seek_start(a, p->origin, p->kind == PROMPT_SEARCH, true);
}

static void cancel(struct app *a)
{
	struct prompt *p = &a->prompt;
	bool search = p->kind == PROMPT_SEARCH || p->kind == PROMPT_SEARCH_BACK;
	close_prompt(a);
	if (!search)
		return;
	/* back to where we were, and to the accepted search */
	a->seek.on = false;
	if (p->origin != NO_POS)
		select_pos(a, p->origin);
	filter_free(&a->search);
	a->hits.done = 0;
	if (a->search_text) {
		char *err = NULL;
		if (!filter_parse(&a->search, a->search_text, &err, NULL))
			free(err);
	}
}

/* ---- editing -------------------------------------------------------------- */

static void set_text(struct prompt *p, const char *s)
{
	buf_reset(&p->text);
	buf_adds(&p->text, s);
	p->cursor = p->text.len;
}

static void insert(struct prompt *p, const char *s, size_t n)
{
	struct buf b = {0};
	buf_add(&b, p->text.p, p->cursor);
	buf_add(&b, s, n);
	buf_add(&b, p->text.p ? p->text.p + p->cursor : "", p->text.len - p->cursor);
	buf_free(&p->text);
	p->text = b;
	p->cursor += n;
}

static size_t char_before(const struct prompt *p, size_t at)
{
	while (at > 0 && ((uint8_t)p->text.p[at - 1] & 0xc0) == 0x80)
		at--;
	return at ? at - 1 : 0;
}

static void walk_history(struct prompt *p, int dir)
{
	if (dir < 0 && p->hist_at > 0) {
		if (p->hist_at == p->nhist) { /* keep what was being typed */
			buf_reset(&p->draft);
			buf_add(&p->draft, buf_str(&p->text), p->text.len);
		}
		set_text(p, p->hist[--p->hist_at]);
	} else if (dir > 0 && p->hist_at < p->nhist) {
		p->hist_at++;
		set_text(p, p->hist_at == p->nhist ? buf_str(&p->draft) : p->hist[p->hist_at]);
	}
}

bool prompt_key(struct app *a, const void *keyp)
{
	const TermKeyKey *k = keyp;
	struct prompt *p = &a->prompt;
	if (k->type == TERMKEY_TYPE_UNICODE && !(k->modifiers & ~TERMKEY_KEYMOD_SHIFT)) {
		insert(p, k->utf8, strlen(k->utf8));
		preview(a);
		return true;
	}
	if (p->pasting) /* pasted control keys are not commands */
		return true;
	if (k->type == TERMKEY_TYPE_UNICODE && k->modifiers == TERMKEY_KEYMOD_CTRL) {
		switch (k->code.codepoint) {
		case 'u':
			buf_reset(&p->text);
			p->cursor = 0;
			break;
		case 'a': p->cursor = 0; break;
		case 'e': p->cursor = p->text.len; break;
		case 'c':
		case 'g': cancel(a); return true;
		default: break;
		}
		preview(a);
		return true;
	}
	if (k->type != TERMKEY_TYPE_KEYSYM)
		return true;
	switch (k->code.sym) {
	case TERMKEY_SYM_ENTER: accept(a); break;
	case TERMKEY_SYM_ESCAPE: cancel(a); break;
	case TERMKEY_SYM_BACKSPACE:
	case TERMKEY_SYM_DEL:
		if (p->cursor) {
			size_t at = char_before(p, p->cursor);
			memmove(p->text.p + at, p->text.p + p->cursor, p->text.len - p->cursor + 1);
			p->text.len -= p->cursor - at;
			p->cursor = at;
			preview(a);
		} else if (!p->text.len) {
			cancel(a);
		}
		break;
	case TERMKEY_SYM_LEFT: p->cursor = char_before(p, p->cursor); break;
	case TERMKEY_SYM_RIGHT:
		while (p->cursor < p->text.len && ((uint8_t)p->text.p[++p->cursor] & 0xc0) == 0x80)
			;
		break;
	case TERMKEY_SYM_HOME: p->cursor = 0; break;
	case TERMKEY_SYM_END: p->cursor = p->text.len; break;
	case TERMKEY_SYM_UP:
	case TERMKEY_SYM_DOWN:
		walk_history(p, k->code.sym == TERMKEY_SYM_UP ? -1 : 1);
		preview(a);
		break;
	default: break;
	}
	return true;
}

/* The prompt's error after what was typed, or wrapped at words on the
 * rows above the prompt when it does not fit there (a few at most). */
static void error_draw(struct app *a, int y, int x)
{
	struct buf b = {0};
	esc_typed(&b, a->prompt.error, strlen(a->prompt.error));
	draw_role(R_ERROR);
	if (x + 2 + text_width(b.p, b.len) <= a->cols) {
		draw_text(y, x + 2, a->cols - x - 2, b.p, b.len);
		buf_free(&b);
		return;
	}
	size_t at[4], len[4], nl = 0;
	for (size_t i = 0; i < b.len && nl < 4 && (int)nl < y;) {
		while (b.p[i] == ' ')
			i++;
		at[nl] = i;
		len[nl] = text_wrap(b.p + i, b.len - i, a->cols);
		i += len[nl++];
	}
	for (size_t k = 0; k < nl; k++) {
		int row = y - (int)nl + (int)k;
		draw_fill(row, 0, a->cols, " ");
		draw_text(row, 0, a->cols, b.p + at[k], len[k]);
	}
	buf_free(&b);
}

void prompt_draw(struct app *a)
{
	struct prompt *p = &a->prompt;
	int y = a->lines - 1;
	draw_role(R_NORMAL);
	draw_fill(y, 0, a->cols, " ");
	struct buf b = {0};
	buf_adds(&b, prefix[p->kind]);
	esc_typed(&b, buf_str(&p->text), p->text.len);
	int w = draw_text(y, 0, a->cols - 1, b.p, b.len);
	if (p->error)
		error_draw(a, y, w);
	/* the cursor: where the next character goes */
	struct buf head = {0};
	buf_adds(&head, prefix[p->kind]);
	esc_typed(&head, buf_str(&p->text), p->cursor);
	int cx = MIN(text_width(head.p, head.len), a->cols - 1);
	draw_role(R_CURSOR);
	mvaddch(y, cx, p->cursor < p->text.len && (uint8_t)p->text.p[p->cursor] < 0x80 ? (chtype)p->text.p[p->cursor] : ' ');
	buf_free(&head);
	buf_free(&b);
}

/* ---- the status line ------------------------------------------------------ */

void status_draw(struct app *a)
{
	int y = a->lines - 1;
	draw_role(R_STATUS);
	draw_fill(y, 0, a->cols, " ");
	struct buf right = {0}, left = {0};
	const struct view_ops *top = view_ops_of(view_top(a));
	if (top->where && top->where(a, &right)) { /* (the SQL result's rows, not the events) */
	} else if (a->sel != NO_POS) {
		buf_printf(&right, "#%llu/%llu ", (unsigned long long)vis_rank(a, a->sel) + 1,
			   (unsigned long long)vis_count(a));
		struct event e;
		model_get(a->m, a->sel, &e);
		fmt_time(a, &right, &e);
	} else {
		buf_printf(&right, "0/%llu", (unsigned long long)vis_count(a));
	}
	match_count(a, &right);
	if (a->range.has_lo && a->range.has_hi) {
		buf_adds(&right, " | range ");
		fmt_dur(&right, (uint64_t)a->range.hi - (uint64_t)a->range.lo);
	}
	size_t nf = 0;
	for (size_t i = 0; i < a->fs->n; i++)
		nf += a->fs->f[i].enabled;
	if (nf)
		buf_printf(&right, " | %zu filter%s", nf, nf > 1 ? "s" : "");
	uint64_t n = model_count(a->m);
	if (a->task.running)
		buf_printf(&right, " | %s running %.1f s (Esc stops)", a->task.what, (double)(now_ns() - a->task.started) / 1e9);
	else if (vis_pending(a))
		buf_printf(&right, " | filtering %llu%% (Esc cancels)", (unsigned long long)(a->vis.done * 100 / (n ? n : 1)));
	else if (a->seek.on && !a->seek.preview)
		buf_printf(&right, " | searching %llu%% (Esc cancels)",
			   (unsigned long long)MIN(99, a->seek.looked * 100 / MAX(1, vis_count(a))));
	if (a->follow && a->paused) {
		buf_adds(&right, " | paused, ");
		fmt_count(&right, follow_new(a));
		buf_adds(&right, " new (G resumes)");
	} else if (a->follow) {
		buf_adds(&right, " | FOLLOW");
	}
	if (trace_damaged(a->t))
		buf_adds(&right, " | damaged");
	if (a->loading && !a->follow) {
		uint64_t done, total;
		trace_progress(a->t, &done, &total);
		buf_printf(&right, " | reading %llu%%", (unsigned long long)(total ? done * 100 / total : 0));
	}
	for (size_t i = 0; i < a->t->nsrc; i++) {
		const char *path = a->t->src[i]->path, *slash = strrchr(path, '/');
		const char *base = slash && slash[1] ? slash + 1 : path;
		if (i == 1 || i == 2)
			buf_adds(&left, " + ");
		if (i < 2)
			esc_term(&left, base, strlen(base));
		if (i == 2)
			buf_printf(&left, "%zu more", a->t->nsrc - 2);
	}
	/* A message goes before the file names (or the span): they give way
	 * first, then it is cut, ending in an ellipsis (M lists every message
	 * whole). */
	/* the last column stays blank: a character in the screen's last cell
	 * costs ncurses an autowrap off and on around it (10 bytes) */
	int rw = text_width(right.p, right.len), room = MAX(0, a->cols - rw - 2);
	struct buf m = {0};
	esc_typed(&m, a->msg, strlen(a->msg));
	int mw = text_width(m.p, m.len);
	int lroom = m.len ? room - mw - 2 : room;
	/* the view's own words in place of the files (the lanes: the selected
	 * span; the call tree: its scope; SQL: the query ...) */
	struct buf own = {0};
	if (top->status && top->status(a, &own, lroom)) {
		buf_free(&left);
		left = own;
	} else {
		buf_free(&own);
	}
	int lwant = text_width(left.p, left.len);
	int lw = lroom >= MIN(lwant, 12) ? draw_clipped(a, y, 0, lroom, left.p, left.len) : 0;
	if (m.len) { /* cut short, it says where it is whole */
		int mx = lw ? lw + 2 : 0, mroom = room - mx;
		draw_role(a->msg_error ? R_ERROR : R_STATUS_MSG);
		if (mw > mroom && mroom > 12)
			draw_str(y, mx + draw_clipped(a, y, mx, mroom - 4, m.p, m.len), 4, " (M)");
		else
			draw_clipped(a, y, mx, mroom, m.p, m.len);
	}
	buf_free(&m);
	draw_role(R_STATUS);
	draw_text(y, MAX(0, a->cols - 1 - rw), rw, right.p, right.len);
	buf_free(&right);
	buf_free(&left);
}
