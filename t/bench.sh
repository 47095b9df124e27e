#!/bin/sh
# make bench: generate large traces with the project's own writers (cached
# outside the repo), then time ttv against `cat FILE > /dev/null` on the same
# file.  Each row: the median of RUNS runs, with min-max beside it.  The
# latest tables, and what the profiles showed, are in t/bench.md.
#
#   TTV_BENCH_DIR   where generated traces are kept (default ~/.cache/ttv-bench)
#   RUNS            runs per measurement (default 3)
#   TTV_BENCH_ONLY  "shapes": only the rows of traces shaped as real systems write them;
#                   "follow": only their follow rows; "filters": only the filters that decode
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TTV_BIN=$ROOT/build/ttv
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
TMP_T=$(mktemp); TMP_E=$(mktemp); TMP_R=$(mktemp); TMP_C=$(mktemp); TMP_D=$(mktemp)
# Every run indexes afresh (--no-cache: what is measured is indexing), but
# for the reopening rows at the end: their ttv keeps its saved indexes in
# a directory of its own.
TTV=$(mktemp); TTV_SAVED=$(mktemp); SAVED_DIR=$(mktemp -d)
trap 'rm -rf "$TMP_T" "$TMP_E" "$TMP_R" "$TMP_C" "$TMP_D" "$TTV" "$TTV_SAVED" "$SAVED_DIR"' EXIT
printf '#!/bin/sh\nexec "%s" --no-cache "$@"\n' "$TTV_BIN" >"$TTV"
printf '#!/bin/sh\nXDG_CACHE_HOME="%s" exec "%s" "$@"\n' "$SAVED_DIR" "$TTV_BIN" >"$TTV_SAVED"
chmod +x "$TTV" "$TTV_SAVED"


# A trace is a file or a directory (ATF sessions): its bytes, and cat of all of it.
bytes_of() { if [ -d "$1" ]; then du -sb "$1" | cut -f1; else stat -c %s "$1"; fi; }
cat_all() { find "$1" -type f -exec cat {} + >/dev/null; }

# row NAME FILE: decode FILE with `ttv --stats`, RUNS times, beside the
# decoders alone (t/decodeonly.c: no model; "model" is the share of the
# decode time spent outside them) and cat.
row() {
	name=$1 file=$2
	: >"$TMP_R"; : >"$TMP_C"; : >"$TMP_D"
	cat_all "$file" # warm the page cache, as for cat
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_cmd "$TMP_R" "$TTV" --stats "$file"
		time_cmd "$TMP_D" "$TBIN/decodeonly" "$file"
		time_cmd "$TMP_C" sh -c 'find "$1" -type f -exec cat {} + >/dev/null' sh "$file"
		i=$((i + 1))
	done
	events=$("$TTV" --info --json "$file" | grep -o "\],\"events\":[0-9]*" | tr -dc 0-9)
	bytes=$(bytes_of "$file")
	set -- $(cut -d' ' -f1 "$TMP_R" | stats3); d=$1 dmin=$2 dmax=$3
	set -- $(cut -d' ' -f1 "$TMP_C" | stats3); c=$1 cmin=$2 cmax=$3
	set -- $(cut -d' ' -f1 "$TMP_D" | stats3); dd=$1
	set -- $(cut -d' ' -f2 "$TMP_R" | stats3); rss=$1
	awk -v n="$name" -v b="$bytes" -v e="$events" -v d="$d" -v dmin="$dmin" -v dmax="$dmax" \
		-v c="$c" -v cmin="$cmin" -v cmax="$cmax" -v rss="$rss" -v dd="$dd" 'BEGIN {
		if (d <= 0) d = 0.005; if (c <= 0) c = 0.005
		printf "%-22s %9.1f %11d %16s %12.0f %9.0f %10.2f %6.0f%% %14s %6.0f%% %9.1f %8.1f\n",
			n, b / 1e6, e, sprintf("%.2f (%.2f-%.2f)", d, dmin, dmax), e / d, b / 1e6 / d,
			dd, (d > dd ? 100 * (d - dd) / d : 0), sprintf("%.2f (%.2f-%.2f)", c, cmin, cmax), 100 * c / d,
			rss / 1024, rss * 1024 / e }'
}

# keys NAME PATH...: a scripted viewer session (TTV_SCRIPT) over the paths; the time
# from each key to the finished screen, median and worst (and its key),
# over RUNS runs.
keys() {
	name=$1
	shift
	script=$(mktemp) times=$(mktemp) all=$(mktemp)
	for k in j j j k Tab j j Space Space b G g Tab + + + l l h h z - - Z . . , Tab \
		Enter j j Escape = q '?' q Tab Down Right Right Left Up '{' '}' c C C R R; do echo "$k"; done >"$script"
	i=0
	while [ $i -lt "$RUNS" ]; do
		TTV_SCRIPT=$script TTV_SCRIPT_TIMING=$times TTV_SIZE=120x40 "$TTV" "$@" >/dev/null 2>&1 || true
		cut -f1,2 "$times" >>"$all"
		i=$((i + 1))
	done
	worst=$(sort -t '	' -k2,2n "$all" | tail -1 | cut -f1)
	msrow "$name" $(cut -f2 "$all" | stats3) "($(wc -l <"$script") keys x $RUNS runs, worst shown as max: $worst)"
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

# msrow NAME MEDIAN MIN MAX [NOTE]: one line of the viewer table (ns in, ms out)
msrow() {
	awk -v n="$1" -v m="$2" -v lo="$3" -v hi="$4" -v note="${5:-}" 'BEGIN {
		printf "%-44s %9.1f ms  (%.1f-%.1f)  %s\n", n, m / 1e6, lo / 1e6, hi / 1e6, note }'
}

# first_screen NAME FILE: the viewer on a terminal (a pty from script(1))
# quits once its first screen with events is drawn and says how long that
# took from the start of main() (TTV_QUIT_AT_FIRST_SCREEN=FILE).
first_screen() {
	name=$1 file=$2
	: >"$TMP_R"
	cat_all "$file"
	i=0
	while [ $i -lt "$RUNS" ]; do
		TERM=xterm-256color TTV_QUIT_AT_FIRST_SCREEN=$TMP_C script -qec "$TTV '$file'" /dev/null >/dev/null </dev/null
		cat "$TMP_C" >>"$TMP_R"
		i=$((i + 1))
	done
	msrow "first screen, $name" $(stats3 <"$TMP_R")
}

# view_load NAME PATH...: the viewer loads the paths to the end in its steps of
# 15 ms (TTV_SCRIPT: no drawing between them), then quits: the time of the
# whole run.
view_load() {
	name=$1
	shift
	script=$(mktemp)
	echo q >"$script"
	: >"$TMP_R"
	for f; do cat_all "$f"; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%e' -o "$TMP_T" env TTV_SCRIPT="$script" TTV_SIZE=120x40 "$TTV" "$@" >/dev/null 2>&1 || true
		awk '{ printf "%.0f\n", $1 * 1e9 }' "$TMP_T" >>"$TMP_R"
		i=$((i + 1))
	done
	msrow "load in the viewer, $name" $(stats3 <"$TMP_R")
	rm -f "$script"
}

# filter_time NAME FILE RE: the viewer filters FILE with RE (& RE Enter);
# the time from Enter to the screen drawn with every event filtered.
# LOADED=1: once the whole file is loaded (the script's `check`).
filter_time() {
	name=$1 file=$2 re=$3
	script=$(mktemp) times=$(mktemp)
	{ [ -z "${LOADED:-}" ] || echo check; printf '&\ntype %s\nEnter\nq\n' "$re"; } >"$script"
	: >"$TMP_R"
	i=0
	while [ $i -lt "$RUNS" ]; do
		TTV_SCRIPT=$script TTV_SCRIPT_TIMING=$times TTV_SIZE=120x40 "$TTV" "$file" >/dev/null 2>&1 || true
		grep '^Enter' "$times" | cut -f2 >>"$TMP_R"
		i=$((i + 1))
	done
	msrow "$name" $(stats3 <"$TMP_R") "$(printf '& %s' "$re")"
	rm -f "$script" "$times"
}

# follow_measure NAME LIVE SCRIPT MARKS NOTE: the viewer follows LIVE
# through SCRIPT, whose appends write their wall-clock times to MARKS; a row
# of the times from each mark to the screen drawn after it (TTV_SCRIPT_TIMING)
follow_measure() {
	times=$(mktemp)
	TTV_SCRIPT=$3 TTV_SCRIPT_TIMING=$times TTV_SIZE=120x40 "$TTV" --follow "$2" >/dev/null 2>&1 || true
	grep '^await' "$times" | cut -f3 | paste - "$4" | awk '{ print $1 - $2 }' | stats3 >"$TMP_R"
	msrow "$1" $(cat "$TMP_R") "$5"
	rm -f "$times"
}

# follow_latency NAME: the viewer follows a 1M-event podtrace file while
# another process appends one record at a time; from the wall-clock time just
# before each append to the screen drawn with the new event (TTV_SCRIPT_TIMING).
follow_latency() {
	name=$1
	live=$DIR/follow-live.ptrace rec=$(mktemp) script=$(mktemp) marks=$(mktemp)
	"$TBIN/ptwrite" --generate 1000000 --seed 2 "$live"
	echo "V4 ts=999999999999999 pid=4242 type=0 latency=1000 comm=appender target=late.example" |
		"$TBIN/ptwrite" "$rec"
	n=20 i=0
	while [ $i -lt $n ]; do
		echo "shell (sleep 0.05; date +%s%N >>$marks; cat $rec >>$live) &"
		echo await
		i=$((i + 1))
	done >"$script"
	follow_measure "$name" "$live" "$script" "$marks" "($n appends of one record)"
	rm -f "$live" "$rec" "$script" "$marks"
}

# follow_fleet NAME TREE: the viewer follows a dial9 directory while its
# files grow at once (t/follow_appends.sh: each cut to its first half, then
# 8 KiB appended to each in turn); from just before each append to the
# screen drawn with its events (as follow_latency).  A fleet's per-thread
# batches reach back in time among the other instances' events.
follow_fleet() {
	nf=$(find -L "$2" -type f | wc -l)
	"$ROOT/t/follow_appends.sh" "$TTV" "$2" | stats3 >"$TMP_R"
	msrow "$1" $(cat "$TMP_R") "(20 appends of 8 KiB, $nf file(s) in turn)"
}

# lnav_rows TEXT RE PATH...: the events of the paths as text (ttv --dump,
# kept as TEXT) loaded and filtered by lnav headless, against ttv on the
# traces themselves.
lnav_rows() {
	txt=$1 re=$2
	shift 2
	paths=$* # (set -- below takes the arguments; the bench's paths hold no spaces)
	if ! command -v lnav >/dev/null; then
		if [ "$(id -u)" = 0 ]; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lnav >/dev/null
		else
			echo "(lnav rows skipped: sudo apt-get install -y lnav)"
			return
		fi
	fi
	[ -s "$txt" ] || "$TTV" --dump $paths >"$txt"
	cat "$txt" >/dev/null
	cat $paths >/dev/null 2>&1 || find $paths -type f -exec cat {} + >/dev/null
	for what in load filter; do
		: >"$TMP_R"; : >"$TMP_C"
		i=0
		while [ $i -lt "$RUNS" ]; do
			if [ $what = load ]; then
				time_cmd "$TMP_R" lnav -n -q "$txt"
				time_cmd "$TMP_C" "$TTV" --stats $paths
			else
				time_cmd "$TMP_R" lnav -n -c ":filter-in $re" "$txt"
				time_cmd "$TMP_C" "$TTV" -e "$re" --stats $paths
			fi
			i=$((i + 1))
		done
		set -- $(cut -d' ' -f1 "$TMP_R" | stats3); l=$1 lmin=$2 lmax=$3
		set -- $(cut -d' ' -f1 "$TMP_C" | stats3); t=$1 tmin=$2 tmax=$3
		awk -v w="$what" -v l="$l" -v lmin="$lmin" -v lmax="$lmax" -v t="$t" -v tmin="$tmin" -v tmax="$tmax" 'BEGIN {
			if (t <= 0) t = 0.005
			printf "%-8s lnav %6.2f s (%.2f-%.2f)   ttv %6.2f s (%.2f-%.2f)   ttv is %.1fx faster\n",
				w, l, lmin, lmax, t, tmin, tmax, l / t }'
	done
	echo "load: lnav -n -q TEXT vs ttv --stats TRACE; filter: lnav -n -c ':filter-in $re' TEXT vs ttv -e '$re' --stats TRACE"
	echo "TEXT: ttv --dump of the trace, $(wc -l <"$txt") lines, $(($(stat -c %s "$txt") / 1000000)) MB; $(lnav -V | head -1)"
}

# shape_row NAME BASE PATH...: ttv --stats of PATHS (RUNS times): time,
# events/s, peak RSS and bytes per event, and each beside BASE's (the
# figures of the row NAME was compared with: "SECONDS RSS_KB", or "" for
# the row that is the base); sets SHAPE to this row's.
# SHAPE_RUN, when set, is what is timed instead ("TTV OPTIONS", split on
# blanks).
shape_row() {
	name=$1 base=$2
	shift 2
	: >"$TMP_R"
	cat "$@" >/dev/null 2>&1 || find "$@" -type f -exec cat {} + >/dev/null
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_cmd "$TMP_R" ${SHAPE_RUN:-"$TTV" --stats} "$@"
		i=$((i + 1))
	done
	events=$("$TTV" --info --json "$@" | grep -o "\],\"events\":[0-9]*" | tr -dc 0-9)
	set -- $(cut -d' ' -f1 "$TMP_R" | stats3); d=$1 dmin=$2 dmax=$3
	set -- $(cut -d' ' -f2 "$TMP_R" | stats3); rss=$1
	SHAPE="$d $rss $events"
	# (beside: time and peak RSS per event, as writers' K instances hold
	# about, not exactly, the events of one: 256 ATF pids 1.3x)
	awk -v n="$name" -v e="$events" -v d="$d" -v dmin="$dmin" -v dmax="$dmax" -v rss="$rss" -v base="$base" 'BEGIN {
		if (d <= 0) d = 0.005
		split(base, b, " ")
		printf "%-30s %11d %16s %12.0f %9.1f %8.1f", n, e, sprintf("%.2f (%.2f-%.2f)", d, dmin, dmax), e / d,
			rss / 1024, rss * 1024 / e
		if (base != "") printf "   %5.2fx time/event %5.2fx RSS/event", (d / e) / (b[1] / b[3]), (rss / e) / (b[2] / b[3])
		printf "\n" }'
}

# shape NAME WRITER ARGS...: the path of shape NAME, written by `WRITER
# --generate ARGS... PATH` when not kept yet (with SHAPE_IN set, PATH is
# that file in a directory, which is the shape).  It is kept under a digest
# of the writer's source: a writer that changes writes it anew (the old goes).
shape() {
	name=$1 w=$2
	shift 2
	key=$(cat "$ROOT/t/$w.c" "$ROOT/t/writer.h" | md5sum | cut -c1-8)
	keep=$DIR/shape-$name.$key
	stale "$DIR/shape-$name" "$keep"
	if [ ! -e "$keep" ]; then
		rm -rf "$keep.part"
		[ -z "${SHAPE_IN:-}" ] || mkdir "$keep.part"
		"$TBIN/$w" --generate "$@" "$keep.part${SHAPE_IN:+/$SHAPE_IN}" >/dev/null
		mv "$keep.part" "$keep"
	fi
	echo "$keep"
}

# stale PREFIX KEEP: every shape kept as PREFIX or PREFIX.* but KEEP goes.
stale() {
	for old in "$1" "$1".*; do
		[ "$old" = "$2" ] || rm -rf "$old"
	done
}

# Shapes real systems write (issue 43): E events of one format as k
# instances of a service over the same period (k = 1, 16, 256: their
# writers' --instances; ATF's: k processes traced in one session), the
# same dial9 recording five times over in one file (cat f f f f f:
# sub-streams over the same period) and as five paths, a dial9 uploader
# tree of 64 instances, and dial9 as its writer writes today (segments,
# gzip, a quiet thread).  Each beside the one source.  Then decoding on
# them, and the viewer.
shapes() {
	printf '%-30s %11s %16s %12s %9s %8s   %s\n' shape events "index s (range)" "events/s" "RSS MB" "B/event" \
		"beside one source"
	for f in "podtrace ptwrite 2000000" "syscall scwrite 4000000" "htdump htwrite 4000000" "dial9 d9write 4000000" \
		"atf atfwrite 90000 --kib"; do
		set -- $f
		fmt=$1 w=$2
		shift 2
		e=$* # (ATF's: about 90 MB of session, 4 M events)
		one=$(shape "$fmt-1" "$w" $e --seed 1)
		shape_row "$fmt, 1 source" "" "$one"
		base=$SHAPE
		[ "$fmt" != syscall ] || syscall_base=$SHAPE
		for k in 16 256; do
			fleet=$(shape "$fmt-$k" "$w" $e --seed 1 --instances "$k")
			[ "$fmt-$k" != dial9-256 ] || d9_256=$fleet
			[ "$fmt-$k" != podtrace-256 ] || pt_256=$fleet
			[ "$fmt-$k" != atf-256 ] || atf_256=$fleet
			if [ "$fmt" = dial9 ]; then
				shape_row "$fmt, $k instances (uploader)" "$base" "$fleet"
			elif [ "$fmt" = atf ]; then
				shape_row "$fmt, $k pids in a session" "$base" "$fleet"
			else
				shape_row "$fmt, $k instances" "$base" $(find "$fleet" -type f | sort)
			fi
		done
	done
	# one process forking 256 children in turn: streams in exit order, its own last
	forks=$(shape syscall-forks scwrite 4000000 --seed 1 --forks 256)
	shape_row "syscall, 256 forks in one file" "$syscall_base" "$forks"
	d9=$(shape dial9-1 d9write 4000000 --seed 1)
	cat5=$DIR/shape-dial9-cat5.${d9##*.}
	stale "$DIR/shape-dial9-cat5" "$cat5"
	[ -s "$cat5" ] || { cat "$d9" "$d9" "$d9" "$d9" "$d9" >"$cat5.part" && mv "$cat5.part" "$cat5"; }
	shape_row "dial9, one copy" "" "$d9"
	base=$SHAPE
	shape_row "dial9, 5 copies in one file" "$base" "$cat5"
	shape_row "dial9, 5 copies as 5 paths" "$base" "$d9" "$d9" "$d9" "$d9" "$d9"
	tree=$(shape dial9-64 d9write 4000000 --seed 1 --instances 64)
	shape_row "dial9, uploader tree, 64" "$base" "$tree"
	# as dial9's writer writes today: segments rotated (10 s here), sealed
	# with their symbols and gzipped, a quiet thread's batch drained late
	real=$(SHAPE_IN=trace.0.bin shape dial9-segments d9write 4000000 --seed 1 --rotate 10 --gzip --quiet)
	shape_row "dial9, segments, gzip, quiet" "$base" "$real"
	echo "index: ttv --stats (load, order, pair, count) of the paths; beside: this row's time and peak RSS"
	echo "per event against the one source's (the copies: against one copy, 5x the events)."
	for p in "$d9" "$d9_256" "$cat5"; do "$TTV_SAVED" --info "$p" >/dev/null; done
	for what in "field filter:-e spawn_loc:main\.rs --stats" "text filter:-e worker --stats" "dump:--dump" \
		"report:--report"; do
		SHAPE_RUN="$TTV_SAVED ${what#*:}"
		what=${what%%:*}
		shape_row "dial9, 1: $what" "" "$d9"
		base=$SHAPE
		shape_row "dial9, 256 inst.: $what" "$base" "$d9_256"
		shape_row "dial9, 5 in 1: $what" "$base" "$cat5"
	done
	SHAPE_RUN=
	echo "decoding (index saved): ttv OPTIONS --stats (filters), --dump, --report of the same paths; the copies"
	echo "beside the one source hold 5x its events."
	echo "viewer                                          median      (min-max)"
	first_screen "dial9, 1 source" "$d9"
	first_screen "dial9, 256 instances" "$d9_256"
	# reopened: the index --info saved above (each instance its part)
	ttv_fresh=$TTV TTV=$TTV_SAVED
	first_screen "dial9, 256 instances, reopened" "$d9_256"
	TTV="$TTV_SAVED -f"
	first_screen "dial9, 256 instances, reopened, -f" "$d9_256"
	TTV=$TTV_SAVED
	# an ATF session's threads stay sequences (1,024 here): every seek
	# searches each of them
	"$TTV_SAVED" --info "$atf_256" >/dev/null
	first_screen "atf, 256 pids in a session, reopened" "$atf_256"
	keys "keystroke to screen, atf, 256 pids in a session" "$atf_256"
	TTV=$ttv_fresh
	keys "keystroke to screen, dial9, 1 source" "$d9"
	keys "keystroke to screen, dial9, 256 instances" "$d9_256"
	# shellcheck disable=SC2046
	keys "keystroke to screen, podtrace, 256 instances" $(find "$pt_256" -type f | sort)
	view_load "dial9, 1 source" "$d9"
	view_load "dial9, 256 instances" "$d9_256"
	# shellcheck disable=SC2046
	view_load "podtrace, 256 instances" $(find "$pt_256" -type f | sort)
	view_load "atf, 256 pids in a session" "$atf_256"
	follow_rows
	echo
	# lnav on the same shapes (the events as ttv --dump prints them)
	for f in "dial9, 1 source:$d9" "dial9, 256 instances:$d9_256" "dial9, 5 copies in one file:$cat5"; do
		echo "side by side with lnav, ${f%%:*}"
		lnav_rows "${f#*:}.txt" 'main\.rs' "${f#*:}"
	done
	echo
}
# The viewer following one dial9 file and a 64-instance uploader tree.
follow_rows() {
	one=$DIR/follow-one
	mkdir -p "$one"
	ln -sf "$(shape dial9-1 d9write 4000000 --seed 1)" "$one/trace.bin"
	follow_fleet "follow: append to screen, dial9, 1 file" "$one"
	follow_fleet "follow: append to screen, uploader tree, 64" "$(shape dial9-64 d9write 4000000 --seed 1 --instances 64)"
}
# The filters that decode every event: a string field and the full text.
text_filter_rows() {
	PT10=$DIR/podtrace-10M.ptrace
	[ -s "$PT10" ] || "$TBIN/ptwrite" --generate 10000000 --seed 1 "$PT10"
	cat_all "$PT10"
	filter_time "filter, string field, podtrace 10M" "$PT10" 'target:example\.com'
	filter_time "filter, full text, podtrace 10M" "$PT10" 'example\.com'
}
case ${TTV_BENCH_ONLY:-} in
shapes) shapes; exit 0 ;;
follow) follow_rows; exit 0 ;;
filters) text_filter_rows; exit 0 ;;
esac

printf '%-22s %9s %11s %16s %12s %9s %10s %7s %14s %7s %9s %8s\n' \
	format MB events "decode s (range)" "events/s" "MB/s" "decoder s" "model" "cat s (range)" "vs cat" "RSS MB" \
	"B/event"

# Streaming formats: 30M events each, as their writers generate them.
PT=$DIR/podtrace-30M.ptrace
[ -s "$PT" ] || "$TBIN/ptwrite" --generate 30000000 --seed 1 "$PT"
row podtrace "$PT"
SC=$DIR/syscall-30M.sc
[ -s "$SC" ] || "$TBIN/scwrite" --generate 30000000 --seed 1 "$SC"
row syscall "$SC"
HT=$DIR/htdump-30M.htdump
[ -s "$HT" ] || "$TBIN/htwrite" --generate 30000000 --seed 1 "$HT"
row htdump "$HT"
# dial9: 4 workers' ~1 MiB batches (overlapping in time) and the flush
# thread's CPU samples with pooled stacks, as the tokio telemetry writes them
D9=$DIR/dial9-30M.bin
[ -s "$D9" ] || "$TBIN/d9write" --generate 30000000 --seed 1 "$D9"
row dial9 "$D9"
# ATF: a generated session directory (the manifest is written last)
ATF=$DIR/atf-1024mb
[ -s "$ATF/manifest.json" ] || "$TBIN/atfwrite" --generate 1024 --seed 1 "$ATF"
row "atf session" "$ATF"
first_row "atf first --dump line" "$ATF"
# 100M events: dial9, the densest format (12 bytes an event on disk)
D9H=$DIR/dial9-100M.bin
[ -s "$D9H" ] || "$TBIN/d9write" --generate 100000000 --seed 1 "$D9H"
row "dial9 100M" "$D9H"
# A billion dial9 events (12.7 GB): more index (28 GB) than this machine's
# memory budget (half the RAM), so most of it goes to a file (--memory).  One
# run: it takes minutes.  Needs the trace and the index on disk.
D9B=$DIR/dial9-1000M.bin
free_gb=$(df -Pk "$DIR" | awk 'NR == 2 { print int($4 / 1048576) }')
if [ -s "$D9B" ] || [ "$free_gb" -ge 50 ]; then
	[ -s "$D9B" ] || "$TBIN/d9write" --generate 1000000000 --seed 1 "$D9B"
	RUNS_SAVED=$RUNS RUNS=1
	row "dial9 1000M" "$D9B"
	RUNS=$RUNS_SAVED
else
	echo "(dial9 1000M skipped: it needs 50 GB free in $DIR, there are $free_gb)"
fi
echo
echo "decode: ttv --stats FILE (load, order, pair, count); vs cat: cat time / decode time;"
echo "RSS: peak resident memory of ttv --stats; B/event: that RSS per event.  Traces in $DIR."
echo "first --dump line: time until ttv --dump has written its first line, and its peak RSS."
echo

echo "viewer                                          median      (min-max)"
for f in "podtrace 30M:$PT" "syscall 30M:$SC" "htdump 30M:$HT" "dial9 30M:$D9" "atf 1 GB:$ATF"; do
	first_screen "${f%%:*}" "${f#*:}"
done
for f in "podtrace 30M:$PT" "syscall 30M:$SC" "htdump 30M:$HT" "dial9 30M:$D9"; do
	view_load "${f%%:*}" "${f#*:}"
done
keys "keystroke to screen, podtrace 30M" "$PT"
first_screen "dial9 100M" "$D9H"
keys "keystroke to screen, dial9 100M" "$D9H"
filter_time "filter, type, dial9 100M" "$D9H" 'type:PollStart'
if [ -s "$D9B" ]; then
	RUNS_SAVED=$RUNS RUNS=1
	first_screen "dial9 1000M" "$D9B"
	keys "keystroke to screen, dial9 1000M" "$D9B"
	LOADED=1
	filter_time "filter, type, dial9 1000M, loaded" "$D9B" 'type:PollStart'
	LOADED=
	RUNS=$RUNS_SAVED
fi
filter_time "filter, decoded field, dial9 30M" "$D9" 'local_queue:^57$'
text_filter_rows
follow_latency "follow: append to screen, podtrace"
echo "first screen: ttv FILE on a script(1) pty, from main() to the first screen drawn (TTV_QUIT_AT_FIRST_SCREEN)."
echo "keystroke: TTV_SCRIPT session, each key handled and the screen drawn (120x40)."
echo "filter: TTV_SCRIPT, Enter on the filter prompt until the screen is drawn, all events filtered."
echo "load in the viewer: TTV_SCRIPT \"q\", the whole run (its 15 ms loading steps, then q)."
echo

# info_row NAME TTV FILE [MODE]: `TTV MODE FILE` (MODE --info unless
# given) RUNS times, one row.
info_row() {
	: >"$TMP_R"
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_cmd "$TMP_R" "$2" "${4:---info}" "$3"
		i=$((i + 1))
	done
	msrow "$1" $(awk '{ printf "%.0f\n", $1 * 1e9 }' "$TMP_R" | stats3)
}

# reopen NAME FILE [afresh]: `ttv --info FILE` and the viewer's first screen,
# FILE reopened from the index the run before saved; with "afresh", its
# --info without the saved index first.
reopen() {
	name=$1 file=$2
	[ "${3-}" != afresh ] || info_row "afresh, --info, $name" "$TTV" "$file"
	"$TTV_SAVED" --info "$file" >/dev/null 2>&1 || true
	info_row "reopen, --info, $name" "$TTV_SAVED" "$file"
	ttv_fresh=$TTV TTV=$TTV_SAVED
	first_screen "reopen, $name" "$file"
	TTV=$ttv_fresh
}
# quit NAME FILE: the viewer (in tmux, saving indexes) reads FILE afresh and
# saves its index meanwhile (src/trace_saved.c trace_save_begin); once the
# index is there, q: the time from q to the shell.  Beside it, the time
# from start to the index written.
quit() {
	command -v tmux >/dev/null 2>&1 || { echo "(quit, $1: tmux is not installed)"; return; }
	name=$1 file=$2 end=$(mktemp)
	: >"$TMP_R"; : >"$TMP_C"
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -rf "$SAVED_DIR/ttv"; : >"$end"
		t0=$(date +%s%N)
		tmux -L ttv-bench new-session -d -s q -x 120 -y 40 "'$TTV_SAVED' '$file'; date +%s%N >'$end'; sleep 60"
		until find "$SAVED_DIR/ttv" -name 'index-*' ! -name 'index-*.*' 2>/dev/null | grep -q .; do sleep 0.01; done
		echo $(($(date +%s%N) - t0)) >>"$TMP_C"
		sleep 0.5
		t1=$(date +%s%N)
		tmux -L ttv-bench send-keys -t q q
		until [ -s "$end" ]; do sleep 0.005; done
		echo $(($(cat "$end") - t1)) >>"$TMP_R"
		tmux -L ttv-bench kill-server 2>/dev/null
		i=$((i + 1))
	done
	msrow "quit (q) once the index is saved, $name" $(stats3 <"$TMP_R")
	msrow "... start to index saved, $name" $(stats3 <"$TMP_C")
	rm -f "$end"
}
echo "saved index                                     median      (min-max)"
quit "dial9 100M" "$D9H"
reopen "podtrace 30M" "$PT"
reopen "dial9 100M" "$D9H"
D9GZ=$DIR/dial9-30M.bin.gz
[ -s "$D9GZ" ] || gzip -1 -c "$D9" >"$D9GZ"
reopen "dial9 30M, gzip" "$D9GZ" afresh
reopen "atf 1 GB" "$ATF" afresh
echo "quit: the viewer saves a trace's index while it is used; q waits only for what is left of that."
echo "reopen: ttv FILE again, the index saved by the run before read back (src/saved.h);"
echo "a gzip file's index holds its inflated contents."
echo

# Bytes written to the terminal (t/termbytes.sh: a tmux pane, pipe-pane):
# a line move and a page in the list, a batch appended while following;
# less on the same events as text beside them.
bytes_rows() {
	command -v tmux >/dev/null 2>&1 || { echo "(terminal bytes skipped: tmux is not installed)"; return; }
	d9=$ROOT/t/samples/dial9/upstream_demo-trace_2026-03-19_seedera.bin.gz
	txt=$(mktemp) live=$(mktemp) rec=$(mktemp)
	"$TTV" --dump "$d9" >"$txt"
	echo "V4 ts=999999999999999 pid=4242 type=0 latency=1000 comm=appender target=late.example" | "$TBIN/ptwrite" "$rec"
	for size in 80x24 200x50; do
		KEYS=Tab "$ROOT/t/termbytes.sh" "$size" "$TTV" "$d9" >"$TMP_R"
		"$ROOT/t/termbytes.sh" "$size" less "$txt" >"$TMP_C"
		for k in line page; do
			awk -v k=$k -v s=$size '$1 == k { printf "%-44s %9d B   (%d-%d)", k " " (k == "line" ? "move (j)" : "(Space)") ", list, " s, $2, $3, $4 }' "$TMP_R"
			awk -v k=$k '$1 == k { printf "   less %d B\n", $2 }' "$TMP_C"
		done
		"$TBIN/ptwrite" --generate 138543 --seed 2 "$live"
		FOLLOW=$live:$rec "$ROOT/t/termbytes.sh" "$size" "$TTV" -f "$live" >"$TMP_R"
		awk -v s=$size '$1 == "follow" { printf "%-44s %9d B   (%d-%d)\n", "follow, one record appended, " s, $2, $3, $4 }' "$TMP_R"
	done
	rm -f "$txt" "$live" "$rec"
}
# sql_row NAME FILE QUERY: `ttv --sql QUERY FILE`, its index saved by the
# run before (what is timed is the query and a reopen), RUNS times.
sql_row() {
	"$TTV_SAVED" --info "$2" >/dev/null 2>&1 || true
	: >"$TMP_R"
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_cmd "$TMP_R" "$TTV_SAVED" --sql "$3" "$2"
		i=$((i + 1))
	done
	msrow "$1" $(awk '{ printf "%.0f\n", $1 * 1e9 }' "$TMP_R" | stats3)
}
echo "sql                                             median      (min-max)"
sql_row "sql, GROUP BY type, dial9 10M" "$D9" \
	"SELECT type, count(*), sum(dur) FROM events WHERE id < 10000000 GROUP BY type"
mid=$("$TTV_SAVED" --sql "SELECT ts FROM events WHERE id = 50000000" --csv "$D9H" | tail -1)
sql_row "sql, 1 ms of ts (BETWEEN), dial9 100M" "$D9H" \
	"SELECT count(*), sum(dur) FROM events WHERE ts BETWEEN $mid AND $((mid + 1000000))"
sql_row "sql, full scan, count and sum, dial9 100M" "$D9H" "SELECT count(*), sum(dur) FROM events"
echo "sql: ttv --sql QUERY FILE, the trace's index saved before (its reopen is in the time)."
echo

echo "terminal bytes                                  median      (min-max)"
bytes_rows
echo "the bytes the viewer writes to its terminal (xterm-256color) for a key or an append, on the"
echo "138,543-event dial9 sample (t/termbytes.sh); less on the same events as --dump text."
echo

echo "where the time went                              median      (min-max)"
info_row "--info, htdump 30M" "$TTV" "$HT"
info_row "--report, htdump 30M (29.5 M spans)" "$TTV" "$HT" --report
echo "--report: the --info load, then the call tree of every span (src/calltree.h)."
echo

shapes

PT5=$DIR/podtrace-5M.ptrace
[ -s "$PT5" ] || "$TBIN/ptwrite" --generate 5000000 --seed 1 "$PT5"
echo "side by side with lnav, podtrace 5M"
lnav_rows "${PT5%.ptrace}.txt" 'example\.com' "$PT5"
echo
echo "memory: $("$TBIN/pagetouch" 1024)"
echo "(a loader that stores N bytes per event in fresh memory cannot pass first-touch rate / N events/s)"
