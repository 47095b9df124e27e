/* libFuzzer target: the key binding file parser (ui/keymap.c), then every
 * lookup the help screen and the key dispatch make. */
#include <curses.h>

#include "t/fuzz/harness.h"
#include "ui/keymap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static TermKey *tk;
	if (!tk)
		tk = termkey_new_abstract("xterm-256color", TERMKEY_FLAG_NOTERMIOS | TERMKEY_FLAG_UTF8);
	char path[300];
	snprintf(path, sizeof path, "%s/keys", fz_dir());
	fz_write(path, data, size);
	struct keymap *km = keymap_new(tk);
	struct buf errors = {0}, out = {0};
	keymap_load(km, path, &errors);
	static const char *const keys[] = {"j", "C-f", "PageDown", "M-x", "S-Tab", "Space", "Enter", "Escape", "F1"};
	for (int v = V_LANES; v <= V_RECORD; v++) {
		for (int act = 0; act < ACT_COUNT; act++)
			keymap_keys_for(km, (enum view_id)v, (enum action)act, &out);
		for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
			TermKeyKey k;
			termkey_strpkey(tk, keys[i], &k, TERMKEY_FORMAT_VIM);
			keymap_lookup(km, (enum view_id)v, &k);
			keymap_key_name(km, &k, &out);
		}
	}
	buf_free(&out);
	buf_free(&errors);
	keymap_free(km);
	return 0;
}
