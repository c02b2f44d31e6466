# rooms.sh - sourced by check_layers.sh and check_calls.sh: libhwbp-trace's
# rooms (docs/design.md, "The tracer's rooms"), each with its rank (a room
# may depend only on rooms of a lower rank) and its interface header:
#   util, insn 0 < symbols 1 < types 2 < objects 3 < events 4 < output 5
#   < session 6 < backends/linux, backends/replay 7 (what backends share)
#   < backends/<name> 8 (one backend each: every other folder there),
#     race 8 (the race detector: beside the backends, none of theirs)
#   < registry 9
# rooms_load SRCDIR fills the caller's associative arrays rank[ROOM] and
# iface[ROOM] (a backend's: the header named as its folder, else its one
# header without _int; the registry's: none).
add_room() { rank[$1]=$2; iface[$1]=$3; }
rooms_load() {
  local src=$1 d h
  add_room util 0 "util/util.h"
  add_room insn 0 "insn/insn.h"
  add_room symbols 1 "symbols/symbols.h"
  add_room types 2 "types/types.h"
  add_room objects 3 "objects/objects.h"
  add_room events 4 "events/events.h"
  add_room output 5 "output/output.h"
  add_room session 6 "session/backend.h"
  add_room backends/linux 7 "backends/linux/linux.h"
  add_room backends/replay 7 "backends/replay/replay.h"
  for d in "$src"/tracer/backends/*/; do
    d=${d#"$src"/tracer/}; d=${d%/}
    [ -n "${rank[$d]:-}" ] && continue
    add_room "$d" 8 ""
    for h in "$src/tracer/$d/${d#backends/}.h" "$src/tracer/$d"/*.h; do
      case $h in *_int.h) continue ;; esac
      [ -e "$h" ] && { iface[$d]=${h#"$src"/tracer/}; break; }
    done
  done
  add_room race 8 "race/race.h"
  add_room registry 9 ""
}
