#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: builds the test tools the suite needs
# (helm, promtool, kube-apiserver, etcd, kube-controller-manager and Cilium's policy engine from source with Go; a Docker engine, Compose v2
# and the local base and Kafka images; cached between runs in $NE_TOOLS_DIR) and then the whole Maven
# build with its tests, including a short fuzzing run of every parser (profile fuzz-smoke).
set -euo pipefail
cd "$(dirname "$0")/.."
export NE_TOOLS_DIR="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"

for tool in hack/tools/*.sh; do
  [ -e "$tool" ] || continue
  echo "==> test tool: $tool"
  bash "$tool"
done

echo "==> ./mvnw verify"
exec ./mvnw -B -ntp verify -Pfuzz-smoke "$@"
