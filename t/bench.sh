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

# A trace is a file or a directory (ATF sessions): its bytes, and cat of all of it.
bytes_of() { if [ -d "$1" ]; then du -sb "$1" | cut -f1; else stat -c %s "$1"; fi; }
cat_all() { find "$1" -type f -exec cat {} + >/dev/null; }

# row NAME FILE: decode FILE with `ttv --stats`, RUNS times, beside cat.
row() {
	name=$1 file=$2
	: >"$TMP_R"; : >"$TMP_C"
	cat_all "$file" # warm the page cache, as for cat
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_cmd "$TMP_R" "$TTV" --stats "$file"
		time_cmd "$TMP_C" sh -c 'find "$1" -type f -exec cat {} + >/dev/null' sh "$file"
		i=$((i + 1))
	done
	events=$("$TTV" --info --json "$file" | grep -o "\],\"events\":[0-9]*" | tr -dc 0-9)
	bytes=$(bytes_of "$file")
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

# keys NAME FILE: a scripted viewer session (TTV_SCRIPT) over FILE; the time
# from each key to the finished screen, median and worst, over RUNS runs.
keys() {
	name=$1 file=$2
	script=$(mktemp) times=$(mktemp) all=$(mktemp)
	for k in j j j k Tab j j Space Space b G g Tab + + + l l h h z - - Z . . , Tab \
		Enter j j Escape = q ? q Tab; do echo "$k"; done >"$script"
	i=0
	while [ $i -lt "$RUNS" ]; do
		TTV_SCRIPT=$script TTV_SCRIPT_TIMING=$times TTV_SIZE=120x40 "$TTV" "$file" >/dev/null 2>&1 || true
		cut -f2 "$times" >>"$all"
		i=$((i + 1))
	done
	set -- $(stats3 <"$all")
	awk -v n="$name" -v med="$1" -v max="$3" -v k="$(wc -l <"$script")" 'BEGIN {
		printf "%-22s keystroke to screen: median %.2f ms, worst %.2f ms over %d keys x runs (120x40)\n",
			n, med / 1e6, max / 1e6, k }'
	rm -f "$script" "$times" "$all"
}

# first_row NAME FILE: time until `ttv --dump FILE` has written its first line
# (the whole load, then the first block of output; ttv then dies of SIGPIPE).
first_row() {
	name=$1 file=$2
	: >"$TMP_R"
	cat_all "$file"
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %M' -o "$TMP_T" "$TTV" --dump "$file" 2>"$TMP_E" | head -1 >/dev/null
		tail -1 "$TMP_T" >>"$TMP_R"
		i=$((i + 1))
	done
	set -- $(cut -d' ' -f1 "$TMP_R" | stats3); d=$1 dmin=$2 dmax=$3
	set -- $(cut -d' ' -f2 "$TMP_R" | stats3); rss=$1
	printf '%-22s %9.1f %11s %16s %12s %9s %14s %7s %9.1f\n' "$name" "$(bytes_of "$file" | awk '{print $1 / 1e6}')" \
		"" "$(printf '%.2f (%.2f-%.2f)' "$d" "$dmin" "$dmax")" "" "" "" "" "$(echo "$rss" | awk '{print $1 / 1024}')"
}

PT=$DIR/podtrace-5M.ptrace
[ -s "$PT" ] || "$TBIN/ptwrite" --generate 5000000 --seed 1 "$PT"
row podtrace "$PT"
SC=$DIR/syscall-5M.sc
[ -s "$SC" ] || "$TBIN/scwrite" --generate 5000000 --seed 1 "$SC"
row syscall "$SC"
HT=$DIR/htdump-10M.htdump
[ -s "$HT" ] || "$TBIN/htwrite" --generate 10000000 --seed 1 "$HT"
row htdump "$HT"

# ATF: a generated session directory (the manifest is written last)
ATF=$DIR/atf-1024mb
[ -s "$ATF/manifest.json" ] || "$TBIN/atfwrite" --generate 1024 --seed 1 "$ATF"
row "atf session" "$ATF"
first_row "atf first --dump line" "$ATF"
# dial9: 4 workers' ~1 MiB batches (overlapping in time) and the flush
# thread's CPU samples with pooled stacks, as the tokio telemetry writes them
D9=$DIR/dial9-30M.bin
[ -s "$D9" ] || "$TBIN/d9write" --generate 30000000 --seed 1 "$D9"
row dial9 "$D9"
echo
keys "viewer, podtrace 5M" "$PT"
echo
echo "decode: ttv --stats FILE (load, order, pair, count); vs cat: cat time / decode time;"
echo "RSS: peak resident memory of ttv --stats; B/event: that RSS per event.  Traces in $DIR."
echo "first --dump line: time until ttv --dump has written its first line (everything"
echo "loaded), and its peak RSS."
echo "keystroke to screen: TTV_SCRIPT session, each key handled and the screen drawn."
