#!/usr/bin/env bash
# Source lines: tests/trace/srcline_prog.c (-O0 -g) stores to `watched`
# WRITES_A times on the line marked LINE_A and WRITES_B times on the line
# marked LINE_B, both in work().  With ptrace and perf (whose x86 trap IP
# is the instruction after the store: the line must be the store's):
# --sort srcline gives exactly those two rows (Function work, Source
# srcline_prog.c:LINE) in an aligned table; --trace - --srcline gives
# WRITES_A + WRITES_B events, each " at srcline_prog.c:LINE" with the
# right line; --format ctf --srcline has the same lines in its src field
# (babeltrace2); the program stripped with its debug file beside it gives
# the same histogram.  The options that do not apply are refused (exit
# 2).  $3 is "dwarf" for a build with libdw, "nodwarf" without: then both
# options must say what this build lacks (exit 1).
set -euo pipefail
hwbp=$1 src=$2 dwarf=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"; exit 1; }
num() { sed -n "s/^#define $1 \([0-9][0-9]*\)\$/\1/p" "$src"; }
wa=$(num WRITES_A) wb=$(num WRITES_B)
la=$(grep -n 'LINE_A \*/' "$src" | cut -d: -f1)
lb=$(grep -n 'LINE_B \*/' "$src" | cut -d: -f1)
[ -n "$wa" ] && [ -n "$wb" ] && [ -n "$la" ] && [ -n "$lb" ] || { echo "FAIL: marks of $src"; exit 1; }
file=$(basename "$src")
cc -O0 -g -o "$tmp/prog" "$src"

# The watches are RW, whose hits a CPU reports as W where it tells a store
# from a load.  QEMU's x86 TCG does not (one DR6 bit per access: no twin
# pairs; a store of an unchanged value stays '?'), and every access of
# this program is a store: in the x86_64 guest (HWBP_GUEST) the watches
# are -w-, whose hits are W by their type, so that the counts below stay
# exact there.  The kinds themselves are linux_cli_check.sh's to test.
rw=rw-
[ -z "${HWBP_GUEST:-}" ] || rw=-w-
# $1: backend, $2: program, the rest: more options.  Exit status in $st.
run() {
	local backend=$1 prog=$2
	shift 2
	st=0
	"$hwbp" trace --backend "$backend" "$@" -e "watched:$rw" -- "$prog" >"$tmp/out" 2>"$tmp/err" || st=$?
}
# The histogram by line: the two rows, their summary, the columns aligned
# (every line of the table as long as its header: the Counter right-
# aligned under its title).
expect_hist() {
	local rows

	[ "$st" = 0 ] || fail "exit $st"
	rows=$(awk '$1 == "W" { print $2, $3, $4, $5 }' "$tmp/out" | sort)
	[ "$rows" = "$(printf 'watched work %s:%s %s\nwatched work %s:%s %s' "$file" "$la" "$wa" \
		"$file" "$lb" "$wb" | sort)" ] || fail "the rows by line"
	[ "$(wc -l <"$tmp/out")" = 4 ] || fail "a header, two rows, the summary"
	[ "$(head -1 "$tmp/out" | awk '{ print $1, $2, $3, $4, $5, NF }')" = \
		"Access_Type Symbol Function Source Counter 5" ] || fail "the header"
	grep -qx 'watched: 2 lines, overrun 0' "$tmp/out" || fail "the summary"
	[ "$(head -3 "$tmp/out" | awk '{ print length($0) }' | sort -u | wc -l)" = 1 ] ||
		fail "the rows are not aligned"
}

for backend in ptrace perf; do
	if [ "$dwarf" != dwarf ]; then
		for c in "--sort srcline|--sort srcline" "--srcline --trace -|--srcline"; do
			IFS='|' read -r opts what <<<"$c"
			# (the words of $opts split on purpose)
			# shellcheck disable=SC2086
			run "$backend" "$tmp/prog" $opts
			[ "$st" = 1 ] || fail "$opts without libdw: exit $st"
			[ "$(cat "$tmp/err")" = "hwbp: trace: $what needs libdw (elfutils' DWARF library), which this build lacks: EOPNOTSUPP" ] ||
				fail "$opts without libdw: the message"
		done
		echo "$backend: no libdw, said"
		continue
	fi
	run "$backend" "$tmp/prog" --sort srcline
	expect_hist
	# By function (the default, also when named) the two lines are one row.
	run "$backend" "$tmp/prog" --sort function
	[ "$st" = 0 ] || fail "--sort function: exit $st"
	[ "$(awk '$1 == "W" && $2 == "watched" && $3 == "work" { print $4 }' "$tmp/out")" = $((wa + wb)) ] ||
		fail "--sort function"

	run "$backend" "$tmp/prog" --trace - --srcline
	[ "$st" = 0 ] || fail "--srcline: exit $st"
	[ "$(wc -l <"$tmp/out")" = $((wa + wb)) ] || fail "--srcline: $((wa + wb)) events"
	# (the line follows the function; a thread and values may follow it)
	[ "$(grep -Ec " watched\+0x0 W work at $file:$la( |\$)" "$tmp/out")" = "$wa" ] || fail "--srcline: line $la"
	[ "$(grep -Ec " watched\+0x0 W work at $file:$lb( |\$)" "$tmp/out")" = "$wb" ] || fail "--srcline: line $lb"
	# the lines in the order the program runs them
	[ "$(awk '{ print $7 }' "$tmp/out" | uniq -c | awk '{ print $1, $2 }' | tr '\n' ' ')" = \
		"$wa $file:$la $wb $file:$lb " ] || fail "--srcline: the order"

	rm -rf "$tmp/ctf"
	run "$backend" "$tmp/prog" --trace "$tmp/ctf" --format ctf --srcline
	[ "$st" = 0 ] || fail "CTF --srcline: exit $st"
	babeltrace2 "$tmp/ctf" >"$tmp/bt" 2>"$tmp/err" || fail "babeltrace2"
	[ "$(grep -c "func = \"work\", size = [0-9]*, .*, src = \"$file:$la\" }" "$tmp/bt")" = "$wa" ] ||
		{ cp "$tmp/bt" "$tmp/out"; fail "CTF --srcline: line $la"; }
	[ "$(grep -c "func = \"work\", size = [0-9]*, .*, src = \"$file:$lb\" }" "$tmp/bt")" = "$wb" ] ||
		{ cp "$tmp/bt" "$tmp/out"; fail "CTF --srcline: line $lb"; }
	[ "$(grep -c 'hwbp_hit:' "$tmp/bt")" = $((wa + wb)) ] || fail "CTF: $((wa + wb)) events"
	# without --srcline the events have no src field
	rm -rf "$tmp/ctf"
	run "$backend" "$tmp/prog" --trace "$tmp/ctf" --format ctf
	babeltrace2 "$tmp/ctf" >"$tmp/bt" 2>"$tmp/err" || fail "babeltrace2"
	if grep -q 'src = ' "$tmp/bt"; then fail "CTF without --srcline has a src field"; fi
	echo "$backend: $wa + $wb writes on lines $la and $lb (histogram, text, CTF)"
done

if [ "$dwarf" = dwarf ]; then
	# bpf counts by function in the kernel: --sort srcline counts perf's
	# samples instead, and says so (a build with the bpf backend).
	if "$hwbp" trace --backend list | grep -q '^bpf .*(not in this build)$'; then
		echo "bpf: not in this build"
	else
		run bpf "$tmp/prog" --sort srcline
		expect_hist
		grep -qx 'hwbp: trace: --sort srcline: perf samples are counted (the in-kernel histogram counts by function)' \
			"$tmp/err" || fail "bpf: the note"
		echo "bpf: the same lines, from perf's samples"
	fi
	# Stripped, the DWARF in its debug file beside it.
	cp "$tmp/prog" "$tmp/stripped"
	objcopy --only-keep-debug "$tmp/stripped" "$tmp/stripped.debug"
	strip --strip-all "$tmp/stripped"
	objcopy --add-gnu-debuglink="$tmp/stripped.debug" "$tmp/stripped"
	run ptrace "$tmp/stripped" --sort srcline
	expect_hist
	echo "stripped: the same lines from its debug file"
fi

# What does not apply (exit 2, one line each).
cases=("--srcline|hwbp: trace: --srcline applies only with --trace FILE (the histogram by line: --sort srcline)"
       "--sort srcline --trace -|hwbp: trace: --sort applies only to the histogram, not with --trace (lines of events: --srcline)"
       "--sort stacks|hwbp: trace: bad --sort 'stacks' (function, srcline, stack, site): EINVAL"
       "--sort srcline --stack|hwbp: trace: --sort srcline keys the histogram by line, --stack by call stack: choose one: EINVAL"
       "--sort srcline --folded $tmp/f|hwbp: trace: --sort srcline keys the histogram by line, --stack (--folded) by call stack: choose one: EINVAL"
       "--sort srcline --sort function|hwbp: trace: --sort given twice")
for c in "${cases[@]}"; do
	IFS='|' read -r opts msg <<<"$c"
	# shellcheck disable=SC2086
	run ptrace "$tmp/prog" $opts
	[ "$st" = 2 ] || fail "$opts: exit $st, want 2"
	[ "$(cat "$tmp/err")" = "$msg" ] || fail "$opts: the message"
done
echo "refused: ${#cases[@]} cases"
