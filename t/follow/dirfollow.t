#!/bin/sh
# Following directory sources while their writer works: a dial9 segment
# directory (the active segment grows, is sealed by a rename, a new one
# starts, the sealed one is replaced by its gzip copy with symbols appended,
# then evicted) and an ATF session (index files grow, a new thread
# directory, a detail.atf made late, the manifest written at stop, files
# finalized in place).  The viewer runs scripted: `shell` plays the writer,
# `await` waits (at most 5 s) for the new events, `check` looks at once.
. "$(dirname "$0")/../lib.sh"

cd "$TMP" || exit 1

scenario() { # NAME ARGS... < SCRIPT: run the viewer; steps dump NAME.N.txt
	name=$1; shift
	cat >"$name.script"
	TTV_SCRIPT=$PWD/$name.script TTV_SIZE=140x30 "$TTV" "$@" >"$name.out" 2>"$name.err"
	RC=$?
}
screen() { cat "$1.txt" 2>/dev/null; }
# the events on a screen, in list order: task ids (dial9), or symbol and time (ATF)
tasks() { screen "$1" | grep -o 'task_id=[0-9]*\|SymbolTableEntry' | sed 's/task_id=//' | tr '\n' ' '; }

# ---- dial9 ----
W=$TBIN/d9write
seg() { # N COUNT: segment N, COUNT PollStartEvents with task ids 100N+1..
	{
		printf 'header\nschema id=1 name=PollStartEvent fields=worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr\n'
		printf 'strpool 0=seg%s\n' "$1"
		for i in $(seq 1 "$2"); do
			printf 'event id=1 ts=%s worker_id=0 task_id=%s spawn_loc=0\n' $((1000 * $1 + i)) $((100 * $1 + i))
		done
	} | "$W" -
}
seg 0 3 >s0.bin
seg 1 3 >s1.bin
seg 2 2 >s2.bin
# what the compressor writes: the sealed segment, symbols appended, gzip
printf 'header\nschema id=2 name=SymbolTableEntry ts=0 fields=addr:varint,name:string\nevent id=2 addr=4096 name=main\n' |
	"$W" - >sym.bin
cat s0.bin sym.bin | gzip -c >s0.bin.gz
gzip -c s2.bin >s2.bin.gz
mkdir d9
head -c 40 s0.bin >d9/trace.0.bin.active # inside its first event frame
scenario d9 -f d9 <<'S'
Tab
dump d9.0.txt
shell tail -c +41 s0.bin >> d9/trace.0.bin.active
await
dump d9.1.txt
shell mv d9/trace.0.bin.active d9/trace.0.bin && cp s1.bin d9/trace.1.bin.active
await
dump d9.2.txt
shell cp s0.bin.gz d9/trace.0.bin.gz && rm d9/trace.0.bin
await
dump d9.3.txt
shell rm d9/trace.0.bin.gz
check
dump d9.4.txt
shell mv d9/trace.1.bin.active d9/trace.1.bin && cp s2.bin.gz d9/trace.1.bin.gz && rm d9/trace.1.bin
check
dump d9.5.txt
S
is "$RC" 0 "dial9: the viewer ran the script"
like "$(screen d9.0)" 'no events' "dial9: an active segment torn inside its first event: nothing yet"
is "$(tasks d9.1)" "1 2 3 " "dial9: the active segment grows: its events appear"
is "$(tasks d9.2)" "1 2 3 101 102 103 " "dial9: sealed (renamed) and a new active segment: its events once, in order"
like "$(screen d9.2)" 'd9: 1 new file' "dial9: the new segment is told"
unlike "$(screen d9.2)" 'renamed or deleted' "dial9: the rename on seal is not taken for a deletion"
is "$(tasks d9.3)" "1 2 3 SymbolTableEntry 101 102 103 " \
	"dial9: replaced by its gzip copy: only the appended symbols are new"
like "$(screen d9.3)" 'd9/trace.0.bin became d9/trace.0.bin.gz \(same data and more\)' \
	"dial9: the gzip copy is told as the same data (and the sealed name was followed)"
is "$(tasks d9.4)" "1 2 3 SymbolTableEntry 101 102 103 " "dial9: evicted: its events stay"
like "$(screen d9.4)" 'd9/trace.0.bin.gz was renamed or deleted: its events stay' "dial9: the eviction is told"
is "$(tasks d9.5)" "1 2 3 SymbolTableEntry 101 102 103 201 202 " \
	"dial9: a gzip copy holding other data is read as a new file"
like "$(screen d9.5)" 'holds other data: reading it as a new file' "dial9: and told so"
is "$(cat d9.err)" "" "dial9: no damage reported"

# in process, with a generated segment: the names change under one input
"$W" --generate 5000 --seed 9 gen.bin
mkdir mv
tap_run "$TBIN/dirfollow_test" gen.bin sym.bin mv

# ---- a dial9 fleet growing at once ----
# An uploader tree of 8 instances, each file cut to its first half, then the
# rest of each appended in turn: an instance's per-thread batches reach back
# among the others' events (the viewer's one store merges them where they
# land and pairs again only their lanes).  Each append shows at once (well
# before await's 5 s), and at the end the viewer holds what the fleet holds
# read whole: as many events, as many paired, the same time in spans.
"$W" --generate 20000 --seed 5 --instances 8 fleet >/dev/null
cp -r fleet grown
files=$(cd fleet && find . -type f | sort)
for f in $files; do truncate -s $(($(stat -c %s "fleet/$f") / 2)) "grown/$f"; done
TOTALS="SELECT count(*), count(dur), sum(dur) FROM events"
export TTV_SCRIPT_TIMING="$PWD/fleet.times"
for f in $files; do
	echo "shell tail -c +$(($(stat -c %s "fleet/$f") / 2 + 1)) fleet/$f >>grown/$f"
	echo await
done | { cat; printf 'type ;%s\nEnter\ndump fleet.txt\n' "$TOTALS"; } | scenario fleet -f grown
unset TTV_SCRIPT_TIMING
is "$RC" 0 "dial9 fleet: the viewer ran the script"
is "$(grep -c '^await' fleet.times)" 8 "dial9 fleet: eight appends, to each instance in turn"
is "$(awk -F'\t' '$1 == "await" && $2 > 1000000000' fleet.times)" "" "dial9 fleet: each append shown within a second"
squeeze() { sed 's/  */ /g; s/ *$//'; }
"$TTV" --sql "$TOTALS" fleet >fleet.whole
is "$(sed -n 2p fleet.txt | squeeze)" "$(sed -n 3p fleet.whole | squeeze)" \
	"dial9 fleet: at the end, the events and spans of the fleet read whole ($(sed -n 3p fleet.whole | squeeze))"
is "$(cat fleet.err)" "" "dial9 fleet: no damage reported"

# ---- ATF ----
A=$TBIN/atfwrite
atfspec() { # crash|final: the same records; final adds the manifest, rewritten headers, footers
	[ "$1" = final ] && echo manifest
	cat <<EOF
module id=1054843105 path=/app/Demo
symbol fid=0x3edfa0e100000001 name=main
symbol fid=0x3edfa0e100000002 name=work
thread 0 state=$1
I ts=1000 fid=0x3edfa0e100000001 kind=1 depth=1
I ts=1100 fid=0x3edfa0e100000002 kind=1 depth=2
I ts=1200 fid=0x3edfa0e100000002 kind=2 depth=2
I ts=1300 fid=0x3edfa0e100000002 kind=1 depth=2
I ts=1400 fid=0x3edfa0e100000002 kind=2 depth=2
I ts=1450 fid=0x3edfa0e100000002 kind=1 depth=2
I ts=1460 fid=0x3edfa0e100000002 kind=2 depth=2
C ts=1105 fid=0x3edfa0e100000002 kind=1 depth=2 tid=4001 x0=0x11
C ts=1205 fid=0x3edfa0e100000002 kind=2 depth=2 tid=4001 x0=0x99
I ts=1500 fid=0x3edfa0e100000001 kind=2 depth=1
detail state=$1
thread 1 state=$1
I ts=1010 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1020 fid=0x3edfa0e100000002 kind=2 depth=1
I ts=1030 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1040 fid=0x3edfa0e100000002 kind=2 depth=1
EOF
}
atfspec crash | "$A" live.pid
atfspec final | "$A" final.pid
mkdir -p atf/thread_0
head -c 160 live.pid/thread_0/index.atf >atf/thread_0/index.atf # header and 3 records
scenario atf -f atf <<'S'
Tab
dump atf.0.txt
shell tail -c +161 live.pid/thread_0/index.atf | head -c 144 >> atf/thread_0/index.atf
await
dump atf.1.txt
shell mkdir atf/thread_1 && cp live.pid/thread_1/index.atf atf/thread_1/
await
dump atf.2.txt
shell cp live.pid/thread_0/detail.atf atf/thread_0/ && tail -c +305 live.pid/thread_0/index.atf >> atf/thread_0/index.atf
await
dump atf.3.txt
shell cp final.pid/manifest.json atf/
check
dump atf.4.txt
shell for f in thread_0/index.atf thread_0/detail.atf thread_1/index.atf; do dd if=final.pid/$f of=atf/$f conv=notrunc status=none; done
check
dump atf.5.txt
shell : > atf/thread_1/index.atf
check
dump atf.6.txt
shell cp final.pid/thread_1/index.atf atf/thread_1/
await
dump atf.7.txt
=
dump atf.8.txt
S
# the events on a screen: "TIME THREAD TYPE NAME" per line (THREAD: the
# lane's number; the columns are found from the header, as names have spaces)
evs() {
	screen "$1" | awk 'NR == 1 { l = index($0, "LANE"); t = index($0, "TYPE") }
		/^\+/ { split(substr($0, l, t - l), lane, " "); split(substr($0, t), rest, " ")
			printf "%s %s %s %s;", $1, lane[2], rest[1], rest[2] }' | tr -d '('
}
is "$RC" 0 "ATF: the viewer ran the script"
is "$(evs atf.0)" "+0.000000000 0 CALL module;+0.000000100 0 CALL module;+0.000000200 0 RETURN module;" \
	"ATF: a live index (placeholder header): its whole records, names without the manifest"
is "$(screen atf.1 | grep -c '^+')" 7 "ATF: the index grows: 4 more records"
is "$(screen atf.2 | grep -c '^+')" 11 "ATF: a new thread directory: its records"
like "$(screen atf.2)" 'thread 1' "ATF: on a lane of its own"
is "$(screen atf.3 | grep -c '^+')" 14 "ATF: detail.atf made late, the index grows on: 14 events"
like "$(screen atf.3)" '-> detail 0 \[copy\]' "ATF: index records link to the late detail file"
is "$(screen atf.3 | grep -c -- '-> detail')" 2 "ATF: both links, once each"
is "$(screen atf.4 | grep -c 'module 0x')" 0 "ATF: the manifest written at stop renames every call"
like "$(evs atf.4)" '^\+0.000000000 0 CALL main;\+0.000000010 1 CALL work;' "ATF: by its symbols"
like "$(screen atf.4)" 'the manifest was written: 2 symbols' "ATF: the late manifest is told"
is "$(evs atf.5)" "$(evs atf.4)" "ATF: finalized in place (headers rewritten, footers appended): the same events"
is "$(screen atf.5 | grep -c '^+')" 14 "ATF: the footers are not read as records"
is "$(screen atf.6 | grep -c '^+')" 10 "ATF: a thread's index truncated: its events go"
like "$(screen atf.6)" 'thread_1/index.atf was truncated: its events are gone' "ATF: the truncation is told"
is "$(evs atf.7)" "$(evs atf.5)" "ATF: written again: read again from its start, once"
like "$(screen atf.8)" 'events: +14$' "ATF: and its lane counts its events once"
is "$(cat atf.err)" "" "ATF: no damage reported"

# a thread's index.atf opened by itself: its detail.atf may come later
mkdir -p one/thread_0
cp live.pid/thread_0/index.atf one/thread_0/
scenario one -f one/thread_0/index.atf <<'S'
Tab
shell cp live.pid/thread_0/detail.atf one/thread_0/
check
dump one.txt
S
like "$(screen one)" 'one/thread_0/index.atf: 1 new file' "ATF: a single index.atf: the detail.atf made beside it later is read"
is "$(cat one.err)" "" "ATF: a single index.atf: no damage reported"

# a session directory: a process forked later gets a pid_N directory of its own
mkdir -p sess/pid_1/thread_0
cp live.pid/thread_0/index.atf sess/pid_1/thread_0/
scenario sess -f sess <<'S'
dump sess.0.txt
shell mkdir -p sess/pid_2/thread_0 && cp live.pid/thread_1/index.atf sess/pid_2/thread_0/
await
dump sess.1.txt
Tab
dump sess.2.txt
S
like "$(screen sess.0)" '^thread 0 ' "ATF: one process: lanes are its threads"
unlike "$(screen sess.0)" 'pid 1' "ATF: one process: not named by pid"
like "$(screen sess.1)" 'pid 1 thread 0' "ATF: a new pid directory: the first process's lanes now say its pid"
like "$(screen sess.1)" 'pid 2 thread 0' "ATF: and the new process has lanes of its own"
like "$(screen sess.1)" 'sess: a new process: pid_2' "ATF: the new process is told"
is "$(screen sess.2 | grep -c '^+')" 14 "ATF: both processes' events are listed (10 + 4)"
is "$(cat sess.err)" "" "ATF: a new process: no damage reported"

done_testing
