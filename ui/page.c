/* ui floor 10 */
/* Views that are a page of text: the detail of the selected event, info,
 * help and the filters list.  The page is rebuilt when it opens and when
 * what it shows changes; drawing touches only the lines on screen. */
#include <curses.h>

#include "src/batch.h"
#include "src/esc.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/keymap.h"
#include "ui/nav.h"
#include "ui/page.h"
#include "ui/prompt.h"
#include "ui/view.h"

/* detail, info, help, filters, record, messages, legend, diff: one
 * scrolling text page, which they share (kept as the detail view's own
 * state, view_state) */
struct page_view {
	struct buf text;
	size_t lines, scroll;
	size_t filter_cur;     /* the filters view's cursor */
	uint32_t record_input; /* the linked record the record page shows */
	uint64_t record_off;
	struct buf diff;       /* the comparison the diff page shows (D, v: page_diff_text) */
	struct buf info;       /* the info page as last made, and what it was made of */
	uint64_t info_key[3];
};

static struct page_view *pv(struct app *a) { return view_state(a, V_DETAIL); }

static void count_lines(struct app *a)
{
	struct page_view *pg = pv(a);
	size_t lines = 0, len = strnlen(buf_str(&pg->text), pg->text.len); /* (to a NUL, as drawn) */
	for (const char *p = buf_str(&pg->text), *end = p + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
	pg->lines = lines + (len && pg->text.p[len - 1] != '\n');
}

static void detail_page(struct app *a)
{
	struct buf *b = &pv(a)->text;
	if (a->sel == NO_POS) {
		buf_adds(b, "no event selected\n");
		return;
	}
	struct event e;
	model_get(a->m, a->sel, &e);
	const struct type *ty = model_type_get(a->m, e.type);
	size_t n;
	const char *s;
	buf_printf(b, "event #%llu of %llu: ", (unsigned long long)vis_rank(a, a->sel) + 1,
		   (unsigned long long)vis_count(a));
	s = model_strget(a->m, ty->name, &n);
	esc_term(b, s, n);
	if (ty->category) {
		buf_adds(b, " (");
		s = model_strget(a->m, ty->category, &n);
		esc_term(b, s, n);
		buf_addc(b, ')');
	}
	buf_adds(b, " on ");
	s = model_strget(a->m, model_lane_get(a->m, e.lane)->name, &n);
	esc_term(b, s, n);
	buf_adds(b, "\ntime: ");
	if (trace_untimed(a->t, &e)) {
		buf_adds(b, "none (metadata)\n");
	} else { /* every form: as chosen, the trace's clock, and the wall clock where it is known */
		fmt_time(a, b, &e);
		buf_printf(b, " (%lld ns", (long long)e.ts);
		int64_t wall;
		if (trace_wall(a->t, &e, &wall)) {
			buf_adds(b, "; wall clock ");
			fmt_wallclock(b, wall, true);
		}
		buf_adds(b, ")\n");
	}
	enum ev_role r = ev_role(&e);
	static const char *const roles[] = {"instant", "span", "span begin", "span end"};
	buf_printf(b, "kind: %s", roles[r]);
	if (e.dur != TTV_NODUR) {
		buf_adds(b, ", duration ");
		fmt_dur(b, e.dur);
		buf_printf(b, " (%llu ns)", (unsigned long long)e.dur);
	}
	uint64_t other;
	if ((r == ROLE_BEGIN || r == ROLE_END) && model_partner(a->m, a->sel, &other)) {
		buf_adds(b, r == ROLE_BEGIN ? "; ends at " : "; began at ");
		struct event o;
		model_get(a->m, other, &o);
		fmt_time(a, b, &o);
		buf_adds(b, " (% jumps there)");
	} else if (r == ROLE_BEGIN || r == ROLE_END) {
		buf_adds(b, r == ROLE_BEGIN ? "; never closed" : "; never opened");
	}
	buf_addc(b, '\n');
	if (e.flags & (EVF_NO_TS | EVF_META | EVF_COPY | EVF_LINK | EVF_DAMAGED))
		buf_printf(b, "flags:%s%s%s%s%s\n", e.flags & EVF_NO_TS ? " no-timestamp (placed after the record before it)" : "",
			   e.flags & EVF_META ? " metadata" : "", e.flags & EVF_COPY ? " writer's-copy" : "",
			   e.flags & EVF_LINK ? " linked (Enter opens the linked record)" : "",
			   e.flags & EVF_DAMAGED ? " damaged" : "");
	const char *path = e.input < a->t->nin ? a->t->in[e.input]->path : "?";
	buf_adds(b, "bytes: ");
	esc_term_cstr(b, path);
	buf_printf(b, ", offset %llu\n", (unsigned long long)e.off);
	uint32_t lin;
	uint64_t loff;
	if (trace_event_link(a->t, &e, &lin, &loff)) {
		buf_adds(b, "linked record: ");
		esc_term(b, a->t->in[lin]->path, strlen(a->t->in[lin]->path));
		buf_printf(b, ", offset %llu (Enter opens it)\n", (unsigned long long)loff);
	}
	buf_adds(b, "\n");
	event_detail(a->t, &e, b, a->cols);
}

/* A linked record that is not an event (an ATF detail record). */
static void record_page(struct app *a)
{
	struct page_view *pg = pv(a);
	struct buf *b = &pg->text;
	struct buf fields = {0};
	struct tree_sink ts;
	tree_sink_init(&ts, &fields, a->cols);
	if (!trace_record_fields(a->t, pg->record_input, pg->record_off, &ts.s)) {
		buf_adds(b, "no record\n");
	} else {
		const char *path = a->t->in[pg->record_input]->path;
		buf_adds(b, "linked record in ");
		esc_term_cstr(b, path);
		buf_printf(b, ", offset %llu (Enter goes to the event it links back to)\n\n",
			   (unsigned long long)pg->record_off);
		buf_add(b, fields.p, fields.len);
	}
	buf_free(&fields);
}

/* What the lanes view's marks and colours mean (the legend, L; also in help). */
static void legend_text(struct app *a, struct buf *b)
{
	static const struct {
		const char *u, *ascii, *what;
	} rows[] = {
		{"bar", "bar", "a span, its name inside, its colour by its name"},
		{"▏▎▍▌▋▊▉", "", "a span's edges, to an eighth of a cell"},
		{"┄┄ (open)", "-- (open)", "a begin no end closed (a crash, the end of the file)"},
		{"⊣", "]", "an end no begin opened"},
		{"· ░ ▒ ▓", ". : * #", "instants, more to the right (their own row, below the spans);"},
		{"", "", "on a span row: spans narrower than a cell"},
		{"▂▃▄▅▆▇█", "_ = #", "a folded lane (c, C): the deeper the nesting, the taller"},
		{"+N deeper", "+N deeper", "spans nested deeper than 8 rows, as density"},
		{"[═══]", "[===]", "the time range ({ and }, or a mouse drag); | keeps only it"},
		{"~", "~", "(after the lane count) a span begun long before may be missing"},
	};
	buf_adds(b, "\nLanes: each lane a flame chart, a row per nesting depth.\n");
	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		const char *l = a->unicode ? rows[i].u : rows[i].ascii;
		buf_printf(b, "  %s%*s  %s\n", l, MAX(0, 10 - text_width(l, strlen(l))), "", rows[i].what);
	}
	buf_adds(b, "The status line names the selected span, its duration, self time (outside the spans one row\n"
		    "deeper) and depth.\n");
}

static void legend_page(struct app *a)
{
	struct page_view *pg = pv(a);
	buf_adds(&pg->text, "the lanes view's legend; q or Esc closes this page\n");
	legend_text(a, &pg->text);
}

/* One action's row: its keys, its word, its help wrapped under itself. */
static void help_row(struct buf *b, const char *keys, int kw, enum action act, const char *h, int room)
{
	int indent = 2 + kw + 2 + 15;
	buf_printf(b, "  %-*s  %-14s ", kw, keys, action_word(act));
	while (*h) {
		int n = (int)strlen(h);
		if (n > room)
			for (n = room; n > 0 && h[n] != ' '; n--)
				;
		if (n <= 0)
			n = MIN((int)strlen(h), room);
		buf_printf(b, "%.*s\n", n, h);
		h += n;
		while (*h == ' ')
			h++;
		if (*h)
			buf_printf(b, "%*s", indent, "");
	}
}

/* The keys of the view help was opened from, with what they do there, then
 * the keys that work everywhere; an action with no key is left out. */
static void help_page(struct app *a)
{
	struct buf *b = &pv(a)->text;
	enum view_id v = view_under(a);
	buf_printf(b, "ttv keys in the %s view, then everywhere; q or Esc closes this page\n", view_word(v));
	int kw = 8;
	for (int act = 1; act < ACT_COUNT; act++) {
		struct buf keys = {0};
		keymap_keys_for(a->km, v, (enum action)act, &keys);
		kw = MAX(kw, MIN((int)keys.len, 24));
		buf_free(&keys);
	}
	int room = MAX(20, a->cols - (2 + kw + 2 + 15));
	for (int generic = 0; generic < 2; generic++) {
		buf_printf(b, generic ? "\neverywhere\n" : "\nin the %s view\n", view_word(v));
		for (int act = 1; act < ACT_COUNT; act++) {
			struct buf keys = {0};
			keymap_keys_own(a->km, v, (enum action)act, generic, &keys);
			const char *meaning = view_meaning(v, (enum action)act);
			if (keys.len)
				help_row(b, keys.p, kw, (enum action)act, meaning ? meaning : action_help((enum action)act), room);
			buf_free(&keys);
		}
	}
	legend_text(a, b);
	buf_adds(b, "\nMouse: click selects (lanes and list), the wheel scrolls.\n"
		    "Prompts (/ & :): Enter accepts, Esc cancels, Up/Down walk the history, C-u clears.\n"
		    "Filters: RE, !RE, lane:RE, type:RE, FIELD:RE (e.g. target:^/etc), text:RE; a::b is text.\n"
		    "Commands: :goto TIME (+1.5s, 1500ms, or ns), :range A B, :q.\n"
		    "Bindings: keymaps/*.keys and $XDG_CONFIG_HOME/ttv/keys (bind CONTEXT KEY ACTION).\n");
}

static void filters_page(struct app *a)
{
	struct page_view *pg = pv(a);
	struct buf *b = &pg->text;
	if (!a->fs->n)
		buf_adds(b, "no filters: & adds one (&re keeps matching events, &!re drops them)\n");
	for (size_t i = 0; i < a->fs->n; i++) {
		const struct filter *f = &a->fs->f[i];
		buf_printf(b, "%c [%c] %zu  %s ", i == pg->filter_cur ? '>' : ' ', f->enabled ? 'x' : ' ', i + 1,
			   f->exclude ? "drop" : "keep");
		esc_typed(b, f->spec, strlen(f->spec));
		if (f->enabled && !vis_pending(a)) {
			buf_adds(b, a->fs->drops_approx ? "  (drops about " : "  (drops ");
			fmt_count(b, filter_dropped(f));
			buf_addc(b, ')');
		}
		buf_addc(b, '\n');
	}
	buf_printf(b, "\n%llu of %llu events pass.  Space toggles, Enter edits, D deletes, J/K move, & adds.\n",
		   (unsigned long long)vis_count(a), (unsigned long long)model_count(a->m));
}

static void messages_page(struct app *a)
{
	struct page_view *pg = pv(a);
	buf_adds(&pg->text, "messages, oldest first (the status line shows the latest)\n\n");
	if (!a->messages.len)
		buf_adds(&pg->text, "none yet\n");
	for (const char *p = buf_str(&a->messages); *p;) {
		size_t n = strcspn(p, "\n");
		esc_typed(&pg->text, p, n);
		buf_addc(&pg->text, '\n');
		p += n + (p[n] == '\n');
	}
}

static long max_scroll(struct app *a);

/* The info page of a trace read to its end (not followed) is made again
 * only when what it says changed: a fleet's 256 sources take a
 * millisecond or more at each =. */
static void info_page(struct app *a)
{
	struct page_view *pg = pv(a);
	uint64_t key[3] = {model_count(a->m), model_generation(a->m), info_stamp(a->t)};
	if (a->loading || a->follow || !pg->info.len || memcmp(key, pg->info_key, sizeof key)) {
		buf_reset(&pg->info);
		info_text(a->t, &pg->info);
		memcpy(pg->info_key, key, sizeof key);
	}
	buf_add(&pg->text, pg->info.p, pg->info.len);
}

/* Make the page's text with make(), from the top unless keep_scroll
 * (true: a page opens with it). */
static bool page_make(struct app *a, void (*make)(struct app *a), bool keep_scroll)
{
	struct page_view *pg = pv(a);
	buf_reset(&pg->text);
	if (!keep_scroll)
		pg->scroll = 0;
	make(a);
	count_lines(a);
	return true;
}

static void diff_page(struct app *a)
{
	struct page_view *pg = pv(a);
	buf_add(&pg->text, pg->diff.p, pg->diff.len);
}

struct buf *page_diff_text(struct app *a) { return &pv(a)->diff; }

/* (the detail: of the selected event, so none without one) */
static bool detail_open(struct app *a) { return a->sel != NO_POS && page_make(a, detail_page, false); }
static bool diff_open(struct app *a) { return page_make(a, diff_page, true); }
static bool info_open(struct app *a) { return page_make(a, info_page, false); }
static bool help_open(struct app *a) { return page_make(a, help_page, false); }
static bool filters_open(struct app *a) { return page_make(a, filters_page, true); }
static bool record_open(struct app *a) { return page_make(a, record_page, false); }
static bool legend_open(struct app *a) { return page_make(a, legend_page, false); }

static bool messages_open(struct app *a)
{
	struct page_view *pg = pv(a);
	page_make(a, messages_page, false);
	pg->scroll = (size_t)max_scroll(a); /* the latest at the bottom, as vim shows them */
	return true;
}

/* One screen row of a page's line s[0..n): the bytes it shows, broken at
 * a word where there is one (never `offse`/`t 564904`); *next: where the
 * row after it starts (the spaces at the break left out). */
static size_t row_take(const struct app *a, const char *s, size_t n, size_t *next)
{
	size_t take = text_wrap(s, n, a->cols), k = take;
	while (k < n && s[k] == ' ')
		k++;
	*next = k;
	return take;
}

static long rows_of(struct app *a, const char *s, size_t n)
{
	long r = 0;
	size_t next;
	do {
		row_take(a, s, n, &next);
		s += next, n -= next;
		r++;
	} while (n);
	return r;
}

/* The page's text from its scroll on; `cursor`: a line that starts with
 * '>' is the cursor's; `matches`: what the filters match is marked. */
static void text_draw(struct app *a, bool cursor, bool matches)
{
	struct page_view *pg = pv(a);
	int rows = a->lines - 1;
	const char *p = buf_str(&pg->text);
	for (size_t skip = pg->scroll; skip && *p; p++)
		if (*p == '\n')
			skip--;
	for (int y = 0; y < rows && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		enum role r = y == 0 && pg->scroll == 0 ? R_TITLE : R_NORMAL;
		if (cursor && *p == '>')
			r = R_SELECTED;
		/* a line wider than the screen goes on below it, at a word */
		size_t at = 0, next;
		do {
			size_t take = row_take(a, p + at, n - at, &next);
			if (matches)
				draw_matched(a, y, 0, a->cols, p + at, take, r);
			else {
				draw_role(r);
				draw_text(y, 0, a->cols, p + at, take);
			}
			at += next;
			y++;
		} while (at < n && y < rows);
		p += n + (nl != NULL);
	}
}

static void page_draw(struct app *a) { text_draw(a, false, false); }

/* The detail and the filters change under the page: made again for each
 * draw, at the same scroll. */
static void detail_draw(struct app *a)
{
	struct page_view *pg = pv(a);
	size_t keep = pg->scroll;
	detail_open(a);
	pg->scroll = keep;
	text_draw(a, false, true);
}

/* The comparison of files is made in steps under its page. */
static void diff_draw(struct app *a)
{
	struct page_view *pg = pv(a);
	size_t keep = pg->scroll;
	diff_open(a);
	pg->scroll = keep;
	text_draw(a, false, false);
}

static void filters_draw(struct app *a)
{
	filters_open(a);
	text_draw(a, true, false);
}

/* The furthest scroll (in page lines) that still fills the screen: the
 * last lines, wrapped, take as many rows as there are. */
static long max_scroll(struct app *a)
{
	struct page_view *pg = pv(a);
	long rows = a->lines - 1, used = 0, line = (long)pg->lines;
	const char *start = buf_str(&pg->text), *end = start + pg->text.len;
	if (end > start && end[-1] == '\n')
		end--;
	while (line > 0) {
		const char *q = end;
		while (q > start && q[-1] != '\n')
			q--;
		used += rows_of(a, q, (size_t)(end - q));
		if (used > rows) {
			if (line == (long)pg->lines)
				line--; /* taller than the screen by itself: its start, at least */
			break;
		}
		line--;
		end = q > start ? q - 1 : q;
	}
	return line;
}

static void page_scroll_by(struct app *a, long by)
{
	struct page_view *pg = pv(a);
	long s = (long)pg->scroll + by;
	pg->scroll = (size_t)MAX(0, MIN(s, max_scroll(a)));
}

/* Enter in the detail: open the record the event links to. */
static void open_record(struct app *a)
{
	struct page_view *pg = pv(a);
	struct event e;
	if (a->sel == NO_POS)
		return;
	model_get(a->m, a->sel, &e);
	if (!trace_event_link(a->t, &e, &pg->record_input, &pg->record_off)) {
		message(a, false, "this event links to no other record");
		return;
	}
	view_open(a, V_RECORD);
}

/* Enter in a linked record: back to the event it links to. */
static void record_back(struct app *a)
{
	struct page_view *pg = pv(a);
	uint64_t pos;
	if (!trace_record_back(a->t, pg->record_input, pg->record_off, &pos)) {
		message(a, true, "this record's link back does not resolve (a dangling link)");
		return;
	}
	jump_to(a, pos);
	view_close(a); /* from the record back to the detail, now of that event */
}

static bool filters_action(struct app *a, enum action act)
{
	struct page_view *pg = pv(a);
	struct filterset *fs = a->fs;
	size_t i = pg->filter_cur;
	switch (act) {
	case ACT_MOVE_DOWN:
		if (i + 1 < fs->n)
			pg->filter_cur++;
		return true;
	case ACT_MOVE_UP:
		if (i)
			pg->filter_cur--;
		return true;
	case ACT_TOGGLE:
		if (i < fs->n) {
			fs->f[i].enabled = !fs->f[i].enabled;
			a->undo = (struct filter_undo){UNDO_TOGGLED, i};
			vis_reset(a);
		}
		return true;
	case ACT_DELETE:
		if (i < fs->n) {
			a->undo.what = UNDO_NONE;
			filterset_remove(fs, i);
			if (pg->filter_cur && pg->filter_cur >= fs->n)
				pg->filter_cur--;
			vis_reset(a);
		}
		return true;
	case ACT_EDIT:
		if (i < fs->n)
			prompt_edit_filter(a, i);
		return true;
	case ACT_ITEM_UP:
	case ACT_ITEM_DOWN: {
		size_t j = act == ACT_ITEM_UP ? i - 1 : i + 1;
		if (i >= fs->n || (act == ACT_ITEM_UP && !i) || j >= fs->n)
			return true;
		struct filter t = fs->f[i];
		fs->f[i] = fs->f[j];
		fs->f[j] = t;
		pg->filter_cur = j;
		vis_reset(a); /* what passes is the same, but each one's count of what it drops is not */
		return true;
	}
	default: return false;
	}
}

static bool page_action(struct app *a, enum action act)
{
	struct page_view *pg = pv(a);
	long rows = a->lines - 1;
	switch (act) {
	case ACT_MOVE_DOWN:
	case ACT_MOVE_UP: page_scroll_by(a, act == ACT_MOVE_DOWN ? 1 : -1); return true;
	case ACT_PAGE_DOWN: page_scroll_by(a, rows - 1); return true;
	case ACT_PAGE_UP: page_scroll_by(a, -(rows - 1)); return true;
	case ACT_HALF_DOWN: page_scroll_by(a, rows / 2); return true;
	case ACT_HALF_UP: page_scroll_by(a, -rows / 2); return true;
	case ACT_FIRST: pg->scroll = 0; return true;
	case ACT_LAST: page_scroll_by(a, (long)pg->lines); return true;
	default: return false;
	}
}

/* The detail follows the selection; Enter opens the record it links to. */
static bool detail_action(struct app *a, enum action act)
{
	if (act == ACT_MOVE_DOWN || act == ACT_MOVE_UP)
		return move_action(a, act);
	if (act == ACT_DETAIL) {
		open_record(a);
		return true;
	}
	return page_action(a, act);
}

/* Enter in a linked record goes back to the event it links to. */
static bool record_action(struct app *a, enum action act)
{
	if (act == ACT_DETAIL) {
		record_back(a);
		return true;
	}
	return page_action(a, act);
}

/* The viewer ends: the page's text (the page views share it: each frees
 * it, the first for good). */
static void page_end(struct app *a)
{
	struct page_view *pg = (struct page_view *)view_state_made(a, V_DETAIL);
	if (pg) {
		buf_free(&pg->text);
		buf_free(&pg->diff);
		buf_free(&pg->info);
	}
}

const struct view_ops detail_ops = {.state_size = sizeof(struct page_view), .open = detail_open, .draw = detail_draw, .action = detail_action, .free = page_end};
const struct view_ops info_ops = {.open = info_open, .draw = page_draw, .action = page_action, .free = page_end};
const struct view_ops help_ops = {.open = help_open, .draw = page_draw, .action = page_action, .free = page_end};
const struct view_ops filters_ops = {.open = filters_open, .draw = filters_draw, .action = filters_action, .free = page_end};
const struct view_ops record_ops = {.open = record_open, .draw = page_draw, .action = record_action, .free = page_end};
const struct view_ops messages_ops = {.open = messages_open, .draw = page_draw, .action = page_action, .free = page_end};
const struct view_ops legend_ops = {.open = legend_open, .draw = page_draw, .action = page_action, .free = page_end};
const struct view_ops diff_ops = {.open = diff_open, .draw = diff_draw, .action = page_action, .free = page_end};
