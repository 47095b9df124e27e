#!/bin/sh
# --report and --export folded against an independent reckoning from
# --dump --json (t/nest.pl: each lane's spans sorted by start and nested
# with a stack, where ttv nests them in time order as they come): per name
# and type its calls, total (a call inside a call of the same name not
# counted again), self, least, greatest and mean time, and the self time
# of every call path.  Traces of every format's writer, the
# real samples, with and without a filter; --sort; usage errors.
. "$(dirname "$0")/../lib.sh"

FROM_REPORT='
use strict; use warnings; use JSON::XS;
my @r = map { decode_json($_) } <STDIN>;
print "$_\n" for sort map { "$_->{name}\t$_->{type}\t" . ($_->{category} // "") . " $_->{calls} $_->{total} $_->{self} $_->{min} $_->{max} $_->{mean}" } @r;
'
FROM_FOLDED='
my %p;
while (<STDIN>) { /^(.*) (\d+)$/ or die "bad line: $_"; $p{$1} += $2 }
print "path $_ $p{$_}\n" for sort keys %p;
'

# check TRACE WHAT [FILTER]
check() {
	want=$("$TTV" --dump --json ${3:+-e "$3"} "$1" 2>/dev/null | perl "$T_DIR/nest.pl")
	got=$("$TTV" --report --json ${3:+-e "$3"} "$1" 2>/dev/null | perl -e "$FROM_REPORT")
	[ -n "$got" ] || fail "$2: spans to report"
	is "$got" "$(printf '%s\n' "$want" | grep -v '^path ')" "$2: --report as reckoned apart"
	got=$("$TTV" --export folded ${3:+-e "$3"} "$1" 2>/dev/null | perl -e "$FROM_FOLDED")
	is "$got" "$(printf '%s\n' "$want" | grep '^path ')" "$2: --export folded as reckoned apart"
}

"$TBIN/htwrite" --generate 8000 --seed 5 "$TMP/g.ht" || exit 1
"$TBIN/d9write" --generate 8000 --seed 5 "$TMP/g.bin" || exit 1
"$TBIN/ptwrite" --generate 8000 --seed 5 "$TMP/g.pt" || exit 1
"$TBIN/scwrite" --generate 8000 --seed 5 "$TMP/g.sc" || exit 1
"$TBIN/atfwrite" --generate 1 --seed 5 "$TMP/g.atf" || exit 1

check "$TMP/g.ht" "HTDUMP: 16 threads of nested scopes"
check "$TMP/g.ht" "HTDUMP, one thread" "lane:^thread 3$"
check "$TMP/g.bin" "dial9: polls and tracing spans"
check "$TMP/g.bin" "dial9, polls only" "type:Poll"
check "$TMP/g.atf" "ATF: calls of four threads (recursion among them)"
check "$TMP/g.atf" "ATF, one function (a pair in when either end is)" "bench_fn_1[0-9]\\b"
GROUPED=1 check "$TMP/g.pt" "podtrace: duration events, by type, then target"
GROUPED=1 check "$TMP/g.sc" "syscall capture: syscalls, by syscall, then path"
check "$SAMPLES/htdump/small.htdump" "HTDUMP sample"
check "$SAMPLES/atf/small_finalized" "ATF sample"
check "$SAMPLES/atf/crash_sigkill" "ATF sample a crash left"
check "$SAMPLES/dial9/upstream_block_in_place_2026-05-21.bin.gz" "dial9 sample"

# the table: as the JSON, sorted as asked
run --report "$TMP/g.atf"
is "$RC" 0 "--report: exit 0"
like "$(printf '%s\n' "$OUT" | head -1)" '^ +total +self +calls +min +max +mean +name' "--report: a header"
like "$(printf '%s\n' "$OUT" | sed -n 2p)" '^ +[0-9.]+m?s .* main  \(CALL\)$' "--report: the outermost function first"
order() { # KEY: the JSON's column in --sort KEY order is non-increasing
	"$TTV" --report --json --sort "$1" "$TMP/g.ht" | perl -MJSON::XS -ne '
		my $v = decode_json($_)->{$ARGV[0] // "'"$1"'"}; print "$v\n"' | sort -c -n -r 2>&1
}
for k in total self calls min max mean; do
	is "$(order $k)" "" "--sort $k: largest first"
done
"$TTV" --report --json --sort name "$TMP/g.ht" | perl -MJSON::XS -ne 'print decode_json($_)->{name}, "\n"' >"$TMP/names"
LC_ALL=C sort -c "$TMP/names"
ok $? "--sort name: by name"
run --report "$SAMPLES/syscall/forker.dat" -e 'nothing matches this'
is "$RC$OUT" "0$(printf '%12s%11s %10s%11s%11s%11s  %s' total self calls min max mean 'name  (type category)')" \
	"--report: nothing in scope, the header alone"

# --diff A B: each side as --report of it alone, joined by name, the
# largest change of total first
JOIN='
use strict; use warnings; use JSON::XS;
my %r;
for my $side (0, 1) {
	open my $h, "<", $ARGV[$side] or die;
	while (<$h>) { my $j = decode_json($_); $r{"$j->{name}\t$j->{type}\t" . ($j->{category} // "")}[$side] = $j }
}
for (sort keys %r) {
	my @s = map { $_ // {calls => 0, total => 0, self => 0} } @{$r{$_}}[0, 1];
	print join(" ", $_, map { @{$_}{qw(calls total self)} } @s), "\n";
}
'
FROM_DIFF='
use strict; use warnings; use JSON::XS;
print "$_\n" for sort map { my $j = decode_json($_);
	join(" ", "$j->{name}\t$j->{type}\t" . ($j->{category} // ""), @{$j->{a}}{qw(calls total self)}, @{$j->{b}}{qw(calls total self)}) } <STDIN>;
'
"$TBIN/htwrite" --generate 8000 --seed 6 "$TMP/g2.ht" || exit 1
"$TTV" --report --json "$TMP/g.ht" >"$TMP/ra"
"$TTV" --report --json "$TMP/g2.ht" >"$TMP/rb"
is "$("$TTV" --diff --json "$TMP/g.ht" "$TMP/g2.ht" | perl -e "$FROM_DIFF")" "$(perl -e "$JOIN" "$TMP/ra" "$TMP/rb")" \
	"--diff: each side as --report has it"
"$TTV" --diff --json "$TMP/g.ht" "$TMP/g2.ht" | perl -MJSON::XS -ne 'print abs(decode_json($_)->{change}{total}), "\n"' >"$TMP/changes"
sort -c -n -r "$TMP/changes"
ok $? "--diff: the largest change of total first"
"$TTV" --report --json -e 'lane:^thread 3$' "$TMP/g.ht" >"$TMP/ra"
"$TTV" --report --json -e 'lane:^thread 3$' "$TMP/g2.ht" >"$TMP/rb"
is "$("$TTV" --diff --json -e 'lane:^thread 3$' "$TMP/g.ht" "$TMP/g2.ht" | perl -e "$FROM_DIFF")" \
	"$(perl -e "$JOIN" "$TMP/ra" "$TMP/rb")" "--diff with a filter: each side as --report with it"
"$TTV" --diff --json "$TMP/g.atf" "$TMP/g.atf" | perl -MJSON::XS -ne '$c = decode_json($_)->{change}; print "$c->{calls} $c->{total} $c->{self}\n"' | sort -u >"$TMP/same"
is "$(cat "$TMP/same")" "0 0 0" "--diff of a session against itself: no change"
run --diff "$TMP/g.ht" "$TMP/g2.ht"
like "$(printf '%s\n' "$OUT" | head -1)" '^ +total A +total B +change +self A +self B +calls A +calls B +name' "--diff: a header"
like "$(printf '%s\n' "$OUT" | sed -n 2p)" '^ +[0-9.]+[mun]?s +[0-9.]+[mun]?s +[-+][0-9.]+[mun]?s ' "--diff: a signed change"

# usage
run --diff "$TMP/g.ht"
is "$RC" 2 "--diff of one trace: usage error"
like "$ERR" "two traces: give A and B" "... saying so"
run --report --sort size "$TMP/g.ht"
is "$RC" 2 "--sort of an unknown key: usage error"
like "$ERR" "want total, self, calls, min, max, mean or name" "... saying which there are"
run --dump --sort self "$TMP/g.ht"
is "$RC" 2 "--sort without --report: usage error"
run --export folded --json "$TMP/g.ht"
is "$RC" 2 "--export folded --json: usage error"
run --export flame "$TMP/g.ht"
like "$ERR" "there is: chrome, folded, speedscope" "an unknown export format names those there are"

# Fleets: each instance a part of the model, its spans read apart (no
# merged order followed, src/calltree.c).  The tree is the one the merged
# order builds (a filter that keeps every event reads in that order): the
# same rows, siblings in the same order (the folded lines).
for w in htwrite d9write ptwrite scwrite atfwrite; do
	# shellcheck disable=SC2046
	set -- $(fleet "$w" 3 "$TMP/fleet-$w")
	for how in "--report --json" "--report --sort name" "--export folded"; do
		"$TTV" $how "$@" >"$TMP/apart"
		"$TTV" $how -e 'type:.' "$@" >"$TMP/merged"
		ok "$(cmp -s "$TMP/apart" "$TMP/merged"; echo $?)" \
			"$w, 5 instances: $how read apart as in the merged order ($(wc -l <"$TMP/apart") lines)"
	done
done
check "$TMP/fleet-d9write" "dial9, 5 instances (read apart)"
check "$TMP/fleet-atfwrite" "ATF, a session of 5 processes (read apart)"
# Equal rows come in the trace's order, whichever file holds the first:
# b.example's file is read first, a.example's span comes first in time.
echo "V4 ts=2000000 pid=7 type=0 latency=1000 comm=x target=b.example" | "$TBIN/ptwrite" "$TMP/tie-b.pt"
echo "V4 ts=1000000 pid=8 type=0 latency=1000 comm=y target=a.example" | "$TBIN/ptwrite" "$TMP/tie-a.pt"
run --report "$TMP/tie-b.pt" "$TMP/tie-a.pt"
is "$(printf '%s\n' "$OUT" | grep -o '[ab]\.example' | tr '\n' ' ')" "a.example b.example " \
	"two files: rows of equal time in the trace's order"

done_testing
