#!/bin/sh
# FIELD:RE means a field only when the trace has that field: `::` is part of
# a name (tokio::runtime, Checkout::commit), never a field separator, and a
# field the trace does not have is said, never a silent empty result: batch
# modes exit 2 (a usage error) naming the fields there are; the viewer opens
# the & prompt with the text and the error.
. "$(dirname "$0")/../lib.sh"

first_field() { # PATH: a top-level field name of its first event
	"$TTV" --dump --json "$1" 2>/dev/null | head -1 | perl -MJSON::XS -ne '
		my $e = decode_json($_); my @k = sort keys %{$e->{fields}}; print $k[0]'
}

checked=""
for fmt in $(formats); do
	s=$(sample "$fmt")
	f=$(first_field "$s")
	run --dump -e "$f:." "$s"
	ok "$([ "$RC" -le 3 ] && [ "$RC" != 2 ] && [ -n "$OUT" ]; echo $?)" "$fmt: -e '$f:.' (a field it has) keeps events"
	run --dump -e 'nosuchfield:x' "$s"
	is "$RC" 2 "$fmt: -e 'nosuchfield:x' is a usage error"
	is "$OUT" "" "$fmt: and prints no events"
	like "$ERR" "^ttv: -e 'nosuchfield:x': no field 'nosuchfield' \\(text:RE matches the text\\); fields: [a-z_]+, " \
		"$fmt: said on stderr, with the fields there are"
	named=$(printf '%s\n' "$ERR" | sed -n 's/.*; fields: \([a-z_]*\),.*/\1/p')
	run --dump -e "$named:." "$s"
	ok "$([ "$RC" != 2 ] && [ -n "$OUT" ]; echo $?)" "$fmt: the first field named ($named) is one it has"
	run --dump -e 'Checkout::commit' "$s"
	ok "$([ "$RC" != 2 ]; echo $?)" "$fmt: -e 'Checkout::commit' is a pattern, not the field Checkout"
	for mode in --stats --report --info "--export chrome" "--sql select*from+events"; do
		# shellcheck disable=SC2086
		set -- $mode
		[ "$1" = --sql ] && set -- --sql 'select count(*) from events'
		run "$@" -e '!nosuchfield:x' "$s"
		is "$RC" 2 "$fmt: $1 with an unknown field's filter (excluding) is a usage error too"
	done
	checked="$checked $fmt"
done
every_format "$checked" "every format checked"

# `::` in a pattern is text: the same as text:PATTERN, on a trace that has it
gzip -dc "$SAMPLES/dial9/upstream_block_in_place_2026-05-21.bin.gz" >"$TMP/d9.bin"
run --dump -e 'tokio::runtime' "$TMP/d9.bin"
n=$(printf '%s\n' "$OUT" | grep -c .)
is "$RC" 0 "dial9: -e 'tokio::runtime' exits 0"
ok "$([ "$n" -gt 0 ]; echo $?)" "dial9: and keeps the events naming it ($n)"
run --dump -e 'text:tokio::runtime' "$TMP/d9.bin"
is "$(printf '%s\n' "$OUT" | grep -c .)" "$n" "dial9: the same events as text:tokio::runtime"
run --dump -e '!tokio::runtime' "$TMP/d9.bin"
all=$("$TTV" --dump "$TMP/d9.bin" | wc -l)
is "$(($(printf '%s\n' "$OUT" | grep -c .) + n))" "$all" "dial9: !tokio::runtime drops exactly those"
run --dump -e 'symbol_name:tokio::runtime' "$TMP/d9.bin"
ok "$([ "$RC" = 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c .)" -gt 0 ]; echo $?)" \
	"dial9: FIELD:RE with :: in the pattern matches the field"
# the scopes that are not fields are as they were
for spec in 'lane:.' 'type:.' 'text:.' 'range:0s..1000s'; do
	run --dump -e "$spec" "$TMP/d9.bin"
	is "$RC" 0 "dial9: -e '$spec' is no field name"
done

# following: said once events are there, exit 2
"$TBIN/ptwrite" --generate 50 "$TMP/f.pt" >/dev/null
timeout 10 "$TTV" --dump -f -e 'nosuchfield:x' "$TMP/f.pt" >"$TMP/f.out" 2>"$TMP/f.err"
is "$?" 2 "--dump -f with an unknown field exits 2 (not following on)"
like "$(cat "$TMP/f.err")" "no field 'nosuchfield'" "and says why"

# the viewer: -e with an unknown field opens the & prompt with its text and
# the error, and the events are not filtered
"$TBIN/ptwrite" --generate 40 "$TMP/v.pt" >/dev/null
scenario fieldnames-cli -e 'nosuchfield:x' "$TMP/v.pt" </dev/null
like "$SCREEN" '^&nosuchfield:x' "viewer: -e with an unknown field opens the & prompt with its text"
like "$SCREEN" "no field 'nosuchfield'" "viewer: the error above it"
scenario fieldnames-cli-esc -e 'nosuchfield:x' "$TMP/v.pt" <<'S'
Escape
S
like "$SCREEN" '#1/40 ' "viewer: no events filtered out by it (Esc)"
unlike "$SCREEN" '1 filter' "viewer: and no filter kept"
scenario fieldnames-typed "$TMP/v.pt" <<'S'
type &zz:x
Enter
S
like "$SCREEN" '^&zz:x' "viewer: a typed filter with an unknown field stays at the prompt"
like "$SCREEN" "no field 'zz'" "viewer: with its error"
scenario fieldnames-pattern "$TMP/v.pt" <<'S'
type &comm:a(
Enter
S
like "$SCREEN" '&comm:a\(  at offset 2: missing closing parenthesis' "viewer: a bad pattern keeps the prompt open too"
scenario fieldnames-ok "$TMP/v.pt" <<'S'
type &Checkout::commit
Enter
S
like "$SCREEN" 'filter Checkout::commit' "viewer: a pattern with :: is a filter"

# in a terminal, at 80x24 and wide
for size in 80x24 160x40; do
	S=ttv-test-$$-$size # a fresh server each: the last one may still be going away
	session "$size" "TERM=xterm-256color '$TTV' -e 'nosuchfield:x' '$TMP/v.pt'"
	wait_for "no field 'nosuchfield'" || fail "tmux $size: the error shows"
	like "$(screen)" '&nosuchfield:x' "tmux $size: the & prompt holds what was given"
	tm send-keys -t "$S" C-u 'comm:.' Enter
	wait_for 'filter comm:.' || fail "tmux $size: a fixed filter is taken"
	like "$(screen)" 'filter comm:\.' "tmux $size: the corrected filter is taken"
	tm send-keys -t "$S" q
	wait_for 'exit=0' || fail "tmux $size: q quits"
	like "$(screen)" 'exit=0' "tmux $size: exit 0"
	tm kill-server
done

echo "1..$_n"
[ "$_failed" = 0 ]
