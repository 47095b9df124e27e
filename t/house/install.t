#!/bin/sh
# make install / make uninstall with DESTDIR and PREFIX: the installed tree
# works on its own (the binary finds its keymaps and themes in share/ttv).
. "$(dirname "$0")/../lib.sh"

# the build under test (the sanitizer build installs itself, SAN=1)
bname=$(basename "$BUILD")
san=""
[ "$bname" = build-asan ] && san="SAN=1"
unset MAKEFLAGS MFLAGS MAKELEVEL
DEST=$TMP/dest
imake() { make -s --no-print-directory -C "$ROOT" BUILD="$bname" $san "$@" >"$TMP/make.out" 2>&1; }

imake install DESTDIR="$DEST" PREFIX=/opt/ttv
ok $? "make install DESTDIR=... PREFIX=/opt/ttv"
P=$DEST/opt/ttv
for f in bin/ttv share/man/man1/ttv.1 share/bash-completion/completions/ttv share/zsh/site-functions/_ttv \
	share/ttv/keymaps/less.keys share/ttv/keymaps/vi.keys share/ttv/keymaps/emacs.keys \
	share/ttv/themes/dark.theme share/ttv/themes/light.theme share/ttv/themes/mono.theme; do
	ok $([ -f "$P/$f" ] && echo 0 || echo 1) "installed $f"
done
ok $([ -x "$P/bin/ttv" ] && echo 0 || echo 1) "the binary is executable"
is "$(find "$DEST" -type f | wc -l | tr -d ' ')" 10 "nothing else is installed"
is "$(cmp "$ROOT/ttv.1" "$P/share/man/man1/ttv.1" && echo same)" same "the man page as written"

# Move the tree away from the source and the build: it must stand alone.
mv "$P" "$TMP/moved"
P=$TMP/moved
unset TTV_DATADIR
"$P/bin/ttv" --version >/dev/null
ok $? "the installed binary runs"
"$TBIN/ptwrite" "$TMP/a.pt" <<'SPEC'
V4 ts=100 pid=1 type=0 latency=1000 comm=alpha target=example.com
SPEC
view() { # NAME ARGS...: the help view of the installed viewer, as text
	name=$1; shift
	printf '?\ndump %s\n' "$TMP/$name.txt" >"$TMP/$name.script"
	TTV_SCRIPT=$TMP/$name.script TTV_SIZE=100x40 "$P/bin/ttv" "$@" "$TMP/a.pt" >/dev/null 2>"$TMP/$name.err"
	SCREEN=$(cat "$TMP/$name.txt" 2>/dev/null)
}
view less
unlike "$SCREEN" "not found" "installed: the default keymap and theme are found"
like "$SCREEN" "j, C-n, e +move-down" "installed: the less keymap is loaded (help shows j)"
view emacs --keymap emacs --theme light
unlike "$SCREEN" "not found" "installed: --keymap emacs --theme light are found"
like "$SCREEN" "C-n +move-down" "installed: the emacs keymap is loaded (help shows C-n)"
# the negative: a name that is not there is said
printf 'dump %s\n' "$TMP/none.txt" >"$TMP/none.script"
TTV_SCRIPT=$TMP/none.script "$P/bin/ttv" --keymap nosuch "$TMP/a.pt" >/dev/null 2>&1
like "$(cat "$TMP/none.txt")" "keymap 'nosuch' not found" "installed: a missing keymap is said"
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man --warnings=w -l "$P/share/man/man1/ttv.1" >"$TMP/man.txt" 2>"$TMP/man.err"
	ok $? "installed man page renders"
	is "$(cat "$TMP/man.err")" "" "installed man page: no warnings"
fi
mv "$P" "$DEST/opt/ttv"

# uninstall removes every file it installed, and the share/ttv directory
imake uninstall DESTDIR="$DEST" PREFIX=/opt/ttv
ok $? "make uninstall"
is "$(find "$DEST" -type f | wc -l | tr -d ' ')" 0 "uninstall leaves no file"
ok $([ ! -d "$DEST/opt/ttv/share/ttv" ] && echo 0 || echo 1) "uninstall removes share/ttv"

# a default PREFIX: /usr/local under DESTDIR
imake install DESTDIR="$TMP/dest2"
ok $? "make install DESTDIR=... (default PREFIX)"
ok $([ -x "$TMP/dest2/usr/local/bin/ttv" ] && echo 0 || echo 1) "default PREFIX is /usr/local"
imake uninstall DESTDIR="$TMP/dest2"
is "$(find "$TMP/dest2" -type f | wc -l | tr -d ' ')" 0 "uninstall (default PREFIX)"

done_testing
