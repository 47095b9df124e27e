#!/bin/sh
# leftovers.sh NAME=VALUE: stop every process whose environment holds
# NAME=VALUE (the tests export a tag that ttv, tmux servers, writers and
# servers they start inherit), except this script and its callers.  Each
# one is given a second to end by itself; what is still there is named on
# stdout (a TAP comment) and stopped (SIGTERM, then SIGKILL).  Exit 1 when
# anything had to be stopped.
#
# t/lib.sh runs it on exit with the test's own tag (nothing a test starts
# outlives it); make check runs it after the suite with the suite's tag and
# fails when anything was still running.
set -u
want=$1
# without the tag ourselves, so that our own children are not counted
if env | grep -qxF -- "$want"; then
	exec env -u "${want%%=*}" "$0" "$@"
fi

ancestors=" $$ "
p=$$
while [ "$p" -gt 1 ] 2>/dev/null; do
	p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || break
	ancestors="$ancestors$p "
done

# The pids still running with the tag (zombies have no environment).
tagged() {
	grep -lzxF -- "$want" /proc/[0-9]*/environ 2>/dev/null |
		while IFS= read -r f; do
			pid=${f#/proc/}
			pid=${pid%/environ}
			case $ancestors in *" $pid "*) continue ;; esac
			echo "$pid"
		done
}

# a second for what is already going away (a tmux server after kill-server)
i=0
while [ -n "$(tagged)" ] && [ $i -lt 10 ]; do sleep 0.1; i=$((i + 1)); done
left=$(tagged)
[ -n "$left" ] || exit 0
for pid in $left; do
	echo "# left running: $pid $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"
done
for sig in TERM KILL; do
	left=$(tagged)
	[ -n "$left" ] || break
	# shellcheck disable=SC2086
	kill -s $sig $left 2>/dev/null
	i=0
	while [ -n "$(tagged)" ] && [ $i -lt 10 ]; do sleep 0.1; i=$((i + 1)); done
done
exit 1
