#!/bin/sh
# termbytes.sh SIZE CMD...: the bytes CMD writes to its terminal (a tmux
# pane of SIZE, e.g. 80x24, TERM=xterm-256color, read with pipe-pane) for
# each of 15 line moves (j) and 5 pages (Space) once its first screen is
# drawn; prints "line MEDIAN MIN MAX" and "page MEDIAN MIN MAX".  KEYS, when
# set, are sent first (ttv: Tab for the list).  FOLLOW=FILE:RECORD: instead,
# the bytes for each of 10 appends of RECORD's bytes to FILE (CMD follows
# it): "follow MEDIAN MIN MAX".  Idle: "idle N", the bytes in a second
# with nothing sent.  (make bench: t/bench.sh.)
set -eu
size=$1; shift
S=ttv-bytes-$$
out=$(mktemp) cmdf=$(mktemp) line=$(mktemp) page=$(mktemp)
trap 'tmux -L "$S" kill-server 2>/dev/null; rm -f "$out" "$cmdf" "$line" "$page"' EXIT
# the command, quoted for the pane's shell
for a in "$@"; do printf "'%s' " "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"; done >"$cmdf"
tmux -L "$S" new-session -d -s b -x "${size%x*}" -y "${size#*x}" "sleep 0.3; TERM=xterm-256color $(cat "$cmdf"); sleep 60"
tmux -L "$S" pipe-pane -t b -o "cat >'$out'"
# settled: nothing written for 0.3 s
settle() {
	a=-1
	b=$(stat -c %s "$out" 2>/dev/null || echo 0)
	while [ "$a" != "$b" ]; do
		sleep 0.3
		a=$b
		b=$(stat -c %s "$out" 2>/dev/null || echo 0)
	done
	echo "$b"
}
sleep 1
settle >/dev/null
for k in ${KEYS:-}; do tmux -L "$S" send-keys -t b "$k"; done
s0=$(settle)
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
# each KEY N times: the bytes each took, into FILE
measure() {
	key=$1 n=$2 file=$3
	: >"$file"
	i=0
	while [ $i -lt "$n" ]; do
		tmux -L "$S" send-keys -t b "$key"
		s1=$(settle)
		echo $((s1 - s0)) >>"$file"
		s0=$s1
		i=$((i + 1))
	done
}
if [ -n "${FOLLOW:-}" ]; then
	file=${FOLLOW%%:*} rec=${FOLLOW#*:}
	: >"$line"
	i=0
	while [ $i -lt 10 ]; do
		cat "$rec" >>"$file"
		s1=$(settle)
		echo $((s1 - s0)) >>"$line"
		s0=$s1
		i=$((i + 1))
	done
	echo "follow $(stats <"$line")"
else
	measure j 15 "$line"
	measure Space 5 "$page"
	echo "line $(stats <"$line")"
	echo "page $(stats <"$page")"
fi
sleep 1
echo "idle $(($(stat -c %s "$out") - s0))"
