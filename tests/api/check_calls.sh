#!/usr/bin/env bash
# check_calls.sh SRCDIR ARCHIVE [OBJECT...] - the calls between libhwbp-trace's
# rooms point down, as its includes do (check_layers.sh): every symbol an
# object of one room takes from another room (nm: U in the one, defined
# in the other) is a room's below it, in rooms.sh's order (the arch's
# Linux glue counts as backends/linux), and no backend takes anything from another backend.  Since every
# reference between rooms points down, no circle of calls crosses a room.
# ARCHIVE is the build's libhwbp_trace_internal.a (its members are named
# after their sources: tracer_<room>_<file>.c.o); OBJECTs are more objects
# named the same way (the planted-violation test adds one).  Function
# pointers (a backend's operations, the outputs' note callback) are not
# references: that is how a lower room calls up, by being told.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$1 archive=$2
shift 2
declare -A rank iface
. "$here/rooms.sh"
rooms_load "$src"
ranks=
for r in "${!rank[@]}"; do ranks+="$r=${rank[$r]} "; done
command -v nm >/dev/null || { echo "check_calls.sh: nm not found (binutils): ENOENT"; exit 1; }
nm -A "$archive" "$@" 2>/dev/null | awk -v ranks="$ranks" '
  # The room of an object, from its name: the longest room prefix wins.
  function room_of(obj,    b, i, best, bl) {
    b = obj; sub(/.*\//, "", b)
    best = ""; bl = 0
    for (i in prefix)
      if (index(b, prefix[i]) && length(prefix[i]) > bl) { best = i; bl = length(prefix[i]) }
    if (best == "" && b ~ /^arch_[a-z0-9]+_linux/) best = "backends/linux"
    return best
  }
  BEGIN {
    # "ROOM=RANK ..." from rooms.sh
    n = split(ranks, kv, " ")
    for (i = 1; i <= n; i++) { split(kv[i], f, "="); rk[f[1]] = f[2] }
    for (x in rk) { p = x; gsub(/\//, "_", p); prefix[x] = "tracer_" p "_" }
  }
  NF < 2 { next }
  {
    # "archive:member: [value] TYPE name" or "object: [value] TYPE name"
    line = $0
    sym = $NF; type = $(NF - 1)
    obj = line; sub(/: *[0-9a-f]* *[A-Za-z] [^ ]*$/, "", obj)
    room = room_of(obj)
    if (room == "") next
    if (type == "U") { nuse++; use_room[nuse] = room; use_sym[nuse] = sym; use_obj[nuse] = obj }
    else if (type ~ /^[A-TV-Z]$/) { def[sym] = room; def_obj[sym] = obj }
  }
  END {
    bad = 0; cross = 0
    for (i = 1; i <= nuse; i++) {
      s = use_sym[i]; u = use_room[i]
      if (!(s in def) || def[s] == u) continue
      d = def[s]; cross++
      if (rk[d] < rk[u]) continue
      printf "%s (%s) takes %s from %s (%s), which is not below it\n", use_obj[i], u, s, def_obj[s], d
      bad = 1
    }
    if (!bad) printf "%d references between rooms, every one down to a lower room\n", cross
    exit bad
  }'
