# Compile TypeScript with the full toolchain.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only: mysql2, swagger-ui-dist and jose, with what they depend on.
# --legacy-peer-deps leaves out peer dependencies: mysql2 names @types/node as one (for its typings
# only), and npm would install it, with undici-types, even with --omit=dev --omit=peer, because the
# lockfile counts it as a production package. No runtime package needs a peer at run time
# (test/deploy/production-start.test.ts checks that). Locally: `npm ls --omit=dev` lists what
# this installs, and after `npm ci --omit=dev --legacy-peer-deps` it shows no @types/node.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --legacy-peer-deps --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=5000
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json openapi.json schema.sql ./
USER node
EXPOSE 5000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const tls = Boolean(process.env.TLS_CERT_FILE); require(tls ? 'node:https' : 'node:http').get({ host: '127.0.0.1', port: process.env.PORT || 5000, path: '/healthz', rejectUnauthorized: false }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]
# SIGTERM drains the service: SHUTDOWN_DELAY_S, then up to 10 s for requests in flight. That is more
# than Docker's default 10 s before SIGKILL, so run the image with `docker run --stop-timeout 30`
# (docker-compose.yml sets stop_grace_period: 30s).
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/commands/start.js"]
