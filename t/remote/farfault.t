#!/bin/sh
# A far side that misbehaves (issue 42): t/farside.pl stands in for ssh and
# runs the far-side loop here, then floods, trickles, stalls, stays silent
# or cuts its replies.  What it sends past what was asked is broken off
# (memory stays bounded, what was read stays), a silent far side is given
# up after --remote-timeout, and q never waits for it.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

far() { TTV_SSH="perl $T_DIR/farside.pl $1"; export TTV_SSH; }
# timed CMD...: run CMD (at most 60 s), OUT, ERR, RC, its peak RSS in KB
# (PEAK) and how long it took in ms (MS)
timed() {
	t0=$(date +%s%N)
	timeout 60 "$TBIN/peakrss" "$@" >out 2>err
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
	OUT=$(cat out)
	PEAK=$(sed -n 's/^peakrss //p' err)
	ERR=$(grep -v '^peakrss ' err)
}

"$TBIN/ptwrite" --generate 600 small.pt >/dev/null || exit 1 # less than the first range asked for
all=$("$TTV" --dump small.pt | wc -l)

far ok
timed "$TTV" --dump "far:$TMP/small.pt"
is "$RC $(printf '%s\n' "$OUT" | wc -l)" "0 $all" "the stand-in for ssh: a well-behaved far side reads as here"

# 1. more than was asked: the file, then zeros without end through gzip
far flood
timed "$TTV" --dump "far:$TMP/small.pt"
is "$RC" 3 "a far side that floods: ttv ends, exit 3"
is "$(printf '%s\n' "$OUT" | grep -c '^+')" "$all" "... every event of the file printed (the zeros after it are not a trace)"
like "$ERR" "far:$TMP/small\\.pt: offset [0-9]+: .*the connection ended: the far side sent more than the [0-9]+ bytes asked for" \
	"... said as the far side's doing, with the offset"
ok "$([ "$PEAK" -lt 65536 ]; echo $?)" "... its memory bounded (peak ${PEAK} KB)"
far flood=300000000
timed "$TTV" --stats "far:$TMP/small.pt"
is "$RC" 3 "a finite flood of 300 MB: exit 3"
ok "$([ "$PEAK" -lt 65536 ]; echo $?)" "... its memory bounded (peak ${PEAK} KB)"
mkdir dir && cp small.pt dir/
far listflood
timed "$TTV" --info "far:$TMP/dir"
like "$ERR" "the far side listed more than 1000000 entries in one directory" "a listing without end: said"
ok "$([ "$PEAK" -lt 262144 ]; echo $?)" "... its memory bounded (peak ${PEAK} KB)"

# 3. silent: before its first answer, and in the middle of a reply
far silent
timed "$TTV" --remote-timeout 1 --dump "far:$TMP/small.pt"
is "$RC" 1 "a far side that never answers: exit 1"
like "$ERR" "^ttv: far:$TMP/small\\.pt: no answer from far for 1 s" "... said, naming the host"
ok "$([ "$MS" -lt 10000 ]; echo $?)" "... after the timeout (${MS} ms)"
far stall=4000
timed "$TTV" --remote-timeout 1 --dump "far:$TMP/small.pt"
n=$(printf '%s\n' "$OUT" | grep -c '^+')
is "$RC" 3 "a far side that stops mid-reply: exit 3"
ok "$([ "$n" -gt 0 ] && [ "$n" -lt "$all" ]; echo $?)" "... the events before it printed ($n of $all)"
like "$ERR" "offset [0-9]+: the connection ended: no answer from far for 1 s; here: " "... said, with the offset"
run --remote-timeout 0 --dump small.pt
is "$RC" 2 "--remote-timeout 0: a usage error"
like "$ERR" "--remote-timeout: want seconds from 1 to 86400, not '0'" "... said"
run --remote-timeout x --dump small.pt
is "$RC" 2 "--remote-timeout x: a usage error"

# 7. a cut transfer, said once: inside the first reply's header (nothing
# came of the file), and in the middle of the file (with its cut record)
bad="" came=0
for n in $(seq 1 160); do
	far "cut=$n"
	timed "$TTV" --dump "far:$TMP/small.pt"
	[ "$RC" = 1 ] || break # (past the header: events came)
	case $ERR in
	*"before any of it came: ssh: the connection to far closed" | *"too few to tell the format: ssh: the connection to far closed")
		came=$((came + 1)) ;;
	*"ttv: far:$TMP/small.pt: ssh: the connection to far closed") ;; # (cut before the file's first reply)
	*) bad="$bad $n" ;;
	esac
	[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || bad="$bad $n"
done
is "$bad" "" "a transfer cut at each of its first bytes: exit 1, one message, saying the connection ended"
ok "$([ "$came" -gt 0 ]; echo $?)" "... $came cuts inside the file's first reply: 'the connection ended before any of it came' (or too few bytes came)"
far cut=10000
timed "$TTV" --dump "far:$TMP/small.pt"
is "$RC" 3 "a transfer cut in the middle: exit 3"
like "$ERR" "^ttv: far:$TMP/small\\.pt: offset [0-9]+: the connection ended: ssh: the connection to far closed; here: [^;]*\$" \
	"... said once: the cut record, and why"
is "$(printf '%s\n' "$ERR" | grep -c .)" 1 "... in one line"

# 2. q never waits on the network: a far side that trickles, one that stalls
"$TBIN/ptwrite" --generate 200000 big.pt >/dev/null || exit 1
for size in 80x24 160x40; do
	for mode in trickle stall=100000; do
		S=ttv-test-$$-$size-${mode%=*}
		far "$mode"
		session "$size" "cd '$TMP' && '$TTV' far:big.pt"
		wait_for 'reading' || fail "$mode, $size: the viewer shows what came"
		t0=$(date +%s%N)
		tm send-keys -t "$S" q
		wait_for 'exit=0' 100
		ms=$((($(date +%s%N) - t0) / 1000000))
		ok "$([ "$ms" -lt 1500 ]; echo $?)" "tmux $size, a far side that ${mode%=*}s: q ends ttv at once (${ms} ms)"
		tm kill-server
	done
	# following, a stalled reply: said on the status line, connected again
	S=ttv-test-$$-$size-follow
	far stall=100000
	session "$size" "cd '$TMP' && '$TTV' -f --remote-timeout 1 far:big.pt"
	wait_for 'the connection ended (' 100
	like "$(screen | tail -1)" 'big\.pt: the connection ended \(' "tmux $size, following: the status line says the connection ended"
	wait_for 'connected again' 100
	like "$(screen | tail -1)" 'far:big\.pt: connected again: reading on' "... and connects again"
	tm send-keys -t "$S" M
	wait_for 'messages' 30
	like "$(screen | tr '\n' ' ')" 'far:big\.pt: the connection ended \(no answer from far for 1 s\): +connecting again' "... M: the far side was silent for the timeout"
	tm send-keys -t "$S" q q
	wait_for 'exit=0' 30
	like "$(screen)" 'exit=0' "... q ends it"
	tm kill-server
done

done_testing
