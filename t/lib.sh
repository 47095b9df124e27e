# Shared helpers for the shell tests (TAP), which live in t/SUBJECT/ with
# their expected screens in t/SUBJECT/screens/.  Source it from a .t file:
#   . "$(dirname "$0")/../lib.sh"
# Environment: TTV_BUILD selects the build directory (default: build), so the
# same tests run against the sanitizer build.

set -u
HERE=$(cd "$(dirname "$0")" && pwd) # (the test's subject)
T_DIR=$(cd "$HERE/.." && pwd)
ROOT=$(cd "$T_DIR/.." && pwd)
BUILD=${TTV_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TTV=$BUILD/ttv
TBIN=$BUILD/t
SAMPLES=$T_DIR/samples
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ttv-test.XXXXXX")
# Whatever the test starts (ttv, tmux servers, writers, servers) inherits
# this tag; on exit, on every path, what still runs with it is stopped.
export TTV_TEST_TAG="$TMP"
# A sanitizer build's reports go to files here, from every process the test
# starts, whatever becomes of its exit status or its stderr: a test after
# which there is one fails, and shows it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$TMP/sanitizer"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$TMP/sanitizer:halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$TMP/sanitizer"
sanitizer_reports() {
	for f in "$TMP"/sanitizer.*; do
		[ -e "$f" ] || continue
		echo "# a sanitizer report ($f):"
		sed 's/^/#   /' "$f" | head -40
		_san=1
	done
}
# (A test that left anything running, or after which a sanitizer reported, fails.)
trap 'sanitizer_reports; "$T_DIR/leftovers.sh" "TTV_TEST_TAG=$TMP" || _left=1; rm -rf "$TMP"; [ -z "${_left:-}${_san:-}" ] || exit 1' EXIT
export NO_COLOR=1 LC_ALL=C.UTF-8
# never read or write the user's own configuration, history and cache (saved
# indexes)
export XDG_CONFIG_HOME=$TMP/config XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache

_n=0
_failed=0

ok() { # ok COND-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _failed=$((_failed + 1)); fi
}
fail() { ok 1 "$1"; } # fail DESCRIPTION: a test that failed (a precondition of later ones)

is() { # is GOT WANT DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		printf '#   got: %s\n#  want: %s\n' "$1" "$2" | head -20
		_failed=$((_failed + 1))
	fi
}

same_file() { # same_file GOT-FILE WANT-FILE DESCRIPTION (large outputs: no shell strings)
	if cmp -s "$1" "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diff "$2" "$1" | head -20 | sed 's/^/#   /'
	fi
}
like() { # like TEXT EXTENDED-REGEX DESCRIPTION
	_n=$((_n + 1))
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		printf '#   text: %s\n#   want: /%s/\n' "$(printf '%s' "$1" | head -c 600)" "$2"
		_failed=$((_failed + 1))
	fi
}

unlike() { # unlike TEXT EXTENDED-REGEX DESCRIPTION
	_n=$((_n + 1))
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		echo "not ok $_n - $3"
		printf '#   text: %s\n#   did not want: /%s/\n' "$(printf '%s' "$1" | head -c 600)" "$2"
		_failed=$((_failed + 1))
	else
		echo "ok $_n - $3"
	fi
}

# tmux: tm runs tmux on the test's own server ($S, TMUX_TMPDIR=$TMP),
# screen prints its pane, wait_for TEXT [TENTHS] polls the pane for TEXT
# (by default up to 10 s: a loaded machine).
export TMUX_TMPDIR=$TMP
tm() { tmux -L "$S" "$@"; }
screen() { tm capture-pane -p -t "$S"; }
wait_for() {
	i=0
	while [ $i -lt "${2:-100}" ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# quits DESCRIPTION: q ends the viewer in session $S with status 0 (the
# session's shell says exit=0); then its tmux server goes
quits() {
	tm send-keys -t "$S" q
	wait_for "exit=0"
	ok $? "$1"
	tm kill-server 2>/dev/null
}

# status_like REGEX DESCRIPTION: the pane's last line comes to match REGEX
# (ERE; polled for up to 5 s: a key's effect shows when it is drawn)
status_like() {
	_i=0
	while [ $_i -lt 50 ] && ! screen | tail -1 | grep -qE -- "$1"; do
		sleep 0.1
		_i=$((_i + 1))
	done
	like "$(screen | tail -1)" "$1" "$2"
}

# scenario NAME [TTV-ARGS...] < SCRIPT: the viewer runs the script (TTV_SCRIPT,
# ui/ui.h; run in $TMP, at $SIZE), then its screen is compared with
# screens/NAME.txt beside the test (TTV_UPDATE_SCREENS=1 rewrites them) and left in SCREEN;
# SCREEN_MASK, a sed -E script, blots out in both what differs run to run
scenario() {
	name=$1; shift
	{ cat; echo "dump $TMP/$name.txt"; } >"$TMP/$name.script"
	(cd "$TMP" && TTV_SCRIPT=$TMP/$name.script TTV_SIZE=${SIZE:-80x24} "$TTV" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err")
	rc=$?
	sed -E "${SCREEN_MASK:-}" "$TMP/$name.txt" >"$TMP/$name.cmp"
	if [ -n "${TTV_UPDATE_SCREENS:-}" ]; then cp "$TMP/$name.cmp" "$HERE/screens/$name.txt"; fi
	if diff -u "$HERE/screens/$name.txt" "$TMP/$name.cmp" >"$TMP/$name.diff" 2>&1; then
		ok 0 "screen $name"
	else
		ok 1 "screen $name"
		sed 's/^/# /' "$TMP/$name.diff" | head -40
	fi
	SCREEN=$(cat "$TMP/$name.txt")
}

# session COLSxLINES COMMAND: a tmux session ($S) running the shell command
# line, which then says "exit=STATUS" and stays 30 s to be read.
session() {
	# (a server just told to go may still be going: a session made on its
	# socket now would go with it)
	i=0
	while tm ls >/dev/null 2>&1 && [ $i -lt 50 ]; do
		[ $i -eq 0 ] && tm kill-server 2>/dev/null
		sleep 0.1
		i=$((i + 1))
	done
	tm new-session -d -s "$S" -x "${1%x*}" -y "${1#*x}" "$2; echo \"exit=\$?\"; sleep 30"
}

# Run ttv, capturing stdout, stderr and status in OUT, ERR, RC.
run() {
	OUT=$("$TTV" "$@" 2>"$TMP/stderr")
	RC=$?
	ERR=$(cat "$TMP/stderr")
}

# Run a command that prints TAP and fold its results into this test's plan.
tap_run() {
	"$@" >"$TMP/tap.out" 2>&1
	_rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok * - }" ;;
		"not ok "*) ok 1 "${line#not ok * - }" ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done <"$TMP/tap.out"
	ok "$_rc" "$(basename "$1") exits 0"
}

# The formats table (t/formats/table): a test that runs over every format loops
# over `formats` and reads each row's cells, so it covers a new row too.
FORMATS=$T_DIR/formats/table
formats() { # the names, one a line
	awk '!/^#/ && NF && n++ { print $1 } END { exit n < 2 }' "$FORMATS" || : >"$TMP/no-formats"
}
format_field() { # NAME COLUMN: one cell (COLUMN as named in the first row)
	awk -v name="$1" -v col="$2" '
		/^#/ || !NF { next }
		!c { for (i = 1; i <= NF; i++) if ($i == col) c = i; if (!c) exit; next }
		$1 == name { print $c; found = 1; exit }
		END { if (!found) { print "t/formats/table: no " col " for " name >"/dev/stderr"; exit 1 } }' "$FORMATS"
}
sample() { # NAME: the path of the format's shared sample as plain bytes
	_s=$SAMPLES/$(format_field "$1" sample) || return 1
	case $_s in
	*.gz) gzip -dc "$_s" >"$TMP/sample.$1" && echo "$TMP/sample.$1" ;;
	*) echo "$_s" ;;
	esac
}

# generate NAME BYTES SEED OUT: a trace of about BYTES (at least one unit)
# in format NAME, by its writer's --generate (t/formats/table: writer, unit)
generate() {
	_w=$(format_field "$1" writer) && _u=$(format_field "$1" unit) || return 1
	_k=$(($2 / _u))
	if [ "$_k" = 0 ] && [ "$_w" = atfwrite ]; then # (it counts KiB too)
		"$TBIN/$_w" --generate $(($2 / 1024)) --kib --seed "$3" "$4"
		return
	fi
	"$TBIN/$_w" --generate $((_k ? _k : 1)) --seed "$3" "$4"
}

# fleet WRITER SEED OUT: five instances of WRITER's --generate over one
# period (ATF's: a session of five processes); prints their paths
fleet() {
	_u=20000
	[ "$1" != atfwrite ] || _u="60 --kib"
	"$TBIN/$1" --generate $_u --seed "$2" --instances 5 "$3" >/dev/null && fleet_paths "$1" "$3"
}
fleet_paths() { # WRITER DIR: the paths to give ttv (the directory where the format reads one)
	case $1 in
	d9write | atfwrite) echo "$2" ;;
	*) find "$2" -type f | sort | xargs ;;
	esac
}

# every_format LIST DESCRIPTION: LIST (format names, in any order, repeats
# allowed) is every format of the table.  A test that keeps a fixture per
# format checks with it that a new row did not go without one.
every_format() {
	# shellcheck disable=SC2086
	is "$(printf '%s\n' $1 | sort -u | xargs)" "$(formats | sort | xargs)" "$2"
}

# A file being written by a ttv in the background (--dump -f X >F.out 2>F.err)
lines() { cat "$1" 2>/dev/null | wc -l | tr -d ' '; } # (0 before the file is made)
wait_lines() { # F.out N: until it has N lines (at most 20 s: a loaded machine); prints how many
	i=0
	while [ "$(lines "$1")" -lt "$2" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(lines "$1")" -ge "$2" ] || sed 's/^/# /' "$1" "${1%.out}.err" >&2
	lines "$1"
}

# Count lines matching a fixed string.
count() { printf '%s\n' "$1" | grep -cF -- "$2"; }

done_testing() {
	# (a loop over an empty or unreadable table would have passed)
	[ ! -e "$TMP/no-formats" ] || ok 1 "$FORMATS lists the formats"
	echo "1..$_n"
	[ "$_failed" = 0 ]
}
