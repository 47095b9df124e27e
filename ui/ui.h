/* The interactive viewer. */
#ifndef TTV_UI_H
#define TTV_UI_H

#include "src/cli.h"
#include "src/query.h"
#include "src/trace.h"

/* Run the viewer on an opened trace (loading happens inside, in slices).
 * Returns the exit status.
 *
 * TTV_SCRIPT=FILE runs it without a terminal, for tests: the screen is a
 * virtual one (TTV_SIZE=COLSxLINES, default 80x24) and FILE holds one step
 * per line: a key in keymap notation (j, C-o, Enter, Space), `type TEXT`,
 * `paste TEXT`, `click LINE COL`, `drag LINE COL COL`, `wheel up|down LINE COL`, `resize COLSxLINES`,
 * `shell CMD` (run a command, e.g. to append to the trace), `check` (look at
 * the files now, as the loop does when woken), `await` (run the follow loop
 * until new events arrive, at most 5 s), `await N` (... until there are N),
 * `follow MS` (run the follow loop for MS milliseconds),
 * `dump FILE` (write the screen as text), `dumpattr FILE` (mark highlighted
 * cells: m match, s selection, b a bar), `dumplooks FILE` (the screen, then
 * each cell's colours and attributes: what a picture of it is drawn from), `partial` (from here on, filters advance one
 * slice per step instead of finishing) or `# comment`.
 *
 * TTV_QUIT_AT_FIRST_SCREEN=FILE (make bench): quit as soon as the first
 * screen with events has been drawn on the terminal, and write to FILE the
 * ns from the start of main() to then. */
int ui_run(struct trace *t, struct filterset *fs, const struct cli *c);

/* Is there a keymap ("keymaps", ".keys") or theme ("themes", ".theme") by
 * this name or path, in a data folder or built in? */
bool ui_data_exists(const char *kind, const char *name, const char *ext);

#endif
