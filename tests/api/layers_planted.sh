#!/usr/bin/env bash
# layers_planted.sh SRCDIR ARCHIVE CC - the checks of the tracer's rooms
# (check_layers.sh, check_calls.sh) find what they are for: each violation
# below is planted in a copy of the sources (or, for a call, in one more
# object compiled here), and the check must fail on it with its own
# message.  The copy without a violation must pass, so that a check that
# fails on everything fails here too.
set -euo pipefail
src=$(cd "$1" && pwd)
archive=$2
cc=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

# A fresh copy of what check_layers.sh reads.
copy() {
  rm -rf "$tmp/src"
  mkdir -p "$tmp/src"
  (cd "$src" && tar -cf - include generic arch sim tracer cli) | tar -xf - -C "$tmp/src"
}

# plant_include FILE LINE EXPECT: FILE (in the copy) gets LINE before its
# first include; check_layers.sh must fail and say EXPECT.
plant_include() {
  local f=$1 line=$2 expect=$3 out
  copy
  awk -v l="$line" '!done && /^#include/ { print l; done = 1 } { print }' "$tmp/src/$f" \
    > "$tmp/planted" && cat "$tmp/planted" > "$tmp/src/$f"
  n=$((n + 1))
  if out=$(bash "$here/check_layers.sh" "$tmp/src" 2>&1); then
    echo "FAIL: $f with $line: check_layers.sh passed"; fail=1
  elif ! grep -qF -- "$expect" <<<"$out"; then
    echo "FAIL: $f with $line: check_layers.sh did not say '$expect':"; echo "$out"; fail=1
  else
    echo "ok: $f with $line: $(grep -F -- "$expect" <<<"$out" | head -1)"
  fi
}

# plant_call ROOM CALLEE EXPECT: an object of ROOM (named as the build
# names them) that calls CALLEE; check_calls.sh must fail and say EXPECT.
plant_call() {
  local room=$1 callee=$2 expect=$3 obj out
  obj="$tmp/tracer_${room//\//_}_planted.c.o"
  printf 'void %s(void);\nvoid planted_%s(void) { %s(); }\n' "$callee" "$n" "$callee" > "$tmp/p.c"
  "$cc" -c "$tmp/p.c" -o "$obj"
  n=$((n + 1))
  if out=$(bash "$here/check_calls.sh" "$src" "$archive" "$obj" 2>&1); then
    echo "FAIL: a call from $room to $callee: check_calls.sh passed"; fail=1
  elif ! grep -qF -- "$expect" <<<"$out"; then
    echo "FAIL: a call from $room to $callee: check_calls.sh did not say '$expect':"
    echo "$out"; fail=1
  else
    echo "ok: a call from $room to $callee: $(grep -F -- "$expect" <<<"$out" | head -1)"
  fi
}

# The controls: nothing planted, both pass.
copy
bash "$here/check_layers.sh" "$tmp/src" >/dev/null || { echo "FAIL: check_layers.sh fails on the unchanged sources"; exit 1; }
bash "$here/check_calls.sh" "$src" "$archive" >/dev/null || { echo "FAIL: check_calls.sh fails on the unchanged library"; exit 1; }

# An upward include: symbols is below events.
plant_include tracer/symbols/symbols.c '#include "events/events.h"' \
  '"events/events.h" is in events, which is not below symbols'
# A lower room's header that is not its interface.
plant_include tracer/output/output.c '#include "symbols/symtab.h"' \
  '"symbols/symtab.h" is not symbols'"'"'s interface'
# A backend including another backend's private header.
plant_include tracer/backends/module/module.c '#include "backends/perf/perf_int.h"' \
  'is in backends/perf, which is not below backends/module'
# ... or another backend's interface.
plant_include tracer/backends/perf/backend.c '#include "backends/ptrace/ptrace.h"' \
  'is in backends/ptrace, which is not below backends/perf'
# A backend reaching past session/backend.h.
plant_include tracer/backends/sim/sim.c '#include "events/events.h"' \
  'a backend includes session/backend.h'
# The race detector including a backend's own header (it stands beside
# them, on what backends/linux shares), and reaching past
# session/backend.h.
plant_include tracer/race/pairs.c '#include "backends/ptrace/ptrace.h"' \
  'is in backends/ptrace, which is not below race'
plant_include tracer/race/sampler.c '#include "symbols/symbols.h"' \
  'a backend includes session/backend.h'
# The session including a backend.
plant_include tracer/session/session.c '#include "backends/sim/sim.h"' \
  'is in backends/sim, which is not below session'
# A header named without its room, and a relative one.
plant_include tracer/events/hit.c '#include "events.h"' 'is named from the library'"'"'s root'
plant_include tracer/util/say.c '#include "../events/events.h"' 'relative include'
# The Linux glue including more of the tracer than its interface.
plant_include arch/x86/linux.c '#include "session/backend.h"' \
  'the Linux glue includes backends/linux/glue.h of the tracer, not "session/backend.h"'

# Calls: up a room, and across backends.
plant_call symbols hwbpi_tracer_hit 'takes hwbpi_tracer_hit from'
plant_call output hwbpi_fail 'takes hwbpi_fail from'
plant_call backends/perf hwbpi_ptrace_attach 'which is not below it'
plant_call backends/linux hwbpi_perf_counted 'which is not below it'
plant_call race hwbpi_ptrace_selftest 'which is not below it'
plant_call backends/ptrace hwbpi_race_candidates 'which is not below it'

[ $fail = 0 ] && echo "$n planted violations, each found"
exit $fail
