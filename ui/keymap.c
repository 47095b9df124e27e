/* ui floor 1 */
#include "ui/keymap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const words[ACT_COUNT] = {
	[ACT_NONE] = "none",
#define X(id, word, help) [ACT_##id] = word,
	ACTIONS(X)
#undef X
};

static const char *const helps[ACT_COUNT] = {
	[ACT_NONE] = "",
#define X(id, word, help) [ACT_##id] = help,
	ACTIONS(X)
#undef X
};

const char *action_word(enum action act) { return act < ACT_COUNT ? words[act] : ""; }
const char *action_help(enum action act) { return act < ACT_COUNT ? helps[act] : ""; }

#define CTX_GENERIC -1

static const char *const contexts[V_COUNT] = {
#define X(id, word, ...) word,
	VIEWS(X)
#undef X
};

const char *view_word(enum view_id v) { return v < V_COUNT ? contexts[v] : ""; }

struct binding {
	int ctx; /* a view_id or CTX_GENERIC */
	TermKeyKey key;
	enum action act;
};

struct keymap {
	TermKey *tk;
	struct binding *b;
	size_t n, cap;
};

struct keymap *keymap_new(TermKey *tk)
{
	struct keymap *km = xcalloc(1, sizeof *km);
	km->tk = tk;
	return km;
}

void keymap_free(struct keymap *km)
{
	if (!km)
		return;
	free(km->b);
	free(km);
}

static bool same_key(TermKey *tk, const TermKeyKey *a, const TermKeyKey *b)
{
	TermKeyKey x = *a, y = *b;
	return termkey_keycmp(tk, &x, &y) == 0;
}

static void bind(struct keymap *km, int ctx, const TermKeyKey *key, enum action act)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->b[i].ctx == ctx && same_key(km->tk, &km->b[i].key, key)) {
			km->b[i].act = act; /* later lines win */
			return;
		}
	xgrow(&km->b, &km->cap, km->n + 1, sizeof *km->b);
	km->b[km->n++] = (struct binding){ctx, *key, act};
}

bool keymap_load(struct keymap *km, const char *path, struct buf *errors)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		buf_printf(errors, "%s%s: %s", errors->len ? "; " : "", path, strerror(errno));
		return false;
	}
	return keymap_read(km, f, path, errors);
}

bool keymap_read(struct keymap *km, FILE *f, const char *path, struct buf *errors)
{
	char line[512];
	int lineno = 0;
	bool clean = true;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *w[5];
		int nw = 0;
		for (char *tok = strtok(line, " \t\r\n"); tok && nw < 5; tok = strtok(NULL, " \t\r\n"))
			w[nw++] = tok;
		if (!nw || w[0][0] == '#')
			continue;
		const char *why = NULL;
		int ctx = CTX_GENERIC - 1;
		TermKeyKey key;
		enum action act = ACT_COUNT;
		if (strcmp(w[0], "bind") || nw != 4) {
			why = "want: bind CONTEXT KEY ACTION";
		} else {
			if (!strcmp(w[1], "generic"))
				ctx = CTX_GENERIC;
			for (int i = 0; i < (int)ARRAY_LEN(contexts); i++)
				if (!strcmp(w[1], contexts[i]))
					ctx = i;
			for (int i = 0; i < ACT_COUNT; i++)
				if (!strcmp(w[3], words[i]))
					act = (enum action)i;
			const char *end = termkey_strpkey(km->tk, w[2], &key, TERMKEY_FORMAT_VIM);
			if (ctx < CTX_GENERIC)
				why = "unknown context";
			else if (!end || *end)
				why = "unknown key";
			else if (act == ACT_COUNT)
				why = "unknown action";
		}
		if (why) {
			buf_printf(errors, "%s%s:%d: %s", errors->len ? "; " : "", path, lineno, why);
			clean = false;
			continue;
		}
		bind(km, ctx, &key, act);
	}
	fclose(f);
	return clean;
}

enum action keymap_lookup(const struct keymap *km, enum view_id v, const TermKeyKey *key)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = km->n; i-- > 0;)
			if (km->b[i].ctx == (pass ? CTX_GENERIC : (int)v) && same_key(km->tk, &km->b[i].key, key))
				return km->b[i].act;
	return ACT_NONE;
}

void keymap_key_name(const struct keymap *km, const TermKeyKey *key, struct buf *out)
{
	char name[64];
	TermKeyKey k = *key;
	if (k.type == TERMKEY_TYPE_UNICODE && k.code.codepoint == ' ' && !k.modifiers) {
		buf_adds(out, "Space");
		return;
	}
	termkey_strfkey(km->tk, name, sizeof name, &k, TERMKEY_FORMAT_ALTISMETA);
	buf_adds(out, name);
}

static bool view_binds(const struct keymap *km, enum view_id v, const TermKeyKey *key)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->b[i].ctx == (int)v && same_key(km->tk, &km->b[i].key, key))
			return true;
	return false;
}

/* Passes [from, to): 0 the view's own bindings, 1 the generic ones it
 * leaves as they are. */
static void keys_for(const struct keymap *km, enum view_id v, enum action act, int from, int to, struct buf *out)
{
	size_t start = out->len;
	for (int pass = from; pass < to; pass++)
		for (size_t i = 0; i < km->n; i++) {
			const struct binding *b = &km->b[i];
			if (b->act != act || b->ctx != (pass ? CTX_GENERIC : (int)v))
				continue;
			if (pass && view_binds(km, v, &b->key))
				continue; /* the view's own binding of that key decides */
			if (out->len > start)
				buf_adds(out, ", ");
			keymap_key_name(km, &b->key, out);
		}
}

void keymap_keys_for(const struct keymap *km, enum view_id v, enum action act, struct buf *out)
{
	keys_for(km, v, act, 0, 2, out);
}

void keymap_keys_own(const struct keymap *km, enum view_id v, enum action act, bool generic, struct buf *out)
{
	keys_for(km, v, act, generic, generic + 1, out);
}
