#!/usr/bin/env bash
# Installs what the browser tests need on a fresh machine: Debian's Chromium
# (Playwright's own browser download cannot work here, and is never used)
# and the pinned npm packages. It compares Chromium's major version with the
# one the pinned Playwright release was built for (check-chromium.mjs; the
# rule is in docs/TESTING.md).
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium >/dev/null 2>&1; then
  echo "e2e: installing Debian's chromium"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# A small drift from the Chromium the pinned Playwright was built for only
# warns: Debian moves Chromium with its security updates. A large one fails.
node check-chromium.mjs

if [ ! -d node_modules/@playwright/test ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "e2e: installing npm packages"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
fi
