#!/usr/bin/env bash
# check_self_contained.sh SRCDIR - the repository documents itself: no
# file of it points at documents that are not part of it (a design brief
# or scenario contract kept elsewhere, "DESIGN §4", "../shared/...").
set -euo pipefail
cd "$1"
pattern='DESIGN(\.md| §| section)|SCENARIOS\.md|\.\./shared/'
hits=$(grep -rInE "$pattern" --exclude-dir=.git --exclude-dir='build*' --exclude-dir=.cache \
       --exclude=check_self_contained.sh . || true)
if [ -n "$hits" ]; then
  echo "references to documents outside the repository:"; printf '%s\n' "$hits" | head -20
  exit 1
fi
echo "no reference outside the repository"
