#!/usr/bin/env bash
# History figures of issues #15 and #36 (see BENCHMARKS.md "History"): the rate of `replay` (a window
# of the flows topic read straight from the topic and learned in-process, the whole command) and of
# the processor service over the same flows, their ratio (`replay/processor ratio`), and the rate of
# `simulate` over the window, all from cli/src/test/.../replay/HistoryBenchmark on one embedded
# broker. BENCH_HISTORY_FLOWS sizes it (default 1000000: with fewer the processor's steady rate, sampled
# every 10 ms between 10 % and 90 % of the flows, is a few fetches and moves by 3x between rounds).
set -euo pipefail
cd "$(dirname "$0")/../.."
flows=${BENCH_HISTORY_FLOWS:-1000000}
./mvnw -B -ntp -q -o -pl cli -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath >&2
# Run from a copy of the classes, so a build in this checkout during the run changes nothing.
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
entries=()
for e in cli/target/test-classes cli/target/classes $(tr ':' '\n' < cli/target/bench.classpath); do
  case "$e" in
    */target/classes | */target/test-classes)
      copy="$classes/${#entries[@]}"
      cp -r "$e" "$copy"
      entries+=("$copy")
      ;;
    *) entries+=("$e") ;;
  esac
done
cp=$(IFS=:; echo "${entries[*]}")
log=cli/target/bench-history.log
java -Xmx2g -cp "$cp" io.kubewarden.networkenforcer.cli.replay.HistoryBenchmark "$flows" > "$log" 2>&1
grep -E '^[a-z][a-zA-Z0-9 /(),.-]+: [0-9.]+$' "$log"
