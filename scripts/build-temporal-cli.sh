#!/usr/bin/env bash
# Builds the pinned Temporal CLI with `go install` into its cache directory, unless it is already there.
#   scripts/build-temporal-cli.sh                 the pin of temporal/cli.ts into ~/.cache/planning-platform (or
#                                                 $XDG_CACHE_HOME); does nothing without Go, or when TEMPORAL_CLI_PATH
#                                                 or a `temporal` on PATH may serve (temporal/cli.ts decides then)
#   scripts/build-temporal-cli.sh VERSION DIR     that version into DIR (temporal/cli.ts's goInstall)
# The first build compiles the whole server: about 3 minutes and 330 CPU seconds on two cores. scripts/ensure-deps.sh
# starts it in the background beside `npm install`, whose minute leaves a core mostly idle.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "$#" -ge 2 ]; then
  version=$1 dir=$2
else
  [ -z "${TEMPORAL_CLI_PATH:-}" ] && ! command -v temporal >/dev/null && command -v go >/dev/null || exit 0
  version=$(sed -n "s/^export const TEMPORAL_CLI_VERSION = '\([^']*\)'.*/\1/p" temporal/cli.ts)
  [ -n "$version" ] || { echo "build-temporal-cli: no TEMPORAL_CLI_VERSION in temporal/cli.ts" >&2; exit 1; }
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/planning-platform/temporal-v$version"
  [ -x "$dir/temporal" ] && exit 0
  echo "==> building the Temporal CLI v$version into $dir in the background (the first time only, a few minutes)" >&2
fi
mkdir -p "$dir"
# into a directory of its own first and then renamed, so an interrupted build never leaves a binary to be trusted
tmp=$(mktemp -d "$dir/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 GOBIN="$tmp" go install "github.com/temporalio/cli/cmd/temporal@v$version"
mv "$tmp/temporal" "$dir/temporal"
