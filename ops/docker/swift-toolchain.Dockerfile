# A Swift build image made from a toolchain already on the machine, for places that cannot pull
# swift:6.2-bookworm (./ops/containers uses it: no registry is reachable there). The build
# context is the toolchain's root (the folder holding usr/bin/swift), copied to /opt/swift.
#   podman build -f ops/docker/swift-toolchain.Dockerfile -t atelier-swift /opt/swift
# PACKAGE_MIRROR, when set, is a folder of Swift package git mirrors laid out as OWNER/NAME.git
# that git reads instead of https://github.com/ (the build then mounts it at that path).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
ARG PACKAGE_MIRROR=
RUN apt-get update && apt-get install -y --no-install-recommends binutils gcc g++ libc6-dev libstdc++-12-dev \
      libcurl4-openssl-dev libedit2 libncurses6 libsqlite3-0 libxml2 libz3-4 libpython3.11 pkg-config tzdata git \
      ca-certificates zlib1g-dev && rm -rf /var/lib/apt/lists/* \
 && if [ -n "$PACKAGE_MIRROR" ]; then git config --system url."$PACKAGE_MIRROR/".insteadOf https://github.com/; fi
COPY . /opt/swift
ENV PATH=/opt/swift/usr/bin:$PATH
