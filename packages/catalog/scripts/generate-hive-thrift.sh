#!/usr/bin/env bash
# Regenerates the Hive Metastore Thrift client in src/hive/generated/ from
# src/hive/thrift/hive_metastore_subset.thrift, with the Apache Thrift compiler (Debian's
# thrift-compiler, installed when missing) for the `thrift` npm runtime: CommonJS classes (es6) and
# TypeScript declarations. The folder's package.json marks the generated .js files as CommonJS
# inside this ESM package. Usage: bash packages/catalog/scripts/generate-hive-thrift.sh [out-dir]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
idl="$here/src/hive/thrift/hive_metastore_subset.thrift"
out="${1:-$here/src/hive/generated}"
if ! command -v thrift >/dev/null; then
  source "$here/../../infra/lib.sh"
  ensure_debs thrift-compiler
fi
mkdir -p "$out"
rm -f "$out"/*.js "$out"/*.d.ts
thrift --gen js:node,ts,es6 -out "$out" "$idl"
printf '{\n  "type": "commonjs"\n}\n' >"$out/package.json"
echo "generated $(cd "$out" && ls ./*.js ./*.d.ts | tr '\n' ' ')in $out"
