#!/bin/sh
# make demo: write sample traces with the project's own writers, then open
# the viewer on each (q moves on to the next).  Without a terminal, show
# them in batch form instead.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TTV=$ROOT/build/ttv
TBIN=$ROOT/build/t
DEMO=$ROOT/build/demo
mkdir -p "$DEMO"

"$TBIN/ptwrite" --generate 20000 --seed 7 "$DEMO/podtrace.ptrace"
"$TBIN/scwrite" --generate 60000 --seed 7 "$DEMO/syscall.sc"
"$TBIN/htwrite" --generate 20000 --seed 7 "$DEMO/hawktracer.htdump"
"$TBIN/atfwrite" --generate 8 --seed 7 "$DEMO/atf-session"
"$TBIN/d9write" --generate 20000 --seed 7 "$DEMO/dial9.bin"

echo "Sample traces in $DEMO:"
ls -l "$DEMO"
if [ -t 0 ] && [ -t 1 ]; then
	for f in "$DEMO"/*; do
		printf '\nOpening %s in the viewer: ? shows the keys, q moves on.\n' "$f"
		sleep 1
		"$TTV" "$f" || true
	done
else
	for f in "$DEMO"/*; do
		echo
		"$TTV" --info "$f"
		"$TTV" --dump "$f" | head -15
	done
fi
