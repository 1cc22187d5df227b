#!/usr/bin/env bash
# Installs what is missing and starts every local service the tests and the demo use, then the
# headless browser of the page test and the compatibility oracles (pypaimon, Paimon Java). Idempotent: running it again changes nothing.
source "$(dirname "$0")/lib.sh"
here="$(dirname "$0")"
t0=$SECONDS
services=(redis minio mariadb postgres hive-metastore)
if [[ -n ${TRIBUTARY_SERVICES:-} ]]; then read -ra services <<<"$TRIBUTARY_SERVICES"; fi
for s in "${services[@]}"; do bash "$here/$s.sh" start; done
# The syncs page's test (test/integration/ui) drives Debian's headless Chromium.
if [[ ${TRIBUTARY_SKIP_BROWSER:-0} != 1 ]]; then ensure_debs chromium; fi
if [[ -f $here/oracles.sh && ${TRIBUTARY_SKIP_ORACLES:-0} != 1 ]]; then bash "$here/oracles.sh"; fi
log "services ready in $((SECONDS - t0)) s (stop them with: bash infra/down.sh)"
