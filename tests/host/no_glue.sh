#!/bin/sh
# tests/host/no_glue.sh FAMILY: stands in for a test that needs this
# host's debug registers, in a Linux build for a CPU family hwbp has no
# Linux debug-register glue for (no arch/<a>/linux.c: the build links
# tracer/backends/linux/linux_none.c, and the tracer's backends refuse
# with EOPNOTSUPP).  Says SKIP with the reason and exits 77, meson's
# "skipped": such a test is counted, never passed without running.
echo "SKIP: needs hwbp's Linux debug-register glue (arch/<a>/linux.c), which this build has none of for $1: its tracer backends say EOPNOTSUPP"
exit 77
