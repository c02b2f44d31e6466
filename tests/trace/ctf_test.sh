#!/usr/bin/env bash
# The CTF output read back by babeltrace2: the same demo run written as
# text and as CTF must give the same events (every field the text shows),
# and a run whose rings overflow must show its losses as babeltrace2's
# "discarded events", per CPU, adding up to what the CLI reports.
set -euo pipefail
hwbp=$1
command -v babeltrace2 >/dev/null || { echo "babeltrace2 is missing (scripts/deps installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# babeltrace2's text ("pretty") lines as the text format's fields:
# "CPU TS WATCH KIND FUNC" (TS from [00:00:00.000001234], a 1 GHz clock from 0).
to_fields() {
  sed -n 's/^\[\([0-9]*\):\([0-9]*\):\([0-9]*\)\.\([0-9]*\)\].* hwbp_hit: .*cpu = \([0-9]*\), bp = [0-9]*, watch = "\([^"]*\)".* kind = ( "\(.\)" .* func = "\([^"]*\)".*/\1 \2 \3 \4 \5 \6 \7 \8/p' |
    awk '{ printf "%u %u %s %s %s\n", $5, (($1 * 60 + $2) * 60 + $3) * 1000000000 + $4, $6, $7, $8 }'
}
# The text format's lines the same way (its WATCH is WATCH+0xOFF).
text_fields() {
  awk '{ w = $3; sub(/\+0x[0-9a-f]+$/, "", w); printf "%u %u %s %s %s\n", $1, $2, w, $4, $5 }'
}
# The events babeltrace2's warnings say were discarded, added up (never
# fails: a run without warnings sums to 0).
sum_discarded() {
  awk '{ for (i = 1; i < NF; i++) if ($i == "discarded" && $(i + 2) == "events") s += $(i + 1) } END { print s + 0 }'
}
# "produced recorded lost" from the CLI's summary line.
summary() {
  sed -n 's/^hwbp: trace: \([0-9]*\) events produced, \([0-9]*\) recorded, \([0-9]*\) lost$/\1 \2 \3/p' "$1"
}

# 1. One watch, nothing lost: CTF == text, event by event.
"$hwbp" trace --demo -e jiffies:rw- --trace "$tmp/hits.txt" 2> "$tmp/text.err"
"$hwbp" trace --demo -e jiffies:rw- --trace "$tmp/ctf" --format ctf 2> "$tmp/ctf.err"
for f in metadata stream_0 stream_1 stream_2 stream_3; do
  [ -f "$tmp/ctf/$f" ] || bad "no $f in the trace directory"
done
babeltrace2 "$tmp/ctf" > "$tmp/bt.txt" 2> "$tmp/bt.err" || { cat "$tmp/bt.err"; bad "babeltrace2 failed"; }
echo "babeltrace2 sample:"; head -3 "$tmp/bt.txt"
text_n=$(wc -l < "$tmp/hits.txt")
ctf_n=$(grep -c ' hwbp_hit: ' "$tmp/bt.txt" || true)
echo "text format: $text_n hits; CTF via babeltrace2: $ctf_n events"
[ "$text_n" -gt 0 ] || bad "the text run recorded nothing"
[ "$ctf_n" -eq "$text_n" ] || bad "CTF has $ctf_n events, text $text_n"
read -r p r l <<< "$(summary "$tmp/ctf.err")"
[ "$p $r $l" = "$text_n $text_n 0" ] || bad "CTF run summary '$p $r $l', expected '$text_n $text_n 0'"
first=$(head -1 "$tmp/bt.txt")
for want in '[00:00:00.000000001]' '{ cpu_id = 0 }' 'cpu = 0,' 'bp = 0,' 'watch = "jiffies"' \
            'addr = 0xFFFFFFFF82A00000' 'ip = 0xFFFFFFFF81000020' 'kind = ( "W"' \
            'kind_how = ( "sim"' 'func = "do_timer"' 'size = 8,' 'tid = 0,' 'vflags = 0,'; do
  [[ $first == *"$want"* ]] || bad "first event lacks '$want': $first"
done
to_fields < "$tmp/bt.txt" > "$tmp/bt.fields"
text_fields < "$tmp/hits.txt" > "$tmp/text.fields"
cmp -s "$tmp/bt.fields" "$tmp/text.fields" || {
  bad "CTF and text events differ (cpu ts watch kind func):"; diff "$tmp/text.fields" "$tmp/bt.fields" | head -5; }
grep -q 'discarded' "$tmp/bt.err" && bad "babeltrace2 reports discarded events in a lossless run"

# 2. The demo's four default watches: names by bp, every breakpoint present.
"$hwbp" trace --demo --trace "$tmp/all.txt" 2> /dev/null
"$hwbp" trace --demo --trace "$tmp/ctf4" --format ctf 2> /dev/null
babeltrace2 "$tmp/ctf4" > "$tmp/bt4.txt"
to_fields < "$tmp/bt4.txt" > "$tmp/bt4.fields"
text_fields < "$tmp/all.txt" > "$tmp/all.fields"
cmp -s "$tmp/bt4.fields" "$tmp/all.fields" || bad "four watches: CTF and text events differ"
for w in jiffies pid_max nr_threads total_forks; do
  grep -q "watch = \"$w\"" "$tmp/bt4.txt" || bad "no event of watch $w"
done

# 3. Small rings: events are lost; babeltrace2 reports them, per CPU.
for mode in "" --overwrite; do
  m=${mode:-discard}
  rm -rf "$tmp/lossy"
  # shellcheck disable=SC2086
  "$hwbp" trace --demo -e jiffies:rw- --trace "$tmp/lossy" --format ctf --buffer-kb 1 $mode 2> "$tmp/lossy.err"
  read -r p r l <<< "$(summary "$tmp/lossy.err")"
  babeltrace2 "$tmp/lossy" > "$tmp/btl.txt" 2> "$tmp/btl.err" || bad "babeltrace2 failed on the lossy trace"
  n=$(grep -c ' hwbp_hit: ' "$tmp/btl.txt" || true)
  disc=$(sum_discarded < "$tmp/btl.err")
  echo "buffer-kb 1 ($m): produced $p, recorded $r, lost $l; babeltrace2: $n events, $disc discarded"
  [ "$l" -gt 0 ] || bad "$m: nothing lost with 1 KiB rings"
  [ "$p" -eq $((r + l)) ] || bad "$m: produced $p != recorded $r + lost $l"
  [ "$n" -eq "$r" ] || bad "$m: babeltrace2 shows $n events, the CLI recorded $r"
  [ "$disc" -eq "$l" ] || bad "$m: babeltrace2 reports $disc discarded, the CLI lost $l"
  grep -q 'may have discarded' "$tmp/btl.err" && bad "$m: a discarded count babeltrace2 could not tell"
  for c in 0 1 2 3; do
    want=$(sed -n "s/^hwbp: trace: cpu $c lost \([0-9]*\) of .*/\1/p" "$tmp/lossy.err")
    got=$(awk -v s="stream_$c\"" 'index($0, s)' "$tmp/btl.err" | sum_discarded)
    [ "${want:-0}" -eq "$got" ] || bad "$m: cpu $c lost ${want:-0}, babeltrace2 says $got"
  done
  [ -z "$mode" ] && { echo "babeltrace2 discarded-events sample:"; head -2 "$tmp/btl.err"; }
done

# 4. Usage: ctf needs a directory; a file in the way is an error, not a mess.
"$hwbp" trace --demo --trace - --format ctf > /dev/null 2>&1 && bad "--trace - --format ctf accepted"
"$hwbp" trace --demo --trace "$tmp/x" --format json > /dev/null 2>&1 && bad "--format json accepted"
: > "$tmp/afile"
"$hwbp" trace --demo --trace "$tmp/afile" --format ctf > /dev/null 2> "$tmp/usage.err" && bad "a file as the CTF directory accepted"
grep -q 'cannot write CTF' "$tmp/usage.err" || bad "no error for a file as the CTF directory"

# 5. An existing directory: a non-empty one refused unless --force, and
# --force replaces only hwbp's own earlier trace; a user's metadata, a
# symlinked one, or any other file: refused, nothing touched.
# exactly: status STATUS, stderr the one line TEXT
exact() {
  local want=$1 text=$2; shift 2
  local st=0
  "$hwbp" trace "$@" > /dev/null 2> "$tmp/x.err" || st=$?
  [ "$st" -eq "$want" ] && [ "$(cat "$tmp/x.err")" = "$text" ] ||
    bad "trace $*: status $st (want $want), stderr '$(cat "$tmp/x.err")' (want '$text')"
}
summary_line='hwbp: trace: 5264 events produced, 5264 recorded, 0 lost'
mkdir "$tmp/empty"
exact 0 "$summary_line" --demo -e jiffies:rw- --trace "$tmp/empty" --format ctf
exact 2 "hwbp: trace: CTF --trace '$tmp/empty' is a directory that is not empty (--force replaces an earlier hwbp trace there): EEXIST" \
  --demo -e jiffies:rw- --trace "$tmp/empty" --format ctf
sum0=$(cat "$tmp/empty"/* | cksum)
exact 0 "$summary_line" --demo -e jiffies:rw- --trace "$tmp/empty" --format ctf --force
[ "$(cat "$tmp/empty"/* | cksum)" = "$sum0" ] || bad "--force: the same run wrote another trace"
babeltrace2 "$tmp/empty" > /dev/null 2>&1 || bad "babeltrace2 failed on the --force trace"
# a stale wider trace's streams go with --force
: > "$tmp/empty/stream_9"
exact 0 "$summary_line" --demo -e jiffies:rw- --trace "$tmp/empty" --format ctf --force
[ -e "$tmp/empty/stream_9" ] && bad "--force left a stale stream_9"
echo keep > "$tmp/empty/notes.txt"
exact 2 "hwbp: trace: CTF --trace '$tmp/empty' holds files that are not an hwbp trace: nothing replaced: ENOTEMPTY" \
  --demo -e jiffies:rw- --trace "$tmp/empty" --format ctf --force
[ "$(cat "$tmp/empty/notes.txt")" = keep ] && [ "$(cat "$tmp/empty"/metadata "$tmp/empty"/stream_* | cksum)" = "$sum0" ] ||
  bad "a refused --force touched the directory"
# a user's metadata: neither overwritten nor deleted
mkdir "$tmp/user"
echo 'my notes' > "$tmp/user/metadata"
exact 2 "hwbp: trace: CTF --trace '$tmp/user' is a directory that is not empty (--force replaces an earlier hwbp trace there): EEXIST" \
  --demo --trace "$tmp/user" --format ctf
exact 2 "hwbp: trace: CTF --trace '$tmp/user' holds files that are not an hwbp trace: nothing replaced: ENOTEMPTY" \
  --demo --trace "$tmp/user" --format ctf --force
[ "$(cat "$tmp/user/metadata")" = 'my notes' ] && [ "$(ls "$tmp/user")" = metadata ] ||
  bad "a user's metadata was touched: $(ls "$tmp/user")"
# a symlinked metadata (to a file of the user's): never followed
mkdir "$tmp/link"
echo 'elsewhere' > "$tmp/target"
ln -s "$tmp/target" "$tmp/link/metadata"
exact 2 "hwbp: trace: CTF --trace '$tmp/link' is a directory that is not empty (--force replaces an earlier hwbp trace there): EEXIST" \
  --demo --trace "$tmp/link" --format ctf
exact 2 "hwbp: trace: CTF --trace '$tmp/link' holds files that are not an hwbp trace: nothing replaced: ENOTEMPTY" \
  --demo --trace "$tmp/link" --format ctf --force
[ "$(cat "$tmp/target")" = elsewhere ] && [ -L "$tmp/link/metadata" ] || bad "a symlinked metadata was followed"
exact 2 "hwbp: trace: --force applies only with --format ctf" --demo --trace "$tmp/t.txt" --force

[ $fail -eq 0 ] && echo "CTF round trip: OK"
exit $fail
