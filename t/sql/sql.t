#!/bin/sh
# ttv --sql: the tables over the model (events, lanes, types, sources,
# damage) for every format; what WHERE and GROUP BY ask of the model (time
# and id ranges, lane and type, rows grouped by lane or type) gives what
# SQLite finds reading every row itself; filters restrict events; the
# table, JSON and CSV outputs; errors with where they are.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# every format: one row per event, as --dump has them
ran=""
for name in $(formats); do
	generate "$name" 200000 4 "$name.trace" || fail "$name: writes a trace"
	ran="$ran $name"
	# (both JSON: the same escapes)
	"$TTV" --dump --json "$name.trace" | perl -ne '/^(\{"ts":-?\d+,"lane":"(?:[^"\\]|\\.)*","type":"(?:[^"\\]|\\.)*")/ and print "$1\n"' >dump.cols
	"$TTV" --sql "SELECT ts, lane, type FROM events ORDER BY id" --json "$name.trace" | sed 's/}$//' >sql.cols
	ok "$([ -s dump.cols ] && cmp -s dump.cols sql.cols; echo $?)" "$name: events has --dump's events, in its order ($(wc -l <dump.cols | tr -d ' ') rows)"
	run --sql "SELECT count(*) FROM events WHERE json_valid(fields)" --csv "$name.trace"
	is "$(echo "$OUT" | tail -1)" "$(wc -l <dump.cols | tr -d ' ')" "$name: every event's fields are a JSON object"
done
every_format "$ran" "every format was asked"

# spans: as the call tree nests them.  Their call paths (parent_id
# followed up), lengths and starts, and the self time per path, are those
# t/nest.pl finds nesting --dump --json apart.
PATHS="CREATE TEMP TABLE s AS SELECT * FROM spans;
WITH RECURSIVE p(id, path) AS (
  SELECT id, replace(name, ';', ',') FROM s WHERE parent_id IS NULL
  UNION ALL SELECT s.id, p.path || ';' || replace(s.name, ';', ',') FROM s JOIN p ON s.parent_id = p.id)"
for name in atf dial9 htdump; do
	"$TTV" --sql "$PATHS SELECT p.path, s.dur, s.ts FROM p JOIN s ON s.id = p.id" --json "$name.trace" |
		perl -MJSON::XS -ne '$r = decode_json($_); print join("\t", $r->{path}, $r->{dur}, $r->{ts}), "\n"' | sort >sql.spans
	"$TTV" --dump --json "$name.trace" | SPANS=1 perl "$T_DIR/nest.pl" | sort >nest.spans
	ok "$([ -s nest.spans ] && cmp -s sql.spans nest.spans; echo $?)" "$name: spans, their paths, lengths and starts ($(wc -l <nest.spans | tr -d ' ') spans)"
	"$TTV" --sql "$PATHS SELECT p.path, sum(s.self) AS self FROM p JOIN s ON s.id = p.id GROUP BY p.path HAVING self > 0" \
		--json "$name.trace" | perl -MJSON::XS -ne '$r = decode_json($_); print "path $r->{path} $r->{self}\n"' | sort >sql.self
	"$TTV" --dump --json "$name.trace" | perl "$T_DIR/nest.pl" | grep '^path ' | sort >nest.self
	ok "$([ -s nest.self ] && cmp -s sql.self nest.self; echo $?)" "$name: self time per call path"
done
run --sql "SELECT count(*) FROM spans WHERE depth = 0 AND parent_id IS NULL" --csv htdump.trace
is "$(echo "$OUT" | tail -1)" "$("$TTV" --sql "SELECT count(*) FROM spans WHERE depth = 0" --csv htdump.trace | tail -1)" \
	"spans: the outermost have no parent"

# a trace whose contents are known
cat >known.spec <<'EOF'
V4 ts=1000 pid=1 type=21 latency=10 comm=alpha target=/etc/hosts
V4 ts=2000 pid=2 type=0 latency=500 comm=beta target=one.example
V4 ts=3000 pid=1 type=21 latency=30 comm=alpha target=/a,b"c
EOF
"$TBIN/ptwrite" k.pt <known.spec
run --sql "SELECT id, ts, dur, lane, type, category, name, role, json_extract(fields, '\$.pid') AS pid FROM events" k.pt
is "$OUT" 'id  ts    dur  lane           type  category  name         role      pid
--  ----  ---  -------------  ----  --------  -----------  --------  ---
 0   990   10  pid 1 (alpha)  OPEN  FS        /etc/hosts   complete    1
 1  1500  500  pid 2 (beta)   DNS   DNS       one.example  complete    2
 2  2970   30  pid 1 (alpha)  OPEN  FS        /a,b"c       complete    1' "a table: names over dashes, numbers to the right, json_extract on fields"
run --sql "SELECT name, dur, NULL AS missing, 1.5 AS half FROM events WHERE id = 2" --json k.pt
is "$OUT" '{"name":"/a,b\"c","dur":30,"missing":null,"half":1.5}' "--json: JSON lines, numbers as numbers, NULL as null"
run --sql "SELECT name, NULL AS missing FROM events" --csv k.pt
is "$OUT" 'name,missing
/etc/hosts,
one.example,
"/a,b""c",' "--csv: quoted where it must be, NULL empty"
run --sql "SELECT * FROM lanes ORDER BY name" --csv k.pt
is "$OUT" 'id,name,source,key,events,first_ts,last_ts,counter
0,pid 1 (alpha),0,1,2,990,3000,0
1,pid 2 (beta),0,2,1,1500,2000,0' "lanes: a row per lane, its events and time span"
run --sql "SELECT name, category, role FROM types ORDER BY name" --csv k.pt
like "$OUT" 'DNS,DNS,complete' "types: a row per type"
run --sql "SELECT path, format, status, files, damage FROM sources" --csv k.pt
is "$OUT" 'path,format,status,files,damage
k.pt,podtrace,ok,1,0' "sources: a row per PATH"
run --sql "SELECT count(*) FROM events; SELECT 'two'" k.pt
is "$OUT" 'count(*)
--------
       3

'"'two'"'
-----
two' "two statements: two tables, a blank line between"

# damage: where --info says it is
"$TBIN/d9write" --generate 3000 --seed 2 dmg.bin
size=$(wc -c <dmg.bin)
printf '\377\377\377\377\377\377\377\377' | dd of=dmg.bin bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
run --sql "SELECT file, offset, fatal FROM damage" --csv dmg.bin
is "$RC" 3 "a damaged trace: exit 3, as the other batch modes"
first=$("$TTV" --info --json dmg.bin 2>/dev/null | perl -ne 'print "$1,$2" if /"damage":\[\{"file":"([^"]*)","offset":(\d+)/')
is "$(echo "$OUT" | sed -n 2p | cut -d, -f1,2)" "$first" "damage: the file and offset --info gives ($first)"
run --sql "SELECT status, damage > 0 FROM sources" --csv dmg.bin
is "$(echo "$OUT" | tail -1)" "damaged,1" "sources: its status and damage count"

# what the model answers gives what SQLite finds by reading every row:
# the same WHERE with the column in an expression (ts+0), which SQLite
# cannot hand to the table
"$TBIN/d9write" --generate 40000 --seed 9 big.bin
# (times of events a third and half way through, and the ends)
at() { "$TTV" --sql "SELECT ts FROM events WHERE id = $1" --csv big.bin | tail -1; }
lo=$(at 0) q1=$(at 13000) q2=$(at 20000) hi=$(at 40401)
bad=""
for w in "ts BETWEEN $q1 AND $q2" "ts > $q1 AND ts < $q2" "ts >= $q1" "ts <= $q2" "ts = $q1" "ts > $q2.5" "ts < $q1.5" \
	"ts <= $q1.5" "ts >= $q2.5" "ts < $lo" "ts > $hi" "ts >= 'x'" "id BETWEEN 100 AND 200" "id > 39000" "id = 7" \
	"id < -1" "lane = 'worker 1'" "type = 'PollStartEvent'" "lane = 'worker 0' AND type = 'PollEndEvent' AND ts < $q2" \
	"lane = 'none'" "type = 'PollStartEvent' AND type = 'PollEndEvent'" "type = 'pollstartevent' COLLATE NOCASE" \
	"lane = 'WORKER 1' COLLATE NOCASE" "id = 7.0" "id < 100.5" "ts = $q1.0" "type = 1"; do
	got=$("$TTV" --sql "SELECT count(*), sum(id), total(dur) FROM events WHERE $w" --csv big.bin | tail -1)
	plain=$(echo "$w" | sed -e 's/\bts\b/(ts+0)/g' -e 's/\bid\b/(id+0)/g' -e "s/\blane\b/(lane||'')/g" -e "s/\btype\b/(type||'')/g")
	want=$("$TTV" --sql "SELECT count(*), sum(id), total(dur) FROM events WHERE $plain" --csv big.bin | tail -1)
	[ "$got" = "$want" ] || { bad="$bad [$w: $got, not $want]"; }
done
is "$bad" "" "WHERE on ts, id, lane, type: what the model answers is what every row says"
n=$("$TTV" --sql "SELECT count(*) FROM events WHERE ts BETWEEN $q1 AND $q2" --csv big.bin | tail -1)
ok "$([ "$n" -gt 100 ] && [ "$n" -lt 40000 ]; echo $?)" "... and a time range holds some events, not all ($n)"
bad=""
for q in "SELECT type, count(*), sum(dur) FROM events GROUP BY type" \
	"SELECT lane, count(*), min(ts) FROM events GROUP BY lane ORDER BY lane DESC" \
	"SELECT type, count(*) FROM events WHERE ts > $q1 AND lane = 'worker 0' GROUP BY type" \
	"SELECT type, id FROM events ORDER BY type, id LIMIT 50" \
	"SELECT lane, id FROM events ORDER BY lane DESC, id LIMIT 50" \
	"SELECT DISTINCT type FROM events ORDER BY type" \
	"SELECT type COLLATE NOCASE, count(*) FROM events GROUP BY type COLLATE NOCASE"; do
	got=$("$TTV" --sql "$q" --csv big.bin | md5sum)
	want=$("$TTV" --sql "$(echo "$q" | sed 's/FROM events/FROM (SELECT * FROM events ORDER BY random())/')" --csv big.bin | md5sum)
	[ "$got" = "$want" ] || bad="$bad [$q]"
done
is "$bad" "" "GROUP BY and ORDER BY lane or type: the model's grouping is SQLite's"

# filters restrict events, as in every view
run --sql "SELECT count(*) FROM events" --csv -e type:PollStart big.bin
is "$(echo "$OUT" | tail -1)" "$("$TTV" --dump -e type:PollStart big.bin | wc -l | tr -d ' ')" "-e: events holds only what the filters keep"
run --sql "SELECT type, count(*) FROM events GROUP BY type" --csv -e '!type:Poll' big.bin
unlike "$OUT" 'Poll' "... grouped too"

# past one machine: --dump --json is what DuckDB reads (as ClickHouse or
# Spark would); a count and a GROUP BY there are ttv's
NPM=$ROOT/build/npm
"$TTV" --dump --json big.bin >big.jsonl
cp "$T_DIR/duckdb.mjs" "$NPM/duckdb-$$.mjs" # (node finds the package beside it)
duck() { node "$NPM/duckdb-$$.mjs" "$TMP/big.jsonl" "$1"; }
is "$(duck "SELECT count(*) FROM FILE")" "$("$TTV" --sql "SELECT count(*) FROM events" --csv big.bin | tail -1)" \
	"DuckDB counts --dump --json's events as ttv --sql does"
is "$(duck "SELECT type, count(*), sum(dur) FROM FILE GROUP BY type ORDER BY type")" \
	"$("$TTV" --sql "SELECT type, count(*), sum(dur) FROM events GROUP BY type ORDER BY type" --csv big.bin | tail -n +2)" \
	"... and groups them by type alike"
rm -f "$NPM/duckdb-$$.mjs"

# trace strings never reach the terminal raw
"$TBIN/ptwrite" h.pt <<'EOF'
V4 ts=10 pid=1 type=21 latency=1 comm=x target=\x1b]0;pwned\x07\x1b[2Jend
EOF
for f in "" --csv --json; do
	# shellcheck disable=SC2086
	"$TTV" --sql "SELECT name, summary FROM events" $f h.pt >hostile.out
	ok "$(! grep -q "$(printf '\033')" hostile.out; echo $?)" "${f:-table}: no raw escape byte from the trace"
done
like "$(cat hostile.out)" '\\u001b\]0;pwned' "... shown escaped"

# errors
run --sql "SELEC 1" k.pt
is "$RC" 2 "a statement SQLite cannot read: exit 2"
is "$ERR" 'ttv: --sql: near "SELEC": syntax error (at character 1)
  SELEC 1
  ^' "... its message, and where"
run --sql "SELECT count(*)
FROM events WHERE nope = 1" k.pt
is "$ERR" 'ttv: --sql: no such column: nope (at character 35)
  FROM events WHERE nope = 1
                    ^' "... on the line where it is"
run --sql "SELECT json_extract('not json', '\$.a')" k.pt
is "$RC" 1 "a statement that fails as it runs: exit 1"
like "$ERR" '^ttv: --sql: malformed JSON' "... and why"
run --sql "SELECT count(*) FROM marks" --csv k.pt
is "$OUT" "count(*)
0" "marks: none in a batch run (they are the viewer's)"
run --sql "INSERT INTO marks(id) VALUES (0)" k.pt
is "$RC" 1 "writing marks in a batch run: exit 1"
like "$ERR" "marks: only the viewer has them" "... and why"
run --sql "SELECT 1" --csv --json k.pt
is "$RC" 2 "--csv and --json: a usage error"
run --csv --dump k.pt
is "$RC" 2 "--csv without --sql: a usage error"
run --sql "SELECT 1" --dump k.pt
is "$RC" 2 "--sql and --dump: a usage error"

done_testing
