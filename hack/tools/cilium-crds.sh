#!/usr/bin/env bash
# Fetches Cilium's published CiliumNetworkPolicy CRD (cilium.io/v2) from the github.com/cilium/cilium
# Go module, as released, into the shared test-tools directory. The cilium backend's tests admit the
# CiliumNetworkPolicies the product renders under this schema on the real kube-apiserver
# (test-support CiliumCrds). Not shipped: Cilium installs its CRDs. Not kept in this repository:
# it is Cilium's text, fetched and checked by its hash instead.
# Idempotent: does nothing when the file with the expected hash is already there.
set -euo pipefail

CILIUM_VERSION="${CILIUM_VERSION:-v1.20.2}"
# sha256 of pkg/k8s/apis/cilium.io/client/crds/v2/ciliumnetworkpolicies.yaml at that version.
CRD_SHA256="${CILIUM_CRD_SHA256:-62c6de8f358da125b94468d39187edb1cea157d79503fdc50ccec8a6aaa79a76}"
TOOLS_DIR="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
TARGET_DIR="$TOOLS_DIR/cilium"
TARGET="$TARGET_DIR/ciliumnetworkpolicies.yaml"
FILE="pkg/k8s/apis/cilium.io/client/crds/v2/ciliumnetworkpolicies.yaml"

matches() { [[ -f "$TARGET" ]] && echo "$CRD_SHA256  $TARGET" | sha256sum --check --status; }

if matches; then
  echo "Cilium $CILIUM_VERSION CiliumNetworkPolicy CRD already at $TARGET"
  exit 0
fi

command -v go >/dev/null || { echo "go is required to fetch Cilium's CRD (see hack/tools/cilium-crds.sh)" >&2; exit 1; }
echo "fetching github.com/cilium/cilium@$CILIUM_VERSION (module zip, about 40 MB) for its CRD"
# The module zip only: the file is read out of it, nothing is built.
zip="$(cd /tmp && GOFLAGS=-modcacherw GOTOOLCHAIN=local go mod download -json "github.com/cilium/cilium@$CILIUM_VERSION" \
  | sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')"
[[ -f "$zip" ]] || { echo "cilium-crds.sh: the module proxy gave no zip for github.com/cilium/cilium@$CILIUM_VERSION" >&2; exit 1; }
mkdir -p "$TARGET_DIR"
unzip -p "$zip" "github.com/cilium/cilium@$CILIUM_VERSION/$FILE" >"$TARGET.tmp"
echo "$CRD_SHA256  $TARGET.tmp" | sha256sum --check --status \
  || { echo "cilium-crds.sh: $FILE of $CILIUM_VERSION does not have the expected sha256 $CRD_SHA256" >&2; rm -f "$TARGET.tmp"; exit 1; }
mv "$TARGET.tmp" "$TARGET"
echo "$CILIUM_VERSION" >"$TARGET_DIR/version"
echo "Cilium $CILIUM_VERSION CiliumNetworkPolicy CRD at $TARGET"
