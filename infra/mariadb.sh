#!/usr/bin/env bash
# MariaDB (Debian mariadb-server) on 127.0.0.1:3390, for the MySQL source connector.
# User tributary / tributary with all privileges. Usage: infra/mariadb.sh start|stop|status
source "$(dirname "$0")/lib.sh"
PORT="${TRIBUTARY_MARIADB_PORT:-3390}"
DIR="$DATA/mariadb"
SOCK="$RUN/mariadb.sock"
PIDFILE="$RUN/mariadb.pid"
USER_NAME="${TRIBUTARY_MARIADB_USER:-tributary}"
PASSWORD="${TRIBUTARY_MARIADB_PASSWORD:-tributary}"

ping() { mariadb-admin --no-defaults --protocol=tcp -h 127.0.0.1 -P "$PORT" -u "$USER_NAME" -p"$PASSWORD" ping; }
root_sql() { mariadb --no-defaults --socket="$SOCK" -u root -e "$1"; }

start() {
  ensure_debs mariadb-server mariadb-client
  if ping >/dev/null 2>&1; then log "mariadb already running on 127.0.0.1:$PORT"; else
    if [[ ! -d $DIR/mysql ]]; then
      log "initialising a MariaDB data directory in $DIR"
      mkdir -p "$DIR"
      mariadb-install-db --no-defaults --datadir="$DIR" --user="$(id -un)" \
        --auth-root-authentication-method=socket >"$RUN/mariadb-install.log" 2>&1 \
        || die "mariadb-install-db failed (see $RUN/mariadb-install.log)"
    fi
    setsid mariadbd --no-defaults --datadir="$DIR" --port="$PORT" --bind-address=127.0.0.1 \
      --socket="$SOCK" --pid-file="$PIDFILE" --user="$(id -un)" --skip-log-bin \
      --log-error="$RUN/mariadb.log" </dev/null >/dev/null 2>&1 &
    wait_until 60 "mariadb socket" root_sql "SELECT 1" || die "mariadb did not start (see $RUN/mariadb.log)"
    root_sql "CREATE USER IF NOT EXISTS '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$PASSWORD';
              CREATE USER IF NOT EXISTS '$USER_NAME'@'localhost' IDENTIFIED BY '$PASSWORD';
              GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'127.0.0.1' WITH GRANT OPTION;
              GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'localhost' WITH GRANT OPTION;"
    wait_until 20 mariadb ping || die "mariadb is not reachable on 127.0.0.1:$PORT"
    log "mariadb started"
  fi
  echo "mariadb: mysql://$USER_NAME:$PASSWORD@127.0.0.1:$PORT"
}

stop() { stop_pid "$PIDFILE" mariadb; }

status() { if ping >/dev/null 2>&1; then echo "mariadb: up on 127.0.0.1:$PORT"; else echo "mariadb: down"; return 1; fi; }

"${1:-start}"
