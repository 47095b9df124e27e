/* libFuzzer target: the colour theme parser (ui/theme.c), in colour and
 * in mono, on a virtual 256-colour terminal. */
#include <curses.h>

#include "t/fuzz/harness.h"
#include "ui/app.h"
#include "ui/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static SCREEN *scr;
	if (!scr) {
		FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
		scr = newterm("xterm-256color", out, in);
		if (!scr)
			abort();
	}
	char path[300];
	snprintf(path, sizeof path, "%s/theme", fz_dir());
	fz_write(path, data, size);
	for (int mono = 0; mono < 2; mono++) {
		char *err = NULL;
		theme_load(path, mono, &err);
		free(err);
		for (int r = 0; r <= R_COUNT; r++)
			theme_attr((enum role)r);
	}
	return 0;
}
