#!/usr/bin/env bash
# Runs every benchmark piece (hack/bench/*.sh, in name order) and prints its figures, one
# "name: value" line each. Not part of the test suite; nothing here asserts a time.
# Each piece builds what it needs offline from this worktree (no mvn install).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
status=0
for piece in hack/bench/*.sh; do
  [ -x "$piece" ] || continue
  echo "# $(basename "$piece" .sh)" >&2
  if ! "$piece"; then
    echo "$(basename "$piece" .sh): FAILED" && status=1
  fi
done
exit $status
