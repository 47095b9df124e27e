# A real sshd for the remote path tests, on a loopback port, with keys and
# an ssh config made here.  Source it after lib.sh:
#   sshd_start            starts it; sets TTV_SSH to 'ssh -F CONFIG', where
#                         Host far is the server, reached through a
#                         ProxyCommand that adds the bytes it relays to
#                         $SSH_BYTES (t/sshcount.pl)
#                         (Host ask: the same, whose host key ssh asks about;
#                         Host cut: through a relay that cuts it after 300
#                         KB; Host slow: each of its answers 0.3 s late;
#                         Host closed: a port nobody listens on)
#   wire_bytes CMD...     runs CMD (its output to $TMP/wire.out); prints the
#                         bytes that crossed
#   sshd_stop             stops it (a test ends with it: nothing stays)
SSHD=${SSHD:-/usr/sbin/sshd}
SSH_DIR=$TMP/ssh
SSH_BYTES=$SSH_DIR/bytes

free_port() {
	perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport'
}

sshd_start() {
	mkdir -p "$SSH_DIR" && chmod 700 "$SSH_DIR" || return 1
	[ "$(id -u)" != 0 ] || mkdir -p /run/sshd # (its privilege separation directory)
	ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/hostkey" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/id" || return 1
	cp "$SSH_DIR/id.pub" "$SSH_DIR/authorized_keys"
	SSH_PORT=$(free_port)
	cat >"$SSH_DIR/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $SSH_DIR/hostkey
AuthorizedKeysFile $SSH_DIR/authorized_keys
PidFile $SSH_DIR/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
EOF
	echo "[127.0.0.1]:$SSH_PORT $(cat "$SSH_DIR/hostkey.pub")" >"$SSH_DIR/known_hosts"
	# (for each setting, the first block of the host that sets it wins)
	cat >"$SSH_DIR/config" <<EOF
# the server, whose host key is not known yet: ssh asks
Host ask
  UserKnownHostsFile $SSH_DIR/known_ask
  StrictHostKeyChecking ask
  BatchMode no
# the server, through a relay that cuts the connection after 300 KB
Host cut
  ProxyCommand perl $T_DIR/sshcount.pl %h %p $SSH_DIR/cut.bytes 300000
Host far
  ProxyCommand perl $T_DIR/sshcount.pl %h %p $SSH_BYTES
# the server over a slow link
Host slow
  ProxyCommand perl $T_DIR/sshcount.pl %h %p $SSH_DIR/slow.bytes - 300
Host far ask cut slow
  HostName 127.0.0.1
  Port $SSH_PORT
  User $(id -un)
  IdentityFile $SSH_DIR/id
  IdentitiesOnly yes
  UserKnownHostsFile $SSH_DIR/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
# a port where nothing listens
Host closed
  HostName 127.0.0.1
  Port $(free_port)
  BatchMode yes
EOF
	"$SSHD" -D -f "$SSH_DIR/sshd_config" -E "$SSH_DIR/sshd.log" &
	SSHD_PID=$!
	export TTV_SSH="ssh -F $SSH_DIR/config"
	i=0
	while ! ssh -F "$SSH_DIR/config" far true 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 50 ] || ! kill -0 $SSHD_PID 2>/dev/null; then
			sed 's/^/# sshd: /' "$SSH_DIR/sshd.log"
			return 1
		fi
		sleep 0.1
	done
}

# relays_gone: wait (up to 30 s) until no relay adds to $SSH_BYTES: they add
# their counts when ssh has ended them, late on a busy machine
relays_gone() {
	i=0
	while pgrep -f "sshcount.pl .*$SSH_BYTES" >/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

wire_bytes() {
	relays_gone # (an earlier connection's count would land in this one's)
	rm -f "$SSH_BYTES"
	"$@" >"$TMP/wire.out"
	relays_gone
	cat "$SSH_BYTES" 2>/dev/null || echo 0
}

sshd_stop() {
	kill "$SSHD_PID" 2>/dev/null
	wait "$SSHD_PID" 2>/dev/null
}
