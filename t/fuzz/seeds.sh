#!/bin/sh
# Seed corpora for the fuzz targets, made by the project's writers (and the
# small shared samples), so nothing large is committed.
#
#   t/fuzz/seeds.sh TBIN OUTDIR      TBIN: the writers (build/t)
#
# OUTDIR/TARGET/ gets a few small files per target: each format of t/formats/table
# (t/fuzz/fuzz.t checks that none is left empty), keymap, theme and query.  ATF
# seeds are sessions packed as the ATF target reads them: manifest, index and
# detail of thread 0, then of thread 1, separated by @@ATFPART@@
# (t/fuzz/harness.h).
set -eu
TBIN=$1
OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/t/samples
T=$(mktemp -d "${TMPDIR:-/tmp}/ttv-seeds.XXXXXX")
trap 'rm -rf "$T"' EXIT
# (the names of t/formats/table, read as t/lib.sh's `formats` reads them)
for d in $(awk '!/^#/ && NF && n++ { print $1 }' "$ROOT/t/formats/table") keymap theme query saved; do mkdir -p "$OUT/$d"; done

# ---- podtrace ----------------------------------------------------------------
"$TBIN/ptwrite" "$OUT/podtrace/mix" <<'SPEC'
V1 ts=10 pid=1 type=0 target=a
V2 ts=5 pid=2 type=30 old=x new=y cgroup=3
V3 ts=30 pid=1 type=21 comm=c\x1b target=/p bytes=4
V4 len=424 ts=20 pid=3 type=13 tcp_state=4
V4 ts=40 pid=3 type=99 target=\xff\xfe
V4 ts=50 pid=9 type=25 error=93 details=CPU:93%
SPEC
"$TBIN/ptwrite" "$OUT/podtrace/damaged" <<'SPEC'
V4 ts=1 pid=1 type=1 error=-111 target=10.0.0.1:80
frame len=100 fill=7
V1 ts=2 pid=1 type=8 tcp_state=3
prefix 400
SPEC
"$TBIN/ptwrite" --generate 40 --seed 1 "$OUT/podtrace/gen40"
head -c 8000 "$S/podtrace/small.ptrace" >"$OUT/podtrace/small-head"

# ---- syscall -----------------------------------------------------------------
"$TBIN/scwrite" "$OUT/syscall/args" <<'SPEC'
header tid=77 mono=1000
sc nr=4 ts=2000 dur=1500.5 data=/etc/x\x1b[31m stat=0100644:42:7
sc nr=6 ret=-2 ts=3000 dur=10 data=/gone stat=0040755:4096:8
sc nr=7 ret=1 ts=4000 dur=10 poll=3:1:0,4:5:4 int=2 int=-1
sc nr=13 ts=5000 dur=10 int=2 sigact= sigact=0x401000:0x4000000
sc nr=1 ret=5 ts=6000 dur=10 int=1 trunc=90000:hello int=90000
sc nr=100 ts=8000 dur=10 intptr=0x7ffc00001000:42 ie=9:0102
sc nr=9 ret=0x7f0000001000 ts=9000 dur=10 int=0 int=4096 int=3 int=34 int8=4294967295 int=0
sc nr=3 tid=78 ts=12000 dur=5 int=4
sc nr=999 ts=13000
SPEC
"$TBIN/scwrite" "$OUT/syscall/seg16" <<'SPEC'
header tid=9 seg16 mono=1000 be
sc nr=0 ret=3 ts=5000 dur=100 int=0 data=abc int=3
literal nr=1 ret=-13 ts=400 dur=0x80000002 errno=13 int=1
literal nr=2 ret=4 tid=10
SPEC
"$TBIN/scwrite" "$OUT/syscall/fork" <<'SPEC'
header tid=300 mono=1000 short
sc nr=0 ret=1 ts=2000 dur=10 int=0 data=x int=1
fork
sc nr=56 ts=3000 dur=10
sc nr=1 ret=2 ts=4000 dur=10 int=1 data=hi int=2 badie=3:900:41
exit
sc nr=61 ret=301 ts=9000 mdur=0x80000003 int=0
SPEC
cp "$S/syscall/ls_l.dat" "$S/syscall/forker.dat" "$OUT/syscall/"

# ---- htdump ------------------------------------------------------------------
"$TBIN/htwrite" "$OUT/htdump/types" <<'SPEC'
stream
class id=9 name=AllTypes name:str i8:i8 u8:u8 i16:i16 u16:u16 i32:i32 u32:u32 i64:i64 u64:u64 f32:f32 f64:f64 ptr:ptr p4:ptr4 odd:int3 arr:uint6 unk:dt42_3 f8:dt4_8 tail:str
class id=10 name=Level1 a1:u32 s1:str
class id=11 name=Level2 base=Level1 a2:i16
class id=12 name=Level3 base=Level2 a3:f64 s3:str
class id=13 name=MyScope base=HT_CallstackStringEvent tag:u32
event klass=9 ts=100 name=all i8=-128 u8=255 f32=3.4028235e38 odd=010203 arr=deadbeef0001 tail=end
event klass=12 ts=200 a1=1 s1=one a2=-2 a3=3.5 s3=three
event klass=13 ts=300 duration=50 thread_id=7 label=scope tag=42
map ts=350 ident=5 label=mapped
cs ts=400 dur=7 tid=2 ilabel=5
cs ts=500 dur=7 tid=2 label=esc\x1b[2Jape\xff
SPEC
"$TBIN/htwrite" "$OUT/htdump/be-spec" <<'SPEC'
stream be spec-header spec-types
class id=9 name=E x:u16 s:str
event klass=9 ts=5 x=7 s=hi
cs ts=10 dur=3 tid=1 label=a
SPEC
"$TBIN/htwrite" --generate 60 --seed 2 "$OUT/htdump/gen60"
cp "$S/htdump/small.htdump" "$S/htdump/upstream_hello_world.htdump" "$OUT/htdump/"

# ---- dial9 -------------------------------------------------------------------
"$TBIN/d9write" "$OUT/dial9/all" <"$ROOT/t/formats/every-frame.d9spec"
"$TBIN/d9write" --generate 80 --seed 4 "$OUT/dial9/gen80"
gzip -dc "$S/dial9/upstream_block_in_place_2026-05-21.bin.gz" | head -c 12000 >"$OUT/dial9/block-head"
head -c 6000 "$S/dial9/upstream_demo-trace_2026-04-17_raw.bin" >"$OUT/dial9/raw-head"

# ---- atf: sessions packed into one file ----------------------------------------
pack() { # pack PIDDIR OUT
	for f in manifest.json thread_0/index.atf thread_0/detail.atf thread_1/index.atf thread_1/detail.atf; do
		[ "$f" = manifest.json ] || printf '@@ATFPART@@'
		if [ -f "$1/$f" ]; then cat "$1/$f"; fi
	done >"$2"
}
"$TBIN/atfwrite" "$T/st" <<'SPEC'
manifest
module id=1054843105 path=/Applications/Demo.app/Contents/MacOS/Demo
symbol fid=0x3edfa0e100000001 name=main
symbol fid=0x3edfa0e100000002 name=work
symbol fid=0x3edfa0e100000003 name=\x1b[31mevil\x07
thread 0 crc=ok
I ts=1000 fid=0x3edfa0e100000001 kind=1 depth=1
I ts=1100 fid=0x3edfa0e100000002 kind=1 depth=2
I ts=1200 fid=0x3edfa0e100000002 kind=2 depth=2
C ts=1105 fid=0x3edfa0e100000002 kind=1 depth=2 tid=4001 x0=0x11 x1=0x22 fp=0x7ff0 sp=0x7fe0 stack=de:ad:be:ef
C ts=1205 fid=0x3edfa0e100000002 kind=2 depth=2 tid=4001 x0=0x99 sp=0x7fe0
I ts=1500 fid=0x3edfa0e100000001 kind=2 depth=1
detail crc=ok
thread 1 arch=2 os=3 crc=bad
I ts=1010 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1020 fid=0x3edfa0e100000002 kind=2 depth=1
C ts=1015 fid=0x3edfa0e100000002 kind=1 depth=1 tid=4002 x0=1 lr=0x1000 fp=0x2000 sp=0x3000 stack=0102
C ts=1025 fid=0x3edfa0e100000002 kind=2 depth=1 tid=4002 x0=0x2a sp=0x3000
detail crc=bad
SPEC
pack "$T/st" "$OUT/atf/final"
"$TBIN/atfwrite" "$T/crash" <<'SPEC'
thread 0 state=crash cut=165
I ts=1001 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1002 fid=0x3edfa0e100000002 kind=2 depth=1
C ts=1003 fid=0x3edfa0e100000002 kind=1 depth=1 tid=9 x0=3
detail state=crash
thread 1 state=footer-only
I ts=5 fid=0x100000001 kind=1 depth=1
I ts=6 fid=0x100000001 kind=2 depth=1
SPEC
pack "$T/crash" "$OUT/atf/crash"
pack "$S/atf/small_finalized/trace/session_20260101_120000/pid_4242" "$OUT/atf/sample"

# ---- keymap, theme, query ------------------------------------------------------
cp "$ROOT"/keymaps/*.keys "$OUT/keymap/"
printf 'bind generic C-x quit\nbind lanes M-S-Tab none\nbind nowhere j down\nbind list\n' >"$OUT/keymap/bad"
cp "$ROOT"/themes/*.theme "$OUT/theme/"
printf 'selected 244/white 17/blue bold reverse\nmatch red default underline\nbad x y\ntitle 999 0\n' >"$OUT/theme/bad"
printf 'connect\n!^x\nlane:pid 1\ntype:^(READ|WRITE)$\ntarget:\\x1b\nrange:+1ms..2s\nrange:@0.001..\n' >"$OUT/query/mix"
printf '(a+)+$\n[\\p{L}]{2,}\ncomm:(?i)SERVER\ntext:lane:\n' >"$OUT/query/re"

# ---- saved: traces of the formats that save, each with damage to its index
# (after @@ATFPART@@: 5-byte groups, a u32 offset into the index's meta and a
# byte to xor there; t/fuzz/harness.h fz_saved)
# (an ATF index.atf alone: the session's saved state of an index)
cp "$S/atf/small_finalized/trace/session_20260101_120000/pid_4242/thread_0/index.atf" "$OUT/atf-index"
for f in podtrace/gen40 podtrace/damaged syscall/args htdump/types dial9/gen80 dial9/all atf-index; do
	[ -f "$OUT/$f" ] || continue
	name=$(echo "$f" | tr / -)
	{ cat "$OUT/$f"; printf '@@ATFPART@@'; } >"$OUT/saved/$name-whole"
	{ cat "$OUT/$f"; printf '@@ATFPART@@\000\001\000\000\377\100\000\000\000\001\007\020\000\000\200'; } >"$OUT/saved/$name-damaged"
done
rm -f "$OUT/atf-index"
