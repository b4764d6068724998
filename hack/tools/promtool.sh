#!/usr/bin/env bash
# Builds Prometheus' promtool from source (Go module proxy) into the shared test-tools directory.
# The chart's alert rules are unit-tested with `promtool test rules` (cli module,
# io.kubewarden.networkenforcer.chart.ChartAlertRulesTest).
# Idempotent: does nothing when the expected version is already installed.
set -euo pipefail

# Prometheus tags v3.X.Y; its Go module is versioned v0.3XX.Y (v0.316.0 = Prometheus 3.16.0).
PROMETHEUS_MODULE_VERSION="${PROMETHEUS_MODULE_VERSION:-v0.316.0}"
TOOLS_DIR="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
BIN_DIR="$TOOLS_DIR/bin"
PROMTOOL="$BIN_DIR/promtool"

# v0.MMM.P -> 3.MM.P (the release promtool reports)
minor_patch="${PROMETHEUS_MODULE_VERSION#v0.3}"
RELEASE="3.$((10#${minor_patch%%.*})).${minor_patch#*.}"

installed() {
  [[ -x "$PROMTOOL" ]] && "$PROMTOOL" --version 2>/dev/null | head -n1 | grep -q "version $RELEASE "
}

if installed; then
  echo "promtool $RELEASE already installed at $PROMTOOL"
  exit 0
fi

command -v go >/dev/null || { echo "go is required to build promtool (see hack/tools/promtool.sh)" >&2; exit 1; }
mkdir -p "$BIN_DIR"

echo "building promtool $RELEASE ($PROMETHEUS_MODULE_VERSION) with $(go version) into $BIN_DIR (takes a few minutes)"
# Prometheus' own build (promu) stamps the version through ldflags; without it `promtool --version`
# says nothing this script could compare.
LDFLAGS="-s -w -X github.com/prometheus/common/version.Version=$RELEASE"
LDFLAGS+=" -X github.com/prometheus/common/version.Branch=HEAD"
LDFLAGS+=" -X github.com/prometheus/common/version.Revision=$PROMETHEUS_MODULE_VERSION"
# remove_all_sd: Prometheus' build tag that leaves out the cloud service-discovery plugins (AWS,
# Azure, GCE, ...; file, HTTP and Kubernetes stay). The tests only check and unit-test rules, and the
# plugins' SDKs triple the build on 2 cores. `promtool check config` of a scrape configuration with
# one of those discoveries would need a full build.
GOFLAGS="${GOFLAGS:--buildvcs=false}" GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$BIN_DIR" \
  go install -trimpath -tags remove_all_sd -ldflags "$LDFLAGS" \
  "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION"

installed || { echo "promtool at $PROMTOOL does not report version $RELEASE" >&2; "$PROMTOOL" --version >&2; exit 1; }
"$PROMTOOL" --version | head -n1
