#!/bin/sh
# Run the libFuzzer targets (make fuzz).
#
#   t/fuzz/run.sh BUILD SECONDS TARGET...
#
# Each target runs for SECONDS on its corpus (BUILD/corpus/TARGET, kept
# between runs) seeded from BUILD/seeds/TARGET (t/fuzz/seeds.sh).  FUZZ_RUNS=N
# stops a target after N executions instead; FUZZ_JOBS=N runs N processes
# per target.  Crashes, leaks and hangs are written to BUILD/artifacts/TARGET/;
# keep each one (fixed) as a regression input in t/fuzz/regress/TARGET/.
# Prints the executions per target; exits 1 if any target found something.
set -u
BUILD=$1
SECONDS_EACH=$2
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
for t in "$@"; do # (a target newer than the seeds made: made again)
	[ -d "$BUILD/seeds/$t" ] || rm -rf "$BUILD/seeds"
done
[ ! t/fuzz/seeds.sh -nt "$BUILD/seeds" ] || rm -rf "$BUILD/seeds" # (the seeds changed)
if [ ! -d "$BUILD/seeds" ]; then
	t/fuzz/seeds.sh build/t "$BUILD/seeds.tmp" && mv "$BUILD/seeds.tmp" "$BUILD/seeds" || exit 1
fi
status=0
summary=""
for t in "$@"; do
	case $t in
	atf) max=16384 ;;
	keymap | theme | query) max=4096 ;;
	*) max=8192 ;;
	esac
	mkdir -p "$BUILD/corpus/$t" "$BUILD/artifacts/$t"
	log=$BUILD/fuzz-$t.log
	limit="-max_total_time=$SECONDS_EACH"
	[ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
	jobs=""
	[ -n "${FUZZ_JOBS:-}" ] && jobs="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
	dict=""
	[ -f "t/fuzz/$t.dict" ] && dict="-dict=t/fuzz/$t.dict"
	echo "fuzz: $t ($limit)"
	# leaks are checked (a leak is a finding); each input must finish in 10 s
	"$BUILD/fuzz/$t" $limit $jobs $dict -max_len=$max -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t/" \
		"$BUILD/corpus/$t" "$BUILD/seeds/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
	if [ -n "$jobs" ]; then
		runs=$(cat fuzz-*.log 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
		cat fuzz-*.log >>"$log" 2>/dev/null
		rm -f fuzz-*.log
	fi
	found=$(ls "$BUILD/artifacts/$t" | wc -l)
	line="$t: $runs executions, $found finding(s), exit $rc"
	echo "fuzz: $line"
	summary="$summary$line
"
	if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
		status=1
		grep -m1 -A12 'ERROR\|runtime error\|deadly signal\|timeout\|fuzz:' "$log" | sed 's/^/  /'
	fi
done
printf '\n%s' "$summary"
exit $status
