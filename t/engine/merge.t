#!/bin/sh
# Merged timelines: several paths of different formats in one invocation
# share one time axis and one list; --info says whether their clocks can be
# related; --align lines the sources up by their first events.
. "$(dirname "$0")/../lib.sh"

PT=$SAMPLES/podtrace/small.ptrace   # monotonic, no wall-clock anchor, 300 events
HT=$SAMPLES/htdump/small.htdump     # monotonic, no anchor
SC1=$SAMPLES/syscall/ls_l.dat       # header: epoch + monotonic reference
SC2=$SAMPLES/syscall/cat_3m.dat     # the same boot as ls_l.dat
D9=$SAMPLES/dial9/upstream_block_in_place_2026-05-21.bin.gz  # ClockSyncEvent: another machine
ATF=$SAMPLES/atf/small_finalized

count() { "$TTV" --dump "$@" 2>/dev/null | wc -l | tr -d ' '; }
sorted() { # the ts of --dump --json never go back
	"$TTV" --dump --json "$@" 2>/dev/null | sed 's/^{"ts":\(-\{0,1\}[0-9]*\),.*/\1/' |
		awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }'
}

# ---- one list, one time axis, whatever the formats ----
n_pt=$(count "$PT"); n_ht=$(count "$HT"); n_sc=$(count "$SC1"); n_atf=$(count "$ATF")
is "$(count "$PT" "$HT" "$SC1" "$ATF")" $((n_pt + n_ht + n_sc + n_atf)) "four formats: every event in one list"
sorted "$PT" "$HT" "$SC1" "$ATF"
ok $? "four formats: one time order"
run --dump --json --align "$PT" "$HT"
files=$(printf '%s\n' "$OUT" | sed 's/.*"file":"\([^"]*\)".*/\1/' | uniq | wc -l | tr -d ' ')
ok $([ "$files" -gt 2 ] && echo 0 || echo 1) "podtrace and htdump (aligned) interleave in time ($files runs)"
run --stats "$PT" "$SC1"
like "$OUT" "pid 990 \(envoy\)" "--stats over two formats: podtrace lanes"
like "$OUT" "pid 10234" "--stats over two formats: syscall lanes"

# ---- clock domains in --info ----
run --info "$SC1" "$SC2"
like "$OUT" "clock: +monotonic ns, zero at 20[0-9-]+ [0-9:]+ UTC" "--info: a source's clock zero from its anchor"
like "$OUT" "^timeline: one clock" "--info: two captures of one boot share a clock"
run --info "$SC1" "$D9"
like "$OUT" "^timeline: DIFFERENT CLOCKS: .*ls_l.dat and .*block_in_place.* cannot be related" \
	"--info: different boots are said, naming both"
run --info "$PT" "$SC1"
like "$OUT" "clock: +monotonic ns, no wall-clock anchor" "--info: a source without an anchor says so"
like "$OUT" "^timeline: clocks not known to be related: .*small.ptrace has no wall-clock anchor" \
	"--info: unknown relation is said, naming the source"
run --info "$PT"
unlike "$OUT" "^timeline:" "--info: one source, no timeline line"
run --info --json "$SC1" "$D9"
like "$OUT" '"clocks":"different","aligned":false,"index":\{[^}]*\}\}$' "--info --json: clocks different"
like "$OUT" '"clock_zero_wall_ns":[0-9]+' "--info --json: clock_zero_wall_ns"
run --info --json "$SC1" "$SC2"
like "$OUT" '"clocks":"same"' "--info --json: clocks same"
run --info --json "$PT" "$HT"
like "$OUT" '"clocks":"unknown"' "--info --json: clocks unknown"

# ---- --align: each source's first event at 0 ----
run --dump --json --align "$PT" "$D9"
firsts=$(printf '%s\n' "$OUT" | grep -v '"meta":true' | sed 's/^{"ts":\(-\{0,1\}[0-9]*\),.*"file":"\([^"]*\)".*/\2 \1/' |
	sort -k1,1 -k2,2n -s | awk '!seen[$1]++ { print $2 }' | tr '\n' ' ')
is "$firsts" "0 0 " "--align: each source starts at 0"
is "$(count --align "$PT" "$D9")" "$(count "$PT" "$D9")" "--align: the same events"
sorted --align "$PT" "$D9" "$ATF"
ok $? "--align: one time order"
like "$OUT" '"timestamp":93417364902017' "--align: decoded fields keep the trace's own time"
run --info --align "$PT" "$SC1"
like "$OUT" "align: +shifted by -93416592778104 ns" "--info --align: the shift of each source"
like "$OUT" "^timeline: --align: each source starts at 0" "--info --align: said on the timeline line"
like "$OUT" "time: +0 \.\. 785101674 ns" "--info --align: the source's span from 0"
# sequences (ATF keeps its records in the mapped files) shift too
run --dump --json --align "$ATF"
like "$(printf '%s\n' "$OUT" | head -1)" '^\{"ts":0,' "--align: an ATF session starts at 0"
is "$(count --align "$ATF")" "$n_atf" "--align: every ATF event"
run --stats --align "$ATF"
like "$OUT" "CALL" "--align: --stats of an ATF session"
# filters by time see the aligned times
is "$(count --align -e 'range:0..1ms' "$PT")" "$(count -e 'range:+0..+1ms' "$PT")" "--align: range filters on aligned times"

# one source: times are shown from its first event, so --align changes nothing
for f in "$PT" "$HT" "$SC1" "$D9" "$ATF" "$SAMPLES/atf/crash_sigkill"; do
	a=$("$TTV" --dump "$f" 2>&1; "$TTV" --stats "$f" 2>&1)
	b=$("$TTV" --dump --align "$f" 2>&1; "$TTV" --stats --align "$f" 2>&1)
	ok $([ "$a" = "$b" ] && echo 0 || echo 1) "--align of one source: the same --dump and --stats ($(basename "$f"))"
done

# ---- the viewer: lanes of both sources, one axis ----
printf 'C\ndump %s\n' "$TMP/v.txt" >"$TMP/folded.script" # (C: a row per lane)
TTV_SCRIPT=$TMP/folded.script TTV_SIZE=100x40 "$TTV" --align "$PT" "$HT" >/dev/null 2>&1
V=$(cat "$TMP/v.txt")
like "$V" "^25 lanes" "viewer: the lanes of both sources (a lane of metadata alone is not drawn)"
like "$V" "pid 990 \(envoy\)" "viewer: a podtrace lane"
like "$V" "thread 2" "viewer: an htdump lane"
printf 'dump %s\n' "$TMP/v.txt" >"$TMP/v.script"
TTV_SCRIPT=$TMP/v.script TTV_SIZE=100x40 "$TTV" --align "$PT" "$HT" >/dev/null 2>&1
unlike "$(tail -n 1 "$TMP/v.txt")" "different clocks" "viewer: no clock warning for aligned sources"
TTV_SCRIPT=$TMP/v.script TTV_SIZE=300x20 "$TTV" "$SC1" "$D9" >/dev/null 2>&1
like "$(tail -n 1 "$TMP/v.txt")" "--align lines these up \\(different clocks, no shared time axis\\): ls_l.dat and .*block_in_place" \
	"viewer: sources on different clocks are said in the status line"
TTV_SCRIPT=$TMP/v.script TTV_SIZE=300x20 "$TTV" "$SC1" "$SC2" >/dev/null 2>&1
unlike "$(tail -n 1 "$TMP/v.txt")" "different clocks" "viewer: no warning for one clock"
TTV_SCRIPT=$TMP/v.script TTV_SIZE=300x20 "$TTV" "$PT" "$HT" >/dev/null 2>&1
like "$(tail -n 1 "$TMP/v.txt")" "--align lines these up \\(far apart, clocks not known to be related\\): small.ptrace and small" \
	"viewer: sources far apart on clocks not known to be related: the first screen suggests --align"
printf 'Tab\ndump %s\n' "$TMP/l.txt" >"$TMP/l.script"
TTV_SCRIPT=$TMP/l.script TTV_SIZE=120x30 "$TTV" --align "$PT" "$HT" >/dev/null 2>&1
like "$(cat "$TMP/l.txt")" "#[0-9]+/467 " "viewer: one list of both (300 + 167 events)"

done_testing
