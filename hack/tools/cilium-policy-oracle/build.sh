#!/usr/bin/env bash
# Builds cilium-policy-oracle (a differential-test oracle backed by Cilium's
# policy engine, github.com/cilium/cilium v1.20.2) into
#   $NE_TOOLS_DIR/bin/cilium-policy-oracle   (default NE_TOOLS_DIR=$HOME/.cache/network-enforcer/tools)
#
# Idempotent: if the installed binary was built from exactly these sources
# (go.mod, go.sum, *.go in this directory) it exits 0 without building.
# Builds from the directory this script sits in, fetching modules through the
# Go module proxy (GOPROXY as configured; needs Go >= 1.26).
#
# Prints the installed binary's path on stdout; progress goes to stderr.
set -euo pipefail

SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS_DIR="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
BIN_DIR="$TOOLS_DIR/bin"
BIN="$BIN_DIR/cilium-policy-oracle"

log() { echo "cilium-policy-oracle/build.sh: $*" >&2; }

# Stamp = hash of everything that determines the binary.
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
stamp="$(cd "$SRC_DIR" && cat go.mod go.sum $(ls *.go | grep -v '_test\.go$' | LC_ALL=C sort) | sha256 | cut -c1-16)"

installed="$([[ -x "$BIN" ]] && "$BIN" -version 2>/dev/null || true)"
if [[ "$installed" == *"source $stamp"* ]]; then
    log "up to date: $BIN (source $stamp)"
    echo "$BIN"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "error: 'go' not found in PATH (Go >= 1.26 required)"; exit 1; }
gov="$(go env GOVERSION 2>/dev/null || true)"   # e.g. go1.26.8
if [[ ! "$gov" =~ ^go1\.([0-9]+) ]] || (( BASH_REMATCH[1] < 26 )); then
    log "error: Go >= 1.26 required (github.com/cilium/cilium v1.20.2 needs go 1.26.0), found '${gov:-unknown}'"
    exit 1
fi

mkdir -p "$BIN_DIR"
tmp="$(mktemp "$BIN_DIR/.cilium-policy-oracle.XXXXXX")"
trap 'rm -f "$tmp"' EXIT

log "building (source $stamp, $gov) -> $BIN"
start=$SECONDS
(
    cd "$SRC_DIR"
    # GOWORK=off: this directory is its own module even inside a repo with a go.work
    export CGO_ENABLED=0 GOTOOLCHAIN=local GOWORK=off GOFLAGS="-modcacherw -mod=readonly -buildvcs=false"
    go build -trimpath -ldflags "-s -w -X main.sourceStamp=$stamp" -o "$tmp" .
)
built="$("$tmp" -version)"
[[ "$built" == *"source $stamp"* ]] || { log "error: built binary reports '$built', expected source $stamp"; exit 1; }
chmod 0755 "$tmp"
mv -f "$tmp" "$BIN"
trap - EXIT
log "built in $((SECONDS - start))s: $BIN"
echo "$BIN"
