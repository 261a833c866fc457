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
NODE_ENV=test npx jest --runInBand "$@"
