# syntax=docker/dockerfile:1
#
# One image for every Careen app. APP selects what a container runs: exchange, agbot,
# maintenance-session, deployment-orchestrator, notifier, agent or cli.
#   docker build -t careen:0.1.0 .                      APP given at run time (-e APP=exchange)
#   docker build --build-arg APP=exchange -t careen-exchange .
# The apps run from their TypeScript sources through @swc-node/register, so the image keeps
# the whole workspace and all of its dependencies.

FROM node:20-bookworm-slim AS manifests
WORKDIR /src
COPY . .
# Only the files npm install reads, so the dependency layer below is rebuilt only when they change.
RUN mkdir /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=manifests /manifests/ ./
# Install scripts are skipped: none is needed at run time (the embedded Postgres binaries they
# would prepare are for the local launcher only).
RUN npm install --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY . .

ARG APP=""
ENV APP=${APP} \
    NODE_ENV=production
USER node
EXPOSE 8080 8081 8082 8083 8084
# exec replaces the shell, so SIGTERM reaches run-app.js, which passes it on to the app.
CMD ["sh", "-c", "exec node tools/launcher/run-app.js \"$APP\""]
