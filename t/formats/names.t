#!/bin/sh
# JSON says what the text says: every name the text dump gives a value (an
# errno, a getaddrinfo code, a TCP state, a signal, an event kind, flags)
# is in `--dump --json` too, beside the number (NAME_name), for every
# format: its shared sample and a generated trace.
. "$(dirname "$0")/../lib.sh"

# Upper-case words of the summaries' own wording, not names of values.
WORDING='^(TCP|UDP|SSL|OOM|NULL)$'
names() { grep -oE '\b[A-Z][A-Z0-9_]{2,}\b' | grep -vE "$WORDING" | sort -u; }

missing() { # PATH: the names in the text that the JSON lacks
	"$TTV" --dump "$1" 2>/dev/null | names >"$TMP/text.names"
	"$TTV" --dump --json "$1" 2>/dev/null | names >"$TMP/json.names"
	comm -23 "$TMP/text.names" "$TMP/json.names" | xargs
}

checked=""
for fmt in $(formats); do
	s=$(sample "$fmt")
	is "$(missing "$s")" "" "$fmt: the sample's text names nothing its JSON lacks"
	writer=$(format_field "$fmt" writer)
	n=3000
	[ "$fmt" = atf ] && n=1
	"$TBIN/$writer" --generate $n "$TMP/gen.$fmt" >/dev/null 2>&1
	ok "$([ "$("$TTV" --dump "$TMP/gen.$fmt" 2>/dev/null | names | wc -l)" -gt 0 ]; echo $?)" \
		"$fmt: a generated trace names values in its text"
	is "$(missing "$TMP/gen.$fmt")" "" "$fmt: nor does a generated trace's"
	checked="$checked $fmt"
done
every_format "$checked" "every format checked"

# The names sit beside their numbers, in --dump --json and --export chrome.
"$TBIN/ptwrite" "$TMP/pt" <<'SPEC'
V4 ts=100 pid=1 type=1 error=-101 target=10.0.0.1:80
V4 ts=200 pid=1 type=8 tcp_state=1 target=10.0.0.1:80
SPEC
run --dump "$TMP/pt"
like "$OUT" 'ENETUNREACH' "text: ENETUNREACH"
like "$OUT" 'ESTABLISHED' "text: ESTABLISHED"
run --dump --json "$TMP/pt"
like "$OUT" '"error":-101,"error_name":"ENETUNREACH"' "JSON: error_name beside error"
like "$OUT" '"tcp_state":1,"tcp_state_name":"ESTABLISHED"' "JSON: tcp_state_name beside tcp_state"
run --export chrome "$TMP/pt"
like "$OUT" '"error":-101,"error_name":"ENETUNREACH"' "chrome export: error_name"
run --dump --json "$SAMPLES/syscall/ls_l.dat"
L=$(printf '%s\n' "$OUT" | grep '"offset":108,')
like "$L" '"return":-25,"return_name":"ENOTTY"' "JSON: a syscall's errno named (ls_l's ioctl)"
like "$L" '"value":21505,"value_name":"TCGETS"' "JSON: its ioctl request named"
done_testing
