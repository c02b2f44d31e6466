#!/usr/bin/env bash
# check_layers.sh SRCDIR - one direction of dependency, checked in the
# source (docs/design.md, "Layers" and "The tracer's rooms").
#
# Between libraries: each includes only its own private headers and the
# public headers of the libraries below it.  The build gives each library
# only its own folder on the include path; this check catches what an
# include path cannot: relative paths ("../arch/x86/x86.h") and public
# headers of a library above.
#
# Inside libhwbp-trace, between its folders ("rooms"): a file includes
# the headers of its own folder, and of a folder below its own only that
# folder's one interface header, written from the library's root
# ("symbols/symbols.h").  The order, lowest first:
#   util < symbols < events < output < session
#        < backends/linux, backends/replay  (what backends share)
#        < backends/<name>, race            (one backend each; the race detector)
#        < registry
# A backend (backends/<name>/) includes, of the tracer, nothing but
# session/backend.h, the shared backends' interfaces and its own folder:
# never another backend's header.  Since every include between folders
# points down this order, no circle of includes can cross a folder
# (tests/api/check_calls.sh checks the calls the same way).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$1"
fail=0
bad() { echo "$1"; fail=1; }

# ---- the tracer's rooms: rank and interface header (rooms.sh)
declare -A rank iface
. "$here/rooms.sh"
rooms_load .
# The room of a tracer file into $ROOM: its folder under tracer/
# (backends/X for a backend's files); "" for a file at the top.  (No
# $(...): a fork per include is what made this check slow once.)
room_of() {
  local p=${1#tracer/}
  case $p in
    backends/*/*) p=${p#backends/}; ROOM="backends/${p%%/*}" ;;
    */*) ROOM=${p%%/*} ;;
    *) ROOM="" ;;
  esac
}

# A tracer file's quoted include @2 (from the library's root): returns
# nothing, or prints what is wrong.
tracer_include() {
  local f=$1 name=$2 room inc_room r ri
  room_of "$f"; room=$ROOM
  if [ -z "$room" ] || [ -z "${rank[$room]:-}" ]; then
    bad "$f: a file of libhwbp-trace outside its rooms (tracer/<room>/)"; return
  fi
  case $name in
    */*) ;;
    *) bad "$f: \"$name\": a tracer header is named from the library's root (\"symbols/symbols.h\")"
       return ;;
  esac
  case $name in *..*) bad "$f: relative include \"$name\""; return ;; esac
  [ -e "tracer/$name" ] || { bad "$f: \"$name\" is not a header of libhwbp-trace"; return; }
  room_of "tracer/$name"; inc_room=$ROOM
  [ "$inc_room" = "$room" ] && return
  r=${rank[$room]} ri=${rank[$inc_room]:-99}
  if [ "$ri" -ge "$r" ]; then
    bad "$f: \"$name\" is in $inc_room, which is not below $room"; return
  fi
  if [ "$name" != "${iface[$inc_room]}" ]; then
    bad "$f: \"$name\" is not $inc_room's interface (${iface[$inc_room]})"; return
  fi
  # A backend, or what backends share, sees the session's view and the
  # shared backends, not the folders below the session directly.
  if [ "$r" -ge "${rank[backends/linux]}" ] && [ "$r" -lt "${rank[registry]}" ] &&
     [ "$ri" -lt "${rank[session]}" ]; then
    bad "$f: a backend includes session/backend.h, not \"$name\""
  fi
}

# ---- the libraries
# layer  folders  private include dirs  public headers allowed
# Every arch/<a>/ folder and its public header <hwbp/<a>.h>: no list of
# arches to keep up to date.
arch_dirs= arch_hdrs=
for d in arch/*/; do
  a=$(basename "$d")
  arch_dirs="$arch_dirs arch/$a"
  arch_hdrs="$arch_hdrs $a.h"
done
rules=(
  "core|generic$arch_dirs|generic|hwbp.h$arch_hdrs glue.h"
  "sim|sim|sim|hwbp.h$arch_hdrs sim.h"
  "trace|tracer|tracer|hwbp.h sim.h hist.h trace.h"
  "cli|cli|cli|hwbp.h sim.h hist.h trace.h"
)
# The Linux glue (arch/<a>/linux*.c) is libhwbp-trace's, built from arch/:
# it implements backends/linux/glue.h and includes nothing else of it.
# So are the instruction decoders (arch/<a>/insn.c, and arch/insn.c, their
# table): they implement insn/insn.h and include nothing else of it.
is_linux_glue() { case $1 in arch/*/linux*.c|generic/linux*) return 0 ;; esac; return 1; }
is_insn_glue() { case $1 in arch/*/insn.c|arch/insn.c) return 0 ;; esac; return 1; }
files_of() {
  if [ "$1" = tracer ]; then
    find tracer -name '*.c' -o -name '*.h' -o -name '*.def' | sort
  else
    for f in "$1"/*.c "$1"/*.h "$1"/*.def; do [ -e "$f" ] && echo "$f"; done
  fi
}
n=0
for r in "${rules[@]}"; do
  IFS='|' read -r layer dirs privs pubs <<<"$r"
  for d in $dirs; do
    while IFS= read -r f; do
      n=$((n + 1))
      ok_pubs=$pubs ok_privs="$d $privs"
      glue=0
      if is_linux_glue "$f"; then ok_pubs="$pubs hist.h trace.h"; glue=1; fi
      if is_insn_glue "$f"; then glue=2; fi
      case $f in *.bpf.c) continue ;; esac   # the BPF program: kernel headers only
      while IFS= read -r line; do
        inc=${line#*include}
        # (parameter expansion, not a sed per line: 149 files took 14-29 s
        # in forks on a loaded 2-core machine, against meson's 30 s)
        inc=${inc#"${inc%%[![:space:]]*}"}
        inc=${inc%%[[:space:]]*}
        case $inc in
          \"*\")
            name=${inc#\"}; name=${name%\"}
            if [ "$layer" = trace ]; then
              tracer_include "$f" "$name"; continue
            fi
            if [ $glue = 1 ]; then
              case $name in
                backends/linux/glue.h) continue ;;
                */*) bad "$f: the Linux glue includes backends/linux/glue.h of the tracer, not \"$name\""
                     continue ;;
              esac
            fi
            if [ $glue = 2 ]; then
              case $name in
                insn/insn.h) continue ;;
                *) bad "$f: a decoder includes insn/insn.h of the tracer, not \"$name\""
                   continue ;;
              esac
            fi
            case $name in */*) bad "$f: relative include $inc"; continue ;; esac
            found=0
            for p in $ok_privs; do [ -e "$p/$name" ] && found=1; done
            [ $found = 1 ] || bad "$f: $inc is not a header of layer $layer" ;;
          \<hwbp/*\>)
            name=${inc#<hwbp/}; name=${name%>}
            case " $ok_pubs " in *" $name "*) ;; *)
              bad "$f: <hwbp/$name> is not a public header below layer $layer" ;; esac ;;
        esac
      done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f" || true)
    done < <(files_of "$d")
  done
done
[ $fail = 0 ] && echo "$n files: every include stays within its layer or reaches down to a" \
  "public header; in libhwbp-trace, down to a lower room's interface (${#rank[@]} rooms)"
exit $fail
