#!/bin/sh
# abtime.sh OLD NEW N ARGS...: two ttv builds timed side by side, run in
# turn N times each (`/usr/bin/time`, each with --no-cache ARGS), so that
# the machine's state weighs on both alike; prints whether their outputs
# are the same, then each one's best and median wall time and the user
# and system time of its best run.  How t/bench.md's before/after figures
# were made, e.g.:
#   git worktree add /tmp/old HEAD~1 && make -C /tmp/old build
#   t/abtime.sh /tmp/old/build/ttv build/ttv 5 --stats ~/.cache/ttv-bench/podtrace-30M.ptrace
set -eu
old=$1 new=$2 n=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt "$n" ]; do
	for w in old new; do
		eval bin=\$$w
		/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" --no-cache "$@" >"$tmp/out.$w"
		cat "$tmp/t" >>"$tmp/times.$w"
	done
	i=$((i + 1))
done
if cmp -s "$tmp/out.old" "$tmp/out.new"; then echo "outputs identical"; else echo "outputs differ"; fi
for w in old new; do
	sort -n "$tmp/times.$w" | awk -v w=$w '{ e[NR] = $1; u[NR] = $2; s[NR] = $3 }
		END { printf "%s: best %.2f s, median %.2f s (best run: user %.2f s, system %.2f s)\n", w, e[1], e[int((NR + 1) / 2)], u[1], s[1] }'
done
