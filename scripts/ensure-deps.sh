#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package-lock.json. Sourced by start.sh and test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
node -e 'const [M,m]=process.versions.node.split(".").map(Number); if (M<20||(M===20&&m<19)) { console.error("Node >= 20.19 is required, found "+process.version); process.exit(1) }'
stamp=node_modules/.lock-sha
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "==> installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
