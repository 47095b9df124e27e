#!/bin/sh
# The call tree view (T): scripted screens at 80x24 read against --report
# of the same scope, folding, sorting, Enter to the node's calls (against
# spans nested apart) and on to one of them, the scope
# (filters, hidden lanes, the time range); and in tmux, as a user types it,
# and following a growing file.
. "$(dirname "$0")/../lib.sh"

H=$SAMPLES/htdump/small.htdump
# shot NAME KEYS [TTV-ARGS...]: the screen after the keys (a printf
# format, a key a line), into $SHOT
shot() {
	name=$1 keys=$2; shift 2
	# shellcheck disable=SC2059
	{ printf "$keys"; echo "dump $TMP/$name.txt"; } >"$TMP/$name.script"
	TTV_SCRIPT=$TMP/$name.script TTV_SIZE=${SIZE:-80x24} "$TTV" "$@" >/dev/null 2>"$TMP/$name.err"
	SHOT=$(cat "$TMP/$name.txt")
}
# row NAME: the tree's row of that name, its columns squeezed
row() { printf '%s\n' "$SHOT" | grep -E "[ ▾▸+-] $1\$" | head -1 | tr -s ' '; }
# report NAME [ARGS]: --report's total, self and calls of NAME, squeezed as row shows them
report() {
	name=$1; shift
	"$TTV" --report "$@" | awk -v n="$name" '$7 == n { print $1, $2, $3 }' | head -1
}

shot tree 'T\n' "$H"
like "$SHOT" "TOTAL +SELF +CALLS +CALL TREE by total" "T opens the call tree, sorted by total"
like "$(printf '%s\n' "$SHOT" | sed -n 2p)" "8.68ms +70.5% +18.94us +3 +▾ worker_run$" "the heaviest root first, unfolded"
like "$SHOT" "▾ compute
 .* +leaf" "a callee under its caller, indented"
like "$SHOT" "call tree of 51 spans +1/8" "the status line says what it is of"
for n in worker_run main join_workers spawn_workers; do
	want=$(report $n "$H")
	[ -n "$want" ] || fail "--report has $n"
	like "$(row $n)" "^ ?$(printf '%s' "$want" | sed 's/ /.*/g')" "$n: total, self and calls as --report has them"
done

shot folded "T\ns\ndump $TMP/sorted.txt\nj\nh\n" "$H"
like "$(cat "$TMP/sorted.txt")" "CALL TREE by self" "s sorts by self time"
like "$(sed -n 4p "$TMP/sorted.txt")" "io_wait$" "... io_wait (3.59 ms self) above compute"
like "$SHOT" "▸ iteration" "h folds the node"
unlike "$SHOT" "leaf" "... its callees gone from the rows"

SIZE=120x24 shot calls 'T\nj\nEnter\n' "$H"
like "$SHOT" "9 calls of iteration in worker_run  1/9" "Enter lists the node's calls: its name and path said"
is "$(printf '%s\n' "$SHOT" | grep -c '  thread [0-9]$')" 9 "... one row for each"
like "$(printf '%s\n' "$SHOT" | sed -n 2p)" "^ +1\.06ms +1\.01us +\+0\.002443587 +thread 4$" "... the longest first (as --report's max), its self time, start and lane"
SIZE=120x24 shot longest 'T\nj\nEnter\nEnter\n' "$H"
like "$SHOT" "the longest of 9 calls of iteration: 1.06ms" "Enter on a call: it in the lanes view, said"
like "$SHOT" "^5 lanes" "... in the lanes view"
like "$SHOT" "thread 4 HT_Call.*iteration 1.06ms" "... selected"
like "$SHOT" "match 12 of 12" "... and a search for its name: n and N go through the others"
SIZE=120x24 shot third 'T\nj\nEnter\nj\nj\nEnter\n' "$H"
like "$SHOT" "call 3 of 9 of iteration, longest first: 959\.63us" "... the third longest: said which it is"
like "$SHOT" "thread 3 HT_Call.*iteration 959\.63us" "... selected"
SIZE=120x24 shot back 'T\nj\nEnter\nj\nj\nEnter\nT\nEnter\n' "$H"
like "$SHOT" "9 calls of iteration in worker_run  3/9" "T, Enter again: the list as it was left"

# the calls listed against spans nested apart (t/nest.pl), in order of
# length: a top-down node's (its whole path), a bottom-up one's (the
# function called from that caller, from anywhere above)
"$TBIN/htwrite" --generate 8000 --seed 5 "$TMP/g.ht" || exit 1
"$TTV" --dump --json "$TMP/g.ht" | SPANS=1 perl "$T_DIR/nest.pl" >"$TMP/g.spans"
# starts PATTERN: the starts (@s.ns) of the spans whose path matches, longest first
starts() {
	perl -ne 'chomp; my ($p, $d, $t) = split /\t/; print "$d\t$t\n" if $p =~ /'"$1"'/' "$TMP/g.spans" |
		sort -k1,1nr -k2,2n | perl -ne '/\t(\d+)$/ and printf "\@%d.%09d\n", $1 / 1e9, $1 % 1e9'
}
listed() { printf '%s\n' "$SHOT" | awk '$3 ~ /^@/ { print $3 }'; }
shot gtree 'T\n' "$TMP/g.ht"
top=$(printf '%s\n' "$SHOT" | sed -n 2p | awk '{ print $NF }')
under=$(printf '%s\n' "$SHOT" | sed -n 3p | awk '{ print $NF }')
third=$(printf '%s\n' "$SHOT" | sed -n 4p | awk '{ print $NF }')
SIZE=100x400 shot gcalls 'T\nj\nj\nEnter\n' --time trace "$TMP/g.ht"
want=$(starts "^$top;$under;$third\$")
n=$(printf '%s\n' "$want" | wc -l | tr -d ' ')
is "$(listed)" "$want" "$top > $under > $third: its calls longest first, as nested apart ($n of them)"
like "$SHOT" "$n calls of $third in $under in $top " "... counted"
# the whole path: b called outermost is not b called in a; a in b outermost is not a in b in a
printf '%s\n' 'stream' 'cs ts=1000 dur=100000 tid=1 label=a' 'cs ts=10000 dur=40000 tid=1 label=b' \
	'cs ts=20000 dur=20000 tid=1 label=a' 'cs ts=200000 dur=100000 tid=1 label=b' \
	'cs ts=210000 dur=30000 tid=1 label=a' | "$TBIN/htwrite" "$TMP/rec.ht" || exit 1
shot rec 'T\nj\nj\nj\nEnter\n' --time trace "$TMP/rec.ht"
is "$(listed | tr '\n' ' ')" "@0.000200000 " "recursion: the outermost b's calls are its own, not those of b in a"
shot rec2 'T\nj\nj\nj\nj\nEnter\n' --time trace "$TMP/rec.ht"
is "$(listed | tr '\n' ' ')" "@0.000210000 " "... a in the outermost b: not a in b in a"
like "$SHOT" "1 calls of a in b  1/1" "... said so"
shot rec3 'T\ni\nj\nEnter\n' --time trace "$TMP/rec.ht"
like "$SHOT" "2 calls of a from b " "bottom-up: a from b, from anywhere above"
is "$(listed | tr '\n' ' ')" "@0.000210000 @0.000020000 " "... both, longest first"
shot ginv 'T\ni\n' "$TMP/g.ht"
leaf=$(printf '%s\n' "$SHOT" | sed -n 2p | awk '{ print $NF }')
caller=$(printf '%s\n' "$SHOT" | sed -n 3p | awk '{ print $NF }')
SIZE=100x400 shot gicalls 'T\ni\nj\nEnter\n' --time trace "$TMP/g.ht"
want=$(starts "(^|;)$caller;$leaf\$")
is "$(listed)" "$want" "bottom-up, $leaf from $caller: its calls, as nested apart ($(printf '%s\n' "$want" | wc -l) of them)"
like "$SHOT" "calls of $leaf from $caller " "... said so"
"$TBIN/atfwrite" --generate 1 --seed 3 "$TMP/s.atf" || exit 1
SIZE=120x24 shot atfn 'T\nEnter\nEnter\n' "$TMP/s.atf"
want=$("$TTV" --dump -e 'function:^main$' "$TMP/s.atf" | wc -l | tr -d ' ')
like "$SHOT" "match [0-9]+ of $want" "ATF: the search is for the function itself (as -e 'function:^main\$': $want events)"

shot scoped 'T\n' "$H" -e 'lane:^thread 2$'
like "$(row worker_run)" " 1 ▾ worker_run$|1 ▾ worker_run" "a filter: only its lane's calls"
want=$(report worker_run "$H" -e 'lane:^thread 2$')
[ -n "$want" ] || fail "--report -e has worker_run"
like "$(row worker_run)" "^ ?$(printf '%s' "$want" | sed 's/ /.*/g')" "... as --report with the filter"
shot none 'T\n' "$H" -e 'type:Blob'
like "$SHOT" "no span in what is shown" "nothing in scope: said"

# a scope written when it ends: a child that starts with its parent comes
# first; it goes under the parent, and nothing is left where it was taken first
"$TBIN/htwrite" "$TMP/first.ht" <<'SPEC' || exit 1
stream
cs ts=1000 dur=100 tid=1 label=child
cs ts=1000 dur=500 tid=1 label=parent
cs ts=2000 dur=100 tid=1 label=other
SPEC
shot first 'T\n' "$TMP/first.ht"
like "$(printf '%s\n' "$SHOT" | sed -n 2,4p | tr -s ' ')" "500ns 83.3% 400ns 1 ▾ parent
 100ns 16.7% 100ns 1 child
 100ns 16.7% 100ns 1 other$" "a child written before its same-start parent: under it"
unlike "$SHOT" " 0 +(▾ |  )?child" "... and no empty path where it was taken first"

# a wide terminal: a call's least, greatest and mean too, as --report has them
SIZE=140x24 shot wide 'T\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "TOTAL +SELF +CALLS +MIN +MAX +MEAN +CALL TREE" "wide: min, max and mean columns"
want=$("$TTV" --report "$H" | awk '$7 == "worker_run" { print $4, $5, $6 }')
[ -n "$want" ] || fail "--report has worker_run"
like "$(row worker_run)" "3 $want ▾ worker_run$" "... worker_run's as --report has them ($want)"

# D: this tree is A; another scope (a filter here) is B, compared per name
SIZE=140x30 shot diff 'T\nD\n&\ntype lane:^thread 2$\nEnter\nD\n' "$H"
like "$(printf '%s\n' "$SHOT" | sed -n 1,2p)" "^A: 51 spans
B: 16 spans, filters: lane:\\^thread 2\\$" "D, D: A and B said"
"$TTV" --report --json "$H" >"$TMP/ra"
"$TTV" --report --json -e 'lane:^thread 2$' "$H" >"$TMP/rb"
wa=$(perl -MJSON::XS -ne '$j = decode_json($_); print "$j->{total}\n" if $j->{name} eq "worker_run"' "$TMP/ra")
wb=$(perl -MJSON::XS -ne '$j = decode_json($_); print "$j->{total}\n" if $j->{name} eq "worker_run"' "$TMP/rb")
like "$(printf '%s\n' "$SHOT" | grep ' worker_run ')" "^ +8.68ms +2.87ms +-5.81ms .* 3 +1  worker_run " \
	"... worker_run: A, B ($wa, $wb ns as --report has them) and the change"
like "$(printf '%s\n' "$SHOT" | sed -n 6p)" " worker_run " "... the largest change first"
shot diff1 'T\nD\n' "$H"
like "$SHOT" "this is A: change what is shown" "D once: remembered, said"

# v: the first file given against the others, in one step, as --diff A B
"$TBIN/htwrite" --generate 8000 --seed 6 "$TMP/g2.ht" || exit 1
table() { printf '%s\n' "$SHOT" | sed -n '/total A/,/^$/p' | sed '/^$/d'; }
SIZE=160x40 shot files 'T\nv\n' "$TMP/g.ht" "$TMP/g2.ht"
like "$(printf '%s\n' "$SHOT" | sed -n 1,2p)" "^A: $TMP/g\\.ht, [0-9]+ spans
B: $TMP/g2\\.ht, [0-9]+ spans" "v: the first file against the other, said"
want=$("$TTV" --diff "$TMP/g.ht" "$TMP/g2.ht")
is "$(table)" "$want" "... the table --diff gives"
SIZE=160x40 shot files2 'T\nv\n' -e 'lane:^thread [2-5]$' "$TMP/g.ht" "$TMP/g2.ht"
want=$("$TTV" --diff -e 'lane:^thread [2-5]$' "$TMP/g.ht" "$TMP/g2.ht")
is "$(table)" "$want" "... of what is shown: a filter"
like "$(printf '%s\n' "$SHOT" | sed -n 2p)" "filters: lane:" "... said"
shot files1 'T\nv\n' "$H"
like "$SHOT" "v compares files: open two \\(ttv A B\\)" "v with one file: said what it needs"
shot files3 "T\npartial\nv\ndump $TMP/comparing.txt\nEscape\n" "$TMP/g.ht" "$TMP/g2.ht"
like "$(cat "$TMP/comparing.txt")" "comparing the first file with the others: A, 0% of the events" "built in steps, said"
like "$SHOT" "CALL TREE by total" "... Esc goes back to the tree"

# per lane (a): each lane a node over its spans
shot perlane 'T\na\n' "$H"
like "$(printf '%s\n' "$SHOT" | sed -n 2,3p)" "3.63ms +29.5% +0ns +1 +▾ thread 1
 +3.63ms +29.5% +13.03us +1 +▾ main$" "a: each lane on its own, its spans under it"
like "$SHOT" "each lane on its own" "... said"
shot perlane2 'T\na\nI\n' "$H"
like "$(printf '%s\n' "$SHOT" | sed -n 3p)" "^thread 1 +thread 4 +thread 2 +thread 3$" "... the flame graph's too"
shot perlane3 'T\na\na\n' "$H"
like "$(printf '%s\n' "$SHOT" | sed -n 2p)" "▾ worker_run$" "a again: every lane merged"

# bottom-up (i): where the time was spent, under it who called it
shot inverted 'T\ni\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "BOTTOM-UP by total" "i: bottom-up"
like "$(printf '%s\n' "$SHOT" | sed -n 2p)" "5.03ms +40.9% +5.03ms +18 +▾ leaf$" "... the most self time first: leaf, all of its self time"
like "$(printf '%s\n' "$SHOT" | sed -n 3,5p | tr -s ' ')" "compute
.*iteration
.*worker_run$" "... under it its callers, out to the outermost"
like "$(printf '%s\n' "$SHOT" | sed -n 3p)" "5.03ms +40.9% +0ns +18 +▾ compute$" "... each with the time spent in it through them"
shot inverted2 'T\ni\ni\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "CALL TREE by total" "i again: top-down"

# butterfly (b): one function's callers and callees, over every path it is on
shot butterfly 'T\nj\nb\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "CALLERS AND CALLEES" "b: the selected function's callers and callees"
like "$(printf '%s\n' "$SHOT" | sed -n 2,8p | tr -s ' ')" "called by:
 8.66ms 70.4% 9 worker_run
 8.66ms 70.4% 8.81us 9 iteration
 calls:
 5.06ms 41.1% 24.58us 9 compute
 3.59ms 29.2% 3.59ms 9 io_wait" "... iteration between its caller and its callees"
shot butterfly2 'T\nj\nb\nj\nEnter\n' "$H"
like "$(printf '%s\n' "$SHOT" | sed -n 2,6p | tr -s ' ')" "called by:
 5.06ms 41.1% 9 iteration
 5.06ms 41.1% 24.58us 9 compute
 calls:
 5.03ms 40.9% 5.03ms 18 leaf" "Enter on a callee: it is the function now"
shot butterfly3 'T\nj\nb\nEscape\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "CALL TREE by total" "Esc: back to the call tree"
shot butterfly4 'T\nb\n' "$H"
like "$(printf '%s\n' "$SHOT" | sed -n 3p)" "\(nothing: it was outermost\)" "an outermost function: no caller, said"

# the flame graph (I): the same tree, bars as wide as their share
shot flame 'I\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "^FLAME GRAPH: all " "I opens the flame graph"
like "$(printf '%s\n' "$SHOT" | sed -n 3p)" "^worker_run +main$" "the roots under all, largest first, main at 30% of the width"
col=$(printf '%s\n' "$SHOT" | sed -n 3p | awk '{ print index($0, "main") - 1 }')
ok $((col < 52 || col > 60)) "... main starts where worker_run's 70.5% ends (column $col of 80)"
like "$SHOT" "all: 12.30ms \(100.0%\), self 0ns, 51 calls" "the status line: the selected bar"
shot flame2 'I\nj\nj\n+\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "^FLAME GRAPH: all › worker_run › iteration " "+ zooms into the selected bar: the path to it said"
like "$(printf '%s\n' "$SHOT" | sed -n 3p)" "^compute +io_wait$" "... its callees across the width"
like "$SHOT" "iteration: 8.66ms \(100.0%\), self 8.81us, 9 calls" "... it is all of the width now"
shot flame3 'I\nj\nj\n+\n-\n-\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "^FLAME GRAPH: all  " "- zooms back out"
shot flame4 'I\nj\nl\n' "$H"
like "$SHOT" "main: 3.63ms \(29.5%\)" "Right: the bar beside"
shot flame5 'I\nj\nl\nEnter\n' "$H"
like "$SHOT" "1 calls of main  1/1" "Enter: the bar's calls"
shot flame6 'I\nj\nl\nEnter\nEnter\n' "$H"
like "$SHOT" "the longest of 1 calls of main: 3.63ms" "... Enter: in the lanes view"
shot flame7 'I\nj\nj\n+\nEscape\n&\ntype lane:^thread 2$\nEnter\nI\n' "$H"
like "$(printf '%s\n' "$SHOT" | head -1)" "^FLAME GRAPH: all  " "zoomed in, then a filter: the tree made afresh, the flame graph of all of it"
like "$SHOT" "all: [0-9.]+ms \(100.0%\)" "... all of it selected"

# built in steps: Esc while it is being built stops it
shot stopped "partial\nT\ndump $TMP/building.txt\nEscape\n" "$H"
like "$(cat "$TMP/building.txt")" "nesting spans\\.\\.\\. 0% of the events" "while it is built, it says how far it is"
like "$SHOT" "call tree stopped" "Esc stops it"
like "$SHOT" "^5 lanes" "... and goes back to the lanes"
shot ostopped "T\nj\npartial\nEnter\ndump $TMP/finding.txt\nEscape\n" "$H"
like "$(cat "$TMP/finding.txt")" "finding the calls\\.\\.\\. 0% of the events" "a node's calls are found in steps, said"
like "$(cat "$TMP/finding.txt")" "9 calls of iteration in worker_run" "... whose they are said meanwhile"
like "$SHOT" "stopped finding the calls" "Esc stops it"
like "$SHOT" "CALL TREE by total" "... and goes back to the tree"

# in a terminal: T, move, fold, Esc back to the lanes, T again as it was left
if command -v tmux >/dev/null 2>&1; then
	S=ttv-tree-$$
	session 80x24 "TERM=xterm-256color '$TTV' '$H'"
	wait_for "5 lanes"
	tm send-keys -t "$S" T
	wait_for "CALL TREE by total"
	ok $? "tmux: T opens the call tree"
	tm send-keys -t "$S" j Left
	wait_for "▸ iteration"
	ok $? "tmux: Left folds"
	tm send-keys -t "$S" Escape
	wait_for "5 lanes"
	ok $? "tmux: Esc goes back to the lanes"
	tm send-keys -t "$S" T
	wait_for "▸ iteration"
	ok $? "tmux: T again: the tree as it was left"
	tm send-keys -t "$S" Enter
	wait_for "9 calls of iteration in worker_run  1/9"
	ok $? "tmux: Enter lists the node's calls"
	tm send-keys -t "$S" j Enter
	wait_for "call 2 of 9 of iteration"
	ok $? "tmux: Enter on the second: in the lanes view"
	tm send-keys -t "$S" T
	wait_for "CALL TREE by total"
	tm send-keys -t "$S" I
	wait_for "FLAME GRAPH"
	ok $? "tmux: I opens the flame graph"
	tm send-keys -t "$S" j +
	wait_for "FLAME GRAPH: all › worker_run"
	ok $? "tmux: + zooms in"
	tm send-keys -t "$S" q q q
	wait_for "exit=0"
	ok $? "tmux: q, q: closed and quit"
	tm kill-server 2>/dev/null

	# two files: v compares them (a server of its own: the last one may still be going)
	S=ttv-tree-$$-files
	session 120x30 "TERM=xterm-256color '$TTV' '$TMP/g.ht' '$TMP/g2.ht'"
	wait_for "g.ht + g2.ht"
	tm send-keys -t "$S" T v
	wait_for "B: $TMP/g2.ht"
	ok $? "tmux: v compares the two files"
	like "$(screen)" "total A +total B +change" "... the table"
	tm send-keys -t "$S" Escape
	wait_for "CALL TREE by total"
	ok $? "tmux: Esc: back to the tree"
	tm send-keys -t "$S" q q
	wait_for "exit=0"
	tm kill-server 2>/dev/null
	S=ttv-tree-$$-follow

	# following: the tree takes in what the file grows by
	"$TBIN/ptwrite" --generate 2000 --seed 1 "$TMP/live.pt" || exit 1
	"$TBIN/ptwrite" --generate 2000 --seed 2 "$TMP/more.pt" || exit 1
	spans() { "$TTV" --dump --json "$1" | grep -c '"dur":[0-9]*,"role":"complete"'; }
	n1=$(spans "$TMP/live.pt")
	cat "$TMP/live.pt" "$TMP/more.pt" >"$TMP/both.pt"
	n2=$(spans "$TMP/both.pt")
	session 100x24 "TERM=xterm-256color '$TTV' -f '$TMP/live.pt'"
	wait_for "FOLLOW"
	tm send-keys -t "$S" T
	wait_for "call tree of $n1 spans"
	ok $? "tmux, following: the call tree of the $n1 spans there are"
	cat "$TMP/more.pt" >>"$TMP/live.pt"
	wait_for "call tree of $n2 spans"
	ok $? "... then of $n2, the file grown, while it is shown"
	tm send-keys -t "$S" q q
	wait_for "exit=0"
	tm kill-server 2>/dev/null
fi

done_testing
