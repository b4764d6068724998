#!/usr/bin/env bash
# Installs headless Chromium and its ChromeDriver from Debian's packages for the browser tests of
# the HTML report (cli module, packages cli.report and the live view test). Selenium drives
# /usr/bin/chromedriver directly; nothing is downloaded at test time.
# Idempotent: does nothing when both are already installed.
set -euo pipefail

if command -v chromium >/dev/null && [[ -x /usr/bin/chromedriver ]]; then
  echo "chromium already installed: $(chromium --version 2>/dev/null || echo unknown version)"
  exit 0
fi

SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null || { echo "chromium.sh must run as root or with sudo to apt-get install chromium" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
echo "installed: $(chromium --version)"
