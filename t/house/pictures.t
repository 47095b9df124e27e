#!/bin/sh
# The README's pictures are the viewer's own screens: each is drawn by a
# script here on a shared sample, in the dark theme, with every cell's
# colours (`dumplooks`), and must equal t/house/screens/picture-NAME.txt; each
# t/house/screens/picture-NAME.png (`make pictures`: t/picture.py) must have been
# drawn from that very file (the SHA-256 it keeps), so a picture cannot show
# what the viewer no longer shows.  TTV_UPDATE_SCREENS=1 rewrites the
# screens; then `make pictures`.
. "$(dirname "$0")/../lib.sh"

SAMPLES=$T_DIR/samples/atf

# untimed: stdin with how long a query took left out
untimed() { sed -E 's/ in [0-9.]+(ns|us|ms|s) / in TIME /'; }

# picture NAME PATH < SCRIPT: the viewer at 100x30 on PATH (in SAMPLES:
# relative, so that the paths it shows are too); how long a query took,
# which differs run to run, is left out of the comparison
picture() {
	name=$1 path=$2
	{ cat; echo "dumplooks $TMP/$name.txt"; } >"$TMP/$name.script"
	(cd "$SAMPLES" && env -u NO_COLOR TTV_SCRIPT="$TMP/$name.script" TTV_SIZE=100x30 \
		"$TTV" --theme dark "$path" >/dev/null 2>&1)
	want=$HERE/screens/picture-$name.txt
	if [ -n "${TTV_UPDATE_SCREENS:-}" ]; then cp "$TMP/$name.txt" "$want"; fi
	untimed <"$TMP/$name.txt" >"$TMP/$name.cmp"
	untimed <"$want" | diff -u - "$TMP/$name.cmp" >"$TMP/$name.diff" 2>&1
	ok $? "picture $name: the screen as the viewer draws it" || sed 's/^/# /' "$TMP/$name.diff" | head -20
	sum=$(sha256sum "$want" | cut -d' ' -f1)
	grep -aq "ttv-screen-sha256.$sum" "$HERE/screens/picture-$name.png" 2>/dev/null
	ok $? "picture $name: its PNG is drawn from it (make pictures)"
}

picture lanes . <<'END'
+
+
+
+
END
picture tree . <<'END'
T
END
picture sql . <<'END'
;
type SELECT type, count(*) AS events, sum(dur) AS total_ns FROM events GROUP BY type ORDER BY total_ns DESC
Enter
j
END
picture crash crash_sigkill <<'END'
=
G
END
like "$(head -1 "$HERE/screens/picture-lanes.txt")" "lanes" "the lanes picture shows the lanes"
like "$(cat "$HERE/screens/picture-crash.txt")" "offset [0-9]+: not" "the crash picture shows the damage with its offsets"
done_testing
