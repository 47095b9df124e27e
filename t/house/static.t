#!/bin/sh
# The static build (make static: build-static/ttv) copied alone into an
# empty directory used as a chroot, with only /dev/null, /dev/tty and the
# traces: no dynamic loader, no libraries, no terminfo, no data directory.
# Its --dump, --info --json and --stats equal the normal build's for every
# format; the viewer draws, moves and quits in tmux with TERM=tmux-256color
# and TERM=vt100 (the descriptions compiled in: ui/terminfo.c).
. "$(dirname "$0")/../lib.sh"

STATIC=$ROOT/build-static/ttv
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP chroot needs root"
	exit 0
fi
if [ ! -x "$STATIC" ] && [ -n "${TTV_QUICK:-}" ]; then
	echo "1..0 # SKIP make test builds no static binary (make check does)"
	exit 0
fi
[ -x "$STATIC" ] || { fail "make static has built $STATIC"; done_testing; exit; }
is "$(readelf -l "$STATIC" | grep -c INTERP)" 0 "build-static/ttv asks for no dynamic loader"

R=$TMP/root
mkdir -p "$R/dev"
cp "$STATIC" "$R/ttv"
mknod -m 666 "$R/dev/null" c 1 3 && mknod -m 666 "$R/dev/tty" c 5 0 || fail "the chroot's devices"
"$TBIN/ptwrite" --generate 3000 --seed 1 "$R/t.pt" &&
	"$TBIN/d9write" --generate 3000 --seed 1 "$R/t.bin" &&
	"$TBIN/htwrite" --generate 3000 --seed 1 "$R/t.ht" &&
	"$TBIN/scwrite" --generate 3000 --seed 1 "$R/t.sc" &&
	"$TBIN/atfwrite" --generate 3 --seed 1 "$R/t.atf" || fail "the writers make the traces"
is "$(find "$R" -type f | wc -l | tr -d ' ')" "$(($(find "$R/t.atf" -type f | wc -l) + 5))" "the chroot holds ttv and the traces, nothing else"

# the same paths (relative) inside and out
for f in t.pt t.bin t.ht t.sc t.atf; do
	for mode in --dump "--info --json" --stats; do
		# shellcheck disable=SC2086
		want=$(cd "$R" && "$TTV" --no-cache $mode "$f" 2>&1)
		# shellcheck disable=SC2086
		got=$(chroot "$R" /ttv --no-cache $mode "$f" 2>&1)
		[ -n "$want" ] || fail "$f: the normal build's $mode"
		is "$got" "$want" "static, in the chroot: $mode $f as the normal build has it"
	done
done

if command -v tmux >/dev/null 2>&1; then
	for term in tmux-256color vt100; do
		S=ttv-static-$$-$term
		session 80x24 "TERM=$term chroot '$R' /ttv t.pt"
		wait_for "lanes"
		ok $? "TERM=$term, no terminfo: the viewer draws"
		tm send-keys -t "$S" Tab j j
		wait_for "#3/3000"
		ok $? "... moves (the list, j, j)"
		quits "... and quits on q"
	done
else
	ok 0 "# SKIP tmux is not installed"
fi

done_testing
