#!/bin/sh
# abfirst.sh OLD NEW N PATH...: two ttv builds' first screen of PATH
# reopened (each build's own index, saved by its --info first: as the
# parts batch modes save), N times each in turn so the machine's state
# weighs on both alike; prints each one's median and range in ms.
# VIEW_ARGS: options for the viewer's runs (-f, --no-cache).  How
# t/bench.md's first-screen before/after figures were made, e.g.:
#   git worktree add /tmp/old HEAD~1 && make -C /tmp/old build/ttv
#   t/abfirst.sh /tmp/old/build/ttv build/ttv 9 ~/.cache/ttv-bench/shape-dial9-256.*[0-9a-f]
#   VIEW_ARGS=-f t/abfirst.sh ...
set -eu
old=$1 new=$2 n=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (a cache of their own: the user's indexes untouched, none pruned meanwhile)
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
for w in old new; do
	eval bin=\$$w
	"$bin" --info "$@" >/dev/null
done
i=0
while [ $i -lt "$n" ]; do
	for w in old new; do
		eval bin=\$$w
		TERM=xterm-256color TTV_QUIT_AT_FIRST_SCREEN=$tmp/ns script -qec "$bin ${VIEW_ARGS:-} $*" /dev/null \
			>/dev/null </dev/null
		cat "$tmp/ns" >>"$tmp/times.$w"
	done
	i=$((i + 1))
done
for w in old new; do
	sort -n "$tmp/times.$w" | awk -v w=$w '{ v[NR] = $1 / 1e6 }
		END { printf "%s: median %.1f ms (%.1f-%.1f)\n", w, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
