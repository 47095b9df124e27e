#!/bin/sh
# The command-line contract: options, modes, exit status, messages, inputs
# (files, standard input, gzip by magic, several paths), filters.
. "$(dirname "$0")/../lib.sh"

"$TBIN/ptwrite" "$TMP/a.pt" <<'EOF'
V4 ts=1100 pid=1 type=0 latency=1000 comm=alpha target=Api.Example.com
V4 ts=2300 pid=1 type=21 latency=2000 comm=alpha target=/etc/passwd bytes=3
V4 ts=3500 pid=2 type=1 latency=3000 comm=beta target=10.0.0.1:80 error=-111
EOF
"$TBIN/ptwrite" "$TMP/b.pt" <<'EOF'
V4 ts=300 pid=3 type=5 latency=100 comm=gamma target=/var/log/x bytes=10
V4 ts=400 pid=3 type=22 bytes=7 comm=gamma
EOF

# ---- help, version, usage errors ----
run --help
is "$RC" 0 "--help exits 0"
like "$OUT" "usage: ttv" "--help prints usage"
like "$OUT" "--format NAME.*podtrace" "--help lists the formats"
run --version
like "$OUT" "^ttv [0-9]+\.[0-9]+\.[0-9]+$" "--version prints the version"
run
is "$RC" 2 "no PATH: exit 2"
like "$ERR" "no trace to open" "no PATH: says so"
run --bogus "$TMP/a.pt"
is "$RC" 2 "unknown option: exit 2"
like "$ERR" "unknown option '--bogus'" "unknown option named"
run --format nope "$TMP/a.pt"
is "$RC" 2 "unknown --format: exit 2"
run --json "$TMP/a.pt"
is "$RC" 2 "--json without a batch mode: exit 2"
run --dump --info "$TMP/a.pt"
is "$RC" 2 "two modes: exit 2"
run --dump -e '(' "$TMP/a.pt"
is "$RC" 2 "bad regex: exit 2"
like "$ERR" "bad filter '\(': at offset 1: missing closing parenthesis" "bad regex: offset and message"
run --dump -e
is "$RC" 2 "-e without argument: exit 2"
run --dump --keymap nosuch "$TMP/a.pt"
is "$RC" 2 "batch: a keymap not found is a usage error"
like "$ERR" "keymap 'nosuch' not found" "and says which"
run --stats --theme nosuch "$TMP/a.pt"
is "$RC" 2 "batch: a theme not found too"
run --info --keymap vi --theme "$ROOT/themes/mono.theme" "$TMP/a.pt"
is "$RC" 0 "batch: a keymap by name and a theme by path are found"

# ---- unreadable input ----
run --dump "$TMP/missing.pt"
is "$RC" 1 "missing file: exit 1"
like "$ERR" "missing.pt: cannot open: No such file or directory" "missing file: named"
printf 'hello, world\n' >"$TMP/text.txt"
run --dump "$TMP/text.txt"
is "$RC" 1 "unknown content: exit 1"
like "$ERR" "text.txt: unknown format" "unknown content: says so"
: >"$TMP/empty"
run --info "$TMP/empty"
is "$RC" 1 "empty file, format unknown: exit 1"
like "$ERR" "empty file \(0 bytes\)" "empty file: says so"
mkdir "$TMP/emptydir"
run --dump "$TMP/emptydir"
is "$RC" 1 "a directory nobody claims: exit 1"
run --dump "$TMP/a.pt" "$TMP/missing.pt"
is "$RC" 3 "one good and one missing: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 3 "the good one is still listed"
cp "$TMP/a.pt" "$TMP/$(printf 'evil\033[2Jname')"
run --info "$TMP/$(printf 'evil\033[2Jname')" "$TMP/$(printf 'nope\033[31m')"
like "$ERR" 'nope\\x1b\[31m: cannot open' "control characters in a path are escaped in messages"
like "$OUT" 'evil\\x1b\[2Jname' "and in --info"

# ---- modes ----
run --dump "$TMP/a.pt"
is "$RC" 0 "--dump: exit 0"
is "$(printf '%s\n' "$OUT" | head -1)" "+0.000000000	pid 1 (alpha)	DNS	[DNS] lookup Api.Example.com took 0.00ms" "--dump: time, lane, type, summary"
run --dump --json "$TMP/a.pt"
like "$(printf '%s\n' "$OUT" | head -1)" '^\{"ts":100,"lane":"pid 1 \(alpha\)","type":"DNS",.*"dur":1000,.*"fields":\{.*\}\}$' "--dump --json: ts, lane, type, dur, fields"
run --info --json "$TMP/a.pt"
like "$OUT" '^\{"sources":\[\{"path":".*a.pt","format":"podtrace",.*"status":"ok",.*"events":3,.*"first_ts":100,"last_ts":3500,"lanes":\[' "--info --json (the time reaches the end of the last span)"
run --stats "$TMP/a.pt"
like "$OUT" "3 events" "--stats: count"
like "$OUT" "pid 1 \(alpha\)" "--stats: per lane"
run --stats --json "$TMP/a.pt"
like "$OUT" '"types":\[\{"type":"DNS","category":"DNS","count":1,"dur":\{"n":1,"total":1000' "--stats --json: per type with durations"

# ---- several paths merge by time ----
run --dump "$TMP/a.pt" "$TMP/b.pt"
is "$(printf '%s\n' "$OUT" | cut -f3 | tr '\n' ' ')" "DNS READ OPEN CLOSE CONNECT " "two captures interleave by time"
run --info "$TMP/a.pt" "$TMP/b.pt"
like "$OUT" "b.pt" "--info lists each source"

# ---- standard input and gzip ----
OUT=$(cat "$TMP/a.pt" | "$TTV" --dump - 2>&1); RC=$?
is "$RC" 0 "standard input: exit 0"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 3 "standard input: 3 events"
gzip -c "$TMP/a.pt" >"$TMP/a-compressed.bin"
run --dump "$TMP/a-compressed.bin"
is "$RC" 0 "gzip recognised by magic, whatever the name"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 3 "gzip: 3 events"
{ gzip -c "$TMP/a.pt"; gzip -c "$TMP/b.pt"; } >"$TMP/multi.gz"
run --dump --format podtrace "$TMP/multi.gz"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 5 "gzip with two members: both read"
OUT=$(gzip -c "$TMP/a.pt" | "$TTV" --dump - 2>&1); RC=$?
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 3 "gzip on standard input"
size=$(wc -c <"$TMP/a-compressed.bin")
head -c $((size - 12)) "$TMP/a-compressed.bin" >"$TMP/cut.gz"
run --dump "$TMP/cut.gz"
is "$RC" 3 "gzip cut short: exit 3"
like "$ERR" "cut.gz: offset [0-9]+: .*gzip stream cut short" "gzip cut short: says so"

# ---- filters ----
run --dump -e 'passwd' "$TMP/a.pt"
is "$(printf '%s\n' "$OUT" | cut -f3)" "OPEN" "-e keeps matching events"
run --dump -e '!passwd' "$TMP/a.pt"
is "$(printf '%s\n' "$OUT" | cut -f3 | tr '\n' ' ')" "DNS CONNECT " "!RE drops matching events"
run --dump -e 'api' "$TMP/a.pt"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "smart case: lower-case pattern matches Api"
run --dump -e 'API' "$TMP/a.pt"
is "$OUT" "" "smart case: upper-case pattern is case-sensitive"
run --dump -e '\D' -e 'alpha' "$TMP/a.pt"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "an escape like \\D does not turn off smart case; filters stack"
run --dump -e 'lane:beta' "$TMP/a.pt" "$TMP/b.pt"
is "$(printf '%s\n' "$OUT" | cut -f3)" "CONNECT" "lane:RE"
run --dump -e 'type:^(OPEN|CLOSE)$' "$TMP/a.pt" "$TMP/b.pt"
is "$(printf '%s\n' "$OUT" | cut -f3 | tr '\n' ' ')" "OPEN CLOSE " "type:RE"
run --dump -e 'target:^/' "$TMP/a.pt" "$TMP/b.pt"
is "$(printf '%s\n' "$OUT" | cut -f3 | tr '\n' ' ')" "READ OPEN " "FIELD:RE on the interned field"
run --dump -e 'error:ECONNREFUSED' "$TMP/a.pt"
is "$(printf '%s\n' "$OUT" | cut -f3)" "CONNECT" "FIELD:RE on a decoded field matches its meaning"
run --stats --json -e 'lane:gamma' "$TMP/b.pt"
like "$OUT" '^\{"events":2,' "--stats honours filters"

# ---- read-only ----
before=$(stat -c '%s %Y' "$TMP/a.pt"; md5sum <"$TMP/a.pt")
"$TTV" --dump "$TMP/a.pt" >/dev/null; "$TTV" --info "$TMP/a.pt" >/dev/null; "$TTV" --stats "$TMP/a.pt" >/dev/null
after=$(stat -c '%s %Y' "$TMP/a.pt"; md5sum <"$TMP/a.pt")
is "$after" "$before" "reading changes neither bytes nor mtime"

# --time: relative (the default), the trace's own clock, or the wall clock
# where the trace anchors it (the syscall capture's epoch); local time
run --dump --time trace "$SAMPLES/syscall/ls_l.dat"
like "$(printf '%s\n' "$OUT" | head -1)" '^@632\.714025641	pid 10234	ioctl	' "--dump --time trace: the trace's clock"
OUT=$(TZ=UTC "$TTV" --dump --time wall "$SAMPLES/syscall/ls_l.dat" | head -1)
like "$OUT" '^2026-11-21 13:25:22\.000077166	pid 10234	ioctl	' "--dump --time wall: the wall clock from the capture's epoch"
OUT=$(TZ=IST-5:30 "$TTV" --dump --time wall "$SAMPLES/syscall/ls_l.dat" | head -1)
like "$OUT" '^2026-11-21 18:55:22\.000077166	' "--dump --time wall: in local time"
run --dump --time wall "$SAMPLES/podtrace/small.ptrace"
like "$(printf '%s\n' "$OUT" | head -1)" '^@93416\.592778104	' "--dump --time wall: no anchor, the trace's clock"
run --dump --time relative "$SAMPLES/syscall/ls_l.dat"
like "$(printf '%s\n' "$OUT" | head -2 | tail -1)" '^\+0\.000044907	' "--dump --time relative: as without it"
run --dump --time soon "$SAMPLES/syscall/ls_l.dat"
is "$RC" 2 "--time: a bad value is a usage error"
done_testing
