#!/bin/sh
# The viewer's SQL (;): the result as a table with bars, Enter going to a
# row's event, errors at the prompt, the last result again; in a terminal
# (tmux): a runaway query stopped by Esc and by C-c, keys typed meanwhile,
# a resize, and a query over a followed file that sees it as it was when
# the query began.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
# (the status line says how long a query took, which differs run to run:
# screens are compared without it, the tests below read it)
SCREEN_MASK='$ s/.*/(the status line)/'

"$TBIN/ptwrite" q.pt <<'SPEC'
V4 ts=1000000 pid=100 type=5 latency=400000 comm=server target=/data/a bytes=4096
V4 ts=1100000 pid=200 type=1 latency=50000 comm=client target=10.0.0.1:80
V4 ts=1200000 pid=100 type=5 latency=100000 comm=server target=/data/b bytes=512
V4 ts=1300000 pid=300 type=0 latency=100000 comm=ev\x1b[31mil target=\x1b]0;pwned\x07
V4 ts=1400000 pid=100 type=5 latency=200000 comm=server target=/data/c bytes=1
V4 ts=1500000 pid=200 type=1 latency=800000 comm=client target=10.0.0.2:80
V4 ts=1600000 pid=100 type=6 latency=100000 comm=server target=/data/a
V4 ts=1700000 pid=200 type=1 latency=20000 comm=client target=10.0.0.3:80
SPEC

GROUP="SELECT type, count(*) AS n, sum(dur) AS total FROM events GROUP BY type ORDER BY n DESC, type"
scenario sql-group q.pt <<S
type ;$GROUP
Enter
dumpattr group.attr
S
# the rows are those --sql prints, in its columns
"$TTV" --sql "$GROUP" q.pt >batch.txt
squeeze() { sed 's/  */ /g; s/ *$//'; }
is "$(printf '%s\n' "$SCREEN" | sed -n '2,5p' | squeeze)" "$(sed -n '3,6p' batch.txt | squeeze)" \
	"the result: the rows --sql prints"
like "$SCREEN" '^type +n +total' "the column names over the rows, numbers' names to the right"
like "$SCREEN" ";SELECT type, count\(\*\) AS n" "the status line says the query"
like "$SCREEN" '4 rows in [0-9.]+(ns|us|ms|s) +row 1/4' "how many rows, how long, and which row is selected"
# bars: n and total measure something (their largest value fills the column)
n_bars=$(sed -n 2p group.attr | tr -cd b | wc -c)
n_bars3=$(sed -n 4p group.attr | tr -cd b | wc -c)
ok "$([ "$n_bars" -gt 0 ] && [ "$n_bars3" -gt 0 ] && [ "$n_bars3" -lt "$n_bars" ]; echo $?)" \
	"numbers as bars: the largest row's longest ($n_bars cells), a smaller one's shorter ($n_bars3)"
unlike "$(sed -n 2p group.attr | cut -c1-7)" b "no bar on a text column"

CLIENTS="SELECT id, ts, dur FROM events WHERE lane LIKE '%client%' ORDER BY dur DESC"
scenario sql-enter q.pt <<S
Tab
type ;$CLIENTS
Enter
Enter
S
id=$("$TTV" --sql "$CLIENTS LIMIT 1" --csv q.pt | tail -1 | cut -d, -f1)
like "$SCREEN" "#$((id + 1))/8 " "Enter goes to the row's event (by its id: $id), selected in the list"
like "$SCREEN" 'row 1 of 3' "and says which row it came from"

scenario sql-enter-ts q.pt <<'S'
type ;SELECT max(ts) AS ts FROM events
Enter
Enter
S
like "$SCREEN" '#8/8 \+0\.001080000' "a row with only a ts goes to the first event at that time"

scenario sql-no-place q.pt <<'S'
type ;SELECT count(*) FROM events
Enter
Enter
S
like "$SCREEN" 'no id or ts column to go to' "a row with neither says so"
like "$SCREEN" 'count\(\*\)' "and stays"

scenario sql-again q.pt <<'S'
type ;
Enter
dump before.txt
type ;SELECT lane, count(*) AS n FROM events GROUP BY lane
Enter
Escape
type ;
Enter
S
like "$(cat before.txt)" 'no SQL result yet' "; Enter before any query: what to type"
like "$SCREEN" '^lane +n' "; Enter: the last result again"
like "$SCREEN" 'pid 100 \(server\) +4' "with its rows"

scenario sql-bad q.pt <<'S'
type ;SELECT count(*) FROM events WHER ts > 0
Enter
S
like "$SCREEN" ';SELECT count\(\*\) FROM events WHER ts > 0 +near "ts": syntax error' \
	"bad SQL: the prompt again, with SQLite's message"
scenario sql-bad-fix q.pt <<'S'
type ;SELECT count(*) FROM events WHER ts > 0
Enter
C-u
type SELECT 40 + 2 AS answer
Enter
S
like "$SCREEN" '^ *answer' "the prompt is still the SQL prompt: mended, it runs"
like "$SCREEN" ' 42' "its result"

scenario sql-runtime q.pt <<'S'
type ;SELECT json_extract('{', '$.a')
Enter
S
like "$SCREEN" 'SQL: malformed JSON' "a statement that fails as it runs: why"

scenario sql-hostile q.pt <<'S'
type ;SELECT lane, name FROM events WHERE lane LIKE '%il%'
Enter
S
like "$SCREEN" 'ev\\x1b\[31mil' "strings from the trace never reach the terminal raw"
unlike "$SCREEN" "$(printf '\033')" "no escape on the screen"

scenario sql-filtered q.pt -e 'type:READ' <<'S'
type ;SELECT count(*) AS n FROM events
Enter
S
like "$SCREEN" '^ +3 *$' "filters restrict events as they restrict every view"

scenario sql-changes q.pt <<'S'
type ;CREATE TEMP TABLE t(a); INSERT INTO t VALUES (1), (2)
Enter
S
like "$SCREEN" 'SQL done: 2 rows changed' "a statement without a result: what it changed"

scenario sql-pan q.pt <<'S'
type ;SELECT 'first' AS a, 'second' AS b, 'third' AS c
Enter
l
S
like "$SCREEN" '^second +third' "l: the columns move left, one at a time"

scenario sql-history q.pt <<'S'
type ;SELECT 'remembered' AS r
Enter
Escape
type ;
Up
S
like "$SCREEN" ";SELECT 'remembered' AS r" "the prompt's history: Up brings the last query back"

# marks: the viewer's, read and written in SQL, with notes
MARKS="SELECT mark, id, note FROM marks ORDER BY mark"
scenario sql-marks q.pt <<S
j
m
a
type ;INSERT INTO marks(id, note) SELECT id, 'slow: ' || dur FROM events WHERE dur >= 400000 ORDER BY id
Enter
dump inserted.txt
type ;$MARKS
Enter
dump marks1.txt
Escape
'
b
dump goto-b.txt
type ;UPDATE marks SET note = 'looked at' WHERE mark = 'a'
Enter
type ;DELETE FROM marks WHERE mark = 'c'
Enter
type ;UPDATE marks SET ts = 1100000 WHERE mark = 'b'
Enter
'
a
dump goto-a.txt
'
c
dump goto-c.txt
type ;$MARKS
Enter
S
like "$(cat inserted.txt)" 'SQL done: 2 rows changed' "INSERT INTO marks: a mark on each row's event"
first=$("$TTV" --sql "SELECT id FROM events WHERE dur >= 400000 ORDER BY id LIMIT 1" --csv q.pt | tail -1)
second=$("$TTV" --sql "SELECT id FROM events WHERE dur >= 400000 ORDER BY id LIMIT 1 OFFSET 1" --csv q.pt | tail -1)
like "$(cat marks1.txt)" "^a +1 +NULL" "marks: the one set with m, without a note"
like "$(cat marks1.txt)" "^b +$first +slow: 400000" "and the inserted ones, on the first letters free, with their notes"
like "$(cat marks1.txt)" "^c +$second +slow: 800000" "each on its event"
like "$(cat goto-b.txt)" "mark 'b': slow: 400000 .*#$((first + 1))/8" "going to a mark says its note"
like "$(cat goto-a.txt)" "mark 'a': looked at .*#2/8" "UPDATE: a note written beside a mark set with m"
like "$(cat goto-c.txt)" "no mark 'c'" "DELETE: the mark is gone"
b_id=$("$TTV" --sql "SELECT min(id) FROM events WHERE ts >= 1100000" --csv q.pt | tail -1)
like "$SCREEN" "^b +$b_id +slow: 400000" "UPDATE of ts: the mark moves to the first event at or after it"
scenario sql-marks-bad q.pt <<'S'
m
a
type ;INSERT INTO marks(mark, id) VALUES ('a', 3)
Enter
dump taken.txt
type ;INSERT INTO marks(mark, id) VALUES ('B', 3)
Enter
dump letter.txt
type ;INSERT INTO marks(id) VALUES (99)
Enter
dump id.txt
type ;INSERT INTO marks(note) VALUES ('x')
Enter
S
like "$(cat taken.txt)" "marks: that mark is set: UPDATE it" "a mark set already is not overwritten by INSERT"
like "$(cat letter.txt)" "marks: a mark is a letter, a to z" "a mark is a letter"
like "$(cat id.txt)" "marks: a mark's id is an event's" "an id that is no event's"
like "$SCREEN" "marks: a mark needs the id or the ts of an event" "no event named"

# ---- in a terminal ---------------------------------------------------------

"$TBIN/ptwrite" big.pt <<'SPEC'
V4 ts=1000 pid=1 type=5 latency=10 comm=a target=x
V4 ts=2000 pid=1 type=5 latency=10 comm=a target=y
SPEC
S=ttv-test-$$
SLOW="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c, events"
session 100x30 "TERM=xterm-256color '$TTV' big.pt"
wait_for "#1/2" || fail "the viewer starts"
tm send-keys -t "$S" '\;' "$SLOW" Enter
wait_for "SQL running" 50
ok $? "a long query says on the status line that it runs"
tm send-keys -t "$S" Escape
wait_for "SQL stopped" 30
ok $? "Esc stops it"
pid=$(pgrep -f "^$TTV big.pt" | head -1)
t0=$(awk '{print $14 + $15}' /proc/"$pid"/stat)
sleep 1
t1=$(awk '{print $14 + $15}' /proc/"$pid"/stat)
ok "$([ $((t1 - t0)) -le 5 ]; echo $?)" "and it runs no more ($((t1 - t0)) ticks in a second)"
tm send-keys -t "$S" '\;' "$SLOW" Enter
wait_for "SQL running" 50 || fail "it runs again"
tm send-keys -t "$S" C-c
wait_for "SQL stopped" 30
ok $? "C-c stops it too"
like "$(screen)" "#1/2" "and ttv goes on"
tm send-keys -t "$S" '\;' "$SLOW" Enter
wait_for "SQL running" 50 || fail "it runs once more"
tm resize-window -t "$S" -x 70 -y 20
sleep 0.5
tm send-keys -t "$S" Escape
wait_for "SQL stopped" 30 || fail "stopped after a resize"
sleep 0.3
is "$(screen | sed -n 20p | grep -c 'SQL stopped')" 1 "a resize while it runs: the status line on the new last line"
# keys typed while a query runs are done after it
tm send-keys -t "$S" '\;' "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT x FROM c WHERE x % 1000000 = 0" Enter
tm send-keys -t "$S" j j
wait_for "row 3/3" 100
ok $? "keys typed while it ran move in its result afterwards"
tm send-keys -t "$S" q q
wait_for "exit=0"
ok $? "q q quits"
tm kill-session -t "$S"

# following: a query sees the events as they were when it began, while a
# writer goes on; the following goes on after it
"$TBIN/ptwrite" live.pt <<'SPEC'
V4 ts=1000 pid=1 type=5 latency=10 comm=a target=x
SPEC
(i=2; while [ $i -lt 4000 ]; do
	printf 'V4 ts=%d000 pid=1 type=5 latency=10 comm=a target=x\n' $i | "$TBIN/ptwrite" one.pt
	cat one.pt >>live.pt # (records without a file header: appended whole)
	i=$((i + 1)); sleep 0.01
done) &
writer=$!
session 100x30 "TERM=xterm-256color '$TTV' -f live.pt"
sleep 1
tm send-keys -t "$S" '\;' "SELECT (SELECT count(*) FROM events) AS before, (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000) SELECT count(*) FROM c) AS slow, (SELECT count(*) FROM events) AS after" Enter
wait_for "row 1/1" 200 || fail "the query ends"
row=$(screen | sed -n 2p)
before=$(echo "$row" | awk '{print $1}')
after=$(echo "$row" | awk '{print $3}')
ok "$([ -n "$before" ] && [ "$before" = "$after" ]; echo $?)" "a query sees one snapshot while the file grows ($before, $after)"
tm send-keys -t "$S" Escape
sleep 1.5
now=$(screen | tail -1 | sed -n 's/.*#[0-9]*\/\([0-9]*\).*/\1/p')
ok "$([ -n "$now" ] && [ "$now" -gt "$before" ]; echo $?)" "and following went on after it ($now events now)"
kill $writer 2>/dev/null
wait $writer 2>/dev/null
tm kill-server

done_testing
