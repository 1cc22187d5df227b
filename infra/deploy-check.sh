#!/usr/bin/env bash
# Checks the deployment files offline; the tools are built or fetched once into the cache
# ($TRIBUTARY_CACHE) from the package registries:
#   k8s       Kubernetes manifests, with kubeconform (built with `go install`) in strict mode (an
#             unknown field is an error) against the JSON schemas of Kubernetes $K8S_VERSION from
#             the PyPI package kubernetes-validate (fetched with pip). Custom resources (KEDA's
#             ScaledObject) have no schema here: kubeconform skips them, and
#             test/integration/deploy-manifests.test.ts checks them against KEDA's own API types.
#   compose   compose files, with compose-go (the library Docker Compose is built on; the small
#             program in infra/compose-check): the Compose Specification's schema, interpolation.
# Usage: infra/deploy-check.sh install | k8s <file or directory>... | compose <compose file>...
source "$(dirname "$0")/lib.sh"
KUBECONFORM_VERSION="${TRIBUTARY_KUBECONFORM_VERSION:-v0.8.0}"
SCHEMAS_VERSION="${TRIBUTARY_K8S_SCHEMAS_VERSION:-1.37.0}"   # of kubernetes-validate
K8S_VERSION="${TRIBUTARY_K8S_VERSION:-1.34.0}"
BIN="$CACHE/kubeconform-$KUBECONFORM_VERSION/kubeconform"
SCHEMAS="$CACHE/kubernetes-json-schema-$SCHEMAS_VERSION/v$K8S_VERSION-strict"
# Kinds of custom resources, checked elsewhere (see above).
SKIP_KINDS="ScaledObject,TriggerAuthentication"
COMPOSE_SRC="$REPO/infra/compose-check"
# Rebuilt when its sources change: their hash names the binary.
COMPOSE_BIN="$CACHE/compose-check-$(cat "$COMPOSE_SRC/go.mod" "$COMPOSE_SRC/go.sum" "$COMPOSE_SRC/main.go" | sha256sum | cut -c1-12)/compose-check"

build() {
  [[ -x $BIN ]] && return 0
  command -v go >/dev/null || die "go is needed to build kubeconform"
  log "building kubeconform $KUBECONFORM_VERSION from source (once)"
  GOBIN="$(dirname "$BIN")" GOFLAGS=-buildvcs=false \
    with_progress "building kubeconform" go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
}

schemas() {
  [[ -f $SCHEMAS/.complete ]] && return 0
  command -v python3 >/dev/null || die "python3 is needed to fetch the Kubernetes schemas"
  log "fetching the Kubernetes $K8S_VERSION schemas (kubernetes-validate $SCHEMAS_VERSION from PyPI, once)"
  local tmp; tmp=$(mktemp -d)
  # pip of a throwaway venv: the machine's python3 may have no pip of its own.
  python3 -m venv "$tmp/venv" || die "python3 -m venv failed (is the venv module installed?)"
  with_progress "fetching kubernetes-validate" "$tmp/venv/bin/pip" download --quiet --disable-pip-version-check \
    --no-deps --dest "$tmp" "kubernetes-validate==$SCHEMAS_VERSION" || die "pip download kubernetes-validate failed"
  rm -rf "$SCHEMAS" && mkdir -p "$SCHEMAS"
  # The package's schemas refer to one another by absolute URL ($id https://kubernetes.io/api/…,
  # $ref /api/_definitions.json); made relative here, kubeconform resolves them on disk.
  python3 - "$tmp"/kubernetes_validate-*.whl "kubernetes_validate/kubernetes-json-schema/v$K8S_VERSION-local-strict/" "$SCHEMAS" <<'PY' \
    || die "unpacking the Kubernetes schemas failed"
import json, sys, zipfile, os
wheel, prefix, out = sys.argv[1:4]
count = 0
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if not name.startswith(prefix) or not name.endswith('.json'):
            continue
        schema = json.loads(z.read(name))
        schema.pop('$id', None)
        text = json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#')
        with open(os.path.join(out, os.path.basename(name)), 'w') as f:
            f.write(text)
        count += 1
if count == 0:
    sys.exit(f'no schema under {prefix} in {wheel}')
print(f'{count} schemas', file=sys.stderr)
PY
  rm -rf "$tmp"
  touch "$SCHEMAS/.complete"
}

build_compose_check() {
  [[ -x $COMPOSE_BIN ]] && return 0
  command -v go >/dev/null || die "go is needed to build compose-check"
  log "building compose-check (compose-go) from infra/compose-check (once)"
  mkdir -p "$(dirname "$COMPOSE_BIN")"
  GOFLAGS=-buildvcs=false with_progress "building compose-check" go build -C "$COMPOSE_SRC" -o "$COMPOSE_BIN" . \
    || die "building compose-check failed"
}

install() { build; schemas; build_compose_check; }

k8s() {
  (( $# > 0 )) || die "usage: infra/deploy-check.sh k8s <file or directory>..."
  build; schemas
  "$BIN" -strict -summary -kubernetes-version "$K8S_VERSION" -skip "$SKIP_KINDS" \
    -schema-location "$SCHEMAS/{{.ResourceKind}}{{.KindSuffix}}.json" "$@"
}

compose() {
  (( $# > 0 )) || die "usage: infra/deploy-check.sh compose <compose file>..."
  build_compose_check
  "$COMPOSE_BIN" "$@"
}

cmd="${1:-install}"; shift || true
"$cmd" "$@"
