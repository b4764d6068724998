#!/usr/bin/env bash
# A new user's first start, on the packaged jar (run by `./mvnw verify` after the jar is built): without
# a cluster, with an unreachable one, and without --provider, each command ends with exit code 2 and
# a message that names what failed, where, and what to change. The in-process tests cannot see what
# the shaded jar lacks (they run on the test class path) nor clear the process environment.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# expect CODE NEEDLE... -- COMMAND...: runs COMMAND with an empty home and no kube variables.
expect() {
  local code="$1"; shift
  local needles=()
  while [[ "$1" != "--" ]]; do needles+=("$1"); shift; done
  shift
  local out="$work/out.txt"
  env -i PATH="$PATH" HOME="$work/home" NE_JAVA_OPTS="-Duser.home=$work/home" ${JAVA_HOME:+JAVA_HOME="$JAVA_HOME"} ${KUBECONFIG_FOR_TEST:+KUBECONFIG="$KUBECONFIG_FOR_TEST"} \
    timeout 120 "$here/network-enforcer" "$@" >"$out" 2>&1
  local rc=$?
  if [[ $rc -ne $code ]]; then
    echo "FAIL: '$*' exited $rc, expected $code:"; cat "$out"; failures=$((failures + 1)); return
  fi
  for needle in "${needles[@]}"; do
    if ! grep -qF -- "$needle" "$out"; then
      echo "FAIL: '$*' did not say '$needle':"; cat "$out"; failures=$((failures + 1)); return
    fi
  done
  if grep -qE '^\s+at |An error has occurred' "$out"; then
    echo "FAIL: '$*' printed a stack trace or a message without a cause:"; cat "$out"; failures=$((failures + 1))
    return
  fi
  echo "ok: $* -> $rc: $(head -c 400 "$out")"
}
mkdir -p "$work/home"

# The issue's command, on a machine without any cluster configuration.
expect 2 "no Kubernetes API server is configured" "--kubeconfig" "KUBECONFIG" "$work/home/.kube/config" -- \
  standalone --provider cilium --hubble-endpoint localhost:4245 --provider-tls-mode insecure \
  --data-dir "$work/data" --management-port 0 --probe-port 0 --embedded-kafka-port 0

# A kubeconfig whose server does not answer.
cat >"$work/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: gone, user: u}}]
current-context: c
YAML
KUBECONFIG_FOR_TEST="$work/kubeconfig" expect 2 "cannot reach the Kubernetes API server at https://127.0.0.1:1" \
  "kubeconfig $work/kubeconfig (KUBECONFIG)" "Connection refused" -- \
  standalone --provider cilium --hubble-endpoint localhost:4245 --provider-tls-mode insecure \
  --data-dir "$work/data" --management-port 0 --probe-port 0 --embedded-kafka-port 0
KUBECONFIG_FOR_TEST="$work/kubeconfig" expect 2 "cannot reach the Kubernetes API server at https://127.0.0.1:1" -- \
  writer --provider cilium --kafka-bootstrap-servers 127.0.0.1:1 --management-port 0 --probe-port 0

# No provider: no silent istio.
expect 2 "--provider is required" "NE_PROVIDER" -- processor --kafka-bootstrap-servers 127.0.0.1:1 \
  --state-dir "$work/state" --check-config

if [[ $failures -gt 0 ]]; then
  echo "$failures start-up message check(s) failed"
  exit 1
fi
