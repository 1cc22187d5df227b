#!/usr/bin/env bash
# Installs the compatibility oracles the compat tests drive (test/support/src/oracles.ts):
#   pypaimon     a virtual environment in .cache/venv with test/compat/python/requirements.txt
#   Paimon Java  test/compat/java built into test/compat/java/target/paimon-oracle.jar (+ lib/)
#   Paimon Java's HiveCatalog  test/compat/java-hive built into
#                test/compat/java-hive/target/paimon-hive-oracle.jar (+ lib/), for the Hive catalog's compat test
#   schemathesis a virtual environment in .cache/venv-fuzz with test/api-fuzz/requirements.txt (the
#                API fuzzer of `npm run test:api-fuzz`; its own venv, so its pins never meet pypaimon's)
# TRIBUTARY_ORACLES='pypaimon java' installs only those. Idempotent: each is rebuilt only when missing or when its inputs changed (a sha256 of them is
# stored beside the result); Maven's own ~/.m2 caches the jars between runs.
source "$(dirname "$0")/lib.sh"

VENV="$REPO/.cache/venv"
REQUIREMENTS="$REPO/test/compat/python/requirements.txt"
FUZZ_VENV="$REPO/.cache/venv-fuzz"
FUZZ_REQUIREMENTS="$REPO/test/api-fuzz/requirements.txt"
JAVA_DIR="$REPO/test/compat/java"
JAR="$JAVA_DIR/target/paimon-oracle.jar"
HIVE_JAVA_DIR="$REPO/test/compat/java-hive"
HIVE_JAR="$HIVE_JAVA_DIR/target/paimon-hive-oracle.jar"
# A class-data-sharing archive of the classes one create/write/read loads: it halves each JVM start
# (the compat tests start one per oracle call). Made for this exact JDK, so the JDK is in the stamp.
CDS="$JAVA_DIR/target/paimon-oracle.jsa"

# stamp_of <files...>: one hash over the files' contents and their names relative to the checkout
# (absolute paths would make every checkout of the same sources rebuild the shared results).
stamp_of() { (cd "$REPO" && sha256sum "${@#"$REPO"/}") | sha256sum | cut -d' ' -f1; }

# python_venv <venv> <requirements> <what> <import check>: (re)creates the venv when its pins changed.
python_venv() {
  local venv=$1 requirements=$2 what=$3 check=$4 t0=$SECONDS stamp
  command -v python3 >/dev/null || die "oracles: python3 is not installed"
  stamp="$(stamp_of "$requirements") $(python3 --version 2>&1)"
  if [[ -x $venv/bin/python && -f $venv/.requirements-stamp && $(cat "$venv/.requirements-stamp") == "$stamp" ]]; then
    log "oracles: $what venv is up to date ($venv)"
    return
  fi
  log "oracles: creating the $what venv in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || die "oracles: python3 -m venv failed (is the venv module installed?)"
  with_progress "installing the $what venv" "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" \
    || die "oracles: pip install -r $requirements failed"
  "$venv/bin/python" -c "$check" || die "oracles: the $what venv does not import"
  printf '%s' "$stamp" >"$venv/.requirements-stamp"
  log "oracles: $what venv installed in $((SECONDS - t0)) s"
}

python_oracle() { python_venv "$VENV" "$REQUIREMENTS" pypaimon 'import pypaimon, pyarrow'; }
api_fuzzer() { python_venv "$FUZZ_VENV" "$FUZZ_REQUIREMENTS" schemathesis 'import schemathesis'; }

java_oracle() {
  local t0=$SECONDS stamp sources
  command -v java >/dev/null || die "oracles: java is not installed (JDK 17 or newer)"
  command -v mvn >/dev/null || ensure_debs maven
  mapfile -t sources < <(find "$JAVA_DIR/src" -type f | sort)
  # This script is in the stamp too: it makes the class archive.
  stamp="$(stamp_of "$JAVA_DIR/pom.xml" "${sources[@]}" "$REPO/infra/oracles.sh") $(java -version 2>&1 | head -1)"
  if [[ -f $JAR && -f $CDS && -f $JAVA_DIR/target/.build-stamp && $(cat "$JAVA_DIR/target/.build-stamp") == "$stamp" ]]; then
    log "oracles: Paimon Java runner is up to date ($JAR)"
    return
  fi
  log "oracles: building the Paimon Java runner (mvn package)"
  mkdir -p "$REPO/.cache"
  # Maven's output goes to the log; the progress lines to the terminal.
  with_progress "mvn package (log: .cache/oracle-mvn.log)" \
    bash -c 'cd "$1" && mvn --batch-mode --no-transfer-progress clean package >"$2" 2>&1' _ "$JAVA_DIR" "$REPO/.cache/oracle-mvn.log" \
    || { tail -40 "$REPO/.cache/oracle-mvn.log" >&2; die "oracles: mvn package in $JAVA_DIR failed (log: .cache/oracle-mvn.log)"; }
  [[ -f $JAR ]] || die "oracles: mvn did not produce $JAR"
  java_class_archive
  printf '%s' "$stamp" >"$JAVA_DIR/target/.build-stamp"
  log "oracles: Paimon Java runner built in $((SECONDS - t0)) s"
}

# java_class_archive: runs one create/write/read so the JVM records the classes it loaded.
java_class_archive() {
  local warehouse; warehouse=$(mktemp -d)
  local table='"warehouse": "'"$warehouse"'", "database": "warmup", "table": "t"'
  local ts='{"epochMillis": 1, "nanoOfMillis": 1000}'
  local request='{"ops": [
    {"op": "create", '"$table"', "fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "p", "type": "STRING NOT NULL"},
      {"name": "b", "type": "BIGINT"}, {"name": "d", "type": "DECIMAL(38, 10)"}, {"name": "y", "type": "BYTES"},
      {"name": "dt", "type": "DATE"}, {"name": "ts", "type": "TIMESTAMP(6)"}, {"name": "f", "type": "DOUBLE"}],
      "partitionKeys": ["p"], "primaryKeys": ["id", "p"], "options": {"bucket": "2"}},
    {"op": "write", '"$table"', "rows": [[1, "a", "1", "1", "00", 1, '"$ts"', 1.5], [2, "a", null, null, null, null, null, null]]},
    {"op": "write", '"$table"', "rows": [[2, "a", null, null, null, null, null, null]], "kinds": ["-D"]},
    {"op": "read", '"$table"'}, {"op": "read", '"$table"', "snapshotId": 1}]}'
  # The same flags as test/support/src/oracles.ts starts the runner with.
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ArchiveClassesAtExit="$CDS" -Xlog:disable -Xlog:all=warning:stderr -jar "$JAR" batch \
    <<<"$request" >"$warehouse.out" 2>&1 || { cat "$warehouse.out" >&2; die "oracles: the Paimon Java runner failed its warm-up run"; }
  rm -rf "$warehouse" "$warehouse.out"
}

# The HiveCatalog runner: its own Maven project (Paimon 1.2.0 in the Hive connector jar), no class archive.
java_hive_oracle() {
  local t0=$SECONDS stamp sources
  mapfile -t sources < <(find "$HIVE_JAVA_DIR/src" -type f | sort)
  stamp="$(stamp_of "$HIVE_JAVA_DIR/pom.xml" "${sources[@]}") $(java -version 2>&1 | head -1)"
  if [[ -f $HIVE_JAR && -f $HIVE_JAVA_DIR/target/.build-stamp && $(cat "$HIVE_JAVA_DIR/target/.build-stamp") == "$stamp" ]]; then
    log "oracles: Paimon Java HiveCatalog runner is up to date ($HIVE_JAR)"
    return
  fi
  log "oracles: building the Paimon Java HiveCatalog runner (mvn package)"
  with_progress "mvn package (log: .cache/oracle-hive-mvn.log)" \
    bash -c 'cd "$1" && mvn --batch-mode --no-transfer-progress clean package >"$2" 2>&1' _ "$HIVE_JAVA_DIR" "$REPO/.cache/oracle-hive-mvn.log" \
    || { tail -40 "$REPO/.cache/oracle-hive-mvn.log" >&2; die "oracles: mvn package in $HIVE_JAVA_DIR failed (log: .cache/oracle-hive-mvn.log)"; }
  [[ -f $HIVE_JAR ]] || die "oracles: mvn did not produce $HIVE_JAR"
  printf '%s' "$stamp" >"$HIVE_JAVA_DIR/target/.build-stamp"
  log "oracles: Paimon Java HiveCatalog runner built in $((SECONDS - t0)) s"
}

t0=$SECONDS
# TRIBUTARY_ORACLES: which to install (default all; the demo needs pypaimon only).
read -ra oracles <<<"${TRIBUTARY_ORACLES:-pypaimon api-fuzz java java-hive}"
for o in "${oracles[@]}"; do
  case $o in
    pypaimon) python_oracle ;;
    api-fuzz) api_fuzzer ;;
    java) java_oracle ;;
    java-hive) java_hive_oracle ;;
    *) die "oracles: unknown oracle '$o' in TRIBUTARY_ORACLES (pypaimon, api-fuzz, java, java-hive)" ;;
  esac
done
log "oracles: ready in $((SECONDS - t0)) s"
