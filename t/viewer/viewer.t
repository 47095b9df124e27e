#!/bin/sh
# The viewer, driven by scripted keys (TTV_SCRIPT) with the screen dumped as
# text and compared with t/screens/NAME.txt, as tig's tests do.
# TTV_UPDATE_SCREENS=1 rewrites the expected screens (check them by eye!).
. "$(dirname "$0")/../lib.sh"

"$TBIN/ptwrite" "$TMP/view.pt" <<'SPEC'
V4 ts=1900000 pid=100 type=18 latency=900000 comm=server target=SELECT\s1
V4 ts=1400000 pid=100 type=5 latency=300000 comm=server target=/data/a bytes=4096
V4 ts=1250000 pid=100 type=6 latency=100000 comm=server target=/data/a
V4 ts=1100000 pid=200 type=1 latency=50000 comm=client target=10.0.0.1:80 error=-111
V4 ts=1500000 pid=200 type=8 tcp_state=1 comm=client target=10.0.0.1:80
V4 ts=1620000 pid=200 type=21 latency=20000 comm=client target=/etc/hosts bytes=3
V4 ts=1700000 pid=200 type=22 bytes=3 comm=client
V4 ts=1900000 pid=300 type=0 latency=100000 comm=ev\x1b[31mil target=\x1b]0;pwned\x07\xe2\x80\xaebad
V4 ts=2000000 pid=100 type=25 error=91 tcp_state=1 comm=server details=MEM:91%
V4 ts=2300000 pid=100 type=13 latency=200000 tcp_state=2 comm=server target=GET\s/api
SPEC

V=view.pt # relative: screens show the name
scenario lanes "$V" </dev/null
like "$SCREEN" "^3 lanes" "lanes: header counts lanes"
like "$SCREEN" "pid 100 \(server\)" "lanes: lane names"
like "$SCREEN" 'pid 100 \(server\) +SELECT 1 ' "lanes: a span's name inside its bar"
like "$(printf '%s\n' "$SCREEN" | sed -n 3p)" '^│ +.?/data/a[ ░▒]' "lanes: a span inside another one row deeper"
like "$(printf '%s\n' "$SCREEN" | sed -n 4p)" '^│ +.?/da…' "lanes: and one inside that deeper still, its name cut"
like "$SCREEN" '#1/10 \+0\.000000000' "status: position and time"
unlike "$SCREEN" "$(printf '\033')" "no raw escape on screen"
unlike "$SCREEN" "damaged" "no damage: none said"
like "$SCREEN" '\+0\.000000000 pid 100 \(server\) DB_QUERY +\[DB\] query SELECT 1 took 0\.90ms' "lanes: the selected event's row, as the list shows it"

SIZE=120x24 scenario list "$V" <<'S'
Tab
S
like "$SCREEN" 'TIME +LANE +TYPE +SUMMARY' "list: header"
like "$SCREEN" 'ev\\x1b\[31mil' "list: hostile comm escaped"
like "$SCREEN" '\\x1b\]0;pwned\\x07\\u202ebad' "list: hostile target escaped"

scenario list-shift "$V" <<'S'
Tab
l
S
like "$SCREEN" 'SUMMARY \(scrolled [0-9]+ cells\)' "list: l scrolls the summaries sideways, and the header says so"
like "$SCREEN" 'DB_QUERY +[^[]*took 0\.90ms' "list: the summary's start is scrolled out, its end in"
scenario list-shift-back "$V" <<'S'
Tab
l
l
h
h
h
S
like "$SCREEN" 'TYPE +SUMMARY *$' "list: h scrolls back, never past the start"
like "$SCREEN" 'DB_QUERY +\[DB\] query SELECT 1' "list: the summaries from their start again"

scenario list-move "$V" <<'S'
Tab
j
j
j
S
like "$SCREEN" '#4/10' "list: j moves the selection"

scenario detail "$V" <<'S'
Tab
j
j
Enter
S
like "$SCREEN" 'event #3 of 10: READ \(FS\) on pid 100 \(server\)' "detail: header"
like "$SCREEN" 'latency_ns: 300000 ns = 300.00us' "detail: fields with units"
like "$SCREEN" 'comm: "server"' "detail: strings quoted"

scenario detail-next "$V" <<'S'
Tab
Enter
j
S
like "$SCREEN" 'event #2 of 10' "detail: j moves to the next event"

scenario detail-back "$V" <<'S'
Tab
Enter
Escape
S
like "$SCREEN" 'TIME +LANE' "Esc returns to the list"

scenario help "$V" <<'S'
?
S
like "$SCREEN" 'ttv keys in the lanes view' "help: title names the view"
like "$SCREEN" '^  , +prev-on-lane +previous event on the selected lane' "help: the view's own keys first"
like "$SCREEN" '^in the lanes view$' "help: under the view's name"

SIZE=100x78 scenario help-all "$V" <<'S'
?
S
unlike "$SCREEN" '\(no key\)' "help: no row for an action without a key"
like "$SCREEN" '^everywhere$' "help: then the keys that work everywhere"
like "$SCREEN" 'j, C-n, e +move-down' "help: keys actually bound"
like "$SCREEN" '^  - +zoom-out' "help: the - key is zoom-out's only"

# damage is told on the first screen, and stays marked on the status line
head -c 900 "$TMP/$V" >"$TMP/cut.pt"
SIZE=160x6 scenario damaged cut.pt </dev/null
like "$SCREEN" 'damaged: cut\.pt: offset 696: truncated: .* \(1 report; = lists them\)' "damage: told on the first screen, file and offset"
like "$SCREEN" '#1/2 .*\| damaged$' "damage: the events before it are there, the status line says damaged"
SIZE=60x12 scenario info-wrap cut.pt <<'S'
=
G
S
like "$SCREEN" 'damage: +cut\.pt: offset 696: truncated: frame claims 344$' "pages: a long line wraps at a word"
like "$SCREEN" '^bytes, only 200 present \(decoding stopped here\)$' "pages: its rest on the next row, nothing cut off, no word split"
like "$SCREEN" 'lane: +pid 100 \(server\): 2 events' "pages: G shows the last line, wrapped lines counted"
SIZE=120x10 scenario damaged-after-key cut.pt <<'S'
Tab
S
unlike "$SCREEN" 'report' "damage: the message goes with the next key"
like "$SCREEN" '#1/2 .*\| damaged$' "damage: the mark stays"

# damage where it happened: a marker row in the list after the last event
# before it (here a file cut short, merged with a whole copy of itself)
"$TBIN/ptwrite" --generate 30 --seed 1 "$TMP/mk-whole.pt"
head -c 5000 "$TMP/mk-whole.pt" >"$TMP/mk-cut.pt"
SIZE=100x50 scenario damage-marker mk-whole.pt mk-cut.pt <<'S'
Tab
S
like "$SCREEN" '^── damaged: [^ ]*mk-cut\.pt: offset 4688: truncated: frame claims 336 bytes, only 308 present$' \
	"the list: a marker row for the damage, with file, offset and what was lost"
is "$(printf '%s\n' "$SCREEN" | grep -B1 -A1 '^── damaged' | awk '{printf "%s %s ", $1, $4}')" \
	"+0.039908097 HTTP_REQ ── offset +0.045146179 (postgres) " \
	"where it happened: after the cut file's last event (and its copy)"
# nothing that can be opened: an error and no screen, as less does
echo "dump $TMP/missing.txt" >"$TMP/missing.script"
TTV_SCRIPT=$TMP/missing.script TTV_SIZE=80x24 "$TTV" "$TMP/missing.pt" "$TMP" >/dev/null 2>"$TMP/missing.err"
is "$?" 1 "nothing to open: exit 1"
like "$(cat "$TMP/missing.err")" 'missing\.pt: cannot open: No such file or directory' "nothing to open: the file is named"
ok "$(test ! -e "$TMP/missing.txt"; echo $?)" "nothing to open: no screen"
# a file no decoder takes (text; a format ttv names but does not read): the same
printf 'hello, world\n' >"$TMP/text.txt"
TTV_SCRIPT=$TMP/missing.script "$TTV" "$TMP/text.txt" >/dev/null 2>"$TMP/text.err"
is "$?" 1 "unknown format: exit 1"
like "$(cat "$TMP/text.err")" 'text\.txt: unknown format \(no decoder recognises its content\)' "unknown format: said as --info says it"
ok "$(test ! -e "$TMP/missing.txt"; echo $?)" "unknown format: no screen"
TTV_SCRIPT=$TMP/missing.script "$TTV" "$SAMPLES/dial9/upstream_legacy_TOKIOTRC_2026-03-06.bin" >/dev/null 2>"$TMP/tokio.err"
is "$?" 1 "legacy TOKIOTRC: exit 1"
like "$(cat "$TMP/tokio.err")" 'legacy TOKIOTRC v14 format .*not supported' "legacy TOKIOTRC: says why"
ok "$(test ! -e "$TMP/missing.txt"; echo $?)" "legacy TOKIOTRC: no screen"
# the first screen: on the first timeline event (not the metadata before
# it), saying how many events and lanes there are and where the keys are
scenario first-timed "$SAMPLES/htdump/small.htdump" </dev/null
like "$SCREEN" '167 events in 6 lanes; \? shows the keys, q quits' "the first screen says the counts and ? for the keys"
like "$SCREEN" '#78/167 \+0\.000000000$' "and opens on the first timeline event, after the metadata (class and string definitions)"
scenario first-timed-key "$SAMPLES/htdump/small.htdump" <<'S'
Tab
S
unlike "$SCREEN" 'shows the keys' "the first key takes the hint away"
# an ATF detail record: its registers laid out in columns, so rdi..rsp fit
# one 80x24 screen with the rest of the record
cp -r "$SAMPLES/atf/crash_sigkill" "$TMP/" # (relative: the screen shows the path)
scenario atf-registers crash_sigkill <<'S'
Tab
:
type goto 1000001631872
Enter
Enter
Enter
S
like "$SCREEN" '^  rdi: 0x600000c0f600  rsi: 0xe +rdx: 0xf60e$' "ATF registers: in columns"
like "$SCREEN" '^  rbp: 0x7ff7bfdfe940  rsp: 0x7ff7bfdfe900$' "ATF registers: rsp on the first screen at 80x24"
# t cycles the times: relative, the trace's clock, the wall clock (where the
# trace anchors it), and the axis and the detail follow
export TZ=UTC
cp "$SAMPLES/syscall/ls_l.dat" "$TMP/"
scenario time-trace ls_l.dat <<'S'
t
S
like "$SCREEN" '#1/62 @632\.714025641$' "t: the trace's clock"
scenario time-wall ls_l.dat <<'S'
t
t
S
like "$SCREEN" 'wall-clock times .*#1/62 13:25:22\.000077166$' "t t: the wall clock"
like "$SCREEN" '╷13:25:22\.0001 ' "the axis in wall-clock time"
scenario time-wall-detail ls_l.dat <<'S'
Enter
S
like "$SCREEN" '^time: \+0\.000000000 \(632714025641 ns; wall clock 2026-11-21 13:25:22\.000077166\)$' "the detail shows every form"
scenario time-noanchor "$V" <<'S'
t
t
S
like "$SCREEN" 'relative to the first event \(no wall-clock anchor' "no anchor: t goes from the trace clock back to relative"
# every message is kept: M (and :messages) lists them, oldest first, with times
printf 'Tab\n:\ntype zz\nEnter\n/\ntype nothing-matches-this\nEnter\nM\ndump %s\nq\n:\ntype messages\nEnter\ndump %s\n' \
	"$TMP/messages.txt" "$TMP/messages2.txt" >"$TMP/messages.script"
(cd "$TMP" && TTV_SCRIPT=$TMP/messages.script "$TTV" "$V" >/dev/null 2>&1)
like "$(cat "$TMP/messages.txt")" '^messages, oldest first' "M opens the messages view"
like "$(sed -n 3p "$TMP/messages.txt")" '^[0-9]{2}:[0-9]{2}:[0-9]{2}  10 events in 3 lanes; \? shows the keys' \
	"the first screen's message first, with its time"
like "$(sed -n 4p "$TMP/messages.txt")" '^[0-9]{2}:[0-9]{2}:[0-9]{2}  error: unknown command: zz \(goto TIME, range A B, messages, q\)$' \
	"an error message, whole"
like "$(sed -n 5p "$TMP/messages.txt")" '  error: pattern not found: nothing-matches-this$' "the next one below it"
is "$(sed -n 3,5p "$TMP/messages2.txt")" "$(sed -n 3,5p "$TMP/messages.txt")" ":messages shows the same"
# the selection is a span: Down goes into it, Up out of it, Left/Right to
# its neighbours at the same depth; the status line names it with its
# duration, self time and depth (HTDUMP: worker_run > iteration > compute > leaf)
cp "$SAMPLES/htdump/small.htdump" "$TMP/nest.htdump"
printf 'k\nk\nk\nk\nk\nk\nj\nUp\nUp\ndump %s/n1.txt\nDown\nDown\ndump %s/n2.txt\nRight\ndump %s/n3.txt\nLeft\nUp\nUp\ndump %s/n4.txt\n' \
	"$TMP" "$TMP" "$TMP" "$TMP" >"$TMP/nest.script"
(cd "$TMP" && TTV_SCRIPT=$TMP/nest.script TTV_SIZE=120x30 "$TTV" nest.htdump >/dev/null 2>&1)
like "$(tail -1 "$TMP/n1.txt")" '^iteration  966\.24us \(self 2\.16us, depth 1\)' "spans: the status line names the selected span"
like "$(tail -1 "$TMP/n2.txt")" '^leaf  291\.58us \(self 291\.58us, depth 3\)' "spans: Down twice, into compute, then its first leaf"
like "$(tail -1 "$TMP/n3.txt")" '^leaf  277\.41us \(self 277\.41us, depth 3\) ' "spans: Right, the next leaf in the same compute"
like "$(tail -1 "$TMP/n4.txt")" '^iteration  966\.24us \(self 2\.16us, depth 1\)' "spans: Left, then Up twice: back to the iteration"

# a time range: { and } at the selected spans' start and end (or a drag
# across the lanes); | makes it a filter, Esc clears it
printf 'k\nk\nk\nk\nk\nk\nj\nUp\nUp\n{\nDown\n}\ndump %s/r1.txt\n|\ndump %s/r2.txt\nEscape\ndump %s/r3.txt\ndrag 5 40 80\ndump %s/r4.txt\n' \
	"$TMP" "$TMP" "$TMP" "$TMP" >"$TMP/range.script"
(cd "$TMP" && TTV_SCRIPT=$TMP/range.script TTV_SIZE=120x30 "$TTV" nest.htdump >/dev/null 2>&1)
like "$(tail -1 "$TMP/r1.txt")" 'time range 582\.48us .* \| range 582\.48us$' \
	"range: { at the iteration's start, } at the end of the compute inside it (90 ns later + 582.39us)"
like "$(head -1 "$TMP/r1.txt")" '\[═+\]' "range: marked on the axis"
like "$(tail -1 "$TMP/r2.txt")" 'filter range:\+[0-9]+ns\.\.\+[0-9]+ns .*\| 1 filter$' "range: | keeps only it (a range: filter)"
like "$(tail -1 "$TMP/r3.txt")" 'time range cleared' "range: Esc clears it"
like "$(tail -1 "$TMP/r4.txt")" '\| range [0-9.]+[mu]s' "range: a drag across the lanes marks one"

# L: the lanes view's legend, every mark it draws
printf 'L\ndump %s/legend.txt\n' "$TMP" >"$TMP/legend.script"
(cd "$TMP" && TTV_SCRIPT=$TMP/legend.script TTV_SIZE=100x24 "$TTV" "$V" >/dev/null 2>&1)
like "$(head -1 "$TMP/legend.txt")" "^the lanes view's legend" "L opens the legend"
like "$(cat "$TMP/legend.txt")" '┄┄ \(open\) +a begin no end closed' "the legend: the open style"
like "$(cat "$TMP/legend.txt")" '⊣ +an end no begin opened' "the legend: the unopened mark"
like "$(cat "$TMP/legend.txt")" '\[═══\] +the time range' "the legend: the time range"

# help says the keys of the view it was opened from, for every view
for v in lanes: list:Tab detail:Enter info:= filters:'\' messages:M legend:L; do
	word=${v%%:*} key=${v#*:}
	{ [ -z "$key" ] || printf '%s\n' "$key"; echo '?'; echo "dump $TMP/help-$word.txt"; } >"$TMP/help-$word.script"
	(cd "$TMP" && TTV_SCRIPT=$TMP/help-$word.script "$TTV" "$V" >/dev/null 2>&1)
	like "$(head -1 "$TMP/help-$word.txt")" "^ttv keys in the $word view" "? from the $word view lists its keys"
done
# with several paths, what can be read opens, and what could not is said
scenario some-unreadable "$V" text.txt <<'S'
S
like "$SCREEN" 'text\.txt: unknown format' "several paths: the unreadable one is said on the first screen"
like "$SCREEN" '#1/10 ' "and the readable one is shown"

scenario info "$V" <<'S'
=
S
like "$SCREEN" 'format:  podtrace' "info view shows --info"

scenario zoom "$V" <<'S'
+
+
l
S
scenario zoom-span "$V" <<'S'
z
S
like "$SCREEN" '#1/10' "zoom-span keeps the selection"
scenario zoom-all "$V" <<'S'
+
+
+
Z
S
scenario lanes-jk "$V" <<'S'
j
S
like "$SCREEN" '#2/10 \+0\.000050000' "lanes: j moves to the next lane, nearest event in time"
scenario lanes-hide "$V" <<'S'
x
S
like "$SCREEN" '^2 lanes \(1 hidden\)' "x hides a lane"
scenario lanes-show "$V" <<'S'
x
X
S
like "$SCREEN" '^3 lanes' "X shows lanes again"
scenario lanes-move "$V" <<'S'
J
S
scenario pick "$V" <<'S'
j
p
Tab
S
is "$(printf '%s\n' "$SCREEN" | grep -c 'pid 200')" 4 "picked lane: the list shows only its events"
scenario next-on-lane "$V" <<'S'
.
.
S
like "$SCREEN" '#4/10' "next-on-lane: twice along pid 100"
# from a metadata event (the first selected of a dial9 fleet): its lane has
# nothing on the axis, said at once rather than after searching the trace
"$TBIN/d9write" --generate 3000 --seed 9 --instances 3 "$TMP/fleet" >/dev/null
scenario next-on-lane-meta fleet <<'S'
.
S
like "$SCREEN" 'no event after this one on its lane' "next-on-lane from a metadata event: nothing after it on its lane"

scenario search "$V" <<'S'
Tab
/
type hosts
Enter
S
like "$SCREEN" '#6/10' "search selects the first match"
scenario search-next "$V" <<'S'
Tab
/
type pid 200
Enter
n
n
n
n
S
like "$SCREEN" 'search wrapped to the start' "search wraps with a message"
like "$SCREEN" '#2/10' "and lands on the first match"
# a search says which match is shown and how many there are
scenario match-count "$V" <<'S'
Tab
/
type server
Enter
dump match-count1.txt
n
S
like "$(cat "$TMP/match-count1.txt")" '#3/10 .*\| match 2 of 5$' "a search says: match 2 of 5"
like "$SCREEN" '#4/10 .*\| match 3 of 5$' "n: match 3 of 5"
scenario match-count-filtered "$V" <<'S'
Tab
&
type !type:DB_QUERY
Enter
/
type server
Enter
S
like "$SCREEN" '\| match 1 of 4 \| 1 filter$' "the count is of the events shown (a filter hides one)"
# one syntax for -e, & and /: a search finds the next event the filter keeps
scenario search-scope "$V" <<'S'
Tab
/
type type:CONNECT
Enter
S
like "$SCREEN" '#2/10 ' "/type:CONNECT finds the CONNECT event"
unlike "$SCREEN" 'not found' "and says nothing is missing"
scenario filter-scope "$V" <<'S'
Tab
&
type type:CONNECT
Enter
S
like "$SCREEN" '#1/1 ' "&type:CONNECT keeps the same one event"
scenario search-exclude "$V" <<'S'
Tab
/
type !lane:client
Enter
S
like "$SCREEN" '#3/10 ' "/!RE finds the next event that does not match"
# the filters view says how many events each filter drops (the first of
# them, in order, to drop an event is the one counted)
scenario filter-counts "$V" <<'S'
Tab
&
type !lane:client
Enter
&
type !lane:serv
Enter
&
type !type:OPEN
Enter
\
S
like "$SCREEN" 'drop !lane:client  \(drops 4\)$' "the filters view: 4 client events dropped by the first filter"
like "$SCREEN" 'drop !lane:serv  \(drops 5\)$' "5 server events by the second"
like "$SCREEN" 'drop !type:OPEN  \(drops 0\)$' "none left for the third"
like "$SCREEN" '^1 of 10 events pass' "and 1 of 10 passes"
# what the user typed shows as typed: a backslash is not doubled
scenario typed-backslash "$V" <<'S'
Tab
&
type took \d{3}\.
S
like "$SCREEN" '^&took \\d\{3\}\\\.' "the prompt shows a backslash as typed"
scenario typed-backslash-filters "$V" <<'S'
Tab
&
type took \d{3}\.
Enter
\
S
like "$SCREEN" 'keep took \\d\{3\}\\\.  ' "the filters view too"
scenario search-error "$V" <<'S'
Tab
/
type (unclosed
S
like "$SCREEN" 'missing closing parenthesis' "a bad pattern shows its error while typing"

scenario filter "$V" <<'S'
Tab
&
type lane:client
Enter
S
like "$SCREEN" '#1/4' "& adds a filter"
like "$SCREEN" '1 filter' "status line counts filters"
scenario filters-view "$V" <<'S'
&
type !type:OPEN
Enter
\
S
like "$SCREEN" '\[x\] 1  drop !type:OPEN' "filters view lists the filter"
like "$SCREEN" '9 of 10 events pass' "filters view counts"
scenario filters-toggle "$V" <<'S'
&
type !type:OPEN
Enter
\
Space
S
like "$SCREEN" '\[ \] 1' "Space disables a filter"
like "$SCREEN" '10 of 10 events pass' "and every event passes again"
scenario filters-delete "$V" <<'S'
&
type !type:OPEN
Enter
\
D
S
like "$SCREEN" 'no filters' "D deletes a filter"

scenario goto "$V" <<'S'
Tab
:
type goto +0.7ms
Enter
S
like "$SCREEN" '#7/10 \+0\.000700000' ":goto a relative time"
scenario marks "$V" <<'S'
Tab
j
j
m
a
G
'
a
S
like "$SCREEN" '#3/10' "marks: m then ' returns"
scenario jumps "$V" <<'S'
Tab
G
C-o
S
like "$SCREEN" '#1/10' "C-o goes back in the jump history"
scenario jumps-fwd "$V" <<'S'
Tab
G
[
]
S
like "$SCREEN" '#10/10' "] goes forward again"
scenario abs-time "$V" <<'S'
Tab
t
S
like "$SCREEN" '@0\.001000000' "t shows absolute times"

scenario click-list "$V" <<'S'
Tab
click 5 30
S
like "$SCREEN" '#5/10' "a click selects a row"
scenario wheel "$V" <<'S'
Tab
wheel down 5 30
S
like "$SCREEN" '#4/10' "the wheel moves three rows"
scenario click-lanes "$V" <<'S'
click 2 70
S
like "$SCREEN" '\+0\.000700000 pid 200 \(client\) CLOSE' "a click in the lanes selects that lane's event near that time"

SIZE=120x40 scenario big "$V" </dev/null
SIZE=40x12 scenario tiny "$V" <<'S'
Tab
S
scenario resize "$V" <<'S'
resize 100x20
S
is "$(printf '%s\n' "$SCREEN" | wc -l | tr -d ' ')" 20 "resize changes the screen"

# keymaps and themes
scenario vi "$V" --keymap vi <<'S'
Tab
C-f
S
like "$SCREEN" '#10/10' "vi keymap: C-f pages down"
scenario emacs "$V" --keymap emacs <<'S'
Tab
C-n
C-n
S
like "$SCREEN" '#3/10' "emacs keymap: C-n moves down"
cat >"$TMP/bad.keys" <<'K'
bind generic j move-down
bind nowhere j move-down
bind generic NotAKey move-down
bind generic k fly
K
scenario badkeys "$V" --keymap ./bad.keys </dev/null
like "$SCREEN" 'bad.keys:2: unknown context' "a bad keymap line names file and line"
mkdir -p "$TMP/cfg/ttv"
echo 'bind list j move-up' >"$TMP/cfg/ttv/keys"
XDG_CONFIG_HOME=$TMP/cfg scenario userkeys "$V" <<'S'
Tab
G
j
S
like "$SCREEN" '#9/10' "the user's keys file overrides one binding"
scenario theme-light "$V" --theme light </dev/null
is "$(cat "$TMP/theme-light.err")" "" "the light theme loads without complaint"
printf 'normal default default\nbogus red red\naxis notacolour default\n' >"$TMP/bad.theme"
scenario badtheme "$V" --theme ./bad.theme </dev/null
like "$SCREEN" 'bad.theme:2: unknown role' "a bad theme line names file and line"

# ---- search and filters (issue: regex search and stacked filters) ----
SIZE=100x24 scenario highlight "$V" <<'S'
Tab
/
type client
Enter
dumpattr highlight.attr
Enter
dumpattr highlight-detail.attr
S
attr=$(cat "$TMP/highlight.attr")
is "$(printf '%s\n' "$attr" | sed -n 3p | tr -cd m | wc -c | tr -d ' ')" 6 "list: the match on the selected row is highlighted"
is "$(printf '%s\n' "$attr" | sed -n 6p | tr -cd m | wc -c | tr -d ' ')" 6 "list: matches on other rows too"
is "$(sed -n 1p "$TMP/highlight-detail.attr" | tr -cd m | wc -c | tr -d ' ')" 6 "detail: matches highlighted"
# the lanes view marks the events the search finds
SIZE=100x24 scenario lanes-hits "$V" <<'S'
/
type client
Enter
dumpattr lanes-hits.attr
S
attr=$(cat "$TMP/lanes-hits.attr")
# (past the names, which show their own match; the first hit is the
# selected span): the OPEN span's two cells and the two instants
row=$(printf '%s\n' "$SCREEN" | grep -n '^pid 200' | cut -d: -f1)
is "$(printf '%s\n' "$attr" | sed -n "${row}p" | cut -c25- | tr -cd m | wc -c | tr -d ' ')" 4 "lanes: the client events are marked"
is "$(printf '%s\n' "$attr" | sed -n 2p | cut -c25- | tr -cd m | wc -c | tr -d ' ')" 0 "lanes: the server's are not"
scenario incremental "$V" <<'S'
Tab
/
type hosts
dumpattr incremental-typing.attr
S
like "$(sed -n 7p "$TMP/incremental-typing.attr")" '^s+m*s' "search previews as you type: the selection moves to the first match"
scenario incremental-esc "$V" <<'S'
Tab
j
/
type hosts
Escape
S
like "$SCREEN" '#2/10' "Esc in the search prompt returns to where it was"
scenario history1 "$V" <<'S'
Tab
/
type TCP_STATE
Enter
&
type !lane:server
Enter
S
scenario history2 "$V" <<'S'
Tab
/
Up
Enter
S
like "$SCREEN" '#5/10' "Up in the prompt recalls the last search (kept across runs)"
scenario history3 "$V" <<'S'
&
Up
S
like "$SCREEN" '^&!lane:server' "the filter prompt has its own history"
ok "$(grep -c '^& !lane:server$' "$XDG_STATE_HOME/ttv/history" | grep -qx 1; echo $?)" "history is kept in \$XDG_STATE_HOME/ttv/history"
scenario range "$V" <<'S'
Tab
:
type range +100us +600us
Enter
S
like "$SCREEN" '#1/4 \+0\.000100000' ":range keeps events in the time range"
scenario range-filter "$V" <<'S'
Tab
&
type !range:+100us..+600us
Enter
S
like "$SCREEN" '#1/6' "&!range: drops them"
scenario edit-filter "$V" <<'S'
&
type lane:client
Enter
\
Enter
C-u
type lane:server
Enter
S
like "$SCREEN" '\[x\] 1  keep lane:server' "Enter in the filters view edits a filter in place"
like "$SCREEN" '5 of 10 events pass' "the edited filter applies"
scenario reorder "$V" <<'S'
&
type lane:client
Enter
&
type !type:OPEN
Enter
\
J
S
like "$SCREEN" '\[x\] 2  keep lane:client' "J moves a filter down"
like "$SCREEN" '> \[x\] 2' "and the cursor goes with it"
scenario field-filter "$V" <<'S'
Tab
&
type target:^/
Enter
S
like "$SCREEN" '#1/3' "a FIELD: filter on the interned string"
scenario expensive "$V" <<'S'
Tab
&
type text:^(a|aa)+$|(x+x+)+y
Enter
S
unlike "$SCREEN" 'filtering' "a costly pattern finishes (limits), never hangs"
# Big enough that a filter takes several steps even on two threads
"$TBIN/ptwrite" --generate 140000 --seed 7 "$TMP/huge.pt"
scenario cancel huge.pt <<'S'
partial
Tab
&
type !type:DNS
Enter
Escape
S
like "$SCREEN" 'filter cancelled' "Esc while a filter runs cancels it"
unlike "$SCREEN" '1 filter' "and the filter is gone"
scenario filtering huge.pt <<'S'
partial
Tab
&
type !type:DNS
Enter
S
like "$SCREEN" 'filtering [0-9]+% \(Esc cancels\)' "while a filter runs the status line says how far, and that Esc cancels"
# batch -e and the viewer agree
"$TTV" --dump -e 'lane:client' -e '!type:OPEN' "$TMP/view.pt" | cut -f1,3 >"$TMP/batch.txt"
SIZE=120x40 scenario agree "$V" <<'S'
Tab
&
type lane:client
Enter
&
type !type:OPEN
Enter
S
sed -n '2,$p' "$TMP/agree.txt" | grep '^+' | awk '{print $1 "\t" $5}' >"$TMP/viewer.txt"
is "$(cat "$TMP/viewer.txt")" "$(cat "$TMP/batch.txt")" "-e in batch and & in the viewer keep the same events"
unlike "$SCREEN" 'Esc cancels' "a finished filter no longer says Esc cancels it"

# A filter that splits its scan over two threads keeps the same events as batch
for re in 'example\.com' '!target:^10\.'; do
	n=$("$TTV" -e "$re" --stats "$TMP/huge.pt" | sed -n '1s/ events//p')
	last=$("$TTV" -e "$re" --dump "$TMP/huge.pt" | tail -1 | cut -f1)
	printf '&\ntype %s\nEnter\nG\ndump %s\n' "$re" "$TMP/huge.txt" >"$TMP/huge.script"
	TTV_SCRIPT=$TMP/huge.script TTV_SIZE=100x10 "$TTV" "$TMP/huge.pt" >/dev/null 2>&1
	like "$(tail -1 "$TMP/huge.txt")" "#$n/$n \\$last " "filter $re over 140000 events: as many as in batch, the same last one"
done

# Moving to a lane whose events all lie far behind the cursor (a quiet
# thread, 300,000 events of another since): its last one, found at once.
{
	echo "V4 ts=1000 pid=7 type=5 latency=500 comm=quiet target=/early/first"
	echo "V4 ts=3000 pid=7 type=5 latency=500 comm=quiet target=/early/last"
	awk 'BEGIN { for (i = 0; i < 300000; i++) printf "V4 ts=%d pid=8 type=5 latency=10 comm=busy target=/busy\n", 10000 + i * 100 }'
} | "$TBIN/ptwrite" "$TMP/quiet.pt"
printf 'G\nUp\ndump %s\n' "$TMP/quiet.txt" >"$TMP/quiet.script"
TTV_SCRIPT=$TMP/quiet.script TTV_SIZE=100x10 "$TTV" "$TMP/quiet.pt" >/dev/null 2>&1
like "$(tail -1 "$TMP/quiet.txt")" "^/early/last .*#2/300002 " "Up to a lane last heard of 300,000 events before: its last event"

done_testing
