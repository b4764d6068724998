#!/usr/bin/env bash
# Packages the kubectl plugin for krew: a reproducible archive (same bytes for the same script)
# and the krew manifest naming it with its sha256.
#   kubectl-plugin/package.sh OUTDIR [VERSION]
# writes OUTDIR/kubectl-enforcer.tar.gz and OUTDIR/enforcer.yaml. The committed
# kubectl-plugin/enforcer.yaml is this output for the current script (KubectlPluginTest checks it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: package.sh OUTDIR [VERSION]}"
version="${2:-v0.4.0}"
mkdir -p "$out"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$here/kubectl-enforcer" "$stage/kubectl-enforcer"
# Fixed order, times and owners, and no name or time in the gzip header: the same bytes every time.
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" -cf - kubectl-enforcer \
  | gzip -9 -n > "$out/kubectl-enforcer.tar.gz"
sha="$(sha256sum "$out/kubectl-enforcer.tar.gz" | cut -d' ' -f1)"
platform() {
  cat <<PLATFORM
  - selector:
      matchLabels:
        os: $1
    uri: https://github.com/kubewarden/network-enforcer/releases/download/$version/kubectl-enforcer.tar.gz
    sha256: $sha
    bin: kubectl-enforcer
    files:
    - from: kubectl-enforcer
      to: .
PLATFORM
}
{
  cat <<HEAD
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: enforcer
spec:
  version: $version
  homepage: https://github.com/kubewarden/network-enforcer
  shortDescription: Review, promote and enforce learned network policies
  description: |
    The daily verbs of Network Enforcer: list the learned WorkloadNetworkPolicyProposals with
    their convergence, show one with its evidence, promote it, acknowledge a violation, switch a
    policy between monitor and protect, and run network-enforcer diff and simulate.
  caveats: |
    diff, simulate, learn and replay run the network-enforcer command (Java 17): put it on the
    PATH or set NETWORK_ENFORCER. Try: kubectl enforcer list -A
  platforms:
HEAD
  platform linux
  platform darwin
} > "$out/enforcer.yaml"
echo "$out/enforcer.yaml"
