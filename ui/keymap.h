/* Key bindings as data: keymaps/NAME.keys, then the user's
 * $XDG_CONFIG_HOME/ttv/keys, each line
 *
 *   bind CONTEXT KEY ACTION
 *
 * CONTEXT is `generic` or a view's word (app.h VIEWS; ttv.1 lists them,
 * t/house/lists.t checks it);
 * KEY is in libtermkey's vim notation without brackets (j, C-f, PageDown,
 * M-x, S-Tab, Space); ACTION is a word from ui/actions.h, or `none` to
 * unbind.  Later lines win, so the user file overrides single bindings.
 * A view's own bindings come before the generic ones. */
#ifndef TTV_KEYMAP_H
#define TTV_KEYMAP_H

#include <termkey.h>

#include "ui/app.h"

struct keymap;

struct keymap *keymap_new(TermKey *tk);
void keymap_free(struct keymap *km);
/* Load a file; bad lines are appended to *errors as `file:line: why`. */
bool keymap_load(struct keymap *km, const char *path, struct buf *errors);
/* The same from an open stream (closed here), `path` naming it in errors. */
bool keymap_read(struct keymap *km, FILE *f, const char *path, struct buf *errors);
enum action keymap_lookup(const struct keymap *km, enum view_id v, const TermKeyKey *key);
/* The keys bound to act in view v (or generic), as "j, Down". */
void keymap_keys_for(const struct keymap *km, enum view_id v, enum action act, struct buf *out);
/* Only the view's own keys for act, or (generic) only the generic ones the
 * view leaves as they are. */
void keymap_keys_own(const struct keymap *km, enum view_id v, enum action act, bool generic, struct buf *out);
/* Name of a key for messages and help ("C-f", "Space"). */
void keymap_key_name(const struct keymap *km, const TermKeyKey *key, struct buf *out);
const char *action_word(enum action act);
/* A view's word in keymap files ("lanes", "detail", ...). */
const char *view_word(enum view_id v);
const char *action_help(enum action act);

#endif
