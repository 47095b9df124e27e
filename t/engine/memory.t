#!/bin/sh
# --memory: past the budget the index lives in a file no one else sees
# (src/bigmem.c).  Every format gives the same --dump with its index in a
# file as in memory; --info says where it went; nothing is left in the
# cache directory, during a viewer session or after it.
. "$(dirname "$0")/../lib.sh"

export XDG_CACHE_HOME=$TMP/cache
left() { find "$XDG_CACHE_HOME" -type f 2>/dev/null | wc -l | tr -d ' '; }

for name in $(formats); do
	writer=$(format_field "$name" writer) unit=$(format_field "$name" unit)
	trace=$TMP/$name
	# about 4 MB of trace: an index well past a 256 KB budget
	"$TBIN/$writer" --generate $((4 * 1048576 / unit + 1)) --seed 3 "$trace" || exit 1
	"$TTV" --dump "$trace" >"$TMP/in-memory" 2>"$TMP/err1"
	rc1=$?
	"$TTV" --memory 256K --dump "$trace" >"$TMP/in-file" 2>"$TMP/err2"
	rc2=$?
	is "$rc2 $(cksum <"$TMP/in-file")" "$rc1 $(cksum <"$TMP/in-memory")" \
		"$name: --memory 256K: the same events, fields and exit status as in memory"
	run --memory 256K --info --json "$trace"
	like "$OUT" '"index":\{"bytes_in_memory":[0-9]+,"bytes_in_files":[0-9]+,"memory_budget":262144,"saved":false\}' \
		"$name: --info --json says where the index is"
	mem=$(printf '%s' "$OUT" | sed -n 's/.*"bytes_in_memory":\([0-9]*\).*/\1/p')
	ok "$([ "${mem:-999999999}" -le 262144 ]; echo $?)" "$name: no more than the budget of it in memory (${mem:-?} bytes)"
	is "$(left)" 0 "$name: nothing left in the cache directory"
	rm -rf "$trace"
done

"$TBIN/d9write" --generate 20000 --seed 5 "$TMP/d9.bin" || exit 1
run --info --json "$TMP/d9.bin"
like "$OUT" '"bytes_in_files":0,' "within the budget (half the RAM): nothing in a file"
unlike "$(run --info "$TMP/d9.bin"; echo "$OUT")" '^index:' "... and --info's text says nothing of it"
run --memory 64K --info "$TMP/d9.bin"
like "$OUT" 'index: +[0-9.]+ [KM]B in a file \(over the memory budget of 64\.00 KB, --memory\)' \
	"--info's text says the index went to a file, and why"
for bad in 0 12x -5 1Q ''; do
	run --memory "$bad" --info "$TMP/d9.bin"
	is "$RC" 2 "--memory '$bad': a usage error"
done
like "$ERR" "want a size such as 512M or 8G" "... that says what it wants"

# the viewer, in a terminal: the index in a file it cannot see, and gone after q
if command -v tmux >/dev/null 2>&1; then
	S=ttv-memory-$$
	export TMUX_TMPDIR=$TMP
	tm() { tmux -L "$S" "$@"; }
	tm new-session -d -s "$S" -x 80 -y 24 "TERM=xterm-256color '$TTV' --memory 64K '$TMP/d9.bin'; sleep 30"
	i=0
	until tm capture-pane -p -t "$S" | grep -q 'events in'; do
		i=$((i + 1))
		[ $i -lt 50 ] || break
		sleep 0.1
	done
	like "$(tm capture-pane -p -t "$S" | tail -1)" 'events in [0-9]+ lanes' "viewer with --memory 64K: the first screen"
	pid=$(pgrep -f -- "--memory 64K $TMP/d9.bin" | head -1)
	like "$(ls -l "/proc/$pid/fd" 2>/dev/null)" 'cache/ttv/#[0-9]+ \(deleted\)|cache/ttv/ttv-index-.* \(deleted\)' \
		"... its index is in a file of the cache directory that has no name"
	is "$(left)" 0 "... which no one else sees"
	tm send-keys -t "$S" G
	sleep 0.3
	like "$(tm capture-pane -p -t "$S" | tail -1)" "#[0-9]+/[0-9]+" "... it moves (G)"
	tm send-keys -t "$S" q
	sleep 0.3
	ok "$(kill -0 "$pid" 2>/dev/null && echo 1 || echo 0)" "... and quits on q"
	is "$(left)" 0 "... leaving nothing behind"
	tm kill-server 2>/dev/null
fi
done_testing
