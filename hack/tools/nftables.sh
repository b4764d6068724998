#!/usr/bin/env bash
# Installs nft (Debian's nftables package) for the test cluster's NetworkPolicy enforcer
# (kube-network-policies, built by cluster.sh): KubeCluster waits for the enforcer's table with
# `nft list table inet kube-network-policies`, and `nft list ruleset` is how to see what it does.
# Idempotent: does nothing when nft is already installed. Called by cluster.sh.
set -euo pipefail

if command -v nft >/dev/null; then
  echo "nftables.sh: nft already installed: $(nft --version 2>/dev/null || echo unknown version)"
  exit 0
fi

SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null || { echo "nftables.sh must run as root or with sudo to apt-get install nftables" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends nftables
echo "nftables.sh: installed: $(nft --version)"
