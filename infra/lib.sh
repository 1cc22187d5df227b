# Shared by the infra/ scripts: paths, logging, waiting, installing Debian packages.
# Everything listens on 127.0.0.1 on non-default ports; data lives under <repo>/.data (git-ignored).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${TRIBUTARY_DATA:-$REPO/.data}"
RUN="$DATA/run"
CACHE="${TRIBUTARY_CACHE:-$HOME/.cache/tributary}"
mkdir -p "$DATA" "$RUN" "$CACHE"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] error: %s\n' "$*" >&2; exit 1; }

# wait_until <seconds> <description> <command...>: retries the command every 0.2 s.
wait_until() {
  local seconds=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    if (( $(date +%s) >= deadline )); then return 1; fi
    sleep 0.2
  done
}

# with_progress <what> <command...>: runs a long first-time step (a build, an install) and prints
# "<what>: still running, N s" every TRIBUTARY_PROGRESS_SECONDS (default 15) until it ends, so a
# cold run is never minutes of silence. Returns the command's exit status.
with_progress() {
  local what=$1; shift
  local every=${TRIBUTARY_PROGRESS_SECONDS:-15} t0=$SECONDS pid status=0
  "$@" &
  pid=$!
  while ! wait_pid_for "$pid" "$every"; do log "$what: still running, $((SECONDS - t0)) s"; done
  wait "$pid" || status=$?
  return "$status"
}

# wait_pid_for <pid> <seconds>: true once the child has ended, false if it still runs after <seconds>.
wait_pid_for() {
  local pid=$1 deadline=$((SECONDS + $2))
  while kill -0 "$1" 2>/dev/null; do
    (( SECONDS >= deadline )) && return 1
    sleep 0.5
  done
  return 0
}

# pid_alive <pidfile>: true if the file names a live process.
pid_alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pid <pidfile> <name>: SIGTERM, wait up to 20 s, then SIGKILL; removes the pidfile.
stop_pid() {
  local pidfile=$1 name=$2
  if pid_alive "$pidfile"; then
    local pid; pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    if ! wait_until 20 "$name to exit" bash -c "! kill -0 $pid"; then
      log "$name (pid $pid) did not stop in 20 s; killing it"
      kill -9 "$pid" 2>/dev/null || true
    fi
    log "$name stopped"
  else
    log "$name is not running"
  fi
  rm -f "$pidfile"
}

# ensure_debs <pkg...>: installs the Debian packages that are missing, without starting their services.
ensure_debs() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  (( ${#missing[@]} == 0 )) && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  # Keep the packages' own init scripts from starting services on their default ports.
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy" && created_policy=1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  (( created_policy )) && $sudo rm -f "$policy"
  return 0
}
