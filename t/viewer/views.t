#!/bin/sh
# The view stack as a user walks it in a terminal (tmux, at 80x24 and
# 160x40, on the ATF sample): T opens the call tree, b a function's
# callers and callees, a lone Esc goes back to the tree as it was left,
# ? and q come back to the butterfly, I and Enter open a bar's calls, and
# Esc steps back view by view to the lanes; a resize redraws the open
# view at the new size (the butterfly, the calls list), and one while a
# large tree is being built leaves it built and drawn at the new size.
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP no tmux"
	exit 0
fi
A=$SAMPLES/atf/small_finalized
# row N: line N of the pane
row() { screen | sed -n "$1p"; }
# last: the status line
last() { screen | tail -1; }

for size in 80x24 160x40; do
	S=ttv-views-$$-$size
	wide=${size%x*}
	session "$size" "TERM=xterm-256color '$TTV' '$A'"
	wait_for "241 events in 4 lanes"
	ok $? "$size: the lanes"
	tm send-keys -t "$S" T
	wait_for "CALL TREE by total"
	ok $? "$size: T opens the call tree"
	tm send-keys -t "$S" j j
	wait_for "call tree of 95 spans  3/94"
	tm send-keys -t "$S" b
	wait_for "CALLERS AND CALLEES"
	ok $? "$size: b opens the butterfly"
	like "$(screen)" "  cart::Checkout::commit\(\)" "$size: ... of the selected function"
	tm send-keys -t "$S" Escape
	wait_for "CALL TREE by total"
	ok $? "$size: a lone Esc: back to the call tree"
	like "$(last)" "call tree of 95 spans  3/94" "$size: ... its selection as it was left"
	tm send-keys -t "$S" b
	wait_for "CALLERS AND CALLEES"
	tm send-keys -t "$S" '?'
	wait_for "keys in the butterfly view"
	ok $? "$size: ? shows the butterfly's keys first"
	tm send-keys -t "$S" q
	wait_for "CALLERS AND CALLEES"
	ok $? "$size: q closes the keys: back to the butterfly, not further"
	# a resize with the butterfly open: the long name it cut is whole at 160
	if [ "$wide" = 80 ]; then
		tm resize-window -t "$S" -x 160 -y 40
		wait_for "-[AppDelegate application:didFinishLaunchingWithOptions:]"
		ok $? "resized 80x24 -> 160x40 with the butterfly open: redrawn at the new width"
		is "$(screen | wc -l | tr -d ' ')" 40 "... and height"
		tm resize-window -t "$S" -x 80 -y 24
		wait_for "-[AppDelegate application:didFinishLau…"
		ok $? "... and back: cut to fit again"
	else
		like "$(screen)" "-\[AppDelegate application:didFinishLaunchingWithOptions:\]" "$size: the long name whole"
	fi
	tm send-keys -t "$S" Escape
	wait_for "CALL TREE by total"
	tm send-keys -t "$S" w # (bound to nothing)
	sleep 0.3
	like "$(row 1)" "CALL TREE by total" "$size: a key bound to nothing leaves the call tree on top"
	tm send-keys -t "$S" I
	wait_for "FLAME GRAPH: all"
	ok $? "$size: I opens the flame graph"
	tm send-keys -t "$S" w
	sleep 0.3
	like "$(row 1)" "FLAME GRAPH: all" "$size: w (bound to nothing) leaves the flame graph on top"
	tm send-keys -t "$S" a
	wait_for "each lane on its own"
	ok $? "$size: a in the flame graph: each lane on its own, as in the call tree"
	wait_for "thread 1 (tid 515)" # (a lane's name: only each lane on its own shows it)
	ok $? "... the flame graph made again, a bar per lane under all"
	tm send-keys -t "$S" a
	wait_for "every lane merged"
	ok $? "... a again: every lane merged"
	tm send-keys -t "$S" j Enter
	wait_for "1 calls of main  1/1"
	ok $? "$size: Enter on a bar: its calls"
	tm resize-window -t "$S" -x 100 -y 20
	sleep 0.3
	is "$(screen | wc -l | tr -d ' ')" 20 "$size: resized to 100x20 with the calls open: redrawn"
	like "$(last)" "1 calls of main  1/1" "... the calls list still open"
	tm resize-window -t "$S" -x "$wide" -y "${size#*x}"
	tm send-keys -t "$S" Escape
	wait_for "FLAME GRAPH: all"
	ok $? "$size: Esc: back to the flame graph"
	tm send-keys -t "$S" Escape
	wait_for "CALL TREE by total"
	ok $? "$size: Esc: back to the call tree"
	tm send-keys -t "$S" Escape
	wait_for "main  154.43us (self 4.84us, depth 0)"
	ok $? "$size: Esc: back to the lanes, on the span selected before"
	like "$(row 1)" "^4 lanes " "... the lanes' header"
	quits "$size: q quits"
done

# a resize while a tree of 1.5 M events is being built (SIGWINCH in the
# middle of the steps): it is built, and drawn at the new size
"$TBIN/htwrite" --generate 1500000 --seed 2 "$TMP/big.ht" >/dev/null || fail "htwrite makes the trace"
S=ttv-views-$$-build
session 80x24 "TERM=xterm-256color '$TTV' '$TMP/big.ht'"
wait_for "lanes" 300
tm send-keys -t "$S" T \; resize-window -t "$S" -x 160 -y 40
wait_for "CALL TREE by total" 300
ok $? "T, then a resize at once: the tree is built"
is "$(screen | wc -l | tr -d ' ')" 40 "... drawn at the new height"
like "$(row 1)" "^ +TOTAL +SELF +CALLS +MIN +MAX +MEAN +CALL TREE" "... and width (the wide columns)"
tm send-keys -t "$S" q q
wait_for "exit=0"
ok $? "q, q: closed and quit"
tm kill-server 2>/dev/null
done_testing
