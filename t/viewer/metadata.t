#!/bin/sh
# Metadata is not time: symbol tables (dial9 SymbolTableEntry, at ts 0),
# class descriptions and string definitions (HTDUMP) stay listed and are
# counted in --info, but the viewer opens on the first timed event, g and G
# go to the first and last timed events, the axis spans timed events only,
# and a lane of metadata alone is not drawn.
. "$(dirname "$0")/../lib.sh"

gzip -dc "$SAMPLES/dial9/upstream_block_in_place_2026-05-21.bin.gz" >"$TMP/d9.bin"
H=$SAMPLES/htdump/small.htdump

run --info "$TMP/d9.bin"
like "$OUT" '^  metadata: 120 events, not on the time axis: SymbolTableEntry 119, SegmentMetadataEvent 1$' \
	"dial9: --info counts its metadata by type"
run --info "$H"
like "$OUT" '^  metadata: 83 events, not on the time axis: HT_EventKlassFieldInfoEvent 60, HT_EventKlassInfoEvent 15, HT_StringMappingEvent 6, ' \
	"htdump: --info counts class and string definitions as metadata"
run --info "$SAMPLES/podtrace/small.ptrace"
unlike "$OUT" 'metadata:' "podtrace: no metadata, no line"
# metadata is still listed
run --dump -e 'type:SymbolTableEntry' "$TMP/d9.bin"
is "$(printf '%s\n' "$OUT" | grep -c 'SymbolTableEntry')" 119 "dial9: the symbol table is listed with a filter"

# g, G and the first screen: timed events, the axis never before the trace
for f in "$TMP/d9.bin" "$H"; do
	n=$(basename "$f")
	scenario "metadata-open-$n" "$f" </dev/null
	unlike "$(tail -1 "$TMP/metadata-open-$n.txt")" ' metadata$' "$n: the first screen is on a timed event"
	scenario "metadata-g-$n" "$f" <<'S'
G
g
S
	status=$(printf '%s\n' "$SCREEN" | tail -1)
	unlike "$status" ' metadata$' "$n: g goes to a timed event, not a symbol table"
	unlike "$(printf '%s\n' "$SCREEN" | head -1)" '╷-[0-9]' "$n: the axis does not reach before the trace"
	scenario "metadata-G-$n" "$f" <<'S'
G
S
	like "$(printf '%s\n' "$SCREEN" | tail -1)" '#([0-9]+)/\1 ' "$n: G goes to the last event"
done
like "$(tail -1 "$TMP/metadata-open-small.htdump.txt")" '#78/167 \+0\.000000000$' \
	"htdump: opens on main, past 77 class and string definitions"
unlike "$(cat "$TMP/metadata-open-small.htdump.txt")" '^metadata ' "htdump: its metadata lane is not drawn"
like "$(cat "$TMP/metadata-open-d9.bin.txt")" '^metadata ' "dial9: its metadata lane has timed events (ClockSyncEvent): drawn"
# the list still shows metadata above the first timed event
scenario metadata-list "$H" <<'S'
Tab
g
k
S
like "$(printf '%s\n' "$SCREEN" | tail -1)" '#77/167 ' "htdump: k in the list from the first timed event reaches the metadata"

# a fleet: 256 instances' symbol tables put 102,400 metadata events first,
# more than are stepped over one by one
"$TBIN/d9write" --generate 20000 --seed 1 --instances 256 "$TMP/fleet" >/dev/null || exit 1
scenario metadata-fleet "$TMP/fleet" <<'S'
G
g
S
like "$(tail -1 "$TMP/metadata-fleet.txt")" ' #102145/122777 [+]0[.]0+$' "a fleet of 256 instances: g goes past 102,144 symbols to the first timed event"

# in a terminal, at 80x24 and wide
for size in 80x24 200x50; do
	S=ttv-test-$$-$size
	session "$size" "TERM=xterm-256color '$TTV' '$TMP/d9.bin'"
	wait_for '909 events' || fail "tmux $size: the first screen"
	tm send-keys -t "$S" G g
	sleep 0.3
	sc=$(screen)
	unlike "$(printf '%s\n' "$sc" | tail -1)" 'metadata$' "tmux $size: g after G is on a timed event"
	unlike "$(printf '%s\n' "$sc" | head -1)" '╷-[0-9]' "tmux $size: the axis starts at the trace"
	tm send-keys -t "$S" q
	wait_for 'exit=' || fail "tmux $size: q quits"
	tm kill-server
	session "$size" "TERM=xterm-256color '$TTV' '$TMP/fleet'"
	wait_for '122 777 events' || fail "tmux $size: the fleet's first screen"
	unlike "$(screen | tail -1)" 'metadata$' "tmux $size: a fleet opens on a timed event"
	tm send-keys -t "$S" q
	wait_for 'exit=' || fail "tmux $size: q quits the fleet"
	tm kill-server
done

echo "1..$_n"
[ "$_failed" = 0 ]
