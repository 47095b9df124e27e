#!/bin/sh
# A field filter runs on two threads over 100 MB of a trace whose events,
# in time order, come from five regions of the file in turn (five captures
# concatenated): each thread keeps its own windows on the file, so neither
# lets go of the pages the other, or its own next read, needs.  When they
# shared one window, each jump dropped (madvise) and repopulated it: system
# time outgrew user time several times over.  The sanitizer build skips
# this test: its timings are not ttv's.
. "$(dirname "$0")/../lib.sh"

if [ "$(basename "$BUILD")" = build-asan ]; then
	echo "1..0 # SKIP timings under AddressSanitizer are not ttv's own"
	exit 0
fi

"$TBIN/d9write" --generate 1700000 --seed 7 "$TMP/part.bin"
for i in 1 2 3 4 5; do cat "$TMP/part.bin"; done >"$TMP/five.bin"
rm -f "$TMP/part.bin"
size=$(($(wc -c <"$TMP/five.bin") >> 20))
ok "$([ $size -ge 90 ]; echo $?)" "a trace of $size MB, five captures in one file"
# user and system CPU seconds of the children (filter threads included)
CPU=$TMP/cpu perl -e 'system(@ARGV) == 0 or exit 1; my @t = times;
	open(my $f, ">", $ENV{CPU}) or die; printf $f "%.2f %.2f\n", $t[2], $t[3]' \
	"$TTV" -e 'local_queue:^57$' --stats "$TMP/five.bin" 2>/dev/null >"$TMP/stats"
is "$?" 0 "a field filter over it: exit 0"
cpu=$(cat "$TMP/cpu")
like "$(cat "$TMP/stats")" '^[0-9]+ events' "... counts what it kept"
user=${cpu% *} sys=${cpu#* }
ok "$(perl -e "exit !($sys < $user)"; echo $?)" "its system time ($sys s) stays below its user time ($user s)"
done_testing
