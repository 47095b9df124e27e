#!/bin/sh
# Every format ttv reads (its --help list, from the decoder registry) is in
# every place that lists formats by hand: the cross-format tests, the fuzz
# seeds and replay, and both completions.  A format left out of one of them
# would go untested, or uncompleted, without a word.
. "$(dirname "$0")/lib.sh"

formats=$("$TTV" --help | sed -n 's/.*--format NAME *skip probing: *//p')
ok "$([ -n "$formats" ]; echo $?)" "--help lists the formats ($formats)"

for f in t/fuzz.t t/fuzz/seeds.sh t/bigfile.t t/readonly.t t/damage.t t/lies.t t/hostile.t \
	completions/ttv.bash completions/_ttv; do
	missing=""
	for fmt in $formats; do
		grep -qw -- "$fmt" "$ROOT/$f" || missing="$missing $fmt"
	done
	is "$missing" "" "$f names every format"
done
# and each format has its own test file and a fixture writer's fuzz target
for fmt in $formats; do
	ok "$([ -f "$T_DIR/$fmt.t" ]; echo $?)" "t/$fmt.t exists"
	ok "$([ -f "$T_DIR/fuzz/fuzz_$fmt.c" ]; echo $?)" "t/fuzz/fuzz_$fmt.c exists"
done
done_testing
