#!/bin/sh
# Truncation at every byte offset: no crash, exit status 0 or 3, and every
# whole record before the cut still listed (t/cut_test.c does the checking).
. "$(dirname "$0")/lib.sh"

# podtrace: every version, a long (V8-sized) record, hostile strings
"$TBIN/ptwrite" "$TMP/mix.pt" <<'SPEC'
V1 ts=10 pid=1 type=0 target=a
V2 ts=5 pid=2 type=30 old=x new=y cgroup=3
V3 ts=30 pid=1 type=21 comm=c\x1b target=/p bytes=4
V4 len=424 ts=20 pid=3 type=13 tcp_state=4
V4 ts=40 pid=3 type=99 target=\xff\xfe
SPEC
tap_run "$TBIN/cut_test" --format podtrace "$TMP/mix.pt"
# the shared sample: every 7th offset, and probing (no --format) at every offset near the start
tap_run "$TBIN/cut_test" --format podtrace --step 7 "$SAMPLES/podtrace/small.ptrace"
tap_run "$TBIN/cut_test" --to 2000 "$SAMPLES/podtrace/small.ptrace"
done_testing
