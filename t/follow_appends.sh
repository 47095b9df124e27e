#!/bin/sh
# follow_appends.sh TTV DIR: the viewer (TTV, a ttv binary or wrapper)
# follows a copy of the directory DIR whose files are cut to their first
# half, while 8 KiB is appended to each in turn, 20 times (a writer's
# buffered output landing, torn records and all); prints, one line an
# append, the ns from just before it to the screen drawn with its events.
# t/bench.sh's follow rows are made with it; for A/B runs of two builds,
# each one's median, in turn:
#   for r in 1 2 3; do for b in OLD NEW; do t/follow_appends.sh $b DIR | sort -n | sed -n 10p; done; done
set -u
ttv=$1 grown=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
live=$work/live
cp -rL "$grown" "$live"
set -- $(cd "$live" && find . -type f | sort)
nf=$#
for f; do truncate -s $(($(stat -c %s "$live/$f") / 2)) "$live/$f"; done
n=20 i=0
while [ $i -lt $n ]; do
	eval "f=\${$((i % nf + 1))}"
	at=$(($(stat -L -c %s "$grown/$f") / 2 + i / nf * 8192))
	echo "shell (sleep 0.05; date +%s%N >>$work/marks; tail -c +$((at + 1)) $grown/$f | head -c 8192 >>$live/$f) &"
	echo await
	i=$((i + 1))
done >"$work/script"
TTV_SCRIPT=$work/script TTV_SCRIPT_TIMING=$work/times TTV_SIZE=120x40 "$ttv" --no-cache --follow "$live" \
	>/dev/null 2>&1 || true
grep '^await' "$work/times" | cut -f3 | paste - "$work/marks" | awk '{ print $1 - $2 }'
