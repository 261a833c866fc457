#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package.json / package-lock.json.
# Sourced by start.sh and test.sh.
# `npm install` rather than `npm ci`: npm 11.19 leaves other platforms' optional packages (@swc/core-*) out of the
# lock file and then refuses its own lock in `npm ci`; `npm install` still installs the locked versions.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
node -e 'const [M,m]=process.versions.node.split(".").map(Number); if (M<20||(M===20&&m<19)) { console.error("Node >= 20.19 is required, found "+process.version); process.exit(1) }'
stamp=node_modules/.deps-sha
deps_sha() { cat package.json package-lock.json | sha256sum | cut -d' ' -f1; }
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(deps_sha)" ]; then
  echo "==> installing npm dependencies"
  npm install --no-audit --no-fund --loglevel=error
  deps_sha > "$stamp"
fi
