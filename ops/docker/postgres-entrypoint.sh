#!/bin/sh
# The PostgreSQL container's entrypoint. On the first start (no cluster in $PGDATA) it makes
# one — the superuser `postgres` with POSTGRES_PASSWORD, and `atelier`, an ordinary role that
# owns the `atelier` database, with ATELIER_DB_PASSWORD; as the superuser it creates the pgvector
# extension the schema needs — on a server that listens on no TCP port while it does. Then, and
# on every later start, it runs `postgres`, listening on every address with password (SCRAM)
# authentication, and once it answers sets both roles' passwords to the environment's: the
# environment (.env) is where they live, so a changed one takes effect at the next start and a
# cluster made with older passwords follows. SIGINT (the image's stop signal) or SIGTERM is
# passed on as a fast shutdown; the container exits with postgres.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
: "${ATELIER_DB_PASSWORD:?set ATELIER_DB_PASSWORD}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "postgres-entrypoint: making the cluster in $PGDATA"
  mkdir -p "$PGDATA"
  password_file="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
  initdb -D "$PGDATA" -U postgres --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -k /tmp" start >/dev/null
  psql -v ON_ERROR_STOP=1 -h /tmp -U postgres -d postgres -q -v password="$ATELIER_DB_PASSWORD" <<'SQL'
CREATE ROLE atelier LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'password';
CREATE DATABASE atelier OWNER atelier;
\connect atelier
CREATE EXTENSION IF NOT EXISTS vector;
SQL
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-entrypoint: cluster ready (role and database atelier, extension vector)"
fi
postgres -D "$PGDATA" -c listen_addresses='*' -k /tmp "$@" &
pid=$!
trap 'kill -INT "$pid" 2>/dev/null || true' INT TERM
(
  for _ in $(seq 1 600); do pg_isready -q -h /tmp -U postgres -d postgres && break; sleep 0.1; done
  psql -v ON_ERROR_STOP=1 -h /tmp -U postgres -d postgres -q -v superuser="$POSTGRES_PASSWORD" \
       -v password="$ATELIER_DB_PASSWORD" <<'SQL' || echo "postgres-entrypoint: the roles' passwords were NOT set" >&2
SET password_encryption = 'scram-sha-256';
ALTER ROLE postgres PASSWORD :'superuser';
ALTER ROLE atelier PASSWORD :'password';
SQL
) &
status=0
wait "$pid" || status=$?
# A signal ends `wait` early: wait on until postgres itself has exited.
while kill -0 "$pid" 2>/dev/null; do wait "$pid" || status=$?; done
exit "$status"
