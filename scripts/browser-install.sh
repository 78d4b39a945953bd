#!/usr/bin/env bash
# Install Debian's chromium, the browser of the web page's tests (tests/integration/test_web_browser.py).
#
#   bash scripts/browser-install.sh
#
# Playwright drives it (`executable_path`); Playwright's own browser download is not used (it
# needs a CDN that CI cannot reach). Idempotent: when chromium is already on PATH it says so
# and exits. Otherwise it runs `apt-get update` and `apt-get install -y chromium` (Debian; as
# root, or through sudo when that is available). Messages go to stderr ("browser-install: ...");
# the path of chromium to stdout (last line).
set -euo pipefail

LOG_NAME=browser-install
source "$(dirname "$0")/apt-package.sh"

install_missing chromium chromium "~100 MB"
log "chromium: $(chromium --version 2>/dev/null || echo 'installed')"
command -v chromium
