#!/usr/bin/env bash
# Processor scale-out of issue #36 (see BENCHMARKS.md "Processor scale-out"): one and then two
# processor instances, each its own JVM (one stream thread, exactly-once), on the same backlog of a
# realistic mix of flows, one run on one embedded broker. Prints
# `processor 2 instances/1 instance ratio` (steady and end to end), the CPU per flow of the
# instance processes, and one instance against the raw producer on the same mix
# (`processor/producer ratio (realistic, end to end)`, and steady). BENCH_SCALE_FLOWS (default 1000000) sizes the backlog;
# BENCH_SCALE_JFR=1 writes a flight recording per instance to stream-processor/target/scaleout-jfr/;
# BENCH_SCALE_PROPOSAL_INTERVAL=N and BENCH_SCALE_COMBINE_INTERVAL=N run the instances with a proposal or
# combine interval of N seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
flows=${BENCH_SCALE_FLOWS:-1000000}
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
if [ "${BENCH_SCALE_JFR:-0}" = 1 ]; then
  export BENCH_SCALE_JFR_DIR=$PWD/stream-processor/target/scaleout-jfr
  mkdir -p "$BENCH_SCALE_JFR_DIR"
fi
figures='^[a-z][a-zA-Z0-9 /()=.,-]+: [0-9. /-]+$'
java -Xmx3g -cp "$cp" io.kubewarden.networkenforcer.processor.benchmark.ScaleOutBenchmark "$flows" \
  > stream-processor/target/bench-scaleout.log 2>&1
grep -E "$figures" stream-processor/target/bench-scaleout.log
