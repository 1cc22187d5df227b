#!/usr/bin/env bash
# Stops every local service started by infra/up.sh. Data stays under .data/ for the next start.
source "$(dirname "$0")/lib.sh"
here="$(dirname "$0")"
status=0
for s in hive-metastore postgres mariadb minio redis; do bash "$here/$s.sh" stop || status=1; done
exit $status
