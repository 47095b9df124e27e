#!/bin/sh
# Full text means every field: a pattern with no scope finds an event by any
# of its decoded fields, not only by what its summary line shows (podtrace's
# summary leaves `details` out), for every format.
. "$(dirname "$0")/../lib.sh"

# The first event with a string field its --dump line does not show: its
# line number (from 1) and the value, tab-separated.
hidden_value() { # PATH
	"$TTV" --dump "$1" >"$TMP/text" 2>/dev/null
	"$TTV" --dump --json "$1" 2>/dev/null | perl -MJSON::XS -ne '
		BEGIN { open(T, "<", $ENV{TEXT}) or die; @t = <T>; }
		my $line = $t[$. - 1]; my $e = decode_json($_);
		my @s; my $walk; $walk = sub { my $v = shift;
			if (ref $v eq "HASH") { $walk->($_) for values %$v }
			elsif (ref $v eq "ARRAY") { $walk->($_) for @$v }
			elsif (defined $v && !ref $v && $v =~ /^[A-Za-z][A-Za-z0-9_ .\/-]{3,40}$/) { push @s, $v } };
		$walk->($e->{fields});
		for my $v (sort @s) { if (index(lc $line, lc $v) < 0) { print "$.\t$v\n"; exit } }'
}

checked=""
for fmt in $(formats); do
	checked="$checked $fmt"
	s=$(sample "$fmt")
	found=$(TEXT=$TMP/text hidden_value "$s")
	n=${found%%	*}
	v=${found#*	}
	if [ -z "$found" ]; then # no summaries: the line is every field
		ok 0 "$fmt: its lines show every string field"
		continue
	fi
	want=$(sed -n "${n}p" "$TMP/text")
	run -e "\\Q$v\\E" --dump "$s"
	ok "$(printf '%s\n' "$OUT" | grep -qxF -- "$want"; echo $?)" \
		"$fmt: a full-text filter finds an event by a field its line leaves out (#$n: $v)"
done
every_format "$checked" "every format checked"

# podtrace: details are not in the summary line
"$TBIN/ptwrite" "$TMP/d.pt" <<'SPEC'
V4 ts=10 pid=1 type=18 target=db details=invalid\sbytes\sin\srow
V4 ts=20 pid=1 type=18 target=db details=fine
SPEC
run -e 'invalid bytes' --dump "$TMP/d.pt"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "podtrace: 'invalid bytes' finds the event whose details hold them"
run -e 'details:invalid bytes' --dump "$TMP/d.pt"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "... as details: does"
run -e '!invalid bytes' --dump "$TMP/d.pt"
like "$OUT" '^\+0.000000010' "an excluding full-text filter drops it"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "... and keeps the other"
run -e 'query db' --dump "$TMP/d.pt"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "the summary's words still match"
done_testing
