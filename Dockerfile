# The image the Kubernetes examples in README.md run (registry.example.com/timeline-sheets:latest there).
# It installs the packed package with the steps `npm run check-package` runs and tests (scripts/package-steps.ts;
# test/package/dockerfile.test.ts holds the RUN lines below to them). It has never been built on the project's
# machines: no image registry is reachable from them.
#
#   docker build -t registry.example.com/timeline-sheets:latest .
#   docker run --rm -v timeline-sheets-state:/state -v "$PWD/config:/config:ro" --env-file timeline-sheets.env \
#     registry.example.com/timeline-sheets:latest --config /config/timeline-sheets.json sync
#
# The config's "stateDir" must be "/state" (a relative one is relative to the config file, not to /state).

# Stage 1: a clone as CI has it (.ci/run: npm ci), packed (prepack builds dist/).
FROM node:24-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm pack --json --pack-destination /pack

# Stage 2: only the installed package, run as the image's unprivileged node user.
FROM node:24-bookworm-slim
# tini is PID 1 and passes SIGTERM on: Node as PID 1 ignores a signal it has no handler for, so a one-shot
# export would not stop on `docker stop` or a pod's end; sync --watch and --cron stop after the run under way.
RUN apt-get update \
  && apt-get install --yes --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
COPY --from=pack /pack/ /pack/
RUN npm install --global --no-audit --no-fund --prefer-offline /pack/timeline-sheets-*.tgz \
  && rm -rf /pack /root/.npm
RUN mkdir /state && chown 1000:1000 /state
# Numeric, so that Kubernetes' runAsNonRoot can tell it is not root (1000 is the node user of the node images).
USER 1000:1000
WORKDIR /state
VOLUME ["/state"]
ENTRYPOINT ["/usr/bin/tini", "--", "timeline-sheets"]
CMD ["--help"]
