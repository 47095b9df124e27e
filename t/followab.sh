#!/bin/sh
# followab.sh BIN GROWN: the median ms from an append to the screen that
# shows it, 20 appends of 8 KiB to the files of the directory GROWN
# cut in half, in turn, as t/bench.sh follow_fleet measures them; for A/B
# runs of two builds, e.g.
#   for r in 1 2 3 4 5; do t/followab.sh /tmp/old/build/ttv ~/.cache/ttv-bench/shape-dial9-64.*; t/followab.sh build/ttv ~/.cache/ttv-bench/shape-dial9-64.*; done
BIN=$1 grown=$2
live=$(mktemp -d)/live script=$(mktemp) marks=$(mktemp) times=$(mktemp)
rm -rf "$live"; cp -rL "$grown" "$live"
set -- $(cd "$live" && find . -type f | sort); nf=$#
for f; do truncate -s $(($(stat -c %s "$live/$f") / 2)) "$live/$f"; done
n=20 i=0
while [ $i -lt $n ]; do
	eval "f=\${$((i % nf + 1))}"
	at=$(($(stat -L -c %s "$grown/$f") / 2 + i / nf * 8192))
	echo "shell (sleep 0.05; date +%s%N >>$marks; tail -c +$((at + 1)) $grown/$f | head -c 8192 >>$live/$f) &"
	echo await
	i=$((i + 1))
done >"$script"
TTV_SCRIPT=$script TTV_SCRIPT_TIMING=$times TTV_SIZE=120x40 "$BIN" --no-cache --follow "$live" >/dev/null 2>&1
grep '^await' "$times" | cut -f3 | paste - "$marks" | awk '{ print ($1 - $2) / 1e6 }' | sort -n | awk '{a[NR]=$1} END{printf "%.1f\n", a[int((NR+1)/2)]}'
rm -rf "${live%/live}" "$script" "$marks" "$times"
