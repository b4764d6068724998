#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from source with Go for the real-API-server tests.
# Binaries land in ${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}/bin; a binary that is already there
# with the pinned version is kept, so running this again is cheap. The first build takes many minutes.
# Release pins live in hack/tools/kube/k8s/go.mod and hack/tools/kube/etcd/go.mod.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools_dir="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
bin_dir="$tools_dir/bin"
mkdir -p "$bin_dir"

pinned() { # module dir, module path -> version required there
  awk -v m="$2" '$1 == "require" && $2 == m {print $3} $1 == m && $2 ~ /^v/ {print $2}' "$here/kube/$1/go.mod" | head -n1
}
k8s_version="$(pinned k8s k8s.io/kubernetes)"
etcd_version="$(pinned etcd go.etcd.io/etcd/server/v3)"
[[ -n "$k8s_version" && -n "$etcd_version" ]] || { echo "kube.sh: cannot read pinned versions" >&2; exit 1; }

# A sidecar file records the version a binary was built from; no file or another version means rebuild.
up_to_date() { [[ -x "$bin_dir/$1" && "$(cat "$bin_dir/$1.version" 2>/dev/null)" == "$2" ]]; }

export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
# Keep the module directories in the repo clean: build from a scratch copy (go.sum is written there).
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

build() { # module dir, package, binary name, version, extra ldflags
  local dir="$1" pkg="$2" name="$3" version="$4" extra="${5:-}"
  if up_to_date "$name" "$version"; then
    echo "kube.sh: $name $version already in $bin_dir"
    return
  fi
  echo "kube.sh: building $name $version (this takes minutes) ..."
  mkdir -p "$work/$dir"
  cp "$here/kube/$dir/go.mod" "$work/$dir/"
  [[ -f "$here/kube/$dir/go.sum" ]] && cp "$here/kube/$dir/go.sum" "$work/$dir/"
  local start=$SECONDS
  (cd "$work/$dir" && go build -trimpath -ldflags="-s -w $extra" -o "$bin_dir/$name.tmp" "$pkg")
  mv "$bin_dir/$name.tmp" "$bin_dir/$name"
  echo "$version" > "$bin_dir/$name.version"
  echo "kube.sh: built $name in $((SECONDS - start))s"
}

total_start=$SECONDS
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
# Stamp the release into the binaries so /version reports it instead of v0.0.0.
k8s_ldflags="-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
build etcd go.etcd.io/etcd/server/v3 etcd "$etcd_version"
build k8s k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver "$k8s_version" "$k8s_ldflags"
build k8s k8s.io/kubernetes/cmd/kube-controller-manager kube-controller-manager "$k8s_version" "$k8s_ldflags"
echo "kube.sh: done in $((SECONDS - total_start))s; binaries in $bin_dir"
