/**
 * Writes the manifest and manifest list of the test fixtures (test/unit/spec/manifest-fixtures.ts)
 * with Tributary's encoders into `tributary/`; copy-vectors.sh then lets Paimon Java read them.
 * Usage: node write-tributary-vectors.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { encodeManifestFile } from '../../../src/spec/manifest-entry.ts';
import { encodeManifestList } from '../../../src/spec/manifest-file-meta.ts';
import { SAMPLE_ENTRIES, sampleList } from '../../unit/spec/manifest-fixtures.ts';

const out = new URL('./tributary/', import.meta.url);
mkdirSync(out, { recursive: true });
const manifests = [encodeManifestFile(SAMPLE_ENTRIES), encodeManifestFile([])];
manifests.forEach((bytes, i) => writeFileSync(new URL(`sample-manifest-${i}`, out), bytes));
const list = sampleList(manifests.map((bytes, i) => [`manifest-tributary-${i}`, BigInt(bytes.length)]));
writeFileSync(new URL('sample-manifest-list', out), encodeManifestList(list));
