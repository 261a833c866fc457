#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package.json / package-lock.json, and on a
# first run builds the pinned Temporal CLI beside them (minutes of compiling, while npm mostly waits on the registry;
# not when TEMPORAL_ADDRESS names a server to use instead). Sourced by start.sh and test.sh; what needs the CLI after
# this finds it cached, or builds or falls back itself when the background build failed (temporal/cli.ts).
# `npm install` rather than `npm ci`: npm 11.19 leaves other platforms' optional packages (@swc/core-*) out of the
# lock file and then refuses its own lock in `npm ci`; `npm install` still installs the locked versions.
#
# A fresh clone copies the node_modules that an earlier install on this machine made from the same lock file, Node
# and platform (kept under ~/.cache/planning-platform, like the Temporal CLI): the copy takes seconds where
# `npm install` took a minute of both cores before the first test could start. The copy is made right after the
# install, before anything runs and writes caches of its own into node_modules.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
node -e 'const [M,m]=process.versions.node.split(".").map(Number); if (M<20||(M===20&&m<19)) { console.error("Node >= 20.19 is required, found "+process.version); process.exit(1) }'
stamp=node_modules/.deps-sha
# what decides the installed tree: the lock file, package.json's dependency fields (not its scripts, which change
# often), and the Node version and platform that native packages were built for
deps_sha() {
  { cat package-lock.json
    node -p 'const p = require("./package.json"); JSON.stringify([p.dependencies, p.devDependencies, p.optionalDependencies, p.overrides, process.version, process.platform, process.arch])'
  } | sha256sum | cut -d' ' -f1
}
modules_cache="${XDG_CACHE_HOME:-$HOME/.cache}/planning-platform/node_modules"
cli_build=
[ -n "${TEMPORAL_ADDRESS:-}" ] || { bash scripts/build-temporal-cli.sh & cli_build=$!; }
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(deps_sha)" ]; then
  key=$(deps_sha)
  if [ -f "$modules_cache/$key/.deps-sha" ] && [ "${PLANNING_NO_MODULES_CACHE:-}" != 1 ]; then
    echo "==> npm dependencies: copying the installed tree of this lock file from $modules_cache/$key"
    rm -rf node_modules
    bash scripts/copy-tree.sh "$modules_cache/$key" node_modules
  else
    echo "==> installing npm dependencies"
    npm install --no-audit --no-fund --loglevel=error
    echo "$key" > "$stamp"
    if [ "${PLANNING_NO_MODULES_CACHE:-}" != 1 ] && mkdir -p "$modules_cache" 2>/dev/null; then
      # written under a temporary name and renamed, so a run that stops half-way never leaves a partial tree to copy
      tmp="$modules_cache/.tmp-$key-$$"
      if bash scripts/copy-tree.sh node_modules "$tmp" 2>/dev/null; then
        rm -rf "${modules_cache:?}/$key" && mv "$tmp" "$modules_cache/$key"
        # keep the two most recent lock files' trees (a branch switch back and forth stays fast)
        ls -1dt "$modules_cache"/*/ 2>/dev/null | tail -n +3 | xargs -r rm -rf
      else
        rm -rf "$tmp"
      fi
    fi
  fi
fi
if [ -n "$cli_build" ]; then wait "$cli_build" || echo "==> the background build of the Temporal CLI failed; it is tried again when needed"; fi
