#!/usr/bin/env bash
# More watches than debug registers: GDB's watchpoint-unaligned case
# (tests/trace/shared_prog.c), seven one-byte read watches on bytes 1 to 7
# of one doubleword, traced with each backend that sees a process's hits.
# They share one debug register; every hit goes to exactly its watch:
# byte i's row is R, in main, 2i hits, and nothing else is counted (the
# stores and the reads of byte 0 are not reads of a watch), with the note
# that says they shared.  How each backend tells the watch:
#   ptrace  x86: the instruction decoded; arm64: FAR (si_addr);
#   perf    x86: decoded from the sample's trap frame; arm64: a sample
#           carries the breakpoint's address, not FAR, so sharing cannot
#           be attributed: the 5th watch is refused (ENOSPC, exit 1);
#   bpf     counting in the kernel cannot decode: x86 samples instead
#           (the note says so); arm64 as perf;
#   lackey  the simulator knows every access (valgrind's trace of it).
# $3: "live" (ptrace, perf, bpf: needs debug registers that fire) or
# "lackey" (the simulator: needs valgrind, not the registers).
set -euo pipefail
hwbp=$1 src=$2 mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"; exit 1; }
cc -O1 -g -o "$tmp/prog" "$src"
arch=$(uname -m)
args=()
want=""
for i in 1 2 3 4 5 6 7; do
	args+=(-e "data+$i/1:r--")
	want+="R data+$i main $((2 * i))"$'\n'
done

check() {   # $1: what, $2: the note expected on stderr
	local rows
	[ "$st" = 0 ] || fail "$1: exit $st"
	rows=$(awk '$1 != "Access_Type" && NF == 4 && $2 ~ /^data/ { print $1, $2, $3, $4 }' "$tmp/out" | sort)
	[ "$rows" = "$(printf '%s' "$want" | sort)" ] || fail "$1: the rows"
	[ "$(grep -c '^data+[1-7]: 1 functions, overrun 0$' "$tmp/out")" = 7 ] || fail "$1: the summaries"
	grep -q "$2" "$tmp/err" || fail "$1: no note '$2'"
	echo "$1: 7 watches, each hit its own watch's ($(grep -o '[0-9]* watches share [0-9]* debug register' "$tmp/err" | head -1))"
}
run() { st=0; "$hwbp" trace "$@" >"$tmp/out" 2>"$tmp/err" || st=$?; }

if [ "$mode" = live ]; then
for b in ptrace perf bpf; do
	run --backend "$b" "${args[@]}" -- "$tmp/prog"
	if [ "$arch" = aarch64 ] && [ "$b" != ptrace ]; then
		[ "$st" = 1 ] && grep -q 'data+5: .*ENOSPC' "$tmp/err" ||
			fail "$b on arm64: the 5th watch refused with ENOSPC"
		echo "$b (arm64): the 5th watch refused, ENOSPC (samples do not say FAR)"
		continue
	fi
	check "$b" "7 watches share 1 debug register"
	[ "$b" != bpf ] || grep -q 'perf samples are counted instead' "$tmp/err" || fail "bpf: no fallback note"
done
echo "shared registers, live: OK"
exit 0
fi

# The same through the simulator, from valgrind's trace of the program.
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lackey" "$tmp/prog" >/dev/null 2>&1 ||
	{ echo "FAIL: valgrind --tool=lackey"; exit 1; }
run --lackey "$tmp/lackey" --elf "$tmp/prog" "${args[@]}"
[ "$st" = 0 ] || fail "lackey: exit $st"
rows=$(awk '$1 != "Access_Type" && NF == 4 && $2 ~ /^data/ { print $1, $2, $3, $4 }' "$tmp/out" | sort)
[ "$rows" = "$(printf '%s' "$want" | sort)" ] || fail "lackey: the rows"
echo "lackey: 7 watches, each hit its own watch's"
echo "shared registers, lackey: OK"
