#!/usr/bin/env bash
# Installs the compatibility oracles the compat tests drive (test/support/src/oracles.ts):
#   pypaimon     a virtual environment in .cache/venv with test/compat/python/requirements.txt
#   Paimon Java  test/compat/java built into test/compat/java/target/paimon-oracle.jar (+ lib/)
# Idempotent: each is rebuilt only when missing or when its inputs changed (a sha256 of them is
# stored beside the result); Maven's own ~/.m2 caches the jars between runs.
source "$(dirname "$0")/lib.sh"

VENV="$REPO/.cache/venv"
REQUIREMENTS="$REPO/test/compat/python/requirements.txt"
JAVA_DIR="$REPO/test/compat/java"
JAR="$JAVA_DIR/target/paimon-oracle.jar"

# stamp_of <files...>: one hash over the files' contents and names.
stamp_of() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

python_oracle() {
  local t0=$SECONDS stamp
  command -v python3 >/dev/null || die "oracles: python3 is not installed"
  stamp="$(stamp_of "$REQUIREMENTS") $(python3 --version 2>&1)"
  if [[ -x $VENV/bin/python && -f $VENV/.requirements-stamp && $(cat "$VENV/.requirements-stamp") == "$stamp" ]]; then
    log "oracles: pypaimon venv is up to date ($VENV)"
    return
  fi
  log "oracles: creating the pypaimon venv in $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV" || die "oracles: python3 -m venv failed (is the venv module installed?)"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS" \
    || die "oracles: pip install -r $REQUIREMENTS failed"
  "$VENV/bin/python" -c 'import pypaimon, pyarrow' || die "oracles: pypaimon does not import"
  printf '%s' "$stamp" >"$VENV/.requirements-stamp"
  log "oracles: pypaimon venv installed in $((SECONDS - t0)) s"
}

java_oracle() {
  local t0=$SECONDS stamp sources
  command -v java >/dev/null || die "oracles: java is not installed (JDK 17 or newer)"
  command -v mvn >/dev/null || ensure_debs maven
  mapfile -t sources < <(find "$JAVA_DIR/src" -type f | sort)
  stamp=$(stamp_of "$JAVA_DIR/pom.xml" "${sources[@]}")
  if [[ -f $JAR && -f $JAVA_DIR/target/.build-stamp && $(cat "$JAVA_DIR/target/.build-stamp") == "$stamp" ]]; then
    log "oracles: Paimon Java runner is up to date ($JAR)"
    return
  fi
  log "oracles: building the Paimon Java runner (mvn package)"
  (cd "$JAVA_DIR" && mvn --batch-mode --quiet --no-transfer-progress clean package) \
    || die "oracles: mvn package in $JAVA_DIR failed"
  [[ -f $JAR ]] || die "oracles: mvn did not produce $JAR"
  printf '%s' "$stamp" >"$JAVA_DIR/target/.build-stamp"
  log "oracles: Paimon Java runner built in $((SECONDS - t0)) s"
}

t0=$SECONDS
python_oracle
java_oracle
log "oracles: ready in $((SECONDS - t0)) s"
