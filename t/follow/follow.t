#!/bin/sh
# Following growing files: bursts with torn records, auto-scroll and pause,
# truncation, replacement (rotation), deletion, and pipes.  The viewer runs
# scripted; `shell` changes the file between steps and `check` looks at it.
. "$(dirname "$0")/../lib.sh"

cd "$TMP" || exit 1
rec() { # rec N: the spec of record N (podtrace V4, 348 bytes framed)
	echo "V4 ts=$((1000 + $1 * 100)) pid=$(( $1 % 2 + 1 )) type=21 latency=10 comm=w$(( $1 % 2 )) target=/file/$1"
}
spec() { for i in $(seq "$1" "$2"); do rec "$i"; done; }
spec 1 3 | "$TBIN/ptwrite" live.pt
spec 4 5 | "$TBIN/ptwrite" more.pt
spec 6 7 | "$TBIN/ptwrite" rest.pt
# a torn record: the first 200 bytes now, the other 148 later
head -c 200 rest.pt >torn1
tail -c +201 rest.pt | head -c 148 >torn2
tail -c +349 rest.pt >last

scenario() { # NAME ARGS... < SCRIPT
	name=$1; shift
	{ cat; echo "dump $name.txt"; } >"$name.script"
	TTV_SCRIPT=$PWD/$name.script TTV_SIZE=100x12 "$TTV" "$@" >"$name.out" 2>"$name.err"
	RC=$?
	SCREEN=$(cat "$name.txt" 2>/dev/null)
}
rows() { printf '%s\n' "$SCREEN" | grep -c '/file/'; }

scenario grow -f live.pt <<'S'
Tab
dump grow0.txt
shell cat more.pt >> live.pt
check
dump grow1.txt
shell cat torn1 >> live.pt
check
dump grow2.txt
shell cat torn2 last >> live.pt
check
S
like "$(cat grow0.txt)" '#3/3 .*FOLLOW' "following starts at the end"
like "$(cat grow1.txt)" '#5/5 .*FOLLOW' "appended records appear, the selection moves with them"
like "$(cat grow2.txt)" '#5/5' "a torn record waits for its rest"
unlike "$(cat grow2.txt)" 'truncated|damage|could not' "and is not an error while following"
like "$SCREEN" '#7/7 .*FOLLOW' "the rest completes it: nothing lost"
is "$(rows)" 7 "nothing shown twice"

spec 1 3 | "$TBIN/ptwrite" live.pt
scenario pause -f live.pt <<'S'
Tab
k
shell cat more.pt >> live.pt
check
dump pause1.txt
G
S
like "$(cat pause1.txt)" '#2/5 .*paused, 2 new' "scrolled away: the view holds and counts what arrived"
like "$SCREEN" '#5/5 .*FOLLOW' "G resumes following"

spec 1 3 | "$TBIN/ptwrite" live.pt
scenario trunc -f live.pt <<'S'
Tab
shell : > live.pt && cat more.pt >> live.pt
check
S
like "$SCREEN" 'truncated: its 3 events are gone' "truncation is noticed, with a message"
like "$SCREEN" '#2/2' "and the file is read again from its start"

# truncated while paused: the cursor stays on its event when that is read
# again, and "N new" counts what is after the last event seen, not the reread
spec 1 3 | "$TBIN/ptwrite" live.pt
cp live.pt first3.pt
scenario trunc-paused -f live.pt <<'S'
Tab
k
shell cat more.pt >> live.pt
check
dump trunc-paused1.txt
shell : > live.pt
check
shell cat first3.pt more.pt rest.pt >> live.pt
check
S
like "$(cat trunc-paused1.txt)" '#2/5 .*paused, 2 new' "paused: 2 new"
like "$SCREEN" 'live.pt was truncated' "truncated while paused: said"
like "$SCREEN" '#2/7 .*paused, 4 new' "the cursor stays on its event, and 4 are new (not the 7 read again)"

spec 1 3 | "$TBIN/ptwrite" live.pt
scenario rotate -f live.pt <<'S'
Tab
shell mv live.pt live.pt.1 && cp more.pt live.pt
check
S
like "$SCREEN" 'replaced by a new file' "rotation (a new file at the path) is noticed"
like "$SCREEN" '#5/5' "old and new events are both there"

spec 1 3 | "$TBIN/ptwrite" live.pt
scenario delete -f live.pt <<'S'
Tab
shell rm live.pt
check
S
like "$SCREEN" 'renamed or deleted: its events stay' "deletion is noticed"
like "$SCREEN" '#3/3' "and nothing read is lost"

# damage that arrives while following is told (the torn record above was not)
spec 1 3 | "$TBIN/ptwrite" live.pt
printf '\001\000\000\000not a record' >junk
scenario damage -f live.pt <<'S'
Tab
shell cat junk >> live.pt
check
S
like "$SCREEN" 'damaged: live\.pt: offset 1044: .*#3/3 .*FOLLOW \| damaged' "damage arriving while following is told, file and offset"
is "$RC" 3 "and the exit status says damaged"

# a lane renamed later (podtrace: the pid's command name comes late) is
# measured again: its name is shown whole, not clipped to the old width
echo "V4 ts=1000 pid=9 type=21 latency=10 target=/a" | "$TBIN/ptwrite" live.pt
echo "V4 ts=2000 pid=9 type=21 latency=10 comm=a-longer-command target=/b" | "$TBIN/ptwrite" named.pt
scenario rename -f live.pt <<'S'
Tab
shell cat named.pt >> live.pt
check
S
like "$SCREEN" 'pid 9 \(a-longer-command\) OPEN' "a renamed lane is measured again (its whole name)"

# F starts following in the viewer
spec 1 3 | "$TBIN/ptwrite" live.pt
scenario keyF live.pt <<'S'
Tab
F
shell cat more.pt >> live.pt
check
S
like "$SCREEN" '#5/5 .*FOLLOW' "F follows the file"

# a pipe: events arrive while the viewer runs; the end of the pipe is final
spec 1 3 | "$TBIN/ptwrite" p1.pt
mkfifo fifo
printf 'Tab\nawait 3\ndump pipe0.txt\nawait 5\nshell sleep 0.5\ncheck\ndump pipe.txt\n' >pipe.script
( cat p1.pt; sleep 1; cat more.pt torn1 ) >fifo &
TTV_SCRIPT=$PWD/pipe.script TTV_SIZE=100x12 "$TTV" -f - <fifo >pipe.out 2>pipe.err
wait
SCREEN=$(cat pipe.txt)
like "$(cat pipe0.txt)" '#([35])/\1' "a pipe: what has arrived is shown"
like "$SCREEN" '#5/5' "and more as it arrives"
like "$(cat pipe.err)" 'truncated: frame claims 344 bytes, only 196 present' "a torn record at the end of a pipe is damage"

# a program serving its trace on TCP (as HawkTracer does): read as it
# arrives; when the program restarts, connect again
"$TBIN/tcpserve" port p1.pt more.pt &
i=0; while [ ! -s port ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
printf 'Tab\nawait 5\nfollow 1500\ndump tcp.txt\n' >tcp.script
TTV_SCRIPT=$PWD/tcp.script TTV_SIZE=100x12 "$TTV" -f "tcp:127.0.0.1:$(cat port)" >tcp.out 2>tcp.err
wait
SCREEN=$(cat tcp.txt)
like "$SCREEN" '#5/5' "tcp: both connections' events are shown"
like "$SCREEN" 'closed the connection' "tcp: a lost connection is told"
"$TBIN/tcpserve" port2 p1.pt &
i=0; while [ ! -s port2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
run --dump "tcp:127.0.0.1:$(cat port2)"
wait
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 3 "tcp: --dump reads until the program closes the connection"
run --dump tcp:127.0.0.1:1
is "$RC" 1 "tcp: nothing listening: exit 1"
like "$ERR" 'cannot connect to 127.0.0.1:1' "tcp: says why"

# --dump --follow: tail -f for traces (printed as they arrive, each once)
spec 1 3 | "$TBIN/ptwrite" bf.pt
"$TTV" --dump -f bf.pt >bf.out 2>bf.err &
pid=$!
is "$(wait_lines bf.out 3)" 3 "dump -f: what is there"
cat more.pt >>bf.pt
is "$(wait_lines bf.out 5)" 5 "dump -f: appended records"
cat torn1 >>bf.pt
sleep 0.5
is "$(lines bf.out)" 5 "dump -f: a torn record waits for its rest"
cat torn2 last >>bf.pt
is "$(wait_lines bf.out 7)" 7 "dump -f: and comes when it is whole"
is "$(grep -o '/file/[0-9]*' bf.out | tr '\n' ' ')" "/file/1 /file/2 /file/3 /file/4 /file/5 /file/6 /file/7 " \
	"dump -f: each event once, in order"
spec 1 2 | "$TBIN/ptwrite" bf2.pt
cat bf2.pt >bf.pt
is "$(wait_lines bf.out 9)" 9 "dump -f: a truncated file is read again"
like "$(cat bf.err)" 'bf.pt was truncated' "dump -f: and says so on stderr"
kill $pid
cat live.pt | "$TTV" --dump -f - >bfp.out
is "$?:$(wc -l <bfp.out | tr -d ' ')" "0:$("$TTV" --dump live.pt | wc -l | tr -d ' ')" "dump -f of a pipe ends with it"
run --stats -f bf.pt
is "$RC" 2 "--stats --follow: usage error"

# a gzip file that grows by members (gzip -c >> FILE): each read as it comes,
# a member cut short waiting for its rest (inflated on a thread of its own)
spec 1 3 | "$TBIN/ptwrite" g1.pt
gzip -c g1.pt >gz.pt.gz
"$TTV" --dump -f gz.pt.gz >gz.out 2>gz.err &
pid=$!
is "$(wait_lines gz.out 3)" 3 "dump -f, gzip: what is there"
gzip -c more.pt >gz.more
head -c 40 gz.more >>gz.pt.gz
sleep 0.5
is "$(lines gz.out)" 3 "dump -f, gzip: a member cut short waits for its rest"
tail -c +41 gz.more >>gz.pt.gz
is "$(wait_lines gz.out 5)" 5 "dump -f, gzip: and its records come when it is whole"
gzip -c rest.pt >>gz.pt.gz
is "$(wait_lines gz.out 7)" 7 "dump -f, gzip: another member"
kill $pid
is "$(grep -o '/file/[0-9]*' gz.out | tr '\n' ' ')" "/file/1 /file/2 /file/3 /file/4 /file/5 /file/6 /file/7 " \
	"dump -f, gzip: each event once, in order"
is "$(cat gz.err)" "" "dump -f, gzip: nothing said"

# a file cut short by another program while it is being read (the mapping
# faults with SIGBUS): batch modes stop with exit 3 and say where; --dump -f
# reads the file again and follows on
"$TBIN/ptwrite" --generate 30000 --seed 3 sb.pt
tap_run "$TBIN/sigbus_test" sb.pt sb.cut

done_testing
