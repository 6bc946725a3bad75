#!/bin/sh
# The SeaweedFS container's entrypoint: the S3 gateway checks every request's signature (and
# every pre-signed URL's) against the one identity written here, in a file only this user
# reads (under /tmp, a tmpfs in docker-compose.yml), then `weed server` runs in the foreground.
set -eu
: "${ATELIER_S3_ACCESS_KEY_ID:?set ATELIER_S3_ACCESS_KEY_ID}"
: "${ATELIER_S3_SECRET_ACCESS_KEY:?set ATELIER_S3_SECRET_ACCESS_KEY}"
umask 077
printf '{"identities":[{"name":"atelier","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Admin","Read","Write","List","Tagging"]}]}\n' \
  "$ATELIER_S3_ACCESS_KEY_ID" "$ATELIER_S3_SECRET_ACCESS_KEY" > /tmp/identities.json
# Master, volume and filer talk to each other inside the container (127.0.0.1); the S3 gateway
# listens on every address. The flags past -s3.config are ./ops/run's (ops/lib/common.sh).
exec weed server -dir=/data -ip=127.0.0.1 -ip.bind=0.0.0.0 -s3 -s3.port=8333 -s3.config=/tmp/identities.json \
  -s3.port.iceberg=0 -s3.port.lance=0 -master.telemetry=false -volume.preStopSeconds=0 -volume.max=64 \
  -master.volumeSizeLimitMB=512 "$@"
