#!/usr/bin/env bash
# Churn figures of issue #36 goal 4 (see BENCHMARKS.md "Churn"): the processor on the realistic mix
# with workloads that come and go (a tenth of 2,000 Deployments replaced every simulated minute,
# short-lived workloads, the writer's ResetLearning records of those gone), from
# stream-processor/src/test/.../benchmark/ChurnBenchmark on one embedded broker. Prints the
# processor/producer ratios (realistic, churn; steady and end to end), the longest punctuation and
# commit (ms; both run inside the exactly-once transaction, aborted after 10 s) of the rate phase and
# of the memory rounds, how often a stream thread was fenced,
# then heap after GC, RSS and the keys of the learned stores after each round (`processor memory
# under churn: heap MiB round1 / roundN; store keys round1 / roundN`). BENCH_CHURN_FLOWS (flows per
# round, default 300000: five simulated minutes) and BENCH_CHURN_ROUNDS (default 6) size it;
# BENCH_CHURN_RESETS=false sends no ResetLearning for the workloads gone (the writer before it reset
# them: their state stayed);
# BENCH_CHURN_JFR=1 writes a flight recording of the whole run to stream-processor/target/churn.jfr.
set -euo pipefail
cd "$(dirname "$0")/../.."
per_round=${BENCH_CHURN_FLOWS:-300000}
rounds=${BENCH_CHURN_ROUNDS:-6}
./mvnw -B -ntp -q -o -pl stream-processor -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath >&2
# Run from a copy of the classes, so a build in this checkout during the run changes nothing.
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
cp -r stream-processor/target/test-classes "$classes/processor-tests"
cp -r stream-processor/target/classes "$classes/processor"
cp -r common/target/classes "$classes/common"
cp -r embedded-kafka/target/classes "$classes/embedded-kafka"
deps=$(tr ':' '\n' < stream-processor/target/bench.classpath | grep -v '/target/classes$' | paste -sd: -)
cp="$classes/processor-tests:$classes/processor:$classes/common:$classes/embedded-kafka:$deps"
log=stream-processor/target/bench-churn.log
jfr=()
if [ "${BENCH_CHURN_JFR:-0}" = 1 ]; then
  jfr=(-XX:StartFlightRecording=filename=stream-processor/target/churn.jfr,settings=profile)
fi
# A fixed, pre-touched heap: RSS then shows what grows outside the heap (RocksDB, buffers).
java -Xms3g -Xmx3g -XX:+AlwaysPreTouch "${jfr[@]}" -cp "$cp" \
  io.kubewarden.networkenforcer.processor.benchmark.ChurnBenchmark "$per_round" "$rounds" "${BENCH_CHURN_RESETS:-true}" \
  > "$log" 2>&1 || { echo "churn benchmark failed, see $log" >&2; tail -20 "$log" >&2; exit 1; }
grep -E '^[a-z][a-zA-Z0-9 /(),.-]+: [a-zA-Z0-9 /;.-]+$' "$log"
# A stream thread whose transaction the broker aborted (or that missed a rebalance) rejoins, closing
# its tasks dirty and restoring them: how often that happened in the run.
echo "processor stream thread fenced (times, all phases): $(grep -c 'Detected that the thread is being fenced' "$log" || true)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
