/* theme.c: Colours from themes/, and where the data files are. */
#ifndef TTV_UI_THEME_H
#define TTV_UI_THEME_H

#include "ui/app.h"

bool theme_load(const char *name_or_path, bool mono, char **err);
int theme_attr(enum role r);
/* A data file (kind: "keymaps", "themes"; a name or a path): from
 * $TTV_DATADIR, beside the binary or its share/ttv, else compiled in.
 * *where says which (a path, or "built-in keymaps/less.keys"); NULL when
 * there is none. */
FILE *data_open(const char *kind, const char *name, const char *ext, const char **where);

#endif
