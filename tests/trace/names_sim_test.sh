#!/usr/bin/env bash
# Patterns on the simulator's demo kernel (tracer/backends/replay/demo.c: data jiffies
# 0x000, pid_max 0x040, nr_threads 0x080, total_forks 0x0c0, avenrun
# 0x100): a pattern is the entries of the symbols it matches, in address
# order -- the same histogram, the same planner error, one note saying
# how many matched; PAT:--- removes them; a pattern matching nothing is
# a usage error.  From -e and from --filter-file.
set -euo pipefail
hwbp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# trace NAME ARGS...: the demo traced; stdout, stderr and status in
# $tmp/NAME.{out,err,rc}.
trace() {
	local name=$1 rc=0
	shift
	"$hwbp" trace --demo "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	echo $rc >"$tmp/$name.rc"
}
# same NOTES PATTERN-ARGS -- EXPLICIT-ARGS: the pattern's run prints the
# notes NOTES (lines, each after "hwbp: trace: ") first, then exactly
# what the explicit entries' run prints.
same() {
	local notes=$1 args=() rc n
	shift
	n=$(printf '%s\n' "$notes" | wc -l)
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	trace pat "${args[@]}"
	trace exp "$@"
	rc=$(cat "$tmp/exp.rc")
	cmp -s "$tmp/pat.out" "$tmp/exp.out" || { fail "${args[*]}: histogram differs:"; diff "$tmp/pat.out" "$tmp/exp.out" || true; }
	[ "$(head -n "$n" "$tmp/pat.err")" = "$(printf '%s\n' "$notes" | sed 's/^/hwbp: trace: /')" ] ||
		fail "${args[*]}: notes '$(head -n "$n" "$tmp/pat.err")'"
	tail -n +$((n + 1)) "$tmp/pat.err" | cmp -s - "$tmp/exp.err" ||
		fail "${args[*]}: messages differ: $(cat "$tmp/pat.err")"
	[ "$(cat "$tmp/pat.rc")" = "$rc" ] || fail "${args[*]}: exit $(cat "$tmp/pat.rc"), want $rc"
}

same "-e '*s:rw-': pattern '*s' matches 3 data symbols, watched in address order" \
	-e '*s:rw-' -- -e jiffies:rw- -e nr_threads:rw- -e total_forks:rw-
same "-e '[tp]*:-w-': pattern '[tp]*' matches 2 data symbols, watched in address order" \
	-e '[tp]*:-w-' -- -e pid_max:-w- -e total_forks:-w-
same "-e '*_max/2:r--': pattern '*_max' matches 1 data symbol, watched in address order" \
	-e '*_max/2:r--' -- -e pid_max/2:r--
# Removal: the pattern's watches, or one of them.
same "-e '*s:rw-': pattern '*s' matches 3 data symbols, watched in address order
-e 'j*:---': pattern 'j*' matches 1 symbol: their watches removed" \
	-e '*s:rw-' -e 'j*:---' -- -e nr_threads:rw- -e total_forks:rw-
# Five (one of 24 bytes): more than x86's four debug registers hold.  A
# pattern watches its matches up to the slots available, in address
# order, and says which were left out: the four that fit, as named
# outright.
same "-e '?*:rw-': pattern '?*' matches 5 data symbols, watched in address order
patterns: 4 of 5 matches watched, 1 left out: they do not fit the debug registers left (too large, or none free; avenrun first: name one outright or give /LEN)" \
	-e '?*:rw-' -- -e jiffies:rw- -e pid_max:rw- -e nr_threads:rw- -e total_forks:rw-
[ "$(cat "$tmp/pat.rc")" = 0 ] || fail "?*: exit $(cat "$tmp/pat.rc")"
# A watch named outright keeps its slots: then the pattern gets the rest.
same "-e 'j*:rw-': pattern 'j*' matches 1 data symbol, watched in address order
patterns: 0 of 1 matches watched, 1 left out: they do not fit the debug registers left (too large, or none free; jiffies first: name one outright or give /LEN)" \
	-e avenrun:rw- -e pid_max:rw- -e 'j*:rw-' -- -e avenrun:rw- -e pid_max:rw-
# Named outright, too many still get the planner's refusal.
trace big -e jiffies:rw- -e pid_max:rw- -e nr_threads:rw- -e total_forks:rw- -e avenrun:rw-
[ "$(cat "$tmp/big.rc")" = 1 ] || fail "five named outright: exit $(cat "$tmp/big.rc"), want 1"
# From a filter file, comments and all.
printf '# patterns\n*s:rw-\n  j*:---\n' >"$tmp/filter"
same "$tmp/filter:2: '*s:rw-': pattern '*s' matches 3 data symbols, watched in address order
$tmp/filter:3: '  j*:---': pattern 'j*' matches 1 symbol: their watches removed" \
	--filter-file "$tmp/filter" -- -e nr_threads:rw- -e total_forks:rw-

# Nothing matches: a usage error naming the pattern, nothing run.
trace none -e 'zz*:rw-'
[ "$(cat "$tmp/none.rc")" = 2 ] || fail "zz*: exit $(cat "$tmp/none.rc")"
[ "$(cat "$tmp/none.err")" = "hwbp: trace: -e 'zz*:rw-': no symbol matches 'zz*' (ENOENT)" ] ||
	fail "zz*: $(cat "$tmp/none.err")"
[ ! -s "$tmp/none.out" ] || fail "zz*: printed a histogram"
# Every watch removed by a pattern: nothing to watch.
trace all -e '*s:rw-' -e '*s:---'
[ "$(cat "$tmp/all.rc")" = 2 ] || fail "*s then *s:---: exit $(cat "$tmp/all.rc")"
grep -q "nothing to watch" "$tmp/all.err" || fail "*s then *s:---: $(cat "$tmp/all.err")"

[ $fails = 0 ] && echo "names-sim: patterns on the demo: ok"
exit $((fails > 0))
