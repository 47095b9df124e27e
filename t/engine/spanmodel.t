#!/bin/sh
# One span model: the lanes view's status line (a span's self time and
# depth) and its Up key (the parent) say what the spans table, the call
# tree and --report say, for every format: a generated trace walked event by
# event in the viewer against `--sql 'select ... from spans'`.
. "$(dirname "$0")/../lib.sh"

WALK=80 # events looked at per trace

# The viewer's word on each of the first WALK events: "id self depth" for a
# span (self in ns as the status line rounds it), one line per event.
viewer_spans() { # PATH
	: >"$TMP/walk.script"
	i=1
	while [ $i -le $WALK ]; do
		printf 'dump %s/walk.%d\nTab\nj\nTab\n' "$TMP" $i >>"$TMP/walk.script"
		i=$((i + 1))
	done
	(cd "$TMP" && TTV_SCRIPT=$TMP/walk.script TTV_SIZE=200x24 "$TTV" "$1" >/dev/null 2>&1)
	i=1
	while [ $i -le $WALK ]; do
		tail -1 "$TMP/walk.$i"
		i=$((i + 1))
	done | perl -ne '
		my %u = (ns => 1, us => 1e3, ms => 1e6, s => 1e9);
		next unless /#(\d+)\/\d+ /; my $id = $1 - 1;
		if (/\(self (?:about )?([0-9.]+)(ns|us|ms|s), depth (\d+)\)/) { printf "%d %.0f %d\n", $id, $1 * $u{$2}, $3 }
		elsif (/open, depth (\d+)/) { print "$id open $1\n" }'
}

checked=""
for fmt in $(formats); do
	n=2000
	[ "$fmt" = atf ] && n=1
	writer=$(format_field "$fmt" writer)
	"$TBIN/$writer" --generate $n "$TMP/t.$fmt" >/dev/null 2>&1 || { fail "$fmt: written"; continue; }
	"$TTV" --sql "select id, self, depth from spans" --csv "$TMP/t.$fmt" 2>/dev/null |
		tail -n +2 | tr , ' ' >"$TMP/sql.$fmt"
	viewer_spans "$TMP/t.$fmt" >"$TMP/view.$fmt"
	seen=$(grep -vc open "$TMP/view.$fmt")
	ok "$([ "$seen" -gt 5 ]; echo $?)" "$fmt: the viewer named $seen spans among its first $WALK events"
	# every span the viewer names: the table's depth, and self within the status line's rounding
	bad=$(perl -e '
		open(S, "<", $ARGV[0]) or die; my %s; while (<S>) { my ($id, $self, $d) = split; $s{$id} = [$self, $d] }
		open(V, "<", $ARGV[1]) or die; my @bad;
		while (<V>) { my ($id, $self, $d) = split; next if $self eq "open";
			my $t = $s{$id}; if (!$t) { push @bad, "#$id: not in spans"; next }
			push @bad, "#$id: depth $d, spans says $t->[1]" if $d != $t->[1];
			my $tol = $t->[0] * 0.006 + 10;
			push @bad, "#$id: self $self, spans says $t->[0]" if abs($self - $t->[0]) > $tol }
		print join("; ", @bad[0 .. ($#bad < 4 ? $#bad : 4)])' "$TMP/sql.$fmt" "$TMP/view.$fmt")
	is "$bad" "" "$fmt: the status line's self and depth are the spans table's"
	checked="$checked $fmt"
done
every_format "$checked" "every format checked"

# --report's self per name is the spans table's
for fmt in podtrace dial9; do
	"$TTV" --report --json "$TMP/t.$fmt" 2>/dev/null |
		perl -MJSON::XS -ne 'my $r = decode_json($_); printf "%s|%s|%s %d\n", $r->{type}, $r->{category} // "", $r->{name}, $r->{self} if $r->{self}' |
		sort >"$TMP/report.$fmt"
	"$TTV" --sql "select s.type || '|' || coalesce(e.category, '') || '|' || coalesce(s.name, s.type), sum(s.self)
		from spans s join events e on e.id = s.id group by 1 having sum(s.self) > 0" \
		--csv "$TMP/t.$fmt" 2>/dev/null | tail -n +2 | tr , ' ' | sort >"$TMP/sqlself.$fmt"
	ok "$([ -s "$TMP/report.$fmt" ] && cmp -s "$TMP/report.$fmt" "$TMP/sqlself.$fmt"; echo $?)" \
		"$fmt: --report's self per name is the spans table's"
done

# ATF: a call two deep says depth 1 (its call_depth is 2), Up goes to its caller
S_ATF=$SAMPLES/atf/crash_sigkill/session_20260101_121000
SIZE=120x24 scenario spanmodel-atf "$S_ATF" <<'S'
Tab
j
j
j
Tab
S
like "$SCREEN" 'module 0x46581c93 #8  2\.91us \(self 2\.91us, depth 1\)' "atf: a call inside another is at depth 1"
SIZE=120x24 scenario spanmodel-atf-up "$S_ATF" <<'S'
Tab
j
j
j
Tab
Up
S
like "$SCREEN" 'module 0x3edfa0e1 #11  10\.38us \(self 7\.48us, depth 0\)' "atf: Up goes to its caller, self less the call"
p=$("$TTV" --sql "select p.dur, p.self, p.depth from spans s join spans p on p.id = s.parent_id where s.ts = (select ts from events where id = 3)" --csv "$S_ATF" 2>/dev/null | tail -1)
is "$p" "10382,7475,0" "atf: the spans table's parent of that call (10.38us, self 7.48us, depth 0)"

# podtrace: operations side by side: self is the whole span, depth 0
scenario spanmodel-podtrace "$SAMPLES/podtrace/small.ptrace" <<'S'
Down
S
like "$SCREEN" 'HTTP_RESP  570\.53ms \(self 570\.53ms, depth 0\)' "podtrace: an operation's self is its length (as the call tree says)"

# in a terminal: Up from the ATF call, at 80x24 and wide
for size in 80x24 200x50; do
	S=ttv-test-$$-$size
	session "$size" "TERM=xterm-256color '$TTV' '$S_ATF'"
	wait_for 'lanes' || fail "tmux $size: the lanes view"
	tm send-keys -t "$S" Tab j j j Tab
	wait_for 'depth 1)' || fail "tmux $size: the call selected"
	tm send-keys -t "$S" Up
	wait_for 'depth 0)' || fail "tmux $size: Up"
	like "$(screen)" '10\.38us \(self 7\.48us, depth 0\)' "tmux $size: Up goes to the caller"
	tm send-keys -t "$S" q
	wait_for 'exit=' || fail "tmux $size: q quits"
	tm kill-server
done

echo "1..$_n"
[ "$_failed" = 0 ]
