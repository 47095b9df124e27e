#!/bin/sh
# A few lanes among many (a fleet: instances of a service, each with its
# lanes): the lanes view draws them, and moving between lanes, into a
# span, to the next span and back, and each span's self time, look only at
# the lanes wanted (the store passes over blocks without them:
# model_lanes_next).  The screens were made when every event was read:
# the look for lanes changes nothing shown.  (Each begins with Z, the
# whole trace: the first screen's window is what had loaded by then.)
. "$(dirname "$0")/../lib.sh"

cd "$TMP" || exit 1
"$TBIN/d9write" --generate 3000 --seed 9 --instances 40 fleet >/dev/null || exit 1
"$TBIN/d9write" --generate 3000 --seed 4 --instances 100 wide >/dev/null || exit 1
mkdir pt
for i in $(seq 1 24); do "$TBIN/ptwrite" --generate 400 --seed "$i" "pt/p$i.ptrace" || exit 1; done

# 80x24: 20 lanes shown of 237
scenario fewlanes-move fleet <<'S'
Z
j
j
j
S
like "$SCREEN" '^237 lanes' "a fleet of 40 instances: 237 lanes"
scenario fewlanes-into fleet <<'S'
Z
j
j
j
Down
S
like "$SCREEN" 'self [0-9.]+[mun]?s, depth' "into a span and on: its self time and depth said"
scenario fewlanes-back fleet <<'S'
Z
j
j
j
Down
Down
Right
Right
Left
Up
S
scenario fewlanes-zoom fleet <<'S'
Z
+
+
+
l
.
.
S
scenario fewlanes-end fleet <<'S'
Z
G
k
k
-
-
-
S
# wide: 46 lanes shown of 590
SIZE=200x50 scenario fewlanes-wide wide <<'S'
Z
j
j
Down
Down
Right
+
+
G
k
S
# podtrace: 24 instances of 64 lanes
scenario fewlanes-podtrace pt/*.ptrace <<'S'
Z
j
j
j
j
Down
Right
+
+
.
S

# a span whose next on its lane lies 20,000 events of another lane away:
# Right and Left find it (the look grows by events, from 4,096, 4 times
# each try)
{
	echo "V1 ts=1000 pid=1 type=1 latency=100 comm=far target=first"
	awk 'BEGIN { for (i = 0; i < 20000; i++) printf "V1 ts=%d pid=2 type=1 latency=10 comm=busy target=b\n", 2000 + i * 10 }'
	echo "V1 ts=300000 pid=1 type=1 latency=100 comm=far target=second"
} | "$TBIN/ptwrite" far.pt || exit 1
scenario fewlanes-far-right far.pt <<'S'
Z
Right
S
like "$(echo "$SCREEN" | tail -1)" '^second .*#20002/20002' "Right: the next span of its lane, 20,000 events on"
scenario fewlanes-far-left far.pt <<'S'
Z
Right
Left
S
like "$(echo "$SCREEN" | tail -1)" '^first .*#1/20002' "Left: back to the one before it"

# an ATF session of 48 threads, each its sequence (never one store): a
# sampled window's seeks search every sequence, so it is read in fewer
# runs, each event read standing for more; every lane on screen still
# shows its spans and the count of the rest
"$TBIN/atfwrite" --generate 6 --seed 2 --threads 48 s48 >/dev/null || exit 1
scenario manyseqs s48 <<'S'
Z
S
# (thread 1's calls below main: counted across the window, not in a few places)
cells=$(echo "$SCREEN" | sed -n '12,13p' | cut -c22- | grep -o '[▒▓░]' | wc -l)
ok $([ "$cells" -ge 40 ] && echo 0 || echo 1) "48 sequences, sampled: calls counted across the window ($cells cells)"
like "$(echo "$SCREEN" | tail -1)" '#1/94480' "... all 94,480 events there"

# in a terminal (tmux), at 80x24 and wide: down three lanes and into a span
# of a fleet of 40 instances, its self time and depth on the status line
for size in 80x24 200x50; do
	S=ttv-test-$$-fewlanes-$size
	session "$size" "cd '$TMP' && TERM=xterm-256color '$TTV' fleet"
	wait_for "237 lanes"
	ok $? "tmux $size: the fleet opens, 237 lanes"
	for k in j j j Down; do tm send-keys -t "$S" "$k"; done
	status_like '^flush .*\(self [0-9.]+us, depth 1\)' "tmux $size: three lanes down and into a span: flush, its self time, depth 1"
	quits "tmux $size: q quits"
done
done_testing
