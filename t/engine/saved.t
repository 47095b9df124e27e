#!/bin/sh
# The saved index (src/saved.h): a trace opened again is read back from the
# index its last run saved and shows exactly what indexing it afresh shows
# (every format, damaged and cut short too, gzip-compressed too; dial9
# segment directories, ATF sessions); a
# changed file is indexed afresh; a damaged index is never trusted;
# --no-cache, --cache-size and the least recently used order; the viewer
# on a reopened trace.
. "$(dirname "$0")/../lib.sh"

export TTV_SAVE_MIN=0 # (small fixtures are saved too)
SAVES="atf dial9 htdump podtrace syscall" # the formats that save their index
IDX=$XDG_CACHE_HOME/ttv
nidx() { find "$IDX" -name 'index-*' -type f 2>/dev/null | wc -l | tr -d ' '; }
saved() { "$TTV" "$@" --info --json 2>/dev/null | grep -o '"saved":[a-z]*' | cut -d: -f2; }
# out ARGS: what a batch run prints, and its status (--info's line on where
# its index came from left out); out_to FILE ARGS: the same into FILE (the
# outputs compared are megabytes: as files, not shell strings)
out_to() {
	_to=$1
	shift
	"$TTV" "$@" >"$TMP/o" 2>"$TMP/e"
	_rc=$?
	{ echo "status $_rc"; grep -v '^index: \|^$' "$TMP/o"; cat "$TMP/e"; } >"$_to"
}
out() { out_to "$TMP/out" "$@"; cat "$TMP/out"; }
# same WHAT TRACE...: every batch mode, from the saved index, as afresh
same() {
	what=$1
	shift
	for mode in --dump "--dump --json" --info "--stats --json"; do
		# shellcheck disable=SC2086
		out_to "$TMP/fresh" --no-cache $mode "$@"
		# shellcheck disable=SC2086
		out_to "$TMP/got" $mode "$@"
		same_file "$TMP/got" "$TMP/fresh" "$what: $mode as afresh"
	done
}
saves() { case " $SAVES " in *" $1 "*) return 0 ;; esac; return 1; }
# grown WHAT FILE MORE WANT [TRACE]: the index of TRACE (FILE itself, or
# the directory that holds it) saved, then MORE appended to FILE: every
# mode reads on from the index as saved (put back before each) as afresh;
# WANT: whether it reads on (true) or indexes afresh (false)
grown() {
	trace=${5:-$2}
	rm -rf "$IDX"
	"$TTV" --info "$trace" >/dev/null 2>&1
	cp -r "$IDX" "$TMP/idx-saved"
	cat "$3" >>"$2"
	is "$(saved "$trace")" "$4" "$1: the file grew: read on from its index: $4"
	for mode in --dump "--dump --json" --info "--stats --json"; do
		rm -rf "$IDX"
		cp -r "$TMP/idx-saved" "$IDX"
		# shellcheck disable=SC2086
		out_to "$TMP/got" $mode "$trace"
		# shellcheck disable=SC2086
		out_to "$TMP/fresh" --no-cache $mode "$trace"
		same_file "$TMP/got" "$TMP/fresh" "$1: $mode as afresh"
	done
	rm -rf "$TMP/idx-saved"
}

for name in $(formats); do
	writer=$(format_field "$name" writer) unit=$(format_field "$name" unit)
	t=$TMP/$name.trace
	"$TBIN/$writer" --generate $((1048576 / unit + 1)) --seed 7 "$t" || exit 1
	if [ -f "$t" ]; then
		size=$(stat -c %s "$t")
		head -c $((size * 2 / 3)) "$t" >"$t.cut"
		cp "$t" "$t.bad"
		head -c 200 /dev/urandom | dd of="$t.bad" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
		gzip -c "$t" >"$t.gz"
		gzsize=$(stat -c %s "$t.gz")
		head -c $((gzsize * 2 / 3)) "$t.gz" >"$t.gzcut" # (the stream cut short: damage)
		variants="$t $t.cut $t.bad $t.gz $t.gzcut"
	else # a directory (ATF): its data files cut short, or damaged
		parts=$(format_field "$name" parts)
		cp -r "$t" "$t.cut"
		cp -r "$t" "$t.bad"
		for f in $(find "$t.cut" -name "$parts" -type f); do truncate -s $(($(stat -c %s "$f") * 2 / 3)) "$f"; done
		for f in $(find "$t.bad" -name "$parts" -type f); do
			head -c 200 /dev/urandom | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") / 2)) conv=notrunc 2>/dev/null
		done
		variants="$t $t.cut $t.bad"
	fi
	for v in $variants; do
		rm -rf "$IDX"
		sum=$(find "$v" -type f -exec cksum {} + | sort)
		"$TTV" --info "$v" >/dev/null 2>&1
		if saves "$name"; then want=true n=1; else want=false n=0; fi
		is "$(nidx)" "$n" "$name ${v#"$t"}: $n index saved"
		is "$(saved "$v")" "$want" "$name ${v#"$t"}: reopened from it: $want"
		same "$name ${v#"$t"}" "$v"
		is "$(find "$v" -type f -exec cksum {} + | sort)" "$sum" "$name ${v#"$t"}: the trace is not written"
	done
	if saves "$name" && [ -f "$t" ]; then
		# the file grows: another capture after it (each format reads two in a row)
		"$TBIN/$writer" --generate $((1048576 / unit + 1)) --seed 8 "$t.more" || exit 1
		cp "$t" "$t.grown"
		grown "$name" "$t.grown" "$t.more" true
		# cut inside a record when its index was saved (damage): afresh
		head -c $((size - 5)) "$t" >"$t.grown"
		tail -c 5 "$t" >"$t.rest"
		grown "$name cut short" "$t.grown" "$t.rest" false
		# a gzip file cannot be inflated on from where it was: another
		# member appended, it is indexed afresh
		cp "$t.gz" "$t.gzgrown"
		gzip -c "$t.more" >"$t.more.gz"
		grown "$name gzip" "$t.gzgrown" "$t.more.gz" false
	elif saves "$name"; then
		# a session is not read on: a data file that grew, afresh
		cp -r "$t" "$t.grown"
		f=$(find "$t.grown" -name "$(format_field "$name" parts)" -type f | sort | tail -1)
		head -c 4096 "$f" >"$t.more"
		grown "$name, a file of its directory" "$f" "$t.more" false "$t.grown"
	fi
done

# ---- dial9 segment directories ----
D=$TMP/segs
mkdir -p "$D"
for n in 0 1 2; do "$TBIN/d9write" --generate 20000 --seed $((n + 1)) "$D/trace.$n.bin" || exit 1; done
mv "$D/trace.2.bin" "$D/trace.2.bin.active"
"$TBIN/d9write" --generate 2000 --seed 9 "$TMP/more.bin" || exit 1
sum=$(find "$D" -type f -exec cksum {} + | sort)
rm -rf "$IDX"
"$TTV" --info "$D" >/dev/null 2>&1
is "$(nidx)" 1 "dial9 directory: its index saved"
is "$(saved "$D")" true "dial9 directory: reopened from it"
same "dial9 directory" "$D"
is "$(find "$D" -type f -exec cksum {} + | sort)" "$sum" "dial9 directory: no segment is written"
grown "dial9 directory, its active segment" "$D/trace.2.bin.active" "$TMP/more.bin" true "$D"
mv "$D/trace.2.bin.active" "$D/trace.2.bin"
is "$(saved "$D")" false "dial9 directory: the active segment sealed (renamed): indexed afresh"
is "$(saved "$D")" true "... and that index used the next time"
cp "$TMP/more.bin" "$D/trace.3.bin"
is "$(saved "$D")" false "dial9 directory: a new segment: indexed afresh"
same "dial9 directory with a new segment" "$D"
gzip -c "$TMP/more.bin" >"$D/trace.4.bin.gz"
rm -rf "$IDX"
"$TTV" --info "$D" >/dev/null 2>&1
is "$(nidx)" 1 "dial9 directory with a compressed segment: its index saved"
is "$(saved "$D")" true "... reopened from it"
same "dial9 directory with a compressed segment" "$D"
# the uploader's tree: a trace (a source) per service, instance and boot
up=$TMP/tree
mkdir -p "$up/svc-a/host-1/abcd-11" "$up/svc-b/host-2/efgh-22"
"$TBIN/d9write" --generate 20000 --seed 5 "$up/svc-a/host-1/abcd-11/1775763000-0.bin" || exit 1
"$TBIN/d9write" --generate 20000 --seed 6 "$up/svc-a/host-1/abcd-11/1775763060-1.bin" || exit 1
"$TBIN/d9write" --generate 20000 --seed 7 "$up/svc-b/host-2/efgh-22/1775763000-0.bin" || exit 1
rm -rf "$IDX"
"$TTV" --info "$up" >/dev/null 2>&1
is "$(saved "$up")" true "dial9 tree of two services: reopened from its index"
same "dial9 tree of two services" "$up"
like "$(out --info "$up")" "^$up: .* \\(boot efgh-22\\)" "... two traces, named by their boots"
"$TBIN/ptwrite" --generate 20000 --seed 3 "$TMP/with.pt" || exit 1
"$TTV" --info "$up" "$TMP/with.pt" >/dev/null 2>&1
is "$(saved "$up" "$TMP/with.pt")" true "a tree and a file together: reopened from their index"
same "a tree and a file together" "$up" "$TMP/with.pt"

# ---- what decides whether an index is used (podtrace) ----
P=$TMP/p.pt
"$TBIN/ptwrite" --generate 20000 --seed 3 "$P" || exit 1
rm -rf "$IDX"
is "$(saved --no-cache "$P")$(nidx)" false0 "--no-cache: nothing saved"
"$TTV" --info "$P" >/dev/null
is "$(saved --no-cache "$P")" false "--no-cache: a saved index is not used"
is "$(saved "$P")" true "without it, it is"
cp "$TTV" "$TMP/ttv-rebuilt"
is "$("$TMP/ttv-rebuilt" --info --json "$P" | grep -o '"saved":[a-z]*')" '"saved":false' \
	"another ttv executable (rebuilt, upgraded) does not use it"
cp "$P" "$TMP/twice.pt"
cat "$TMP/twice.pt" >>"$P"
is "$(saved "$P")" true "the file grew: read on from its index"
same "grown" "$P"
cat "$TMP/twice.pt" >"$P"
is "$(saved "$P")" false "rewritten shorter (the same inode): indexed afresh"
printf 'X' | dd of="$P" bs=1 seek=$(($(stat -c %s "$P") / 2)) conv=notrunc 2>/dev/null
is "$(saved "$P")" false "a byte in the middle changed (same size, a new mtime): indexed afresh"
same "changed" "$P"
"$TBIN/ptwrite" --generate 5000 --seed 4 "$TMP/q.pt" || exit 1
"$TTV" --info "$P" "$TMP/q.pt" >/dev/null
is "$(saved "$P" "$TMP/q.pt")" true "two files merged: reopened from their index"
is "$(saved "$TMP/q.pt" "$P")" false "... which is not the index of the same files in another order"
same "merged" "$P" "$TMP/q.pt"

# ---- a damaged index: never trusted, replaced ----
rm -rf "$IDX"
"$TBIN/ptwrite" --generate 20000 --seed 3 "$P" || exit 1
"$TTV" --info "$P" >/dev/null
f=$(find "$IDX" -name 'index-*' -type f)
cp "$f" "$TMP/pristine"
out_to "$TMP/fresh" --no-cache --dump --json "$P"
head -c $(($(stat -c %s "$f") / 2)) "$TMP/pristine" >"$f"
out_to "$TMP/got" --dump --json "$P"
same_file "$TMP/got" "$TMP/fresh" "an index cut in half: indexed afresh"
is "$(saved "$P")" true "... and saved whole again"
cp "$TMP/pristine" "$f"
printf 'Z' | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null
out_to "$TMP/got" --dump --json "$P"
same_file "$TMP/got" "$TMP/fresh" "a byte of its meta changed (its hash no longer holds): indexed afresh"
# damaged N [--strings]: N bytes of the index $f (the saved $TMP/pristine)
# damaged one at a time, in its meta (the hash written again) or in its
# strings part: how many runs of trace $t crashed, reported or failed
damaged() {
	# shellcheck disable=SC2086 # ($2: none, or --strings)
	size=$("$TBIN/rehash" ${2-} "$f" 0 0) || exit 1
	bad=0
	for off in $(awk -v n="$size" -v k="$1" 'BEGIN { for (i = 0; i < k; i++) print int(i * 7919 % n) }'); do
		cp "$TMP/pristine" "$f"
		"$TBIN/rehash" ${2-} "$f" "$off" 0x5a >/dev/null || exit 1
		"$TTV" --dump --json "$t" >"$TMP/o" 2>"$TMP/e"
		rc=$?
		if { [ $rc != 0 ] && [ $rc != 3 ]; } || grep -q 'Sanitizer\|runtime error' "$TMP/e"; then
			bad=$((bad + 1))
			echo "# ${2-} offset $off: status $rc: $(head -c 300 "$TMP/e")" >&2
		fi
	done
	cp "$TMP/pristine" "$f"
	echo "$bad"
}
# Damage that passes the hash reaches the checks of each value read back:
# whatever it makes of the index, ttv neither crashes nor reads outside it.
# The strings part is no hash's: damage there gives wrong strings at worst.
# (A trace of a quarter megabyte: its index has blocks enough, and each of
# the 132 runs reads all of it.  Offsets spread over the index, 7919 bytes
# apart; t/fuzz/fuzz_saved.c searches it through, `make fuzz`.)
for name in $SAVES; do
	t=$TMP/$name.small
	generate "$name" 262144 7 "$t" >/dev/null || exit 1
	rm -rf "$IDX"
	"$TTV" --info "$t" >/dev/null
	f=$(find "$IDX" -name 'index-*' -type f)
	cp "$f" "$TMP/pristine"
	is "$(damaged 96)" 0 "$name: 96 damaged values that pass the hash: no crash, no sanitizer report, status 0 or 3"
	is "$(damaged 36 --strings)" 0 "$name: 36 damaged bytes of its strings: the same"
done

# ---- the shared samples (real files) ----
for name in $SAVES; do
	s=$(sample "$name") || exit 1
	rm -rf "$IDX"
	"$TTV" --info "$s" >/dev/null 2>&1
	if [ "$name" = atf ]; then # an index.atf opened by itself brings its detail.atf: never saved
		is "$(nidx)" 0 "$name sample, a file of a session: no index saved"
		s=$(dirname "$(dirname "$s")")
		"$TTV" --info "$s" >/dev/null 2>&1
	fi
	is "$(saved "$s")" true "$name sample: reopened from its index"
	same "$name sample" "$s"
done
# a session a crash left half-written
s=$SAMPLES/atf/crash_sigkill
rm -rf "$IDX"
"$TTV" --info "$s" >/dev/null 2>&1
is "$(saved "$s")" true "atf crash sample: reopened from its index"
same "atf crash sample" "$s"

# ---- the limit: least recently used first ----
rm -rf "$IDX"
for x in a b c; do "$TBIN/ptwrite" --generate 20000 --seed 9 "$TMP/$x.pt" || exit 1; done
"$TTV" --info "$TMP/a.pt" >/dev/null
one=$(du -sb "$IDX" | cut -f1)
"$TTV" --info "$TMP/b.pt" >/dev/null
is "$(saved "$TMP/a.pt")" true "a reopened (and so used after b)"
"$TTV" --cache-size $((one * 5 / 2)) --info "$TMP/c.pt" >/dev/null
is "$(nidx)" 2 "c saved past the limit of two: one went"
is "$(saved --cache-size $((one * 5 / 2)) "$TMP/c.pt")$(saved --cache-size $((one * 5 / 2)) "$TMP/a.pt")" truetrue "a's and c's were kept"
is "$(saved --cache-size $((one * 5 / 2)) "$TMP/b.pt")" false "... b's went, the least recently used"
# (b written and a reopened come within a few ms: the order of their use
# is kept finer than the kernel's file times, whose tick once made them tie)
lost=0
for try in 1 2 3 4 5 6; do
	rm -rf "$IDX"
	for x in a b a; do "$TTV" --info "$TMP/$x.pt" >/dev/null; done
	"$TTV" --cache-size $((one * 5 / 2)) --info "$TMP/c.pt" >/dev/null
	[ "$(saved --cache-size $((one * 5 / 2)) "$TMP/a.pt")" = true ] || lost=$((lost + 1))
done
is "$lost" 0 "... so in every one of 6 tries (a used just after b was written)"
rm -rf "$IDX"
"$TTV" --cache-size $((one / 2)) --info "$TMP/b.pt" >/dev/null
is "$(saved --cache-size $((one / 2)) "$TMP/b.pt")" false "an index larger than the limit is not saved"

# A fleet's index as the viewer saves it (its instances' parts made one
# store) is read back by every run, not indexed afresh: batch modes read
# the same from it.
for w in d9write ptwrite; do
	rm -rf "$IDX"
	# shellcheck disable=SC2046
	set -- $(fleet $w 5 "$TMP/saved-fleet-$w")
	echo q >"$TMP/q.script"
	TTV_SCRIPT=$TMP/q.script "$TTV" "$@" >/dev/null 2>&1
	is "$(saved "$@")" true "$w, 5 instances: the index the viewer saved (one store) is read back"
	same "$w, 5 instances, from the viewer's index" "$@"
done

# ---- the viewer on a reopened trace (tmux) ----
if command -v tmux >/dev/null 2>&1; then
	S=ttv-test-$$
	# view ARGS: the list at the last event, 80x24
	view() {
		session 80x24 "TERM=xterm-256color '$TTV' $*"
		wait_for "#1/20000"
		tm send-keys -t "$S" Tab G
		wait_for "#20000/20000"
		screen >"$TMP/screen"
		tm send-keys -t "$S" q
		wait_for "exit=0"
		echo "exit=$?"
		tm kill-server 2>/dev/null
	}
	rm -rf "$IDX"
	"$TBIN/ptwrite" --generate 20000 --seed 3 "$P" || exit 1
	"$TTV" --info "$P" >/dev/null
	is "$(view "'$P'")" exit=0 "the viewer opens a reopened trace, goes to its last event and quits"
	cp "$TMP/screen" "$TMP/screen-saved"
	is "$(view --no-cache "'$P'")" exit=0 "... and afresh"
	is "$(cat "$TMP/screen-saved")" "$(cat "$TMP/screen")" "the same screen at the last event, from the saved index and afresh"
	# the viewer saves the index of a trace it has read in full while it is
	# used (q need not wait for it), whole or not at all
	rm -rf "$IDX"
	tm new-session -d -s "$S" -x 80 -y 24 "TERM=xterm-256color '$TTV' '$P'; sleep 30"
	wait_for "/20000"
	n=0
	while [ "$(nidx)" != 1 ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	is "$(nidx)" 1 "the viewer saves the index of a trace read in full while it is shown"
	tm kill-server 2>/dev/null
	sleep 0.5
	is "$(find "$IDX" -name 'index-*.*' | wc -l | tr -d ' ')" 0 "... its terminal closed (SIGHUP): nothing half-written left"
	is "$(saved "$P")" true "... the next run reads it back"
	rm -rf "$IDX"
	is "$(view "'$P'")" exit=0 "the viewer reads the trace in full, q"
	is "$(nidx)" 1 "... and has saved its index"
	is "$(saved "$P")" true "... which the next run reads back"
	# following (-f): the saved index, then what the file grows by
	rm -rf "$IDX"
	"$TTV" --info "$P" >/dev/null
	session 80x24 "TERM=xterm-256color '$TTV' -f '$P'"
	wait_for "/20000"
	ok $? "-f: the viewer opens from the saved index"
	"$TBIN/ptwrite" --generate 5000 --seed 4 "$TMP/more.pt" || exit 1
	cat "$TMP/more.pt" >>"$P"
	wait_for "/25000"
	ok $? "... and follows what the file grows by (20000 + 5000 events)"
	quits "... and quits"
	is "$(saved "$P")" true "the next run reads on from the index saved before the file grew"
else
	ok 0 "# SKIP tmux is not installed"
fi

done_testing
