#!/usr/bin/env bash
# Separate debug information: tests/trace/debuginfo_prog.c built with a
# build-id, its debug file split off with objcopy and the program stripped
# of its .symtab (readelf says so), then traced by `counter` with ptrace and
# perf.  Its WRITES stores must all be counted in main when the debug file
# is found by .gnu_debuglink beside the program, in .debug/ beside it, or by
# build-id under --debug-dir DIR (DIR/.build-id/xx/rest.debug); each says in
# one note which debug file it read (the only note: the distribution's debug
# files under /usr/lib/debug go without one).  A debug file of another build beside
# it is refused (its build-id differs); without one the error stays
# "no symbol 'counter'" (exit 2) with a hint.  A stripped library's static
# function is named from its debug file, at the library's bias.  $3 is
# "dwarf" for a build with libdw, "nodwarf" without: then every such
# program must say that this build reads no debug files, and --debug-dir
# must say what it lacks.
set -euo pipefail
hwbp=$(realpath "$1") src=$2 dwarf=$3   # (absolute: one case runs from $tmp)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"; exit 1; }
writes=$(sed -n 's/^#define WRITES \([0-9][0-9]*\)$/\1/p' "$src")
[ -n "$writes" ] || { echo "FAIL: no WRITES in $src"; exit 1; }

# $1: a directory; the program built there as prog, with a build-id.
build() {
	mkdir -p "$1"
	cc -O0 -g -Wl,--build-id -o "$1/prog" "$src"
}
# $1: the program; its .symtab must be gone.
no_symtab() {
	if readelf -S -W "$1" | grep -q ' \.symtab '; then
		echo "FAIL: $1 still has a .symtab"; exit 1
	fi
}
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
	"$hwbp" trace --backend "$backend" "$@" -e "counter:$rw" -- "$prog" >"$tmp/out" 2>"$tmp/err" || st=$?
}
# The histogram must be exactly WRITES writes in main, and one note about
# prog naming $1 as read by $2.
expect_counted() {
	[ "$st" = 0 ] || fail "exit $st"
	[ "$(awk '$1 == "W" && $2 == "counter" && $3 == "main" { print $4 }' "$tmp/out")" = "$writes" ] ||
		fail "want $writes writes of counter in main"
	[ "$(grep -c '^W ' "$tmp/out")" = 1 ] || fail "one row"
	# (none for libraries whose debug files are the distribution's, under
	# /usr/lib/debug: libc's with Debian's libc6-dbg)
	[ "$(grep -c '^hwbp: trace: .*: symbols from ' "$tmp/err")" = 1 ] || fail "one note, for prog"
	grep -qxF "hwbp: trace: prog: symbols from $1 ($2)" "$tmp/err" || fail "the note: $1 ($2)"
}
# "no symbol 'counter'", exit 2, and the hint naming program $1.
expect_missing() {
	local why="no debug file was found for it"

	[ "$dwarf" = dwarf ] || why="this build reads no separate debug files (no libdw: EOPNOTSUPP)"
	[ "$st" = 2 ] || fail "exit $st, want 2"
	[ ! -s "$tmp/out" ] || fail "a histogram"
	grep -qF "hwbp: trace: -e 'counter:$rw': no symbol 'counter' in the symbol table: $1 has no .symtab" \
		"$tmp/err" || fail "the error"
	grep -qF "$why" "$tmp/err" || fail "the hint: $why"
	if grep -q '^hwbp: trace: prog: symbols from ' "$tmp/err"; then fail "a note for prog"; fi
}

# 1. .gnu_debuglink, the debug file beside the program.
build "$tmp/link"
objcopy --only-keep-debug "$tmp/link/prog" "$tmp/link/prog.debug"
objcopy --strip-debug --strip-unneeded "$tmp/link/prog"
objcopy --add-gnu-debuglink="$tmp/link/prog.debug" "$tmp/link/prog"
no_symtab "$tmp/link/prog"
# 2. The same, the debug file in .debug/ beside it.
build "$tmp/sub"
mkdir "$tmp/sub/.debug"
objcopy --only-keep-debug "$tmp/sub/prog" "$tmp/sub/.debug/prog.debug"
strip --strip-all "$tmp/sub/prog"
objcopy --add-gnu-debuglink="$tmp/sub/.debug/prog.debug" "$tmp/sub/prog"
no_symtab "$tmp/sub/prog"
# 3. By build-id under another root, no .gnu_debuglink.
build "$tmp/bid"
id=$(readelf -n "$tmp/bid/prog" | awk '/Build ID:/ { print $3 }')
[ "${#id}" -gt 2 ] || { echo "FAIL: no build-id in $tmp/bid/prog"; exit 1; }
mkdir -p "$tmp/root/.build-id/${id:0:2}"
objcopy --only-keep-debug "$tmp/bid/prog" "$tmp/root/.build-id/${id:0:2}/${id:2}.debug"
strip --strip-all "$tmp/bid/prog"
no_symtab "$tmp/bid/prog"
# 4. Another build's debug file beside it, by the name its debuglink gives
# (another build-id: the source changed by a comment is enough).
build "$tmp/other"
objcopy --only-keep-debug "$tmp/other/prog" "$tmp/other/prog.debug"
strip --strip-all "$tmp/other/prog"
objcopy --add-gnu-debuglink="$tmp/other/prog.debug" "$tmp/other/prog"
{ cat "$src"; echo "/* another build */"; echo "int other_build;"; } >"$tmp/other.c"
cc -O0 -g -Wl,--build-id -o "$tmp/other/prog2" "$tmp/other.c"
objcopy --only-keep-debug "$tmp/other/prog2" "$tmp/other/prog.debug"
no_symtab "$tmp/other/prog"
# 5. No debug file at all.
build "$tmp/none"
strip --strip-all "$tmp/none/prog"
no_symtab "$tmp/none/prog"

for backend in ptrace perf; do
	if [ "$dwarf" = dwarf ]; then
		run "$backend" "$tmp/link/prog"
		expect_counted "$tmp/link/prog.debug" .gnu_debuglink
		run "$backend" "$tmp/sub/prog"
		expect_counted "$tmp/sub/.debug/prog.debug" .gnu_debuglink
		run "$backend" "$tmp/bid/prog" --debug-dir "$tmp/root"
		expect_counted "$tmp/root/.build-id/${id:0:2}/${id:2}.debug" build-id
		# the same root given by a relative path
		cd "$tmp"
		run "$backend" ./bid/prog --debug-dir root
		cd - >/dev/null
		expect_counted "$tmp/root/.build-id/${id:0:2}/${id:2}.debug" build-id
		# without the root, nothing finds it
		run "$backend" "$tmp/bid/prog"
		expect_missing "$tmp/bid/prog"
		grep -qF "(by build-id or .gnu_debuglink: beside it, in .debug/, under /usr/lib/debug)" \
			"$tmp/err" || fail "the places searched"
	else
		run "$backend" "$tmp/link/prog"
		expect_missing "$tmp/link/prog"
	fi
	run "$backend" "$tmp/other/prog"
	expect_missing "$tmp/other/prog"
	run "$backend" "$tmp/none/prog"
	expect_missing "$tmp/none/prog"
	echo "$backend: $writes writes through each debug file; none for another build's or none"
done

# A stripped library, its debug file beside it: its static function bump()
# (in the debug file's .symtab only) makes its N stores, at the library's
# load bias.  Without libdw the .dynsym has no bump.
n=23
mkdir "$tmp/lib"
printf 'int libcounter;\nstatic void bump(int i) { libcounter = i; }\nvoid lib_run(int n) { for (int i = 0; i < n; i++) bump(i); }\n' >"$tmp/lib/l.c"
printf 'void lib_run(int);\nint main(void) { lib_run(%d); return 0; }\n' "$n" >"$tmp/lib/m.c"
cc -O0 -g -shared -fPIC -Wl,--build-id -o "$tmp/lib/libl.so" "$tmp/lib/l.c"
objcopy --only-keep-debug "$tmp/lib/libl.so" "$tmp/lib/libl.so.debug"
strip --strip-all "$tmp/lib/libl.so"
objcopy --add-gnu-debuglink="$tmp/lib/libl.so.debug" "$tmp/lib/libl.so"
no_symtab "$tmp/lib/libl.so"
cc -O0 -o "$tmp/lib/m" "$tmp/lib/m.c" -L"$tmp/lib" -ll -Wl,-rpath,"$tmp/lib"
for backend in ptrace perf; do
	st=0
	"$hwbp" trace --backend "$backend" -e "libcounter:$rw" -- "$tmp/lib/m" >"$tmp/out" 2>"$tmp/err" || st=$?
	[ "$st" = 0 ] || fail "library: exit $st"
	[ "$(awk '$1 == "W" && $2 == "libcounter" { n += $4 } END { print n + 0 }' "$tmp/out")" = "$n" ] ||
		fail "library: $n writes"
	if [ "$dwarf" = dwarf ]; then
		[ "$(awk '$1 == "W" && $3 == "bump" { print $4 }' "$tmp/out")" = "$n" ] || fail "library: in bump"
		grep -qxF "hwbp: trace: libl.so: symbols from $tmp/lib/libl.so.debug (.gnu_debuglink)" "$tmp/err" ||
			fail "library: the note"
	elif grep -q ' bump ' "$tmp/out"; then
		fail "library: bump without libdw"
	fi
	echo "$backend: the library's $n writes"
done

# --debug-dir: a missing directory or a file is the user's error (exit 2,
# one line with the errno), as is a ':' in it; a build without libdw says
# what it lacks (exit 1).
mkdir "$tmp/a:b"
if [ "$dwarf" = dwarf ]; then
	cases=("$tmp/nonexistent|2|hwbp: trace: --debug-dir '$tmp/nonexistent': ENOENT"
	       "$tmp/none/prog|2|hwbp: trace: --debug-dir '$tmp/none/prog': ENOTDIR"
	       "$tmp/a:b|2|hwbp: trace: --debug-dir '$tmp/a:b': a ':' would split the search path: EINVAL")
else
	cases=("$tmp/root|1|hwbp: trace: --debug-dir needs libdw (elfutils' DWARF library), which this build lacks: EOPNOTSUPP")
fi
for c in "${cases[@]}"; do
	IFS='|' read -r dir want msg <<<"$c"
	run ptrace "$tmp/none/prog" --debug-dir "$dir"
	[ "$st" = "$want" ] || fail "--debug-dir $dir: exit $st, want $want"
	[ "$(cat "$tmp/err")" = "$msg" ] || fail "--debug-dir $dir: the message"
done
echo "--debug-dir errors: ${#cases[@]} cases"
