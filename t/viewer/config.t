#!/bin/sh
# The config file $XDG_CONFIG_HOME/ttv/config: defaults for keymap, theme,
# time display and follow; the command line overrides it; a bad line is
# reported as file:line and the rest still loads.
. "$(dirname "$0")/../lib.sh"

"$TBIN/ptwrite" "$TMP/a.pt" <<'SPEC'
V4 ts=1000 pid=7 type=0 latency=1500 comm=alpha target=Api.Example.com
V4 ts=5000 pid=8 type=21 latency=2000 comm=beta target=/etc/passwd bytes=3
SPEC
CFG=$XDG_CONFIG_HOME/ttv/config
mkdir -p "$XDG_CONFIG_HOME/ttv"

view() { # KEYS ARGS...: the screen after KEYS (one per line), as text
	keys=$1; shift
	{ [ -n "$keys" ] && printf '%s\n' "$keys"; printf 'dump %s\n' "$TMP/screen.txt"; } >"$TMP/s.script"
	TTV_SCRIPT=$TMP/s.script TTV_SIZE=${SIZE:-100x30} "$TTV" "$@" >/dev/null 2>"$TMP/view.err"
	SCREEN=$(cat "$TMP/screen.txt")
	STATUS=$(tail -n 1 "$TMP/screen.txt")
}

# ---- no file: the built-in defaults, no message ----
view "?" "$TMP/a.pt"
like "$SCREEN" "j, C-n, e +move-down" "no config: the less keymap"
unlike "$STATUS" "FOLLOW" "no config: not following"
unlike "$STATUS" "config" "no config: nothing said"
view "" "$TMP/a.pt"
like "$SCREEN" "╷\+2us" "no config: relative times"

# ---- every key ----
cat >"$CFG" <<'EOF2'
# my defaults
keymap = emacs
  theme=light
time   = absolute
follow = yes
EOF2
view "?" "$TMP/a.pt"
like "$SCREEN" "C-n +move-down" "config keymap = emacs"
unlike "$STATUS" "not found|config" "config: theme light found, nothing wrong"
view "" "$TMP/a.pt"
like "$SCREEN" "╷@2us" "config time = absolute"
like "$STATUS" "FOLLOW" "config follow = yes"

# ---- the command line wins ----
view "?" --keymap less "$TMP/a.pt"
like "$SCREEN" "j, C-n, e +move-down" "--keymap overrides the config"
view "" --time relative --no-follow "$TMP/a.pt"
like "$SCREEN" "╷\+2us" "--time relative overrides the config"
unlike "$STATUS" "FOLLOW" "--no-follow overrides the config"
view "" --theme nosuch "$TMP/a.pt"
like "$STATUS" "theme 'nosuch' not found" "--theme overrides the config (and a bad one is said)"

# ---- bad lines: file:line, the rest still loads ----
cat >"$CFG" <<'EOF2'
keymap = emacs
this is not a setting
colour = red
time = sometimes
follow = maybe
theme =
time = absolute
EOF2
run --dump "$TMP/a.pt"
is "$RC" 0 "bad config lines: batch exit status unchanged"
is "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2 "bad config lines: the trace still dumped"
like "$ERR" "config:2: want key = value, got 'this is not a setting'" "line 2: not key = value"
like "$ERR" "config:3: unknown key 'colour'" "line 3: unknown key"
like "$ERR" "config:4: time: want relative, trace or wall, got 'sometimes'" "line 4: bad time"
like "$ERR" "config:5: follow: want yes or no, got 'maybe'" "line 5: bad follow"
like "$ERR" "config:6: theme: no value" "line 6: no value"
is "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 5 "five bad lines, five messages"
SIZE=300x30 view "" "$TMP/a.pt"
like "$STATUS" "config:2: want key = value" "viewer: the bad lines are in the status line"
like "$SCREEN" "╷@[0-9]" "viewer: the good lines still load (time, after bad ones)"
view "?" "$TMP/a.pt"
like "$SCREEN" "C-n +move-down" "viewer: the good lines still load (keymap)"

# the sanitizer: a control character in the file is not sent to the terminal
printf 'keymap = \033[31mred\n' >"$CFG"
run --dump "$TMP/a.pt"
unlike "$ERR" "$(printf '\033')" "config: escapes in values are sanitized"

# ---- XDG_CONFIG_HOME unset: ~/.config/ttv/config ----
mkdir -p "$TMP/home/.config/ttv"
printf 'bogus\n' >"$TMP/home/.config/ttv/config"
ERR=$(env -u XDG_CONFIG_HOME HOME="$TMP/home" "$TTV" --dump "$TMP/a.pt" 2>&1 >/dev/null)
like "$ERR" "home/.config/ttv/config:1:" "without XDG_CONFIG_HOME: ~/.config/ttv/config"
printf 'time = absolute\n' >"$CFG"
run --time soon "$TMP/a.pt"
is "$RC" 2 "--time: a bad value is a usage error"

done_testing
