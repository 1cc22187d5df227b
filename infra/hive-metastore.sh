#!/usr/bin/env bash
# Hive Metastore (Hive's standalone metastore server 4.0.1, Thrift, binary protocol) on
# 127.0.0.1:9183, for the Hive catalog, backed by a database of its own in the local PostgreSQL
# (infra/postgres.sh, started first if it is not running), as production metastores are. Not Derby:
# under concurrent lock and unlock calls (a Paimon Java writer and Tributary sharing a table's lock)
# the metastore's transaction handler on embedded Derby was seen waiting on its own row locks for
# minutes, answering no lock call. Installed once into the cache ($TRIBUTARY_CACHE, default
# ~/.cache/tributary) from Maven Central: the server's binary release (its jars, schema scripts and
# PostgreSQL driver) and the Hadoop libraries it runs on (infra/hive-metastore/pom.xml). Hive's
# schema tool creates the schema once, in a template database; each metastore's database (one per
# data directory) is created as a copy of it.
# Needs Java 17 and Maven. Usage: infra/hive-metastore.sh start|stop|status|purge
# (purge: stop it and drop its database, for a metastore whose data directory is deleted).
source "$(dirname "$0")/lib.sh"
here="$(cd "$(dirname "$0")" && pwd)"
PORT="${TRIBUTARY_HIVE_METASTORE_PORT:-9183}"
HIVE_VERSION=4.0.1
HOME_DIR="$CACHE/hive-metastore-$HIVE_VERSION"
SERVER="$HOME_DIR/apache-hive-metastore-$HIVE_VERSION-bin"
HADOOP_LIB="$HOME_DIR/hadoop-lib"
S3_LIB="$HOME_DIR/s3-lib"
DIR="$DATA/hive-metastore"
PIDFILE="$RUN/hive-metastore-$PORT.pid"
# The local MinIO (infra/minio.sh) that an s3:// warehouse lives on.
S3_PORT="${TRIBUTARY_MINIO_PORT:-9100}"
S3_REGION="${TRIBUTARY_S3_REGION:-us-east-1}"
S3_ACCESS_KEY="${TRIBUTARY_S3_ACCESS_KEY:-tributary}"
S3_SECRET_KEY="${TRIBUTARY_S3_SECRET_KEY:-tributary-secret}"
LOGFILE="$RUN/hive-metastore-$PORT.log"
# Its backing store: the local PostgreSQL (infra/postgres.sh) and a database named after the data
# directory, so a metastore of another data directory (the tests' own) has a store of its own.
PG_PORT="${TRIBUTARY_POSTGRES_PORT:-5440}"
PG_USER="${TRIBUTARY_POSTGRES_USER:-tributary}"
PG_PASSWORD="${TRIBUTARY_POSTGRES_PASSWORD:-tributary}"
PG_DB="hms_$(printf '%s' "$DIR" | md5sum | cut -c1-16)"
PG_TEMPLATE="hms_template_${HIVE_VERSION//./_}"
pg() { PGPASSWORD="$PG_PASSWORD" PGOPTIONS='--client-min-messages=warning' psql -q -X -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -v ON_ERROR_STOP=1 "$@"; }
pg_has_db() { pg -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'" | grep -q 1; }
pg_is_ready() { pg_isready -q -h 127.0.0.1 -p "$PG_PORT"; }

# Ready once the Thrift server socket accepts: the server opens it only after the handler and its
# backing store are set up.
ready() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

classpath() { echo "$DIR/conf:$SERVER/lib/*:$HADOOP_LIB/*:$S3_LIB/*"; }

install() {
  command -v java >/dev/null || die "java (17) is needed to run the Hive Metastore"
  command -v mvn >/dev/null || die "maven is needed to fetch the Hive Metastore"
  if [[ ! -x $SERVER/bin/start-metastore ]]; then
    log "fetching Hive's standalone metastore $HIVE_VERSION from Maven Central (once)"
    mkdir -p "$HOME_DIR"
    with_progress "fetching the Hive Metastore" mvn -B -q -f "$here/hive-metastore/pom.xml" dependency:unpack \
      "-Dartifact=org.apache.hive:hive-standalone-metastore-server:$HIVE_VERSION:tar.gz:bin" \
      "-DoutputDirectory=$HOME_DIR" >"$HOME_DIR/fetch.log" 2>&1 \
      || die "could not fetch the Hive Metastore (see $HOME_DIR/fetch.log)"
  fi
  local pom_sum; pom_sum=$(md5sum <"$here/hive-metastore/pom.xml" | cut -c1-32)
  if [[ $(cat "$HADOOP_LIB/.complete" 2>/dev/null) != "$pom_sum" ]]; then
    log "fetching the Hadoop libraries of the Hive Metastore from Maven Central (once)"
    rm -rf "$HADOOP_LIB"
    with_progress "fetching Hadoop" mvn -B -q -f "$here/hive-metastore/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime "-DoutputDirectory=$HADOOP_LIB" >"$HOME_DIR/hadoop.log" 2>&1 \
      || die "could not fetch Hadoop for the Hive Metastore (see $HOME_DIR/hadoop.log)"
    echo "$pom_sum" >"$HADOOP_LIB/.complete"
  fi
  # S3A (hadoop-aws and the AWS SDK's S3 modules) in a folder of its own.
  local s3_sum; s3_sum=$(md5sum <"$here/hive-metastore/s3/pom.xml" | cut -c1-32)
  if [[ $(cat "$S3_LIB/.complete" 2>/dev/null) != "$s3_sum" ]]; then
    log "fetching Hadoop's S3A file system for the Hive Metastore from Maven Central (once)"
    rm -rf "$S3_LIB"
    with_progress "fetching hadoop-aws" mvn -B -q -f "$here/hive-metastore/s3/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime "-DoutputDirectory=$S3_LIB" >"$HOME_DIR/s3.log" 2>&1 \
      || die "could not fetch hadoop-aws for the Hive Metastore (see $HOME_DIR/s3.log)"
    echo "$s3_sum" >"$S3_LIB/.complete"
  fi
}

write_conf() {
  mkdir -p "$DIR/conf" "$DIR/warehouse"
  cat >"$DIR/conf/metastore-site.xml" <<EOF
<?xml version="1.0"?>
<!-- Written by infra/hive-metastore.sh on each start. -->
<configuration>
  <property><name>metastore.thrift.port</name><value>$PORT</value></property>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:postgresql://127.0.0.1:$PG_PORT/$PG_DB</value></property>
  <property><name>javax.jdo.option.ConnectionDriverName</name><value>org.postgresql.Driver</value></property>
  <property><name>javax.jdo.option.ConnectionUserName</name><value>$PG_USER</value></property>
  <property><name>javax.jdo.option.ConnectionPassword</name><value>$PG_PASSWORD</value></property>
  <!-- Small connection pools: several metastores (the tests' own) share one PostgreSQL. -->
  <property><name>datanucleus.connectionPool.maxPoolSize</name><value>4</value></property>
  <property><name>metastore.warehouse.dir</name><value>file://$DIR/warehouse</value></property>
  <property><name>metastore.schema.verification</name><value>true</value></property>
  <property><name>metastore.event.db.notification.api.auth</name><value>false</value></property>
  <!-- Asynchronous logging needs the LMAX disruptor, which the release does not ship. -->
  <property><name>metastore.async.log.enabled</name><value>false</value></property>
  <!-- Warehouses on the local MinIO (s3:// and s3a://), path-style, with its keys. -->
  <property><name>fs.s3.impl</name><value>org.apache.hadoop.fs.s3a.S3AFileSystem</value></property>
  <property><name>fs.s3a.endpoint</name><value>http://127.0.0.1:$S3_PORT</value></property>
  <property><name>fs.s3a.endpoint.region</name><value>$S3_REGION</value></property>
  <property><name>fs.s3a.path.style.access</name><value>true</value></property>
  <property><name>fs.s3a.connection.ssl.enabled</name><value>false</value></property>
  <property><name>fs.s3a.access.key</name><value>$S3_ACCESS_KEY</value></property>
  <property><name>fs.s3a.secret.key</name><value>$S3_SECRET_KEY</value></property>
</configuration>
EOF
  chmod 600 "$DIR/conf/metastore-site.xml"
  cat >"$DIR/conf/metastore-log4j2.properties" <<'EOF'
# Written by infra/hive-metastore.sh: warnings and errors to standard error (the service's log file).
status = WARN
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %5p [%t] %c{2}: %m%n
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = console
EOF
}

# The schema: created once by Hive's schema tool in a template database (under a lock: tests start
# metastores side by side), then copied into this data directory's database.
init_schema() {
  if ! pg_is_ready; then bash "$here/postgres.sh" start >/dev/null; fi
  pg_has_db "$PG_DB" && return 0
  (
    flock 9
    if ! pg_has_db "$PG_TEMPLATE"; then
      log "creating the metastore's schema with Hive's schema tool (once)"
      local tmp="${PG_TEMPLATE}_init"
      pg -d postgres -c "DROP DATABASE IF EXISTS $tmp" -c "CREATE DATABASE $tmp"
      (cd "$HOME_DIR" && METASTORE_HOME="$SERVER" java -cp "$DIR/conf:$SERVER/lib/*:$HADOOP_LIB/*" \
        org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool -dbType postgres -initSchema \
        -url "jdbc:postgresql://127.0.0.1:$PG_PORT/$tmp" -driver org.postgresql.Driver \
        -userName "$PG_USER" -passWord "$PG_PASSWORD" >"$HOME_DIR/schema.log" 2>&1) \
        || die "the schema tool failed (see $HOME_DIR/schema.log)"
      # Renamed only once complete, so a half-made schema is never copied; a template nobody
      # connects to (nor lists: a PostgreSQL source's database pattern skips templates).
      pg -d postgres -c "ALTER DATABASE $tmp RENAME TO $PG_TEMPLATE" \
        -c "ALTER DATABASE $PG_TEMPLATE IS_TEMPLATE true ALLOW_CONNECTIONS false"
    fi
    pg -d postgres -c "CREATE DATABASE $PG_DB TEMPLATE $PG_TEMPLATE"
  ) 9>"$CACHE/hive-metastore-schema-$PG_PORT.lock"
}

start() {
  install
  if ready; then log "hive-metastore already running on 127.0.0.1:$PORT"; else
    local t0=$SECONDS
    write_conf
    init_schema
    cd "$DIR"
    setsid java -Xmx512m -cp "$(classpath)" org.apache.hadoop.hive.metastore.HiveMetaStore \
      >"$LOGFILE" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
    cd - >/dev/null
    if ! wait_until 180 hive-metastore ready; then
      pid_alive "$PIDFILE" || die "hive-metastore exited (see $LOGFILE)"
      die "hive-metastore did not open 127.0.0.1:$PORT in 180 s (see $LOGFILE)"
    fi
    log "hive-metastore started in $((SECONDS - t0)) s"
  fi
  echo "hive-metastore: thrift://127.0.0.1:$PORT  (TRIBUTARY_HIVE_METASTORE_PORT=$PORT)"
}

stop() {
  # A metastore started without our pidfile is found by its port in its command line's config.
  if ! pid_alive "$PIDFILE"; then
    local pid; pid=$(pgrep -f "$DIR/conf:.*org.apache.hadoop.hive.metastore.HiveMetaStore" | head -n 1 || true)
    [[ -n $pid ]] && echo "$pid" >"$PIDFILE"
  fi
  stop_pid "$PIDFILE" hive-metastore
}

purge() {
  stop
  if pg_is_ready && pg_has_db "$PG_DB"; then pg -d postgres -c "DROP DATABASE $PG_DB" && log "dropped $PG_DB"; fi
}

status() { if ready; then echo "hive-metastore: up on 127.0.0.1:$PORT"; else echo "hive-metastore: down"; return 1; fi; }

"${1:-start}"
