# syntax=docker/dockerfile:1
# Build stage: install from the lockfile, compile, then drop dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY manifests ./manifests
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev

# Runtime stage: only what `serve` needs, running as the unprivileged `node` user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    GATEWAY_HOST=0.0.0.0 \
    GATEWAY_PORT=8080 \
    GATEWAY_CONFIG=/config/gateway.json
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist/src ./dist/src
COPY --from=build --chown=node:node /app/manifests ./manifests
COPY --chown=node:node config ./config
USER node
EXPOSE 8080
# Mount your config at /config/gateway.json. On 0.0.0.0 the gateway refuses to start without
# a client token, and accepts only Host headers listed in listen.allowedHosts besides loopback.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.GATEWAY_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]
