#!/usr/bin/env bash
# hwbp trace -- CMD on this machine's real debug registers (ptrace and perf):
# builds tests/trace/lackey_prog.c as a PIE and runs the checks of
# linux_cli_check.sh (shared with the Linux guest stage) on it.
set -euo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O0 -g -o "$tmp/prog" "$src"
sh "$(dirname "$0")/linux_cli_check.sh" "$hwbp" "$tmp/prog"
