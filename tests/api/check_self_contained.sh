#!/usr/bin/env bash
# check_self_contained.sh SRCDIR - the repository documents itself: no
# file of it cites a design brief or scenario contract by the names such
# documents had before the project wrote its own (docs/design.md and
# docs/scenarios.md are the references).
set -euo pipefail
cd "$1"
pattern='DESIGN(\.md| §| section)|SCENARIOS\.md'
hits=$(grep -rInE "$pattern" --exclude-dir=.git --exclude-dir='build*' --exclude-dir=.cache \
       --exclude=check_self_contained.sh . || true)
if [ -n "$hits" ]; then
  echo "references to documents that are not part of the repository:"; printf '%s\n' "$hits" | head -20
  exit 1
fi
echo "no reference to a document outside docs/"
