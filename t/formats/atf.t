#!/bin/sh
# ATF v2 sessions: the shared samples' figures (samples/README.md, "atf"), and
# sessions from t/atfwrite.c in every crash state of the notes.
. "$(dirname "$0")/../lib.sh"

# jv JSON PATH: the value at a Perl path ({a}[0]{b}) of a JSON document
jv() {
	printf '%s' "$1" | P="$2" perl -MJSON::XS -0777 -ne '
		my $d = decode_json($_); my $v = eval "\$d->$ENV{P}";
		print defined $v ? (ref $v && ref $v ne "JSON::PP::Boolean" ? JSON::XS->new->canonical->encode($v) : $v) : "null"'
}
# th JSON SLOT KEY...: a value of thread SLOT in an --info --json document
th() {
	_j=$1 _s=$2
	shift 2
	printf '%s' "$_j" | S=$_s K="$*" perl -MJSON::XS -0777 -ne '
		my $d = decode_json($_);
		for my $t (@{$d->{sources}[0]{details}{threads}}) {
			next unless $t->{slot} == $ENV{S};
			my $v = $t; $v = ref $v eq "HASH" ? $v->{$_} : undef for split / /, $ENV{K};
			print defined $v ? (ref $v && ref $v ne "JSON::PP::Boolean" ? encode_json($v) : $v) : "null";
		}'
}

A=$SAMPLES/atf
FIN=$A/small_finalized
PID=$FIN/trace/session_20260101_120000/pid_4242
CRASH=$A/crash_sigkill/session_20260101_121000

# ---- small_finalized (bundle layout) ----------------------------------------
run --info "$FIN"
is "$RC" 0 "finalized: exit 0"
like "$OUT" "format:  atf" "finalized: the bundle directory opens as ATF"
like "$OUT" "events:  241$" "finalized: 241 events"
like "$OUT" "time:    1000000000903 .. 1000000155333 ns \(154.43us\)" "finalized: span, not pulled to 0 by the empty thread"
like "$OUT" "lanes:   4$" "finalized: 4 lanes (threads)"
run --info --json "$FIN"
J=$OUT
is "$(jv "$J" '{sources}[0]{details}{bundle}{trace_session}')" "trace/session_20260101_120000/pid_4242" "bundle: trace_session followed"
is "$(jv "$J" '{sources}[0]{details}{bundle}{status}')" "complete" "bundle: session.json status"
is "$(jv "$J" '{sources}[0]{details}{processes}[0]{manifest}')" "present" "session manifest present"
is "$(jv "$J" '{sources}[0]{details}{processes}[0]{format_version}')/$(jv "$J" '{sources}[0]{details}{processes}[0]{modules}')/$(jv "$J" '{sources}[0]{details}{processes}[0]{symbols}')" "2.1/2/23" "manifest: format 2.1, 2 modules, 23 symbols"
is "$(jv "$J" '{sources}[0]{details}{processes}[0]{threads_listed}')" "[0,1,2,3]" "manifest: threads 0..3"
for s in 0 1 2 3; do
	set -- $(printf '109 29 3616 1\n82 22 2752 1\n50 0 1728 0\n0 0 128 0\n' | sed -n "$((s + 1))p")
	is "$(th "$J" $s index_events)/$(th "$J" $s detail_events)/$(th "$J" $s index size)/$(th "$J" $s index flags)" \
		"$1/$2/$3/0x$4" "thread $s: $1 index records, $2 detail records, $3 B, flags $4"
	is "$(th "$J" $s recovered_from)/$(th "$J" $s checksum)/$(th "$J" $s dangling_links)/$(th "$J" $s partial_tail_bytes)" \
		"footer at footer_offset/not computed/0/0" "thread $s: from the footer, checksum not computed, no dangling link"
	is "$(th "$J" $s index header_count)/$(th "$J" $s index footer_count)/$(th "$J" $s index size_count)" "$1/$1/$1" \
		"thread $s: header, footer and file-size counts agree"
done
is "$(th "$J" 0 index calls)/$(th "$J" 0 index returns)/$(th "$J" 1 index calls)/$(th "$J" 1 index returns)/$(th "$J" 2 index calls)/$(th "$J" 2 index returns)" \
	"54/55/41/41/25/25" "CALL/RETURN counts per thread"
is "$(th "$J" 0 detail calls)/$(th "$J" 0 detail returns)/$(th "$J" 1 detail calls)/$(th "$J" 1 detail returns)" "14/15/11/11" \
	"detail CALL/RETURN counts"
is "$(th "$J" 0 index footer_at)/$(th "$J" 1 index footer_at)" "3552/2688" "index footers at 3552 and 2688"
is "$(th "$J" 0 detail header_count)/$(th "$J" 0 detail header_bytes_length)/$(th "$J" 0 detail header_index_seq_start)/$(th "$J" 0 detail header_index_seq_end)" \
	"29/15660/16/76" "thread 0 detail header: 29 records, 15660 bytes, index_seq 16..76"
is "$(th "$J" 1 detail header_index_seq_start)/$(th "$J" 1 detail header_index_seq_end)" "16/69" "thread 1 detail: index_seq 16..69"
is "$(th "$J" 0 detail record_length)/$(th "$J" 0 os_thread_id)" "540/259" "540-byte detail records; OS thread id from the payload"
is "$(th "$J" 0 index first_ts)/$(th "$J" 0 index last_ts)/$(th "$J" 1 index first_ts)/$(th "$J" 1 index last_ts)/$(th "$J" 2 index first_ts)/$(th "$J" 2 index last_ts)" \
	"1000000000903/1000000155333/1000000012475/1000000131121/1000000027165/1000000126280" "first and last ts per thread"
is "$(th "$J" 0 index time_sorted)/$(th "$J" 1 index time_sorted)/$(th "$J" 2 index time_sorted)" "0/0/1" "threads 0 and 1 are not time-sorted, 2 is"
is "$(th "$J" 0 links ok)/$(th "$J" 1 links ok)" "29/22" "links all ok (29 and 22)"
is "$(th "$J" 3 index state)/$(th "$J" 3 index header_footer_offset)" "finalized-empty/64" "thread 3: header plus footer, footer_offset 64"
like "$(jv "$J" '{sources}[0]{lanes}')" '"thread 0 \(tid 259\)".*"thread 1 \(tid 515\)".*"thread 2".*"thread 3"' "lanes named by slot and OS thread id"

run --dump --json "$FIN"
JL=$OUT
is "$(printf '%s\n' "$JL" | wc -l | tr -d ' ')" 241 "dump: 241 lines"
first=$(printf '%s\n' "$JL" | head -1)
like "$first" '"ts":1000000000903,"lane":"thread 0 \(tid 259\)","type":"CALL".*"dur":154430' "first event: thread 0 CALL, lasting the whole session"
like "$first" '"index_seq":0,.*"function":"main".*"call_depth":1' "first event: index 0, main, depth 1"
pairs() { # the links of thread $1, in index order: index->detail
	printf '%s\n' "$JL" | grep "\"thread_id\":$1,\"event_kind\"" | grep -o '"index_seq":[0-9]*,.*"detail_seq":[0-9]*,"detail_copy"' |
		sed 's/"index_seq":\([0-9]*\),.*"detail_seq":\([0-9]*\),.*/(\1->\2)/' | sort -t'(' -k2 -n | head -5 | tr -d '\n'
}
is "$(pairs 0)" "(16->0)(17->1)(18->2)(35->3)(36->4)" "thread 0: first links (16->0) (17->1) (18->2) (35->3) (36->4)"
is "$(pairs 1)" "(16->0)(17->1)(18->2)(35->3)(36->4)" "thread 1: the same first links"
t0_16=$(printf '%s\n' "$JL" | grep '"thread_id":0,"event_kind"' | grep '"index_seq":16,')
like "$t0_16" '"type":"RETURN".*"function_id":"0x3edfa0e10000000d","function":"db_query_step"' "thread 0 index 16: RETURN db_query_step"
like "$t0_16" '"ts":1000000033648,.*"call_depth":7,"detail_seq":0,"detail_copy":true,"link":"ok"' "thread 0 index 16: depth 7, ts, links to detail 0"
like "$t0_16" '"detail":\{"detail_seq":0,.*"index_seq":16,.*"registers":\{"rax":"0xb3290b98","rsp":"0x7ff7bfefec80"\},"stack_size":0' \
	"thread 0 detail 0: rax (return value) and rsp, no stack"
t0_17=$(printf '%s\n' "$JL" | grep '"thread_id":0,"event_kind"' | grep '"index_seq":17,')
like "$t0_17" '"ts":1000000033965,.*"type":"CALL".*"function":"-\[AppDelegate application:didFinishLaunchingWithOptions:\]".*"call_depth":7' \
	"thread 0 index 17: CALL -[AppDelegate ...], depth 7"
like "$t0_17" '"registers":\{"rdi":"0x600000c09440","rsi":"0x7","rdx":"0x9448","rcx":"0x0","r8":"0x10","r9":"0x1","rbp":"0x7ff7bfefecc0","rsp":"0x7ff7bfefec80"\}' \
	"thread 0 detail 1: x86_64 argument registers by name"
like "$t0_17" '"os_thread_id":259,.*"stack_size":128,"stack":"48 25 14 8c 48 a7 57 2f ' "thread 0 detail 1: OS thread, 128 stack bytes"
t1_16=$(printf '%s\n' "$JL" | grep '"thread_id":1,"event_kind"' | grep '"index_seq":16,')
like "$t1_16" '"ts":1000000038142,.*"type":"CALL".*"function_id":"0x46581c9300000008","function":"crc_update".*"call_depth":2' \
	"thread 1 index 16: CALL crc_update, depth 2"
t0_15=$(printf '%s\n' "$JL" | grep '"thread_id":0,"event_kind"' | grep '"index_seq":15,')
like "$t0_15" '"ts":1000000037453,' "thread 0 index 15 is later than index 16: time steps back"
is "$(printf '%s\n' "$JL" | grep -c '"copy":true')" 51 "51 detail-lane copies flagged (29 + 22)"
is "$(printf '%s\n' "$JL" | grep '"copy":true' | grep -vc '"link":"ok"')" 0 "every copy carries a resolved link"
is "$(printf '%s\n' "$JL" | grep -o '"ts":[0-9]*' | cut -d: -f2 | sort -c -n && echo sorted)" sorted "dump in time order"
is "$(printf '%s\n' "$JL" | grep '"role":"begin"' | grep -vc '"dur"')" 0 "every original call of the finalized session pairs"

run --dump "$FIN"
like "$(printf '%s\n' "$OUT" | head -1)" "^\+0.000000000	thread 0 \(tid 259\)	CALL	main \(call_depth 1\) \[154.43us\]$" "text: first line"
like "$OUT" "RETURN	db_query_step \(call_depth 7\) -> detail 0 \[copy\]" "text: a linked copy says so"

run --stats "$FIN"
is "$RC" 0 "stats: exit 0"
like "$OUT" "spans by calls" "stats: functions by call count"
like "$OUT" "^ +8 +[0-9.]+us +[0-9.]+us .* CALL  db_query_step$" "stats: db_query_step called 8 times (copies not counted)"
like "$OUT" "^ +2 .* CALL  main$" "stats: main twice (threads 0 and 2 start there)"
run --stats --json "$FIN"
like "$OUT" '"name":"db_query_step","calls":8,"total":219174,"self":33295' "stats json: total and self time of db_query_step"

run --dump -e 'function:^crc_update$' "$FIN"
is "$(printf '%s\n' "$OUT" | grep -vc crc_update)" 0 "filter on the function field"
like "$OUT" "crc_update" "filter keeps crc_update"

# the other ways in: pid directory, session directory, a single index.atf, a detail.atf
run --info "$PID"
like "$OUT" "events:  241$" "pid directory: 241 events"
run --info "$PID/.."
like "$OUT" "events:  241$" "session directory: 241 events"
run --dump --json "$PID/thread_0/index.atf"
is "$RC" 0 "single index.atf: exit 0"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 109 "single index.atf: its 109 events"
like "$OUT" '"function":"-\[AppDelegate application:didFinishLaunchingWithOptions:\]".*"link":"ok","detail":\{' \
	"single index.atf: detail.atf beside it and the manifest two levels up are read"
run --info --json "$PID/thread_1/detail.atf"
is "$(th "$OUT" 1 index_events)/$(th "$OUT" 1 detail_events)/$(th "$OUT" 1 links ok)" "82/22/22" "single detail.atf: its index.atf is read too"

# ---- crash_sigkill -----------------------------------------------------------
run --info --json "$CRASH"
C=$OUT
is "$RC" 3 "crash: exit 3 (damaged)"
is "$(jv "$C" '{sources}[0]{details}{processes}[0]{manifest}')" "missing" "crash: no manifest"
is "$(th "$C" 0 index_events)/$(th "$C" 0 index calls)/$(th "$C" 0 index returns)" "3198/1602/1596" "crash thread 0: 3,198 records (1,602 / 1,596)"
is "$(th "$C" 1 index_events)/$(th "$C" 1 index calls)/$(th "$C" 1 index returns)" "3582/1785/1797" "crash thread 1: 3,582 records (1,785 / 1,797)"
is "$(th "$C" 0 detail_events)/$(th "$C" 1 detail_events)" "1046/1387" "crash: 1,046 and 1,387 detail records"
is "$(th "$C" 0 detail partial_tail_bytes)/$(th "$C" 1 detail partial_tail_bytes)" "344/524" "crash: partial tails 344 and 524 bytes"
is "$(th "$C" 0 index partial_tail_bytes)/$(th "$C" 1 index partial_tail_bytes)" "0/0" "crash: index files end on whole records"
is "$(th "$C" 0 index state)" "unfinalized (recovered from file size)" "crash thread 0: unfinalized"
is "$(th "$C" 1 recovered_from)" "file size (whole records present)" "crash thread 1: count from the file size"
is "$(th "$C" 0 index header_count)/$(th "$C" 0 index footer_count)/$(th "$C" 0 index size_count)/$(th "$C" 0 index header_footer_offset)" \
	"0/null/3198/64" "crash: placeholder header count 0, no footer, 3198 by size"
is "$(th "$C" 0 has_detail)/$(th "$C" 0 index flags)" "1/0x0" "crash: has_detail true despite flags 0"
is "$(th "$C" 2 index state)/$(th "$C" 2 index_events)/$(th "$C" 2 index size)" "empty / no header/0/0" "crash thread 2: 0 bytes, empty"
is "$(th "$C" 0 links forward)/$(th "$C" 0 links ok)/$(th "$C" 0 links back_past_index)" "984/984/62" \
	"crash thread 0: 984 forward links all ok, 62 detail records past the index"
is "$(th "$C" 1 links forward)/$(th "$C" 1 links ok)/$(th "$C" 1 links forward_dangling)" "1390/1387/3" "crash thread 1: 1,390 forward, 1,387 ok, 3 dangling"
is "$(th "$C" 1 links first_dangling_forward)" "index 3563 -> detail 1387, index 3564 -> detail 1388, index 3565 -> detail 1389" \
	"crash thread 1: (3563->1387) (3564->1388) (3565->1389)"
is "$(th "$C" 0 dangling_links)/$(th "$C" 1 dangling_links)" "62/3" "crash: dangling_links per thread"
is "$(th "$C" 0 index first_ts)/$(th "$C" 0 index last_ts)/$(th "$C" 1 index first_ts)/$(th "$C" 1 index last_ts)" \
	"1000000003779/1000004546469/1000000014378/1000004531563" "crash: first and last ts"
like "$ERR" "thread_0/detail.atf: offset 564904: .*a partial record \(the last 344 bytes\) dropped" "crash: stderr names the partial record's offset"
like "$ERR" "thread_1/index.atf: offset 114080: 3 forward links dangle" "crash: stderr names the first dangling link's offset"
like "$ERR" "thread_2/index.atf: offset 0: 0 bytes" "crash: the 0-byte file is reported"
run --dump "$CRASH"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" $((3198 + 3582 + 62)) "crash: every whole record listed (62 detail records as DETAIL)"
like "$OUT" "CALL	module 0x[0-9a-f]{8} #[0-9]+ \(call_depth [0-9]+\)" "crash: names are module hash and symbol index"
like "$OUT" "DETAIL	(CALL|RETURN) module .*: detail 984 -> index 3224, past the end of index.atf \(3198 records\) \[damaged\]" \
	"crash: a detail record past the index is listed and flagged"
like "$OUT" "-> detail 1387 \(dangling\) \[copy\] \[damaged\]" "crash: a dangling forward link is shown as such"
run --dump --json "$CRASH"
like "$OUT" '"symbol":null' "crash: symbol null"
run --info "$CRASH"
like "$OUT" 'manifest: "missing" \(normal after a crash: symbol names are unavailable\)' "crash: info says the manifest is missing"
run --info "$A/crash_sigkill"
like "$OUT" "events:  6842$" "the directory above the session opens too"

# ---- sessions from the writer: every crash state ----------------------------
"$TBIN/atfwrite" "$TMP/st" <<'SPEC'
manifest
module id=1054843105 path=/Applications/Demo.app/Contents/MacOS/Demo
symbol fid=0x3edfa0e100000001 name=main
symbol fid=0x3edfa0e100000002 name=work
symbol fid=0x3edfa0e100000003 name=\x1b[31mevil\x07
# 0: finalized x86_64, CRC ok, a detail-lane batch that steps back
thread 0 crc=ok
I ts=1000 fid=0x3edfa0e100000001 kind=1 depth=1
I ts=1100 fid=0x3edfa0e100000002 kind=1 depth=2
I ts=1200 fid=0x3edfa0e100000002 kind=2 depth=2
I ts=1300 fid=0x3edfa0e100000003 kind=1 depth=2
I ts=1400 fid=0x3edfa0e100000003 kind=2 depth=2
C ts=1105 fid=0x3edfa0e100000002 kind=1 depth=2 tid=4001 x0=0x11 x1=0x22 x2=0x33 x3=0x44 x4=0x55 x5=0x66 x6=0x7ff0 x7=0x7fe0 fp=0x7ff0 sp=0x7fe0 stack=de:ad:be:ef
C ts=1205 fid=0x3edfa0e100000002 kind=2 depth=2 tid=4001 x0=0x99 sp=0x7fe0
I ts=1500 fid=0x3edfa0e100000001 kind=2 depth=1
detail crc=ok
# 1: finalized arm64, CRC mismatch
thread 1 arch=2 os=3 crc=bad
I ts=1010 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1020 fid=0x3edfa0e100000002 kind=2 depth=1
C ts=1015 fid=0x3edfa0e100000002 kind=1 depth=1 tid=4002 x0=1 x1=2 x2=3 x3=4 x4=5 x5=6 x6=7 x7=8 lr=0x1000 fp=0x2000 sp=0x3000 stack=0102
C ts=1025 fid=0x3edfa0e100000002 kind=2 depth=1 tid=4002 x0=0x2a sp=0x3000
detail crc=bad
# 2: tracer killed: placeholder header, no footer, a torn last record
thread 2 state=crash cut=165
I ts=1001 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1002 fid=0x3edfa0e100000002 kind=2 depth=1
I ts=1003 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1004 fid=0x3edfa0e100000002 kind=2 depth=1
# 3: killed during finalize: footer written, header still the placeholder
thread 3 state=footer-only
I ts=1031 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1032 fid=0x3edfa0e100000002 kind=2 depth=1
I ts=1033 fid=0x3edfa0e100000001 kind=1 depth=1
# 4: header rewritten, footer missing
thread 4 state=header-only
I ts=1041 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1042 fid=0x3edfa0e100000002 kind=2 depth=1
I ts=1043 fid=0x3edfa0e100000001 kind=1 depth=1
# 5: 0 bytes
thread 5 state=crash cut=0
I ts=1051 fid=0x3edfa0e100000002 kind=1 depth=1
# 6: 64 bytes: the placeholder header alone
thread 6 state=crash
# 7: 40 bytes: shorter than the header
thread 7 state=crash cut=40
# 8: partial detail record, links dangling both ways
thread 8 state=crash
I ts=2000 fid=0x3edfa0e100000001 kind=1 depth=1
I ts=2100 fid=0x3edfa0e100000001 kind=2 depth=1
C ts=2005 fid=0x3edfa0e100000001 kind=1 depth=1 tid=4008
I ts=2105 fid=0x3edfa0e100000001 kind=2 depth=1 link=7
D ts=2150 fid=0x3edfa0e100000002 kind=2 depth=2 idx=40 tid=4008
D ts=2160 fid=0x3edfa0e100000002 kind=2 depth=2 idx=0 tid=4008
D ts=2170 fid=0x3edfa0e100000002 kind=2 depth=2 idx=41 tid=4008
detail state=crash cut=1784
# 9: the spec's 68-byte footer, header not rewritten
thread 9 state=footer-only footer=68
I ts=1091 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1092 fid=0x3edfa0e100000002 kind=2 depth=1
# 10: EXCEPTION, an unknown kind, bytes after the footer
thread 10 junk=10
I ts=1101 fid=0x3edfa0e100000001 kind=1 depth=1
I ts=1102 fid=0x3edfa0e100000002 kind=3 depth=2
I ts=1103 fid=0x3edfa0e100000002 kind=7 depth=2
I ts=1104 fid=0x3edfa0e100000001 kind=2 depth=1
# 11, 12: files that are not ATF v2 as defined
thread 11 event_size=16
I ts=1111 fid=0x3edfa0e100000002 kind=1 depth=1
thread 12 version=2
I ts=1121 fid=0x3edfa0e100000002 kind=1 depth=1
# 13: the spec's 1:1 layout: time-sorted, linked records are the events
thread 13
I ts=3000 fid=0x3edfa0e100000001 kind=1 depth=1
C ts=3100 fid=0x3edfa0e100000002 kind=1 depth=2 tid=4013
C ts=3200 fid=0x3edfa0e100000002 kind=2 depth=2 tid=4013
I ts=3300 fid=0x3edfa0e100000001 kind=2 depth=1
# 14: detail records in the spec's layout, after a 60-byte detail header
thread 14
I ts=1401 fid=0x3edfa0e100000001 kind=1 depth=1
C ts=1400 fid=0x3edfa0e100000002 kind=1 depth=2 layout=spec x0=0x5 x7=0x6000 sp=0x6000 stack=0102030405060708090a
C ts=1402 fid=0x3edfa0e100000002 kind=2 depth=2 layout=spec x0=0x6 sp=0x6000
I ts=1403 fid=0x3edfa0e100000001 kind=2 depth=1
detail events_offset=60
# 15: events_offset beyond the file
thread 15 header_events_offset=999999
I ts=1501 fid=0x3edfa0e100000002 kind=1 depth=1
I ts=1502 fid=0x3edfa0e100000002 kind=2 depth=1
SPEC
run --info --json "$TMP/st"
S=$OUT
is "$RC" 3 "states: exit 3, the session opens"
is "$(jv "$S" '{sources}[0]{events}')" 43 "states: every whole record is listed (41 index records, 2 detail records)"
st() { echo "$(th "$S" $1 index state)|$(th "$S" $1 recovered_from)|$(th "$S" $1 index_events)"; }
is "$(st 0)|$(th "$S" 0 checksum)|$(th "$S" 0 detail checksum)" "finalized|footer at footer_offset|8|ok|ok" "finalized, CRC-32 ok on index and detail"
is "$(st 1)|$(th "$S" 1 checksum)|$(th "$S" 1 detail checksum)" "finalized|footer at footer_offset|4|mismatch|mismatch" "CRC-32 mismatch on index and detail"
is "$(st 2)|$(th "$S" 2 partial_tail_bytes)" "unfinalized (recovered from file size)|file size (whole records present)|3|5" \
	"placeholder header, no footer, torn last record: 3 records, 5 bytes dropped"
is "$(st 3)|$(th "$S" 3 index header_count)|$(th "$S" 3 index footer_count)" "footer found, header not rewritten|footer at end of file|3|0|3" \
	"footer behind a placeholder header: 3 records, the footer not read as records"
is "$(st 4)" "finalized, footer missing or damaged|finalized header|3" "finalized header, footer missing: 3 records from the header"
is "$(st 5)|$(th "$S" 5 index size)" "empty / no header|nothing|0|0" "0-byte index"
is "$(st 6)|$(th "$S" 6 index size)" "unfinalized (recovered from file size)|file size (whole records present)|0|64" "64-byte index: header only"
is "$(st 7)|$(th "$S" 7 index size)" "shorter than the header|nothing|0|40" "40-byte index: shorter than the header"
is "$(st 8)|$(th "$S" 8 detail_events)|$(th "$S" 8 detail partial_tail_bytes)" "unfinalized (recovered from file size)|file size (whole records present)|4|3|100" \
	"crashed detail: 3 whole records, a 100-byte partial record dropped"
is "$(th "$S" 8 links ok)/$(th "$S" 8 links forward_dangling)/$(th "$S" 8 links back_past_index)/$(th "$S" 8 links back_mismatched)/$(th "$S" 8 dangling_links)" \
	"1/1/1/1/3" "links dangle both ways: forward past detail.atf, back past index.atf, back to an index record linking elsewhere"
is "$(st 9)" "footer found, header not rewritten|footer at end of file (68-byte spec footer)|2" "the spec's 68-byte footer is accepted"
is "$(th "$S" 10 index exceptions)/$(th "$S" 10 index unknown_kinds)/$(th "$S" 10 index bytes_after_footer)" "1/1/10" "EXCEPTION, unknown kind, bytes after the footer"
is "$(st 11)|$(st 12)" "not an ATF v2 index|nothing|0|not an ATF v2 index|nothing|0" "event_size 16 and version 2 are rejected, the rest opens"
is "$(th "$S" 13 index layout)/$(th "$S" 13 links ok)" "as written (no step back in time)/2" "time-sorted file with links: the spec's layout"
is "$(th "$S" 14 detail spec_layout_records)/$(th "$S" 14 detail events_offset)/$(th "$S" 14 links ok)" "2/60/2" "spec-layout detail records after a 60-byte header"
is "$(th "$S" 15 index_events)" 2 "events_offset beyond the file: records read from 64"
is "$(th "$S" 0 os_thread_id)/$(th "$S" 1 index arch)/$(th "$S" 1 index os)" "4001/2/3" "OS thread id; arm64, macOS"
E=$ERR
like "$E" "thread_1/index.atf: offset 196: checksum mismatch" "stderr: checksum mismatch at the footer's checksum"
like "$E" "thread_2/index.atf: offset 160: not finalized .* the last 5 bytes \(a torn record\) dropped" "stderr: torn record"
like "$E" "thread_3/index.atf: offset 0: header not rewritten .* a complete footer is at 160: killed while finalizing" "stderr: killed while finalizing"
like "$E" "thread_4/index.atf: offset 160: no valid footer at footer_offset 160" "stderr: footer missing"
like "$E" "thread_7/index.atf: offset 0: 40 bytes: shorter than the 64-byte header" "stderr: short file"
like "$E" "thread_8/detail.atf: offset 1684: .*a partial record \(the last 100 bytes\) dropped" "stderr: partial detail record"
like "$E" "thread_8/index.atf: offset 160: 1 forward links dangle, 1 past the end of detail.atf \(3 records\): index 3 -> detail 7" "stderr: forward dangling"
like "$E" "thread_8/detail.atf: offset 604: 2 detail records are not reached from the index" "stderr: back links dangling"
like "$E" "thread_10/index.atf: offset 256: 10 bytes after the footer" "stderr: bytes after the footer"
like "$E" "thread_10/index.atf: offset 128: 1 records with an unknown event_kind \(first: 7\)" "stderr: unknown kind"
like "$E" "thread_11/index.atf: offset 24: event_size 16" "stderr: event_size"
like "$E" "thread_12/index.atf: offset 5: version 2" "stderr: version"
like "$E" "thread_15/index.atf: offset 32: events_offset 999999 is outside the file: using 64" "stderr: events_offset"

run --dump --json "$TMP/st"
D=$OUT
t0c=$(printf '%s\n' "$D" | grep '"ts":1105,')
like "$t0c" '"registers":\{"rdi":"0x11","rsi":"0x22","rdx":"0x33","rcx":"0x44","r8":"0x55","r9":"0x66","rbp":"0x7ff0","rsp":"0x7fe0"\},"stack_size":4,"stack":"de ad be ef"' \
	"x86_64 CALL: rdi..rsp and the stack"
like "$(printf '%s\n' "$D" | grep '"ts":1205,')" '"registers":\{"rax":"0x99","rsp":"0x7fe0"\}' "x86_64 RETURN: rax and rsp"
like "$(printf '%s\n' "$D" | grep '"ts":1015,')" '"registers":\{"x0":"0x1","x1":"0x2","x2":"0x3","x3":"0x4","x4":"0x5","x5":"0x6","x6":"0x7","x7":"0x8","lr":"0x1000","fp":"0x2000","sp":"0x3000"\}' \
	"arm64 CALL: x0..x7, lr, fp, sp"
like "$(printf '%s\n' "$D" | grep '"ts":1025,')" '"registers":\{"x0":"0x2a","sp":"0x3000"\}' "arm64 RETURN: x0 and sp"
like "$(printf '%s\n' "$D" | grep '"ts":1400,')" '"layout":"spec DetailFunctionPayload".*"stack_size":10,"stack":"01 02 03 04 05 06 07 08 09 0a"' \
	"spec-layout detail record decoded"
like "$(printf '%s\n' "$D" | grep '"ts":1102,')" '"type":"EXCEPTION","role":"instant"' "EXCEPTION is an instant"
like "$(printf '%s\n' "$D" | grep '"ts":1103,')" '"type":"KIND\(7\)",.*"damaged":true' "an unknown kind is KIND(7), flagged"
like "$(printf '%s\n' "$D" | grep '"ts":1105,')" '"copy":true' "a linked record in a file that steps back is a copy"
like "$(printf '%s\n' "$D" | grep '"ts":3100,')" '"role":"begin","file"' "time-sorted file: a linked record is the call itself"
like "$(printf '%s\n' "$D" | grep '"ts":2105,')" '"link":"dangling: detail.atf has 3 records".*"damaged":true|"damaged":true.*"link":"dangling: detail.atf has 3 records"' \
	"a dangling forward link in the fields"
like "$(printf '%s\n' "$D" | grep '"ts":2150,')" '"type":"DETAIL".*"index_seq":40,' "a detail record whose index record is missing is listed"
run --dump "$TMP/st"
like "$OUT" '\\x1b\[31mevil\\x07' "a hostile symbol name is escaped"
unlike "$OUT" "$(printf '\033')" "no raw escape reaches the output"
like "$OUT" "thread 0 \(tid 4001\)	CALL	main \(call_depth 1\) \[500ns\]" "pairs by depth across the copies: main lasts 500ns"
like "$OUT" "thread 2	CALL	work \(call_depth 1\) \[unclosed\]" "a call cut off by the crash is unclosed"

# ---- no manifest, bundle, several pids, broken manifests ----------------------
"$TBIN/atfwrite" "$TMP/bundle" <<'SPEC'
bundle trace_session=trace/session_x/pid_77 status=failed
dir trace/session_x/pid_77
manifest
symbol fid=0x1234567800000009 name=from_manifest
thread 0
I ts=10 fid=0x1234567800000009 kind=1 depth=1
I ts=20 fid=0x1234567800000009 kind=2 depth=1
dir trace/session_x/pid_78
thread 3 state=crash
I ts=15 fid=0x1234567800000002 kind=1 depth=1
SPEC
run --info --json "$TMP/bundle"
is "$RC" 0 "bundle: exit 0 (pid_78, outside trace_session, is not read)"
is "$(jv "$OUT" '{sources}[0]{details}{layout}')/$(jv "$OUT" '{sources}[0]{details}{bundle}{status}')" "bundle/failed" "bundle: layout and status"
is "$(jv "$OUT" '{sources}[0]{events}')" 2 "bundle: trace_session names pid_77 only"
run --dump "$TMP/bundle/trace/session_x"
like "$OUT" "pid 77 thread 0	CALL	from_manifest" "several pids: lanes say the pid"
like "$OUT" "pid 78 thread 3	CALL	module 0x12345678 #2" "pid 78: no symbol, module hash and index"

"$TBIN/atfwrite" "$TMP/evil" <<'SPEC'
bundle trace_session=../../etc
dir trace/s/pid_5
manifest raw={"threads":[{"id":0}],"symbols":[{"function_id":"0x10000000001","name":"x"}
thread 0
I ts=10 fid=0x10000000001 kind=1 depth=1
SPEC
run --info "$TMP/evil"
is "$RC" 3 "hostile bundle: exit 3"
like "$OUT" "events:  1$" "hostile bundle: the trace is still found"
like "$OUT" 'manifest.json: offset [0-9]+: .*"trace_session" is not a relative path inside the bundle' "hostile bundle: trace_session outside is refused"
like "$OUT" "pid_5/manifest.json: offset 75: array not closed" "broken manifest: the JSON error and its offset"
run --dump "$TMP/evil"
like "$OUT" "module 0x00000100 #1" "broken manifest: names fall back to hex"

# ---- links both ways, time order, pairing (t/atf_test.c) ----------------------
tap_run "$TBIN/atf_test" "$SAMPLES"

# ---- truncation sweeps (t/cut_test.c): every cut of an index and a detail file --
"$TBIN/atfwrite" "$TMP/cut" <<'SPEC'
thread 0 crc=ok
I ts=100 fid=0x100000001 kind=1 depth=1
I ts=200 fid=0x100000002 kind=1 depth=2
I ts=300 fid=0x100000002 kind=2 depth=2
C ts=205 fid=0x100000002 kind=1 depth=2 tid=9 x0=1 stack=0102030405
C ts=305 fid=0x100000002 kind=2 depth=2 tid=9 x0=2
I ts=400 fid=0x100000001 kind=2 depth=1
C ts=401 fid=0x100000001 kind=2 depth=1 tid=9 x0=3
I ts=500 fid=0x100000003 kind=1 depth=1
I ts=600 fid=0x100000003 kind=2 depth=1
detail crc=ok
SPEC
cp "$TMP/cut/thread_0/index.atf" "$TMP/t0.index"
cp "$TMP/cut/thread_0/detail.atf" "$TMP/t0.detail"
tap_run "$TBIN/cut_test" --format atf "$TMP/t0.index"
tap_run "$TBIN/cut_test" --format atf --step 3 "$TMP/t0.detail"
tap_run "$TBIN/cut_test" --to 200 "$TMP/t0.index"
# a real index file by itself (its links are then not checked)
cp "$PID/thread_0/index.atf" "$TMP/real.index"
tap_run "$TBIN/cut_test" --format atf --step 7 "$TMP/real.index"

done_testing
