#!/bin/sh
# Damage sweeps for every format of t/formats/table (t/cut_test.c --damage):
# seeded bit flips, overwritten runs, inserted garbage and deleted runs at
# random offsets; each copy decodes within 10 s, clean or damaged (exit 0 or
# 3), with every whole record before the first damaged byte still listed
# unchanged.
# Gzip copies too (--gzip): every cut of the compressed stream and damaged
# copies of it, where what lies before the damage is what zlib inflates
# unchanged.  Copies fed a few bytes at a time too (--slice).  A decoder
# taking more bytes than it was given fails the run.  Truncation at every
# offset is t/formats/truncate.t and the per-format tests.
. "$(dirname "$0")/../lib.sh"

# every format's shared sample (t/formats/table), as it is and gzip-compressed
# (every 3rd cut, and damaged); each format's seed comes from its name
for fmt in $(formats); do
	s=$(sample "$fmt")
	seed=$(printf '%s' "$fmt" | cksum | cut -d ' ' -f 1)
	tap_run "$TBIN/cut_test" --format "$fmt" --damage 400 --seed "$seed" "$s"
	tap_run "$TBIN/cut_test" --gzip --format "$fmt" --step 3 "$s"
	tap_run "$TBIN/cut_test" --gzip --format "$fmt" --damage 300 --seed "$((seed + 1))" "$s"
	# fed 7 bytes at a time: damage met mid-record, at a feed's end
	tap_run "$TBIN/cut_test" --format "$fmt" --damage 60 --slice 7 --seed "$((seed + 2))" "$s"
done

# podtrace: every version, hostile strings
"$TBIN/ptwrite" "$TMP/mix.pt" <"$HERE/every-version.ptspec"
tap_run "$TBIN/cut_test" --format podtrace --damage 400 --seed 1 "$TMP/mix.pt"

# syscall: the other shared captures (one with a fork, one with every argument type)
tap_run "$TBIN/cut_test" --format syscall --damage 400 --seed 4 "$SAMPLES/syscall/forker.dat"
tap_run "$TBIN/cut_test" --format syscall --damage 200 --seed 5 "$SAMPLES/syscall/argtypes.dat"
tap_run "$TBIN/cut_test" --gzip --format syscall --damage 300 --seed 15 "$SAMPLES/syscall/forker.dat"

# htdump: the other shared sample, and a generated stream with every class shape
tap_run "$TBIN/cut_test" --format htdump --damage 400 --seed 7 "$SAMPLES/htdump/upstream_hello_world.htdump"
"$TBIN/htwrite" --generate 200 --seed 8 "$TMP/gen.ht"
tap_run "$TBIN/cut_test" --format htdump --damage 300 --seed 8 "$TMP/gen.ht"
tap_run "$TBIN/cut_test" --gzip --format htdump "$TMP/gen.ht"
tap_run "$TBIN/cut_test" --gzip --format htdump --damage 300 --seed 16 "$TMP/gen.ht"

# dial9: a generated trace (pools, schemas, resets)
"$TBIN/d9write" --generate 300 --seed 9 "$TMP/gen.d9"
tap_run "$TBIN/cut_test" --format dial9 --damage 400 --seed 9 "$TMP/gen.d9"
tap_run "$TBIN/cut_test" --gzip --format dial9 --step 3 "$TMP/gen.d9"
tap_run "$TBIN/cut_test" --gzip --format dial9 --damage 300 --seed 17 "$TMP/gen.d9"

# atf: the detail file beside the shared sample (an index file)
T0=$SAMPLES/atf/small_finalized/trace/session_20260101_120000/pid_4242/thread_0
cp "$T0/detail.atf" "$TMP/t0.detail"
tap_run "$TBIN/cut_test" --format atf --damage 300 --seed 13 "$TMP/t0.detail"

# gzip: damaged or cut inside the compressed stream, said so (the data decompressed before still listed)
gzip -c "$SAMPLES/podtrace/small.ptrace" >"$TMP/s.gz"
head -c 100 "$TMP/s.gz" >"$TMP/cut100.gz"
run --dump "$TMP/cut100.gz"
is "$RC" 1 "gzip cut before any data: nothing readable, exit 1"
like "$ERR" "cut100.gz: nothing to decode: the gzip stream is cut short before any data" "... and says so"
head -c 2000 "$TMP/s.gz" >"$TMP/cut2000.gz"
run --dump "$TMP/cut2000.gz"
is "$RC" 3 "gzip cut after some data: exit 3"
like "$ERR" "gzip stream cut short after [0-9]+ decompressed bytes" "... and says so"
n=$(printf '%s\n' "$OUT" | grep -c .)
ok $((n < 50)) "... with the events before the cut listed ($n)"
is "$(printf '%s\n' "$ERR" | grep -c .)" 1 "... in one message (the cut record said with its cause)"
# an intact gzip stream whose contents lose framing early: not called cut short
"$TBIN/ptwrite" --generate 20000 "$TMP/long.pt" >/dev/null
{ head -c 100000 "$TMP/long.pt"; head -c 16 /dev/zero; tail -c +100001 "$TMP/long.pt"; } | gzip -1 >"$TMP/lost.gz"
run --dump "$TMP/lost.gz"
like "$ERR" "lost\.gz: offset [0-9]+: .*the framing is lost" "gzip whose contents lose framing: said"
unlike "$ERR" "cut short" "... and the intact gzip stream not called cut short"
cp "$TMP/s.gz" "$TMP/flip.gz"
printf '\377' | dd of="$TMP/flip.gz" bs=1 seek=41 conv=notrunc 2>/dev/null
run --dump "$TMP/flip.gz"
like "$ERR" "flip.gz: gzip error after 0 decompressed bytes" "gzip damaged at its start: the gzip error is reported"
{ cat "$TMP/s.gz"; printf 'junk after it'; } >"$TMP/junk.gz"
run --dump "$TMP/junk.gz"
like "$ERR" "junk.gz: data after the end of the gzip stream at compressed offset $(wc -c <"$TMP/s.gz" | tr -d ' ')" \
	"gzip with bytes after its stream: said, with where"
is "$(printf '%s\n' "$OUT" | grep -c .)" "$("$TTV" --dump "$SAMPLES/podtrace/small.ptrace" | grep -c .)" "... the stream's events all listed"
done_testing
