#!/bin/sh
# Truncation at every byte offset: no crash, exit status 0 or 3, and every
# whole record before the cut still listed (t/cut_test.c does the checking).
# Every format's shared sample (t/formats/table), then fixtures written for the
# formats whose own tests sweep none (the others' are in t/NAME.t).
. "$(dirname "$0")/../lib.sh"

# every 7th cut, and probing (no --format) at every cut near the start
for fmt in $(formats); do
	s=$(sample "$fmt")
	tap_run "$TBIN/cut_test" --format "$fmt" --from 1 --step 7 "$s"
	tap_run "$TBIN/cut_test" --to 2000 "$s"
done

# podtrace: every version, a long (V8-sized) record, hostile strings
"$TBIN/ptwrite" "$TMP/mix.pt" <<'SPEC'
V1 ts=10 pid=1 type=0 target=a
V2 ts=5 pid=2 type=30 old=x new=y cgroup=3
V3 ts=30 pid=1 type=21 comm=c\x1b target=/p bytes=4
V4 len=424 ts=20 pid=3 type=13 tcp_state=4
V4 ts=40 pid=3 type=99 target=\xff\xfe
SPEC
tap_run "$TBIN/cut_test" --format podtrace "$TMP/mix.pt"

# dial9: every frame kind, two sub-streams, pools, annotations, an event
# without time, symbols at the end; every offset (with and without probing)
"$TBIN/d9write" "$TMP/small.d9" <<'SPEC'
header
schema id=1 name=ClockSyncEvent fields=realtime_ns:varint
event id=1 ts=1000000 realtime_ns=1782146175256522678
strpool 0=src/main.rs:10:5 1=worker
stackpool 0=0x5555550000:0x5555550040
schema id=2 name=All fields=i:i64,s:string,ps:pstack,p:pstr,st:stack,v:varint,m:map,l:list,dm:dmap,os:opt-pstr
annot id=2 5.unit=us
event id=2 ts=1000100 i=-5 s=hi ps=0 p=0 st=0x10:0x20 v=300 m=a:1 l=9:5;4:abc dm=4:k=9:42 os=1
schema id=3 name=PollStartEvent fields=worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr
schema id=4 name=PollEndEvent fields=worker_id:varint
event id=3 ts=1000200 worker_id=0 task_id=42 spawn_loc=0
reset ts=3000000000
event id=4 ts=3000000300 worker_id=0
schema id=5 name=NoTime ts=0 fields=x:u8
event id=5 x=9
header
schema id=3 name=CpuSampleEvent fields=worker_id:varint,tid:u32,source:u8,thread_name:opt-pstr,callchain:pstack,cpu:opt-varint
strpool 0=worker
stackpool 0=0x5555550000
event id=3 ts=900 worker_id=255 tid=7 thread_name=0 callchain=0
schema id=4 name=SymbolTableEntry fields=addr:varint,size:varint,symbol_name:pstr,inline_depth:varint
strpool 1=main
event id=4 ts=0 addr=0x5555550000 size=64 symbol_name=1 inline_depth=0
SPEC
tap_run "$TBIN/cut_test" --format dial9 --from 1 "$TMP/small.d9"
# fed a few bytes at a time: a frame cut by a feed's end (a schema frame
# with its type_id cut, one or two bytes in) waits for the rest
for s in 1 2 3 5; do tap_run "$TBIN/cut_test" --format dial9 --slice $s "$TMP/small.d9"; done
# cut one or two bytes into a schema frame (its type_id not all there): the
# frame is reported cut short, never read past the end as a schema
printf 'header\nschema id=1 name=X fields=a:varint\nevent id=1 ts=5 a=1\n' | "$TBIN/d9write" "$TMP/s.d9" || exit 1
for c in 6 7; do
	head -c $c "$TMP/s.d9" >"$TMP/cut.d9"
	"$TTV" --format dial9 --dump "$TMP/cut.d9" >/dev/null 2>"$TMP/e"
	is "$? $(cat "$TMP/e")" "3 ttv: $TMP/cut.d9: offset 5: truncated frame: the data ends inside this schema frame" \
		"dial9 cut $((c - 5)) byte(s) into a schema frame: reported cut short"
done
tap_run "$TBIN/cut_test" --to 200 "$TMP/small.d9"
done_testing
