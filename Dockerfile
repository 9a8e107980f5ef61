# PayForge image: build the single executable with Bun, then ship it alone on a slim Debian
# (it needs only glibc). The database lives on the /data volume; the process runs as non-root.

FROM oven/bun:1.4.5 AS build
WORKDIR /src
# Dependencies first so this layer is cached until the lockfile changes. --production: the
# build needs the runtime packages only (the dev ones are test chains and type checkers).
COPY package.json bun.lock bunfig.toml ./
RUN bun install --frozen-lockfile --production
COPY . .
RUN bun run build && ./dist/payforge machine --json > /dev/null

FROM debian:bookworm-slim
# A fixed uid/gid so a bind-mounted /data can be chowned to it on the host.
RUN groupadd --system --gid 10001 payforge \
 && useradd --system --uid 10001 --gid payforge --no-create-home --shell /usr/sbin/nologin payforge \
 && mkdir -p /data && chown payforge:payforge /data
COPY --from=build --chown=root:root /src/dist/payforge /payforge
USER payforge
WORKDIR /data
VOLUME /data
ENV PAYFORGE_HOST=0.0.0.0 \
    PAYFORGE_PORT=8080 \
    PAYFORGE_DB=/data/payforge.db
EXPOSE 8080
# `payforge health` reads the same config (port from PAYFORGE_PORT or the config file) and
# GETs /healthz on loopback: no curl in the image.
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 CMD ["/payforge", "health"]
# SIGTERM (docker stop) makes serve stop gracefully.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/payforge"]
CMD ["serve"]
