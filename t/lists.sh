#!/bin/sh
# lists.sh [--write]: the man page's lists of keymap contexts and actions,
# made from their one source: the views' context words (ui/app.h VIEWS)
# and the actions with their help (ui/actions.h ACTIONS, which ? shows).
# Prints the two roff blocks; --write puts them into ttv.1 between its
# `.\" BEGIN name` and `.\" END name` lines (t/house/lists.t checks that ttv.1
# holds what this prints).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

# roff text: hyphens as \- (the man page's minus signs, as in option names)
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g'; }

contexts() {
	echo '.\" BEGIN contexts'
	sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z-]*\)", ACT_[A-Z_]*, [a-z_]*).*/\1/p' "$root/ui/app.h" |
		roff | awk '{ w[NR] = $0 } END {
			for (i = 1; i <= NR; i++)
				printf "%s%s%s\n", i == NR ? "or\n.B " : ".BR ", w[i], i == NR ? "" : " ,"
		}'
	echo '.\" END contexts'
}

actions() {
	echo '.\" BEGIN actions'
	sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z-]*\)", "\(.*\)")[[:space:]]*\\*$/\1	\2/p' "$root/ui/actions.h" |
		roff | awk -F '\t' '{
			printf ".TP\n.B %s\n", $1
			n = split($2, w, " "); line = ""
			for (i = 1; i <= n; i++) { # (text lines of at most 78 bytes)
				if (line != "" && length(line) + 1 + length(w[i]) > 78) { print line; line = "" }
				line = line == "" ? w[i] : line " " w[i]
			}
			print line
		}'
	echo '.\" END actions'
}

if [ "${1-}" = --write ]; then
	tmp=$(mktemp)
	contexts >"$tmp.contexts"
	actions >"$tmp.actions"
	awk -v c="$tmp.contexts" -v a="$tmp.actions" '
		/^\.\\" BEGIN contexts$/ { while ((getline l < c) > 0) print l; skip = 1; next }
		/^\.\\" BEGIN actions$/ { while ((getline l < a) > 0) print l; skip = 1; next }
		/^\.\\" END (contexts|actions)$/ { skip = 0; next }
		!skip' "$root/ttv.1" >"$tmp"
	cat "$tmp" >"$root/ttv.1"
	rm -f "$tmp" "$tmp.contexts" "$tmp.actions"
else
	contexts
	actions
fi
