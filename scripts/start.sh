#!/usr/bin/env bash
# One command for the whole local stack: PostgreSQL, Temporal (server + Web UI), worker and API with a demo tenant.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# the pinned Temporal CLI's first build (minutes of compiling) runs beside npm install (scripts/test.sh does the same)
bash scripts/build-temporal-cli.sh & cli_build=$!
source scripts/ensure-deps.sh
wait "$cli_build" || echo "==> the background build of the Temporal CLI failed; scripts/start.ts tries again"
exec node --import tsx scripts/start.ts "$@"
