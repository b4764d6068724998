#!/usr/bin/env bash
# The parts of the single-node test cluster (test-support KubeCluster) beyond the control plane of kube.sh:
#   - kubelet, kube-scheduler, kube-proxy and kubectl, built from the Kubernetes module kube.sh pins
#     (hack/tools/kube/k8s/go.mod) into ${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}/bin;
#   - images saved as Docker-archive tarballs in $NE_TOOLS_DIR/cluster/images, for `ctr images import`:
#     the pod sandbox's pause process and the local-path volume helper (small Go programs in
#     hack/tools/cluster), CoreDNS and local-path-provisioner from their Go modules (hack/tools/cluster/versions),
#     each a static binary in a FROM-scratch image written by this script (no Docker needed);
#   - what the chart's default values need: cert-manager's controller (its CRDs beside), built from the
#     released module with a main of ours, a stand-in for its CSI driver (a host binary: the driver's
#     module is not served), the OpenTelemetry collector under the chart's default collector image
#     reference (and as the host binary otelcol in $NE_TOOLS_DIR/bin, for tests that run it as a
#     process) and a fluent-bit stand-in under the chart's default fluent-bit reference;
#   - the NetworkPolicy enforcer (a host binary): the controller of sigs.k8s.io/kube-network-policies,
#     release pinned in hack/tools/cluster/netpol/go.mod, with a main of ours (queueing with iptables'
#     NFQUEUE: the host kernel has no nftables queue expression), and the netcheck image, the TCP
#     prober the in-cluster test connects from;
#   - containerd, runc and the CNI plugins (/usr/lib/cni) from Debian, with apt, when missing.
# Each result records what it was built from; a run with the same inputs only checks (well under a second).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools_dir="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
bin_dir="$tools_dir/bin"
image_dir="$tools_dir/cluster/images"
mkdir -p "$bin_dir" "$image_dir"

log() { echo "cluster.sh: $*"; }
total_start=$SECONDS

# --- Debian packages: containerd 1.6 with its CRI plugin, runc, the CNI plugins ----------------------
missing=()
command -v containerd >/dev/null || missing+=(containerd)
command -v runc >/dev/null || missing+=(runc)
[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/firewall && -x /usr/lib/cni/portmap ]] || missing+=(containernetworking-plugins)
if ((${#missing[@]})); then
  ((EUID == 0)) || { echo "cluster.sh: installing ${missing[*]} needs root (or install them and run this again)" >&2; exit 1; }
  log "installing ${missing[*]} with apt"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Go builds ----------------------------------------------------------------------------------------
command -v go >/dev/null || { echo "cluster.sh: go is required (see hack/tools/kube/README.md)" >&2; exit 1; }
export CGO_ENABLED=0 GOTOOLCHAIN=local
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

k8s_version="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3}' "$here/kube/k8s/go.mod")"
pinned() { awk -v m="$1" '$1 == m {print $2}' "$here/cluster/versions"; }
coredns_version="$(pinned github.com/coredns/coredns)"
lpp_version="$(pinned github.com/rancher/local-path-provisioner)"
[[ -n "$k8s_version" && -n "$coredns_version" && -n "$lpp_version" ]] || { echo "cluster.sh: cannot read the pinned versions" >&2; exit 1; }
# The small programs of this repository are versioned by a hash of their sources.
source_hash() { (cd "$here/cluster/$1" && LC_ALL=C find . -type f | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -c1-12; }
pause_version="$(source_hash pause)"
netcheck_version="$(source_hash netcheck)"
helper_version="$(source_hash local-path-helper)"

up_to_date() { [[ -f "$1" && "$(cat "$1.version" 2>/dev/null)" == "$2" ]]; }

minor="${k8s_version#v1.}"; minor="${minor%%.*}"
k8s_ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
mkdir -p "$work/k8s"
cp "$here/kube/k8s/go.mod" "$here/kube/k8s/go.sum" "$work/k8s/"
for name in kubelet kube-scheduler kube-proxy kubectl; do
  if up_to_date "$bin_dir/$name" "$k8s_version"; then
    log "$name $k8s_version already in $bin_dir"
    continue
  fi
  log "building $name $k8s_version ..."
  start=$SECONDS
  (cd "$work/k8s" && GOFLAGS=-mod=mod go build -trimpath -ldflags="$k8s_ldflags" -o "$bin_dir/$name.tmp" "k8s.io/kubernetes/cmd/$name")
  mv "$bin_dir/$name.tmp" "$bin_dir/$name"
  echo "$k8s_version" > "$bin_dir/$name.version"
  log "built $name in $((SECONDS - start))s"
done

# A module's own directory (its go.mod, go.sum and vendor/ as released), downloaded through the module proxy.
module_dir() {
  (cd "$work" && GOFLAGS=-mod=mod go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
}

# Writes a Docker-archive tarball (what `ctr images import` and `docker load` read) of a FROM-scratch image
# holding one static binary at /<name> (or the path given), its entrypoint.
scratch_image() { # reference, binary, tarball[, path in the image]
  local ref="$1" binary="$2" out="$3" d name diff config
  d="$(mktemp -d "$work/image.XXXXXX")"
  name="${4:-$(basename "$binary")}"
  mkdir -p "$d/rootfs/$(dirname "$name")" "$d/archive"
  install -m 0755 "$binary" "$d/rootfs/$name"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$d/rootfs" -cf "$d/layer.tar" "${name%%/*}"
  diff="$(sha256sum "$d/layer.tar" | cut -d' ' -f1)"
  mkdir "$d/archive/$diff"
  mv "$d/layer.tar" "$d/archive/$diff/layer.tar"
  printf '{"architecture":"%s","os":"linux","created":"1970-01-01T00:00:00Z","config":{"Entrypoint":["/%s"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$(go env GOARCH)" "$name" "$diff" > "$d/config.json"
  config="$(sha256sum "$d/config.json" | cut -d' ' -f1)"
  mv "$d/config.json" "$d/archive/$config.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$config" "$ref" "$diff" > "$d/archive/manifest.json"
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$d/archive" -cf "$out.tmp" manifest.json "$config.json" "$diff/layer.tar"
  mv "$out.tmp" "$out"
  rm -rf "$d"
}

# image name, version, how to build its binary into $1 (a function given the output path)[, reference,
# path of the binary in the image]
image() {
  local name="$1" version="$2" build="$3" tarball="$image_dir/$1.tar" ref="${4:-network-enforcer.local/$1:$2}"
  if up_to_date "$tarball" "$version" && [[ "$(cat "$image_dir/$name.image" 2>/dev/null)" == "$ref" ]]; then
    log "image $ref already in $image_dir"
    return
  fi
  log "building image $ref ..."
  local start=$SECONDS
  mkdir -p "$work/bin-$name"
  "$build" "$work/bin-$name/$name"
  scratch_image "$ref" "$work/bin-$name/$name" "$tarball" "${5:-}"
  echo "$version" > "$tarball.version"
  echo "$ref" > "$image_dir/$name.image"
  log "built image $ref in $((SECONDS - start))s"
}

build_netcheck() { (cd "$here/cluster/netcheck" && go build -trimpath -ldflags="-s -w" -o "$1" .); }
build_pause() { (cd "$here/cluster/pause" && go build -trimpath -ldflags="-s -w" -o "$1" .); }
build_helper() { (cd "$here/cluster/local-path-helper" && go build -trimpath -ldflags="-s -w" -o "$1" .); }
build_coredns() {
  local dir; dir="$(module_dir github.com/coredns/coredns "$coredns_version")"
  [[ -d "$dir" ]] || { echo "cluster.sh: cannot download github.com/coredns/coredns@$coredns_version" >&2; exit 1; }
  # Inside the released module: its go.sum and the plugin list generated into core/plugin as released.
  (cd "$dir" && GOFLAGS=-buildvcs=false go build -trimpath -ldflags="-s -w" -o "$1" .)
}
build_local_path_provisioner() {
  local dir; dir="$(module_dir github.com/rancher/local-path-provisioner "$lpp_version")"
  [[ -d "$dir" ]] || { echo "cluster.sh: cannot download github.com/rancher/local-path-provisioner@$lpp_version" >&2; exit 1; }
  # The module proxy's copy leaves vendor/ out: the dependencies come by the release's go.sum instead.
  (cd "$dir" && GOFLAGS="-buildvcs=false -mod=readonly" go build -trimpath \
    -ldflags="-s -w -X main.VERSION=$lpp_version" -o "$1" .)
}

# --- what the chart's default values need ------------------------------------------------------------
cm_dir="$here/cluster/cert-manager"
otel_dir="$here/cluster/otelcol"
# A module's version in a go.mod, in a require block or on a require line of its own.
required() { awk -v m="$1" '$1 == m {print $2} $1 == "require" && $2 == m {print $3}' "$2"; }
cm_version="$(required github.com/cert-manager/cert-manager "$cm_dir/go.mod")"
otel_version="$(required go.opentelemetry.io/collector/otelcol "$otel_dir/go.mod")"
[[ -n "$cm_version" && -n "$otel_version" ]] || { echo "cluster.sh: cannot read the cert-manager or collector release" >&2; exit 1; }
cm_sources="$(source_hash cert-manager)"
otel_sources="$(source_hash otelcol)"
# The chart's default image references (values.yaml), so its pods run these images unchanged.
values="$here/../../charts/network-enforcer/values.yaml"
default_image() { awk -v block="$1" '$0 ~ "^ *" block ":$" {c=1} c && /repository:/ {r=$2} c && /tag:/ {gsub(/"/, "", $2); print r ":" $2; exit}' "$values"; }
collector_ref="$(default_image defaultCollector)"
fluent_bit_ref="$(default_image fluentBit)"
[[ -n "$collector_ref" && -n "$fluent_bit_ref" ]] || { echo "cluster.sh: cannot read the chart's default images" >&2; exit 1; }

build_cm_controller() { (cd "$cm_dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags="-s -w" -o "$1" ./controller); }
build_collector() {
  (cd "$otel_dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags="-s -w -X main.version=${otel_version#v}" -o "$1" .)
}
build_fluent_bit() { (cd "$otel_dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags="-s -w" -o "$1" ./fluent-bit); }

# The CSI driver stand-in runs on the host beside the kubelet (KubeCluster starts and stops it with the node).
csi_bin="$bin_dir/cert-manager-csi-driver"
if up_to_date "$csi_bin" "$cm_version-$cm_sources"; then
  log "cert-manager-csi-driver already in $bin_dir"
else
  log "building cert-manager-csi-driver (stand-in) ..."
  start=$SECONDS
  (cd "$cm_dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags="-s -w -X main.version=$cm_version-stand-in" -o "$csi_bin.tmp" ./csi-driver)
  mv "$csi_bin.tmp" "$csi_bin"
  echo "$cm_version-$cm_sources" > "$csi_bin.version"
  log "built cert-manager-csi-driver in $((SECONDS - start))s"
fi
# cert-manager's CRDs as released (deploy/crds of the module).
crd_dir="$tools_dir/cluster/cert-manager-crds"
if [[ "$(cat "$crd_dir.version" 2>/dev/null)" == "$cm_version" ]] && compgen -G "$crd_dir/*.yaml" >/dev/null; then
  log "cert-manager $cm_version CRDs already in $crd_dir"
else
  cm_module="$(module_dir github.com/cert-manager/cert-manager "$cm_version")"
  [[ -d "$cm_module/deploy/crds" ]] || { echo "cluster.sh: no deploy/crds in github.com/cert-manager/cert-manager@$cm_version" >&2; exit 1; }
  rm -rf "$crd_dir" && mkdir -p "$crd_dir"
  install -m 0644 "$cm_module"/deploy/crds/*.yaml "$crd_dir/"
  echo "$cm_version" > "$crd_dir.version"
  log "cert-manager $cm_version CRDs written to $crd_dir"
fi

# The same collector as a host binary, for the tests that run it as a process (cli CrashFaultTest).
otel_bin="$bin_dir/otelcol"
if up_to_date "$otel_bin" "$otel_version-$otel_sources"; then
  log "otelcol $otel_version already in $bin_dir"
else
  log "building otelcol $otel_version ..."
  start=$SECONDS
  build_collector "$otel_bin.tmp"
  mv "$otel_bin.tmp" "$otel_bin"
  echo "$otel_version-$otel_sources" > "$otel_bin.version"
  log "built otelcol in $((SECONDS - start))s"
fi

# The NetworkPolicy enforcer runs on the host beside the kubelet (KubeCluster.enforceNetworkPolicies).
netpol_dir="$here/cluster/netpol"
netpol_version="$(required sigs.k8s.io/kube-network-policies "$netpol_dir/go.mod")-$(source_hash netpol)"
netpol_bin="$bin_dir/kube-network-policies"
if up_to_date "$netpol_bin" "$netpol_version"; then
  log "kube-network-policies $netpol_version already in $bin_dir"
else
  log "building kube-network-policies $netpol_version ..."
  start=$SECONDS
  (cd "$netpol_dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags="-s -w" -o "$netpol_bin.tmp" .)
  mv "$netpol_bin.tmp" "$netpol_bin"
  echo "$netpol_version" > "$netpol_bin.version"
  log "built kube-network-policies in $((SECONDS - start))s"
fi

image pause "$pause_version" build_pause
image netcheck "$netcheck_version" build_netcheck
image local-path-helper "$helper_version" build_helper
image coredns "$coredns_version" build_coredns
image local-path-provisioner "$lpp_version" build_local_path_provisioner
image cert-manager-controller "$cm_version-$cm_sources" build_cm_controller
image otel-collector "$otel_version-$otel_sources" build_collector "$collector_ref" otelcol-contrib
image fluent-bit "$otel_sources" build_fluent_bit "$fluent_bit_ref" fluent-bit/bin/fluent-bit

log "done in $((SECONDS - total_start))s; binaries in $bin_dir, images in $image_dir"
