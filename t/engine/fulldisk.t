#!/bin/sh
# Full disks (issue 42).  Gzip input, standard input and remote files are
# copied into a temporary file in $TMPDIR; when it has no room the copy
# goes on in memory (within --memory), then in ttv's cache directory, then
# /tmp, and only when none has room is the rest not read: what was read is
# shown, and the message says where there was no room, never "the file
# shrank".  The index's arrays past --memory go on in the next directory
# with room, else in memory, at any point.  A saved index that cannot be
# written is said once.  Each run gets tmpfs mounts of its own (a private
# mount namespace: root and unshare).
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "1..0 # SKIP a private tmpfs needs root and unshare"
	exit 0
fi
# MOUNTS="DIR:SIZE ..." inns CMD...: CMD with a fresh tmpfs of SIZE at each
# DIR.  When /tmp itself is covered, CMD (a program: the checkout, and so
# the program, may be under /tmp) is copied out first, to a tmpfs over an
# existing directory of the private namespace.
cat >"$TMP/inns" <<'EOF'
#!/bin/sh
exec unshare -m sh -c '
	cmd=$1
	case " $MOUNTS" in *" /tmp:"*)
		for d in /mnt /srv /opt /media /home; do [ -d "$d" ] && break; done
		mount -t tmpfs -o size=512m tmpfs "$d" && cp "$cmd" "$d/cmd" || exit 1
		cmd=$d/cmd ;;
	esac
	for m in $MOUNTS; do mkdir -p "${m%:*}" && mount -t tmpfs -o "size=${m##*:}" tmpfs "${m%:*}" || exit 1; done
	shift
	exec "$cmd" "$@"' sh "$@"
EOF
chmod +x "$TMP/inns"
# full CMD...: inns, and its OUT, ERR, RC
full() {
	"$TMP/inns" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}
lines_of() { printf '%s\n' "$1" | grep -c .; }
export TTV_SSH="perl $T_DIR/farside.pl ok"

"$TBIN/ptwrite" --generate 12000 "$TMP/t.pt" >/dev/null || exit 1 # about 4 MB
gzip -c "$TMP/t.pt" >"$TMP/t.pt.gz"
all=$("$TTV" --dump "$TMP/t.pt" | wc -l)

# $TMPDIR full: the copy goes on in memory
export MOUNTS="$TMP/full:1m"
export TMPDIR="$TMP/full"
full "$TTV" --dump "$TMP/t.pt.gz"
is "$RC $(lines_of "$OUT") $ERR" "0 $all " "gzip, TMPDIR full: its copy goes on in memory, read whole"
full sh -c 'cat "$1" | "$0" --dump -' "$TTV" "$TMP/t.pt"
is "$RC $(lines_of "$OUT") $ERR" "0 $all " "standard input, TMPDIR full: read whole"
full "$TTV" --dump "far:$TMP/t.pt"
is "$RC $(lines_of "$OUT") $ERR" "0 $all " "a remote file (through t/farside.pl), TMPDIR full: read whole"
full "$TTV" --info "$TMP/t.pt.gz"
like "$OUT" "full: +$TMP/full \\(the index and temporary copies went on where there was room" "... --info says TMPDIR was full"
# ... and past --memory, in the cache directory
full env XDG_CACHE_HOME="$TMP/cache" "$TTV" --memory 1M --dump "$TMP/t.pt.gz"
is "$RC $(lines_of "$OUT") $ERR" "0 $all " "gzip, TMPDIR full, --memory 1M: its copy goes on in the cache directory"

# Everywhere full (/tmp itself, the cache in it, memory 1M): what was read
# is shown, and where there was no room is said once, with the cut record
export MOUNTS="/tmp:1m"
export TMPDIR=/tmp
full "$TTV" --memory 1M --dump - <"$TMP/t.pt.gz" # (opened before /tmp is covered)
n=$(lines_of "$OUT")
is "$RC" 3 "gzip, no room anywhere: exit 3 (cut short)"
ok "$([ "$n" -gt 0 ] && [ "$n" -lt "$all" ]; echo $?)" "... the events before it are printed ($n of $all)"
like "$ERR" "^ttv: -: offset [0-9]+: no room for more of its temporary copy after [0-9]+ bytes; full: /tmp, memory within --memory, $TMP/cache/ttv; here: " \
	"... said: where there was no room, the bytes read"
is "$(lines_of "$ERR")" 1 "... once"
unlike "$ERR" 'shrank|truncated by another' "... not called truncation"
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
full "$TTV" --memory 1M --dump --json - <"$TMP/t.pt.gz"
printf '%s\n' "$OUT" | sort >"$TMP/cut.json"
"$TTV" --dump --json "$TMP/t.pt" | sed 's/"file":"[^"]*"//' | sort >"$TMP/all.json"
sed -i 's/"file":"[^"]*"//' "$TMP/cut.json"
is "$(comm -23 "$TMP/cut.json" "$TMP/all.json" | head -3)" "" "... and every event printed is the trace's own, as read whole"

# the viewer: it opens on what was read and says why the rest is not there
S=ttv-test-$$
session 120x24 "TERM=xterm-256color MOUNTS=/tmp:1m TMPDIR=/tmp XDG_CACHE_HOME=/tmp/cache '$TMP/inns' '$TTV' --memory 1M - <'$TMP/t.pt.gz'"
wait_for 'no room for' || fail "viewer: the first screen"
like "$(screen | tail -1)" 'no room for more of its' "viewer, 120x24: the status line says there was no room"
tm send-keys -t "$S" q
wait_for 'exit=3' || fail "viewer: q, exit 3"
like "$(screen)" 'exit=3' "viewer: exit 3"
tm kill-server

# the index past --memory: its cache directory fills up as it grows there
# (a 4 MB tmpfs): it goes on in $TMPDIR, or in memory when that is full too
"$TBIN/ptwrite" --generate 200000 "$TMP/big.pt" >/dev/null || exit 1 # about 66 MB
unset TMPDIR
XDG_CACHE_HOME=$TMP/small
export MOUNTS="$TMP/small:4m"
full "$TBIN/peakrss" "$TTV" --no-cache --memory 1M --info "$TMP/big.pt"
is "$RC" 0 "the index grows in a cache directory that fills up: read whole"
like "$OUT" "index: +[0-9.]+ MB in a file" "... --info: in a file"
like "$OUT" "full: +$TMP/small/ttv \\(" "... --info: the cache directory was full"
unlike "$ERR" "out of memory" "... not out of memory"
export MOUNTS="/tmp:4m"
export XDG_CACHE_HOME=/tmp/cache TMPDIR=/tmp
full "$TTV" --no-cache --memory 1M --info - <"$TMP/big.pt"
is "$RC" 0 "... and when every directory is full: read whole"
# (what filled the first directories to fill may stay there)
like "$OUT" "index: +([0-9.]+ MB in a file .*, )?[0-9.]+ MB in memory, over its budget( of 1.00 MB \\(--memory\\))?: no directory had room for (it|more)" \
	"... --info: in memory, over the budget"
like "$OUT" "full: +/tmp/cache/ttv, /tmp \\(" "... --info: which were full"
unset TMPDIR XDG_CACHE_HOME

# A saved index that cannot be written (its cache directory full) is said
# once: on stderr, in --info, in the viewer
export XDG_CACHE_HOME="$TMP/tiny" MOUNTS="$TMP/tiny:64k" TTV_SAVE_MIN=0 # (t.pt's index: about 200 KB)
full "$TTV" --stats "$TMP/t.pt"
is "$RC" 0 "a full cache directory: --stats works"
is "$ERR" "ttv: the index was not saved for the next run: cannot write it in $TMP/tiny/ttv: No space left on device" \
	"... and says once that the index was not saved"
full "$TTV" --info "$TMP/t.pt"
like "$OUT" "index: +not saved for the next run: cannot write it in $TMP/tiny/ttv: No space left on device" "--info says it"
is "$ERR" "" "... and only there"
full "$TTV" --info --json "$TMP/t.pt"
like "$OUT" "\"not_saved\":\"cannot write it in $TMP/tiny/ttv: No space left on device\"" "--info --json says it"
S=ttv-test-$$-save
session 160x24 "TERM=xterm-256color '$TMP/inns' '$TTV' '$TMP/t.pt'"
wait_for 'the index was not saved' || fail "viewer: the save"
like "$(screen | tail -1)" "the index was not saved for the next run: cannot write it in" "viewer, 160x24: the status line says it"
tm send-keys -t "$S" q
wait_for 'exit=0' || fail "viewer: q, exit 0"
is "$(screen | grep -c 'not saved')" 0 "... once: not again (on stderr) when it quits"
tm kill-server

echo "1..$_n"
[ "$_failed" = 0 ]
