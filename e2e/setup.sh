#!/usr/bin/env bash
# Installs what the tab's tooling needs on a fresh machine: the pinned npm
# packages of the repository root's package.json (Playwright, TypeScript)
# and, for the browser tests, Debian's Chromium (Playwright's own browser
# download cannot work here, and is never used). It compares Chromium's
# major version with the one the pinned Playwright release was built for,
# warns about a drift, and runs a smoke test that fails the run only when
# this Chromium cannot be driven (check-chromium.mjs; docs/TESTING.md).
#
#   e2e/setup.sh          everything the browser tests need
#   e2e/setup.sh npm      only the npm packages (the lint task's type check)
#   e2e/setup.sh sandbox  only bubblewrap, for plan mode's read-only sandbox
#                         (the Go tests of it run where CI is set, and skip
#                         elsewhere when it cannot be installed)
set -euo pipefail
cd "$(dirname "$0")/.."

only="${1:-}"
case "$only" in
  ''|npm|sandbox) ;;
  *) echo "usage: e2e/setup.sh [npm|sandbox]" >&2; exit 2 ;;
esac

# Plan mode runs commands in bubblewrap (server/tools/sandbox.go). Best
# effort outside CI: without apt or sudo the tests that need it skip.
install_sandbox() {
  command -v bwrap >/dev/null 2>&1 && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "e2e: bubblewrap (bwrap) is missing and there is no apt-get; install it for plan mode's sandbox tests" >&2
    [ -n "${CI:-}" ] && return 1
    return 0
  fi
  echo "e2e: installing Debian's bubblewrap"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null; }; then
    echo "e2e: bubblewrap could not be installed" >&2
    [ -n "${CI:-}" ] && return 1
  fi
  return 0
}

if [ "$only" = sandbox ]; then
  install_sandbox
  exit 0
fi

if [ -z "$only" ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    echo "e2e: installing Debian's chromium"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  fi

  install_sandbox
fi

# A checkout from before package.json moved to the root still holds
# e2e/node_modules. Node would then load @playwright/test from there for the
# config and from the root for the runner, two copies Playwright refuses to
# mix; the root's packages replace it.
if [ -d e2e/node_modules ]; then
  echo "e2e: removing e2e/node_modules (the packages now live in the root's node_modules)"
  rm -rf e2e/node_modules
fi

if [ ! -d node_modules/@playwright/test ] || [ ! -d node_modules/typescript ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "e2e: installing npm packages"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
fi

# Any drift from the Chromium the pinned Playwright was built for only
# warns (Debian moves Chromium both ways with its security updates); a
# smoke test (launch, open a page, evaluate, screenshot) through the pinned
# Playwright decides, and stops the run only when it fails, with its error.
# It needs the npm packages, so it comes after them.
if [ -z "$only" ]; then
  node e2e/check-chromium.mjs
fi
