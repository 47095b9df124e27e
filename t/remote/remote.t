#!/bin/sh
# Remote paths (HOST:PATH, ssh://HOST/PATH) through a real sshd on a
# loopback port, reached with TTV_SSH='ssh -F CONFIG' (t/sshd.sh): every
# format, an ATF session and a dial9 segment directory, gzip and a merge
# with a local path read as they do locally, in every batch mode; the bytes
# on the wire stay within the trace's gzip -1 size plus 64 KB; nothing is
# written over there; ssh's errors come back in one line; following reads
# growth, truncation, rotation, deletion and a directory's new segments, and
# a lost connection is said and made again; the viewer asks ssh's questions
# before it draws, shows the trace, follows it and leaves nothing running.
. "$(dirname "$0")/../lib.sh"
. "$T_DIR/sshd.sh"
cd "$TMP" || exit 1

sshd_start
ok $? "sshd answers on 127.0.0.1:$SSH_PORT" || { done_testing; exit 1; }

# same DESCRIPTION ARGS...: ttv with ARGS (paths far:...) prints and exits
# as with the same paths read here, but for their names
same() {
	what=$1
	shift
	"$TTV" "$@" >remote.out 2>remote.err
	rrc=$?
	n=$#
	for a; do
		case $a in far:*) a=${a#far:} ;; ssh://far*) a=${a#ssh://far} ;; esac
		set -- "$@" "$a"
	done
	shift "$n"
	"$TTV" "$@" >local.out 2>local.err
	lrc=$?
	sed -e 's|far:||g' -e 's|ssh://far||g' remote.out >remote.cmp
	sed -e 's|far:||g' -e 's|ssh://far||g' remote.err >remote.errcmp
	if [ -s local.out ] && cmp -s remote.cmp local.out && cmp -s remote.errcmp local.err && [ "$rrc" = "$lrc" ]; then
		ok 0 "$what"
	else
		ok 1 "$what (status $rrc, here $lrc)"
		diff remote.cmp local.out | head -5 | sed 's/^/#   /'
		diff remote.errcmp local.err | head -5 | sed 's/^/#   /'
	fi
}

# The traces over there: every format (an ATF session is a directory), a
# gzip file and a directory of dial9 segments.
mkdir far
ran=""
for name in $(formats); do
	generate "$name" 300000 5 "far/$name" || fail "$name: writes a trace"
	ran="$ran $name"
done
"$TBIN/d9write" --generate 200000 --seed 6 far/big.d9 || fail "dial9: writes a larger trace"
gzip -1 -c far/big.d9 >far/big.d9.gz
mkdir far/segments
"$TBIN/d9write" --generate 20000 --seed 1 far/segments/trace.0.bin
"$TBIN/d9write" --generate 20000 --seed 2 far/segments/trace.1.bin
mkdir far/notes
echo "not a trace" >far/notes/README
find far -printf '%p %s %T@ %i\n' >far.before

for name in $ran; do
	for mode in "--dump" "--dump --json" "--info --json" "--stats" "--report" "--export chrome"; do
		# shellcheck disable=SC2086
		same "$name: $mode of a remote trace" $mode "far:$TMP/far/$name"
	done
done
every_format "$ran" "every format was read from the far side"
same "a gzip file" --dump "far:$TMP/far/big.d9.gz"
same "a directory of dial9 segments" --info "far:$TMP/far/segments"
same "ssh://HOST/PATH" --dump "ssh://far$TMP/far/podtrace"
same "an ATF thread's file, its manifest read beside it" --dump "far:$TMP/far/atf/thread_0/index.atf"
same "--diff of a remote trace and a local one" --diff "far:$TMP/far/dial9" "$TMP/far/big.d9"
same "a remote path merged with a local one" --dump "far:$TMP/far/podtrace" "$TMP/far/syscall"
same "two remote paths" --stats "far:$TMP/far/dial9" "far:$TMP/far/segments"

# the bytes on the wire: the trace through gzip -1, and ssh's own (its
# handshake is about 7 KB)
raw=$(wc -c <far/big.d9) gz=$(wc -c <far/big.d9.gz)
bytes=$(wire_bytes "$TTV" --dump "far:$TMP/far/big.d9")
ok "$([ "$bytes" -le $((gz + 65536)) ] && [ "$bytes" -ge "$gz" ]; echo $?)" \
	"a $raw-byte trace crosses in $bytes bytes (its gzip -1 size: $gz)"
is "$(wc -l <"$TMP/wire.out" | tr -d ' ')" "$("$TTV" --dump far/big.d9 | wc -l | tr -d ' ')" "... and every event came"

find far -printf '%p %s %T@ %i\n' >far.after
diff far.before far.after | sed "s/^/#   /"
ok "$(cmp -s far.before far.after; echo $?)" "nothing was written over there"

# a local name with a colon, as for scp: ./far:NAME
cp far/podtrace ./far:podtrace
run --dump ./far:podtrace
is "$OUT" "$("$TTV" --dump far/podtrace)" "./far:NAME is a local file"

# errors: ssh's own, in one line, exit 1
for host in nohost.invalid closed; do
	start=$(date +%s)
	timeout 30 "$TTV" --dump "$host:/trace" >/dev/null 2>err
	rc=$?
	is "$rc" 1 "$host: exit 1"
	is "$(wc -l <err | tr -d ' ')" 1 "$host: one line"
	like "$(cat err)" "^ttv: $host:/trace: ssh: .*(resolve|refused)" "$host: ssh's own reason"
	ok "$([ $(($(date +%s) - start)) -lt 10 ]; echo $?)" "$host: within seconds"
done
run --dump "far:$TMP/far/none"
is "$RC:$ERR" "1:ttv: far:$TMP/far/none: cannot open: No such file or directory" "a remote file that is not there"
run --dump "far:$TMP/far/notes"
is "$RC" 1 "a remote directory holding no trace: exit 1"
like "$ERR" "far:$TMP/far/notes: directory holds no trace" "... and said"

# a connection cut while reading: the file is cut short there, said with
# its offset, and what came before it is read
run --dump "cut:$TMP/far/big.d9"
is "$RC" 3 "a connection cut while reading: exit 3"
like "$ERR" "^ttv: cut:$TMP/far/big.d9: offset [0-9]+: .*the connection ended: ssh" "... said with the file and offset"
ok "$([ "$(printf '%s\n' "$OUT" | wc -l)" -gt 1000 ]; echo $?)" "... and the events before it are read"

# following a remote file: growth, a torn record, truncation, rotation,
# deletion (ptwrite records as in t/follow/follow.t)
rec() { echo "V4 ts=$((1000 + $1 * 100)) pid=1 type=21 latency=10 comm=w target=/file/$1"; }
spec() { for i in $(seq "$1" "$2"); do rec "$i"; done; }
spec 1 3 | "$TBIN/ptwrite" far/live.pt
spec 4 5 | "$TBIN/ptwrite" more.pt
spec 6 6 | "$TBIN/ptwrite" torn.pt
"$TTV" --dump -f "far:$TMP/far/live.pt" >ff.out 2>ff.err &
pid=$!
is "$(wait_lines ff.out 3)" 3 "-f: what is there"
cat more.pt >>far/live.pt
is "$(wait_lines ff.out 5)" 5 "-f: appended records come"
head -c 200 torn.pt >>far/live.pt
sleep 1.5
is "$(lines ff.out)" 5 "-f: a torn record waits for its rest"
tail -c +201 torn.pt >>far/live.pt
is "$(wait_lines ff.out 6)" 6 "-f: and comes when it is whole"
is "$(grep -o '/file/[0-9]*' ff.out | tr '\n' ' ')" "/file/1 /file/2 /file/3 /file/4 /file/5 /file/6 " "-f: each event once, in order"
cp more.pt far/live.pt
is "$(wait_lines ff.out 8)" 8 "-f: a truncated file is read again"
like "$(cat ff.err)" "far:$TMP/far/live.pt was truncated" "-f: and said"
spec 7 9 | "$TBIN/ptwrite" far/rotated.pt
mv far/rotated.pt far/live.pt
is "$(wait_lines ff.out 11)" 11 "-f: a file rotated in its place is read"
like "$(cat ff.err)" "live.pt was replaced by a new file" "-f: and said"
pkill -f "sshcount.pl 127.0.0.1 $SSH_PORT $SSH_BYTES"
spec 10 10 | "$TBIN/ptwrite" ten.pt
cat ten.pt >>far/live.pt
is "$(wait_lines ff.out 12)" 12 "-f: a connection lost is made again, and reading goes on"
like "$(cat ff.err)" "live.pt: the connection ended \(ssh.*\): connecting again" "-f: the loss is said"
like "$(cat ff.err)" "live.pt: connected again: reading on" "-f: and the return"
rm far/live.pt
i=0
while ! grep -q "renamed or deleted" ff.err && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
like "$(cat ff.err)" "far:$TMP/far/live.pt was renamed or deleted: its events stay" "-f: a deleted file is said"
kill $pid

# following a remote directory of dial9 segments: the active one grows, is
# sealed (renamed), and a new one starts; the same happens to a directory
# here, followed alike: both print the same events, each once
"$TBIN/d9write" --generate 3000 --seed 1 g1.bin
"$TBIN/d9write" --generate 3000 --seed 2 g2.bin
for d in far/d9live d9here; do
	mkdir "$d"
	head -c 20000 g1.bin >"$d/trace.0.bin.active"
done
"$TTV" --dump -f "far:$TMP/far/d9live" >dd.out 2>dd.err &
pid=$!
"$TTV" --dump -f d9here >dh.out 2>dh.err &
pidh=$!
n0=$(wait_lines dd.out 100)
wait_lines dh.out "$n0" >/dev/null
for d in far/d9live d9here; do
	tail -c +20001 g1.bin >>"$d/trace.0.bin.active"
	mv "$d/trace.0.bin.active" "$d/trace.0.bin"
	cp g2.bin "$d/trace.1.bin.active"
done
want=$("$TTV" --dump d9here | wc -l | tr -d ' ')
is "$(wait_lines dd.out "$want")" "$want" "-f on a directory: the growth, the sealed segment and a new one ($n0 at first)"
wait_lines dh.out "$want" >/dev/null
like "$(cat dd.err)" "far:$TMP/far/d9live: 1 new file" "-f on a directory: the new segment is said"
sleep 0.5
kill $pid $pidh
# (what a line says of the rest of the file depends on what had come when it
# was printed: a span's duration, and the names of a call chain's leaf, as
# dial9 writes its symbols after a segment's events)
nodur() { sed -e 's/ \[[^]]*\]$//' -e 's/\(leaf 0x[0-9a-f]*\)[^"]*"/\1"/' "$1" | sort; }
nodur dh.out >dh.sorted
nodur dd.out | cmp -s - dh.sorted || { nodur dd.out | diff - dh.sorted | head -6 | sed "s/^/#   /"; false; }
ok $? "-f on a directory: the same events as followed here, each once"

# a directory listed again (a rescan while following) over a slow link:
# the listing that came is given at once, the new one when it comes
mkdir -p far/listed/sub && : >far/listed/first && : >far/listed/sub/a
tap_run "$TBIN/listing_test" "slow:$TMP/far/listed" "$TMP/far/listed"

# the viewer: ssh's question on the terminal first, then the trace; q
# leaves nothing running
S=ttv-remote-$$
session 80x24 "TERM=xterm-256color '$TTV' 'ask:$TMP/far/dial9'"
wait_for "continue connecting" 100
ok $? "ssh asks about the host key on the terminal"
unlike "$(screen)" "events in" "... before the viewer draws"
tm send-keys -t "$S" yes Enter
wait_for "events in" 100
ok $? "then the viewer shows the remote trace"
like "$(screen)" "worker" "... its lanes"
pgrep -f "ssh -F $SSH_DIR/config" >/dev/null
ok $? "ssh runs while the viewer does"
tm send-keys -t "$S" q
wait_for "exit=0" 50
ok $? "q quits (exit 0)"
sleep 0.3
pgrep -f "ssh -F $SSH_DIR/config" >/dev/null
ok "$([ $? = 1 ]; echo $?)" "... and ssh is gone with it"
tm kill-server

# the viewer following a remote file: appended events come; a lost
# connection is said on the status line, made again, and said
spec 1 3 | "$TBIN/ptwrite" far/view.pt
spec 4 4 | "$TBIN/ptwrite" four.pt
S=ttv-remote-f-$$
session 100x24 "TERM=xterm-256color '$TTV' -f 'far:$TMP/far/view.pt'"
wait_for "#3/3" 100
ok $? "the viewer follows a remote file"
tm send-keys -t "$S" Tab
cat four.pt >>far/view.pt
wait_for "/file/4" 100
ok $? "... and shows what is appended over there"
pkill -f "sshcount.pl 127.0.0.1 $SSH_PORT $SSH_BYTES"
wait_for "the connection ended" 100
ok $? "a lost connection is said on the status line"
wait_for "connected again" 100
ok $? "... and its return"
tm send-keys -t "$S" q
wait_for "exit=0" 50
ok $? "q quits"
tm kill-server

sshd_stop
done_testing
