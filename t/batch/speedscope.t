#!/bin/sh
# --export speedscope and --export folded as their users open them: the
# real speedscope (npm, installed by `make test-deps`) in headless Chromium
# loads each export and lists its frames (its sandwich view is a table the
# page's DOM holds); a screenshot of each is kept in build/artefacts/.
# And the speedscope JSON on its own: every profile's events in time order,
# opened and closed as a stack, and together the lane's spans, each once,
# as --dump --json has them.
. "$(dirname "$0")/../lib.sh"

SPEEDSCOPE=$ROOT/build/npm/node_modules/speedscope/dist/release/index.html
ART=$ROOT/build/artefacts
mkdir -p "$ART"

"$TBIN/htwrite" --generate 3000 --seed 3 "$TMP/g.ht" || exit 1
"$TBIN/atfwrite" --generate 1 --seed 3 "$TMP/g.atf" || exit 1
"$TBIN/ptwrite" --generate 3000 --seed 3 "$TMP/g.pt" || exit 1

# The spans of --dump --json, "lane<TAB>name<TAB>start<TAB>dur", sorted
SPANS='
use strict; use warnings; use JSON::XS;
my @s;
while (<STDIN>) {
	my $e = decode_json($_);
	next if $e->{meta} || !defined $e->{dur} || $e->{unpaired};
	next unless $e->{role} eq "complete" || $e->{role} eq "begin";
	push @s, join "\t", $e->{lane}, $e->{name} // $e->{type}, $e->{ts}, $e->{dur};
}
print "$_\n" for sort @s;
'
# The same from a speedscope file (times back from "at" with the earliest
# span given), or the first thing wrong with it
FROM_SPEEDSCOPE='
use strict; use warnings; use JSON::XS;
local $/; my $d = decode_json(<STDIN>);
my $base = $ARGV[0];
$d->{q{$schema}} eq "https://www.speedscope.app/file-format-schema.json" or die "no schema\n";
my $frames = $d->{shared}{frames};
my @s;
for my $p (@{$d->{profiles}}) {
	$p->{type} eq "evented" && $p->{unit} eq "nanoseconds" or die "$p->{name}: not evented in ns\n";
	(my $lane = $p->{name}) =~ s/ \(\d+\)$//;
	my (@open, $last);
	for my $e (@{$p->{events}}) {
		die "$p->{name}: frame $e->{frame} is not one\n" unless defined $frames->[$e->{frame}];
		die "$p->{name}: at $e->{at} before $last\n" if defined $last && $e->{at} < $last;
		die "$p->{name}: at $e->{at} outside its start and end\n"
			if $e->{at} < $p->{startValue} || $e->{at} > $p->{endValue};
		$last = $e->{at};
		if ($e->{type} eq "O") { push @open, $e; next }
		my $o = pop @open or die "$p->{name}: a C with nothing open\n";
		$o->{frame} == $e->{frame} or die "$p->{name}: C of $e->{frame} closes $o->{frame}\n";
		push @s, join "\t", $lane, $frames->[$e->{frame}]{name}, $o->{at} + $base, $e->{at} - $o->{at};
	}
	die "$p->{name}: left open\n" if @open;
}
print "$_\n" for sort @s;
'
# speedscope's own reading of FILE: the page its sandwich view makes (a
# table of every frame, the window tall enough for all of them to be
# drawn), and a screenshot of its first screen in $TMP/shot.png
open_in_speedscope() {
	printf 'speedscope.loadFileFromBase64("%s", "%s")' "$(basename "$1")" "$(base64 -w0 "$1")" >"$TMP/load.js"
	url="file://$SPEEDSCOPE#localProfilePath=$TMP/load.js&view=sandwich"
	# (a profile directory of its own each time: a browser still closing
	# holds its lock, and a second one would hand its work to it and quit)
	set -- chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=10000
	rm -f "$TMP/shot.png"
	for try in 1 2 3; do
		timeout 60 "$@" --user-data-dir="$(mktemp -d "$TMP/chromium.XXXXXX")" --window-size=1280,800 \
			--screenshot="$TMP/shot.png" "$url" >/dev/null 2>&1
		[ -s "$TMP/shot.png" ] && break
	done
	timeout 60 "$@" --user-data-dir="$(mktemp -d "$TMP/chromium.XXXXXX")" --window-size=1280,8000 --dump-dom "$url" \
		2>/dev/null
}
# The frames of speedscope file $1 that page $2 does not list: of its
# first profile (the one shown; the page says "(1/PROFILES)") with $3 =
# first, else of all
NOT_LISTED='
use strict; use warnings; use JSON::XS;
my ($json, $page) = map { local $/; open my $h, "<", $_ or die "$_: $!"; <$h> } @ARGV[0, 1];
my $d = decode_json($json);
my $frames = $d->{shared}{frames};
my @want = @$frames;
if (($ARGV[2] // "") eq "first") {
	my $np = @{$d->{profiles}};
	print "no (1/$np) on the page\n" if index($page, "(1/$np)") < 0;
	my %used = map { $_->{frame} => 1 } @{$d->{profiles}[0]{events}};
	@want = map { $frames->[$_] } sort { $a <=> $b } keys %used;
}
my %seen;
for my $f (@want) {
	my $n = $f->{name} =~ s/&/&amp;/gr =~ s/</&lt;/gr =~ s/>/&gt;/gr;
	print "$f->{name}\n" if index($page, ">$n<") < 0 && !$seen{$n}++;
}
'

if ! command -v chromium >/dev/null 2>&1 || [ ! -f "$SPEEDSCOPE" ]; then
	skip_all "chromium or speedscope missing: make test-deps installs them"
fi

for t in g.ht g.atf g.pt; do
	tr="$TMP/$t"
	run --export speedscope "$tr"
	is "$RC" 0 "$t: --export speedscope exits 0"
	printf '%s\n' "$OUT" >"$TMP/$t.speedscope.json"
	base=$("$TTV" --dump --json "$tr" | perl -MJSON::XS -ne '
		my $e = decode_json($_); next if $e->{meta} || !defined $e->{dur} || $e->{role} eq "end";
		$m = $e->{ts} if !defined $m || $e->{ts} < $m; END { print $m }')
	want=$("$TTV" --dump --json "$tr" | perl -e "$SPANS")
	got=$(perl -e "$FROM_SPEEDSCOPE" "$base" <"$TMP/$t.speedscope.json" 2>&1)
	[ -n "$want" ] || fail "$t: spans to export"
	is "$got" "$want" "$t: the profiles nest in time order and hold every span once"
	"$TTV" --export folded "$tr" >"$TMP/$t.folded"
	for kind in speedscope.json folded; do
		which=all
		[ $kind = folded ] || which=first
		# (a browser short of time on a busy machine may not have drawn it
		# yet: looked at again, three times at most)
		for try in 1 2 3; do
			open_in_speedscope "$TMP/$t.$kind" >"$TMP/page.html"
			missing=$(perl -e "$NOT_LISTED" "$TMP/$t.speedscope.json" "$TMP/page.html" $which)
			[ -n "$missing" ] || break
		done
		cp "$TMP/shot.png" "$ART/speedscope-$t-$kind.png" 2>/dev/null
		is "$missing" "" "$t: speedscope opens the $kind export and lists the frames of its profile ($which)"
		[ -s "$ART/speedscope-$t-$kind.png" ]
		ok $? "$t: a screenshot of it kept ($ART/speedscope-$t-$kind.png)"
	done
done

# overlapping spans of one lane (podtrace: several threads of a pid) go on
# its extra profiles, "LANE (2)" ...
like "$(cat "$TMP/g.pt.speedscope.json")" '"name":"[^"]* \(2\)"' "podtrace: a lane's overlapping spans on an extra profile"
run --export speedscope -e 'nothing matches this' "$TMP/g.ht"
like "$OUT" '"profiles":\[\]' "nothing in scope: no profile"

done_testing
