#!/bin/sh
# --stats against an independent count of what --dump --json says: events
# per lane and type, durations per type, and per type the calls, total and
# self time of its spans (nesting found here by sorting each lane's spans,
# not by walking them in time order as ttv does on two threads).  Traces
# from every format's writer, with and without a filter.
. "$(dirname "$0")/../lib.sh"

# Types that share a name are told apart by category, as ttv does.
INDEP='
use strict; use warnings; use JSON::XS;
my (%cnt, %dur, %spans, %cats, $events);
my @ev = map { decode_json($_) } <STDIN>;
$cats{$_->{type}}{$_->{category} // ""} = 1 for @ev;
sub label { my $e = shift; keys %{$cats{$e->{type}}} > 1 ? "$e->{type} ($e->{category})" : $e->{type} }
for my $e (@ev) {
	$events++;
	$cnt{"$e->{lane}\t" . label($e)}++;
	next if $e->{meta} || !defined $e->{dur};
	next unless $e->{role} eq "complete" || $e->{role} eq "begin";
	my $d = $dur{label($e)} //= {n => 0, total => 0, max => 0};
	$d->{n}++; $d->{total} += $e->{dur};
	$d->{min} = $e->{dur} if !defined $d->{min} || $e->{dur} < $d->{min};
	$d->{max} = $e->{dur} if $e->{dur} > $d->{max};
	push @{$spans{$e->{lane}}}, [$e->{ts}, $e->{ts} + $e->{dur}, label($e), $e->{dur}];
}
my %by;
for my $lane (keys %spans) {
	my @s = sort { $a->[0] <=> $b->[0] || $b->[1] <=> $a->[1] } @{$spans{$lane}};
	my @open;
	for my $s (@s) {
		pop @open while @open && $open[-1][1] < $s->[1];
		$s->[4] = $s->[3];
		$open[-1][4] -= $s->[3] if @open;
		push @open, $s;
	}
	for my $s (@s) {
		my $b = $by{$s->[2]} //= [0, 0, 0];
		$b->[0]++; $b->[1] += $s->[3]; $b->[2] += $s->[4] > 0 ? $s->[4] : 0;
	}
}
print "events ", $events // 0, "\n";
print "count $_ $cnt{$_}\n" for sort keys %cnt;
print "dur $_ $dur{$_}{n} $dur{$_}{total} $dur{$_}{min} $dur{$_}{max}\n" for sort keys %dur;
print "spans $_ @{$by{$_}}\n" for sort keys %by;
'
FROM_STATS='
use strict; use warnings; use JSON::XS;
my $j = decode_json(join "", <STDIN>);
print "events $j->{events}\n";
my (@c, %n);
for my $l (@{$j->{lanes}}) { push @c, "$l->{lane}\t$_ $l->{types}{$_}" for keys %{$l->{types}} }
print "count $_\n" for sort @c;
$n{$_->{type}}++ for @{$j->{types}};
sub label { my ($t, $c) = @_; $n{$t} > 1 ? "$t ($c)" : $t }
my @d;
for my $t (@{$j->{types}}) {
	my $d = $t->{dur} or next;
	push @d, "dur " . label($t->{type}, $t->{category}) . " $d->{n} $d->{total} $d->{min} $d->{max}";
}
print "$_\n" for sort @d;
my %by;
for my $s (@{$j->{spans}}) {
	my $b = $by{$s->{type}} //= [0, 0, 0];
	$b->[0] += $s->{calls}; $b->[1] += $s->{total}; $b->[2] += $s->{self};
}
print "spans $_ @{$by{$_}}\n" for sort keys %by;
print "not listed $j->{spans_not_listed}\n";
'

# check TRACES WHAT [FILTER]: everything; flat TRACES WHAT [FILTER]: not the
# self times (spans that overlap without nesting, as the calls of a
# process's threads on its lane, are each their own: not reckoned here)
check() {
	want=$("$TTV" --dump --json ${3:+-e "$3"} $1 | perl -e "$INDEP")
	got=$("$TTV" --stats --json ${3:+-e "$3"} $1 | perl -e "$FROM_STATS")
	[ -n "$want" ] || { ok 1 "$2: nothing to count"; return; }
	is "$got" "$want
not listed 0" "$2"
}
# (lanes of one name in several sources, as a fleet's pids: counted together)
by_name() { awk '/^count / { k = $0; sub(/ [0-9]+$/, "", k); n[k] += $NF; next } { print } END { for (k in n) print k, n[k] }' | sort; }
flat() {
	want=$("$TTV" --dump --json ${3:+-e "$3"} $1 | perl -e "$INDEP" | grep -v '^spans' | by_name)
	got=$("$TTV" --stats --json ${3:+-e "$3"} $1 | perl -e "$FROM_STATS" | grep -v '^spans\|^not listed' | by_name)
	[ -n "$want" ] || { ok 1 "$2: nothing to count"; return; }
	is "$got" "$want" "$2"
}

"$TBIN/htwrite" --generate 30000 --seed 5 "$TMP/g.ht"
"$TBIN/d9write" --generate 30000 --seed 5 "$TMP/g.bin"
"$TBIN/ptwrite" --generate 20000 --seed 5 "$TMP/g.pt"
"$TBIN/scwrite" --generate 20000 --seed 5 "$TMP/g.sc"

check "$TMP/g.ht" "HTDUMP: 16 threads of nested scopes"
check "$TMP/g.bin" "dial9: polls and tracing spans of every worker"
check "$TMP/g.ht" "HTDUMP, filtered to one thread" "lane:^thread 3$"
check "$TMP/g.bin" "dial9, filtered by a type" "type:Poll"
flat "$TMP/g.sc" "syscall capture: counts and durations"
flat "$TMP/g.sc" "syscall capture, filtered by text" "read"
flat "$TMP/g.pt" "podtrace: counts and durations (types of one name told apart by category)"
# The order --stats lists span rows in: calls, then total time (most
# first), then where the row's first span lies in the trace's order (its
# line in --dump).  Rows are type and name (and category: a podtrace type
# name is one per category).
ORDER='
use strict; use warnings; use JSON::XS;
my (%row, $i);
while (<STDIN>) {
	$i++;
	s/,"fields":.*//; # (the keys before it are the ones read here: quicker than decode_json)
	next if /"meta":true/ || !/"dur":(\d+)/;
	my $dur = $1;
	next unless /"role":"(?:complete|begin)"/;
	my $line = $_;
	my @k = map { $line =~ /"$_":("(?:[^"\\]|\\.)*")/ ? $1 : "\"\"" } qw(type name category);
	my $r = $row{join "\t", @k} //= [0, 0, $i];
	$r->[0]++; $r->[1] += $dur;
}
my $json = JSON::XS->new->allow_nonref;
print join("\t", map { $json->decode($_) } (split /\t/)[0, 1]), "\n"
	for sort { $row{$b}[0] <=> $row{$a}[0] || $row{$b}[1] <=> $row{$a}[1] || $row{$a}[2] <=> $row{$b}[2] } keys %row;
'
ROWS='
use strict; use warnings; use JSON::XS;
my $j = decode_json(join "", <STDIN>);
print "$_->{type}\t", $_->{name} // "", "\n" for @{$j->{spans}};
'
# Fleets (each instance a part of the model): each part is counted apart,
# on its own thread, filters deciding its events in its own order, with no
# merged order followed: the rows come in the trace's order all the same.
# (ATF's: a session of five processes, each thread's records a sequence
# read where they lie)
for w in htwrite d9write ptwrite scwrite atfwrite; do
	# shellcheck disable=SC2046
	set -- $(fleet "$w" 9 "$TMP/fleet-$w")
	for f in "" a; do
		"$TTV" --dump --json ${f:+-e "$f"} "$@" | perl -e "$ORDER" >"$TMP/want"
		"$TTV" --stats --json ${f:+-e "$f"} "$@" | perl -e "$ROWS" >"$TMP/got"
		ok "$(head -n "$(wc -l <"$TMP/got")" "$TMP/want" | cmp -s - "$TMP/got"; echo $?)" \
			"$w, 5 instances${f:+, filtered}: span rows in the trace's order ($(wc -l <"$TMP/got") rows)"
	done
done
# --dump of a fleet decodes each instance apart (a window of time at a
# time, the instances shared between two threads where the decoders allow)
# and merges their lines: byte for byte the merged order's (a filter that
# keeps every event reads in that order).  The big fleet takes several
# windows, and its symbols at time 0 lie far before the rest.
"$TBIN/d9write" --generate 150000 --seed 4 --instances 8 "$TMP/fleet-big" >/dev/null
for w in htwrite d9write ptwrite scwrite atfwrite big; do
	writer=$w
	[ "$w" != big ] || writer=d9write
	# shellcheck disable=SC2046
	set -- $(fleet_paths $writer "$TMP/fleet-$w")
	for how in --dump "--dump --json" "--dump --time trace"; do
		"$TTV" $how "$@" >"$TMP/apart"
		"$TTV" $how -e 'type:.' "$@" >"$TMP/merged"
		ok "$([ -s "$TMP/apart" ] && cmp -s "$TMP/apart" "$TMP/merged"; echo $?)" \
			"$w, instances: $how decoded apart, in the merged order ($(wc -l <"$TMP/apart") lines)"
	done
done
check "$TMP/fleet-d9write" "dial9, 5 instances (each counted apart), filtered by a type" "type:Poll"
check "$TMP/fleet-atfwrite" "ATF, a session of 5 processes, filtered by text (each thread's sequence counted apart)" \
	"bench_fn_1"
flat "$(fleet_paths ptwrite "$TMP/fleet-ptwrite")" \
	"podtrace, 5 instances (each counted apart), filtered by text" "example"
check "$TMP/fleet-d9write" "dial9, 5 instances (each counted apart): against the independent count"
run --stats "$TMP/g.pt"
like "$OUT" "HTTP_REQ \(HTTP/2\)" "podtrace: the text report tells them apart too"

done_testing
