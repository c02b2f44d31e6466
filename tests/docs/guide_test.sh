#!/usr/bin/env bash
# tests/docs/guide_test.sh HWBP KIND SRC PAGE...: run the examples of the
# pages (SRC/PAGE, e.g. docs/guide.md) that are marked for KIND and compare
# what each command prints with what the page shows, so that a page cannot
# go stale: a change of hwbp's output fails here until the page says it.
#
# Marks.  An example is a fenced block right after a marker line:
#   <!-- guide-test: host -->   runs on any host (the simulator, lackey,
#                               qemu-x86, hwbp sim, plan, encode...)
#   <!-- guide-test: host needs=valgrind -->  the same, when the
#                               programs named (comma-separated) are
#                               installed; needs=qemu-x86 when
#                               qemu-system-x86_64 is and this build made
#                               the demo kernel (HWBP_DATADIR); libdw and
#                               bpf when this hwbp was built with them
#                               (HWBP_GUIDE_LIBDW=1, HWBP_GUIDE_BPF=1);
#                               root; else the block is skipped, and the
#                               count says so (the tests of tests/trace/
#                               fail or skip without them, as each decides)
#   <!-- guide-test: hostbp --> needs this host's debug registers (ptrace,
#                               perf, bpf on a process): KIND hostbp, the
#                               meson suite 'hostbp', run through
#                               tests/host/needs_bp.sh (skipped where they
#                               do not fire; scripts/guest-hostbp runs it
#                               in the x86_64 guest)
#   <!-- guide-test: guest -->  root on the x86_64 guest's kernel (Debian's
#                               6.1 under QEMU TCG): run by KIND hostbp
#                               only there (scripts/guest sets HWBP_GUEST),
#                               since another kernel's functions and
#                               counts differ
#   <!-- guide-test: none (REASON) -->  never run (a module, a real
#                               kernel's root, a download)
# A fenced block with a "$ " (or "# hwbp ") line and no marker fails the
# test: every example is either run or says why not.
#
# Blocks.  A line starting with "$ " (or "# ", a root prompt) is a
# command, continued on the next line while it ends with "\"; the lines
# up to the next command are what it prints, standard output and error as
# they interleave on a terminal, exactly as the page shows them (an
# output line cannot start with "$ " or "# ").  Where a field varies (a
# timestamp, a thread id, an address) the page writes "…" (U+2026): in a
# line it stands for one or more characters; a line that is only "…"
# stands for any number of lines (rows left out).  Every command must
# exit 0, as bash at a prompt counts it (a pipeline's status is its last
# command's: `hwbp ... | head` ends hwbp with SIGPIPE, as on a terminal); a
# page that shows a failure shows its status (`; echo "exit $?"`).
#
# Where.  Each command runs under bash -c in one temporary
# directory per page, which holds links to SRC's top-level entries (so a
# page's tests/..., docs/... paths hold, as in a clone) and what the
# commands make, with `hwbp` on PATH being HWBP.  The pages' cc commands
# are not run: each must be one of these, and the program the build made
# with the same flags (tests/docs/meson.build) is copied to its name:
#   cc -O0 -g -o prog tests/trace/lackey_prog.c                 $HWBP_GUIDE_PROG
#   cc -O0 -g -pthread -o tls_prog tests/trace/tls_prog.c       $HWBP_GUIDE_TLS_PROG
#   cc -O1 -fomit-frame-pointer -g -o stack_prog_nofp tests/trace/stack_prog.c
#                                                               $HWBP_GUIDE_STACK_PROG
#   cc -o kwork tests/trace/kwork.c                             $HWBP_GUIDE_KWORK
#
# Output: a line per example (its page and line), a diff for each
# mismatch, then "guide: N examples run, M compared exactly, K with
# placeholders" (and the ones skipped or not of KIND).  Exit 0 when every
# example of KIND ran and matched; 1 on a mismatch, an unmarked or
# malformed block, or no example of KIND at all (a page whose marks were
# lost must not pass by running nothing).
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: guide_test.sh HWBP KIND SRC PAGE..." >&2; exit 1; }
hwbp=$1 kind=$2 src=$3
shift 3
case $kind in host|hostbp) ;; *) echo "guide: KIND is host or hostbp, not '$kind'" >&2; exit 1 ;; esac
hwbp=$(cd "$(dirname "$hwbp")" && pwd)/$(basename "$hwbp")
src=$(cd "$src" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/blocks"
# `hwbp` on PATH: HWBP with its standard output line-buffered, as on the
# terminal the pages show (to a file, stdio would hold the histogram back
# until exit and the notes on standard error would come first).  stdbuf
# preloads a library: HWBP is a dynamically linked build here.
printf '#!/bin/sh\nexec stdbuf -oL %q "$@"\n' "$hwbp" > "$tmp/bin/hwbp"
chmod +x "$tmp/bin/hwbp"
export PATH="$tmp/bin:$PATH"

# The build's programs for the pages' cc commands.
declare -A built=(
  ['cc -O0 -g -o prog tests/trace/lackey_prog.c']=HWBP_GUIDE_PROG
  ['cc -O0 -g -pthread -o tls_prog tests/trace/tls_prog.c']=HWBP_GUIDE_TLS_PROG
  ['cc -O1 -fomit-frame-pointer -g -o stack_prog_nofp tests/trace/stack_prog.c']=HWBP_GUIDE_STACK_PROG
  ['cc -o kwork tests/trace/kwork.c']=HWBP_GUIDE_KWORK
)

# Split the pages into blocks: blocks/N.info holds "KIND PAGE LINE NEEDS",
# blocks/N.txt the block's lines, its indentation removed.  awk says what
# is wrong with a page (exit 1) rather than skipping a block silently.
for page in "$@"; do
  [ -f "$src/$page" ] || { echo "guide: no page $src/$page"; exit 1; }
  awk -v page="$page" -v dir="$tmp/blocks" -v start="$(find "$tmp/blocks" -name '*.info' | wc -l)" '
    function fail(msg) { printf "guide: %s:%d: %s\n", page, NR, msg; bad = 1 }
    BEGIN { n = start }
    inblock {
      line = $0
      if (line ~ "^" indent "```[[:space:]]*$") {       # the closing fence
        if (!marked && hasprompt) fail("an example (a \"$ \" line) with no guide-test mark, from line " open)
        inblock = 0; close(out); next
      }
      if (substr(line, 1, length(indent)) == indent) line = substr(line, length(indent) + 1)
      if (line ~ /^(\$ |# hwbp )/) hasprompt = 1
      if (marked) print line > out
      next
    }
    /^[[:space:]]*<!-- guide-test:/ {
      if (pending) fail("a guide-test mark with no block after it")
      m = $0
      sub(/^[[:space:]]*<!-- guide-test:[[:space:]]*/, "", m)
      if (m !~ /-->[[:space:]]*$/) { fail("a guide-test mark on more than one line"); next }
      sub(/[[:space:]]*-->[[:space:]]*$/, "", m)
      split(m, w, /[[:space:]]+/)
      mkind = w[1]; needs = ""
      if (mkind == "none") {
        if (m !~ /^none \(.+\)$/) fail("\"none\" needs a reason in parentheses")
      } else if (mkind == "host" || mkind == "hostbp" || mkind == "guest") {
        for (i = 2; i in w; i++) {
          if (w[i] ~ /^needs=[a-z0-9_.+-]+(,[a-z0-9_.+-]+)*$/) needs = substr(w[i], 7)
          else fail("unknown word in the mark: " w[i])
        }
      } else fail("unknown kind \"" mkind "\" (host, hostbp, guest or none)")
      pending = NR; next
    }
    /^[[:space:]]*```/ {
      indent = $0; sub(/```.*/, "", indent)
      inblock = 1; open = NR; hasprompt = 0
      marked = pending == NR - 1 && pending
      if (pending && !marked) fail("a guide-test mark not right before its block")
      pending = 0
      if (marked) {
        n++
        out = dir "/" n ".txt"
        printf "" > out
        printf "%s %s %d %s\n", mkind, page, NR, (needs == "" ? "-" : needs) > (dir "/" n ".info")
        close(dir "/" n ".info")
      }
      next
    }
    pending && NR > pending && $0 !~ /^[[:space:]]*$/ { fail("a guide-test mark not right before its block"); pending = 0 }
    END {
      if (inblock) fail("a block not closed")
      if (pending) fail("a guide-test mark with no block after it")
      exit bad
    }' "$src/$page" || exit 1
done

# need_ok NEEDS: whether what a block needs is here ("-" for nothing).
need_ok() {
  local n
  [ "$1" = - ] && return 0
  for n in ${1//,/ }; do
    case $n in
      qemu-x86)
        if ! command -v qemu-system-x86_64 > /dev/null || [ ! -f "${HWBP_DATADIR:-/nonexistent}/qemu-x86/kernel.elf" ]; then
          why="qemu-system-x86_64 or this build's demo kernel (HWBP_DATADIR) is missing"; return 1
        fi ;;
      libdw) [ "${HWBP_GUIDE_LIBDW:-}" = 1 ] || { why="this hwbp is built without libdw"; return 1; } ;;
      bpf) [ "${HWBP_GUIDE_BPF:-}" = 1 ] || { why="this hwbp is built without its BPF program"; return 1; } ;;
      root) [ "$(id -u)" = 0 ] || { why="not root"; return 1; } ;;
      *) command -v "$n" > /dev/null || { why="$n is not installed"; return 1; } ;;
    esac
  done
}

# match EXPECTED ACTUAL: exact (cmp), or the placeholders' pattern: the
# page's text quoted, each "…" in a line any run of characters, a "…"
# line any run of lines.  perl matches bytes: "…" is its three UTF-8
# bytes.
match() {
  if ! grep -q '…' "$1"; then cmp -s "$1" "$2"; return; fi
  perl -e '
    my ($want, $got) = @ARGV;
    local $/;
    open(my $w, "<", $want) or die; my $pat = <$w>;
    open(my $g, "<", $got) or die; my $text = <$g>;
    my $re = "";
    $pat =~ s/\n\z//;
    for my $line (split /\n/, $pat, -1) {
      if ($line eq "\xe2\x80\xa6") { $re .= "(?:[^\\n]*\\n)*?"; next; }
      $re .= join("[^\\n]+?", map { quotemeta } split(/\xe2\x80\xa6/, $line, -1)) . "\\n";
    }
    exit($text =~ /\A$re\z/ ? 0 : 1);' "$1" "$2"
}

# run_block N: run block N's commands in the work directory; 0 when each
# printed what the page shows.
run_block() {
  local txt=$tmp/blocks/$1.txt line cmd="" ok=0 i=0
  # Commands and their expected output, split into files cmd.K, want.K.
  while IFS= read -r line || [ -n "$line" ]; do
    if [ -n "$cmd" ]; then                       # a continued command
      cmd+=$'\n'$line
      [[ $line == *\\ ]] || { printf '%s' "$cmd" > "$tmp/cmd.$i"; cmd=""; }
      continue
    fi
    if [[ $line == '$ '* || $line == '# '* ]]; then
      i=$((i + 1)); : > "$tmp/want.$i"
      cmd=${line:2}
      if [[ $cmd != *\\ ]]; then printf '%s' "$cmd" > "$tmp/cmd.$i"; cmd=""; fi
      continue
    fi
    [ "$i" -gt 0 ] || { echo "  output before the first command: $line"; return 1; }
    printf '%s\n' "$line" >> "$tmp/want.$i"
  done < "$txt"
  [ "$i" -gt 0 ] || { echo "  no command in the block"; return 1; }
  local k c st var
  for k in $(seq "$i"); do
    c=$(cat "$tmp/cmd.$k")
    commands=$((commands + 1))
    if [[ $c == cc\ * || $c == gcc\ * || $c == c++\ * ]]; then
      var=${built[$c]:-}
      [ -n "$var" ] || { echo "  \$ $c"; echo "  a build command this test does not know (tests/docs/guide_test.sh lists them)"; ok=1; continue; }
      if [ -z "${!var:-}" ] || [ ! -x "${!var}" ]; then
        echo "  \$ $c"; echo "  \$$var does not name the program the build made"; ok=1; continue
      fi
      cp "${!var}" "$tmp/work/$(awk '{ for (j = 1; j < NF; j++) if ($j == "-o") print $(j + 1) }' <<< "$c")"
      [ -s "$tmp/want.$k" ] || continue
      echo "  \$ $c: a build command prints nothing here"; ok=1; continue
    fi
    st=0
    (cd "$tmp/work" && bash -c "$c") > "$tmp/got" 2>&1 < /dev/null || st=$?
    # hwbp's own diagnosis of a host departure: a debug exception without
    # its status (docs/fidelity.md), the program killed by SIGTRAP.  The
    # example cannot be compared here: skipped, said why (return 2).
    if [ "$st" = 133 ] && grep -q 'the program died of SIGTRAP' "$tmp/got"; then
      echo "  \$ $c"
      echo "  the program died of SIGTRAP: this host's hypervisor lost a debug exception's status (docs/fidelity.md)"
      return 2
    fi
    if [ "$st" -ne 0 ]; then
      echo "  \$ $c"; echo "  exit status $st (a page shows a failing command's status with echo)"; cat "$tmp/got"; ok=1; continue
    fi
    if ! match "$tmp/want.$k" "$tmp/got"; then
      echo "  \$ $c"
      if grep -q '…' "$tmp/want.$k"; then echo "  differs from the page (whose … stand for any text):"
      else echo "  differs from the page:"; fi
      diff -u --label page --label hwbp "$tmp/want.$k" "$tmp/got" | sed 's/^/  /' || true
      ok=1
    fi
    grep -q '…' "$tmp/want.$k" && placeholders=1
  done
  return $ok
}

runs=0 exact=0 patterned=0 skipped=0 other=0 fails=0 commands=0 found=0
for n in $(seq "$(find "$tmp/blocks" -name '*.info' | wc -l)"); do
  read -r bkind page lineno needs < "$tmp/blocks/$n.info"
  case $kind:$bkind in
    host:host|hostbp:hostbp) found=$((found + 1)) ;;
    hostbp:guest)
      found=$((found + 1))
      if [ -z "${HWBP_GUEST:-}" ] || [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" != 0 ]; then
        echo "skipped $page:$lineno (guest: runs in scripts/guest-hostbp's x86_64 guest only)"
        skipped=$((skipped + 1)); continue
      fi ;;
    *) other=$((other + 1)); continue ;;
  esac
  why=""
  if ! need_ok "$needs"; then
    echo "skipped $page:$lineno ($why)"; skipped=$((skipped + 1)); continue
  fi
  echo "$page:$lineno ($bkind)"
  # A fresh work directory for each page: a page's examples may build on
  # each other, never on another page's.
  if [ "$page" != "${workpage:-}" ]; then
    rm -rf "$tmp/work"; mkdir "$tmp/work"
    for f in "$src"/*; do ln -s "$f" "$tmp/work/"; done
    workpage=$page
  fi
  placeholders=0
  rb=0
  run_block "$n" || rb=$?
  if [ "$rb" = 0 ]; then
    runs=$((runs + 1))
    if [ "$placeholders" = 1 ]; then patterned=$((patterned + 1)); else exact=$((exact + 1)); fi
  elif [ "$rb" = 2 ]; then
    echo "skipped $page:$lineno (a host departure, above)"; skipped=$((skipped + 1))
  else
    echo "FAIL: $page:$lineno"; fails=$((fails + 1)); runs=$((runs + 1))
  fi
done

echo "guide: $runs examples run ($commands commands), $exact compared exactly, $patterned with placeholders;" \
  "$skipped skipped, $fails failed, $other of other kinds or not run"
[ "$found" -gt 0 ] || { echo "FAIL: no example marked for $kind in $*"; exit 1; }
[ "$fails" -eq 0 ]
