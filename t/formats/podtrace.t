#!/bin/sh
# podtrace: the shared sample's known figures, and fixtures from t/ptwrite.c
# covering every type and version, absent fields, RENAME halves, hostile
# strings and damaged captures.
. "$(dirname "$0")/../lib.sh"

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
like "$OUT" "time:    93416592778104 .. 93417377879778 ns" "sample: time span, to the last record's timestamp (the end of its span)"
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
like "$f25" '"pid":0,.*"error":93,"error_name":"CRITICAL","bytes":1206969803,"tcp_state":0,"tcp_state_name":"CPU",.*"details":"CPU:93%"' "frame 25: RESOURCE_LIMIT"

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
like "$OUT" "HTTP_REQ	\[HTTP/2\] request example.org" "HTTP transport from tcp_state bits (a 424-byte V8 record)"
like "$OUT" "lookup nx.example took 0.00ms failed: error -3 \(EAI_AGAIN\)" "DNS: getaddrinfo names"
like "$OUT" "EMERGENCY memory utilization: 97%" "RESOURCE_LIMIT: kind from tcp_state"
like "$OUT" "handshake took 0.00ms failed: error -1 \(SSL return value -1\)" "TLS: SSL return value"
like "$OUT" 'connect to esc\\x1b\[2Jape\\u202e\\xff' "hostile target escaped"
like "$OUT" 'pid 9 \(ev\\x07il\)' "hostile comm escaped in the lane name"
ok "$(printf '%s' "$OUT" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" | grep -qx 0; echo $?)" "no raw control bytes in --dump"
run --dump --json "$TMP/fields.pt"
like "$OUT" '"target":"esc\\u001b\[2Jape\\u202e\\\\xff"' "hostile target JSON-escaped"
like "$OUT" '"version":"V8","record_length":424' "a 424-byte record is V8, its length kept"
like "$OUT" '"cgroup_id":77,"net_ns_id":null' "V2 has cgroup but no netns"
like "$OUT" '"error":-111,"error_name":"ECONNREFUSED"' "JSON: the errno's name beside the number"
like "$OUT" '"tcp_state":2,"tcp_state_name":"HTTP/2"' "JSON: the HTTP transport's name"
like "$OUT" '"error":-3,"error_name":"EAI_AGAIN"' "JSON: the getaddrinfo code's name"
run --export chrome "$TMP/fields.pt"
like "$OUT" '"error":-111,"error_name":"ECONNREFUSED"' "chrome export: the errno's name too"

# ---- V5..V9 (podtrace after V4) and the types after USDT ----
cat >"$TMP/later.spec" <<'EOF'
V5 ts=1000 pid=5 type=0 dns_ip=\x08\x08\x04\x04 dns_transport=1 target=five.example
V6 ts=2000 pid=6 type=38 tcp_state=28 dns_transport=3 dns_ip6=\x20\x01\x48\x60\0\0\0\0\0\0\0\0\0\0\x88\x88 target=six.example
V7 ts=3000 pid=7 type=1 peer_family=2 peer_saddr=167772161 peer_daddr=3232248066 peer_sport=40000 peer_dport=443 target=10.0.0.1:443
V7 ts=3500 pid=7 type=1 peer_family=10 peer_saddr6=\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01 peer_daddr6=\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02 peer_sport=1 peer_dport=2
V8 ts=4000 pid=8 type=13 latency=500 correlation=3500 target=/api
V9 ts=5000 pid=9 type=13 latency=500 http_method=3 agg=1 target=/orders
V9 ts=5100 pid=9 type=14 latency=600 http_method=6 bytes=2048 target=/orders/7
V9 ts=6000 pid=9 type=42 latency=2000000
V9 ts=7000 pid=9 type=43 error=95 bytes=19 tcp_state=20
V9 ts=7100 pid=9 type=43 error=0 bytes=41 tcp_state=0
V9 ts=8000 pid=0 type=44 latency=1250000 target=10.1.2.3:5432
V9 ts=9000 pid=9 type=45 target=10.1.2.3:5432
V9 ts=9100 pid=9 type=45 error=-111 target=10.1.2.4:5432
V9 ts=10000 pid=9 type=46 latency=3000000 tcp_state=257
V9 ts=11000 pid=9 type=47
V9 len=440 ts=12000 pid=9 type=3 http_method=1
EOF
"$TBIN/ptwrite" "$TMP/later.pt" <"$TMP/later.spec"
run --info "$TMP/later.pt"
is "$RC" 0 "V5..V9: exit 0"
like "$(printf '%s' "$OUT" | tr '\n' ' ')" 'V5: 1 *V6: 1 *V7: 2 *V8: 1 *V9: 11' "V5..V9 told apart by length (a 440-byte record is V9)"
run --dump "$TMP/later.pt"
like "$OUT" 'HTTP_REQ	\[HTTP\] request POST /orders took' "V9: the HTTP method in the summary"
like "$OUT" 'HTTP_RESP	\[HTTP\] response DELETE /orders/7 2.00 KB took' "V9: a response's method"
like "$OUT" 'DB_ACQUIRE	\[POOL\] database/sql connection wait 2.00ms' "type 42: DB_ACQUIRE"
like "$OUT" 'DB_POOL_STATS	\[POOL\] database/sql pool: 19 open of 20, 95% in use$' "type 43: DB_POOL_STATS"
like "$OUT" 'DB_POOL_STATS	\[POOL\] database/sql pool: 41 open, no maximum set$' "type 43: an unlimited pool is no 0%"
like "$OUT" 'pid 0	TCP_RTT	\[NET\] round trip 10.1.2.3:5432 1.25ms' "type 44: TCP_RTT (pid 0)"
like "$OUT" 'CONNECT_RESULT	\[NET\] connect to 10.1.2.3:5432: connected$' "type 45: a connect that worked"
like "$OUT" 'connect to 10.1.2.4:5432 failed: error -111 \(ECONNREFUSED\)' "type 45: a connect refused"
like "$OUT" 'REQUEST_DONE	\[REQUEST\] Go net/http request took 3.00ms' "type 46: REQUEST_DONE, the server's kind"
like "$OUT" 'type 47	\[UNKNOWN\] event type 47' "type 47: unknown"
run --dump --json "$TMP/later.pt"
like "$OUT" '"version":"V5",.*"dns_server_ip":"8.8.4.4","dns_transport":1,"dns_transport_name":"TCP"' "V5: DNS server and transport"
like "$OUT" '"version":"V6",.*"dns_server_ip":null,"dns_transport":3,"dns_transport_name":"libc resolver","dns_server_ip6":"2001:4860::8888"' "V6: the server's IPv6 address"
like "$OUT" '"peer_family":2,"peer_family_name":"AF_INET","peer_src_ip":"10.0.0.1","peer_dst_ip":"192.168.49.2","peer_src_port":40000,"peer_dst_port":443' "V7: IPv4 peers in host order"
like "$OUT" '"peer_src_ip":"2001:db8::1","peer_dst_ip":"2001:db8::2"' "V7: IPv6 peers"
like "$OUT" '"version":"V8",.*"correlation_id":3500}' "V8: correlation id"
like "$OUT" '"http_method":3,"http_method_name":"POST","agg_recorded":true}' "V9: method and kernel-aggregation flag"
like "$OUT" '"type":"TCP_RTT","category":"NET","role":"instant"' "TCP_RTT: a sample, an instant"
like "$OUT" '"ts":8000,"lane":"pid 0","type":"TCP_RTT"' "TCP_RTT: at its timestamp"
like "$OUT" '"type":43,"type_name":"DB_POOL_STATS",.*"error":95,"bytes":19,"tcp_state":20' "DB_POOL_STATS: utilisation, open, maximum"
unlike "$OUT" '"error":95,"error_name"' "DB_POOL_STATS: a percentage is no errno"
like "$OUT" '"tcp_state":257,"tcp_state_name":"Go net/http"' "REQUEST_DONE: server kind named"
run -e 'type:TCP_RTT' --stats "$TMP/later.pt"
like "$OUT" 'TCP_RTT' "the new types filter by name"

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
