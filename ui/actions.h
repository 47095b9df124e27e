/* Every user action, once: ACTION(enum name, word in keymap files, help text).
 * This list yields the action enum, the names keymap files use, and the
 * help view; keymaps/ bind keys to these words. */
#ifndef TTV_ACTIONS_H
#define TTV_ACTIONS_H

#define ACTIONS(X)                                                                            \
	X(QUIT, "quit", "quit ttv, or close the current view")                                \
	X(MOVE_DOWN, "move-down", "next event (list, detail) or next lane (lanes)")           \
	X(MOVE_UP, "move-up", "previous event (list, detail) or previous lane (lanes)")       \
	X(PAGE_DOWN, "page-down", "one screen down")                                          \
	X(PAGE_UP, "page-up", "one screen up")                                                \
	X(HALF_DOWN, "half-page-down", "half a screen down")                                  \
	X(HALF_UP, "half-page-up", "half a screen up")                                        \
	X(FIRST, "first", "first timed event (past symbol tables and other metadata)")          \
	X(LAST, "last", "last timed event")                                                   \
	X(SWITCH_VIEW, "switch-view", "switch between the lanes and the list")                \
	X(DETAIL, "detail", "open the detail of the selected event; in a detail, follow its link") \
	X(BACK, "back", "close the view and return to the one before")                        \
	X(PAN_LEFT, "pan-left", "move the time window left (lanes); the summaries left (list)")     \
	X(PAN_RIGHT, "pan-right", "move the time window right (lanes); the summaries right (list)")  \
	X(ZOOM_IN, "zoom-in", "zoom in around the cursor")                                    \
	X(ZOOM_OUT, "zoom-out", "zoom out around the cursor")                                 \
	X(ZOOM_SPAN, "zoom-span", "zoom to the selected span")                                \
	X(ZOOM_ALL, "zoom-all", "show the whole trace")                                       \
	X(PREV_ON_LANE, "prev-on-lane", "previous event on the selected lane")                \
	X(NEXT_ON_LANE, "next-on-lane", "next event on the selected lane")                    \
	X(PARTNER, "partner", "jump between a span's begin and end (call and return)")        \
	X(JUMP_BACK, "jump-back", "back in the jump history")                                 \
	X(JUMP_FORWARD, "jump-forward", "forward in the jump history")                        \
	X(SET_MARK, "set-mark", "set a mark (then a letter a-z)")                             \
	X(GOTO_MARK, "goto-mark", "jump to a mark (then a letter a-z)")                       \
	X(SEARCH, "search", "search forward (the filter syntax: re, !re, type:re)")                                         \
	X(SEARCH_BACK, "search-back", "search backward (as search)")                              \
	X(NEXT_MATCH, "next-match", "next search match")                                      \
	X(PREV_MATCH, "prev-match", "previous search match")                                  \
	X(FILTER, "filter", "add a filter (&re keeps, &!re drops)")                           \
	X(FILTERS, "filters", "the filters view (toggle, edit, reorder, delete)")             \
	X(FOLLOW, "follow", "follow the files as they grow")                                  \
	X(INFO, "info", "what --info prints: formats, counts, damage")                        \
	X(COMMAND, "command", "command prompt (:goto TIME, :range A B, :q)")                  \
	X(SQL, "sql", "SQL over the trace: events, spans, lanes, types ...")                 \
	X(HELP, "help", "this help")                                                          \
	X(LEGEND, "legend", "what the lanes view's marks and colours mean")                   \
	X(CALL_TREE, "call-tree", "where the time went: the call tree of what is shown")   \
	X(SORT, "sort", "call tree: sort by total, self time or calls")                     \
	X(INVERT, "invert", "call tree: top-down, or bottom-up (who called where the time went)") \
	X(BUTTERFLY, "butterfly", "call tree: the selected function's callers and callees")  \
	X(BY_LANE, "by-lane", "call tree and flame graph: every lane merged, or each lane on its own")       \
	X(DIFF, "diff", "call tree: remember it as A; the next time, compare it with A")      \
	X(DIFF_FILES, "diff-files", "call tree: the first file given compared with the others") \
	X(FLAME_GRAPH, "flame-graph", "the flame graph of what is shown (the call tree's)")  \
	X(MESSAGES, "messages", "every message the status line showed, with its time")      \
	X(TOGGLE_TIME, "toggle-time", "show times relative to the start or absolute")         \
	X(RAW_NAMES, "raw-names", "show function names as written (mangled) or readable")     \
	X(HIDE_LANE, "hide-lane", "hide the selected lane")                                   \
	X(SHOW_LANES, "show-lanes", "show every hidden lane again")                           \
	X(ITEM_UP, "item-up", "move the selected lane (lanes) or filter (filters) up")        \
	X(ITEM_DOWN, "item-down", "move the selected lane (lanes) or filter (filters) down")  \
	X(PICK_LANE, "pick-lane", "pick the lane for the list (none picked: all lanes)")      \
	X(SPAN_PREV, "span-prev", "the span before the selected one at its depth; from an instant, the lane's event before it (lanes)") \
	X(SPAN_NEXT, "span-next", "the span after the selected one at its depth; from an instant, the lane's event after it (lanes)") \
	X(SPAN_UP, "span-up", "the span around the selected one, or the lane above (lanes)")       \
	X(SPAN_DOWN, "span-down", "the first span inside the selected one, or the lane below (lanes)") \
	X(RANGE_START, "range-start", "a time range starts where the selected event starts (lanes)") \
	X(RANGE_END, "range-end", "the time range ends where the selected event ends (lanes)")     \
	X(RANGE_FILTER, "range-filter", "keep only the events in the time range (a range: filter)") \
	X(COLLAPSE_LANE, "collapse-lane", "fold the selected lane to one row, or unfold it (lanes)") \
	X(COLLAPSE_ALL, "collapse-all", "fold every lane to one row, or unfold them all (lanes)") \
	X(TOGGLE, "toggle", "filters view: enable or disable the selected filter")            \
	X(EDIT, "edit", "filters view: edit the selected filter")                             \
	X(DELETE, "delete", "filters view: delete the selected filter")                       \
	X(INTERRUPT, "interrupt", "stop a running search, or take back a filter being applied") \
	X(REDRAW, "redraw", "redraw the screen")                                              \
	X(SUSPEND, "suspend", "suspend ttv (fg to resume)")

enum action {
	ACT_NONE = 0,
#define X(id, word, help) ACT_##id,
	ACTIONS(X)
#undef X
	ACT_COUNT
};

#endif
