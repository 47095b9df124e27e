#!/bin/sh
# Lying sizes (t/lie_test.c): at every offset of a small file of each format,
# a u32/u64/varint claiming 100 MB or 4 GB; nothing of that size may be
# allocated (the address space is limited), peak memory stays small.
# And the read-only guarantee: the files are not changed by reading them.
# The files are written for each format; the end checks that every format of
# t/formats/table has one.
. "$(dirname "$0")/../lib.sh"

ran="" # the formats swept
lie() { # FORMAT FILE
	ran="$ran $1"
	tap_run "$TBIN/lie_test" --format "$1" "$2"
}

"$TBIN/ptwrite" "$TMP/p.pt" <<'SPEC'
V1 ts=10 pid=1 type=0 target=a
V4 ts=40 pid=3 type=99 target=b comm=c details=d
SPEC
lie podtrace "$TMP/p.pt"

"$TBIN/scwrite" "$TMP/s.sc" <<'SPEC'
header tid=77 mono=1000
sc nr=4 ts=2000 dur=15 data=/etc/x stat=0100644:42:7
sc nr=7 ret=1 ts=4000 dur=10 poll=3:1:0 int=2 int=-1
sc nr=13 ts=5000 dur=10 int=2 sigact=0x401000:0x4000000
sc nr=100 ts=8000 dur=10 intptr=0x7ffc00001000:42 ie=9:0102
SPEC
lie syscall "$TMP/s.sc"

"$TBIN/htwrite" "$TMP/h.ht" <<'SPEC'
stream bare
class id=9 name=E s:str x:u32 arr:uint6
event klass=9 ts=100 s=hi x=7 arr=deadbeef0001
map ts=150 ident=5 label=mapped
cs ts=200 dur=7 tid=2 ilabel=5
cs ts=300 dur=7 tid=2 label=scope
SPEC
lie htdump "$TMP/h.ht"

"$TBIN/d9write" "$TMP/d.d9" <<'SPEC'
header
strpool 0=src/main.rs:10:5 1=worker
stackpool 0=0x5555550000:0x5555550040
schema id=2 name=All fields=i:i64,s:string,ps:pstack,p:pstr,st:stack,v:varint,m:map,l:list,dm:dmap,os:opt-pstr
annot id=2 5.unit=us
event id=2 ts=1000100 i=-5 s=hi ps=0 p=0 st=0x10:0x20 v=300 m=a:1 l=9:5;4:abc dm=4:k=9:42 os=1
SPEC
lie dial9 "$TMP/d.d9"

"$TBIN/atfwrite" "$TMP/atf" <<'SPEC'
thread 0 crc=ok
I ts=100 fid=0x100000001 kind=1 depth=1
I ts=200 fid=0x100000002 kind=1 depth=2
C ts=205 fid=0x100000002 kind=1 depth=2 tid=9 x0=1 stack=0102030405
I ts=300 fid=0x100000002 kind=2 depth=2
I ts=400 fid=0x100000001 kind=2 depth=1
detail crc=ok
SPEC
cp "$TMP/atf/thread_0/index.atf" "$TMP/t0.index"
cp "$TMP/atf/thread_0/detail.atf" "$TMP/t0.detail"
lie atf "$TMP/t0.index"
lie atf "$TMP/t0.detail"
every_format "$ran" "a file of every format had lying sizes"
done_testing
