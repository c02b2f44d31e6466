#!/usr/bin/env bash
# tests/trace/stacks_test.sh HWBP: hwbp trace --stack and --folded on the
# demo, every count derived from the demo's definition (tracer/backends/replay/demo.c):
# ROUNDS 1200, a step runs when round % every == 0, and paths[] gives each
# function's callers; a function with two paths takes them in turn (its
# k-th run, k = round / every, through path k % 2).  The histogram's rows,
# the folded file, the text lines and CTF (read back by babeltrace2), the
# depth cut, the overrun per stack, and the errors.
set -uo pipefail
hwbp=$1
command -v babeltrace2 >/dev/null || { echo "babeltrace2 is missing (scripts/deps installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

runs() { echo $(( (1200 - 1) / $1 + 1 )); }
first() { echo $(( ($(runs "$1") + 1) / 2 )); }   # path 0 of a two-path step
second() { echo $(( $(runs "$1") / 2 )); }        # path 1

# The demo's jiffies accesses: "KIND COUNT STACK", the stack innermost
# first (the function, then paths[]'s callers), from steps[] and paths[],
# in the order of their first hits: round 0 runs every step, in the
# steps' order, each through its first path; the second paths come at the
# second run (get_jiffies_64 and mod_timer in round 2, schedule_timeout in
# round 3).
hr="tick_sched_timer <- __hrtimer_run_queues <- hrtimer_interrupt"
kt="kthread <- ret_from_fork"
wq="worker_thread <- $kt"
jiffies_rows() {
  cat <<EOF
W $(runs 1) do_timer <- tick_do_update_jiffies64 <- $hr
R $(runs 1) tick_do_update_jiffies64 <- $hr
R $(first 2) get_jiffies_64 <- rcu_gp_kthread <- $kt
R $(runs 5) msleep <- $wq
R $(first 3) schedule_timeout <- msleep <- $wq
R $(runs 7) process_timeout <- run_timer_softirq <- __do_softirq
R $(first 2) mod_timer <- neigh_periodic_work <- $wq
R $(runs 11) add_timer <- blk_mq_timeout_work <- $wq
R $(runs 13) round_jiffies
R $(runs 17) wait_for_completion_timeout
R $(runs 19) neigh_periodic_work
R $(runs 23) __ratelimit
R $(runs 29) time_out_leases
R $(runs 31) dev_watchdog
R $(runs 37) rcu_gp_kthread <- $kt
R $(runs 5) calc_global_load <- tick_do_update_jiffies64 <- $hr
R $(runs 41) usleep_range_state
R $(runs 43) blk_mq_timeout_work
R $(runs 47) tcp_write_timer_handler
R $(runs 53) kernel_clone <- __do_sys_clone <- do_syscall_64
R $(second 2) get_jiffies_64 <- msleep <- $wq
R $(second 2) mod_timer <- dev_watchdog <- run_timer_softirq <- __do_softirq
R $(second 3) schedule_timeout <- wait_for_completion_timeout <- $wq
EOF
}

# The histogram's rows as "KIND COUNT STACK" (the Function column holds
# spaces: everything between the Symbol and the Counter), sorted.
table_rows() {
  awk 'NR > 1 && $1 ~ /^[RWX?]+$/ { s = $3; for (i = 4; i < NF; i++) s = s " " $i; print $1, $NF, s }' "$1" | sort
}
# Counts never increase down the table.
in_count_order() {
  awk 'NR > 1 && $1 ~ /^[RWX?]+$/ { if (seen && $NF > last) bad = 1; last = $NF; seen = 1 } END { exit bad }' "$1"
}

# 1. Every stack of jiffies (32 entries hold the 23): the rows, exactly.
"$hwbp" trace --demo --stack -e jiffies:rw- --hist-entries 32 >"$tmp/all" 2>"$tmp/err" ||
  bad "--stack --hist-entries 32 failed: $(cat "$tmp/err")"
jiffies_rows | sort >"$tmp/want"
table_rows "$tmp/all" >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || { bad "--stack rows differ from the demo's:"; diff "$tmp/want" "$tmp/got"; }
in_count_order "$tmp/all" || bad "--stack rows are not most hits first"
grep -qx 'jiffies: 23 stacks of 20 functions, overrun 0' "$tmp/all" || bad "summary: $(tail -1 "$tmp/all")"
[ -s "$tmp/err" ] && bad "histogram mode printed '$(cat "$tmp/err")'"

# 2. The default 16 entries: the first 16 stacks to hit have entries;
# every other stack's hits are the overrun, exactly (the four functions
# past the 16th, and the second paths).
"$hwbp" trace --demo --stack -e jiffies:rw- >"$tmp/16" 2>"$tmp/err" || bad "--stack failed: $(cat "$tmp/err")"
jiffies_rows | head -16 | sort >"$tmp/want16"
table_rows "$tmp/16" >"$tmp/got16"
cmp -s "$tmp/want16" "$tmp/got16" || { bad "16 entries: rows differ:"; diff "$tmp/want16" "$tmp/got16"; }
over=$(jiffies_rows | tail -n +17 | awk '{ s += $2 } END { print s }')
grep -qx "jiffies: 16 stacks of 16 functions, overrun $over" "$tmp/16" ||
  bad "16 entries: '$(tail -1 "$tmp/16")', want overrun $over"

# 3. The depth cut: --stack=1 keeps each stack's first caller only; the
# counts are those of the same rows cut.
"$hwbp" trace --demo --stack=1 -e jiffies:rw- --hist-entries 32 >"$tmp/d1" 2>"$tmp/err" || bad "--stack=1 failed"
jiffies_rows | awk '{ s = $3; if (NF > 4) s = s " " $4 " " $5; print $1, $2, s }' | sort >"$tmp/want1"
table_rows "$tmp/d1" >"$tmp/got1"
cmp -s "$tmp/want1" "$tmp/got1" || { bad "--stack=1 rows differ:"; diff "$tmp/want1" "$tmp/got1"; }

# 4. --folded: the same rows, frames outermost first after the root frame
# "WATCH [KIND]", then the count; in the table's order.  It implies --stack.
"$hwbp" trace --demo --folded "$tmp/j.folded" -e jiffies:rw- -e total_forks:-w- --hist-entries 32 \
  >"$tmp/fh" 2>"$tmp/err" || bad "--folded failed: $(cat "$tmp/err")"
{ jiffies_rows | awk '{ n = split($0, w, " <- "); sub(/^[RW] [0-9]+ /, "", w[1]);
    s = ""; for (i = n; i >= 1; i--) s = s ";" w[i]; print "jiffies [" $1 "]" s " " $2 }'
  echo "total_forks [W];do_syscall_64;__do_sys_clone;kernel_clone $(runs 6)"; } | sort >"$tmp/wantf"
sort "$tmp/j.folded" >"$tmp/gotf"
cmp -s "$tmp/wantf" "$tmp/gotf" || { bad "--folded differs from the demo's stacks:"; diff "$tmp/wantf" "$tmp/gotf"; }
awk '{ if (NR > 1 && $NF > last) bad = 1; last = $NF } END { exit bad }' "$tmp/j.folded" ||
  bad "--folded is not most hits first"
grep -q 'kernel_clone <- __do_sys_clone <- do_syscall_64' "$tmp/fh" || bad "--folded without the table"
# its lines are the table's rows, in the table's order
awk 'NR > 1 && $1 ~ /^[RWX?]+$/ { print $NF }' "$tmp/fh" >"$tmp/tcounts"
awk '{ print $NF }' "$tmp/j.folded" >"$tmp/fcounts"
cmp -s "$tmp/tcounts" "$tmp/fcounts" || bad "--folded is not in the table's order"

# 5. Trace mode, text: each line ends with its callers, "<- FUNC+0xOFF",
# the return address at the demo's call site of (caller, callee): 0x280 +
# 8 * the callee's index in funcs[] + 5.
off() { printf '0x%x' $((0x280 + 8 * $1 + 5)); }   # callee index
"$hwbp" trace --demo --stack -e jiffies:rw- --trace "$tmp/t.txt" 2>"$tmp/terr" || bad "--stack --trace failed"
want="  0            1 jiffies+0x0 W do_timer <- tick_do_update_jiffies64+$(off 0) <- tick_sched_timer+$(off 1) <- __hrtimer_run_queues+$(off 26) <- hrtimer_interrupt+$(off 27)"
[ "$(head -1 "$tmp/t.txt")" = "$want" ] || bad "first line '$(head -1 "$tmp/t.txt")', want '$want'"
want="  1            9 jiffies+0x0 R round_jiffies"
[ "$(sed -n 9p "$tmp/t.txt")" = "$want" ] || bad "line 9 '$(sed -n 9p "$tmp/t.txt")', want '$want'"
# every stack as often as the histogram counts it (offsets dropped)
sed 's/+0x[0-9a-f]*//g' "$tmp/t.txt" | awk '{ s = $5; for (i = 6; i <= NF; i++) s = s " " $i; print $4, s }' |
  sort | uniq -c | awk '{ k = $2; $1 = $1; c = $1; $1 = ""; $2 = ""; sub(/^  /, ""); print k, c, $0 }' | sort >"$tmp/tstacks"
cmp -s "$tmp/want" "$tmp/tstacks" || { bad "text lines' stacks differ from the demo's:"; diff "$tmp/want" "$tmp/tstacks"; }
n=$(wc -l <"$tmp/t.txt")
want="hwbp: trace: $n events produced, $n recorded, 0 lost
hwbp: trace: 23 stacks held (at most 4096 per CPU), 0 events without theirs"
[ "$(cat "$tmp/terr")" = "$want" ] || bad "trace summary '$(cat "$tmp/terr")', want '$want'"
# without --stack the lines are as before
"$hwbp" trace --demo -e jiffies:rw- --trace "$tmp/plain.txt" 2>/dev/null
sed 's/ <- .*//' "$tmp/t.txt" | cmp -s - "$tmp/plain.txt" || bad "--stack changed the lines before their callers"

# 6. CTF: the same callers, as babeltrace2 reads them.
"$hwbp" trace --demo --stack -e jiffies:rw- --trace "$tmp/ctf" --format ctf 2>"$tmp/cerr" || bad "CTF --stack failed"
babeltrace2 "$tmp/ctf" >"$tmp/bt" 2>"$tmp/bterr" || bad "babeltrace2 failed: $(cat "$tmp/bterr")"
first=$(head -1 "$tmp/bt")
for w in 'old = 0x0, stack = 1, ncallers = 4, callers = [ [0] = 0xFFFFFFFF81000685, [1] = 0xFFFFFFFF81006A8D,' \
         "caller_names = [ [0] = \"tick_do_update_jiffies64+$(off 0)\", [1] = \"tick_sched_timer+$(off 1)\","; do
  [[ $first == *"$w"* ]] || bad "CTF first event lacks '$w': $first"
done
# every event's function and callers, as the text line has them
sed -n 's/.* func = "\([^"]*\)".*caller_names = \[\(.*\)\] }$/\1|\2/p' "$tmp/bt" |
  sed 's/ \[[0-9]*\] = "\([^"]*\)",\{0,1\}/ <- \1/g; s/| *$//; s/|//; s/ $//' >"$tmp/bt.stacks"
awk '{ s = $5; for (i = 6; i <= NF; i++) s = s " " $i; print s }' "$tmp/t.txt" >"$tmp/t.stacks"
cmp -s "$tmp/t.stacks" "$tmp/bt.stacks" || { bad "CTF callers differ from the text's:"; diff "$tmp/t.stacks" "$tmp/bt.stacks" | head -5; }
[ "$(grep -c ' hwbp_hit: ' "$tmp/bt")" -eq "$n" ] || bad "CTF holds $(grep -c ' hwbp_hit: ' "$tmp/bt") events, not $n"
"$hwbp" trace --demo -e jiffies:rw- --trace "$tmp/ctf0" --format ctf 2>/dev/null
grep -q ncallers "$tmp/ctf0/metadata" && bad "CTF without --stack declares stack fields"

# 7. Errors: one line naming the errno, exit 2, no file left behind.
exact() {
  local want=$1 text=$2; shift 2
  "$hwbp" trace "$@" >/dev/null 2>"$tmp/x.err"; local st=$?
  [ "$st" -eq "$want" ] && [ "$(cat "$tmp/x.err")" = "$text" ] ||
    bad "trace $*: status $st (want $want), stderr '$(cat "$tmp/x.err")' (want '$text')"
}
exact 2 "hwbp: trace: --stack 0: callers per hit are 1..64: ERANGE" --demo --stack=0
exact 2 "hwbp: trace: --stack 65: callers per hit are 1..64: ERANGE" --demo --stack=65
exact 2 "hwbp: trace: --stack 99999999999999999999: callers per hit are 1..64: ERANGE" --demo --stack=99999999999999999999
exact 2 "hwbp: trace: bad --stack 'x' (callers per hit: 1..64): EINVAL" --demo --stack=x
exact 2 "hwbp: trace: bad --stack '' (callers per hit: 1..64): EINVAL" --demo --stack=
exact 2 "hwbp: trace: --stack given twice" --demo --stack --stack=4
exact 2 "hwbp: trace: unexpected argument '4' (the depth is --stack=N)" --demo --stack 4
exact 2 "hwbp: trace: --folded needs a value" --demo --folded
exact 2 "hwbp: trace: --folded applies only to the histogram (not with --trace): EINVAL" \
  --demo --folded "$tmp/no.folded" --trace -
[ -e "$tmp/no.folded" ] && bad "a refused --folded made its file"
exact 2 "hwbp: trace: --folded '$tmp/j.folded' exists (the file is always made new): EEXIST" \
  --demo --folded "$tmp/j.folded"
ln -s "$tmp/target" "$tmp/link"
exact 2 "hwbp: trace: --folded '$tmp/link' exists (the file is always made new): EEXIST" \
  --demo --folded "$tmp/link"
[ -e "$tmp/target" ] && bad "--folded followed a symlink"
exact 2 "hwbp: trace: cannot write --folded '$tmp/none/f': ENOENT" --demo --folded "$tmp/none/f"
exact 2 "hwbp: trace: cannot write --folded '$tmp/j.folded/f': ENOTDIR" --demo --folded "$tmp/j.folded/f"
exact 2 "hwbp: trace: --stack: --backend lackey sees no call stacks: EOPNOTSUPP" \
  --lackey /dev/null --elf "$hwbp" --stack
exact 2 "hwbp: trace: --folded (call stacks): --backend lackey sees no call stacks: EOPNOTSUPP" \
  --lackey /dev/null --elf "$hwbp" --folded "$tmp/l.folded"
[ -e "$tmp/l.folded" ] && bad "a refused --folded (lackey) made its file"
# a run that fails after the file was made: no file left
"$hwbp" trace --demo -e jiffies/4096:rw- --folded "$tmp/failed.folded" >/dev/null 2>&1
[ -e "$tmp/failed.folded" ] && bad "a failed run left its --folded file"
# --sort stack is --stack (its rows exactly, in the same order)
"$hwbp" trace --demo --sort stack -e jiffies:rw- >"$tmp/sortstack" 2>"$tmp/err" ||
  bad "--sort stack failed: $(cat "$tmp/err")"
cmp -s "$tmp/sortstack" "$tmp/16" || bad "--sort stack differs from --stack"

[ $fail -eq 0 ] && echo "stacks: histogram, folded, text, CTF, depth, overrun, errors: OK"
exit $fail
