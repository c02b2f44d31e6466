#!/usr/bin/env bash
# sim_memory_test.sh HWBP - `hwbp sim` streams its files: a 30 MB scenario
# runs in less than 50 MB of memory (maximum resident set, GNU time's %M),
# within 4 MB of what a 3 MB one takes (memory does not grow with the
# file), from a file and from a pipe (spooled), and every expectation of
# the file is counted: the summary's pass count is exactly the number of
# expect lines written.
set -euo pipefail
hwbp=$1
gnu_time=/usr/bin/time
limit_kb=51200     # 50 MB
slack_kb=4096      # 30 MB against 3 MB

if ! "$gnu_time" -f %M true >/dev/null 2>&1; then
  echo "FAIL: GNU time is needed at $gnu_time (Debian package 'time')"
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hwbp-sim-mem.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# A block of 5 expectations that leaves the simulator as it found it, so
# that it can repeat: a watch, a hit on it, a read it ignores, its removal.
block='watch v B+0x40 8 w
expect ok
write B+0x44 2           # inside the watch
expect hit v
expect hit dr0
read B+0x44 2            # a write watch ignores loads
expect none
unwatch v
expect ok
'
per_block=5

# FILE MB: the file of about MB megabytes; prints its expect count.
generate() {
  local file=$1 mb=$2 n
  n=$(( mb * 1000000 / ${#block} ))
  awk -v n="$n" -v b="$block" 'BEGIN { printf "cpu x86_64\n"; for (i = 0; i < n; i++) printf "%s", b }' > "$file"
  echo $(( n * per_block ))
}

# NAME EXPECTS FILE HOW: `hwbp sim FILE` (HOW file), or `hwbp sim -` with
# FILE piped in (HOW pipe), under GNU time; its summary must count every
# expectation; sets rss to the maximum resident set in KB.
measure() {
  local name=$1 want=$2 file=$3 how=$4 out secs
  if [ "$how" = pipe ]; then
    out=$(cat "$file" | "$gnu_time" -o "$tmp/time" -f '%M %e' "$hwbp" sim - 2>"$tmp/err") || true
  else
    out=$("$gnu_time" -o "$tmp/time" -f '%M %e' "$hwbp" sim "$file" 2>"$tmp/err") || true
  fi
  if [ "$out" != "$want passed, 0 failed" ] || [ -s "$tmp/err" ]; then
    echo "FAIL: $name: summary '$out', want '$want passed, 0 failed'; stderr: $(head -c 300 "$tmp/err")"
    fail=1
  fi
  read -r rss secs < <(tail -n 1 "$tmp/time")
  echo "$name: max RSS $rss KB, $secs s"
}

n3=$(generate "$tmp/s3.hws" 3)
n30=$(generate "$tmp/s30.hws" 30)
echo "3 MB: $(stat -c %s "$tmp/s3.hws") bytes, $n3 expectations; 30 MB: $(stat -c %s "$tmp/s30.hws") bytes, $n30"

measure "3 MB file" "$n3" "$tmp/s3.hws" file
rss3=$rss
measure "30 MB file" "$n30" "$tmp/s30.hws" file
rss30=$rss
# From a pipe the first pass copies the lines to a temporary file.
measure "30 MB pipe" "$n30" "$tmp/s30.hws" pipe
rss30p=$rss

for r in "30 MB file:$rss30" "30 MB pipe:$rss30p"; do
  name=${r%%:*} kb=${r##*:}
  if [ "$kb" -ge "$limit_kb" ]; then
    echo "FAIL: $name: max RSS $kb KB, not below $limit_kb KB"
    fail=1
  fi
  if [ "$kb" -gt $(( rss3 + slack_kb )) ]; then
    echo "FAIL: $name: max RSS $kb KB, more than $slack_kb KB over the 3 MB file's $rss3 KB"
    fail=1
  fi
done
[ "$fail" -eq 0 ] && echo "ok: 30 MB in $rss30 KB (pipe $rss30p KB), 3 MB in $rss3 KB"
exit "$fail"
