#!/usr/bin/env bash
# Installs what the browser tests need on a fresh machine: Debian's Chromium
# (Playwright's own browser download cannot work here, and is never used)
# and the pinned npm packages. It checks that Chromium's major version is
# the one the pinned Playwright release was built for, so a mismatch fails
# loudly instead of flaking.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium >/dev/null 2>&1; then
  echo "e2e: installing Debian's chromium"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

want=$(node -p "require('./package.json').playwrightChromiumMajor")
have=$(chromium --version | grep -oE '[0-9]+' | head -n 1)
if [ "$have" != "$want" ]; then
  echo "e2e: chromium $have is installed, but @playwright/test in e2e/package.json is pinned for chromium $want." >&2
  echo "e2e: pin the Playwright release whose bundled Chromium major is $have (see docs/TESTING.md)." >&2
  exit 1
fi

if [ ! -d node_modules/@playwright/test ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "e2e: installing npm packages"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
fi
