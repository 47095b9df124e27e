#!/bin/sh
# dial9: the five shared upstream traces decode to the figures in
# samples/README.md, and fixtures from t/d9write.c cover every frame and
# field type, sub-stream chains, time, lanes, inputs (gzip, directories,
# stdin) and damaged input.  Figures are computed from --dump --json with
# awk and shell only.
. "$(dirname "$0")/../lib.sh"

D=$SAMPLES/dial9
W=$TBIN/d9write

# figures JSON: in file order, "events first min max back-steps sum" where
# min/max leave out SymbolTableEntry and sum is mod 2^64 (16-bit limbs:
# exact in awk's doubles).
figures() {
	awk '{
		match($0, /"ts":-?[0-9]+/); ts = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, /"offset":[0-9]+/); off = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"type":"[^"]*"/); ty = substr($0, RSTART + 8, RLENGTH - 9)
		print off, ts, ty
	}' "$1" | sort -n -k1,1 | awk '
	{
		n++; ts = $2 + 0
		if (n == 1) first = ts
		if ($3 != "SymbolTableEntry") { if (!have || ts < min) min = ts; if (!have || ts > max) max = ts; have = 1 }
		if (n > 1 && ts < prev) back++
		prev = ts
		x = ts; for (i = 0; i < 4; i++) { l[i] += x % 65536; x = int(x / 65536) }
	}
	END {
		c = 0; for (i = 0; i < 4; i++) { l[i] += c; c = int(l[i] / 65536); l[i] %= 65536 }
		s = ""; do { r = 0; z = 1; for (i = 3; i >= 0; i--) { v = r * 65536 + l[i]; l[i] = int(v / 10); r = v % 10; if (l[i]) z = 0 } s = r s } while (!z)
		printf "%d %.0f %.0f %.0f %d %s\n", n, first, min, max, back + 0, s
	}'
}

# types JSON: "Name=count ..." by name; span call sites keep their file's base name.
types() {
	perl -ne 'while (/"type":"([^"]*)"/g) { (my $t = $1) =~ s#:[^:]*/([^/:]*:[0-9]*)$#:$1#; $n{$t}++ }
		END { print map { "$_=$n{$_} " } sort keys %n }' "$1"
}

# info_get JSON KEY: a number from the decoder's details ("sub_streams", "schema" ...)
info_get() { printf '%s\n' "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2; }

# at JSON OFFSET: the event at that byte offset
at() { grep "\"offset\":$2," "$1"; }

spans() { # PREFIX NAME:FILE:LINE=COUNT ...: Enter and Exit lines for each span
	p=$1; shift
	for s in "$@"; do printf 'SpanEnter:%s%s ' "$p" "$s"; done
	for s in "$@"; do printf 'SpanExit:%s%s ' "$p" "$s"; done
}

sample() { # NAME FILE SUBS "schema event string_pool stack_pool timestamp_reset schema_annotations" FIGURES TYPES
	name=$1 file=$2
	run --info --json "$file"
	is "$RC" 0 "$name: exit 0"
	is "$(info_get "$OUT" sub_streams)" "$3" "$name: $3 sub-streams"
	frames=""
	for k in schema event string_pool stack_pool timestamp_reset schema_annotations; do
		frames="$frames $(info_get "$OUT" $k)"
	done
	is "${frames# }" "$4" "$name: frames per kind"
	"$TTV" --dump --json "$file" >"$TMP/$name.json"
	is "$(figures "$TMP/$name.json")" "$5" "$name: events, first, min, max, back steps, sum of timestamps"
	got=$(types "$TMP/$name.json")
	want=$(printf '%s ' $6 | tr ' ' '\n' | sort | tr '\n' ' ')
	is "$got" "$want" "$name: events per name"
}

# ---- the shared upstream traces (figures from samples/README.md) ----
J=upstream_demo-trace_2026-06-22_slots.bin.gz
sample june "$D/$J" 22 "209 516950 29354 2620 16123 6" \
	"516950 145323960481 145323960481 149501759983 15593 76051006586872106" \
	"AllocEvent=911 ClockSyncEvent=2 ConnectionAcceptedWire=84 ConnectionClosedWire=84 CpuSampleEvent=8993
	 FreeEvent=901 PollEndEvent=94212 PollStartEvent=94212 ProcessResourceUsageEvent=41 QueueSampleEvent=338
	 SegmentMetadataEvent=1 SpanCloseEvent=27524 SymbolTableEntry=5035 TaskDumpEvent=30246 TaskSpawnEvent=127
	 TaskTerminateEvent=152 TcpAcceptQueueEvent=10 WakeEventEvent=94801 WorkerParkEvent=5450
	 WorkerUnparkEvent=5452 $(spans metrics_service:: buffer::flush_to_ddb:buffer.rs:55=70 buffer::put_aggregate:buffer.rs:74=100 \
		ddb::query_metric:ddb.rs:122=12125 routes::query_metric:routes.rs:44=12125 routes::record_metric:routes.rs:26=49767)"
like "$OUT" '"annotations":\["ProcessResourceUsageEvent.user_cpu_ns unit=ns","ProcessResourceUsageEvent.system_cpu_ns unit=ns","ProcessResourceUsageEvent.max_rss_bytes unit=bytes","ConnectionClosedWire.duration_us unit=us"\]' \
	"june: the four unit annotations"
like "$OUT" '"first_ts":145323960481,"last_ts":149501759983' "june: time span without the symbols at time 0"
like "$OUT" '"wall_clock_start":"2026-06-22T16:36:15.256522678Z"' "june: wall-clock start from ClockSyncEvent (UTC)"
like "$OUT" '"unresolved":\{"strings":0,"stacks":0\}' "june: every pool id resolves"
JJ=$TMP/june.json
like "$(at "$JJ" 50)" '"ts":145323960481,.*"type":"ClockSyncEvent".*"realtime_ns":1782146175256522678' "june @50: ClockSyncEvent"
like "$(at "$JJ" 117)" '"ts":146608222294,.*"type":"SegmentMetadataEvent".*"entries":\{"service":"metrics-service","worker_threads":"2","flush_interval":"1","table_name":"metrics-service","server_addr":"0.0.0.0:3001","dial9.dial9-tokio-telemetry.version":"0.4.0-alpha.1","process.available_parallelism":"11","memory.sample_rate_bytes":"524288"\}' \
	"june @117: SegmentMetadataEvent and its entries"
like "$(at "$JJ" 436)" '"ts":146608222294,.*"realtime_ns":1782146176540784470' "june @436: second ClockSyncEvent"
like "$(at "$JJ" 504)" '"type":"QueueSampleEvent".*"global_queue":0' "june @504: QueueSampleEvent"
like "$(at "$JJ" 766)" '"ts":145359935273,.*"user_cpu_ns":93213000,"system_cpu_ns":37487000,"max_rss_bytes":105512960,"minor_faults":22653,"major_faults":0,"block_input_ops":0,"block_output_ops":16,"voluntary_context_switches":42,"involuntary_context_switches":2' \
	"june @766: ProcessResourceUsageEvent"
e1119=$(at "$JJ" 1119)
like "$e1119" '"type":"CpuSampleEvent".*"worker_id":255,"worker_id_name":"not a worker","tid":35,"source":1,"source_name":"scheduler context switch","thread_name":null,"callchain":\["0xffff8000812a21e0 schedule",' \
	"june @1119: CpuSampleEvent, thread_name absent, stack from the pool at 792, symbolised"
chain=$(printf '%s' "$e1119" | sed 's/.*"callchain":\[\(.*\)\],"cpu".*/\1/' | sed 's/","/"\n"/g')
is "$(printf '%s\n' "$chain" | grep -vc ' \[inlined\]"$')" 28 "june @1119: 28 frames"
like "$(printf '%s\n' "$chain" | grep -m1 'Selector::select')" '^"0xaaaac9b9ec4c mio::sys::unix::selector::Selector::select \(.*/mio-1.2.0/src/sys/unix/mod.rs:9\) \[inlined\]"$' \
	"june @1119: inlined functions are frames of their own, with file and line"
first_sym=$(grep '"type":"SymbolTableEntry"' "$JJ" | grep -o '"offset":[0-9]*' | cut -d: -f2 | sort -n | head -1)
ok "$(awk -v o="$first_sym" 'BEGIN {print !(o > 10779305 && o < 10779305 + 2000)}')" \
	"june: the symbols are in the last sub-stream (header at 10779305; first symbol at $first_sym)"
# upstream's own expectations (upstream_demo-trace.properties.json)
grep '"type":"CpuSampleEvent"' "$JJ" >"$TMP/cpu.json"
is "$(grep -c '"source":0,' "$TMP/cpu.json") $(grep -c '"source":1,' "$TMP/cpu.json")" "147 8846" "june: CPU samples by source"
is "$(grep -o '"lane":"[^"]*"' "$TMP/cpu.json" | sort -u | tr '\n' ' ')" '"lane":"worker 0" "lane":"worker 1" ' \
	"june: every CPU sample on a worker (through its tid): worker set {0, 1}"
# a stack as upstream compares them: function names (inlined ones too), else the address
grep '"source":0,' "$TMP/cpu.json" | sed 's/.*"callchain":\[\(.*\)\],"cpu".*/\1/' |
	sed 's/"0x[0-9a-f]* \([^"]*\)"/"\1"/g; s/ \[inlined\]"/"/g; s/ ([^"]*)"/"/g' >"$TMP/stacks"
is "$(sort -u "$TMP/stacks" | wc -l | tr -d ' ')" 116 "june: 116 distinct stacks in the CPU profile"
top=$(sort "$TMP/stacks" | uniq -c | sort -rn | head -1)
is "$(printf '%s' "$top" | awk '{print $1}') $(printf '%s' "$top" | sed 's/","/"\n"/g' | grep -c '')" "8 129" \
	"june: the top stack: 8 samples, 129 frames"
like "$(printf '%s' "$top" | sed 's/","/"\n"/g' | head -1)" '^ *8 "_Unwind_Find_FDE"$' "june: its leaf is _Unwind_Find_FDE"
span=$(grep '"source":0,' "$TMP/cpu.json" | grep -o '"ts":[0-9]*' | cut -d: -f2 | sort -n | sed -n '1p;$p' | tr '\n' ' ')
is "$(echo $span | awk '{printf "%.0f", $2 - $1}')" 3637993460 "june: the CPU profile spans 3637993460 ns"

M=upstream_demo-trace_2026-05-15_seqids.bin.gz
sample may "$D/$M" 14 "94 210639 10509 293 7678 0" \
	"210639 503226032430072 503226032430072 503230842286478 6365 13266904944139245592" \
	"ClockSyncEvent=2 CpuSampleEvent=6949 PollEndEvent=36801 PollStartEvent=36801 QueueSampleEvent=464
	 SegmentMetadataEvent=1 SpanCloseEvent=9890 SymbolTableEntry=992 TaskDumpEvent=12952 TaskSpawnEvent=262
	 TaskTerminateEvent=359 WakeEventEvent=35552 WorkerParkEvent=6304 WorkerUnparkEvent=6304
	 $(spans metrics_service:: buffer::flush_to_ddb:buffer.rs:54=72 buffer::put_aggregate:buffer.rs:73=94 \
		ddb::query_metric:ddb.rs:122=5927 routes::query_metric:routes.rs:44=5927 routes::record_metric:routes.rs:26=16483)"
like "$(at "$TMP/may.json" 50)" '"type":"ClockSyncEvent"' "may: type id 0 is ClockSyncEvent at 50"
like "$(at "$TMP/may.json" 117)" '"type":"SegmentMetadataEvent"' "may: ... SegmentMetadataEvent at 117 (after a header)"
like "$(at "$TMP/may.json" 610)" '"type":"CpuSampleEvent"' "may: ... and CpuSampleEvent at 610"

B=upstream_block_in_place_2026-05-21.bin.gz
sample block "$D/$B" 10 "37 909 116 183 219 0" \
	"909 923170442727286 923170442727286 923171237238102 126 729304996642005738" \
	"ClockSyncEvent=2 CpuSampleEvent=194 PollEndEvent=174 PollStartEvent=174 QueueSampleEvent=63
	 SegmentMetadataEvent=1 SymbolTableEntry=119 TaskSpawnEvent=10 TaskTerminateEvent=16 WorkerParkEvent=78
	 WorkerUnparkEvent=78"
BJ=$TMP/block.json
like "$(at "$BJ" 50)" '"ts":923170442727286,.*"realtime_ns":1779287654488379203' "block @50: ClockSyncEvent"
like "$(at "$BJ" 117)" '"type":"SegmentMetadataEvent".*"entries":\{\}' "block @117: empty metadata"
like "$(at "$BJ" 261)" '"lane":"worker 2","type":"WorkerParkEvent".*"worker_id":2,"local_queue":0,"cpu_time_ns":159300,"tid":46021' \
	"block @261: WorkerParkEvent on worker 2"
like "$(at "$BJ" 363)" '"type":"WorkerUnparkEvent".*"sched_wait_ns":0' "block @363: sched_wait_ns, a plain varint then"
like "$(at "$BJ" 525)" '"role":"begin".*"task_id":10,"spawn_loc":"dial9-tokio-telemetry/examples/block_in_place_workload.rs:71:22"' \
	"block @525: a poll begins, with task and spawn location"

A=upstream_demo-trace_2026-04-17_raw.bin
sample april "$D/$A" 28 "68 145406 1079 0 472 0" \
	"145406 1045716556232714 1045712686977758 1045716804070760 442 2945418235416140547" \
	"ClockSyncEvent=2 CpuSampleEvent=5279 PollEndEvent=45481 PollStartEvent=45480 QueueSampleEvent=98
	 SegmentMetadataEvent=2 SymbolTableEntry=1467 TaskSpawnEvent=92 TaskTerminateEvent=257 WakeEventEvent=46818
	 WorkerParkEvent=215 WorkerUnparkEvent=215"
AJ=$TMP/april.json
like "$(at "$AJ" 52)" '"type":"SegmentMetadataEvent"' "april @52: metadata in the first sub-stream"
like "$(at "$AJ" 238)" '"type":"ClockSyncEvent"' "april @238: ClockSyncEvent"
like "$(at "$AJ" 299)" '"type":"PollEndEvent".*"worker_id":1' "april @299: PollEndEvent on worker 1"
like "$(at "$AJ" 439)" '"type":"PollStartEvent".*"local_queue":5,"task_id":155,"spawn_loc":"examples/metrics-service/src/axum_traced.rs:146:24"' \
	"april @439: PollStartEvent"

S=upstream_demo-trace_2026-03-19_seedera.bin.gz
sample march "$D/$S" 1 "10 138543 9 0 3737 0" \
	"138543 1018406949534926 1018406949246916 1018411684858735 3588 11966469158448957172" \
	"CpuSampleEvent=15125 PollEndEvent=30154 PollStartEvent=30154 QueueSampleEvent=464 SymbolTableEntry=908
	 TaskSpawnEvent=189 TaskTerminateEvent=246 WakeEventEvent=25899 WorkerParkEvent=17703 WorkerUnparkEvent=17701"
like "$(at "$TMP/march.json" 118)" '"type":"CpuSampleEvent".*"worker_id":0,"tid":65079,"source":1,"source_name":"scheduler context switch","thread_name":"<no thread name>","callchain":\["0x' \
	"march @118: CpuSampleEvent with an inline stack"

run --dump "$D/upstream_legacy_TOKIOTRC_2026-03-06.bin"
is "$RC" 1 "legacy TOKIOTRC: exit 1"
is "$OUT" "" "legacy TOKIOTRC: no events"
like "$ERR" "upstream_legacy_TOKIOTRC_2026-03-06.bin: legacy TOKIOTRC v14 format \(before dial9-trace-format\), not supported" \
	"legacy TOKIOTRC: named as such"

# gzip by magic, whatever the name; standard input; several gzip members
cp "$D/$B" "$TMP/renamed.bin"
run --dump --json "$TMP/renamed.bin"
is "$(printf '%s\n' "$OUT" | sed 's/"file":"[^"]*",//' | md5sum)" "$(sed 's/"file":"[^"]*",//' "$BJ" | md5sum)" \
	"gzip content named .bin: sniffed and decoded the same"
gzip -dc "$D/$B" >"$TMP/block.bin"
head -c 20000 "$TMP/block.bin" | gzip -c >"$TMP/members.gz"
tail -c +20001 "$TMP/block.bin" | gzip -c >>"$TMP/members.gz"
run --dump --json "$TMP/members.gz"
is "$(printf '%s\n' "$OUT" | sed 's/"file":"[^"]*",//' | md5sum)" "$(sed 's/"file":"[^"]*",//' "$BJ" | md5sum)" \
	"two gzip members split inside a frame: the same events"
OUT=$("$TTV" --dump --json - <"$D/$B" 2>"$TMP/err")
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 909 "gzip on standard input: 909 events"

# ---- fixtures: every frame and field type ----
cat >"$TMP/all.spec" <<'EOF'
header
schema id=1 name=ClockSyncEvent fields=realtime_ns:varint
event id=1 ts=1000000 realtime_ns=1782146175256522678
strpool 0=src/main.rs:10:5 1=tokio-runtime-worker
stackpool 0=0x5555550000:0x5555550040:0xffff800080000000
schema id=2 name=AllTypes fields=i:i64,f:f64,b:bool,s:string,by:bytes,ps:pstack,p:pstr,st:stack,v:varint,m:map,u8:u8,u16:u16,u32:u32,l:list,dm:dmap,os:opt-pstr,ov:opt-varint,d_ns:varint
annot id=2 0.unit=ms 8.unit=bytes 4.color=red
event id=2 ts=1000100 i=-5 f=2.5 b=1 s=hello by=\x01\x02 ps=0 p=0 st=0x10:0x20 v=300 m=a:1;b:2 u8=7 u16=65535 u32=4000000000 l=9:5;4:abc;3:1 dm=4:k=9:42;9:7=4:seven ov=9 d_ns=1500
schema id=3 name=PollStartEvent fields=worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr
schema id=4 name=PollEndEvent fields=worker_id:varint
event id=3 ts=1000200 worker_id=0 local_queue=2 task_id=42 spawn_loc=0
event id=4 ts=1000500 worker_id=0
schema id=6 name=CpuSampleEvent fields=worker_id:varint,tid:u32,source:u8,thread_name:opt-pstr,callchain:pstack,cpu:opt-varint
event id=6 ts=1000700 worker_id=255 tid=777 source=0 thread_name=1 callchain=0 cpu=3
event id=6 ts=1000800 worker_id=255 tid=888 source=1 thread_name=1 callchain=0
schema id=5 name=WorkerParkEvent fields=worker_id:varint,local_queue:u8,cpu_time_ns:varint,tid:u32
event id=5 ts=1000900 worker_id=0 cpu_time_ns=1500 tid=777
schema id=7 name=NoTimeEvent ts=0 fields=x:u8
event id=7 x=9
schema id=8 name=WakeEventEvent fields=waker_task_id:varint,woken_task_id:varint,target_worker:u8
event id=8 ts=1001000 waker_task_id=0 woken_task_id=42 target_worker=254
header
schema id=1 name=SpanEnter:app::f:src/a.rs:1 fields=worker_id:varint,span_id:varint,parent_span_id:opt-varint,span_name:pstr
schema id=2 name=SpanExit:app::f:src/a.rs:1 fields=worker_id:varint,span_id:varint,span_name:pstr
strpool 0=handle
event id=1 ts=900000 worker_id=1 span_id=5 span_name=0
event id=2 ts=900300 worker_id=1 span_id=5 span_name=0
schema id=3 name=PollStartEvent fields=worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr
event id=3 ts=900400 worker_id=1 task_id=9 spawn_loc=17
schema id=4 name=SymbolTableEntry fields=addr:varint,size:varint,symbol_name:pstr,inline_depth:varint,source_file:opt-pstr,source_line:varint
strpool 1=outer_fn 2=inner_fn 3=src/lib.rs
event id=4 ts=0 addr=0x5555550000 size=64 symbol_name=1 inline_depth=0 source_file=3 source_line=10
event id=4 ts=0 addr=0x5555550000 size=64 symbol_name=2 inline_depth=1 source_file=3 source_line=12
EOF
"$W" "$TMP/all.bin" <"$TMP/all.spec"
run --dump --json "$TMP/all.bin"
is "$RC" 0 "all types: exit 0"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 14 "all types: 14 events"
all=$(printf '%s\n' "$OUT" | grep '"type":"AllTypes"')
like "$all" '"fields":\{"wall_clock":"2026-06-22T16:36:15.256522778Z","i":-5,"f":2.5,"b":true,"s":"hello","by":"01 02","ps":\["0x5555550000 inner_fn \(src/lib.rs:12\) \[inlined\]","0x5555550000 outer_fn \(src/lib.rs:10\)","0x5555550040","0xffff800080000000"\],"p":"src/main.rs:10:5","st":\["0x10","0x20"\],"v":300,"m":\{"a":"1","b":"2"\},"u8":7,"u16":65535,"u32":4000000000,"l":\[5,"abc",true\],"dm":\{"k":42,"7":"seven"\},"os":null,"ov":9,"d_ns":1500\}' \
	"every field type decoded: numbers, strings, bytes, pooled and inline stacks (symbolised, inlined), maps, dynamic lists and maps, absent optional"
like "$(printf '%s\n' "$OUT" | grep '"type":"NoTimeEvent"')" '"ts":1000900,.*"no_ts":true.*"x":9' \
	"an event without a timestamp: the previous event's time, flagged"
like "$(printf '%s\n' "$OUT" | grep '"type":"SymbolTableEntry"' | head -1)" '"ts":0,"lane":"metadata",.*"meta":true.*"addr":"0x5555550000"' \
	"SymbolTableEntry: time 0, metadata"
like "$(printf '%s\n' "$OUT" | grep '"type":"WakeEventEvent"')" '"lane":"blocking"' "worker 254: the blocking pool's lane"
# the same recording twice in one file (cat f f): its symbol table twice,
# each frame still once, and the symbols counted once
cat "$TMP/all.bin" "$TMP/all.bin" >"$TMP/all2.bin"
run --dump --json "$TMP/all2.bin"
is "$(printf '%s\n' "$OUT" | grep '"type":"AllTypes"' | sed 's/.*\("ps":.*\),"p":.*/\1/' | sort | uniq -c | tr -s ' ')" \
	' 2 "ps":["0x5555550000 inner_fn (src/lib.rs:12) [inlined]","0x5555550000 outer_fn (src/lib.rs:10)","0x5555550040","0xffff800080000000"]' \
	"a symbol table held twice: both copies' stacks symbolised as one, no frame repeated"
run --info "$TMP/all2.bin"
like "$OUT" "symbols: 2$(printf '\n')" "a symbol table held twice: 2 symbols, not 4"
run --dump "$TMP/all.bin"
like "$OUT" "AllTypes	i=-5 ms f=2.5 b=true s=\"hello\" by=01 02 ps=\"3 frames, leaf 0x5555550000 inner_fn\".* v=300 bytes .* os=— ov=9 d_ns=1.50us" \
	"units: annotations (ms, bytes) and the _ns suffix; absent shown as —"
like "$OUT" "realtime_ns=1782146175256522678 \(2026-06-22T16:36:15.256522678Z\)" "realtime_ns read as UTC"
like "$OUT" "worker 0	CpuSampleEvent	worker_id=255 \(not a worker\) tid=777 source=0 \(CPU profile sample\)" \
	"a CPU sample goes to the worker its tid runs (learned from a later WorkerParkEvent)"
like "$OUT" "thread 888 \(tokio-runtime-worker\)	CpuSampleEvent	.*cpu=—" "a thread that is no worker: its own lane, named"
like "$OUT" "worker 0	PollStartEvent	.*spawn_loc=\"src/main.rs:10:5\" \[300ns\]" "poll: begin and end paired on the worker"
like "$OUT" "worker 1	SpanEnter:app::f:src/a.rs:1	.*span_name=\"handle\" \[300ns\]" "span enter/exit paired"
like "$OUT" "PollStartEvent	.*spawn_loc=\"<string 17\?>\" \(unresolved string pool id\) \[unclosed\] \[damaged\]" \
	"an unresolved pool id is shown as such and flags the event"
run --info --json "$TMP/all.bin"
like "$OUT" '"sub_streams":2,"frames":\{"schema":12,"event":14,"string_pool":3,"stack_pool":1,"timestamp_reset":1,"schema_annotations":1\}' \
	"all types: frames counted"
like "$OUT" '"annotations":\["AllTypes.i unit=ms","AllTypes.v unit=bytes","AllTypes.by color=red"\]' "annotations listed"
like "$OUT" '"thread_events_on_workers":1,"events_without_timestamp":1,"back_steps":2,"unresolved":\{"strings":1,"stacks":0\}' \
	"findings: CPU samples on workers, events without time, back steps, unresolved ids"
run --stats "$TMP/all.bin"
like "$OUT" "PollStartEvent  src/main.rs:10:5" "stats: polls by spawn location"
run --dump -e 'spawn_loc:main\.rs' "$TMP/all.bin"
is "$(printf '%s\n' "$OUT" | grep -c PollStartEvent)" 1 "filter on the spawn location (the event's name field)"

# schemas: one type id, different events in consecutive sub-streams; repeats; dedup
cat >"$TMP/chain.spec" <<'EOF'
header
schema id=0 name=A fields=x:u8
event id=0 ts=5000 x=1
schema id=0 name=A fields=x:u8
event id=0 ts=6000 x=2
header
schema id=0 name=B fields=s:string,y:varint
event id=0 ts=100 s=b y=300
header
schema id=0 name=A fields=x:u8
event id=0 delta=7 x=3
reset ts=20000000
event id=0 delta=16777215 x=4
EOF
"$W" "$TMP/chain.bin" <"$TMP/chain.spec"
run --dump --json "$TMP/chain.bin"
is "$RC" 0 "chain: exit 0"
is "$(printf '%s\n' "$OUT" | grep -o '"ts":[0-9]*,"lane":"[^"]*","type":"[^"]*"' | sed 's/"lane":"[^"]*",//' | tr '\n' ' ')" \
	'"ts":7,"type":"A" "ts":100,"type":"B" "ts":5000,"type":"A" "ts":6000,"type":"A" "ts":36777215,"type":"A" ' \
	"chain: type id 0 is A, then B, then A; every header resets the time base; reset and a full 24-bit delta"
like "$(printf '%s\n' "$OUT" | grep '"type":"B"')" '"s":"b","y":300' "chain: B's fields by B's schema"
run --stats "$TMP/chain.bin"
is "$RC" 0 "chain: --stats of a trace without spans"
run --info --json "$TMP/chain.bin"
like "$OUT" '"schema_names":2,"schemas_kept":2,"schema_repeats":1' "chain: identical schemas shared across sub-streams; a repeat accepted"

# hostile strings are escaped
printf 'header\nschema id=1 name=Ev\\x1b[2J fields=s:string,p:pstr\nstrpool 0=\\x1b]0;owned\\x07\nevent id=1 ts=1 s=a\\x1b[31mred\\xff p=0\n' |
	"$W" "$TMP/evil.bin"
run --dump "$TMP/evil.bin"
like "$OUT" 'Ev\\x1b\[2J	s="a\\x1b\[31mred\\xff" p="\\x1b\]0;owned\\x07"' "hostile names and strings escaped"
ok "$(printf '%s' "$OUT" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" | grep -qx 0; echo $?)" "no raw control bytes in --dump"

# ---- damaged input: stop at the frame, say where, keep what came before ----
GOOD='header
schema id=1 name=E fields=v:varint,s:string
event id=1 ts=100 v=1 s=a
event id=1 ts=200 v=2 s=b'
damaged() { # NAME OFFSET WANT-ERR SPEC-LINES...: two good events at 0..45, then the lines
	name=$1 off=$2 want=$3; shift 3
	{ printf '%s\n' "$GOOD"; printf '%s\n' "$@"; } | "$W" "$TMP/$name.bin"
	run --dump "$TMP/$name.bin"
	is "$RC" 3 "$name: exit 3"
	is "$(printf '%s\n' "$OUT" | grep -c '	E	')" 2 "$name: the events before are kept"
	like "$ERR" "$name.bin: offset $off: $want" "$name: message and offset"
}
damaged tag 46 "unknown frame tag 0x09" "raw 09" "event id=1 ts=300 v=3 s=c"
damaged typeid 46 "unknown type_id 99" "event id=99 ts=300"
damaged ftype 46 "unknown field type 0x10 in schema \(type_id 2, field 0\)" "schema id=2 name=F fields=x:16"
damaged conflict 46 "schema conflict for type_id 1" "schema id=1 name=E fields=v:u8"
damaged varint 46 "bad varint \(longer than 10 bytes" "raw 02 0100 000000 ffffffffffffffffffffff 00000000"
damaged varint64 46 "bad varint" "raw 02 0100 000000 ffffffffffffffffff02 00000000"
damaged dyntag 59 "bad element type in a dynamic list" "schema id=2 name=L fields=l:list" "event id=2 ts=300 l=@010000001f"
damaged version 46 "unsupported version 2 in a mid-stream header" "header version=2"
damaged header54 46 "unknown frame tag 0x54" "raw 54 52 43 01 01"
damaged strlen 46 "truncated frame: the data ends inside this event frame" "event id=1 ts=300 v=3 s=@ffffffff41" \
	"event id=1 ts=400 v=4 s=d"
damaged poolcount 46 "truncated frame: the data ends inside this string pool frame" "strpool count=1000000000 0=x"
damaged stackcount 46 "truncated frame: the data ends inside this stack pool frame" "raw 04 01000000 00000000 ffffffff 0100000000000000"
damaged mapcount 59 "truncated frame: the data ends inside this event frame" "schema id=2 name=M fields=m:map" \
	"event id=2 ts=300 m=@ffffff7f"
damaged cut 46 "truncated frame: the data ends inside this header frame" "raw 54 52 43"
{ printf '%s\n' "$GOOD"; printf 'reset ts=0x7ffffffffffffffe\nevent id=1 delta=5 v=3 s=c\nevent id=1 delta=7 v=4 s=d\n'; } |
	"$W" "$TMP/overflow.bin"
run --dump "$TMP/overflow.bin"
is "$RC" 3 "timestamp past 2^63 ns: exit 3 (damaged)"
like "$ERR" "overflow.bin: offset 55: timestamp 9223372036854775811 ns is beyond 2\^63-1 ns: the event is kept" \
	"timestamp past 2^63 ns: named with its offset and value"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 4 "timestamp past 2^63 ns: those events are kept, and the ones before"
run --dump --json "$TMP/overflow.bin"
is "$(printf '%s\n' "$OUT" | grep -c '"ts":9223372036854775807,.*"damaged":true')" 2 "... at 2^63-1 ns, flagged damaged"
run --info "$TMP/overflow.bin"
like "$OUT" "events_beyond_2\^63_ns: 2 \(kept at 2\^63-1 ns, flagged damaged\)" "--info counts them"
# annotations that annotate nothing are skipped; a presence byte of 2 means present
printf '%s\nannot id=77 0.unit=ns\nannot id=1 9.unit=ns 0.unit=us\nschema id=2 name=O fields=o:opt-u8\nevent id=2 ts=300 o=@0207\n' "$GOOD" |
	"$W" "$TMP/odd.bin"
run --dump "$TMP/odd.bin"
is "$RC" 0 "odd annotations and presence bytes: exit 0"
like "$OUT" "E	v=1.00us" "an annotation on a known type gives the unit"
like "$OUT" "O	o=7" "presence byte 2: present"
run --info --json "$TMP/odd.bin"
like "$OUT" '"annotations_skipped":1' "the annotation for an unknown type is counted, not fatal"

# the start of the file
printf 'TRC\0\002' >"$TMP/v2.bin"
run --dump "$TMP/v2.bin"
is "$RC" 1 "version 2: exit 1"
like "$ERR" "v2.bin: unsupported version 2" "version 2: named"
printf 'TRC' >"$TMP/cut3.bin"
run --dump "$TMP/cut3.bin"
is "$RC" 3 "3 bytes of a header: exit 3"
like "$ERR" "cut3.bin: offset 0: truncated header" "3 bytes of a header: named"
printf 'TRC\0\001' >"$TMP/hdr.bin"
run --dump "$TMP/hdr.bin"
is "$RC$OUT" 0 "a header alone: valid, no events"
: >"$TMP/empty.bin"
run --dump --format dial9 "$TMP/empty.bin"
is "$RC" 1 "0 bytes with --format dial9: exit 1"
like "$ERR" "too short for a dial9 header \(0 bytes\)" "0 bytes: says so"
run --dump --format dial9 "$SAMPLES/podtrace/small.ptrace"
is "$RC" 1 "not dial9 with --format dial9: exit 1"
like "$ERR" "bad magic: not a dial9 trace" "not dial9: bad magic"

# ---- directories of segments ----
mkdir -p "$TMP/segs/boot-a"
seg() { # N WORKER: one PollStartEvent at time 1000+N
	printf 'header\nschema id=1 name=PollStartEvent fields=worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr\nstrpool 0=seg%s\nevent id=1 ts=%s worker_id=%s task_id=%s spawn_loc=0\n' \
		"$1" $((1000 + $1)) "$2" "$1" | "$W" -
}
seg 0 0 >"$TMP/segs/trace.0.bin"
seg 1 1 | gzip -c >"$TMP/segs/trace.1.bin.gz"
seg 2 0 >"$TMP/segs/trace.2.bin.active"
seg 10 1 >"$TMP/segs/trace.10.bin"
seg 9 1 | gzip -c >"$TMP/segs/trace.10.bin.gz" # being compressed: the .bin is read
echo notes >"$TMP/segs/README.txt"
run --dump --json "$TMP/segs"
is "$RC" 0 "directory: exit 0"
is "$(printf '%s\n' "$OUT" | grep -o '"file":"[^"]*"' | sed 's#.*/##' | tr '\n' ' ')" \
	'trace.0.bin" trace.1.bin.gz" trace.2.bin.active" trace.10.bin" ' "directory: segments by number (sealed, gzip, active), one per number"
run --info "$TMP/segs"
like "$OUT" "files:   4," "directory: four inputs"
like "$OUT" "lane:    worker 0: 2 events" "directory: lanes shared by the segments"
cp "$TMP/segs"/trace.* "$TMP/segs/boot-a/"
mkdir -p "$TMP/top/5f0c2a1e"
cp "$TMP/segs"/trace.* "$TMP/top/5f0c2a1e/"
run --dump "$TMP/top"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')$RC" 40 "segments under a boot-id subdirectory"
mkdir -p "$TMP/mixed"
seg 0 0 >"$TMP/mixed/trace.0.bin"
cp "$D/upstream_legacy_TOKIOTRC_2026-03-06.bin" "$TMP/mixed/trace.1.bin"
run --dump "$TMP/mixed"
is "$RC" 3 "a legacy segment in a directory: exit 3, the rest decoded"
like "$ERR" "trace.1.bin: offset 0: legacy TOKIOTRC" "a legacy segment: named"

# ---- spans as upstream writes them: dial9.role annotations, SpanEnter__{T} ----
cat >"$TMP/spans.spec" <<'EOF'
header
schema id=1 name=metrique:Request fields=dial9.thread_id:varint,dial9.span.duration_ns:varint,op:string
annot id=1 0.dial9.role=thread_id 1.dial9.role=span.duration 1.unit=us 1.dial9.span.type=metrique 2.dial9.role=span.name
schema id=2 name=Job fields=worker:u8,begin:i64,label:pstr
annot id=2 0.dial9.role=tokio.worker_id 1.dial9.role=span.start 1.unit=ms 2.dial9.role=span.name
strpool 0=nightly
schema id=3 name=SpanEnter__Db fields=worker_id:varint,span_instance_id:varint,tid:varint,span_name:pstr
schema id=4 name=SpanExit__Db fields=worker_id:varint,span_instance_id:varint,tid:varint,span_name:pstr
strpool 1=query
schema id=5 name=SpanClose__Db fields=span_instance_id:varint,start_timestamp_ns:varint,active_ns:varint,span_name:string,target:string
event id=1 ts=5000000 dial9.thread_id=7 dial9.span.duration_ns=1500 op=checkout
event id=2 ts=9000000 worker=1 begin=4 label=0
event id=3 ts=10000000 worker_id=0 span_instance_id=5 tid=9 span_name=1
event id=4 ts=10400000 worker_id=0 span_instance_id=5 tid=9 span_name=1
event id=5 ts=10500000 span_instance_id=5 start_timestamp_ns=10000000 active_ns=400000 span_name=query target=app::db
EOF
"$W" "$TMP/spans.bin" <"$TMP/spans.spec"
run --dump --json "$TMP/spans.bin"
is "$RC" 0 "annotated spans: exit 0"
like "$OUT" '"ts":3500000,"lane":"thread 7","type":"metrique:Request","category":"span","dur":1500000,"role":"complete"' \
	"span.duration (unit us): a complete span ending at its timestamp, on its thread_id's lane"
like "$OUT" '"ts":4000000,"lane":"worker 1","type":"Job","category":"span","dur":5000000,"role":"complete"' \
	"span.start (unit ms): from its start to its timestamp, on its tokio.worker_id's lane"
like "$OUT" '"type":"SpanEnter__Db","category":"span","dur":400000,"role":"begin".*"span_type":"Db"' "SpanEnter__{T}: a span's begin"
like "$OUT" '"type":"SpanExit__Db","category":"span","dur":400000,"role":"end"' "SpanExit__{T}: paired with it"
like "$OUT" '"ts":10000000,"lane":"spans","type":"SpanClose__Db","category":"span","dur":500000,"role":"complete".*"active_ns":400000,"span_name":"query","target":"app::db"' \
	"SpanClose__{T}: the span's life, start_timestamp_ns to its close, on the spans lane, its fields shown"
run -e 'op:^checkout$' --stats "$TMP/spans.bin"
like "$OUT" "^1 events" "span.name: the span's name (a filter on it finds it)"
printf 'dump %s\n' "$TMP/spans.txt" >"$TMP/spans.script"
TTV_SCRIPT=$TMP/spans.script TTV_SIZE=100x20 "$TTV" "$TMP/spans.bin" >/dev/null 2>&1
like "$(sed '1d;$d' "$TMP/spans.txt" | sed '$d' | grep '^thread 7')" 'checkout' "lanes: the span named by its span.name field"
like "$(sed '1d;$d' "$TMP/spans.txt" | sed '$d' | grep '^worker 1')" 'nightly' "lanes: a pooled span.name too"
# a start after the end: kept, as an instant, flagged and said
{ cat "$TMP/spans.spec"; echo 'event id=2 ts=9500000 worker=1 begin=99 label=0'; } | "$W" "$TMP/badspan.bin"
run --dump --json "$TMP/badspan.bin"
is "$RC" 3 "a span that starts after it ends: exit 3"
like "$ERR" "badspan.bin: offset [0-9]+: span Job: it starts after it ends" "... said, with its offset"
like "$OUT" '"ts":9500000,"lane":"worker 1","type":"Job","category":"span","role":"instant","damaged":true' "... kept as an instant, flagged"

# ---- enters and exits paired on their ids, in whatever order they close ----
cat >"$TMP/keyed.spec" <<'EOF'
header
strpool 1=query
schema id=3 name=SpanEnter__Db fields=worker_id:varint,span_instance_id:varint,tid:varint,span_name:pstr
schema id=4 name=SpanExit__Db fields=worker_id:varint,span_instance_id:varint,tid:varint,span_name:pstr
schema id=6 name=SpanEnter:app::a:a.rs:1 fields=worker_id:varint,span_id:varint,span_name:pstr
schema id=7 name=SpanExit:app::a:a.rs:1 fields=worker_id:varint,span_id:varint,span_name:pstr
schema id=8 name=SpanEnter:app::b:b.rs:2 fields=worker_id:varint,span_id:varint,span_name:pstr
schema id=9 name=SpanExit:app::b:b.rs:2 fields=worker_id:varint,span_id:varint,span_name:pstr
event id=3 ts=20000000 worker_id=0 span_instance_id=1 tid=9 span_name=1
event id=3 ts=20100000 worker_id=0 span_instance_id=2 tid=9 span_name=1
event id=4 ts=20300000 worker_id=0 span_instance_id=1 tid=9 span_name=1
event id=4 ts=20500000 worker_id=0 span_instance_id=2 tid=9 span_name=1
event id=6 ts=30000000 worker_id=0 span_id=7 span_name=1
event id=8 ts=30100000 worker_id=0 span_id=8 span_name=1
event id=7 ts=30200000 worker_id=0 span_id=7 span_name=1
event id=9 ts=30300000 worker_id=0 span_id=8 span_name=1
EOF
"$W" "$TMP/keyed.bin" <"$TMP/keyed.spec"
run --dump --json "$TMP/keyed.bin"
is "$RC" 0 "keyed spans: exit 0"
like "$OUT" '"ts":20000000,"lane":"worker 0","type":"SpanEnter__Db","category":"span","dur":300000,"role":"begin"' \
	"two instances of one span closing in the order they opened: paired on span_instance_id (1: 300 us)"
like "$OUT" '"ts":20100000,"lane":"worker 0","type":"SpanEnter__Db","category":"span","dur":400000,"role":"begin"' \
	"... (2: 400 us)"
like "$OUT" '"ts":30000000,"lane":"worker 0","type":"SpanEnter:app::a:a.rs:1","category":"span","dur":200000,"role":"begin"' \
	"a closes before b, which opened inside it: paired on span_id"
like "$OUT" '"ts":30100000,"lane":"worker 0","type":"SpanEnter:app::b:b.rs:2","category":"span","dur":200000,"role":"begin"' \
	"... and b still finds its exit"
unlike "$OUT" 'unpaired' "keyed spans: nothing left unpaired"

# an enter in one segment, its exit in the next: the model pairs them
mkdir -p "$TMP/keyedseg"
printf 'header\nstrpool 1=query\nschema id=3 name=SpanEnter__Db fields=worker_id:varint,span_instance_id:varint,tid:varint,span_name:pstr\nevent id=3 ts=20000000 worker_id=0 span_instance_id=1 tid=9 span_name=1\n' |
	"$W" "$TMP/keyedseg/trace.0.bin"
printf 'header\nstrpool 1=query\nschema id=4 name=SpanExit__Db fields=worker_id:varint,span_instance_id:varint,tid:varint,span_name:pstr\nevent id=4 ts=20300000 worker_id=0 span_instance_id=1 tid=9 span_name=1\n' |
	"$W" "$TMP/keyedseg/trace.1.bin"
run --dump --json "$TMP/keyedseg"
like "$OUT" '"ts":20000000,"lane":"worker 0","type":"SpanEnter__Db","category":"span","dur":300000,"role":"begin"' \
	"an enter and its exit in two segments pair"

# ---- close events name their parent: each span drawn beneath its own ----
# (two roots at once; the child's parent is the first, which the row above
# it, the second's, is not)
cat >"$TMP/tree.spec" <<'EOF'
header
schema id=5 name=SpanCloseEvent fields=span_id:varint,span_instance_id:varint,start_timestamp_ns:varint,span_name:string,parent_span_instance_id:opt-varint
event id=5 ts=7000000 span_id=3 span_instance_id=3 start_timestamp_ns=6000000 span_name=child parent_span_instance_id=1
event id=5 ts=10000000 span_id=1 span_instance_id=1 start_timestamp_ns=1000000 span_name=first
event id=5 ts=11000000 span_id=2 span_instance_id=2 start_timestamp_ns=2000000 span_name=second
EOF
"$W" "$TMP/tree.bin" <"$TMP/tree.spec"
printf 'Tab\nj\nj\nTab\ndump %s\nUp\ndump %s\n' "$TMP/tree1.txt" "$TMP/tree2.txt" >"$TMP/tree.script"
TTV_SCRIPT=$TMP/tree.script TTV_SIZE=100x12 "$TTV" "$TMP/tree.bin" >/dev/null 2>&1
like "$(tail -1 "$TMP/tree1.txt")" '^child  1\.00ms' "parent links: the child selected"
like "$(tail -1 "$TMP/tree2.txt")" '^first  9\.00ms \(self 8\.00ms, depth 0\)' \
	"parent links: Up goes to the span it names as its parent; its self time leaves out only its own child"
printf 'dump %s\n' "$TMP/tree3.txt" >"$TMP/tree3.script"
TTV_SCRIPT=$TMP/tree3.script TTV_SIZE=100x12 "$TTV" "$TMP/tree.bin" >/dev/null 2>&1
rows=$(sed -n '2,4p' "$TMP/tree3.txt" | grep -n 'first\|second\|child' | sed 's/:.*\(first\|second\|child\).*/:\1/' | tr '\n' ' ')
is "$rows" "1:first 2:second 3:child " "parent links: the child drawn below its parent, never beside the other root"

# a child that starts after the other root ended: beneath its parent, not in the row that freed up above it
{ sed -n '1,2p' "$TMP/tree.spec"
  printf 'event id=5 ts=5000000 span_id=1 span_instance_id=1 start_timestamp_ns=1000000 span_name=first\n'
  printf 'event id=5 ts=7000000 span_id=3 span_instance_id=3 start_timestamp_ns=6000000 span_name=child parent_span_instance_id=2\n'
  printf 'event id=5 ts=11000000 span_id=2 span_instance_id=2 start_timestamp_ns=2000000 span_name=second\n'; } |
	"$W" "$TMP/tree4.bin"
TTV_SCRIPT=$TMP/tree3.script TTV_SIZE=100x12 "$TTV" "$TMP/tree4.bin" >/dev/null 2>&1
like "$(sed -n 4p "$TMP/tree3.txt")" 'child' "parent links: a child beneath its parent though the row above was free"
unlike "$(sed -n 2p "$TMP/tree3.txt")" 'child' "... not beside the root that ended"

# ---- counter tracks: fields annotated with a metric kind ----
{
	printf 'header\nschema id=1 name=Queue fields=worker_id:varint,depth:varint,drops:varint,load:f64,note:string\n'
	printf 'annot id=1 1.kind=gauge 2.kind=counter 3.kind=updown-counter 4.kind=gauge\n'
	i=0
	while [ $i -lt 41 ]; do
		printf 'event id=1 ts=%d worker_id=0 depth=%d drops=%d load=-%d.5 note=n%d\n' \
			$((1000000 + i * 100000)) $(((i * 7) % 23)) $((i * 3)) $((i % 5)) $i
		i=$((i + 1))
	done
} | "$W" "$TMP/metrics.bin"
run --info "$TMP/metrics.bin"
like "$OUT" "Queue.depth \\(gauge\\): 41 events" "a gauge: a counter track of its own"
like "$OUT" "Queue.drops \\(counter\\): 41 events" "a counter: its track"
like "$OUT" "Queue.load \\(updown-counter\\): 41 events" "an updown-counter (f64): its track"
unlike "$OUT" "Queue.note \\(gauge\\)" "a string field with a metric kind is no track"
run --dump "$TMP/metrics.bin"
like "$OUT" "Queue.depth \\(gauge\\)	Queue.depth	depth=7$" "a sample's line: its value alone"
# --stats against the values --dump --json gives
expect=$("$TTV" --dump --json "$TMP/metrics.bin" | perl -MJSON::XS -ne '
	my $e = decode_json($_); next unless $e->{type} eq "Queue";
	for my $f (qw(depth drops load)) { my $v = $e->{fields}{$f}; push @{$v{$f}}, $v }
	END { for my $f (qw(depth drops load)) { my @a = @{$v{$f}}; my ($lo, $hi, $s) = ($a[0], $a[0], 0);
		for (@a) { $lo = $_ if $_ < $lo; $hi = $_ if $_ > $hi; $s += $_ }
		printf "%s %d %.6g %.6g %.6g %.6g\n", $f, scalar @a, $lo, $hi, $s / @a, $a[-1] } }')
got=$("$TTV" --stats "$TMP/metrics.bin" | sed -n '/^counters/,$p' | awk 'NR > 2 { sub(/^Queue\./, "", $6); print $6, $1, $2, $3, $4, $5 }')
is "$got" "$expect" "--stats: samples, least, greatest, mean and last of each track, as --dump --json says"
run --stats --json "$TMP/metrics.bin"
like "$OUT" '"counters":\[\{"lane":"Queue.depth \(gauge\)","samples":41,"min":0,"max":22,' "--stats --json: the counters"
printf 'dump %s\n' "$TMP/metrics.txt" >"$TMP/metrics.script"
TTV_SCRIPT=$TMP/metrics.script TTV_SIZE=100x14 "$TTV" "$TMP/metrics.bin" >/dev/null 2>&1
row=$(grep '^Queue.depth (gauge)' "$TMP/metrics.txt")
like "$row" '[▁▂▃▄▅▆▇█]{40}' "lanes: a counter track is a row of its values"
like "$row" ' 0\.\.22$' "lanes: the range at its end"
like "$(grep '^Queue.load' "$TMP/metrics.txt")" ' -4\.5\.\.-0\.5$' "lanes: negative values scale too"
if command -v tmux >/dev/null 2>&1; then
	export TMUX_TMPDIR=$TMP
	S=ttv-test-$$-counters
	tmux -L "$S" new-session -d -s "$S" -x 80 -y 24 "TERM=xterm-256color '$TTV' '$TMP/metrics.bin'; sleep 30"
	i=0
	while [ $i -lt 50 ] && ! tmux -L "$S" capture-pane -p -t "$S" | grep -q '0\.\.22'; do sleep 0.1; i=$((i + 1)); done
	like "$(tmux -L "$S" capture-pane -p -t "$S" | grep '^Queue.depth')" '[▁▂▃▄▅▆▇█]+ 0\.\.22$' "tmux 80x24: the counter track drawn"
	tmux -L "$S" kill-server 2>/dev/null
fi

# ---- trees as the writer and its uploader lay them out ----
# the writer: {dir}/{boot_id}/ beside an empty .lock; its temporary copies (.partial) are no segments
mkdir -p "$TMP/wr/qmxz-481"
: >"$TMP/wr/qmxz-481/.lock"
seg 0 0 >"$TMP/wr/qmxz-481/trace.0.bin"
seg 1 1 >"$TMP/wr/qmxz-481/trace.1.bin.active"
printf 'half a copy' >"$TMP/wr/qmxz-481/trace.0.bin.01J9ZKQX8Y3M4N5P6Q7R8S9T0V.partial"
run --info "$TMP/wr"
is "$RC" 0 "writer's tree: exit 0 (.lock and .partial left alone)"
like "$OUT" "files:   2," "writer's tree: its two segments"
like "$OUT" "lane:    worker 0: 1 events" "writer's tree: one trace, lanes as they are"
# the uploader: date/HHMM/service/instance/boot/epoch-index.bin.gz, and Hive-style version=1 keys
up=$TMP/s3/traces
mkdir -p "$up/2026-04-09/1930/svc-a/host-1/abcd-11" "$up/2026-04-09/1931/svc-a/host-1/abcd-11" \
	"$up/2026-04-09/1930/svc-b/host-2/efgh-22" \
	"$TMP/s3/version=1/date=2026-04-09/service=pay%2Fapi/time=1930/instance=i-1/boot=wxyz-7"
seg 0 0 | gzip -c >"$up/2026-04-09/1930/svc-a/host-1/abcd-11/1775763000-0.bin.gz"
seg 1 0 | gzip -c >"$up/2026-04-09/1931/svc-a/host-1/abcd-11/1775763060-1.bin.gz"
seg 2 1 | gzip -c >"$up/2026-04-09/1930/svc-b/host-2/efgh-22/1775763000-0.bin.gz"
seg 3 0 | gzip -c >"$TMP/s3/version=1/date=2026-04-09/service=pay%2Fapi/time=1930/instance=i-1/boot=wxyz-7/1775763000-0.bin.gz"
run --info "$TMP/s3"
is "$RC" 0 "uploader's tree: exit 0"
is "$(printf '%s\n' "$OUT" | grep -c "^$TMP/s3: ")" 3 "uploader's tree: a trace per service, instance and boot"
like "$OUT" "^$TMP/s3: svc-a/host-1 \\(boot abcd-11\\)" "positional keys: service/instance, boot"
like "$OUT" "^$TMP/s3: pay/api/i-1 \\(boot wxyz-7\\)" "Hive keys: unescaped"
like "$OUT" "lane:    svc-a/host-1: worker 0: 2 events" "lanes named by service/instance; a boot's segments of two minutes in one trace"
like "$OUT" "svc-b/host-2: worker 1: 1 events" "the other service's lane"
run --dump "$TMP/s3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 4 "uploader's tree: every segment's event"
# a directory inside the tree (a day, a minute) still tells its instances apart
run --info "$up/2026-04-09"
is "$(printf '%s\n' "$OUT" | grep "^$up/2026-04-09: " | sed "s#^$up/2026-04-09: ##" | xargs)" \
	"svc-a/host-1 (boot abcd-11) svc-b/host-2 (boot efgh-22)" "a day's directory: a trace per service, instance and boot"
like "$OUT" "lane:    svc-a/host-1: worker 0: 2 events" "... its instance's two minutes in one trace, lanes apart"
run --info "$up/2026-04-09/1930"
is "$(printf '%s\n' "$OUT" | grep -c "^$up/2026-04-09/1930: ")" 2 "a minute's directory: a trace per instance"
# files told by content, ordered as people count (window-2 before window-10)
mkdir -p "$TMP/win"
for n in 10 2 1; do seg $n 0 | gzip -c >"$TMP/win/window-$n.gz"; done
seg 5 0 >"$TMP/win/blob"
echo 'not a trace' >"$TMP/win/README"
run --info --json "$TMP/win"
is "$RC" 0 "files by content: exit 0"
is "$(printf '%s\n' "$OUT" | grep -o '"file":"[^"]*"' | sed 's#.*/##' | tr '\n' ' ')" \
	'blob" window-1.gz" window-2.gz" window-10.gz" ' "files by content, in natural order"
# files told apart by their own metadata (SegmentMetadataEvent service and
# host), and ordered by their first wall clock when their names hold no number
mkseg() { # TS REALTIME SERVICE HOST WORKER
	printf 'header\nschema id=1 name=ClockSyncEvent fields=realtime_ns:varint\nreset ts=%s\nevent id=1 delta=0 realtime_ns=%s\n' "$1" "$2"
	printf 'header\nschema id=2 name=SegmentMetadataEvent fields=entries:map\nreset ts=%s\nevent id=2 delta=0 entries=service:%s;host:%s\n' "$1" "$3" "$4"
	printf 'header\nschema id=1 name=PollStartEvent fields=worker_id:varint,local_queue:u8,task_id:varint,spawn_loc:pstr\nstrpool 0=x\nevent id=1 ts=%s worker_id=%s task_id=1 spawn_loc=0\n' $(($1 + 10)) "$5"
}
mkdir -p "$TMP/meta"
mkseg 2000 1775763060000000000 svc-fix window 1 | "$W" - | gzip -c >"$TMP/meta/alpha.gz"
mkseg 1000 1775763000000000000 svc-fix window 1 | "$W" - | gzip -c >"$TMP/meta/beta.gz"
mkseg 1500 1775763030000000000 svc-alt host-z 1 | "$W" - | gzip -c >"$TMP/meta/multi-runtime.gz"
run --info "$TMP/meta"
is "$RC" 0 "metadata: exit 0"
is "$(printf '%s\n' "$OUT" | grep "^$TMP/meta: " | sed "s#^$TMP/meta: ##" | xargs)" "svc-fix/window svc-alt/host-z" \
	"files in one directory told apart by their SegmentMetadataEvent's service and host"
like "$OUT" "svc-fix/window: worker 1: 2 events" "... each trace's lanes its own"
run --info --json "$TMP/meta"
is "$(printf '%s\n' "$OUT" | grep -o '"file":"[^"]*"' | sed 's#.*/##' | tr '\n' ' ')" \
	'beta.gz" alpha.gz" multi-runtime.gz" ' "names without numbers: segments by their first wall clock (each trace's listed)"
# following a tree: a new boot's segments become a trace of their own
mkdir -p "$TMP/live3/2026-04-09/1930/svc-a/host-1/abcd-11"
seg 0 0 | gzip -c >"$TMP/live3/2026-04-09/1930/svc-a/host-1/abcd-11/1775763000-0.bin.gz"
"$TTV" --dump -f "$TMP/live3" >"$TMP/live3.out" 2>&1 &
pid=$!
sleep 0.5
mkdir -p "$TMP/live3/2026-04-09/1931/svc-a/host-1/ijkl-33"
seg 4 2 >"$TMP/live3/2026-04-09/1931/svc-a/host-1/ijkl-33/1775763060-0.bin"
i=0
while [ $i -lt 50 ] && ! grep -q 'worker 2' "$TMP/live3.out"; do sleep 0.1; i=$((i + 1)); done
kill $pid 2>/dev/null
wait $pid 2>/dev/null
like "$(cat "$TMP/live3.out")" "svc-a/host-1: worker 2" "following a tree: a new boot's segment read, its lanes named"

# ---- a segment that grows while it is read; a directory rescanned ----
mkdir -p "$TMP/live"
tap_run "$TBIN/d9follow_test" "$TMP/block.bin" "$TMP/live"

# ---- generated traces ----
"$W" --generate 20000 --seed 3 "$TMP/gen.bin"
run --info --json "$TMP/gen.bin"
is "$RC" 0 "generated: exit 0"
n=$(printf '%s\n' "$OUT" | grep -o '"events":[0-9]*' | tail -1 | cut -d: -f2)
ok "$(awk -v n="$n" 'BEGIN {print !(n >= 20000 + 399 && n <= 20003 + 399)}')" "generated: 20000 events and 399 symbols ($n)"
like "$OUT" '"unresolved":\{"strings":0,"stacks":0\}' "generated: every pool id resolves"
run --stats "$TMP/gen.bin"
unlike "$OUT" "unpaired" "generated: every poll and span pairs"
like "$OUT" "^  worker 3$" "generated: four workers"

# Symbol tables have no time: shown as metadata, not as minus the trace start
"$TTV" --dump "$D/$J" >"$TMP/june.txt"
is "$(grep -c '^metadata	metadata	SymbolTableEntry	' "$TMP/june.txt")" 5035 "symbol entries: time column says metadata"
is "$(grep -c '^-' "$TMP/june.txt")" 0 "no event shows a negative time"
"$TTV" --align --dump "$D/$J" "$SAMPLES/podtrace/small.ptrace" >"$TMP/june-align.txt"
is "$(grep -c '^-' "$TMP/june-align.txt")" 0 "--align: still metadata, no negative time"

done_testing
