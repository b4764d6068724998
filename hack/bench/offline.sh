#!/usr/bin/env bash
# Offline learning benchmark: 'network-enforcer learn' on a generated Hubble capture against jq
# reading the same file, in the same run. Prints one 'name: value' line per figure.
#
#   hack/bench/offline.sh                      # 1,000,000 lines, 1,000 workloads
#   NE_BENCH_LINES=200000 hack/bench/offline.sh
#
# Beside them it times the fastest of the peers issue #11 names, hubble-audit2policy (PyPI, pinned below), on the
# same capture (NE_BENCH_PEER=0 skips it; installed once into a virtual environment under NE_BENCH_DIR).
#
# It also learns from the same capture against the cluster state of a large cluster (NE_BENCH_EXTRA_PODS
# more pods, default 20,000, each as bulky as a real one) and says whether the proposals are the same.
#
# Builds cli/target/network-enforcer.jar offline from this checkout (NE_JAR: measure another jar instead);
# installs jq and GNU time with apt when they are missing. The capture is generated once into NE_BENCH_DIR and reused.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
lines="${NE_BENCH_LINES:-1000000}"
workloads="${NE_BENCH_WORKLOADS:-1000}"
dir="${NE_BENCH_DIR:-${TMPDIR:-/tmp}/network-enforcer-bench}/hubble-${lines}-${workloads}"
jar="${NE_JAR:-$root/cli/target/network-enforcer.jar}"

need() {
  command -v "$1" >/dev/null 2>&1 && return
  echo "offline.sh: installing $2" >&2
  (apt-get update -qq && apt-get install -y -qq "$2") >/dev/null
}
need jq jq
[[ -x /usr/bin/time ]] || need /usr/bin/time time
if [[ -z "${NE_JAR:-}" ]]; then
  # As the other pieces: what this checkout holds, not a jar left from an earlier build.
  (cd "$root" && ./mvnw -B -ntp -q -o -DskipTests package -pl cli -am) >&2
fi
if [[ ! -f "$jar" ]]; then
  echo "offline.sh: $jar is missing; build it with: ./mvnw -B -q -DskipTests package" >&2
  exit 2
fi

capture="$dir/hubble-flows.jsonl"
if [[ ! -f "$capture" ]]; then
  echo "offline.sh: generating $lines lines into $dir" >&2
  python3 "$root/hack/bench/gen_hubble_capture.py" --lines "$lines" --workloads "$workloads" --out "$dir"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Seconds of wall time, peak RSS (KiB) and CPU seconds (user, system) of one command, from GNU time.
measure() {
  local log="$1"; shift
  /usr/bin/time -f '%e %M %U %S' -o "$log" "$@"
}

# Warm the page cache so neither side pays for the first read from disk.
cat "$capture" >/dev/null
# An untimed first run of the jar: it records the launcher's class-data sharing archive once per build.
NE_JAR="$jar" "$root/network-enforcer" learn --input "$root/samples/basic/hubble-flows.jsonl" \
  --cluster-state "$root/samples/basic/cluster-state.json" --output-dir "$work/warm-up" >/dev/null

measure "$work/jq.time" jq -c .flow.source.namespace "$capture" >/dev/null
# --timings: where the run's time goes, phase by phase (printed below as 'learn phase ... seconds').
if ! NE_JAR="$jar" measure "$work/learn.time" "$root/network-enforcer" learn --input "$capture" \
  --cluster-state "$dir/cluster-state.json" --output-dir "$work/proposals" --timings ${NE_BENCH_LEARN_ARGS:-} \
  >"$work/learn.out" 2>"$work/learn.err"; then
  cat "$work/learn.err" >&2
  exit 1
fi
# The peer, on the same file, right after learn: hubble-audit2policy writes one policy per workload it sees.
peer_version="0.18.5"
peer_env="$(dirname "$dir")/peers/hubble-audit2policy-$peer_version"
peer=""
if [[ "${NE_BENCH_PEER:-1}" != "0" ]]; then
  if [[ ! -x "$peer_env/bin/hubble-audit2policy" ]]; then
    echo "offline.sh: installing hubble-audit2policy $peer_version into $peer_env" >&2
    rm -rf "$peer_env"
    (python3 -m venv "$peer_env" && "$peer_env/bin/pip" install -q "hubble-audit2policy==$peer_version") >&2 \
      || rm -rf "$peer_env"
  fi
  if [[ -x "$peer_env/bin/hubble-audit2policy" ]]; then
    peer="$peer_env/bin/hubble-audit2policy"
    measure "$work/peer.time" "$peer" --no-enrich -o "$work/peer" "$capture" >"$work/peer.out" 2>&1 || peer=""
  fi
fi
NE_JAR="$jar" measure "$work/small.time" "$root/network-enforcer" learn \
  --input "$root/samples/basic/hubble-flows.jsonl" --cluster-state "$root/samples/basic/cluster-state.json" \
  --output-dir "$work/small" >/dev/null

extra_pods="${NE_BENCH_EXTRA_PODS:-20000}"
large_state="$dir/cluster-state-with-${extra_pods}-more-pods.json"
if [[ ! -f "$large_state" ]]; then
  echo "offline.sh: generating a cluster state with $extra_pods more pods into $dir" >&2
  python3 "$root/hack/bench/gen_large_cluster_state.py" --state "$dir/cluster-state.json" \
    --extra-pods "$extra_pods" --out "$large_state"
fi
large_rc=0
NE_JAR="$jar" measure "$work/large.time" "$root/network-enforcer" learn --input "$capture" \
  --cluster-state "$large_state" --output-dir "$work/large" >/dev/null 2>"$work/large.err" || large_rc=$?

read -r jq_s _ jq_user jq_sys <"$work/jq.time"
read -r learn_s learn_kib learn_user learn_sys <"$work/learn.time"
read -r small_s _ small_user small_sys <"$work/small.time"
proposals="$(find "$work/proposals" -name '*.yaml' | wc -l)"
echo "learn/capture lines: $lines"
echo "learn/capture MiB: $(( $(stat -c %s "$capture") / 1048576 ))"
echo "learn/proposals: $proposals"
echo "learn/jq seconds: $jq_s"
echo "learn seconds: $learn_s"
sed -n 's/^timing \(.*\): \([0-9.]*\) s$/learn phase \1 seconds: \2/p' "$work/learn.err"
echo "learn/jq ratio: $(awk -v j="$jq_s" -v l="$learn_s" 'BEGIN { printf "%.2f", j / l }')"
echo "learn lines/s: $(awk -v n="$lines" -v l="$learn_s" 'BEGIN { printf "%.0f", n / l }')"
echo "learn peak RSS MiB: $(( learn_kib / 1024 ))"
# The machine is shared: CPU time says what the work costs whatever else runs.
echo "learn/jq CPU seconds: $(awk -v u="$jq_user" -v s="$jq_sys" 'BEGIN { printf "%.2f", u + s }')"
echo "learn CPU seconds: $(awk -v u="$learn_user" -v s="$learn_sys" 'BEGIN { printf "%.2f", u + s }')"
if [[ -n "$peer" ]]; then
  read -r peer_s peer_kib _ _ <"$work/peer.time"
  echo "learn/hubble-audit2policy seconds: $peer_s"
  echo "learn/hubble-audit2policy policies: $(find "$work/peer" -name '*.yaml' | wc -l)"
  echo "learn/hubble-audit2policy peak RSS MiB: $(( peer_kib / 1024 ))"
  # Above 1: learn is faster than the peer on the same file.
  echo "learn/hubble-audit2policy ratio: $(awk -v p="$peer_s" -v l="$learn_s" 'BEGIN { printf "%.2f", p / l }')"
elif [[ "${NE_BENCH_PEER:-1}" != "0" ]]; then
  echo "learn/hubble-audit2policy: unavailable (pip could not install hubble-audit2policy==$peer_version, or it failed)"
fi
echo "learn/small capture seconds: $small_s"
echo "learn/small capture CPU seconds: $(awk -v u="$small_user" -v s="$small_sys" 'BEGIN { printf "%.2f", u + s }')"
# GNU time writes "Command exited with non-zero status N" first when the run failed.
read -r large_s large_kib _ _ < <(tail -n 1 "$work/large.time")
echo "learn/large cluster-state pods: $(grep -o '"kind": "Pod"' "$large_state" | wc -l)"
echo "learn/large cluster-state MiB: $(( $(stat -c %s "$large_state") / 1048576 ))"
echo "learn with large cluster-state seconds: $large_s"
echo "learn with large cluster-state peak RSS MiB: $(( large_kib / 1024 ))"
if [[ $large_rc -eq 0 ]]; then
  echo "learn with large cluster-state same proposals: $(diff -rq "$work/proposals" "$work/large" >/dev/null \
    && echo yes || echo no)"
else
  echo "learn with large cluster-state: FAILED (exit $large_rc): $(grep -m 1 -E 'Error|Exception|error:' \
    "$work/large.err" || true)"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
