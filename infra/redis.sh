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

# ours: the Redis answering on the port is this checkout's (its pid is our pidfile's, or it keeps
# its data in our data directory). Another checkout's Redis on the same port is left running.
ours() {
  local info pid dir
  info=$(redis-cli -h 127.0.0.1 -p "$PORT" info server 2>/dev/null) || return 1
  pid=$(sed -n 's/^process_id:\([0-9]*\).*/\1/p' <<<"$info")
  [[ -s $PIDFILE && $pid == "$(cat "$PIDFILE")" ]] && return 0
  dir=$(redis-cli -h 127.0.0.1 -p "$PORT" --raw config get dir 2>/dev/null | sed -n 2p)
  [[ -n $dir && $(cd "$DIR" 2>/dev/null && pwd -P) == "$(cd "$dir" 2>/dev/null && pwd -P)" ]]
}

stop() {
  if ping 2>/dev/null && ! ours; then
    log "the redis on 127.0.0.1:$PORT was not started from this checkout ($DIR); left running"
    return 0
  fi
  local pid=""; pid_alive "$PIDFILE" && pid=$(cat "$PIDFILE")
  if ping 2>/dev/null; then
    [[ -z $pid ]] && pid=$(redis-cli -h 127.0.0.1 -p "$PORT" info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')
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
