#!/bin/sh
# What a new user trips over (issue 41, items 4-6): a message cut short
# says where it is whole, pages wrap at words, the arrow keys on an instant
# move on to the next event, and ? lists the keys of the view it came from
# with what they do there, without rows for actions that have no key.
. "$(dirname "$0")/../lib.sh"

"$TBIN/ptwrite" --generate 40 "$TMP/v.pt" >/dev/null || exit 1
head -c 900 "$TMP/v.pt" >"$TMP/cut.pt"
H=$SAMPLES/htdump/small.htdump

# a damage message too long for 80 columns: cut, and says M has it whole
scenario newuser-cut cut.pt </dev/null
like "$(printf '%s\n' "$SCREEN" | tail -1)" '^damaged: cut\.pt: offset [0-9]+: .*… \(M\)' "80 columns: a cut message ends saying M has it"
SIZE=200x24 scenario newuser-whole cut.pt </dev/null
like "$(printf '%s\n' "$SCREEN" | tail -1)" '\(1 report; = lists them\)' "200 columns: the whole message"
unlike "$(printf '%s\n' "$SCREEN" | tail -1)" '\(M\)' "... and no pointer to it"
# = wraps at words: no row ends inside a word that goes on below it
SIZE=50x20 scenario newuser-info cut.pt <<'S'
=
S
split=$(printf '%s\n' "$SCREEN" | awk 'prev ~ /[A-Za-z0-9]$/ && $0 ~ /^[a-z0-9]/ && length(prev) >= 49 { print prev " / " $0 } { prev = $0 }')
is "$split" "" "= at 50 columns: no word split across rows"

# an instant: Right and Left move along its lane, not "not a span"
scenario newuser-instant "$H" <<'S'
k
k
k
k
k
k
k
Right
S
like "$(printf '%s\n' "$SCREEN" | tail -1)" '#86/167 ' "an instant: Right goes to the lane's next event"
unlike "$SCREEN" 'not a span' "... without a complaint"
scenario newuser-instant-left "$H" <<'S'
k
k
k
k
k
k
k
Right
Right
Left
S
like "$(printf '%s\n' "$SCREEN" | tail -1)" '#86/167 ' "an instant: Left goes back"

# ? in the call tree: its keys first, Left and Right fold and unfold
SIZE=80x60 scenario newuser-help-tree "$H" <<'S'
T
?
S
like "$SCREEN" '^ttv keys in the tree view, then everywhere' "? in the tree: named"
like "$SCREEN" 'h, Left +pan-left +fold the selected node' "? in the tree: Left folds"
like "$SCREEN" 'l, Right +pan-right +unfold the selected node' "? in the tree: Right unfolds"
unlike "$SCREEN" 'time window' "? in the tree: nothing about the time window"
unlike "$SCREEN" '\(no key\)' "? in the tree: no rows without a key"
SIZE=80x60 scenario newuser-help-lanes "$H" <<'S'
?
S
like "$SCREEN" 'h, Left|^  h +pan-left +move the time window left' "? in the lanes: h moves the time window"

# item 7: labels.  An ATF index event's detail names its byte offset as one
# (a copy under $TMP, named relative to it: the screen must not hold where the checkout is)
cp -r "$SAMPLES/atf/crash_sigkill/session_20260101_121000" "$TMP/session_20260101_121000"
SIZE=100x30 scenario newuser-atf-detail session_20260101_121000 <<'S'
Tab
j
Enter
S
like "$(printf '%s' "$SCREEN" | tr '\n' ' ')" 'bytes: .*thread_0/index\.atf, +offset 96 ' "atf detail: the record's byte offset, called offset"
unlike "$SCREEN" ', record [0-9]' "atf detail: not called a record number"
# syscall: one time per row (the row's), not a second one relative to the capture
run --dump "$SAMPLES/syscall/ls_l.dat"
unlike "$OUT" '	\+0\.[0-9]{6}s ' "syscall: the summary has no time of its own"
# the axis in the unit of its labels' size
"$TBIN/ptwrite" --generate 3000 "$TMP/long.pt" >/dev/null
SIZE=120x10 scenario newuser-axis "$TMP/long.pt" <<'S'
+
+
+
+
+
+
S
unlike "$(printf '%s\n' "$SCREEN" | head -1)" '[0-9]{4,}us' "axis: no label like +143000us when zoomed in far from the start"
# --stats and --report say their rule for a name's total
run --report "$H"
like "$(printf '%s\n' "$OUT" | tail -1)" '^total: a call inside a call of the same name counts once' "--report says its rule"
run --stats "$H"
like "$OUT" 'spans by calls \(total: every call, one inside a call of the same name too; --report counts it once\)' "--stats says its rule"
# a manifest given alone opens its session; a session of .atf.gz files as one of .atf
cp -r "$SAMPLES/atf/small_finalized" "$TMP/sf"
want=$("$TTV" --dump "$TMP/sf")
is "$("$TTV" --dump "$TMP/sf/manifest.json")" "$want" "atf: manifest.json alone opens its session"
is "$("$TTV" --dump "$TMP/sf/trace/session_20260101_120000/pid_4242/manifest.json")" "$want" "atf: a pid's manifest.json alone too"
find "$TMP/sf" -name '*.atf' -exec gzip {} \;
is "$("$TTV" --dump "$TMP/sf")" "$want" "atf: a session whose files are .atf.gz reads as the .atf one"
like "$("$TTV" --info "$TMP/sf")" 'files: +9, [0-9]+ bytes \([0-9]+ compressed\)' "... its 9 files, compressed"

# item 8: small things
# every writer answers --help with its usage, exit 0, and writes nothing
for w in atfwrite d9write htwrite ptwrite scwrite; do
	(cd "$TMP" && "$TBIN/$w" --help >"$TMP/help.out" 2>&1)
	rc=$?
	ok "$([ $rc = 0 ] && grep -q "^usage: $w " "$TMP/help.out" && [ ! -e "$TMP/--help" ]; echo $?)" "$w --help: usage, exit 0, no file"
	(cd "$TMP" && "$TBIN/$w" --bogus </dev/null >/dev/null 2>&1)
	ok "$([ $? = 2 ] && [ ! -e "$TMP/--bogus" ]; echo $?)" "$w --bogus: a usage error, no file"
done
# the SQL types table: no "(unknown type)" row no event has
run --sql "select count(*) from types where name = '(unknown type)'" --csv "$H"
is "$(printf '%s\n' "$OUT" | tail -1)" 0 "sql types: no (unknown type) row"
run --sql "select count(*) from types t where not exists (select 1 from events e where e.type = t.name)" --csv "$H"
is "$(printf '%s\n' "$OUT" | tail -1)" 0 "sql types: every type listed has events"
# two sources on unrelated clocks: the advice first, the names short
SIZE=80x24 scenario newuser-far "$SAMPLES/podtrace/small.ptrace" "$H" </dev/null
like "$(printf '%s\n' "$SCREEN" | tail -1)" '^(main .*  )?--align lines these up' "two clocks: --align first at 80 columns"

# in a terminal, at 80x24 and wide
for size in 80x24 200x50; do
	S=ttv-test-$$-$size
	session "$size" "cd '$TMP' && TERM=xterm-256color '$TTV' cut.pt"
	wait_for 'damaged' || fail "tmux $size: the first screen"
	last=$(screen | grep -v '^$' | grep -v 'exit=' | tail -1)
	if [ "$size" = 80x24 ]; then
		like "$last" '… \(M\)' "tmux $size: the cut message points to M"
	else
		like "$last" '= lists them\)' "tmux $size: the message whole"
	fi
	tm send-keys -t "$S" M
	wait_for 'messages, oldest first' || fail "tmux $size: M lists the messages"
	like "$(screen | tr -d '\n')" '= lists them\)' "tmux $size: M has the message whole"
	tm send-keys -t "$S" q q
	wait_for 'exit=' || fail "tmux $size: quits"
	tm kill-server
	S=ttv-test-$$-$size-h
	session "$size" "TERM=xterm-256color '$TTV' '$H'"
	wait_for '167 events' || fail "tmux $size: htdump"
	tm send-keys -t "$S" k k k k k k k Right
	sleep 0.3
	like "$(screen | tail -1)" '#86/167 ' "tmux $size: Right on an instant goes to the lane's next event"
	tm send-keys -t "$S" T
	wait_for 'CALL TREE' || fail "tmux $size: the call tree"
	tm send-keys -t "$S" '?'
	wait_for 'in the tree view' || fail "tmux $size: ? from the tree"
	[ "$size" = 80x24 ] && tm send-keys -t "$S" Space # (a page further down at 24 lines)
	wait_for 'fold the selected node' || fail "tmux $size: the fold row"
	like "$(screen)" 'Left +pan-left +fold the selected node' "tmux $size: ? says what Left does in the tree"
	tm send-keys -t "$S" q q q
	wait_for 'exit=' || fail "tmux $size: quits"
	tm kill-server
done

echo "1..$_n"
[ "$_failed" = 0 ]
