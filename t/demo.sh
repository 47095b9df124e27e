#!/bin/sh
# make demo: write sample traces with the project's own writers, then show them.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TTV=$ROOT/build/ttv
TBIN=$ROOT/build/t
DEMO=$ROOT/build/demo
mkdir -p "$DEMO"

"$TBIN/ptwrite" --generate 20000 --seed 7 "$DEMO/podtrace.ptrace"
"$TBIN/d9write" --generate 20000 --seed 7 "$DEMO/dial9.bin"

echo "Sample traces in $DEMO:"
ls -l "$DEMO"
for f in "$DEMO"/*; do
	echo
	"$TTV" --info "$f"
	echo
	"$TTV" --dump "$f" | head -15
done
