#!/bin/sh
# Read-only: reading a trace (every batch mode, the viewer) leaves every byte,
# the mode, the size and the modification time of each file as they were, and
# creates nothing next to it.  Run over every shared sample of every format
# (t/formats/table; what else lies in t/samples/NAME/ too) and a gzip file.
. "$(dirname "$0")/../lib.sh"

# state DIR-OR-FILE: what must not change
state() {
	find "$1" -print0 | sort -z | xargs -0 stat -c '%n %s %a %y' | sed "s|$ROOT/||"
	find "$1" -type f -print0 | sort -z | xargs -0 sha256sum | sed "s|$ROOT/||"
}

gzip -c "$SAMPLES/podtrace/small.ptrace" >"$TMP/small.ptrace.gz"
touch -d '2020-01-02 03:04:05.123456789' "$TMP/small.ptrace.gz"
chmod 0444 "$TMP/small.ptrace.gz"
printf 'Tab\nj\nEnter\nq\n=\nq\nEnd\n/a\n' >"$TMP/keys"
set -- "$TMP/small.ptrace.gz"
for f in $(formats); do set -- "$@" "$SAMPLES/$f"/*; done
for trace in "$@"; do
	name=${trace#"$ROOT"/}
	if [ ! -e "$trace" ]; then # (a format with no sample: the glob is left as it is)
		ok 1 "$name: a sample is there"
		continue
	fi
	big=$(find "$trace" -maxdepth 0 -size +500k)
	before=$(state "$trace")
	for mode in --info --dump "--dump --json" --stats "--stats --json"; do
		[ -n "$big" ] && [ "$mode" != --info ] && continue # large samples: --info reads it all too
		# shellcheck disable=SC2086
		"$TTV" $mode "$trace" >/dev/null 2>&1
	done
	[ -n "$big" ] || (cd "$TMP" && TTV_SCRIPT=$TMP/keys TTV_SIZE=80x24 "$TTV" "$trace" >/dev/null 2>&1)
	is "$(state "$trace")" "$before" "$name: bytes, size, mode and mtime unchanged after reading${big:+ (--info only: large)}"
done
# nothing was created next to the samples
is "$(cd "$ROOT" && git status --porcelain --untracked-files=all -- t/samples 2>/dev/null)" "" "no file created or changed in t/samples"
done_testing
