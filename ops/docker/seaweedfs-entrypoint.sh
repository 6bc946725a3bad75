#!/bin/bash
# The SeaweedFS container's entrypoint.
#
# - The S3 gateway checks every request's signature (and every pre-signed URL's) against one
#   identity, written here into a file only this user reads (under /tmp, a tmpfs in
#   docker-compose.yml). It may read, write and list the bucket ATELIER_S3_BUCKET and nothing
#   else: no other bucket, no bucket made or deleted, no identity managed (the IAM API is off).
# - Every SeaweedFS server listens on 127.0.0.1 only: master, volume and filer (which ask for no
#   credential) and the gateway with its gRPC port (whose Configure call replaces the identities,
#   unauthenticated). socat forwards :8333 on every address to the gateway, so the signed S3 API
#   is all another container or host can reach.
# - The bucket is made here, once (`weed shell`; a no-op when it exists), since the identity the
#   API and workers hold may not make one.
# SIGTERM or SIGINT stops both processes; when either exits, the container does.
set -euo pipefail
: "${ATELIER_S3_ACCESS_KEY_ID:?set ATELIER_S3_ACCESS_KEY_ID}"
: "${ATELIER_S3_SECRET_ACCESS_KEY:?set ATELIER_S3_SECRET_ACCESS_KEY}"
bucket="${ATELIER_S3_BUCKET:-atelier}"
case "$bucket" in
  *[!a-z0-9.-]* | "") echo "seaweedfs-entrypoint: ATELIER_S3_BUCKET '$bucket' is not a bucket name" >&2; exit 2 ;;
esac
umask 077
printf '{"identities":[{"name":"atelier","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Read:%s","Write:%s","List:%s"]}]}\n' \
  "$ATELIER_S3_ACCESS_KEY_ID" "$ATELIER_S3_SECRET_ACCESS_KEY" "$bucket" "$bucket" "$bucket" > /tmp/identities.json

# The gateway on 127.0.0.1:8334 (gRPC 18334); the flags past -s3.config are ./ops/run's
# (ops/lib/common.sh).
weed server -dir=/data -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3 -s3.port=8334 -s3.port.grpc=18334 \
  -s3.config=/tmp/identities.json -s3.iam=false -s3.autoCreateBucket=false \
  -s3.port.iceberg=0 -s3.port.lance=0 -master.telemetry=false -volume.preStopSeconds=0 -volume.max=64 \
  -master.volumeSizeLimitMB=512 "$@" &
weed_pid=$!
socat TCP-LISTEN:8333,fork,reuseaddr,backlog=1024 TCP:127.0.0.1:8334 &
socat_pid=$!
trap 'kill -TERM "$weed_pid" "$socat_pid" 2>/dev/null || true' TERM INT

# weed shell waits for the master; the bucket is there when it says made or there already.
for _ in $(seq 1 120); do
  said="$(echo "s3.bucket.create -name $bucket" | timeout 60 weed shell -master=127.0.0.1:9333 2>&1 || true)"
  case "$said" in
    *"created bucket"* | *"already exists"*) echo "seaweedfs-entrypoint: bucket $bucket ready"; break ;;
  esac
  kill -0 "$weed_pid" 2>/dev/null || break
  sleep 1
done

status=0
wait -n "$weed_pid" "$socat_pid" || status=$?
kill -TERM "$weed_pid" "$socat_pid" 2>/dev/null || true
wait || true
exit "$status"
