#!/usr/bin/env bash
# One command for the whole local stack: PostgreSQL, Temporal (server + Web UI), worker and API with a demo tenant.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/ensure-deps.sh
exec node --import tsx scripts/start.ts "$@"
