#!/usr/bin/env bash
# Write path figures of issue #11 goal 5 (see BENCHMARKS.md "Stream processor", "Write path"):
# proposal records of the processor and write requests of the writer per million flows over a stable
# peer set, counted by a real kube-apiserver (apiserver_request_total and an audit log), and how often
# one proposal's status (its evidence) is written per evidence flush interval.
# cli/src/test/.../pipeline/WritePathBenchmark runs the embedded broker, the kube-apiserver of
# hack/tools (NE_TOOLS_DIR, default ~/.cache/network-enforcer/tools) prepared like the chart, the
# stream processor and the writer. BENCH_WRITER_FLOWS (default 200000) flows are sent over
# BENCH_WRITER_SECONDS (default 30); BENCH_WRITER_FLUSH_SECONDS (default 5) is the evidence flush interval.
# The API server's audit log of the run (writes only) is kept in cli/target/bench-writer-audit.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NE_TOOLS_DIR=${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}
flows=${BENCH_WRITER_FLOWS:-200000}
seconds=${BENCH_WRITER_SECONDS:-30}
flush=${BENCH_WRITER_FLUSH_SECONDS:-5}
./mvnw -B -ntp -q -o -pl cli -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath >&2
# Run from a copy of the classes, so a build in this checkout during the run changes nothing.
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
cp -r cli/target/test-classes "$classes/cli-tests"
cp -r cli/target/classes "$classes/cli"
cp="$classes/cli-tests:$classes/cli"
for entry in $(tr ':' '\n' < cli/target/bench.classpath); do
  case "$entry" in
    */target/classes)
      module=$(basename "$(dirname "$(dirname "$entry")")")
      cp -r "$entry" "$classes/$module"
      cp="$cp:$classes/$module" ;;
    *) cp="$cp:$entry" ;;
  esac
done
log=cli/target/bench-writer.log
# Everything the JVM prints goes to the log; the figures to stdout.
figures='^[a-z][a-zA-Z0-9 /()=.,-]+: [0-9.-]+$'
java -Xmx1g -cp "$cp" io.kubewarden.networkenforcer.pipeline.WritePathBenchmark "$flows" "$seconds" "$flush" \
  cli/target/bench-writer-audit.log \
  > "$log" 2>&1 || { echo "writer benchmark failed, see $log" >&2; tail -20 "$log" >&2; exit 1; }
grep -E "$figures" "$log"
