#!/bin/sh
# tests/host/needs_bp.sh CMD [ARG...]: run CMD, a test that needs this
# host's debug registers to fire (the meson suite 'hostbp').
#
# scripts/test runs tests/host/probe.c first and exports its answer:
#   HWBP_HOST_BP=none    the registers do not fire here (some hypervisors
#                        do not pass them through): say SKIP with the
#                        probe's line and exit 77, meson's "skipped".  The
#                        test runs in the x86_64 guest instead, where QEMU
#                        emulates them (scripts/guest-tests, 'host suites').
#   HWBP_HOST_BP=fire    they do: run the test; a test that sees no hit
#                        fails, as it must on a machine that works.
#   unset                no probe was run: run the test as it is.
# HWBP_HOST_BP_LINE is the probe's line.
if [ "${HWBP_HOST_BP:-}" = none ]; then
  echo "SKIP: ${HWBP_HOST_BP_LINE:-host debug registers: do not fire (HWBP_HOST_BP=none)}"
  exit 77
fi
exec "$@"
