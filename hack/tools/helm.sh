#!/usr/bin/env bash
# Builds the helm v3 CLI from source (Go module proxy) into the shared test-tools directory.
# The chart tests (cli module, package io.kubewarden.networkenforcer.chart) render the chart with it.
# Idempotent: does nothing when the expected version is already installed.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.21.4}"
TOOLS_DIR="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
BIN_DIR="$TOOLS_DIR/bin"
HELM="$BIN_DIR/helm"

if [[ -x "$HELM" ]] && [[ "$("$HELM" version --template '{{.Version}}' 2>/dev/null || true)" == "$HELM_VERSION" ]]; then
  echo "helm $HELM_VERSION already installed at $HELM"
  exit 0
fi

command -v go >/dev/null || { echo "go is required to build helm (see hack/tools/helm.sh)" >&2; exit 1; }
mkdir -p "$BIN_DIR"

# helm's own Makefile injects its version and the Kubernetes version it assumes (from the
# client-go it is built with) through ldflags. Without them `helm version` reports a dev version
# (this script could not tell a stale install) and `helm template` assumes Kubernetes 1.20.
GOMOD="$(cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "helm.sh/helm/v3@$HELM_VERSION" \
  | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
CLIENT_GO="$(awk '$1 == "k8s.io/client-go" { print $2 }' "$GOMOD")"   # v0.MINOR.PATCH
K8S_MINOR="$(echo "$CLIENT_GO" | cut -d. -f2)"
[[ -n "$K8S_MINOR" ]] || { echo "cannot read the k8s.io/client-go version of helm $HELM_VERSION" >&2; exit 1; }

echo "building helm $HELM_VERSION (Kubernetes 1.$K8S_MINOR) with $(go version) into $BIN_DIR (takes a few minutes)"
LDFLAGS="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  LDFLAGS+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$K8S_MINOR"
done
GOFLAGS="${GOFLAGS:--buildvcs=false}" GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$BIN_DIR" \
  go install -trimpath -ldflags "$LDFLAGS" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"

"$HELM" version --template '{{.Version}}{{"\n"}}'
