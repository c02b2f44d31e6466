#!/usr/bin/env bash
# Demangled names in every output of hwbp trace (ptrace backend, this
# machine's debug registers): tests/trace/cxx_prog.cpp, built here with
# c++ -O0 -g, writes `counter` from three C++ functions a known number of
# times.  The histogram, the text trace and the CTF trace (babeltrace2)
# must name them in C++ terms with the exact counts, and --no-demangle
# as the symbol table has them.  A build without libiberty (its --help
# says so) must show the mangled names in both cases.
set -euo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"${CXX:-c++}" -O0 -g -o "$tmp/prog" "$src"

# function (demangled), its mangled name, its writes
funcs=(
	"app::bump(int)|_ZN3app4bumpEi|300"
	"app::Counter::operator+=(int)|_ZN3app7CounterpLEi|200"
	"void app::store<long>(long)|_ZN3app5storeIlEEvT_|100"
)
demangles=true
if "$hwbp" trace --help | grep -q "This build has no libiberty"; then
	demangles=false
	echo "this build does not demangle: mangled names expected throughout"
fi

# row FILE FUNCTION COUNT: the histogram has "W counter FUNCTION COUNT"
# (FUNCTION may hold spaces, so the line is matched whole).
row() {
	if ! awk -v f="$2" -v n="$3" '{ line = $0; sub(/^W +counter +/, "", line)
		if (line != $0 && line ~ / +[0-9]+$/) { c = line; sub(/.* /, "", c)
			sub(/ +[0-9]+$/, "", line); if (line == f && c == n) ok = 1 } }
		END { exit !ok }' "$1"; then
		echo "FAIL: no row 'W counter $2 $3' in:"; cat "$1"; fail=1
	fi
}
# lines FILE FUNCTION COUNT: COUNT lines of the text trace end in FUNCTION
# (before the thread and value fields the ptrace backend adds).
lines() {
	local n
	n=$(awk -v f=" W $2" '{ sub(/ tid [0-9]+( value 0x[0-9a-f]+( -> 0x[0-9a-f]+)?)?$/, "") }
		substr($0, length($0) - length(f) + 1) == f { n++ } END { print n + 0 }' "$1")
	[ "$n" = "$3" ] || { echo "FAIL: $n text lines name '$2', not $3"; fail=1; }
}

for mode in default no-demangle; do
	opt=()
	[ $mode = no-demangle ] && opt=(--no-demangle)
	"$hwbp" trace "${opt[@]}" --backend ptrace -e 'counter:-w-' -- "$tmp/prog" > "$tmp/h.$mode"
	"$hwbp" trace "${opt[@]}" --backend ptrace -e 'counter:-w-' --trace "$tmp/t.$mode" \
		-- "$tmp/prog" 2> /dev/null
	"$hwbp" trace "${opt[@]}" --backend ptrace -e 'counter:-w-' --trace "$tmp/ctf.$mode" \
		--format ctf -- "$tmp/prog" 2> /dev/null
	babeltrace2 "$tmp/ctf.$mode" > "$tmp/bt.$mode"
	for f in "${funcs[@]}"; do
		IFS='|' read -r dname mname count <<< "$f"
		name=$mname
		[ $mode = default ] && $demangles && name=$dname
		row "$tmp/h.$mode" "$name" "$count"
		lines "$tmp/t.$mode" "$name" "$count"
		n=$(grep -cF "func = \"$name\"" "$tmp/bt.$mode" || true)
		[ "$n" = "$count" ] || { echo "FAIL: CTF ($mode): $n events name '$name', not $count"; fail=1; }
	done
	[ "$(grep -c '^W ' "$tmp/h.$mode")" = 3 ] || { echo "FAIL: ($mode) not 3 rows:"; cat "$tmp/h.$mode"; fail=1; }
	[ "$(wc -l < "$tmp/t.$mode")" = 600 ] || { echo "FAIL: ($mode) not 600 text lines"; fail=1; }
done
# --wide: these names are short, so the same table
"$hwbp" trace --wide --backend ptrace -e 'counter:-w-' -- "$tmp/prog" > "$tmp/h.wide"
diff "$tmp/h.default" "$tmp/h.wide" || { echo "FAIL: --wide changed a table of short names"; fail=1; }
[ $fail = 0 ] && echo "demangled names: histogram, text and CTF, --no-demangle and --wide: ok"
exit $fail
