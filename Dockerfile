# syntax=docker/dockerfile:1
#
# One image for every Careen app, built in three stages: the apps compiled to JavaScript
# (`npm run build`: dist/<app>/), the production dependencies alone, and the image itself with
# only those two on a pinned Node base, run as the unprivileged user node. APP selects what a
# container runs: exchange, agbot, maintenance-session, deployment-orchestrator, notifier,
# console (the web console's server, with the app built into dist/console/public), agent, cli,
# vnf-manager or nats-auth.
#   docker build -t careen:0.1.0 .                      APP given at run time (-e APP=exchange)
#   docker build --build-arg APP=exchange -t careen-exchange .
# A container runs `node dist/$APP/main.js`; other arguments go with the command, as the
# migration Jobs do: `node dist/agbot/main.js migrate`.

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
# Install scripts are skipped: none is needed to compile (the embedded Postgres binaries they
# would prepare are for the local launcher only).
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && NX_DAEMON=false NX_NO_CLOUD=true npm run build \
 # Only the files a production install reads, for the next stage.
 && mkdir /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /deps
COPY --from=build /manifests/ ./
# The workspace links are dropped: the compiled apps import each other by relative paths.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
 && rm -rf node_modules/@careen \
 && npm cache clean --force

FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
COPY --from=dependencies /deps/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY tools/container/healthcheck.js ./healthcheck.js
ARG APP=""
ENV APP=${APP}
USER node
EXPOSE 8080 8081 8082 8083 8084 8085
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 CMD ["node", "healthcheck.js"]
# exec replaces the shell, so SIGTERM reaches the app.
CMD ["sh", "-c", "exec node \"dist/$APP/main.js\""]
