#!/usr/bin/env bash
# The whole test suite: installs what it needs (npm packages, the pinned Temporal CLI), type-checks, runs jest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/ensure-deps.sh
echo "==> Temporal CLI: $(node --import tsx temporal/devServer.ts --install-only)"
echo "==> layer check (dependency-cruiser, .dependency-cruiser.cjs)"
npm run --silent layers
echo "==> type check"
npx tsc --noEmit
echo "==> tests"
# One process runs every suite in turn and its heap grows with each suite's modules: 145 suites outgrew V8's default
# limit (about 4 GB) just after the last one passed. The machine has 24 GB.
NODE_ENV=test NODE_OPTIONS="--max-old-space-size=8192 ${NODE_OPTIONS:-}" npx jest --runInBand "$@"
