#!/bin/sh
# Readable function names: the demangler (t/demangle_test.c), and where the
# names show: --dump, --stats, the JSON fields (the name as written beside
# it), filters on either form, and the viewer's R (names as written).
. "$(dirname "$0")/../lib.sh"

tap_run "$TBIN/demangle_test"

A=$SAMPLES/atf/small_finalized
run --dump "$A"
like "$OUT" 'CALL	cart::Checkout::commit\(\) \(call_depth 2\)' "--dump: a C++ function readable"
like "$OUT" 'DemoShop\.CartViewModel\.load\(\)' "--dump: a Swift one too"
unlike "$OUT" '_ZN4cart' "--dump: no mangled name left"
run --stats "$A"
like "$OUT" 'CALL  cart::Checkout::commit\(\)' "--stats: span names readable"
run --dump --json "$A"
like "$OUT" '"function":"_ZN4cart8Checkout6commitEv","function_demangled":"cart::Checkout::commit\(\)"' \
	"JSON: the name as written, the readable one beside it"
like "$OUT" '"function":"main",' "JSON: a name that is not mangled, once"
unlike "$OUT" '"function":"main","function_demangled"' "JSON: ... and no demangled twin"
run --export chrome "$A"
like "$OUT" '"name":"cart::Checkout::commit\(\)"' "--export chrome: readable names"
n1=$("$TTV" -e 'function:^cart::Checkout::commit' --stats "$A" | sed -n '1s/ events//p')
n2=$("$TTV" -e 'function:^_ZN4cart8Checkout6commit' --stats "$A" | sed -n '1s/ events//p')
n3=$("$TTV" -e '_ZN4cart8Checkout6commit' --stats "$A" | sed -n '1s/ events//p')
ok "$([ "${n1:-0}" -gt 0 ] && [ "$n1" = "$n2" ] && [ "$n1" = "$n3" ]; echo $?)" \
	"filters find either form: function:READABLE $n1, function:MANGLED $n2, full text $n3"

# the viewer: R shows names as written, in the lanes and the list
printf 'dump %s/d1.txt\nR\ndump %s/d2.txt\nTab\ndump %s/d3.txt\nR\ndump %s/d4.txt\n' "$TMP" "$TMP" "$TMP" "$TMP" >"$TMP/d.script"
TTV_SCRIPT=$TMP/d.script TTV_SIZE=140x30 "$TTV" "$A" >/dev/null 2>&1
like "$(cat "$TMP/d1.txt")" 'cart::Checkout::commit\(\)' "lanes: readable names"
like "$(cat "$TMP/d2.txt")" '_ZN4cart8Checkout6commitEv' "lanes: R, as written"
like "$(tail -1 "$TMP/d2.txt")" 'function names as written' "R says so"
like "$(cat "$TMP/d3.txt")" 'CALL +_ZN4cart8Checkout6commitEv \(call_depth 2\)' "list: as written while R holds"
like "$(cat "$TMP/d4.txt")" 'CALL +cart::Checkout::commit\(\) \(call_depth 2\)' "list: R again, readable"
done_testing
