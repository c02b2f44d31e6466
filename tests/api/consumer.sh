#!/usr/bin/env bash
# consumer.sh STAGE - build one program per installed library against its
# installed headers and pkg-config file, linked shared and (with
# `pkg-config --static`) statically, and run each.  Also: libhwbp depends
# on nothing but the C library, libhwbp-sim on libhwbp.
set -euo pipefail
stage=$1
export PKG_CONFIG_PATH="$stage/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# Where the libraries are, as their .pc file says (lib, or Debian's
# lib/<multiarch triplet> of a package).
libdir=$(pkg-config --variable=libdir hwbp)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/hwbp.c" <<'C'
#include <hwbp/hwbp.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct hwbp_cpu cpu;
	struct hwbp_plan p;
	struct hwbp_request r = { 0x1001, 13, HWBP_RW, HWBP_SCOPE_USER, 0 };

	if (strcmp(hwbp_version(), HWBP_VERSION_STRING) != 0)
		return 1;
	if (hwbp_cpu_preset("cortex-a57", &cpu) || hwbp_plan(&cpu, &r, 0, &p))
		return 1;
	printf("hwbp: pieces %u\n", p.n);
	return p.n == 2 ? 0 : 1;
}
C
cat > "$tmp/hwbp-sim.c" <<'C'
#include <hwbp/sim.h>
#include <stdio.h>
#include <string.h>
static const char file[] =
	"cpu x86_64\n"
	"watch a B+0x10 4 w\n"
	"write B+0x12 1\n"
	"expect hit a\n"
	"write B+0x20 1\n"
	"expect none\n";
int main(void)
{
	struct hwbp_scenario_opts o;
	struct hwbp_scenario_stats st;
	char err[256];
	int ret;

	memset(&o, 0, sizeof(o));
	memset(&st, 0, sizeof(st));
	o.profile = HWBP_SIM_SDM;
	o.out = stdout;
	ret = hwbp_scenario_run("mem.hws", file, sizeof(file) - 1, &o, &st, err, sizeof(err));
	printf("hwbp-sim: run %d, %u expectations held, %u did not\n", ret, st.passed, st.failed);
	return ret == 0 && st.passed == 2 && st.failed == 0 ? 0 : 1;
}
C
cat > "$tmp/hwbp-trace.c" <<'C'
#include <hwbp/trace.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	struct hwbp_symtab *t;
	const struct hwbp_sym *s;
	int err = 0, n;

	(void)argc;
	t = hwbp_symtab_new(&err);
	if (!t)
		return 1;
	/* The symbol loader (libelf): this program's own symbols. */
	n = hwbp_symtab_load_elf(t, argv[0], 0);
	if (n <= 0 || hwbp_symtab_finish(t))
		return 1;
	s = hwbp_symtab_find(t, "main");
	printf("hwbp-trace: %d symbols, main %s\n", n, s ? "found" : "missing");
	hwbp_symtab_free(t);
	return s ? 0 : 1;
}
C
fail=0
for lib in hwbp hwbp-sim hwbp-trace; do
  c="$tmp/$lib.c"
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror "$c" -o "$tmp/$lib-shared" $(pkg-config --cflags --libs "$lib")
  LD_LIBRARY_PATH="$libdir" "$tmp/$lib-shared" || { echo "$lib: shared consumer FAILED"; fail=1; }
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror -static "$c" -o "$tmp/$lib-static" \
    $(pkg-config --static --cflags --libs "$lib")
  "$tmp/$lib-static" || { echo "$lib: static consumer FAILED"; fail=1; }
  if readelf -d "$tmp/$lib-static" 2>/dev/null | grep -q NEEDED; then
    echo "$lib: the static consumer still needs shared libraries"; fail=1
  fi
done
# One direction of dependency, visible in the shared libraries.
needed() { readelf -d "$libdir/lib$1.so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' '; }
echo "libhwbp needs: $(needed hwbp)"
echo "libhwbp-sim needs: $(needed hwbp-sim)"
echo "libhwbp-trace needs: $(needed hwbp-trace)"
case " $(needed hwbp)" in *" libc.so"*) ;; *) echo "libhwbp: expected only the C library"; fail=1 ;; esac
[ "$(needed hwbp | wc -w)" -eq 1 ] || { echo "libhwbp depends on more than the C library"; fail=1; }
case "$(needed hwbp-sim)" in *libhwbp.so.0*) ;; *) echo "libhwbp-sim does not need libhwbp"; fail=1 ;; esac
case "$(needed hwbp-sim)" in *elf*|*hwbp-trace*) echo "libhwbp-sim reaches up"; fail=1 ;; esac
exit $fail
