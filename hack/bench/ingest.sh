#!/usr/bin/env bash
# Ingest figures of issue #11 (see BENCHMARKS.md "Ingest"): Hubble decode + resolve + publish against
# protobuf parsing alone of the same messages (one thread, Kafka excluded), Goldmane and OTLP/ztunnel
# beside it. Hubble messages come from the generated capture of hack/bench/offline.sh (made here if
# missing). NE_BENCH_INGEST_MESSAGES (default 200000) sizes the run; NE_BENCH_JFR=1 writes
# ingest/target/ingest.jfr.
set -euo pipefail
cd "$(dirname "$0")/../.."
messages="${NE_BENCH_INGEST_MESSAGES:-200000}"
dir="${NE_BENCH_DIR:-${TMPDIR:-/tmp}/network-enforcer-bench}/hubble-ingest-${messages}"
if [[ ! -f "$dir/hubble-flows.jsonl" ]]; then
  echo "ingest.sh: generating $messages lines into $dir" >&2
  python3 hack/bench/gen_hubble_capture.py --lines "$messages" --workloads 1000 --out "$dir" >&2
fi
./mvnw -B -ntp -q -o -pl ingest -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath >&2
# Run from a copy of the classes, so a build in this checkout during the run changes nothing.
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
cp -r ingest/target/test-classes "$classes/ingest-tests"
cp -r ingest/target/classes "$classes/ingest"
cp -r common/target/classes "$classes/common"
cp -r embedded-kafka/target/classes "$classes/embedded-kafka"
deps=$(tr ':' '\n' < ingest/target/bench.classpath | grep -v '/target/classes$' | paste -sd: -)
jfr=()
if [[ "${NE_BENCH_JFR:-0}" == 1 ]]; then
  jfr=(-XX:StartFlightRecording=filename=ingest/target/ingest.jfr,settings=profile)
fi
java -Xmx1g "${jfr[@]}" -cp "$classes/ingest-tests:$classes/ingest:$classes/common:$classes/embedded-kafka:$deps" \
  io.kubewarden.networkenforcer.ingest.benchmark.IngestBenchmark "$dir/hubble-flows.jsonl" \
  "$dir/cluster-state.json" samples/basic "$messages" 2>ingest/target/bench-ingest.log | grep -E '^[a-zA-Z0-9 /()+=.,-]+: '
