#!/bin/sh
# syscall capture (TLV): the shared samples' figures (samples/README.md), the
# writer t/scwrite.c reproducing them byte for byte, and fixtures for pages
# with stale gaps, fork streams, stale tails, both byte orders, the spec's
# variants, every argument IE kind and damage.
. "$(dirname "$0")/../lib.sh"

D=$SAMPLES/syscall
SC=$TBIN/scwrite
names() { printf '%s\n' "$1" | awk -F'\t' '{print $3}' | sort | uniq -c | sort -k1,1rn -k2 | awk '{printf "%s %s, ", $2, $1}'; }
summ() { "$TTV" --dump "$1" | cut -f4; }

# ---- ls_l.dat ----
run --info "$D/ls_l.dat"
is "$RC" 0 "ls_l: exit 0"
like "$OUT" "format:  syscall" "ls_l: probed as syscall"
like "$OUT" "events:  62$" "ls_l: 62 records"
like "$OUT" "streams: 1$" "ls_l: one stream"
like "$OUT" "tid: 10234$" "ls_l: header tid"
like "$OUT" "mono_ref: 632713948475 ns" "ls_l: mono_ref"
like "$OUT" "epoch_s: 1795267522 \(2026-11-21 13:25:22 UTC\)" "ls_l: epoch as a UTC date"
like "$OUT" 'uname: "Linux vm 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0 x86_64 \(none\)"' "ls_l: uname"
like "$OUT" "gaps: 0$" "ls_l: no gaps"
run --dump "$D/ls_l.dat"
is "$(names "$OUT")" "close 11, newfstatat 11, getxattr 6, read 6, openat 5, connect 4, lgetxattr 4, socket 4, statx 4, lseek 3, getdents64 2, ioctl 1, write 1, " \
	"ls_l: records per syscall"
is "$(printf '%s\n' "$OUT" | grep -c 'connect() = -1 ENOENT (-2)')" 4 "ls_l: every connect is -1 ENOENT"
L=$(summ "$D/ls_l.dat")
is "$(printf '%s\n' "$L" | head -1)" 'ioctl(1, 21505, 0x7ffcf3bfb4e0) = -1 ENOTTY (-25) <9965ns>' "ls_l: the first record, strace style"
like "$L" '^read\(4, "root:x:0:0:root:/root:/bin/bash\\n…", 4096\) = 1221 <[0-9]+ns>$' "ls_l: /etc/passwd read"
like "$L" '^write\(1, "total 12\\n-rw-r--r-- 1 root root    6 Jan  2  2024 a\.txt\\n…", 148\) = 148 <22173ns>$' "ls_l: the listing written"
like "$L" 'lseek\(4, -60, 1\) = 54 <' "ls_l: a negative offset"
like "$L" 'statx\(\) = 0 <' "ls_l: a call without IEs"
like "$L" 'openat\(\) = 4 <' "ls_l: openat returns 4"
is "$(printf '%s\n' "$L" | tail -2 | sed 's/ <.*//' | tr '\n' ';')" "close(1) = 0;close(2) = 0;" "ls_l: the last two records"
run --dump --json "$D/ls_l.dat"
like "$(printf '%s\n' "$OUT" | grep '"offset":108,')" '"type":"ioctl".*"return":-25,' "ls_l: first record at 0x6c"
like "$(printf '%s\n' "$OUT" | grep '"offset":1368,')" '"type":"read".*"return":1221' "ls_l: the read at 0x558"
like "$(printf '%s\n' "$OUT" | grep '"offset":4600,')" '"type":"write".*"dur":22173,' "ls_l: the write at 0x11f8, its duration as the span"
like "$(printf '%s\n' "$OUT" | grep '"offset":4400,')" '"type":"lseek".*"name":"offset","ie":"int","value":-60' "ls_l: lseek at 0x1130"
like "$(printf '%s\n' "$OUT" | grep '"offset":108,')" '"name":"cmd","ie":"int","value":21505' "ls_l: ioctl cmd"
run --stats "$D/ls_l.dat"
like "$OUT" "11  close" "--stats counts per syscall"

# ---- argtypes.dat: every argument IE kind ----
run --dump "$D/argtypes.dat"
is "$RC" 0 "argtypes: exit 0"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 30 "argtypes: 30 records"
is "$(names "$OUT")" "write 4, close 2, read 2, rt_sigaction 2, brk 1, fstat 1, getpid 1, ioctl 1, lseek 1, lstat 1, mmap 1, mprotect 1, munmap 1, open 1, openat 1, pipe2 1, poll 1, pread64 1, pwrite64 1, readv 1, rt_sigprocmask 1, stat 1, unlink 1, writev 1, " \
	"argtypes: records per syscall"
L=$(summ "$D/argtypes.dat" | sed 's/^+[0-9.]*s //; s/ <[0-9.]*[mun]*s>$//')
like "$L" '^stat\("/etc/hostname", \{st_mode=0100755, st_size=3, st_ino=733\}\) = 0$' "stat IE"
like "$L" '^lstat\("/nonexistent/file", \{st_mode=0100755, st_size=3, st_ino=733\} /\* stale \*/\) = -1 ENOENT \(-2\)$' "stat IE of a failed call: stale"
like "$L" '^open\("/work/research/podtrace_syscall/fixtures/hello\.txt", 0, 0\) = 4$' "open: the path in full"
like "$L" '^fstat\(4, \{st_mode=0100644, st_size=35, st_ino=5341217\}\) = 0$' "fstat"
like "$L" '^pread64\(4, " syscall capture\\nsecond line\\n", 64, 6\) = 29$' "pread64"
like "$L" '^read\(9999, <0 of 0 bytes>, 16\) = -1 EBADF \(-9\)$' "IE 3 with real length 0"
like "$L" '^readv\(4, 0x7ffe51dc2950, 2 /\* junk: 0, 0, 0 \*/\) = 8$' "readv: six int IEs, the last three marked junk"
like "$L" '^writev\(\) = 8$' "writev: no IEs"
like "$L" '^poll\(\[\{fd=4, events=0x1, revents=0x1\}, \{fd=5, events=0x4, revents=0x4\}\], 2, 100\) = 2$' "pollfd array"
like "$L" '^rt_sigaction\(10, \{handler=0x55eef143a1c9, flags bytes 0000001400000000\}, NULL, 8\) = 0$' "sigaction, then NULL"
like "$L" '^rt_sigaction\(10, NULL, \{handler=0x55eef143a1c9, flags bytes 0000001400000000\}, 8\) = 0$' "NULL, then sigaction"
like "$L" '^rt_sigprocmask\(0, 0x7ffe51dc2770, 0, 8\) = 0$' "rt_sigprocmask pointers in hex"
like "$L" '^pwrite64\(6, "0123456789abcdef", 16, 100\) = 16$' "pwrite64"
like "$L" '^write\(6, "ABCDEFGHIJ[A-Z]*…" <65531 of 70000 bytes>, 70000\) = 70000$' "IE 3: 65531 of 70000 bytes kept"
like "$L" '^mmap\(0, 8192, 3, 34, 4294967295, 0\) = 0x7f37637c6000$' "mmap: fd -1 as 4294967295, the address in hex"
like "$L" '^brk\(0\) = 0x55ef1f944000$' "brk result in hex"
like "$L" '^getpid\(\) = 10243$' "getpid"
is "$(printf '%s\n' "$L" | tail -1)" 'write(1, "argtypes done\n", 14) = 14' "argtypes: the last record"
run --dump --json "$D/argtypes.dat"
J=$OUT
like "$(printf '%s\n' "$J" | grep '"offset":1720,')" '"ie":"data_truncated","real_length":70000,"kept":65531' "write at 0x6b8: IE 3 fields"
like "$J" '"name":"statbuf","ie":"stat","stale":true,"st_dev":[0-9]+,"st_ino":733,"st_mode":33261,' "stat fields, stale flag"
like "$J" '"name":"act","ie":"sigaction","handler":"0x55eef143a1c9","handler_again":"0x55eef143a1c9","flags_bytes":"00 00 00 14 00 00 00 00","sa_flags":"0x14000000"' "sigaction fields"
like "$J" '"name":"fds","ie":"pollfd","nfds":2,"fds":\[\{"fd":4,"events":"0x1","events_name":"POLLIN","revents":"0x1","revents_name":"POLLIN"\}' "pollfd fields"
like "$J" '"type":"open",.*"path":"/work/research/podtrace_syscall/fixtures/hello.txt"' "the path is the open's name field"
run --dump -e 'path:hello' "$D/argtypes.dat"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "filter on the path field"
run --dump "$D/argtypes.dat" --format syscall
is "$RC" 0 "--format syscall on a real capture"

# ---- forker.dat: two streams ----
run --info "$D/forker.dat"
is "$RC" 0 "forker: exit 0"
like "$OUT" "streams: 2$" "forker: two streams"
like "$OUT" "offset: 296$" "forker: the second magic at 296"
like "$OUT" 'role: "child \(has clone\(\) = 0\)"' "forker: the first stream is the child"
like "$OUT" "duplicates: 1 " "forker: the write from before the fork is noted as duplicated"
run --dump "$D/forker.dat"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 8 "forker: 8 records"
is "$(printf '%s\n' "$OUT" | grep 'stream 1, child' | cut -f4 | sed 's/ <.*//' | tr '\n' ';')" \
	'write(1, "parent before fork\n", 19) = 19;clone() = 0;set_robust_list() = 0;write(1, "child says hi\n", 14) = 14;' \
	"forker: the child's stream"
is "$(printf '%s\n' "$OUT" | grep 'pid 10250 (stream 2)' | cut -f4 | sed 's/ <.*//' | tr '\n' ';')" \
	'write(1, "parent before fork\n", 19) = 19;clone() = 10251;wait4() = 10251;write(1, "parent after wait\n", 18) = 18;' \
	"forker: the parent's stream, a lane of its own"
like "$OUT" 'stream 2\)	write	write\(1, "parent before fork\\n", 19\) = 19 <37756ns> \[copy\]' "forker: the duplicate is marked"

# ---- cat_3m.dat: pages, fillers, gaps ----
run --info --json "$D/cat_3m.dat"
is "$RC" 0 "cat_3m: exit 0"
like "$OUT" '"events":56,' "cat_3m: 56 records"
like "$OUT" '"tid":10304,.*"mono_ref":633608434498,' "cat_3m: header"
like "$OUT" '"pages":4,"fillers":3,' "cat_3m: 4 pages, 3 fillers"
like "$OUT" '"filler_list":\[\{"offset":984116,"bytes":64452\},\{"offset":2032396,"bytes":64748\},\{"offset":3080972,"bytes":64748\}\]' \
	"cat_3m: fillers at 0xf0434, 0x1f030c, 0x2f030c"
like "$OUT" '"gaps":3,"gap_bytes":393528,"gap_list":\[\{"offset":1114164,"bytes":65588\},\{"offset":2162740,"bytes":131176\},\{"offset":3211316,"bytes":196764\}\]' \
	"cat_3m: gaps of 65588 at 0x110034, 131176 at 0x210034, 196764 at 0x310034"
run --dump "$D/cat_3m.dat"
is "$(names "$OUT")" "read 24, write 23, close 3, newfstatat 2, fadvise64 1, mmap 1, munmap 1, openat 1, " "cat_3m: records per syscall"
is "$(printf '%s\n' "$OUT" | grep -c '<65531 of 131072 bytes>, 131072) = 131072')" 44 "cat_3m: full 131072-byte reads and writes keep 65531 bytes"
is "$(printf '%s\n' "$OUT" | grep -c '<65531 of 116416 bytes>')" 2 "cat_3m: the last read and write, 116416 bytes"
run --dump --json "$D/cat_3m.dat"
in_gap=$(printf '%s\n' "$OUT" | grep -o '"offset":[0-9]*' | cut -d: -f2 | awk '
	($1 >= 1114164 && $1 < 1114164+65588) || ($1 >= 2162740 && $1 < 2162740+131176) || ($1 >= 3211316 && $1 < 3211316+196764)' | wc -l)
is "$(echo $in_gap)" 0 "cat_3m: no record shown from a gap (stale)"

# ---- the writer replays the real one: each sample, rebuilt from its records, byte for byte ----
rebuild() { # SAMPLE HEADER-ARGS: the header, then every segment copied through the writer
	s=$1; shift
	{
		echo "header $* novar"
		echo "copy file=$s off=28 len=80 bare"
		"$TTV" --dump --json "$s" | sed 's/.*"offset":\([0-9]*\),.*"record_length":\([0-9]*\),.*/\1 \2/' | sort -n | uniq |
			awk -v f="$s" '{ printf "copy file=%s off=%d len=%d\n", f, $1, 8 + int(($2 + 3) / 4) * 4 }'
	} >"$TMP/rebuild.spec"
	"$SC" "$TMP/rebuild.out" <"$TMP/rebuild.spec" && cmp -s "$TMP/rebuild.out" "$s"
}
rebuild "$D/cat_3m.dat" tid=10304 mono=633608434498; ok $? "scwrite rebuilds cat_3m.dat byte for byte (pages, fillers, stale gap contents)"
rebuild "$D/ls_l.dat" tid=10234 mono=632713948475; ok $? "scwrite rebuilds ls_l.dat byte for byte"
"$SC" "$TMP/forker.out" <<'EOF'
header tid=10250 epoch=1795267522 mono=633124763063 uname=Linux\0vm\06.18.44-fc-v657\0#1\sSMP\sPREEMPT_DYNAMIC\s@0\0x86_64\0(none)\0
sc nr=1 ret=19 ts=633124785247 dur=37756 int=1 data=parent\sbefore\sfork\n int=19
fork
sc nr=56 ts=633124833970 dur=333116
sc nr=273 ts=633125198583 dur=751
sc nr=1 ret=14 ts=633125208138 dur=6069 int=1 data=child\ssays\shi\n int=14
exit
sc nr=56 ret=10251 ts=633124833970 dur=248813
sc nr=61 ret=10251 ts=633125142663 dur=391017
sc nr=1 ret=18 ts=633125534982 dur=1963 int=1 data=parent\safter\swait\n int=18
EOF
cmp -s "$TMP/forker.out" "$D/forker.dat"; ok $? "scwrite writes forker.dat byte for byte from a spec (fork, child exits first)"

# ---- multi-page captures with stale gaps, both byte orders ----
cat >"$TMP/pages.spec" <<'EOF'
header tid=500 mono=1000000
sc nr=257 ret=3 ts=1000100 dur=900
many n=25000 size=100 ts=1001000 step=100
sc nr=3 ts=9000000000 dur=10 int=3
EOF
"$SC" "$TMP/pages.sc" <"$TMP/pages.spec"
sed 's/^header /header be /' "$TMP/pages.spec" | "$SC" "$TMP/pages-be.sc"
run --info --json "$TMP/pages.sc"
is "$RC" 0 "pages: exit 0"
like "$OUT" '"events":25002,' "pages: every record, none from the gaps"
gaps=$(printf '%s\n' "$OUT" | grep -o '"gaps":[0-9]*' | cut -d: -f2)
ok "$([ "$gaps" -ge 3 ]; echo $?)" "pages: $gaps gaps skipped"
like "$OUT" '"byte_order":"little-endian"' "pages: little-endian"
run --dump "$TMP/pages.sc"
is "$(printf '%s\n' "$OUT" | grep -c 'read(3, "')" 25000 "pages: 25000 reads"
is "$("$TTV" --dump --json "$TMP/pages.sc" | grep -o '"entry_time":[0-9]*' | sort | uniq -d | wc -l | tr -d ' ')" 0 "pages: no record twice (stale copies in the gaps are not shown)"
LE=$OUT
run --dump "$TMP/pages-be.sc"
is "$RC" 0 "big-endian pages: exit 0"
ok "$([ "$OUT" = "$LE" ]; echo $?)" "big-endian capture decodes to the same records as little-endian"
run --info "$TMP/pages-be.sc"
like "$OUT" 'byte_order: "big-endian"' "big-endian noted"
run --dump --json "$TMP/pages-be.sc"
like "$(printf '%s\n' "$OUT" | head -1)" '"return":3,.*"duration":900,"duration_raw":900,' "big-endian: f32 duration swapped"

# every argument kind, big- and little-endian
cat >"$TMP/args.spec" <<'EOF'
header tid=77 mono=1000
sc nr=4 ts=2000 dur=1500.5 data=/etc/x\x1b[31m stat=0100644:42:7
sc nr=6 ret=-2 ts=3000 dur=10 data=/gone stat=0040755:4096:8
sc nr=7 ret=1 ts=4000 dur=10 poll=3:1:0,4:5:4 int=2 int=-1
sc nr=13 ts=5000 dur=10 int=2 sigact= sigact=0x401000:0x4000000
sc nr=1 ret=5 ts=6000 dur=10 int=1 trunc=90000:hello int=90000
sc nr=0 ret=-9 ts=7000 dur=10 int=99 trunc=0 int=16
sc nr=100 ts=8000 dur=10 intptr=0x7ffc00001000:42 ie=9:0102
sc nr=9 ret=0x7f0000001000 ts=9000 dur=10 int=0 int=4096 int=3 int=34 int8=4294967295 int=0
sc nr=2 ret=3 ts=10000 dur=2500000 data=/tmp/f int=0x80241 int=0644
sc nr=8 ret=54 ts=11000 int=4 int=-60 int=1
sc nr=3 tid=78 ts=12000 dur=5 int=4
sc nr=999 ts=13000
sc nr=39 ret=77
EOF
"$SC" "$TMP/args.sc" <"$TMP/args.spec"
sed 's/^header /header be /' "$TMP/args.spec" | "$SC" "$TMP/args-be.sc"
run --dump "$TMP/args.sc"
is "$RC" 0 "args: exit 0"
A=$(printf '%s\n' "$OUT" | cut -f4)
like "$A" '^stat\("/etc/x\\x1b\[31m", \{st_mode=0100644, st_size=42, st_ino=7\}\) = 0 <1501ns>$' "stat; escape bytes in a path are escaped; f32 rounded"
like "$A" 'lstat\("/gone", \{st_mode=040755, st_size=4096, st_ino=8\} /\* stale \*/\) = -1 ENOENT \(-2\)' "lstat failed: stale stat"
like "$A" 'poll\(\[\{fd=3, events=0x1, revents=0x0\}, \{fd=4, events=0x5, revents=0x4\}\], 2, -1\) = 1' "poll"
like "$A" 'rt_sigaction\(2, NULL, \{handler=0x401000, flags bytes 0000000400000000\}\) = 0' "sigaction NULL and set"
like "$A" 'write\(1, "hello" <5 of 90000 bytes>, 90000\) = 5' "truncated data with its real length"
like "$A" 'read\(99, <0 of 0 bytes>, 16\) = -1 EBADF \(-9\)' "failed read"
like "$A" 'times\(\[42\], <IE 9: 2 bytes>\) = 0' "int pointer IE and an unknown IE tag"
like "$A" 'mmap\(0, 4096, 3, 34, 4294967295, 0\) = 0x7f0000001000' "mmap"
like "$A" 'open\("/tmp/f", 524865, 420\) = 3 <2\.50ms>' "open; a long duration in ms"
like "$A" 'lseek\(4, -60, 1\) = 54$' "no duration: no duration column"
like "$A" '\[tid 78\] close\(4\) = 0 <5ns>' "thread id shown when the record has one"
like "$A" 'syscall_999\(\) = 0$' "unknown syscall numbers"
like "$A" '^getpid\(\) = 77 \[no timestamp\]$' "no time: no time column"
like "$OUT" 'getpid	getpid\(\) = 77 \[no timestamp\]' "no time: placed after the previous record, flagged"
like "$OUT" '	tid 78	close	' "a thread id gets its own lane"
like "$OUT" '	pid 77	lseek	' "the header's thread is the process lane"
LE=$(printf '%s\n' "$OUT" | grep -v rt_sigaction)
run --dump "$TMP/args-be.sc"
ok "$([ "$(printf '%s\n' "$OUT" | grep -v rt_sigaction)" = "$LE" ]; echo $?)" "every argument kind decodes the same big-endian (ints, stat, pollfd, f32)"
like "$OUT" 'flags bytes 0000000004000000' "big-endian sigaction: the flag bytes as they are"
run --dump --json "$TMP/args-be.sc"
like "$OUT" '"sa_flags":"0x4000000"' "big-endian sigaction: sa_flags swapped"
run --dump --json "$TMP/args.sc"
like "$OUT" '"name":"flags","ie":"int","value":524865,"value_name":"O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC","size":4' "open flags value, named"
like "$OUT" '"type":"getpid".*"no_ts":true' "no_ts in JSON"
like "$OUT" '"type":"lseek","category":"syscall","role":"instant"' "a record without duration is an instant"
run --dump --json -e 'path:^/etc' "$TMP/args.sc"
like "$OUT" '"type":"stat"' "filter path:"
run --dump -e 'type:^stat$' "$TMP/args.sc"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "filter by syscall name"
ok "$(printf '%s' "$A" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" | grep -qx 0; echo $?)" "no raw control bytes in --dump"

# ---- the spec's variants ----
"$SC" "$TMP/short.sc" <<'EOF'
header tid=9 short
sc nr=0 ret=3 ts=5000000 dur=100 int=0 data=abc int=3
sc nr=1 ret=3 ts=5000400 dur=100 int=1 data=abc int=3
EOF
run --dump "$TMP/short.sc"
is "$RC" 0 "20-byte header: exit 0"
like "$OUT" 'read\(0, "abc", 3\) = 3' "20-byte header: times from the first record"
like "$OUT" 'write|read' "20-byte header: records decoded"
run --info "$TMP/short.sc"
like "$OUT" "mono_ref: — \(20-byte header" "20-byte header noted"
"$SC" "$TMP/seg16.sc" <<'EOF'
header tid=9 seg16 mono=1000
sc nr=0 ret=3 ts=5000 dur=100 int=0 data=abc int=3
literal nr=1 ret=-13 ts=400 dur=0x80000002 errno=13 int=1
literal nr=2 ret=4 tid=10
EOF
run --dump "$TMP/seg16.sc"
is "$RC" 0 "16-bit segments: exit 0"
like "$OUT" 'read\(0, "abc", 3\) = 3 <100ns>' "16-bit segments: a real record"
like "$OUT" 'write\(1\) = -1 EACCES \(-13\) errno=13 EACCES <2\.00ms>' "spec layout: relative time, ms duration, errno"
like "$OUT" '\[tid 10\] open\(\) = 4' "spec layout: B0 = thread id"
run --info "$TMP/seg16.sc"
like "$OUT" 'segments: "16-bit tags and lengths' "16-bit segments noted"
like "$OUT" 'spec_layout_records: 2' "spec-layout records counted"
"$SC" "$TMP/mu.sc" <<'EOF'
header tid=9 mono=1000
sc nr=0 ret=-4 ts=2000 mdur=5000 errno=4 int=0
sc nr=0 ret=1 ts=3000 mdur=0x40000002 int=0
sc nr=0 ret=1 ts=4000 mdur=0x80000003 int=0
EOF
run --dump "$TMP/mu.sc"
like "$OUT" 'read\(0\) = -1 EINTR \(-4\) errno=4 EINTR <5000ns>' "errno field; multi-unit ns"
like "$OUT" 'read\(0\) = 1 <2000ns>' "multi-unit: microseconds"
like "$OUT" 'read\(0\) = 1 <3\.00ms>' "multi-unit: milliseconds"
run --info "$TMP/mu.sc"
like "$OUT" 'durations: "multi-unit' "multi-unit durations noted"

# ---- fork streams, stale tails, empty files ----
"$SC" "$TMP/fork.sc" <<'EOF'
header tid=300 mono=1000
sc nr=0 ret=1 ts=2000 dur=10 int=0 data=x int=1
fork
sc nr=56 ts=3000 dur=10
sc nr=1 ret=2 ts=4000 dur=10 int=1 data=hi int=2
exit
sc nr=56 ret=301 ts=3000 dur=10
sc nr=61 ret=301 ts=9000 dur=10
EOF
run --dump "$TMP/fork.sc"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 6 "fork: 6 records"
like "$OUT" 'pid 300 \(stream 1, child\)	write' "the child's stream labelled"
like "$OUT" 'pid 300 \(stream 2\)	wait4' "the parent's stream second"
is "$(printf '%s\n' "$OUT" | grep -c '\[copy\]')" 1 "the record from before the fork is marked once"

"$SC" "$TMP/long.sc" <<'EOF'
header tid=1 mono=100
many n=200 size=40 ts=200 step=10
EOF
cp "$TMP/long.sc" "$TMP/stale.sc"
"$SC" --over "$TMP/stale.sc" <<'EOF'
header tid=2 mono=90000000
sc nr=39 ret=2 ts=90000100 dur=5
EOF
run --dump "$TMP/stale.sc"
is "$RC" 3 "stale tail: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "stale tail: only the new stream's record"
like "$ERR" 'stale.sc: offset 116: unrecognised data at offset 116 \([0-9]+ bytes\), likely the stale tail of an older capture' "stale tail: named with its offset and size"
run --info "$TMP/stale.sc"
like "$OUT" 'stale_tail:' "stale tail in --info"
"$SC" "$TMP/old.sc" <<'EOF'
header tid=3 mono=5000000
sc nr=39 ret=3 ts=5000100 dur=5
sc nr=39 ret=3 ts=1000 dur=5
sc nr=39 ret=3 ts=5000300 dur=5
EOF
run --dump "$TMP/old.sc"
is "$RC" 3 "entry time before mono_ref: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "entry time before mono_ref: the records before it"
like "$ERR" 'offset 116: entry time before the stream.s start .*stale tail' "entry time before mono_ref: stale data from there"

: >"$TMP/empty.sc"
run --dump --format syscall "$TMP/empty.sc"
is "$RC" 3 "0-byte capture with --format: exit 3"
like "$ERR" 'empty.sc: offset 0: capture is empty: the writer was killed before its first 1 MiB flush' "0-byte capture: says why"
run --dump "$TMP/empty.sc"
is "$RC" 1 "0-byte file without --format: nothing to probe, exit 1"

# killed after two pages: the file ends on a page boundary
"$SC" "$TMP/killed.sc" <<'EOF'
header tid=4 mono=100
many n=30000 size=100 ts=200 step=10
abort
EOF
run --info --json "$TMP/killed.sc"
is "$RC" 0 "killed: exit 0"
sz=$(stat -c %s "$TMP/killed.sc")
is "$((sz % 1048576))" 0 "killed: the file ends on a 1 MiB boundary"

# ---- damage ----
"$SC" "$TMP/good.sc" <<'EOF'
header tid=5 mono=100
sc nr=39 ret=5 ts=200 dur=5
sc nr=39 ret=5 ts=300 dur=5
EOF
damaged() { { cat "$TMP/good.sc"; "$SC" - ; } >"$TMP/$1.sc"; }
printf 'raw 02 00 00 00 40 00 00 00 01 02\n' | damaged past
run --dump "$TMP/past.sc"
is "$RC" 3 "segment past the end: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "segment past the end: earlier records kept"
like "$ERR" 'past.sc: offset 148: segment runs past the end of the file \(claims 64 bytes, 2 present\)' "segment past the end: offset"
printf 'raw 02 00 00\n' | damaged partial
run --dump "$TMP/partial.sc"
like "$ERR" 'offset 148: partial segment header \(3 of 8 bytes\)' "partial segment header"
printf 'raw 78 06 17 a5 01 00 00 00 05\n' | damaged trunchdr
run --dump "$TMP/trunchdr.sc"
is "$RC" 3 "truncated second header: exit 3"
like "$ERR" 'offset 148: truncated stream header: 9 of 28 bytes' "truncated second header: offset"
"$SC" "$TMP/badie.sc" <<'EOF'
header tid=5 mono=100
sc nr=0 ret=1 ts=200 dur=5 int=3 badie=2:500:41424344
sc nr=39 ret=5 ts=300 dur=5
EOF
run --dump "$TMP/badie.sc"
is "$RC" 3 "IE past its record: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "IE past its record: the record shown, decoding goes on"
like "$OUT" 'read\(3, <truncated argument>\) = 1 <5ns> \[damaged\]' "IE past its record: marked"
like "$ERR" 'offset 124: argument IE runs past its record \(claims 500 bytes, 4 present\)' "IE past its record: the IE's offset"
"$SC" "$TMP/v2.sc" <<'EOF'
header tid=5 mono=100 version=2
sc nr=39 ret=5 ts=200 dur=5
EOF
run --dump "$TMP/v2.sc"
is "$RC" 3 "version 2: reported"
like "$ERR" 'offset 4: stream header version 2 \(expected 1\): decoded as version 1' "version 2: decoded anyway"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 1 "version 2: the record shown"
printf 'not a capture at all' >"$TMP/nomagic.sc"
run --dump --format syscall "$TMP/nomagic.sc"
is "$RC" 3 "no magic with --format: exit 3"
like "$ERR" 'offset 0: not a syscall capture' "no magic: says so"
"$SC" "$TMP/short-rec.sc" <<'EOF'
header tid=5 mono=100
exit
seg tag=2 hex=00000f00
EOF
run --dump "$TMP/short-rec.sc"
like "$ERR" 'syscall record too short for its flagged fields' "record shorter than its flags say"
like "$OUT" '\[damaged\]' "short record marked damaged"

# ---- truncation at every offset (t/cut_test.c) ----
tap_run "$TBIN/cut_test" --format syscall "$TMP/args.sc"
tap_run "$TBIN/cut_test" --format syscall "$TMP/args-be.sc"
tap_run "$TBIN/cut_test" --format syscall "$TMP/seg16.sc"
tap_run "$TBIN/cut_test" --format syscall "$TMP/short.sc"
tap_run "$TBIN/cut_test" --format syscall "$TMP/fork.sc"
tap_run "$TBIN/cut_test" --format syscall "$D/forker.dat"
tap_run "$TBIN/cut_test" --format syscall "$D/ls_l.dat"
tap_run "$TBIN/cut_test" --format syscall --step 13 "$D/argtypes.dat"
tap_run "$TBIN/cut_test" --format syscall --step 9973 "$D/cat_3m.dat"
tap_run "$TBIN/cut_test" --format syscall --from 1114100 --to 1114300 "$D/cat_3m.dat"
tap_run "$TBIN/cut_test" --to 200 "$D/ls_l.dat"
# growth: the decoder handed a few bytes at a time (resumes inside headers, records and gaps)
tap_run "$TBIN/cut_test" --format syscall --slice 7 --step 997 "$D/ls_l.dat"
tap_run "$TBIN/cut_test" --format syscall --slice 1000 --step 50021 "$D/cat_3m.dat"
tap_run "$TBIN/cut_test" --format syscall --slice 1000 --step 99991 "$TMP/pages.sc"
tap_run "$TBIN/cut_test" --format syscall --slice 1000 --step 99991 "$TMP/pages-be.sc"
tap_run "$TBIN/cut_test" --format syscall --slice 100 "$TMP/seg16.sc"
done_testing
