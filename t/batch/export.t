#!/bin/sh
# --export chrome: Chrome Trace Event JSON.  t/chrome_check.c validates the
# structure against --dump --json of the same trace: every timeline event
# appears once, spans with their durations, at their times; a second,
# independent JSON parser (perl JSON::XS) reads the document too.
. "$(dirname "$0")/../lib.sh"

check() { # DESC ARGS...: export and dump with the same ARGS, then compare
	desc=$1; shift
	"$TTV" --export chrome "$@" >"$TMP/x.json" 2>"$TMP/x.err"
	xrc=$?
	"$TTV" --dump --json "$@" >"$TMP/d.jsonl" 2>/dev/null
	"$TBIN/chrome_check" "$TMP/x.json" "$TMP/d.jsonl" >"$TMP/check.out" 2>"$TMP/check.err"
	crc=$?
	ok $crc "$desc: $(cat "$TMP/check.out")"
	[ $crc = 0 ] || sed 's/^/# /' "$TMP/check.err" | head -10
	perl -MJSON::XS -e 'local $/; my $d = JSON::XS->new->decode(<STDIN>);
		die "no traceEvents\n" unless ref $d->{traceEvents} eq "ARRAY"' <"$TMP/x.json" 2>"$TMP/perl.err"
	ok $? "$desc: JSON::XS parses it"
}

check "podtrace" "$SAMPLES/podtrace/small.ptrace"
like "$(cat "$TMP/check.out")" "^300 events \(300 X, 0 i, 0 B\)" "podtrace: 300 spans"
check "htdump" "$SAMPLES/htdump/small.htdump"
like "$(cat "$TMP/check.out")" "\(51 X, 33 i, 0 B\)" "htdump: spans and instants (string definitions are metadata: left out)"
check "syscall" "$SAMPLES/syscall/ls_l.dat"
check "dial9" "$SAMPLES/dial9/upstream_block_in_place_2026-05-21.bin.gz"
check "atf, finalized" "$SAMPLES/atf/small_finalized"
check "atf, crashed" "$SAMPLES/atf/crash_sigkill"
is "$xrc" 3 "atf, crashed: exit 3 (damage), the export still whole"
like "$(cat "$TMP/check.out")" "[1-9][0-9]* B\)" "atf, crashed: calls never returned are B events"
check "filters" -e 'lane:nginx' -e '!type:read' "$SAMPLES/podtrace/small.ptrace"
n=$(grep -c '"ph":"X"' "$TMP/x.json")
ok $([ "$n" -gt 0 ] && [ "$n" -lt 300 ] && echo 0 || echo 1) "filters: some, not all ($n)"
check "several sources" "$SAMPLES/podtrace/small.ptrace" "$SAMPLES/htdump/small.htdump"
is "$(grep -c '"name":"process_name"' "$TMP/x.json")" 2 "several sources: a process each"
check "several sources, --align" --align "$SAMPLES/podtrace/small.ptrace" "$SAMPLES/syscall/ls_l.dat"

# the details of one trace
"$TBIN/ptwrite" "$TMP/a.pt" <<'SPEC'
V4 ts=2500 pid=7 type=0 latency=1500 comm=alpha target=Api.Example.com
V4 ts=7000 pid=8 type=21 latency=2000 comm=beta target=/etc/passwd bytes=3
SPEC
check "two events" "$TMP/a.pt"
X=$(cat "$TMP/x.json")
like "$X" '"ph":"X","pid":1,"tid":1,"ts":0.000,' "first event at ts 0 (µs from the first)"
like "$X" '"ts":4.000,.*"dur":2.000,' "second: ts 4 µs, dur 2 µs"
like "$X" '"time_base_ns":1000,' "otherData.time_base_ns"
like "$X" '"name":"thread_name","args":\{"name":"pid 7 \(alpha\)"\}' "lanes named as threads"
like "$X" '"target":"Api.Example.com"' "fields as args"
like "$X" '"displayTimeUnit":"ns"' "displayTimeUnit"

# the checker is not a rubber stamp: a lost event, a wrong time, a bad ts
"$TTV" --export chrome "$TMP/a.pt" >"$TMP/good.json"
"$TTV" --dump --json "$TMP/a.pt" >"$TMP/good.jsonl"
sed 's/"ts":4\.000,/"ts":4.001,/' "$TMP/good.json" >"$TMP/bad1.json"
"$TBIN/chrome_check" "$TMP/bad1.json" "$TMP/good.jsonl" >/dev/null 2>"$TMP/bad1.err"
is $? 1 "chrome_check: a moved event fails"
like "$(cat "$TMP/bad1.err")" "appears 0 times" "chrome_check: ... as not found at its time"
grep -v '"ts":0.000' "$TMP/good.json" | sed 's/"events":2,/"events":1,/' >"$TMP/bad2.json"
"$TBIN/chrome_check" "$TMP/bad2.json" "$TMP/good.jsonl" >/dev/null 2>"$TMP/bad2.err"
is $? 1 "chrome_check: a missing event fails"
like "$(cat "$TMP/bad2.err")" "appears 0 times" "chrome_check: ... and says which"
sed 's/"ts":0\.000,/"ts":0,/' "$TMP/good.json" >"$TMP/bad3.json"
"$TBIN/chrome_check" "$TMP/bad3.json" "$TMP/good.jsonl" >/dev/null 2>&1
is $? 1 "chrome_check: ts without three decimals fails"
grep -v thread_name "$TMP/good.json" >"$TMP/bad4.json"
"$TBIN/chrome_check" "$TMP/bad4.json" "$TMP/good.jsonl" >/dev/null 2>&1
is $? 1 "chrome_check: a thread without a name fails"

# spans of one lane that overlap without nesting: the second goes on an
# extra thread of that lane, as Perfetto wants the slices of a thread nested
"$TBIN/ptwrite" "$TMP/o.pt" <<'SPEC'
V4 ts=4000 pid=7 type=0 latency=3000 comm=alpha target=one
V4 ts=7000 pid=7 type=0 latency=5000 comm=alpha target=two
V4 ts=3500 pid=7 type=0 latency=1000 comm=alpha target=three
SPEC
check "overlapping spans" "$TMP/o.pt"
X=$(cat "$TMP/x.json")
like "$X" '"tid":2,"name":"thread_name","args":\{"name":"pid 7 \(alpha\) \(2\)"\}' "an extra thread, named after the lane"
like "$X" '"ph":"X","pid":1,"tid":2,"ts":1.000,"name":"two"' "the overlapping span on it"
like "$X" '"ph":"X","pid":1,"tid":1,"ts":1.500,"name":"three"' "a nested one stays on the lane"
sed 's/"tid":2,"ts":1.000,/"tid":1,"ts":1.000,/' "$TMP/x.json" >"$TMP/bad5.json"
"$TBIN/chrome_check" "$TMP/bad5.json" "$TMP/d.jsonl" >/dev/null 2>"$TMP/bad5.err"
is $? 1 "chrome_check: slices of a thread that do not nest fail"
like "$(cat "$TMP/bad5.err")" "without nesting" "chrome_check: ... and says so"

# usage
run --export perfetto "$TMP/a.pt"
is "$RC" 2 "--export unknown: exit 2"
like "$ERR" "unknown export format 'perfetto' \(there is: chrome, folded, speedscope\)" "--export unknown: says so"
run --export chrome --json "$TMP/a.pt"
is "$RC" 2 "--export with --json: exit 2"
run --export chrome --dump "$TMP/a.pt"
is "$RC" 2 "--export with --dump: exit 2"

done_testing
