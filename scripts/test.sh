#!/usr/bin/env bash
# The whole test suite: installs what it needs (npm packages, the pinned Temporal CLI, schemathesis), checks the
# layers and the types, and runs every jest suite against one real PostgreSQL and one real Temporal dev server.
# Extra arguments go to jest (`bash scripts/test.sh test/api/kcurve.test.ts`); docs/TESTING.md says when to use what.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/ensure-deps.sh
echo "==> Temporal CLI: $(node --import tsx temporal/devServer.ts --install-only)"
bash scripts/ensure-chromium.sh
# How fast the machine is (bench/lib/hostGauge.ts: fixed Node work that uses none of our code, lower is faster): this
# machine's speed drifts by up to 1.8x from hour to hour, so a run's time says little without it (docs/TESTING.md).
# Taken before the background checks start and after they end, so nothing of ours runs beside it.
gauge() { node --import tsx bench/lib/hostGauge.ts 2>/dev/null || echo "not measured"; }
echo "==> host gauge before the suites: $(gauge)"
# The type check and the layer check need no database: they run while jest's first suites wait on PostgreSQL and
# Temporal, and their verdict is read at the end.
checks=$(mktemp -d)
( npm run --silent layers >"$checks/layers" 2>&1; echo $? >"$checks/layers.rc" ) &
# tsc keeps what it checked in a build-info file (file hashes and their diagnostics) and checks again only what
# changed: a copy under ~/.cache starts a fresh clone from the last run's (16 CPU-s against 36). It lives at the same
# place in every clone (paths in it are relative to it), in node_modules, which git ignores.
tsc_cache="${XDG_CACHE_HOME:-$HOME/.cache}/planning-platform/tsc"
tsc_info=node_modules/.cache/planning-tsc.tsbuildinfo
( mkdir -p node_modules/.cache
  [ -f "$tsc_info" ] || cp "$tsc_cache/planning.tsbuildinfo" "$tsc_info" 2>/dev/null || true
  npx tsc --noEmit --incremental --tsBuildInfoFile "$tsc_info" >"$checks/tsc" 2>&1; echo $? >"$checks/tsc.rc"
  mkdir -p "$tsc_cache" 2>/dev/null && cp "$tsc_info" "$tsc_cache/.tmp-$$" 2>/dev/null && mv "$tsc_cache/.tmp-$$" "$tsc_cache/planning.tsbuildinfo" || true ) &
echo "==> tests (jest; workers: jest.config.js maxWorkers)"
# each suite's time, for `npm run test:timings -- <file>` (the order of the next runs, docs/TESTING.md)
results="${TEST_RESULTS:-${TMPDIR:-/tmp}/planning-test-results.json}"
set +e
# a whole run makes nearly two hundred tenants: their schemas are migrated once into the workers' template
# (test/support/tenantPool.ts); a run of a few files makes too few to pay for it
[ "$#" -gt 0 ] || export TEST_TENANT_POOL="${TEST_TENANT_POOL:-50}"
NODE_ENV=test npx jest --json --outputFile="$results" "$@"
jest_rc=$?
echo "==> suite times: $results (npm run test:timings -- $results)"
wait
set -e
echo "==> host gauge after the suites: $(gauge)"
echo "==> layer check (dependency-cruiser, .dependency-cruiser.cjs)"
cat "$checks/layers"
echo "==> type check"
cat "$checks/tsc"
layers_rc=$(cat "$checks/layers.rc"); tsc_rc=$(cat "$checks/tsc.rc")
rm -rf "$checks"
[ "$layers_rc" = 0 ] || { echo "layer check failed"; exit 1; }
[ "$tsc_rc" = 0 ] || { echo "type check failed"; exit 1; }
exit "$jest_rc"
