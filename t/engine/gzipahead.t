#!/bin/sh
# A gzip file is inflated on a thread of its own, a few pieces ahead of its
# decoder (src/gzip.c): what it reads is what the plain file gives, for one
# file, segments read one after another, a file cut short or damaged inside
# its stream, and the viewer (which reads several inputs in turn).  make
# check runs this under ThreadSanitizer too.
. "$(dirname "$0")/../lib.sh"

"$TBIN/d9write" --generate 200000 --seed 4 "$TMP/d.bin" >/dev/null || exit 1
gzip -1 -c "$TMP/d.bin" >"$TMP/d.bin.gz"
"$TTV" --no-cache --dump "$TMP/d.bin" >"$TMP/plain"
run --no-cache --dump "$TMP/d.bin.gz"
is "$RC" 0 "a gzip file of $(wc -c <"$TMP/d.bin.gz" | tr -d ' ') bytes: read"
printf '%s\n' "$OUT" >"$TMP/inflated"
same_file "$TMP/inflated" "$TMP/plain" "... its events those of the plain file"

# segments, each its own gzip file
mkdir "$TMP/seg" && "$TBIN/d9write" --generate 300000 --seed 4 --rotate 1 --gzip "$TMP/seg/trace.0.bin" >/dev/null
mkdir "$TMP/segp" && "$TBIN/d9write" --generate 300000 --seed 4 --rotate 1 "$TMP/segp/trace.0.bin" >/dev/null
"$TTV" --no-cache --dump --json "$TMP/segp" | sed 's/"file":"[^"]*",//' >"$TMP/segp.out"
"$TTV" --no-cache --dump --json "$TMP/seg" | sed 's/"file":"[^"]*",//' >"$TMP/seg.out"
ok "$([ "$(ls "$TMP/seg" | wc -l)" -ge 2 ]; echo $?)" "$(ls "$TMP/seg" | wc -l | tr -d ' ') gzip segments"
same_file "$TMP/seg.out" "$TMP/segp.out" "... read as their plain copies are"

# cut inside the stream, halfway: the events before the cut, and said
size=$(wc -c <"$TMP/d.bin.gz")
head -c $((size / 2)) "$TMP/d.bin.gz" >"$TMP/cut.gz"
run --no-cache --dump "$TMP/cut.gz"
is "$RC" 3 "cut halfway: exit 3"
like "$ERR" "cut\.gz: .*gzip stream cut short after [0-9]+ decompressed bytes" "... said"
n=$(printf '%s\n' "$OUT" | grep -c .)
ok "$([ "$n" -gt 50000 ]; echo $?)" "... $n events before the cut listed"
# (as the plain file lists them, but spans whose ends were cut off and
# samples whose symbols, written at the file's end, were)
printf '%s\n' "$OUT" | grep -v -e '\[unclosed\]' -e 'leaf 0x' | sort >"$TMP/cut_sorted"
sort "$TMP/plain" >"$TMP/plain_sorted"
is "$(comm -23 "$TMP/cut_sorted" "$TMP/plain_sorted" | head -3)" "" "... as the plain file lists them"

# damaged inside the stream: what came before, and the gzip error with where
cp "$TMP/d.bin.gz" "$TMP/flip.gz"
printf '\377\377\377\377' | dd of="$TMP/flip.gz" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
run --no-cache --dump "$TMP/flip.gz"
like "$ERR" "flip\.gz: .*gzip error after [0-9]+ decompressed bytes" "damaged a third in: the gzip error said"
ok "$([ "$(printf '%s\n' "$OUT" | grep -c .)" -gt 20000 ]; echo $?)" "... with the events before it"

# the viewer reads its inputs in turn: three gzip files (more than run ahead at once)
printf '%s\n' G q >"$TMP/keys"
TTV_SCRIPT=$TMP/keys TTV_SIZE=100x30 "$TTV" --no-cache "$TMP/seg" "$TMP/d.bin.gz" >/dev/null 2>"$TMP/err"
is "$?" 0 "the viewer reads gzip segments and a gzip file, and quits"
is "$(cat "$TMP/err")" "" "... saying nothing on stderr"

done_testing
