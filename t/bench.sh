#!/bin/sh
# make bench: generate large traces with the project's own writers (cached
# outside the repo), then time ttv against `cat FILE > /dev/null` on the same
# file.  Each row: the median of RUNS runs, with min-max beside it.
#
#   TTV_BENCH_DIR   where generated traces are kept (default ~/.cache/ttv-bench)
#   RUNS            runs per measurement (default 3)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TTV=$ROOT/build/ttv
TBIN=$ROOT/build/t
DIR=${TTV_BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ttv-bench}
RUNS=${RUNS:-3}
mkdir -p "$DIR"

if [ ! -x /usr/bin/time ]; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
	else
		echo "bench needs GNU time: sudo apt-get install -y time" >&2
		exit 1
	fi
fi

# median and range of numbers on stdin: "MEDIAN MIN MAX"
stats3() { sort -g | awk '{v[NR]=$1} END {printf "%s %s %s\n", v[int((NR+1)/2)], v[1], v[NR]}'; }

# time_cmd OUTFILE CMD...: runs CMD, appends "seconds maxrss_kb" to OUTFILE
time_cmd() {
	out=$1; shift
	/usr/bin/time -f '%e %M' -o "$TMP_T" "$@" >/dev/null 2>"$TMP_E" || {
		rc=$?; [ $rc = 3 ] || { echo "bench: '$*' failed ($rc):" >&2; cat "$TMP_E" >&2; exit 1; }
	}
	tail -1 "$TMP_T" >>"$out"
}
TMP_T=$(mktemp); TMP_E=$(mktemp); TMP_R=$(mktemp); TMP_C=$(mktemp)
trap 'rm -f "$TMP_T" "$TMP_E" "$TMP_R" "$TMP_C"' EXIT

printf '%-22s %9s %11s %16s %12s %9s %14s %7s %9s %8s\n' \
	format MB events "decode s (range)" "events/s" "MB/s" "cat s (range)" "vs cat" "RSS MB" "B/event"

# row NAME FILE: decode FILE with `ttv --stats`, RUNS times, beside cat.
row() {
	name=$1 file=$2
	: >"$TMP_R"; : >"$TMP_C"
	cat "$file" >/dev/null # warm the page cache, as for cat
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_cmd "$TMP_R" "$TTV" --stats "$file"
		time_cmd "$TMP_C" sh -c 'cat "$1" >/dev/null' sh "$file"
		i=$((i + 1))
	done
	events=$("$TTV" --info --json "$file" | grep -o "\],\"events\":[0-9]*" | tr -dc 0-9)
	bytes=$(stat -c %s "$file")
	set -- $(cut -d' ' -f1 "$TMP_R" | stats3); d=$1 dmin=$2 dmax=$3
	set -- $(cut -d' ' -f1 "$TMP_C" | stats3); c=$1 cmin=$2 cmax=$3
	set -- $(cut -d' ' -f2 "$TMP_R" | stats3); rss=$1
	awk -v n="$name" -v b="$bytes" -v e="$events" -v d="$d" -v dmin="$dmin" -v dmax="$dmax" \
		-v c="$c" -v cmin="$cmin" -v cmax="$cmax" -v rss="$rss" 'BEGIN {
		if (d <= 0) d = 0.005; if (c <= 0) c = 0.005
		printf "%-22s %9.1f %11d %16s %12.0f %9.0f %14s %6.0f%% %9.1f %8.1f\n",
			n, b / 1e6, e, sprintf("%.2f (%.2f-%.2f)", d, dmin, dmax), e / d, b / 1e6 / d,
			sprintf("%.2f (%.2f-%.2f)", c, cmin, cmax), 100 * c / d, rss / 1024, rss * 1024 / e }'
}

PT=$DIR/podtrace-5M.ptrace
[ -s "$PT" ] || "$TBIN/ptwrite" --generate 5000000 --seed 1 "$PT"
row podtrace "$PT"
# dial9: 4 workers' ~1 MiB batches (overlapping in time) and the flush
# thread's CPU samples with pooled stacks, as the tokio telemetry writes them
D9=$DIR/dial9-30M.bin
[ -s "$D9" ] || "$TBIN/d9write" --generate 30000000 --seed 1 "$D9"
row dial9 "$D9"
echo
echo "decode: ttv --stats FILE (load, order, pair, count); vs cat: cat time / decode time;"
echo "RSS: peak resident memory of ttv --stats; B/event: that RSS per event.  Traces in $DIR."
