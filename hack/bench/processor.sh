#!/usr/bin/env bash
# Stream processor figures of issue #11 (see BENCHMARKS.md "Stream processor"):
# raw produce rate vs. the processor (steady and end to end) and vs. a pass-through Kafka Streams
# topology, exactly-once, 1 and 2 stream threads, on the same records and
# the same embedded broker; proposal records per million flows; memory per 10k targets; a burst of
# twice the sustained rate for 60 s (largest lag, time to drain, flows lost or doubled).
# BENCH_FLOWS (default 1000000, three rounds of the one-thread run) and BENCH_TARGETS (default 100000) size the runs;
# BENCH_JFR=1 writes a flight recording of the throughput run to stream-processor/target/processor.jfr.
set -euo pipefail
cd "$(dirname "$0")/../.."
flows=${BENCH_FLOWS:-1000000}
targets=${BENCH_TARGETS:-100000}
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
main=io.kubewarden.networkenforcer.processor.benchmark.ProcessorBenchmark
jfr=()
if [ "${BENCH_JFR:-0}" = 1 ]; then
  jfr=(-XX:StartFlightRecording=filename=stream-processor/target/processor.jfr,settings=profile)
fi
# Everything the JVM prints goes to stream-processor/target/bench-*.log; the figures to stdout.
figures='^[a-z][a-zA-Z0-9 /()=.,-]+: [0-9.-]+$'
java -Xmx3g "${jfr[@]}" -cp "$cp" $main throughput "$flows" > stream-processor/target/bench-throughput.log 2>&1
grep -E "$figures" stream-processor/target/bench-throughput.log
# A fixed, pre-touched heap: RSS then shows what grows outside the heap (RocksDB, buffers), not the
# collector committing more of -Xmx.
java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "$cp" $main memory "$targets" > stream-processor/target/bench-memory.log 2>&1
grep -E "$figures" stream-processor/target/bench-memory.log
# BENCH_BURST=0 skips the burst run (about 5 minutes: R/2 for 20 s, 2R for 60 s, R/2 until drained;
# R is the steady rate of a BENCH_BURST_BACKLOG-flow backlog, default 1000000; some 45 million flows).
if [ "${BENCH_BURST:-1}" = 1 ]; then
  java -Xmx2g -cp "$cp" $main burst "${BENCH_BURST_BACKLOG:-1000000}" > stream-processor/target/bench-burst.log 2>&1
  grep -E "$figures" stream-processor/target/bench-burst.log
fi
# A new cluster's DNS: BENCH_FANIN clients (default 5000), each calling one server once.
java -Xmx2g -cp "$cp" $main fanin "${BENCH_FANIN:-5000}" > stream-processor/target/bench-fanin.log 2>&1
grep -E "$figures" stream-processor/target/bench-fanin.log
