#!/usr/bin/env bash
# Redis for BullMQ on 127.0.0.1:6390: append-only persistence on, maxmemory-policy noeviction
# (BullMQ loses jobs if Redis evicts keys). Usage: infra/redis.sh start|stop|status
source "$(dirname "$0")/lib.sh"
PORT="${TRIBUTARY_REDIS_PORT:-6390}"
DIR="$DATA/redis"
PIDFILE="$RUN/redis.pid"

ping() { redis-cli -h 127.0.0.1 -p "$PORT" ping | grep -q PONG; }

start() {
  ensure_debs redis-server redis-tools
  mkdir -p "$DIR"
  if ping 2>/dev/null; then log "redis already running on 127.0.0.1:$PORT"; else
    redis-server --daemonize yes --bind 127.0.0.1 --port "$PORT" --dir "$DIR" \
      --pidfile "$PIDFILE" --logfile "$RUN/redis.log" \
      --appendonly yes --appendfsync everysec --save '' --maxmemory-policy noeviction
    wait_until 20 redis ping || die "redis did not answer on 127.0.0.1:$PORT (see $RUN/redis.log)"
    log "redis started"
  fi
  echo "redis: redis://127.0.0.1:$PORT  (TRIBUTARY_REDIS_PORT=$PORT)"
}

stop() {
  local pid=""; pid_alive "$PIDFILE" && pid=$(cat "$PIDFILE")
  if ping 2>/dev/null; then
    redis-cli -h 127.0.0.1 -p "$PORT" shutdown >/dev/null 2>&1 || true
    # SHUTDOWN flushes the append-only file and removes the pidfile; wait for the process to go.
    [[ -n $pid ]] && { wait_until 20 "redis to exit" bash -c "! kill -0 $pid" || kill -9 "$pid"; }
    log "redis stopped"
  else
    stop_pid "$PIDFILE" redis
  fi
  rm -f "$PIDFILE"
}

status() { if ping 2>/dev/null; then echo "redis: up on 127.0.0.1:$PORT"; else echo "redis: down"; return 1; fi; }

"${1:-start}"
