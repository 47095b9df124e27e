/* The prompt line (/ search, & filter, : command) and search. */
#include <curses.h>
#include <stdlib.h>
#include <termkey.h>

#include "src/esc.h"
#include "ui/app.h"

#define SEARCH_SLICE 2000000 /* events a search may examine before giving up a pass */

static const char *const prefix[] = {"", "/", "?", "&", ":"};

/* An edited filter replaces the one it came from. */
static long editing = -1;

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
	p->hist_at = -1;
	editing = kind == PROMPT_FILTER && initial ? (long)a->filter_cur : -1;
}

static void close_prompt(struct app *a)
{
	a->prompt.kind = PROMPT_NONE;
	free(a->prompt.error);
	a->prompt.error = NULL;
}

/* ---- search --------------------------------------------------------------- */

bool search_hit(struct app *a, uint64_t pos, size_t *ms, size_t *me)
{
	if (!a->search)
		return false;
	struct event e;
	model_get(a->m, pos, &e);
	struct buf b = {0};
	event_text(a->t, &e, &b);
	int r = pattern_match(a->search, buf_str(&b), b.len, ms, me);
	buf_free(&b);
	return r > 0;
}

void search_next(struct app *a, bool forward)
{
	if (!a->search) {
		message(a, false, "no search yet: / starts one");
		return;
	}
	uint64_t start = a->sel, p = start, examined = 0;
	bool wrapped = false;
	for (;;) {
		p = forward ? vis_next(a, p) : vis_prev(a, p);
		if (p == NO_POS) {
			if (wrapped)
				break;
			wrapped = true;
			p = forward ? vis_first(a) : vis_last(a);
			if (p == NO_POS)
				break;
		}
		if (wrapped && start != NO_POS && (forward ? p > start : p < start))
			break;
		if (search_hit(a, p, NULL, NULL)) {
			jump_to(a, p);
			if (wrapped)
				message(a, false, "search wrapped %s", forward ? "to the start" : "to the end");
			return;
		}
		if (wrapped && p == start)
			break;
		if (++examined >= SEARCH_SLICE * 50) {
			message(a, true, "search stopped after %llu events", (unsigned long long)examined);
			return;
		}
	}
	message(a, true, "pattern not found: %s", a->search_text ? a->search_text : "");
}

/* ---- commands ------------------------------------------------------------- */

/* TIME: a bare integer is absolute ns; with a unit (ns us ms s) or a sign it
 * is relative to the first event; @S.N is absolute seconds. */
static bool parse_time(struct app *a, const char *s, int64_t *out)
{
	while (*s == ' ')
		s++;
	int64_t first = 0, last;
	model_span(a->m, &first, &last);
	bool abs = *s == '@', rel = *s == '+' || *s == '-';
	if (abs)
		s++;
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return false;
	static const struct {
		const char *u;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	double mult = abs ? 1e9 : 1;
	bool unit = false;
	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (!strcmp(end, units[i].u)) {
			mult = units[i].ns, unit = true;
		}
	if (*end && !unit)
		return false;
	double ns = v * mult;
	*out = abs || (!rel && !unit) ? (int64_t)ns : first + (int64_t)ns;
	return true;
}

static void command(struct app *a, const char *cmd)
{
	while (*cmd == ' ')
		cmd++;
	if (!strcmp(cmd, "q") || !strcmp(cmd, "quit")) {
		a->quit = true;
	} else if (!strncmp(cmd, "goto ", 5)) {
		int64_t t;
		if (!parse_time(a, cmd + 5, &t)) {
			message(a, true, "goto: a time, e.g. +1.5s, 250ms, 93417364902017 (ns) or @93417.36");
			return;
		}
		uint64_t p = vis_nearest(a, model_seek(a->m, t));
		jump_to(a, p);
	} else if (*cmd) {
		message(a, true, "unknown command: %.60s (goto TIME, q)", cmd);
	}
}

/* ---- accepting ------------------------------------------------------------ */

static void accept(struct app *a)
{
	struct prompt *p = &a->prompt;
	const char *text = buf_str(&p->text);
	enum prompt_kind kind = p->kind;
	char *err = NULL;
	close_prompt(a);
	switch (kind) {
	case PROMPT_SEARCH:
	case PROMPT_SEARCH_BACK: {
		if (!*text) { /* empty: repeat the last search */
			search_next(a, kind == PROMPT_SEARCH);
			return;
		}
		struct pattern *re = pattern_new(text, &err);
		if (!re) {
			message(a, true, "bad pattern %s", err);
			free(err);
			return;
		}
		pattern_free(a->search);
		a->search = re;
		free(a->search_text);
		a->search_text = xstrdup(text);
		search_next(a, kind == PROMPT_SEARCH);
		break;
	}
	case PROMPT_FILTER:
		if (!*text)
			return;
		if (!filterset_add(a->fs, text, &err)) {
			message(a, true, "bad filter: %s", err);
			free(err);
			return;
		}
		if (editing >= 0 && (size_t)editing < a->fs->n - 1) {
			/* the new filter takes the edited one's place */
			struct filter f = a->fs->f[a->fs->n - 1];
			f.enabled = a->fs->f[editing].enabled;
			filter_free(&a->fs->f[editing]);
			a->fs->f[editing] = f;
			a->fs->n--;
		}
		vis_reset(a);
		message(a, false, "filter %s", text);
		break;
	case PROMPT_COMMAND: command(a, text); break;
	default: break;
	}
}

/* Compile as the user types, so errors show before Enter. */
static void preview(struct app *a)
{
	struct prompt *p = &a->prompt;
	free(p->error);
	p->error = NULL;
	if (p->kind == PROMPT_COMMAND || !p->text.len)
		return;
	char *err = NULL;
	if (p->kind == PROMPT_FILTER) {
		struct filter f;
		if (filter_parse(&f, buf_str(&p->text), &err))
			filter_free(&f);
	} else {
		struct pattern *re = pattern_new(buf_str(&p->text), &err);
		if (re) { /* highlight what it matches while typing */
			pattern_free(a->search);
			a->search = re;
		}
	}
	p->error = err;
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
		case 'g': close_prompt(a); break;
		default: break;
		}
		preview(a);
		return true;
	}
	if (k->type != TERMKEY_TYPE_KEYSYM)
		return true;
	switch (k->code.sym) {
	case TERMKEY_SYM_ENTER: accept(a); break;
	case TERMKEY_SYM_ESCAPE:
		close_prompt(a);
		if (p->kind == PROMPT_NONE && a->search_text) { /* restore the accepted search */
			char *err = NULL;
			pattern_free(a->search);
			a->search = pattern_new(a->search_text, &err);
			free(err);
		} else if (!a->search_text) {
			pattern_free(a->search);
			a->search = NULL;
		}
		break;
	case TERMKEY_SYM_BACKSPACE:
	case TERMKEY_SYM_DEL:
		if (p->cursor) {
			size_t at = char_before(p, p->cursor);
			memmove(p->text.p + at, p->text.p + p->cursor, p->text.len - p->cursor + 1);
			p->text.len -= p->cursor - at;
			p->cursor = at;
		} else if (!p->text.len) {
			close_prompt(a);
		}
		preview(a);
		break;
	case TERMKEY_SYM_LEFT:
		p->cursor = char_before(p, p->cursor);
		break;
	case TERMKEY_SYM_RIGHT:
		while (p->cursor < p->text.len && ((uint8_t)p->text.p[++p->cursor] & 0xc0) == 0x80)
			;
		break;
	case TERMKEY_SYM_HOME: p->cursor = 0; break;
	case TERMKEY_SYM_END: p->cursor = p->text.len; break;
	default: break;
	}
	return true;
}

void prompt_draw(struct app *a)
{
	struct prompt *p = &a->prompt;
	int y = a->lines - 1;
	draw_role(R_NORMAL);
	draw_fill(y, 0, a->cols, " ");
	struct buf b = {0};
	buf_adds(&b, prefix[p->kind]);
	esc_term(&b, buf_str(&p->text), p->text.len);
	int w = draw_text(y, 0, a->cols - 1, b.p, b.len);
	if (p->error) {
		draw_role(R_ERROR);
		buf_reset(&b);
		buf_adds(&b, "  ");
		esc_term(&b, p->error, strlen(p->error));
		draw_text(y, w, a->cols - w, b.p, b.len);
	}
	/* the cursor: where the next character goes */
	struct buf head = {0};
	buf_adds(&head, prefix[p->kind]);
	esc_term(&head, buf_str(&p->text), p->cursor);
	int cx = MIN(text_width(head.p, head.len), a->cols - 1);
	draw_role(R_CURSOR);
	mvaddch(y, cx, p->cursor < p->text.len ? (chtype)(uint8_t)p->text.p[p->cursor] : ' ');
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
	if (a->sel != NO_POS) {
		buf_printf(&right, "#%llu/%llu ", (unsigned long long)vis_rank(a, a->sel) + 1,
			   (unsigned long long)vis_count(a));
		fmt_time(a, &right, model_ts(a->m, a->sel));
	} else {
		buf_printf(&right, "0/%llu", (unsigned long long)vis_count(a));
	}
	size_t nf = 0;
	for (size_t i = 0; i < a->fs->n; i++)
		nf += a->fs->f[i].enabled;
	if (nf)
		buf_printf(&right, " | %zu filter%s", nf, nf > 1 ? "s" : "");
	uint64_t n = model_count(a->m);
	if (!a->vis.all && a->vis.done < n)
		buf_printf(&right, " | filtering %llu%%", (unsigned long long)(a->vis.done * 100 / (n ? n : 1)));
	if (a->follow)
		buf_adds(&right, " | FOLLOW");
	if (a->loading && !a->follow) {
		uint64_t done, total;
		trace_progress(a->t, &done, &total);
		buf_printf(&right, " | reading %llu%%", (unsigned long long)(total ? done * 100 / total : 0));
	}
	for (size_t i = 0; i < a->t->nsrc; i++) {
		const char *path = a->t->src[i]->path, *slash = strrchr(path, '/');
		const char *base = slash && slash[1] ? slash + 1 : path;
		if (i)
			buf_adds(&left, i == 1 ? " + " : "");
		if (i < 2)
			esc_term(&left, base, strlen(base));
		if (i == 2)
			buf_printf(&left, "%zu more", a->t->nsrc - 2);
	}
	int rw = text_width(right.p, right.len);
	int lw = draw_text(y, 0, MAX(0, a->cols - rw - 1) / (a->msg[0] ? 3 : 1), left.p, left.len);
	if (a->msg[0]) {
		struct buf m = {0};
		esc_term(&m, a->msg, strlen(a->msg));
		draw_role(a->msg_error ? R_ERROR : R_STATUS_MSG);
		draw_text(y, lw + 2, a->cols - rw - lw - 3, m.p, m.len);
		buf_free(&m);
	}
	draw_role(R_STATUS);
	draw_text(y, MAX(0, a->cols - rw), rw, right.p, right.len);
	buf_free(&right);
	buf_free(&left);
}
