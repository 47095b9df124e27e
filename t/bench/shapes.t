#!/bin/sh
# Traces shaped as real systems write them (issue 43): the writers'
# --instances K writes K instances of one service over the same period
# (dial9 in its S3 uploader's layout, one directory per instance), and ttv
# reads them as it reads each alone: every event of each, nothing else.
# (Their cost is measured by `TTV_BENCH_ONLY=shapes make bench`.)
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# same_events DESCRIPTION PATH...: ttv --dump of the paths together holds
# the events of each path read alone, no more, no fewer
same_events() {
	what=$1
	shift
	"$TTV" --dump --json "$@" | sed 's/"file":"[^"]*",//' | sort >together
	for p; do "$TTV" --dump --json "$p"; done | sed 's/"file":"[^"]*",//' | sort >alone
	if [ -s together ] && cmp -s together alone; then
		ok 0 "$what"
	else
		ok 1 "$what ($(wc -l <together) events together, $(wc -l <alone) alone)"
	fi
}

# instances NAME: the paths of fleet-NAME's instances (an ATF session's
# pid directories, else files)
instances() {
	if [ "$1" = atf ]; then
		find "fleet-$1" -mindepth 1 -maxdepth 1 -type d | sort
	else
		find "fleet-$1" -type f | sort
	fi
}

ran=""
for name in $(formats); do
	w=$(format_field "$name" writer)
	"$TBIN/$w" --help | grep -q -- '--instances K' || fail "$w --help names --instances"
	units=3000
	[ "$w" != atfwrite ] || units="2048 --kib" # (ATF: a session of 2 MiB, four pids traced at once)
	"$TBIN/$w" --generate $units --seed 7 --instances 4 "fleet-$name" >/dev/null
	is "$(instances "$name" | wc -l)" 4 "$name: --instances 4 writes four instances"
	ran="$ran $name"
	if [ "$name" = atf ]; then
		is "$(instances atf | sed 's|.*/||' | tr '\n' ' ')" "pid_1000 pid_1001 pid_1002 pid_1003 " \
			"ATF: one session, a pid directory per process"
		set -- "fleet-$name"
	elif [ "$name" = dial9 ]; then
		is "$(find "fleet-$name" -type f | sed "s|^fleet-$name/||" | sort | head -1)" \
			"2026-11-28/0900/bench/i-000/abcd-4242/1764320400-0.bin" \
			"dial9: in the uploader's layout (date/HHMM/service/instance/boot/epoch-index)"
		"$TTV" --info --json "fleet-$name" >info.json
		is "$(grep -o '"path":"[^"]*"' info.json | wc -l)" 4 "dial9: the tree opens as one source per instance"
		set -- "fleet-$name"
	else
		set -- $(find "fleet-$name" -type f | sort)
	fi
	# the N units are shared out; each instance starts at the same time
	events=$("$TTV" --info --json "$@" | grep -o '\],"events":[0-9]*' | tr -dc 0-9)
	ok "$([ "$events" -ge 3000 ]; echo $?)" "$name: N units in all ($events events)"
	for f in $(instances "$name"); do
		"$TTV" --info --json "$f" | grep -o '"first_ts":[0-9]*,"last_ts":[0-9]*' | head -1 | tr -dc '0-9,\n'
	done >spans
	ok "$(awk -F, '{ if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1; if (NR == 1) span = $2 - $1 }
		END { exit !(NR == 4 && hi - lo < span / 10) }' spans; echo $?)" \
		"$name: the instances start together (within a tenth of one's span)"
	same_events "$name: the instances read together hold each one's events" $(instances "$name")
done
every_format "$ran" "every format has --instances"

# the viewer on the fleet: the list shows the order --dump prints, at its
# end, its start and paging back from the end (the sources merged)
"$TTV" --dump fleet-dial9 | cut -f1 >dump.rows
shown_in_order() { # SCREEN: its rows' times lie together, in order, in dump.rows
	printf '%s\n' "$1" | awk 'NF >= 3 && $1 ~ /^\+[0-9]/ { print $1 }' >screen.rows
	[ -s screen.rows ] && awk 'NR == FNR { want[n++] = $0; next }
		{ have[m++] = $0 }
		END { for (i = 0; i + n <= m; i++) { j = 0; while (j < n && have[i + j] == want[j]) j++; if (j == n) exit 0 } exit 1 }' \
		screen.rows dump.rows
}
for size in 80x24 160x40; do
	S=ttv-shapes-$$-$size
	session "$size" "cd '$TMP' && '$TTV' fleet-dial9"
	wait_for 'worker' || fail "tmux $size: the fleet opens"
	tm send-keys -t "$S" Tab G
	sleep 0.5
	last=$(tail -1 dump.rows)
	wait_for "$last" 20
	ok "$(shown_in_order "$(screen)"; echo $?)" "tmux $size, the list of 4 instances at its end: the rows --dump prints last"
	[ "$size" = 80x24 ] || like "$(screen | tail -1)" 'i-000 \(boot abcd-4242\) \+ i-001 \(boot abcd-4242\) \+ 2 more' \
		"tmux $size: the status line names two instances + 2 more"
	tm send-keys -t "$S" b b
	sleep 0.5
	ok "$(shown_in_order "$(screen)"; echo $?)" "tmux $size, two pages back: rows in --dump's order"
	tm send-keys -t "$S" g
	first=$(head -1 dump.rows)
	wait_for "$first" 20
	ok "$(shown_in_order "$(screen)"; echo $?)" "tmux $size, at its start: the rows --dump prints first"
	tm send-keys -t "$S" q
	wait_for 'exit=0' 50 || fail "tmux $size: q ends the viewer"
	tm kill-server
done
# one file holding one recording three times over (cat f f f: chains of
# sub-streams over one period, the later ones landing far back): each
# copy's events, paired as in the copy alone (late chains wait in piles
# of their own and are paired once all is read)
"$TBIN/d9write" --generate 200000 --seed 5 copy.bin >/dev/null
cat copy.bin copy.bin copy.bin >cat3.bin
"$TTV" --dump cat3.bin | sort >together
"$TTV" --dump copy.bin | awk '{ for (i = 0; i < 3; i++) print }' | sort >alone
if [ -s together ] && cmp -s together alone; then
	ok 0 "dial9, three copies in one file: every event of each, paired as in one copy"
else
	ok 1 "dial9, three copies in one file: every event of each ($(wc -l <together) lines, want $(wc -l <alone))"
fi
# dial9 as its writer writes today: segments rotated by time (each opened
# with its clock sync and metadata, sealed with its symbols), gzipped as
# the uploader keeps them, and a quiet thread whose batch waits for the
# drain (its events land behind later ones): ttv reads the directory as
# the same segments uncompressed, every span paired
mkdir seg plain
"$TBIN/d9write" --generate 300000 --seed 5 --rotate 1 --gzip --quiet seg/trace.0.bin >/dev/null
"$TBIN/d9write" --generate 300000 --seed 5 --rotate 1 --quiet plain/trace.0.bin >/dev/null
is "$(ls seg | sed 's/[0-9][0-9]*/N/' | sort -u)" "trace.N.bin.gz" "d9write --rotate --gzip: segments trace.N.bin.gz"
nseg=$(ls seg | wc -l)
ok "$([ "$nseg" -ge 2 ] && [ "$nseg" = "$(ls plain | wc -l)" ]; echo $?)" "d9write --rotate 1: $nseg segments of a second"
ok "$(for f in seg/*; do od -An -tx1 -N2 "$f"; done | grep -vc '1f 8b')" "each segment is gzip"
mkdir in.bin.d
"$TBIN/d9write" --generate 20000 --seed 5 --rotate 1 --gzip in.bin.d/trace.0.bin >/dev/null
ok "$([ -s in.bin.d/trace.0.bin.gz ]; echo $?)" "d9write --rotate: the segments are named after OUT's last .bin, not a directory's"
"$TTV" --dump --json seg | sed 's/"file":"[^"]*",//' >gz.rows
"$TTV" --dump --json plain | sed 's/"file":"[^"]*",//' >plain.rows
ok "$([ -s gz.rows ] && cmp -s gz.rows plain.rows; echo $?)" "the gzipped segments read as the plain ones ($(wc -l <gz.rows) events)"
is "$(grep -c '"type":"ClockSyncEvent"' gz.rows)" "$nseg" "each segment opens with its clock sync"
begins=$(grep '"lane":"not a worker"' gz.rows | grep -c '"role":"begin"')
paired=$(grep '"lane":"not a worker"' gz.rows | grep '"role":"begin"' | grep -c '"dur":[0-9]')
ok "$([ "$begins" -gt 0 ] && [ "$begins" = "$paired" ]; echo $?)" "the quiet thread's spans are there, each paired ($paired)"
# (in the file's order: a quiet span after events half a second later)
"$TTV" --dump --json plain/trace.0.bin | perl -ne '
	push @r, [/"offset":(\d+)/, /"ts":(-?\d+)/, /"lane":"([^"]*)"/];
	END {
		my ($max, $late);
		for (sort { $a->[0] <=> $b->[0] } @r) {
			my ($off, $ts, $lane) = @$_;
			$late = 1 if $lane eq "not a worker" && defined $max && $max - $ts > 500000000;
			$max = $ts if !defined $max || $ts > $max;
		}
		exit !$late;
	}'
ok $? "the quiet thread's batch lands behind events half a second later than its own"
# a syscall capture of one process forking children in turn (a shell):
# each child's stream appended at its exit, the parent's last, reaching
# back to the start; each child named as one, the parent's records from
# before each fork marked as copies in the child's stream
"$TBIN/scwrite" --generate 60000 --seed 5 --forks 8 forks.sc >/dev/null
"$TTV" --info forks.sc >forks.info
is "$(grep -c 'role: "child' forks.info) $(grep -c 'role: "process"' forks.info)" "8 1" \
	"scwrite --forks 8: eight children's streams and the parent's"
is "$(grep 'role:' forks.info | tail -1 | tr -d ' ')" 'role:"process"' "the parent's stream comes last (exit order)"
"$TTV" --dump --json forks.sc >forks.rows
ok "$([ "$(grep -c '"type":"clone"' forks.rows)" -ge 16 ]; echo $?)" "each fork's clone() in the parent and in the child"
first_parent=$(grep '"lane":"pid 20000 (stream 9' forks.rows | head -1 | sed 's/.*"ts":\([0-9]*\).*/\1/')
first_all=$(head -1 forks.rows | sed 's/.*"ts":\([0-9]*\).*/\1/')
is "$first_parent" "$first_all" "the parent's stream, written last, starts with the trace"
run_w() { "$TBIN/ptwrite" "$@" >/dev/null 2>&1; echo $?; }
is "$(run_w --generate 10 --instances)" 2 "--instances without K: a usage error"

done_testing
