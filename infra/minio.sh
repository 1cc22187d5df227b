#!/usr/bin/env bash
# MinIO (S3-compatible, honours If-None-Match: * on PutObject) on 127.0.0.1:9100, console on 9101.
# Built once from source with `go install` into the cache ($TRIBUTARY_CACHE, default
# ~/.cache/tributary) and reused. Usage: infra/minio.sh start|stop|status
source "$(dirname "$0")/lib.sh"
PORT="${TRIBUTARY_MINIO_PORT:-9100}"
CONSOLE_PORT=$((PORT + 1))
USER_KEY="${TRIBUTARY_S3_ACCESS_KEY:-tributary}"
SECRET="${TRIBUTARY_S3_SECRET_KEY:-tributary-secret}"
BUCKET="${TRIBUTARY_S3_BUCKET:-tributary}"
# The MinIO release this project was tested with; `go install …@latest` resolved to it.
MINIO_VERSION="${TRIBUTARY_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
BIN="$CACHE/minio-$MINIO_VERSION/minio"
DIR="$DATA/minio"
PIDFILE="$RUN/minio.pid"

ready() { curl -sf "http://127.0.0.1:$PORT/minio/health/ready" >/dev/null; }

build() {
  [[ -x $BIN ]] && return 0
  command -v go >/dev/null || die "go is needed to build MinIO"
  log "building MinIO $MINIO_VERSION from source (once; about 3 minutes on a fresh machine)"
  local t0=$SECONDS
  GOBIN="$(dirname "$BIN")" GOFLAGS=-buildvcs=false with_progress "building MinIO" go install "github.com/minio/minio@$MINIO_VERSION"
  log "MinIO built in $((SECONDS - t0)) s: $BIN"
}

start() {
  build
  mkdir -p "$DIR"
  if ready; then log "minio already running on 127.0.0.1:$PORT"; else
    MINIO_ROOT_USER="$USER_KEY" MINIO_ROOT_PASSWORD="$SECRET" MINIO_BROWSER=off MINIO_UPDATE=off \
      setsid "$BIN" server "$DIR" --address "127.0.0.1:$PORT" --console-address "127.0.0.1:$CONSOLE_PORT" \
      >"$RUN/minio.log" 2>&1 < /dev/null &
    echo $! >"$PIDFILE"
    wait_until 60 minio ready || die "minio did not become ready on 127.0.0.1:$PORT (see $RUN/minio.log)"
    log "minio started"
  fi
  # Create the default bucket (200 when created, 409 when it already exists). A MinIO that has just
  # reported ready may still answer 503 for a moment: that is retried, for up to 30 s.
  local code tries=0
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" \
      --user "$USER_KEY:$SECRET" -X PUT "http://127.0.0.1:$PORT/$BUCKET")
    [[ $code == 503 && $tries -lt 60 ]] || break
    tries=$((tries + 1))
    sleep 0.5
  done
  [[ $code == 200 || $code == 409 ]] || die "could not create bucket $BUCKET (HTTP $code)"
  echo "minio: http://127.0.0.1:$PORT  bucket=$BUCKET  access key=$USER_KEY  secret=$SECRET  (path-style)"
}

stop() {
  # A MinIO started by hand without our pidfile is found by its data directory.
  if ! pid_alive "$PIDFILE"; then
    local pid; pid=$(pgrep -f "minio server $DIR" | head -n 1 || true)
    [[ -n $pid ]] && echo "$pid" >"$PIDFILE"
  fi
  stop_pid "$PIDFILE" minio
}

status() { if ready; then echo "minio: up on 127.0.0.1:$PORT"; else echo "minio: down"; return 1; fi; }

"${1:-start}"
