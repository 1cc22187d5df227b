#!/usr/bin/env bash
# Copies the latest-delta manifests of the tables written by MakeJavaVectors.java (Paimon Java) and
# make-pypaimon-vectors.py (pypaimon), each with Paimon Java's own reading of it (<name>.dump.txt).
# Last, it puts Tributary's files (write-tributary-vectors.ts) into the Java table and dumps them too.
# Usage: copy-vectors.sh <classpath with paimon-bundle> <java warehouse> <pypaimon 2.1.0 warehouse> <pypaimon 1.4.2 warehouse>
set -euo pipefail
cp_=$1 java_wh=$2 py_wh=$3 py14_wh=$4
here=$(cd "$(dirname "$0")" && pwd)
delta() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['deltaManifestList'])" "$1"; }
copy() { # warehouse table snapshot(or LATEST) out-dir name
  local dir=$1/db.db/$2 out=$here/$4 snapshot=$3 list i=0
  mkdir -p "$out"
  [ "$snapshot" = LATEST ] && snapshot=$(cat "$dir/snapshot/LATEST")
  list=$(delta "$dir/snapshot/snapshot-$snapshot")
  cp "$dir/manifest/$list" "$out/$5-manifest-list"
  java -cp "$cp_" "$here/MakeJavaVectors.java" dump "$dir" "$list" > "$out/$5.dump.txt"
  for m in $(sed -n 's/^META \([^ ]*\) .*/\1/p' "$out/$5.dump.txt"); do
    cp "$dir/manifest/$m" "$out/$5-manifest-$i"; i=$((i + 1))
  done
}
copy "$java_wh" pk 3 java-1.4.2 pk-compact
copy "$java_wh" pk 4 java-1.4.2 pk-overwrite
copy "$java_wh" append 1 java-1.4.2 append
dynamic=$java_wh/db.db/dynamic
index=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['indexManifest'])" "$dynamic/snapshot/snapshot-1")
cp "$dynamic/manifest/$index" "$here/java-1.4.2/dynamic-index-manifest"
java -cp "$cp_" "$here/MakeJavaVectors.java" dump-index "$dynamic" "$index" > "$here/java-1.4.2/dynamic-index.dump.txt"
for codec in zstd deflate snappy null; do
  copy "$py_wh" "pk_$codec" 3 pypaimon-2.1.0 "pk-overwrite-$codec"
done
copy "$py_wh" append 1 pypaimon-2.1.0 append
copy "$py14_wh" pk_zstd LATEST pypaimon-1.4.2 pk-append-zstd
copy "$py14_wh" pk_snappy LATEST pypaimon-1.4.2 pk-append-snappy
copy "$py14_wh" append 1 pypaimon-1.4.2 append

# Tributary-written files, read by Paimon Java from inside its own table's manifest directory.
manifest_dir=$java_wh/db.db/pk/manifest
cp "$here/tributary/sample-manifest-0" "$manifest_dir/manifest-tributary-0"
cp "$here/tributary/sample-manifest-1" "$manifest_dir/manifest-tributary-1"
cp "$here/tributary/sample-manifest-list" "$manifest_dir/manifest-list-tributary"
java -cp "$cp_" "$here/MakeJavaVectors.java" dump "$java_wh/db.db/pk" manifest-list-tributary > "$here/tributary/sample.dump.txt"
