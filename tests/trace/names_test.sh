#!/usr/bin/env bash
# Names in the user's own terms (the ptrace and perf backends, this
# machine's debug registers):
#  - tests/trace/names_prog.cpp, built here with c++ -O0: -e takes
#    demangled C++ names ("app::hits", "app::bump(int)", an operator, a
#    template function with or without its return type), refuses a name
#    that two overloads have (naming both, in address order as nm -n
#    lists them), and expands patterns ('app::stats::*', 'app::slot<*>')
#    into one watch per data symbol in address order, with the exact
#    counts the program makes;
#  - tests/trace/names_lib.c, built here as a shared library and
#    stripped: the writes its static function makes are shown as
#    "libnames.so+0xOFF" (histogram, text trace, CTF) with the exact
#    count, OFF inside that function by nm and addr2line of the copy
#    built before stripping; never a bare "?".
# A build without libiberty must refuse the demangled names instead.
set -euo pipefail
hwbp=$1 src=$2 libsrc=$3 libprog=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"${CXX:-c++}" -O0 -o "$tmp/prog" "$src"

# run NAME ARGS...: hwbp trace --backend ptrace ARGS -- prog, the
# histogram in $tmp/NAME.out, stderr in $tmp/NAME.err, the status in $rc.
run() {
	local name=$1
	shift
	rc=0
	"$hwbp" trace --backend ptrace "$@" -- "$tmp/prog" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
}
# row FILE KIND SYMBOL FUNCTION COUNT: that row is in the histogram
# (SYMBOL and FUNCTION may hold blanks: columns are 2+ blanks apart).
row() {
	awk -v k="$2" -v s="$3" -v f="$4" -v n="$5" -F '  +' \
		'$1 == k && $2 == s && $3 == f && $4 == n { ok = 1 } END { exit !ok }' "$1" ||
		{ fail "no row '$2 | $3 | $4 | $5' in:"; cat "$1"; }
}
rows() { grep -c "^[RWX?]" "$1" || true; }
expect() { [ "$1" = "$2" ] || fail "$3: '$1', want '$2'"; }

if "$hwbp" trace --help | grep -q "This build has no libiberty"; then
	run nolib -e 'app::hits:-w-'
	expect "$rc" 2 "app::hits without libiberty: exit status"
	grep -qF "no symbol 'app::hits' in the symbol table" "$tmp/nolib.err" ||
		fail "app::hits without libiberty: $(cat "$tmp/nolib.err")"
else
	# A variable by its demangled name: the same counts as by its mangled one.
	run hits -e 'app::hits:-w-'
	expect "$rc" 0 "app::hits: exit status"
	row "$tmp/hits.out" W app::hits 'app::bump(int)' 300
	row "$tmp/hits.out" W app::hits 'app::bump(double)' 200
	row "$tmp/hits.out" W app::hits 'app::Counter::operator+=(int)' 100
	row "$tmp/hits.out" W app::hits 'void app::store<long>(long)' 50
	expect "$(rows "$tmp/hits.out")" 4 "app::hits: rows"
	# A thread_local by its demangled name (the thread's own copy).
	run tls -e 'app::tl_hits:-w-'
	expect "$rc" 0 "app::tl_hits: exit status"
	row "$tmp/tls.out" W app::tl_hits 'app::tl_count()' 40
	expect "$(rows "$tmp/tls.out")" 1 "app::tl_hits: rows"
	run mangled -e '_ZN3app4hitsE:-w-'
	diff <(sed 's/_ZN3app4hitsE/app::hits/g' "$tmp/mangled.out" | tr -s ' ') \
		<(tr -s ' ' < "$tmp/hits.out") >/dev/null || fail "app::hits and _ZN3app4hitsE differ"

	# Functions: with parameters, without (one function of that name), an
	# operator, a template function as printed (return type) and without.
	funcs=(-e 'app::bump(int):--x' -e 'app::Counter::operator+=:--x'
		-e 'void app::store<long>(long):--x' -e 'app::bump(double)+0:--x')
	run funcs "${funcs[@]}"
	# QEMU's TCG now and then misses an execute breakpoint under ptrace
	# (tests/guest/hwbreak.c measured a few in 300,000; seen here once as
	# 299 of 300): in the guest (HWBP_GUEST), and only there, a round
	# whose counts are not all right runs once more and the first round
	# is shown, as linux_cli_check.sh's x_check does.
	if [ -n "${HWBP_GUEST:-}" ] &&
	   ! awk -F '  +' '$1 == "X" { n[$2] = $4 } END { exit !(n["app::bump(int)"] == 300 &&
		n["app::Counter::operator+="] == 100 && n["void app::store<long>(long)"] == 50 &&
		n["app::bump(double)"] == 200) }' "$tmp/funcs.out"; then
		echo "retried functions (QEMU TCG guest), the first round gave:"
		cat "$tmp/funcs.out"
		run funcs "${funcs[@]}"
	fi
	expect "$rc" 0 "functions: exit status"
	row "$tmp/funcs.out" X 'app::bump(int)' 'app::bump(int)' 300
	row "$tmp/funcs.out" X 'app::Counter::operator+=' 'app::Counter::operator+=(int)' 100
	row "$tmp/funcs.out" X 'void app::store<long>(long)' 'void app::store<long>(long)' 50
	row "$tmp/funcs.out" X 'app::bump(double)' 'app::bump(double)' 200
	run store -e 'app::store<long>:--x'
	row "$tmp/store.out" X 'app::store<long>' 'void app::store<long>(long)' 50

	# Overloads: refused (a usage error), both named in address order.
	mapfile -t bumps < <(nm -n -C "$tmp/prog" | awk '/ T app::bump\(/ { sub(/^[^ ]+ T /, ""); print }')
	expect "${#bumps[@]}" 2 "app::bump overloads in nm"
	run bump -e 'app::bump:--x'
	expect "$rc" 2 "app::bump: exit status"
	expect "$(cat "$tmp/bump.err")" \
		"hwbp: trace: -e 'app::bump:--x': 'app::bump' is 2 functions: ${bumps[0]}, ${bumps[1]}; give its parameter list (EINVAL)" \
		"app::bump"

	# A pattern: every app::stats:: variable, watched in nm -n's order.
	mapfile -t stats < <(nm -n -C "$tmp/prog" | awk '/ [bBdD] app::stats::/ { print $3 }')
	expect "${#stats[@]}" 3 "app::stats variables in nm"
	run stats -e 'app::stats::*:-w-'
	expect "$rc" 0 "app::stats::*: exit status"
	expect "$(cat "$tmp/stats.err")" \
		"hwbp: trace: -e 'app::stats::*:-w-': pattern 'app::stats::*' matches 3 data symbols, watched in address order" \
		"app::stats::* note"
	expect "$(sed -n 's/: 1 functions, overrun 0$//p' "$tmp/stats.out" | tr '\n' ' ')" \
		"${stats[0]} ${stats[1]} ${stats[2]} " "app::stats::* watch order"
	row "$tmp/stats.out" W app::stats::reads 'app::account(int)' 10
	row "$tmp/stats.out" W app::stats::writes 'app::account(int)' 20
	row "$tmp/stats.out" W app::stats::errors 'app::account(int)' 30
	expect "$(rows "$tmp/stats.out")" 3 "app::stats::*: rows"
	# A raw pattern, then one of its watches removed by the demangled name.
	run raw -e '_ZN3app5stats*:-w-' -e 'app::stats::writes:---'
	row "$tmp/raw.out" W _ZN3app5stats5readsE 'app::account(int)' 10
	row "$tmp/raw.out" W _ZN3app5stats6errorsE 'app::account(int)' 30
	expect "$(rows "$tmp/raw.out")" 2 "raw pattern less writes: rows"
	# PAT:--- removes what the pattern watched.
	run removed -e 'app::stats::*:-w-' -e 'app::hits:-w-' -e 'app::stats::*:---'
	expect "$(grep -c 'functions, overrun' "$tmp/removed.out")" 1 "pattern removed: watches"
	expect "$(rows "$tmp/removed.out")" 4 "pattern removed: rows"

	# 65 template variable instances: more than one session can watch.
	run slots -e 'app::slot<*>:-w-'
	expect "$rc" 2 "app::slot<*>: exit status"
	expect "$(cat "$tmp/slots.err")" \
		"hwbp: trace: -e 'app::slot<*>:-w-': pattern 'app::slot<*>' matches 65 symbols, at most 64 watches (ENOSPC)" \
		"app::slot<*>"
	# Four of them: each written once.
	run four -e 'app::slot<[0-3]>:-w-'
	expect "$rc" 0 "app::slot<[0-3]>: exit status"
	for n in 0 1 2 3; do
		row "$tmp/four.out" W "app::slot<$n>" 'void app::fill<...>(...)' 1
	done
	# Ten: more than this CPU's debug registers; the first four in address
	# order are watched, each written once, and the note names the first
	# one left out (the fifth of nm -n).
	run ten -e 'app::slot<1?>:-w-'
	expect "$rc" 0 "app::slot<1?>: exit status"
	mapfile -t slots < <(nm -nC "$tmp/prog" | awk '$3 ~ /^app::slot<1[0-9]>$/ { print $3 }')
	expect "${#slots[@]}" 10 "app::slot<1?> in nm"
	expect "$(cat "$tmp/ten.err")" \
		"hwbp: trace: -e 'app::slot<1?>:-w-': pattern 'app::slot<1?>' matches 10 data symbols, watched in address order
hwbp: trace: patterns: 4 of 10 matches watched, 6 left out: they do not fit the debug registers left (too large, or none free; ${slots[4]} first: name one outright or give /LEN)" \
		"app::slot<1?> notes"
	for n in 0 1 2 3; do
		row "$tmp/ten.out" W "${slots[$n]}" 'void app::fill<...>(...)' 1
	done

	# A symbol of no known size: skipped by a pattern (and said), refused
	# when it is all the pattern matches, watched with /LEN.
	run sized -e 'app_*:rw-'
	expect "$(cat "$tmp/sized.err")" \
		"hwbp: trace: -e 'app_*:rw-': pattern 'app_*' matches 2 data symbols, watched in address order (those of no known size skipped: add /LEN)" \
		"app_* note"
	grep -qx 'app_sized: 0 functions, overrun 0' "$tmp/sized.out" || fail "app_sized watched"
	run nosize -e 'app_no*:rw-'
	expect "$rc" 2 "app_no*: exit status"
	expect "$(cat "$tmp/nosize.err")" \
		"hwbp: trace: -e 'app_no*:rw-': pattern 'app_no*' matches 1 symbol, none of a known size: add /LEN (EINVAL)" \
		"app_no*"
	run nomatch -e 'app::nothing*:rw-'
	expect "$rc" 2 "no match: exit status"
	expect "$(cat "$tmp/nomatch.err")" \
		"hwbp: trace: -e 'app::nothing*:rw-': no symbol matches 'app::nothing*' (ENOENT)" \
		"no match"
fi

# ---- a stripped library of our own ------------------------------------
cc -O0 -g -shared -fPIC -o "$tmp/libnames.so" "$libsrc"
cp "$tmp/libnames.so" "$tmp/libnames.so.full"
strip "$tmp/libnames.so"
cc -O0 -o "$tmp/libprog" "$libprog" -L"$tmp" -lnames -Wl,-rpath,"$tmp"
# lib_writer's [start, end) in the file, from the copy with symbols.
read -r wstart wsize < <(nm -S "$tmp/libnames.so.full" | awk '$4 == "lib_writer" { print $1, $2 }')
nm "$tmp/libnames.so" 2>&1 | grep -q lib_writer && fail "lib_writer survived strip"

for backend in ptrace perf; do
	out=$tmp/lib.$backend
	"$hwbp" trace --backend $backend -e 'target:-w-' -- "$tmp/libprog" >"$out" 2>"$out.err" ||
		{ fail "$backend: exit $?: $(cat "$out.err")"; continue; }
	# The row: "W target libnames.so+0xOFF 77", and main's one write.
	off=$(awk '$1 == "W" && $2 == "target" && $3 ~ /^libnames\.so\+0x[0-9a-f]+$/ && $4 == 77 {
		sub(/^libnames\.so\+/, "", $3); print $3 }' "$out")
	[ -n "$off" ] || { fail "$backend: no 'W target libnames.so+0xOFF 77' row in:"; cat "$out"; continue; }
	row "$out" W target main 1
	expect "$(rows "$out")" 2 "$backend: rows"
	grep -q '?' "$out" && fail "$backend: a '?' in the histogram"
	(( off >= 0x$wstart && off < 0x$wstart + 0x$wsize )) ||
		fail "$backend: $off is not in lib_writer [0x$wstart, +0x$wsize)"
	expect "$(addr2line -f -e "$tmp/libnames.so.full" "$off" | head -1)" lib_writer \
		"$backend: addr2line $off"
done

# The text trace and CTF name the same place (ptrace: the same IPs).
off=$(awk '$3 ~ /^libnames\.so\+/ { sub(/^libnames\.so\+/, "", $3); print $3 }' "$tmp/lib.ptrace")
"$hwbp" trace --backend ptrace -e 'target:-w-' --trace "$tmp/text" -- "$tmp/libprog" 2>/dev/null
expect "$(grep -cE " W libnames\.so\+$off( |$)" "$tmp/text")" 77 "text lines naming libnames.so+$off"
expect "$(wc -l < "$tmp/text")" 78 "text lines"
"$hwbp" trace --backend ptrace -e 'target:-w-' --trace "$tmp/ctf" --format ctf -- \
	"$tmp/libprog" 2>/dev/null
expect "$(babeltrace2 "$tmp/ctf" | grep -cF "func = \"libnames.so+$off\"")" 77 "CTF events"

[ $fails = 0 ] && echo "names: demangled names, patterns, stripped library places: ok"
exit $((fails > 0))
