#!/usr/bin/env bash
# run.sh HWBP PROFILE DIR: every scenario file under DIR through `hwbp sim`.
set -euo pipefail
hwbp=$1 profile=$2 dir=$3
mapfile -t files < <(find "$dir" -name '*.hws' 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no scenario files under $dir"; exit 1
fi
exec "$hwbp" sim --profile "$profile" "${files[@]}"
