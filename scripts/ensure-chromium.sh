#!/usr/bin/env bash
# Installs Debian's Chromium when it is missing: the workbench's browser tests (test/web/browser*.test.ts) drive it
# with playwright-core. Playwright's own browser download does not reach machines without general internet access;
# the distribution's package comes from the package mirror. CHROMIUM_PATH points the tests at another build.
# Run (not sourced) by scripts/test.sh before jest.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "==> installing Chromium (Debian package) for the workbench's browser tests"
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
command -v chromium >/dev/null
