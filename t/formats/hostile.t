#!/bin/sh
# Hostile content: escape sequences (CSI, OSC), C0 and C1 controls (raw and
# UTF-8 encoded), bidi overrides and isolates, invalid UTF-8 and DEL in the
# string fields of every format.  Every batch mode (--dump, --json, --info,
# --stats, --report, text and JSON, --export folded) and every viewer page (lanes, list, detail, info)
# is scanned: valid UTF-8, no control character but tab and newline, no bidi
# control.  And the hostile text is there, escaped, so the scan is not empty.
# The traces are written for each format; the end checks that every format of
# t/formats/table has one.
. "$(dirname "$0")/../lib.sh"

# The hostile string (writer escapes; punctuation the spec syntaxes use is escaped too)
H='\x1b[2J\x1b]0\x3bt\x07\xc2\x9b31m\x9b\xe2\x80\xae\xe2\x81\xa6\xff\xfe\x7f\x01\x0d\x08end'
# ... and how every text output shows it (a regex; the last event of each trace has it)
SHOWN='\\x1b\[2J\\x1b\]0;t\\x07\\u009b31m\\x9b\\u202e\\u2066\\xff\\xfe\\x7f\\x01\\r\\x08end'

# rawscan FILE...: prints what is wrong with each, exits 1 if anything is
rawscan() {
	perl -MEncode -e '
		my $bad = 0;
		for my $f (@ARGV) {
			open(my $h, "<:raw", $f) or die "$f: $!";
			local $/;
			my $d = <$h> // "";
			my $s = eval { Encode::decode("UTF-8", $d, Encode::FB_CROAK) };
			if (!defined $s) { print "# $f: invalid UTF-8\n"; $bad = 1; next }
			if ($s =~ /([\x00-\x08\x0b-\x1f\x7f-\x9f\x{061c}\x{200e}\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}])/) {
				my ($c, $at) = (ord($1), $-[0]);
				my $near = substr($s, $at > 20 ? $at - 20 : 0, 40) =~ s/[^\x20-\x7e]/?/gr;
				printf "# %s: raw U+%04X at character %d, near: %s\n", $f, $c, $at, $near;
				$bad = 1;
			}
		}
		exit $bad' "$@"
}

ran="" # the formats scanned
# outputs NAME FORMAT TRACE: every batch mode and viewer page into $TMP/NAME.*
outputs() {
	name=$1 fmt=$2 trace=$3
	ran="$ran $fmt"
	for mode in "--dump" "--dump --json" "--info" "--info --json" "--stats" "--stats --json" "--report" \
		"--report --json" "--export folded" "--export speedscope"; do
		# shellcheck disable=SC2086
		"$TTV" --format "$fmt" $mode "$trace" >"$TMP/$name.$(echo $mode | tr -d ' -')" 2>>"$TMP/$name.stderr"
	done
	printf 'End\ndump %s\nTab\ndump %s\nEnter\ndump %s\nq\n=\ndump %s\n' \
		"$TMP/$name.lanes" "$TMP/$name.list" "$TMP/$name.detail" "$TMP/$name.infopage" >"$TMP/$name.script"
	TTV_SCRIPT=$TMP/$name.script TTV_SIZE=200x50 "$TTV" --format "$fmt" "$trace" >"$TMP/$name.viewer" 2>>"$TMP/$name.stderr"
	rawscan "$TMP/$name".*
	ok $? "$name: no raw control byte or bidi control in any output"
	like "$(cat "$TMP/$name.dump")" "$SHOWN" "$name: --dump shows the hostile string escaped"
	like "$(cat "$TMP/$name.dumpjson")" '\\u001b\[2J\\u001b\]0;t\\u0007\\u009b31m' "$name: --json escapes it"
	like "$(cat "$TMP/$name.list")" "$SHOWN" "$name: the list view shows it escaped"
	like "$(cat "$TMP/$name.detail")" '\\x1b\[2J' "$name: the detail view shows it escaped"
}

"$TBIN/ptwrite" "$TMP/h.pt" <<SPEC
V1 ts=10 pid=1 type=0 target=$H
V2 ts=5 pid=2 type=30 old=$H new=$H cgroup=3
V3 ts=30 pid=1 type=21 comm=$H target=$H bytes=4
V4 ts=40 pid=3 type=25 error=93 comm=$H details=$H
V4 ts=50 pid=3 type=1 error=-111 comm=$H target=$H
SPEC
outputs podtrace podtrace "$TMP/h.pt"

"$TBIN/scwrite" "$TMP/h.sc" <<SPEC
header tid=77 mono=1000 uname=$H
sc nr=4 ts=2000 dur=10 data=$H stat=0100644:42:7
sc nr=1 ret=5 ts=3000 dur=10 int=1 data=$H int=5
sc nr=2 ret=-2 ts=4000 dur=10 data=$H int=0
SPEC
outputs syscall syscall "$TMP/h.sc"

"$TBIN/htwrite" "$TMP/h.ht" <<SPEC
stream
class id=9 name=C$H s:str n$H:u32
event klass=9 ts=100 s=$H n$H=7
map ts=150 ident=5 label=$H
cs ts=200 dur=7 tid=2 ilabel=5
cs ts=100000 dur=7 tid=2 label=$H
SPEC
outputs htdump htdump "$TMP/h.ht"

"$TBIN/d9write" "$TMP/h.d9" <<SPEC
header
strpool 0=$H
schema id=2 name=E$H fields=s:string,p:pstr,f$H:varint
annot id=2 0.unit=$H
event id=2 ts=1000 s=$H p=0 f$H=1
schema id=3 name=CpuSampleEvent fields=worker_id:varint,tid:u32,source:u8,thread_name:opt-pstr,callchain:pstack,cpu:opt-varint
stackpool 0=0x5555550000
event id=3 ts=2000 worker_id=1 tid=7 thread_name=0 callchain=0
SPEC
outputs dial9 dial9 "$TMP/h.d9"

mkdir -p "$TMP/atf"
"$TBIN/atfwrite" "$TMP/atf" <<SPEC
manifest
module id=1054843105 path=/A$H
symbol fid=0x3edfa0e100000001 name=$H
thread 0 crc=ok
I ts=1000 fid=0x3edfa0e100000001 kind=1 depth=1
C ts=1005 fid=0x3edfa0e100000001 kind=1 depth=1 tid=4001 x0=0x11 sp=0x7fe0
I ts=1500 fid=0x3edfa0e100000001 kind=2 depth=1
detail crc=ok
SPEC
outputs atf atf "$TMP/atf"
every_format "$ran" "hostile strings in a trace of every format"

# the messages about damage name trace strings too
rawscan "$TMP"/*.stderr
ok $? "no raw control byte in any message"

# Hostile times: the extremes of the time range (u64 times reading as
# negative), long durations; the viewer zooms, pans and fits over them and
# every mode prints them (no overflow: the sanitizer build checks).
"$TBIN/ptwrite" "$TMP/times.pt" <<'SPEC'
V4 ts=0 pid=1 type=0 latency=18446744073709551615 target=a
V4 ts=9223372036854775807 pid=1 type=1 latency=9223372036854775807 target=b
V4 ts=9223372036854775808 pid=2 type=5 latency=1 target=c
V4 ts=18446744073709551615 pid=2 type=6 latency=18446744073709551615 target=d
V4 ts=1000 pid=3 type=18 latency=5 target=e
SPEC
for mode in "--dump" "--dump --json" "--info" "--stats" "--stats --json" "--report" "--export folded"; do
	# shellcheck disable=SC2086
	"$TTV" $mode "$TMP/times.pt" >"$TMP/times.out" 2>&1
	rc=$?
	ok $((rc != 0 && rc != 3)) "extreme times: $mode exits 0 or 3 (got $rc)"
done
"$TTV" --dump "$TMP/times.pt" >"$TMP/times.out" 2>&1
# (each at its start, timestamp - latency, held within the int64 range)
like "$(cat "$TMP/times.out")" '^\+0\.000000000	pid 1	DNS.*
\+9223372036\.854775808	pid 1	CONNECT.*
\+9223372036\.854775808	pid 2	FSYNC.*
\+9223372036\.854776803	pid 3	DB_QUERY.*
\+18446744073\.709551615	pid 2	READ' "extreme times: relative times are exact"
{ # every event: select it (list), span-zoom it, zoom in to 1 ns a column, out again, pan;
  # move between spans, mark a time range (keys, a drag) and keep it, fold
	for i in 1 2 3 4 5; do
		printf 'Tab\nj\nTab\nz\n'
		for j in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32; do printf '+\n'; done
		printf 'h\nl\nl\nZ\n-\n-\n-\n-\nh\nh\nl\n'
		printf 'Left\nRight\nUp\nDown\n{\n}\n|\nEscape\ndrag 3 10 60\n|\nc\nC\nC\nR\n'
	done
	printf 'g\nz\nEnd\nz\nEnter\nq\n=\nq\ndump %s\n' "$TMP/times.screen"
} >"$TMP/times.keys"
(cd "$TMP" && TTV_SCRIPT=$TMP/times.keys TTV_SIZE=100x30 "$TTV" times.pt >/dev/null 2>"$TMP/times.err")
rc=$?
ok $((rc != 0 && rc != 3)) "extreme times: the viewer zooms and pans, exits 0 or 3 (got $rc)"
done_testing
