#!/usr/bin/env bash
# tests/trace/typed_test.sh HWBP PROG.c PROG.cpp: typed names on any host.
#  - exact counts per field from valgrind's lackey traces of
#    tests/trace/typed_prog.c (C: nested structs, arrays of structs, a
#    union, a bitfield, a static local) and tests/trace/typed_prog.cpp
#    (C++: a class's static member in a namespace, a base class's member),
#    built -O1 -g -fno-inline as PIEs, replayed on the simulator;
#  - addresses of pointer chains, a cast number and a TLS struct's member
#    resolved with --dry-run --json in the running program (-p PID: its
#    pointers read through process_vm_readv; nothing is armed, so the
#    host's debug registers need not fire), against the compiler's own
#    offsetof() (the program's "offsets" mode) and the addresses it
#    prints;
#  - the bad expressions: one line naming the column and the errno, exit
#    status 2 (the user's input), nothing armed (the process still runs, untraced).
set -euo pipefail
hwbp=$1 csrc=$2 cxxsrc=$3
for t in valgrind jq babeltrace2; do
  command -v $t >/dev/null || { echo "$t is missing (scripts/deps installs it)"; exit 1; }
done
tmp=$(mktemp -d)
pid=
trap 'if [ -n "$pid" ]; then kill $pid 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cc -O1 -g -fno-inline -o "$tmp/prog" "$csrc"
c++ -O1 -g -fno-inline -o "$tmp/progxx" "$cxxsrc"
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/c.log" "$tmp/prog"
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/cxx.log" "$tmp/progxx"

# hist LOG ELF ENTRY...: the histogram of a replay (4 watches at most: x86's slots)
hist() {
  local log=$1 elf=$2
  shift 2
  local args=()
  for e in "$@"; do args+=(-e "$e"); done
  "$hwbp" trace --lackey "$log" --elf "$elf" "${args[@]}" 2> "$tmp/err"
}
# row FILE KIND SYMBOL FUNCTION COUNT: that row is in the histogram
row() {
  awk -v k="$2" -v s="$3" -v f="$4" -v n="$5" '$1 == k && $2 == s && $3 == f && $4 == n { ok = 1 }
    END { exit !ok }' "$1" || bad "expected '$2 $3 $4 $5' in: $(cat "$1")"
}
# rows FILE SYMBOL N: the symbol has exactly N rows
rows() {
  [ "$(awk -v s="$2" '$2 == s && $1 ~ /^[RW?]/' "$1" | wc -l)" = "$3" ] || bad "$2: not $3 rows: $(cat "$1")"
}

# ---- C: the counts of typed_prog.c's header.  cfg.u.b[2] and cfg.u.i
# overlap (a union): each sees both loops' stores, 50 + 40.
hist "$tmp/c.log" "$tmp/prog" 'cfg.limits[2].hi:rw-' 'cfg.in.lim[1].lo:rw-' 'cfg.u.b[2]:rw-' \
  'cfg.u.i:rw-' > "$tmp/h1"
cat "$tmp/h1"
row "$tmp/h1" W 'cfg.limits[2].hi' writes 300
row "$tmp/h1" W 'cfg.in.lim[1].lo' writes 200
row "$tmp/h1" W 'cfg.u.b[2]' writes 90
row "$tmp/h1" W 'cfg.u.i' writes 90
for s in 'cfg.limits[2].hi' 'cfg.in.lim[1].lo' 'cfg.u.b[2]' 'cfg.u.i'; do rows "$tmp/h1" "$s" 1; done
grep -qx "hwbp: trace: -e 'cfg.limits\[2\].hi:rw-': watching 0x[0-9a-f]*, 4 bytes (int, from DWARF)" \
  "$tmp/err" || bad "the note of cfg.limits[2].hi: $(cat "$tmp/err")"

# The bitfield: mode's bits in the byte that holds them, said; its
# stores are read-modify-writes of that byte.  The static local by GDB's
# name; a cast of cfg's bytes as another struct (its hi: cfg.id's upper
# half, which nothing writes).
hist "$tmp/c.log" "$tmp/prog" 'cfg.fl.mode:rw-' 'bump::counter.hi:rw-' \
  '(struct limits)cfg.hi:rw-' > "$tmp/h2"
cat "$tmp/h2" "$tmp/err"
row "$tmp/h2" W 'cfg.fl.mode' writes 30
row "$tmp/h2" R 'cfg.fl.mode' writes 30
rows "$tmp/h2" 'cfg.fl.mode' 2
row "$tmp/h2" W 'bump::counter.hi' bump 10
rows "$tmp/h2" 'bump::counter.hi' 1
grep -qx '(struct limits)cfg.hi: 0 functions, overrun 0' "$tmp/h2" || bad "the cast: $(cat "$tmp/h2")"
grep -q "'cfg.fl.mode:rw-': watching 0x[0-9a-f]*, 1 byte (unsigned int, from DWARF): the bitfield's bits 1..3 of them$" \
  "$tmp/err" || bad "the bitfield's note: $(cat "$tmp/err")"

# The same expressions from a filter file.
printf '# typed names\ncfg.limits[2].hi:rw-\ncfg.u.i:rw-\n' > "$tmp/filter"
"$hwbp" trace --lackey "$tmp/c.log" --elf "$tmp/prog" --filter-file "$tmp/filter" > "$tmp/h4" 2>/dev/null
row "$tmp/h4" W 'cfg.limits[2].hi' writes 300
row "$tmp/h4" W 'cfg.u.i' writes 90

# CTF names the watch as written: its 300 events.
"$hwbp" trace --lackey "$tmp/c.log" --elf "$tmp/prog" -e 'cfg.limits[2].hi:-w-' --trace "$tmp/ctf" \
  --format ctf 2>/dev/null
[ "$(babeltrace2 "$tmp/ctf" | grep -c 'watch = "cfg.limits\[2\].hi", .* kind = ( "W"')" = 300 ] ||
  bad "CTF: not 300 events of cfg.limits[2].hi"

# ---- C++: a static member by its qualified name, a base class's member.
hist "$tmp/cxx.log" "$tmp/progxx" 'app::Config::instance.limits[1]:rw-' \
  'app::Config::instance.name[2]:rw-' 'app::node.id:rw-' 'app::node.next:rw-' > "$tmp/h3"
cat "$tmp/h3"
row "$tmp/h3" W 'app::Config::instance.limits[1]' 'work()' 120
row "$tmp/h3" W 'app::Config::instance.name[2]' 'work()' 30
row "$tmp/h3" W 'app::node.id' 'work()' 45
row "$tmp/h3" W 'app::node.next' 'work()' 15

# ---- A live process, resolved and not armed (--dry-run --json).
declare -A off
while read -r k v; do off[$k]=$v; done < <("$tmp/prog" offsets)
"$tmp/prog" wait > "$tmp/wait.out" & pid=$!
for _ in $(seq 100); do [ -s "$tmp/wait.out" ] && break; sleep 0.05; done
read -r _ heap < "$tmp/wait.out"
cfg=0x$(nm "$tmp/prog" | awk '$3 == "cfg" { print $1 }')
base=$(awk '$6 ~ /\/prog$/ { split($1, r, "-"); print "0x" r[1]; exit }' "/proc/$pid/maps")
cfg=$(printf '0x%x' $((base + cfg)))
"$hwbp" trace --dry-run --json -p $pid -e 'heap->limits[3].lo:-w-' -e 'cfgpp[0][0]->u.b[1]:-w-' \
  -e "(struct config *)$heap->fl.count:rw-" -e 'tls_lim.hi:-w-' > "$tmp/dry.json" 2> "$tmp/dry.err"
cat "$tmp/dry.err"
jq . "$tmp/dry.json" > /dev/null || bad "--json is not JSON: $(cat "$tmp/dry.json")"
addr() { jq -r --arg n "$1" '.watches[] | select(.name == $n) | .addr' "$tmp/dry.json"; }
want() { printf '0x%x' $(($1)); }
[ "$(addr 'heap->limits[3].lo')" = "$(want "$heap + ${off[limits3lo]}")" ] || bad "heap->limits[3].lo: $(addr 'heap->limits[3].lo')"
[ "$(addr 'cfgpp[0][0]->u.b[1]')" = "$(want "$heap + ${off[ub1]}")" ] || bad "cfgpp[0][0]->u.b[1]"
[ "$(addr "(struct config *)$heap->fl.count")" = "$(want "$heap + ${off[fl]}")" ] || bad "the cast number"
# Three pointers read on the way to cfgpp[0][0]->u, the last one heap.
[ "$(jq -r '.watches[1].steps | map(select(.read)) | length' "$tmp/dry.json")" = 3 ] &&
  [ "$(jq -r '.watches[1].steps | map(select(.read)) | last | .read' "$tmp/dry.json")" = "$heap" ] ||
  bad "the steps of cfgpp[0][0]->u.b[1]: $(jq -c '.watches[1].steps' "$tmp/dry.json")"
# fl.count: bits 4..15, two bytes; the TLS member: an offset, 4 bytes.
[ "$(jq -c '.watches[2] | [.len, .bitfield.shift, .bitfield.width]' "$tmp/dry.json")" = '[2,4,12]' ] ||
  bad "fl.count's bytes and bits: $(jq -c '.watches[2]' "$tmp/dry.json")"
[ "$(jq -c '.watches[3] | [.tls, .len]' "$tmp/dry.json")" = '[true,4]' ] || bad "tls_lim.hi"
grep -qx "hwbp: trace: -e 'heap->limits\[3\].lo:-w-': heap = $heap -> watching $heap+0x$(printf %x "${off[limits3lo]}"), 4 bytes (int, from DWARF)" \
  "$tmp/dry.err" || bad "the note of a pointer step"
# Text: a step per line, the plan.
"$hwbp" trace --dry-run -p $pid -e 'heap->limits[3]:-w-' > "$tmp/dry.txt" 2>/dev/null
grep -qx "  heap->limits  (read $heap)  at $(want "$heap + ${off[limits3lo]} - 24")" "$tmp/dry.txt" &&
  grep -qx "  plan: 2 pieces: $(want "$heap + ${off[limits3lo]}")/4 W $(want "$heap + ${off[limits3lo]} + 4")/4 W" "$tmp/dry.txt" ||
  bad "--dry-run's text: $(cat "$tmp/dry.txt")"

# ---- Bad expressions: ERRNO COLUMN ENTRY [what the line must hold].
while IFS='|' read -r errno col entry what; do
  st=0
  "$hwbp" trace --dry-run -p $pid -e "$entry" > "$tmp/out" 2> "$tmp/err" || st=$?
  line=$(cat "$tmp/err")
  [ $st = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
    [[ $line == *"column $col: "*"($errno)" ]] && [[ $line == *"$what"* ]] ||
    bad "'$entry': want column $col, $errno, '$what'; status $st: $line"
  # nothing armed, the process as it was: running, no tracer
  grep -q '^TracerPid:[[:space:]]*0$' "/proc/$pid/status" && kill -0 $pid ||
    bad "'$entry' left process $pid traced or gone"
done <<'EOF'
ENOENT|15|cfg.limits[2].hj:-w-|struct limits has no member 'hj'; did you mean hi?
EINVAL|4|cfg->id:-w-|'->' on cfg, a struct config, not a pointer: use '.'
EINVAL|5|heap.id:-w-|'.' on heap, a pointer (struct config *): use '->'
ERANGE|12|cfg.limits[4]:-w-|index 4 past the bound of struct limits[4]
EINVAL|4|cfg[1]:-w-|'[' on cfg, a struct config: neither an array nor a pointer
EFAULT|11|heap->next->id:-w-|heap->next is NULL
EFAULT|10|bad->next->id:-w-|cannot read the pointer bad->next at 0x60: EFAULT
ENOENT|2|(struct nope)cfg.x:-w-|no type 'struct nope' in the DWARF
EINVAL|12|cfg.fl.mode.x:-w-|cfg.fl.mode is a bitfield
EINVAL|5|cfg.:-w-|expected a member name after '.'
EINVAL|12|cfg.limits[x]:-w-|an index is a number
ENOENT|1|nope.x:-w-|no symbol 'nope' in the symbol table
EOF
# A /LEN that does not hold a bitfield (one line, no column: the length's).
st=0
"$hwbp" trace --dry-run -p $pid -e 'cfg.fl.count/1:-w-' > "$tmp/out" 2> "$tmp/err" || st=$?
[ $st = 2 ] && grep -q "a bitfield of bits 4..15 in 2 bytes: +OFF/LEN that does not hold it (EINVAL)$" "$tmp/err" ||
  bad "cfg.fl.count/1: status $st: $(cat "$tmp/err")"
# lackey has no memory to read pointers from: said.
st=0
"$hwbp" trace --lackey "$tmp/c.log" --elf "$tmp/prog" -e 'heap->id:-w-' > /dev/null 2> "$tmp/err" || st=$?
[ $st = 2 ] && grep -q "column 5: cannot read the pointer heap: .* (EOPNOTSUPP)$" "$tmp/err" ||
  bad "a pointer under lackey: $(cat "$tmp/err")"
# A pointer the program sets in main, read at its entry (-- CMD): NULL,
# said with the hint.
st=0
"$hwbp" trace --dry-run --backend ptrace -e 'heap->limits[3].lo:-w-' -- "$tmp/prog" > /dev/null 2> "$tmp/err" || st=$?
[ $st = 2 ] && grep -q "column 5: heap is NULL: pointers are read when the watch is armed, here at the command's start: attach with -p PID once it is set (EFAULT)$" "$tmp/err" ||
  bad "heap at the entry: status $st: $(cat "$tmp/err")"
kill $pid
pid=
[ $fail = 0 ] && echo "typed names: OK"
exit $fail
