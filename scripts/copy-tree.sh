#!/usr/bin/env bash
# Copies a directory tree as `cp -a` does (owners, modes, times), without GNU cp 9's attempt to clone each file first
# (--reflink=auto): on this machine's ext4 that cost about 0.35 ms of system time per file, 17 s for node_modules'
# 50,000 files and for a 50-tenant PostgreSQL template's 29,000, against 5 and 4 s for a plain copy. Other cps have no
# such option. Used by scripts/ensure-deps.sh and the test run's template cache (test/support/templateCache.ts).
set -euo pipefail
if cp --reflink=never --version >/dev/null 2>&1; then exec cp -a --reflink=never "$1" "$2"; fi
exec cp -a "$1" "$2"
