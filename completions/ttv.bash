# bash completion for ttv(1).  Installed as
# $PREFIX/share/bash-completion/completions/ttv; or source it from ~/.bashrc.

# Names of the keymaps or themes (KIND: keymaps .keys, themes .theme) that
# ttv finds: $TTV_DATADIR, then next to the binary (installed or built).
_ttv_data_names()
{
	local kind=$1 ext=$2 bin dir f
	local -a dirs=()
	[[ -n ${TTV_DATADIR-} ]] && dirs+=("$TTV_DATADIR/$kind")
	bin=$(command -v ttv 2>/dev/null) && bin=$(readlink -f -- "$bin" 2>/dev/null) &&
		dirs+=("${bin%/*}/../$kind" "${bin%/*}/../share/ttv/$kind")
	for dir in "${dirs[@]}"; do
		for f in "$dir"/*"$ext"; do
			[[ -e $f ]] || continue
			f=${f##*/}
			printf '%s\n' "${f%"$ext"}"
		done
	done | sort -u
}

# The formats the installed ttv reads, as its --help lists them (none when
# there is no ttv): a new format is completed without a change here.
_ttv_formats()
{
	command ttv --help 2>/dev/null | sed -n 's/.*--format NAME *skip probing: *//p'
}

_ttv()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local opts="--dump --json --csv --info --stats --report --sort --diff --export --sql --follow -f --no-follow
		--filter -e --format --keymap --theme --time --align --memory --no-cache --cache-size --remote-timeout --help -h --version -V"

	case $prev in
	--keymap|--theme)
		local kind=keymaps ext=.keys
		[[ $prev == --theme ]] && kind=themes ext=.theme
		COMPREPLY=($(compgen -W "$(_ttv_data_names $kind $ext)" -- "$cur"))
		# a path works too
		local IFS=$'\n'
		COMPREPLY+=($(compgen -f -- "$cur"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "$(_ttv_formats)" -- "$cur"))
		return
		;;
	--time)
		COMPREPLY=($(compgen -W "relative trace wall" -- "$cur"))
		return
		;;
	--export)
		COMPREPLY=($(compgen -W "chrome folded speedscope" -- "$cur"))
		return
		;;
	--sql)
		return # (a query: nothing to offer)
		;;
	--sort)
		COMPREPLY=($(compgen -W "total self calls min max mean name" -- "$cur"))
		return
		;;
	-e|--filter)
		COMPREPLY=($(compgen -W "lane: type: text: range: !" -- "$cur"))
		compopt -o nospace 2>/dev/null
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# traces: files and directories (ATF sessions, dial9 directories)
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
}

complete -F _ttv ttv
