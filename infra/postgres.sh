#!/usr/bin/env bash
# PostgreSQL (Debian postgresql) on 127.0.0.1:5440, for the PostgreSQL source connector and the
# Hive Metastore's store (infra/hive-metastore.sh); 200 connections, as the tests run several metastores.
# The server refuses to run as root, so it runs as the `postgres` system user when started by root.
# User tributary / tributary (superuser), database tributary. Usage: infra/postgres.sh start|stop|status
source "$(dirname "$0")/lib.sh"
PORT="${TRIBUTARY_POSTGRES_PORT:-5440}"
DIR="$DATA/postgres"
SOCKDIR="$RUN/postgres"
# Run as root, the server runs as `postgres`, which must be able to reach its directories. When the
# repository sits under a private home (a 0700 /root, say) it cannot, so the cluster then lives in a
# directory of its own under /var/tmp, one per data directory.
if [[ $(id -u) -eq 0 ]] && id postgres >/dev/null 2>&1 && ! runuser -u postgres -- test -x "$DATA"; then
  private="/var/tmp/tributary-postgres-$(printf '%s' "$DATA" | md5sum | cut -c1-12)"
  DIR="$private/data"
  SOCKDIR="$private/run"
fi
USER_NAME="${TRIBUTARY_POSTGRES_USER:-tributary}"
PASSWORD="${TRIBUTARY_POSTGRES_PASSWORD:-tributary}"

pg_bin() {
  local v; v=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)
  [[ -n $v ]] || die "no PostgreSQL server under /usr/lib/postgresql"
  echo "/usr/lib/postgresql/$v/bin"
}
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
ping() { pg_isready -q -h 127.0.0.1 -p "$PORT"; }

start() {
  ensure_debs postgresql postgresql-client
  local bin; bin=$(pg_bin)
  mkdir -p "$DIR" "$SOCKDIR"
  [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$DIR" "$SOCKDIR" && chmod 700 "$DIR"
  [[ $DIR == "$DATA/postgres" ]] || log "postgres cannot reach $DATA; its cluster lives in $(dirname "$DIR")"
  if ping; then log "postgres already running on 127.0.0.1:$PORT"; else
    if [[ ! -f $DIR/PG_VERSION ]]; then
      log "initialising a PostgreSQL cluster in $DIR"
      as_owner "$bin/initdb" -D "$DIR" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
        >"$SOCKDIR/initdb.log" 2>&1 || die "initdb failed (see $SOCKDIR/initdb.log)"
    fi
    as_owner "$bin/pg_ctl" -D "$DIR" -l "$SOCKDIR/postgres.log" -w -t 60 start \
      -o "-p $PORT -k $SOCKDIR -c listen_addresses=127.0.0.1 -c max_connections=200" >/dev/null \
      || die "postgres did not start (see $SOCKDIR/postgres.log)"
    local psql=("$bin/psql" -q -h "$SOCKDIR" -p "$PORT" -U postgres -v ON_ERROR_STOP=1)
    as_owner "${psql[@]}" -d postgres -c "DO \$\$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$USER_NAME') THEN
          CREATE ROLE $USER_NAME LOGIN SUPERUSER PASSWORD '$PASSWORD';
        END IF; END \$\$;" >/dev/null
    as_owner "${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$USER_NAME'" | grep -q 1 \
      || as_owner "${psql[@]}" -d postgres -c "CREATE DATABASE $USER_NAME OWNER $USER_NAME" >/dev/null
    log "postgres started"
  fi
  echo "postgres: postgres://$USER_NAME:$PASSWORD@127.0.0.1:$PORT/$USER_NAME"
}

stop() {
  local bin; bin=$(pg_bin)
  if [[ -f $DIR/postmaster.pid ]]; then
    as_owner "$bin/pg_ctl" -D "$DIR" -m fast -w -t 30 stop >/dev/null && log "postgres stopped"
  else
    log "postgres is not running"
  fi
}

status() { if ping; then echo "postgres: up on 127.0.0.1:$PORT"; else echo "postgres: down"; return 1; fi; }

"${1:-start}"
