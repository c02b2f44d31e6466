# SPDX-License-Identifier: MIT
# Bash completion for hwbp(1): commands, each command's options, and the
# values of --cpu (from `hwbp caps --list`), --scope, --profile, --backend,
# --format and --sort, directories for --debug-dir, and files for race's
# --output.  Plain bash (no bash-completion helpers needed), installed
# as share/bash-completion/completions/hwbp.

_hwbp_presets()
{
	local hwbp=${COMP_WORDS[0]}

	[[ $hwbp == */* ]] || hwbp=$(command -v "$hwbp" 2>/dev/null) || return
	"$hwbp" caps --list 2>/dev/null | while read -r name _; do printf '%s\n' "$name"; done
}

# The options of each command, as its --help lists them.
_hwbp_options()
{
	case $1 in
	caps) echo "--list --cpu --json" ;;
	plan) echo "--cpu --scope --widen --exact --free --json" ;;
	encode) echo "--cpu --scope --widen --local --exact --json" ;;
	decode) echo "--cpu --watch --access --json" ;;
	sim) echo "--profile --emit --compile --quirks" ;;
	trace) echo "-e --event --filter-file --cpu --backend --demo --lackey --elf" \
		"--load-bias -p --pid --symbols --hist-entries --trace --format --buffer-kb" \
		"--overwrite --force --no-demangle --wide --stack --folded --duration --kernel --cpus" \
		"--vmlinux --kinds --call-graph --debug-dir --sort --srcline --dry-run --json --percpu-all" \
		"--release --objects --rotate --objects-log --" ;;
	race) echo "-p --pid --kernel --rate --delay --duration --seed --stack --only --exclude --json -o --output" ;;
	"bench sim") echo "--accesses" ;;
	"bench trace") echo "--hits --lookups --dwfl-lookups --symbols --lackey-mb --buffer-kb" ;;
	esac
}

_hwbp()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local commands="caps plan encode decode sim trace race bench help" cmd words

	COMPREPLY=()
	# "=" breaks words by default: "--cpu=x8" comes as --cpu, =, x8.
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = && $COMP_CWORD -ge 3 ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	if ((COMP_CWORD == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	help)
		((COMP_CWORD == 2)) && mapfile -t COMPREPLY < <(compgen -W "${commands% help}" -- "$cur")
		return
		;;
	bench)
		if ((COMP_CWORD == 2)); then
			mapfile -t COMPREPLY < <(compgen -W "sim trace --help --version" -- "$cur")
			return
		fi
		cmd="bench ${COMP_WORDS[2]}"
		;;
	esac
	case $prev in
	--cpu)
		words=$(_hwbp_presets)
		# caps, plan, encode and decode also take this machine's model.
		[[ $cmd == caps || $cmd == plan || $cmd == encode || $cmd == decode ]] && words+=" host"
		;;
	--scope) words="user kernel both" ;;
	--profile) words="sdm qemu" ;;
	--call-graph) words="dwarf fp" ;;
	--backend) words="ptrace perf qemu-x86" ;;
	--format) words="text ctf" ;;
	--sort) words="function srcline stack site" ;;
	--release) words="scope" ;;
	--debug-dir)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	-o | --output)
		if [[ $cmd == race ]]; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return
		fi
		;;
	--filter-file | --lackey | --elf | --symbols | --trace | --folded | --objects-log)
		# --symbols of bench trace is a number, of trace a file.
		if [[ $cmd == trace ]]; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return
		fi
		;;
	esac
	if [[ -n $words ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_hwbp_options "$cmd") --help --version" -- "$cur")
	elif [[ $cmd == sim ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

complete -F _hwbp hwbp
