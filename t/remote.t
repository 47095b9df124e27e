#!/bin/sh
# Remote paths (HOST:PATH, ssh://HOST/PATH) through a real sshd on a
# loopback port, reached with TTV_SSH='ssh -F CONFIG' (t/sshd.sh): every
# format, an ATF session and a dial9 segment directory, gzip and a merge
# with a local path read as they do locally, in every batch mode; the bytes
# on the wire stay within the trace's gzip -1 size plus 64 KB; nothing is
# written over there; ssh's errors come back in one line; the viewer asks
# ssh's questions before it draws, shows the trace and leaves nothing running.
. "$(dirname "$0")/lib.sh"
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
	writer=$(format_field "$name" writer) unit=$(format_field "$name" unit)
	n=$((300000 / unit))
	"$TBIN/$writer" --generate $((n ? n : 1)) --seed 5 "far/$name" || fail "$name: writes a trace"
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

# the viewer: ssh's question on the terminal first, then the trace; q
# leaves nothing running
S=ttv-remote-$$
tm new-session -d -s "$S" -x 80 -y 24 "TERM=xterm-256color '$TTV' 'ask:$TMP/far/dial9'; echo \"exit=\$?\"; sleep 30"
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

sshd_stop
done_testing
