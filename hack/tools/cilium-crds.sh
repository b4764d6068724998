#!/usr/bin/env bash
# Fetches Cilium's published CRDs (cilium.io/v2) from the github.com/cilium/cilium Go module, as
# released, into the shared test-tools directory: CiliumNetworkPolicy (the cilium backend's tests
# admit the policies the product renders under this schema on the real kube-apiserver) and
# CiliumNode (the cluster-range discovery reads spec.ipam.podCIDRs of objects this schema admits),
# see test-support CiliumCrds. Not shipped: Cilium installs its CRDs. Not kept in this repository:
# it is Cilium's text, fetched and checked by its hash instead.
# Idempotent: does nothing when every file with its expected hash is already there.
set -euo pipefail

CILIUM_VERSION="${CILIUM_VERSION:-v1.20.2}"
# sha256 of pkg/k8s/apis/cilium.io/client/crds/v2/<file> at that version.
CRD_SHA256="${CILIUM_CRD_SHA256:-62c6de8f358da125b94468d39187edb1cea157d79503fdc50ccec8a6aaa79a76}"
NODE_CRD_SHA256="${CILIUM_NODE_CRD_SHA256:-cc3e57ace385353b237b04f466fb99fd9c75c96682044063daae3e0150d2247f}"
TOOLS_DIR="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
TARGET_DIR="$TOOLS_DIR/cilium"
DIR="pkg/k8s/apis/cilium.io/client/crds/v2"
declare -A SHA256=([ciliumnetworkpolicies.yaml]="$CRD_SHA256" [ciliumnodes.yaml]="$NODE_CRD_SHA256")

matches() { [[ -f "$TARGET_DIR/$1" ]] && echo "${SHA256[$1]}  $TARGET_DIR/$1" | sha256sum --check --status; }

missing=()
for name in "${!SHA256[@]}"; do
  matches "$name" || missing+=("$name")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "Cilium $CILIUM_VERSION CRDs already in $TARGET_DIR"
  exit 0
fi

command -v go >/dev/null || { echo "go is required to fetch Cilium's CRDs (see hack/tools/cilium-crds.sh)" >&2; exit 1; }
echo "fetching github.com/cilium/cilium@$CILIUM_VERSION (module zip, about 40 MB) for its CRDs"
# The module zip only: the files are read out of it, nothing is built.
zip="$(cd /tmp && GOFLAGS=-modcacherw GOTOOLCHAIN=local go mod download -json "github.com/cilium/cilium@$CILIUM_VERSION" \
  | sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')"
[[ -f "$zip" ]] || { echo "cilium-crds.sh: the module proxy gave no zip for github.com/cilium/cilium@$CILIUM_VERSION" >&2; exit 1; }
mkdir -p "$TARGET_DIR"
for name in "${missing[@]}"; do
  target="$TARGET_DIR/$name"
  unzip -p "$zip" "github.com/cilium/cilium@$CILIUM_VERSION/$DIR/$name" >"$target.tmp"
  echo "${SHA256[$name]}  $target.tmp" | sha256sum --check --status \
    || { echo "cilium-crds.sh: $DIR/$name of $CILIUM_VERSION does not have the expected sha256 ${SHA256[$name]}" >&2; rm -f "$target.tmp"; exit 1; }
  mv "$target.tmp" "$target"
  echo "Cilium $CILIUM_VERSION $name at $target"
done
echo "$CILIUM_VERSION" >"$TARGET_DIR/version"
