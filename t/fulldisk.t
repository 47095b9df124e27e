#!/bin/sh
# A full $TMPDIR is not a truncated trace (issue 42, item 4): gzip input,
# standard input and remote files are copied into a temporary file there;
# when it cannot grow, what was read is shown and the message says the
# directory is full, with the byte reached (exit 3), never "the file shrank".
# Each run gets a 1 MB tmpfs of its own (a private mount: root and unshare).
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "1..0 # SKIP a private tmpfs needs root and unshare"
	exit 0
fi
mkdir "$TMP/full"
# infull CMD...: CMD with TMPDIR on a fresh 1 MB tmpfs at $TMP/full
printf '%s\n' '#!/bin/sh' \
	'exec unshare -m sh -c '"'"'mount -t tmpfs -o size=1m tmpfs "$0" && export TMPDIR="$0" && exec "$@"'"'"' "$FULL" "$@"' >"$TMP/infull"
chmod +x "$TMP/infull"
export FULL="$TMP/full"
# full CMD...: infull, and its OUT, ERR, RC
full() {
	"$TMP/infull" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

"$TBIN/ptwrite" --generate 12000 "$TMP/t.pt" >/dev/null || exit 1 # about 4 MB
gzip -c "$TMP/t.pt" >"$TMP/t.pt.gz"
all=$("$TTV" --dump "$TMP/t.pt" | wc -l)

full "$TTV" --dump "$TMP/t.pt.gz"
n=$(printf '%s\n' "$OUT" | grep -c .)
is "$RC" 3 "gzip, TMPDIR full: exit 3 (cut short)"
ok "$([ "$n" -gt 0 ] && [ "$n" -lt "$all" ]; echo $?)" "... the events before it are printed ($n of $all)"
like "$ERR" "t\\.pt\\.gz: TMPDIR full: read [0-9]+ bytes of it only, $TMP/full has no room for more \\(No space left on device\\)" \
	"... said: the directory is full, the bytes read"
unlike "$ERR" 'shrank|truncated by another' "... not called truncation"
full "$TTV" --dump --json "$TMP/t.pt.gz"
printf '%s\n' "$OUT" | sort >"$TMP/cut.json"
"$TTV" --dump --json "$TMP/t.pt" | sed 's/"file":"[^"]*"//' | sort >"$TMP/all.json"
sed -i 's/"file":"[^"]*"//' "$TMP/cut.json"
is "$(comm -23 "$TMP/cut.json" "$TMP/all.json" | head -3)" "" "... and every event printed is the trace's own, as read whole"

full sh -c 'cat "$1" | "$0" --dump -' "$TTV" "$TMP/t.pt"
is "$RC" 3 "standard input (a pipe), TMPDIR full: exit 3"
like "$ERR" "TMPDIR full: read [0-9]+ bytes of it only" "... said the same way"
unlike "$ERR" 'shrank|truncated by another' "... not called truncation"

full env TTV_SSH="perl $T_DIR/farside.pl ok" "$TTV" --dump "far:$TMP/t.pt"
is "$RC" 3 "a remote file (through t/farside.pl), TMPDIR full: exit 3"
like "$ERR" "far:$TMP/t\\.pt: TMPDIR full: read [0-9]+ bytes of it only" "... said the same way"
unlike "$ERR" 'shrank|truncated by another|connection' "... not called truncation or a lost connection"

# the viewer: it opens on what was read and says why the rest is not there
S=ttv-test-$$
session 120x24 "TERM=xterm-256color '$TMP/infull' '$TTV' '$TMP/t.pt.gz'"
wait_for 'TMPDIR full' || fail "viewer: the first screen"
like "$(screen | tail -1)" 't\.pt\.gz: TMPDIR full: read [0-9]+ bytes' "viewer, 120x24: the status line says TMPDIR is full"
tm send-keys -t "$S" q
wait_for 'exit=3' || fail "viewer: q, exit 3"
like "$(screen)" 'exit=3' "viewer: exit 3"
tm kill-server

echo "1..$_n"
[ "$_failed" = 0 ]
