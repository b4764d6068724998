#!/usr/bin/env bash
# History figures of issue #15 (see BENCHMARKS.md "History"): the rate of `replay` (a window of the
# flows topic rebuilt on its private broker, start included) and of `simulate` over a window, both
# from cli/src/test/.../replay/HistoryBenchmark on one embedded broker. BENCH_HISTORY_FLOWS sizes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
flows=${BENCH_HISTORY_FLOWS:-50000}
./mvnw -B -ntp -q -o -pl cli -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath >&2
cp="cli/target/test-classes:cli/target/classes:$(cat cli/target/bench.classpath)"
log=cli/target/bench-history.log
java -Xmx1g -cp "$cp" io.kubewarden.networkenforcer.cli.replay.HistoryBenchmark "$flows" > "$log" 2>&1
# "replay: N flows in S s = R flows/s ..." -> "replay flows/s: R"
sed -nE 's/^(replay|simulate): [0-9]+ flows in [0-9.]+ s = ([0-9.]+) flows\/s.*/\1 flows\/s: \2/p' "$log"
