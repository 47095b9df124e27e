#!/bin/sh
# Replay through the fuzz harness (t/fuzz/harness.h, built without libFuzzer
# as t/fuzz_replay.c): every input fuzzing found (t/fuzz/regress/TARGET/) and
# the seed corpora (t/fuzz/seeds.sh).  Each input is decoded whole and in
# small slices (the same events, or abort) and through every consumer.
# No fuzzing here: `make fuzz` does that.
. "$(dirname "$0")/lib.sh"

for dir in "$T_DIR"/fuzz/regress/*/; do
	target=$(basename "$dir")
	tap_run "$TBIN/fuzz_replay" "$target" "$dir"*
done

"$T_DIR/fuzz/seeds.sh" "$TBIN" "$TMP/seeds" >"$TMP/seeds.log" 2>&1
rc=$?
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/seeds.log"
ok "$rc" "the seed corpora are made by the writers"
for target in podtrace syscall htdump dial9 atf query; do
	tap_run "$TBIN/fuzz_replay" "$target" "$TMP/seeds/$target"/*
done
done_testing
