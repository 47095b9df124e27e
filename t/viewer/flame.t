#!/bin/sh
# The lanes view as a flame chart, for every format (t/formats/table) at 80x24 and
# 200x50: the first span of the format's sample, selected (:goto its time)
# and zoomed to (z), shows its name inside its bar, as the status line names
# it; scripted (TTV_SCRIPT) and in a real terminal (tmux).
. "$(dirname "$0")/../lib.sh"

# The first span of a trace: its time (ns, on the trace's clock).
first_span() {
	"$TTV" --dump --json "$1" 2>/dev/null | grep -m1 '"dur":[1-9][0-9]*,"role":"\(complete\|begin\)"' |
		sed 's/^{"ts":\([-0-9]*\),.*/\1/'
}

# check FORMAT SIZE SCREEN-FILE: the status line's span name is in a bar
check() {
	status=$(tail -n 1 "$3")
	name=$(printf '%s\n' "$status" | sed 's/  .*//; s/…$//') # (cut to fit: its start)
	ok "$([ -n "$name" ] && printf '%s\n' "$status" | grep -q 'depth [0-9]'; echo $?)" \
		"$1 $2: the status line names the selected span ($name)"
	# in the lanes area (not the axis, the event line or the status line),
	# past the name column
	bars=$(sed '1d;$d' "$3" | sed '$d' | cut -c12-)
	ok "$(printf '%s\n' "$bars" | grep -qF -- "$name"; echo $?)" "$1 $2: its name inside its bar"
}

for fmt in $(formats); do
	f=$(sample "$fmt")
	t=$(first_span "$f")
	ok "$([ -n "$t" ]; echo $?)" "$fmt: the sample has a span (at ${t:-none})"
	for size in 80x24 200x50; do
		printf ':\ntype goto %s\nEnter\nz\ndump %s\n' "$t" "$TMP/$fmt-$size.txt" >"$TMP/$fmt.script"
		TTV_SCRIPT=$TMP/$fmt.script TTV_SIZE=$size "$TTV" "$f" >/dev/null 2>&1
		check "$fmt" "$size" "$TMP/$fmt-$size.txt"
	done
done
every_format "$(formats)" "every format of the table was looked at"

if ! command -v tmux >/dev/null 2>&1; then
	echo "# SKIP tmux is not installed"
	done_testing
	exit
fi
export TMUX_TMPDIR=$TMP
tm() { tmux -L "$S" "$@"; }
for fmt in $(formats); do
	f=$(sample "$fmt")
	t=$(first_span "$f")
	for size in 80x24 200x50; do
		S=ttv-test-$$-flame-$fmt-$size # (a server of its own: no race with the last one's exit)
		tm new-session -d -s "$S" -x "${size%x*}" -y "${size#*x}" "TERM=xterm-256color '$TTV' '$f'; sleep 30"
		i=0
		while [ $i -lt 50 ] && ! tm capture-pane -p -t "$S" | grep -q 'lanes\? '; do sleep 0.1; i=$((i + 1)); done
		tm send-keys -t "$S" : "goto $t" Enter z
		i=0
		while [ $i -lt 50 ] && ! tm capture-pane -p -t "$S" | tail -n 1 | grep -q 'depth [0-9]'; do
			sleep 0.1
			i=$((i + 1))
		done
		tm capture-pane -p -t "$S" >"$TMP/$fmt-$size-tmux.txt"
		check "$fmt" "$size (tmux)" "$TMP/$fmt-$size-tmux.txt"
		tm kill-server 2>/dev/null
	done
done
done_testing
