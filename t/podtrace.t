#!/bin/sh
# podtrace: the shared sample's known figures, and fixtures from t/ptwrite.c
# covering every type and version, absent fields, RENAME halves, hostile
# strings and damaged captures.
. "$(dirname "$0")/lib.sh"

S=$SAMPLES/podtrace/small.ptrace

# ---- the shared sample (figures from samples/README.md) ----
run --info "$S"
is "$RC" 0 "sample: exit 0"
like "$OUT" "format:  podtrace" "sample: probed as podtrace"
like "$OUT" "events:  300$" "sample: 300 events"
like "$OUT" "V1: 80" "sample: 80 V1 records"
like "$OUT" "V2: 70" "sample: 70 V2 records"
like "$OUT" "V3: 75" "sample: 75 V3 records"
like "$OUT" "V4: 75" "sample: 75 V4 records"
# (events placed at their start, the timestamp less the latency: one
# waited 772 ms, from long before the capture's other events)
like "$OUT" "time:    93416592778104 .. 93417377760720 ns" "sample: time span"
like "$OUT" "invalid_frames: 0" "sample: no invalid frames"

run --dump "$S"
types=$(printf '%s\n' "$OUT" | awk -F'\t' '{print $3}' | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
is "$types" "CLOSE=9 CONNECT=11 DB_QUERY=12 DNS=9 EXEC=10 FORK=9 FSYNC=8 HTTP_REQ=8 HTTP_RESP=9 LOCK_CONTENTION=10 NET_DEV_ERROR=16 OOM_KILL=8 OPEN=7 PAGE_FAULT=7 POOL_ACQUIRE=8 POOL_EXHAUSTED=7 POOL_RELEASE=9 READ=13 RENAME=7 RESOURCE_LIMIT=12 SCHED_SWITCH=11 TCP_RECV=10 TCP_RETRANS=12 TCP_SEND=14 TCP_STATE=10 TLS_ERROR=13 TLS_HANDSHAKE=10 UDP_RECV=14 UDP_SEND=7 UNLINK=3 WRITE=7 " \
	"sample: records per type"

run --dump --json "$S"
cats=$(printf '%s\n' "$OUT" | grep -o '"category":"[^"]*","dur"' | cut -d'"' -f4 | sort | uniq -c | sort -k1,1rn -k2 | awk '{printf "%s=%s ", $2, $1}')
is "$cats" "NET=94 FS=54 POOL=24 TLS=23 PROC=19 HTTP=17 MEM=15 DB=12 RESOURCE=12 CPU=11 LOCK=10 DNS=9 " "sample: records per category"
pids=$(printf '%s\n' "$OUT" | grep -o '"pid":[0-9]*' | sort | uniq -c | sort -rn | awk '$1>1 {printf "%s:%s ", substr($2,7), $1}')
is "$pids" "30911:36 2201:33 5120:32 990:28 4410:27 1413:26 812:25 7731:25 2207:25 1412:22 0:12 " "sample: records per pid"
is "$(printf '%s\n' "$OUT" | grep -o '"pid":[0-9]*' | sort | uniq -c | awk '$1==1' | wc -l | tr -d ' ')" 9 "sample: nine fork children with one record"
is "$(printf '%s\n' "$OUT" | grep -c '"error":-\?[1-9]')" 94 "sample: 94 records with a non-zero error"
first=$(printf '%s\n' "$OUT" | grep '"offset":0,')
like "$first" '"ts":93417329160801,.*"type":"DNS"' "frame 0: DNS placed at its start (timestamp less latency)"
like "$first" '"timestamp":93417364902017,' "frame 0: its timestamp as written (when it completed)"
like "$first" '"version":"V4".*"pid":990,"comm":"envoy"' "frame 0: V4, pid 990, comm envoy"
like "$first" '"latency_ns":35741216,"error":0' "frame 0: latency and error"
like "$first" '"cgroup_id":8734,"net_ns_id":4026532699,"target":"api.example.com"' "frame 0: cgroup, netns, target"
like "$first" '"dur":35741216' "frame 0: latency is the event's duration"
f1=$(printf '%s\n' "$OUT" | grep '"offset":348,')
like "$f1" '"version":"V1".*"comm":null.*"error":-101.*"cgroup_id":null,"net_ns_id":null,"target":"2001:db8:fa9:000:000:000:000:006:443"' \
	"frame 1: V1 with absent fields as null, IPv6 target"
f8=$(printf '%s\n' "$OUT" | grep '"offset":2680,')
like "$f8" '"version":"V3".*"comm":"redis-server".*"tcp_state":1,.*"net_ns_id":null,"target":"192.168.49.2:53"' "frame 8: V3 TCP_STATE"
f30=$(printf '%s\n' "$OUT" | grep '"offset":10008,')
like "$f30" '"type":"RENAME".*"error":-18,.*"target":"settings.yaml>settings.yaml.1"' "frame 30: RENAME halves joined"
f25=$(printf '%s\n' "$OUT" | grep '"offset":8364,')
like "$f25" '"pid":0,.*"error":93,"bytes":1206969803,"tcp_state":0,.*"details":"CPU:93%"' "frame 25: RESOURCE_LIMIT"

run --dump "$S"
like "$OUT" "CONNECT	\[NET\] connect to 2001:db8:fa9:000:000:000:000:006:443 took 0.11ms failed: error -101 \(ENETUNREACH\)" "text: errno name for CONNECT"
like "$OUT" "SCHED_SWITCH	\[CPU\] thread blocked 107.10ms" "text: blocked time"
like "$OUT" "TCP_STATE	\[NET\] TCP state ESTABLISHED 192.168.49.2:53" "text: TCP state name"
like "$OUT" "OOM_KILL	\[MEM\] OOM kill: stress-ng-vm \(1024.00 MB\)" "text: OOM bytes in MB"
like "$OUT" "FORK	\[PROC\] fork created pid 32511 \(postgres\)" "text: fork child"
like "$OUT" "OPEN	\[FS\] open\(\) /etc/resolv.conf fd=160 took 0.75ms" "text: OPEN fd"
like "$OUT" "CLOSE	\[FS\] close\(\) fd=64" "text: CLOSE fd"
like "$OUT" "RESOURCE_LIMIT	\[RESOURCE\] CRITICAL CPU utilization: 93%" "text: utilisation, not an error"
like "$OUT" "RENAME	\[FS\] rename\(\) settings.yaml>settings.yaml.1 took 2.34ms failed: error -18 \(EXDEV\)" "text: rename with EXDEV"

# ---- fixtures from the writer ----
spec=$TMP/all.spec
: >"$spec"
t=1000
for ty in $(seq 0 41) 57 255 4294967295; do
	v=$((ty % 4 + 1))
	echo "V$v ts=$t pid=$((100 + ty % 3)) type=$ty latency=1500000 comm=proc$ty target=tgt$ty details=det$ty" >>"$spec"
	t=$((t + 10))
done
"$TBIN/ptwrite" "$TMP/all.pt" <"$spec"
run --dump "$TMP/all.pt"
is "$RC" 0 "all types: exit 0"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 45 "all types: 45 events"
for name in REDIS_CMD MEMCACHED_CMD FASTCGI_REQUEST FASTCGI_RESPONSE GRPC_METHOD KAFKA_PRODUCE KAFKA_FETCH DNS_QUERY AF_ALG HTTP3 USDT; do
	like "$OUT" "	$name	" "type beyond the spec's table: $name"
done
like "$OUT" "	type 57	\[UNKNOWN\] event type 57" "unknown type shown as 'type 57'"
like "$OUT" "	type 4294967295	" "type 0xFFFFFFFF does not index a table"
run --info "$TMP/all.pt"
like "$OUT" "V1: 11" "versions by record length"

cat >"$TMP/fields.spec" <<'EOF'
V1 ts=10 pid=7 type=21 bytes=5 target=/etc/hosts
V2 ts=20 pid=7 type=22 bytes=-1 cgroup=77
V3 ts=30 pid=7 type=30 old=a.txt new=b.txt comm=mv
V3 ts=40 pid=7 type=30 new=only-new comm=mv
V3 ts=50 pid=7 type=30 old=only-old comm=mv
V4 len=424 ts=60 pid=8 type=13 tcp_state=2 netns=99 comm=curl target=example.org
V4 ts=70 pid=8 type=0 error=-3 target=nx.example
V4 ts=80 pid=8 type=25 error=97 tcp_state=1 details=MEM:97%
V4 ts=90 pid=8 type=23 error=-1
V4 ts=100 pid=9 type=1 error=-111 target=esc\x1b[2Jape\xe2\x80\xae\xff comm=ev\x07il
EOF
"$TBIN/ptwrite" "$TMP/fields.pt" <"$TMP/fields.spec"
run --dump "$TMP/fields.pt"
like "$OUT" "open\(\) /etc/hosts fd=5" "OPEN: bytes shown as fd"
like "$OUT" "close\(\)$" "CLOSE: a negative fd is not shown"
like "$OUT" "rename\(\) a.txt>b.txt" "RENAME: both halves"
like "$OUT" "rename\(\) >only-new" "RENAME: empty old name gives >new"
like "$OUT" "rename\(\) only-old took" "RENAME: empty new name gives the old name"
like "$OUT" "HTTP_REQ	\[HTTP/2\] request example.org" "HTTP transport from tcp_state bits; 424-byte record read as V4"
like "$OUT" "lookup nx.example took 0.00ms failed: error -3 \(EAI_AGAIN\)" "DNS: getaddrinfo names"
like "$OUT" "EMERGENCY memory utilization: 97%" "RESOURCE_LIMIT: kind from tcp_state"
like "$OUT" "handshake took 0.00ms failed: error -1 \(SSL return value -1\)" "TLS: SSL return value"
like "$OUT" 'connect to esc\\x1b\[2Jape\\u202e\\xff' "hostile target escaped"
like "$OUT" 'pid 9 \(ev\\x07il\)' "hostile comm escaped in the lane name"
ok "$(printf '%s' "$OUT" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" | grep -qx 0; echo $?)" "no raw control bytes in --dump"
run --dump --json "$TMP/fields.pt"
like "$OUT" '"target":"esc\\u001b\[2Jape\\u202e\\\\xff"' "hostile target JSON-escaped"
like "$OUT" '"version":"V4","record_length":424' "record length kept"
like "$OUT" '"cgroup_id":77,"net_ns_id":null' "V2 has cgroup but no netns"

# ---- damage: stop there, say where, keep everything before ----
"$TBIN/ptwrite" "$TMP/good.pt" <<'EOF'
V1 ts=1 pid=1 type=0 target=one
V2 ts=2 pid=1 type=0 target=two
EOF
damaged() { # NAME SPEC-TAIL: good records, then the tail
	{ cat "$TMP/good.pt"; "$TBIN/ptwrite" - ; } >"$TMP/$1.pt"
}
printf 'prefix 0\n' | damaged zero
run --dump "$TMP/zero.pt"
is "$RC" 3 "zero length: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "zero length: both earlier records shown"
like "$ERR" "zero.pt: offset 640: frame length 0" "zero length: message names file and offset"
printf 'prefix 0x7ffffff0\nraw 01 02\n' | damaged absurd
run --dump "$TMP/absurd.pt"
is "$RC" 3 "absurd length: exit 3"
like "$ERR" "absurd.pt: offset 640: frame length 2147483632 is absurd" "absurd length: named with offset"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "absurd length: earlier records kept"
printf 'prefix 344\nraw 01 02 03\n' | damaged short
run --dump "$TMP/short.pt"
is "$RC" 3 "length past end of file: exit 3"
like "$ERR" "offset 640: truncated: frame claims 344 bytes, only 3 present" "length past EOF: message"
printf 'raw 01 00\n' | damaged prefix
run --dump "$TMP/prefix.pt"
like "$ERR" "offset 640: truncated: partial length prefix \(2 of 4 bytes\)" "partial length prefix"
printf 'frame len=100\nV1 ts=3 pid=1 type=0 target=three\n' | damaged invalid
run --dump "$TMP/invalid.pt"
is "$RC" 3 "short frame: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 3 "short frame skipped, decoding goes on"
like "$ERR" "offset 640: invalid frame: 100 bytes is shorter than a V1 record" "short frame: message"
: >"$TMP/empty.pt"
run --dump --format podtrace "$TMP/empty.pt"
is "$RC" 0 "empty capture with --format: no events, exit 0"
is "$OUT" "" "empty capture: nothing listed"

done_testing
