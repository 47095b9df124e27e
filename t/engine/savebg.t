#!/bin/sh
# The viewer writes a trace's index on a thread of its own while it is used
# (src/trace_saved.c trace_save_begin): keys are handled meanwhile (moves,
# a filter that adds a string, a search, the call tree), the index is whole
# when it quits and the next run reads it back.  make check runs this under
# ThreadSanitizer too.
. "$(dirname "$0")/../lib.sh"

export TTV_SAVE_MIN=0 # (a small trace is saved too)
IDX=$XDG_CACHE_HOME/ttv
"$TBIN/d9write" --generate 300000 --seed 1 "$TMP/d.bin" || exit 1
printf '%s\n' j G g '&' 'type spawn_loc:main' Enter T j Escape / 'type Poll' Enter n q >"$TMP/keys"
TTV_SCRIPT=$TMP/keys TTV_SIZE=100x30 "$TTV" "$TMP/d.bin" >/dev/null 2>"$TMP/err"
is "$?" 0 "the viewer handles keys while its index is written, and quits"
is "$(cat "$TMP/err")" "" "... saying nothing on stderr"
is "$(find "$IDX" -name 'index-*' -type f | wc -l | tr -d ' ')" 1 "... one index, nothing half-written beside it"
like "$("$TTV" --info --json "$TMP/d.bin")" '"saved":true' "the next run reads it back"
"$TTV" --dump "$TMP/d.bin" >"$TMP/reopened"
"$TTV" --no-cache --dump "$TMP/d.bin" >"$TMP/afresh"
cmp -s "$TMP/reopened" "$TMP/afresh"
ok $? "... and shows what indexing it afresh shows ($(wc -l <"$TMP/afresh" | tr -d ' ') events)"

done_testing
