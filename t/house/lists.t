#!/bin/sh
# The lists that documents repeat come from one source: the man page's
# keymap contexts and actions are what t/lists.sh makes of ui/app.h VIEWS
# and ui/actions.h ACTIONS (the words and help ? shows); the keymaps name
# only those contexts and actions, and point to the man page for the list.
. "$(dirname "$0")/../lib.sh"

MAN=$ROOT/ttv.1
# block NAME FILE: the lines between `.\" BEGIN NAME` and `.\" END NAME`
block() { sed -n "/^\.\\\\\" BEGIN $1\$/,/^\.\\\\\" END $1\$/p" "$2"; }
"$ROOT/t/lists.sh" >"$TMP/lists"
for name in contexts actions; do
	block $name "$TMP/lists" >"$TMP/want"
	block $name "$MAN" >"$TMP/got"
	[ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got"
	ok $? "ttv.1's $name are the ones the code has (t/lists.sh --write makes them)" ||
		diff "$TMP/want" "$TMP/got" | head -5 | sed 's/^/#   /'
done
is "$(block actions "$TMP/lists" | grep -c '^\.TP')" "$(grep -c '^[[:space:]]*X([A-Z_]*, "' "$ROOT/ui/actions.h")" \
	"every action is listed"

contexts=" generic $(sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z-]*\)", ACT_.*/\1/p' "$ROOT/ui/app.h" | tr '\n' ' ')"
actions=" none $(sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z-]*\)", ".*/\1/p' "$ROOT/ui/actions.h" | tr '\n' ' ')"
for km in "$ROOT"/keymaps/*.keys; do
	name=$(basename "$km")
	bad=$(awk '$1 == "bind" { print $2, $4 }' "$km" | while read -r ctx act; do
		case "$contexts" in *" $ctx "*) ;; *) echo "context $ctx" ;; esac
		case "$actions" in *" $act "*) ;; *) echo "action $act" ;; esac
	done)
	is "$bad" "" "$name binds only contexts and actions the code has"
	like "$(head -4 "$km")" "CONTEXT: generic or a view's word \(ttv\(1\), KEYMAP FILES|See less.keys" \
		"$name points to the man page for the contexts, or to less.keys"
done
like "$(head -4 "$ROOT/keymaps/less.keys")" "CONTEXT: generic or a view's word \(ttv\(1\), KEYMAP FILES" \
	"less.keys points to the man page for the contexts"

done_testing
