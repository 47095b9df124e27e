#!/bin/sh
# Replay through the fuzz harness (t/fuzz/harness.h, built without libFuzzer
# as t/fuzz_replay.c): every input fuzzing found (t/fuzz/regress/TARGET/) and
# the seed corpora (t/fuzz/seeds.sh).  Each input is decoded whole and in
# small slices (the same events, or abort) and through every consumer.
# No fuzzing here: `make fuzz` does that.
. "$(dirname "$0")/../lib.sh"

for dir in "$T_DIR"/fuzz/regress/*/; do
	target=$(basename "$dir")
	tap_run "$TBIN/fuzz_replay" "$target" "$dir"*
done

"$T_DIR/fuzz/seeds.sh" "$TBIN" "$TMP/seeds" >"$TMP/seeds.log" 2>&1
rc=$?
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/seeds.log"
ok "$rc" "the seed corpora are made by the writers"
# every format of t/formats/table is a fuzz target; the filter syntax and the
# saved index are two more
for target in $(formats) query saved; do
	ok "$([ -n "$(ls -A "$TMP/seeds/$target" 2>/dev/null)" ]; echo $?)" "$target: seeds.sh made seeds"
	tap_run "$TBIN/fuzz_replay" "$target" "$TMP/seeds/$target"/*
done
# the libFuzzer targets themselves are built only by `make fuzz` (clang):
# each still compiles with the project's flags, so that none rots unseen
for f in "$T_DIR"/fuzz/fuzz_*.c; do
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$ROOT" -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600 \
		-fsyntax-only "$f" >"$TMP/cc.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/cc.log" | head -20
	ok "$rc" "$(basename "$f") compiles (make fuzz builds it)"
done
done_testing
