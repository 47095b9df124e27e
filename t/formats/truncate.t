#!/bin/sh
# Truncation at every byte offset: no crash, exit status 0 or 3, and every
# whole record before the cut still listed (t/cut_test.c does the checking).
# Every format's shared sample (t/formats/table), then fixtures written for the
# formats whose own tests sweep none (the others' are in t/NAME.t).
. "$(dirname "$0")/../lib.sh"

# every 7th cut, and probing (no --format) at every cut near the start
for fmt in $(formats); do
	s=$(sample "$fmt")
	tap_run "$TBIN/cut_test" --format "$fmt" --from 1 --step 7 "$s"
	tap_run "$TBIN/cut_test" --to 2000 "$s"
done

# podtrace: every version, a long (V8-sized) record, hostile strings
"$TBIN/ptwrite" "$TMP/mix.pt" <"$HERE/every-version.ptspec"
tap_run "$TBIN/cut_test" --format podtrace "$TMP/mix.pt"

# dial9: every frame kind, two sub-streams, pools, annotations, an event
# without time, symbols at the end; every offset (with and without probing)
"$TBIN/d9write" "$TMP/small.d9" <"$HERE/every-frame.d9spec"
tap_run "$TBIN/cut_test" --format dial9 --from 1 "$TMP/small.d9"
# fed a few bytes at a time: a frame cut by a feed's end (a schema frame
# with its type_id cut, one or two bytes in) waits for the rest
for s in 1 2 3 5; do tap_run "$TBIN/cut_test" --format dial9 --slice $s "$TMP/small.d9"; done
# cut one or two bytes into a schema frame (its type_id not all there): the
# frame is reported cut short, never read past the end as a schema
printf 'header\nschema id=1 name=X fields=a:varint\nevent id=1 ts=5 a=1\n' | "$TBIN/d9write" "$TMP/s.d9" || exit 1
for c in 6 7; do
	head -c $c "$TMP/s.d9" >"$TMP/cut.d9"
	"$TTV" --format dial9 --dump "$TMP/cut.d9" >/dev/null 2>"$TMP/e"
	is "$? $(cat "$TMP/e")" "3 ttv: $TMP/cut.d9: offset 5: truncated frame: the data ends inside this schema frame" \
		"dial9 cut $((c - 5)) byte(s) into a schema frame: reported cut short"
done
tap_run "$TBIN/cut_test" --to 200 "$TMP/small.d9"
done_testing
