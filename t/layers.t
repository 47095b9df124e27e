#!/bin/sh
# Includes run one way (README, Layout):
#   lib <- io <- model <- decoders <- load <- out <- ui <- main
# A file includes headers of its own layer or below, never above.  Only the
# loader (src/trace.c, src/trace_saved.c) and the decoders include decoders/decoder.h, a
# decoder's private headers (decoders/NAME/*.h) stay inside its folder, and the
# model's (src/model_int.h) in its files (src/model*.c).
. "$(dirname "$0")/lib.sh"

# The layer of a source file or header, by path; "" when it has none, so
# that a new file has to be placed here before its includes pass.
layer() {
	case $1 in
	src/util.* | src/strtab.* | src/hmap.* | src/json.* | src/esc.* | src/fields.* | src/worker.* | src/demangle.* | \
		src/errnames.* | src/cli.h | src/config.c | src/bigmem.* | src/blob.h) echo "1 lib" ;;
	src/input.* | src/remote.* | src/saved.*) echo "2 io" ;;
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

# the rule itself can fail: an include up a layer is seen
printf '#include "ui/app.h"\n' >"$TMP/probe.c"
bad=$(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$TMP/probe.c")
hl=$(layer "$bad") fl=$(layer src/model.c)
ok "$([ "${hl%% *}" -gt "${fl%% *}" ]; echo $?)" "src/model.c including $bad would be an upward include"
done_testing
