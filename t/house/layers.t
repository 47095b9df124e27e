#!/bin/sh
# Includes run one way (README, Layout):
#   lib <- io <- model <- decoders <- load <- out <- ui <- main
# A file includes headers of its own layer or below, never above.  Only the
# loader (src/trace.c, src/trace_saved.c) and the decoders include decoders/decoder.h, a
# decoder's private headers (decoders/NAME/*.h) stay inside its folder, and the
# model's (src/model_int.h) in its files (src/model*.c).  Inside ui/, where
# every file includes ui/app.h, the calls run one way (from the built
# objects' symbols): no two files call each other, and each calls only
# files of its floor or below (its first line says its floor: /* ui floor N */,
# so a new view is placed in its own file).
. "$(dirname "$0")/../lib.sh"

# The layer of a source file or header, by path; "" when it has none, so
# that a new file has to be placed here before its includes pass.
layer() {
	case $1 in
	src/util.* | src/strtab.* | src/hmap.* | src/json.* | src/esc.* | src/fields.* | src/worker.* | src/demangle.* | \
		src/errnames.* | src/cli.h | src/config.c | src/bigmem.* | src/blob.h) echo "1 lib" ;;
	src/input.* | src/gzip.* | src/remote.* | src/saved.*) echo "2 io" ;;
	src/model.* | src/model_* | src/evstore.* | src/nest.*) echo "3 model" ;;
	decoders/*) echo "4 decoders" ;;
	src/trace.* | src/trace_saved.c) echo "5 load" ;;
	src/query.* | src/batch.* | src/export.* | src/stats.* | src/calltree.* | src/report.* | src/sql.*) echo "6 out" ;;
	ui/*) echo "7 ui" ;;
	src/main.c) echo "8 main" ;;
	esac
}

cd "$ROOT" || exit 1
files=$(ls src/*.[ch] ui/*.[ch] decoders/*.[ch] decoders/*/*.[ch] 2>/dev/null)
nfiles=$(printf '%s\n' "$files" | grep -c .)
ok "$([ "$nfiles" -ge 40 ]; echo $?)" "$nfiles source files to check"

unplaced="" upward="" door="" private="" edges=0
for f in $files; do
	fl=$(layer "$f")
	[ -n "$fl" ] || { unplaced="$unplaced $f"; continue; }
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in *.def) continue ;; esac
		case $h in
		decoders/decoder.h)
			case $f in src/trace.c | src/trace_saved.c | decoders/*) ;; *) door="$door $f" ;; esac ;;
		decoders/*/*)
			case $f in "${h%/*}"/*) ;; *) private="$private $f:$h" ;; esac ;;
		src/model_int.h)
			case $f in src/model.c | src/model_*) ;; *) private="$private $f:$h" ;; esac ;;
		esac
		hl=$(layer "$h")
		[ -n "$hl" ] || { unplaced="$unplaced $h"; continue; }
		edges=$((edges + 1))
		[ "${hl%% *}" -le "${fl%% *}" ] || upward="$upward $f(${fl#* })->$h(${hl#* })"
	done
done
ok "$([ "$edges" -ge 80 ]; echo $?)" "$edges includes checked"
is "$unplaced" "" "every file has a layer"
is "$upward" "" "no include runs up a layer"
is "$door" "" "only the loader includes decoders/decoder.h"
is "$private" "" "a decoder's private headers stay in its folder, the model's in its files"

# ---- calls inside ui/: from each object's undefined symbols to the file
# that defines them as functions (the views' ops tables are data: view.c
# lists them without calling them) ----
ui_floor() {
	case $1 in
	app | actions | builtin) echo 0 ;; # the app's state, the actions, the data built in
	ui) echo 0 ;; # ui.h, the viewer's face to main (run.c, theme.c define it)
	*) sed -n '1s|^/\* ui floor \([0-9][0-9]*\) \*/$|\1|p' "ui/$1.c" 2>/dev/null ;; # its first line says
	esac
}
# ui_calls OBJ...: "caller callee" for each call from one file to another
ui_calls() {
	for o; do
		nm --defined-only -g "$o" | awk -v f="$(basename "$o" .o)" '$2 == "T" { print "def", $3, f }'
		nm -u "$o" | awk -v f="$(basename "$o" .o)" '{ print "use", $2, f }'
	done | awk '$1 == "def" { at[$2] = $3; next } { use[NR] = $2 " " $3 }
		END { for (i in use) { split(use[i], u, " "); if (u[1] in at && at[u[1]] != u[2]) print u[2], at[u[1]] } }' |
		sort -u
}
objs=$(for o in "$BUILD"/ui/*.o; do [ -f "ui/$(basename "$o" .o).c" ] && echo "$o"; done)
if [ -n "$objs" ] && command -v nm >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	ui_calls $objs >"$TMP/calls"
	ok "$([ "$(wc -l <"$TMP/calls")" -ge 30 ]; echo $?)" "$(wc -l <"$TMP/calls") calls between ui files"
	# judge CALLS: the calls both ways, the calls up, the files with no floor
	judge() {
		both="" up="" unplaced=""
		while read -r from to; do
			grep -qx "$to $from" "$1" && both="$both $from<->$to"
			ff=$(ui_floor "$from") tf=$(ui_floor "$to")
			[ -n "$ff" ] && [ -n "$tf" ] || { unplaced="$unplaced $from $to"; continue; }
			[ "$tf" -le "$ff" ] || up="$up $from->$to"
		done <"$1"
	}
	judge "$TMP/calls"
	for f in ui/*.c; do b=$(basename "$f" .c); echo "$(ui_floor "$b") $b"; done | sort -n |
		awk '$1 != f { printf "%s%s:", (f == "" ? "# floors " : "; "), $1; f = $1 } { printf " %s", $2 } END { print "" }'
	is "$unplaced" "" "every ui file has a floor"
	is "$both" "" "no two ui files call each other"
	is "$up" "" "ui files call only down (or across) their floors"
	printf 'tree loop\nloop tree\n' >"$TMP/probe.calls" # (the check itself can fail)
	judge "$TMP/probe.calls"
	is "$both|$up" " tree<->loop loop<->tree| tree->loop" "tree and loop calling each other would be seen, and tree's call up"
else
	ok 0 "# SKIP no ui objects in $BUILD (or no nm)"
fi
# each ui module has its header (ui/NAME.h for ui/NAME.c, when others
# call it), and ui files include only headers of their floor or below
up=""
for f in ui/*.c ui/*.h; do
	b=$(basename "$f") ff=$(ui_floor "${b%.*}")
	for h in $(sed -n 's|^#include "ui/\([a-z]*\)\.h".*|\1|p' "$f"); do
		hf=$(ui_floor "$h")
		[ -n "$ff" ] && [ -n "$hf" ] && [ "$hf" -le "$ff" ] || up="$up $f->ui/$h.h"
	done
done
is "$up" "" "ui files include headers of their floor or below"


# the rule itself can fail: an include up a layer is seen
printf '#include "ui/app.h"\n' >"$TMP/probe.c"
bad=$(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$TMP/probe.c")
hl=$(layer "$bad") fl=$(layer src/model.c)
ok "$([ "${hl%% *}" -gt "${fl%% *}" ]; echo $?)" "src/model.c including $bad would be an upward include"
done_testing
