#!/usr/bin/env bash
# check_layers.sh SRCDIR - one direction of dependency, checked in the
# source: each layer includes only its own private headers and the public
# headers of the layers below it (docs/design.md, "Layers").  The build
# gives each library only its own folder on the include path; this check
# catches what an include path cannot: relative paths ("../arch/x86/x86.h")
# and public headers of a layer above.
set -euo pipefail
cd "$1"
fail=0
# layer  folders  private include dirs  public headers allowed
rules=(
  "core|generic arch/x86 arch/arm64 arch/powerpc|generic|hwbp.h x86.h arm64.h powerpc.h glue.h"
  "sim|sim|sim|hwbp.h x86.h arm64.h powerpc.h sim.h"
  "trace|tracer|tracer|hwbp.h sim.h hist.h trace.h"
  "cli|cli|cli|hwbp.h sim.h hist.h trace.h"
)
# The Linux glue (arch/<a>/linux*.c) is libhwbp-trace's, built from arch/.
is_linux_glue() { case $1 in arch/*/linux*.c|generic/linux*) return 0 ;; esac; return 1; }
n=0
for r in "${rules[@]}"; do
  IFS='|' read -r layer dirs privs pubs <<<"$r"
  for d in $dirs; do
    for f in "$d"/*.c "$d"/*.h "$d"/*.def; do
      [ -e "$f" ] || continue
      n=$((n + 1))
      ok_pubs=$pubs ok_privs="$d $privs"
      if is_linux_glue "$f"; then ok_pubs="$pubs hist.h trace.h"; ok_privs="$d generic tracer"; fi
      while IFS= read -r line; do
        inc=${line#*include}
        # (parameter expansion, not a sed per line: 149 files took 14-29 s
        # in forks on a loaded 2-core machine, against meson's 30 s)
        inc=${inc#"${inc%%[![:space:]]*}"}
        inc=${inc%%[[:space:]]*}
        case $inc in
          \"*\")
            name=${inc#\"}; name=${name%\"}
            case $name in */*) echo "$f: relative include $inc"; fail=1; continue ;; esac
            found=0
            for p in $ok_privs; do [ -e "$p/$name" ] && found=1; done
            [ $found = 1 ] || { echo "$f: $inc is not a header of layer $layer"; fail=1; } ;;
          \<hwbp/*\>)
            name=${inc#<hwbp/}; name=${name%>}
            case " $ok_pubs " in *" $name "*) ;; *)
              echo "$f: <hwbp/$name> is not a public header below layer $layer"; fail=1 ;; esac ;;
        esac
      done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f" || true)
    done
  done
done
[ $fail = 0 ] && echo "$n files: every include stays within its layer or reaches down to a public header"
exit $fail
