#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the native runner built by build.sh: canonical lines on stdout.
#   tests/native/run.sh PROGRAM
set -u
[ $# -eq 1 ] || { echo "usage: $0 PROGRAM" >&2; exit 2; }
timeout -k 5 "${HARNESS_TIMEOUT:-300}" "$1"
rc=$?
[ $rc -eq 124 ] && echo "$0: the native runner timed out" >&2
exit $rc
