#!/bin/sh
# Runs once, when docker compose first creates the database volume (docker-entrypoint-initdb.d).
# The API, the workers and migrations connect as `atelier`, an ordinary role that owns its
# database; only this script, as the superuser, creates the pgvector extension it needs.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
     -v password="$ATELIER_DB_PASSWORD" <<'SQL'
CREATE ROLE atelier LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'password';
CREATE DATABASE atelier OWNER atelier;
\connect atelier
CREATE EXTENSION IF NOT EXISTS vector;
SQL
