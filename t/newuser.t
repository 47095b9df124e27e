#!/bin/sh
# What a new user trips over (issue 41, items 4-6): a message cut short
# says where it is whole, pages wrap at words, the arrow keys on an instant
# move on to the next event, and ? lists the keys of the view it came from
# with what they do there, without rows for actions that have no key.
. "$(dirname "$0")/lib.sh"

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
