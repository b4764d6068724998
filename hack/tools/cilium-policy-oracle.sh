#!/usr/bin/env bash
# Builds cilium-policy-oracle from hack/tools/cilium-policy-oracle (Cilium's own policy engine,
# github.com/cilium/cilium v1.20.2, behind a JSON-lines protocol) into $NE_TOOLS_DIR/bin. The
# differential test CiliumEngineDifferentialTest (common) compares the product's Cilium evaluator
# with it. Test tooling only: nothing of it ships. Idempotent: the build is skipped when the
# installed binary was built from the same sources. About 4 minutes and 100 MB of modules on a
# fresh 2-core machine.
set -euo pipefail
bash "$(dirname "$0")/cilium-policy-oracle/build.sh" >/dev/null
