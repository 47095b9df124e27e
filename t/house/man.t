#!/bin/sh
# The man page (ttv.1) and the shell completions: they render cleanly and
# stay in sync with `ttv --help`.
. "$(dirname "$0")/../lib.sh"

MAN=$ROOT/ttv.1

# ---- rendering: no warnings from groff -ww, mandoc -T lint, nor man -l ----
if command -v groff >/dev/null 2>&1; then
	warn=$(groff -ww -z -t -man "$MAN" 2>&1)
	is "$warn" "" "groff -ww -t -man: no warnings"
else
	ok 0 "# SKIP groff not installed (make deps installs it)"
fi
if command -v mandoc >/dev/null 2>&1; then
	is "$(mandoc -T lint "$MAN" 2>&1)" "" "mandoc -T lint: nothing to say"
else
	ok 0 "# SKIP mandoc not installed (make deps installs it)"
fi
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man --warnings=w -l "$MAN" >"$TMP/man.txt" 2>"$TMP/man.err"
	ok $? "man -l ttv.1 renders"
	is "$(cat "$TMP/man.err")" "" "man -l: no warnings"
	TEXT=$(cat "$TMP/man.txt")
	overlong=$(awk 'length > 80' "$TMP/man.txt")
	is "$overlong" "" "man -l at 80 columns: no line wider"
else
	ok 0 "# SKIP man not installed"
	TEXT=$(groff -t -man -Tutf8 "$MAN" 2>/dev/null | col -b)
fi

# ---- every option of --help is in the man page (as rendered) ----
run --help
HELP=$OUT
is "$(printf '%s\n' "$HELP" | awk 'length > 80')" "" "--help fits in 80 columns"
opts=$(printf '%s\n' "$HELP" | grep -oE -- '(^|[ ,\[])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,[]//' | sort -u)
n=$(printf '%s\n' "$opts" | grep -c .)
ok $([ "$n" -ge 15 ] && echo 0 || echo 1) "--help lists $n options"
missing=""
for o in $opts; do
	printf '%s\n' "$TEXT" | grep -qe "$o\b" || missing="$missing $o"
done
is "$missing" "" "every --help option is in the man page"
# and the other way: every option the man page documents is one ttv takes
man_opts=$(printf '%s\n' "$TEXT" | sed -n '/^OPTIONS/,/^FILTERS/p' | grep -oE -- '^ {7}--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ' | sort -u)
extra=""
for o in $man_opts; do
	printf '%s\n' "$opts" | grep -qx -- "$o" || extra="$extra $o"
done
is "$extra" "" "every option of the man page is in --help"
for fmt in $(printf '%s\n' "$HELP" | sed -n 's/.*skip probing: //p'); do
	like "$TEXT" "\\b$fmt\\b" "format $fmt is in the man page"
done

# ---- sections the issue asks for ----
for s in SYNOPSIS OPTIONS FILTERS "THE VIEWER" "KEYMAP FILES" "THEME FILES" CONFIGURATION \
	"MERGED TIMELINES" "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
	like "$TEXT" "^$s\$" "section $s"
done
for e in NO_COLOR XDG_CONFIG_HOME XDG_STATE_HOME TERM; do
	like "$TEXT" "^ +$e( |$)" "environment: $e"
done
# every theme role is named
act_missing=""
for role in $(awk '!/^#/ && NF {print $1}' "$ROOT/themes/dark.theme" | grep -v '^span-'); do
	printf '%s\n' "$TEXT" | grep -q -- "$role" || act_missing="$act_missing $role"
done
is "$act_missing" "" "every theme role is in THEME FILES"
# the keys table matches the less keymap: every key listed there is bound
less_keys=$(sed -n 's/^bind [a-z]* *\([^ ]*\) .*/\1/p' "$ROOT/keymaps/less.keys" | sort -u)
nk=0; unbound=""
for k in $less_keys; do
	nk=$((nk + 1))
	printf '%s\n' "$TEXT" | sed -n '/^THE VIEWER/,/^KEYMAP FILES/p' | grep -qF -- "$k" || unbound="$unbound $k"
done
is "$unbound" "" "every key of the less keymap ($nk) is in the keys table"

# ---- completions ----
bash -n "$ROOT/completions/ttv.bash"
ok $? "bash -n completions/ttv.bash"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$ROOT/completions/_ttv"
	ok $? "zsh -n completions/_ttv"
else
	ok 0 "# SKIP zsh not installed (make deps installs it)"
fi
if command -v zsh >/dev/null 2>&1; then
	# zsh: the keymap and theme names it offers (completion builtins stubbed)
	got=$(PATH="$BUILD:$PATH" zsh -f -c '
		_describe() { print -l -- "${(@P)4}"; }; _files() { :; }; _arguments() { :; }
		source "$1"; _ttv_data_names keymaps .keys; _ttv_data_names themes .theme' _ "$ROOT/completions/_ttv" | tr '\n' ' ')
	is "$got" "emacs less vi dark light mono " "zsh: keymap and theme names"
	# the formats, from the --help of the ttv on PATH
	got=$(PATH="$BUILD:$PATH" zsh -f -c '
		_describe() { print -l -- "${(@P)4}"; }; _files() { :; }; _arguments() { :; }
		source "$1"; _ttv_formats' _ "$ROOT/completions/_ttv" | sort | xargs)
	is "$got" "$(formats | sort | xargs)" "zsh: format names (every format of t/formats/table)"
fi
missing=""
for o in $opts; do
	grep -qe "$o\b" "$ROOT/completions/ttv.bash" || missing="$missing bash:$o"
	grep -qe "$o\b" "$ROOT/completions/_ttv" || missing="$missing zsh:$o"
done
is "$missing" "" "every --help option is completed by bash and zsh"

# bash, for real: the function completes options, values and names
complete_bash() { # WORDS...: what _ttv offers for the last word
	PATH="$BUILD:$PATH" bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_ttv; printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$ROOT/completions/ttv.bash" "$@"
}
like "$(complete_bash ttv --al)" "^--align$" "bash: --al completes to --align"
is "$(complete_bash ttv --time '')" "$(printf 'relative\ntrace\nwall')" "bash: --time values"
is "$(complete_bash ttv --export '')" "$(printf 'chrome\nfolded\nspeedscope')" "bash: --export values"
is "$(complete_bash ttv --sort '')" "$(printf 'calls\nmax\nmean\nmin\nname\nself\ntotal')" "bash: --sort values"
is "$(complete_bash ttv --format p)" "podtrace" "bash: --format names"
is "$(complete_bash ttv --format '' | xargs)" "$(formats | sort | xargs)" "bash: every format of t/formats/table"
got=$(cd "$TMP" && complete_bash ttv --keymap '')
is "$(printf '%s\n' "$got" | grep -xE 'emacs|less|vi' | tr '\n' ' ')" "emacs less vi " "bash: keymap names"
got=$(cd "$TMP" && complete_bash ttv --theme l)
is "$got" "light" "bash: theme names"
mkdir -p "$TMP/cwd"; : >"$TMP/cwd/run.ptrace"
got=$(cd "$TMP/cwd" && complete_bash ttv --dump ru)
is "$got" "run.ptrace" "bash: paths"

done_testing
