/** Reads the checked-in golden vectors (test/vectors/protocol/). */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BlobExpectation, BlobHeader } from '@tributary/protocol';
import type { CommitMessage } from '@tributary/table';
import { fromVectorJson } from './vector-json.ts';

export const VECTORS_DIR = fileURLToPath(new URL('../../../../test/vectors/protocol/', import.meta.url));

export interface GoldenVector {
  readonly version: number;
  readonly name: string;
  readonly blob: Uint8Array;
  readonly header: BlobHeader;
  readonly messages: CommitMessage[];
}

export interface InvalidVector {
  readonly version: number;
  readonly file: string;
  readonly defect: string;
  readonly decodeBlob: string;
  readonly decodeBlobStream: string;
  readonly blob: Uint8Array;
  readonly expectation: BlobExpectation;
}

/** The envelope versions that have vectors: v1, v2, … */
export function vectorVersions(): number[] {
  return readdirSync(VECTORS_DIR)
    .filter((d) => /^v\d+$/.test(d))
    .map((d) => Number(d.slice(1)))
    .sort((a, b) => a - b);
}

export function goldenVectors(version: number): GoldenVector[] {
  const dir = join(VECTORS_DIR, `v${version}`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.blob'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.blob'.length);
      const input = fromVectorJson(readFileSync(join(dir, `${name}.json`), 'utf8')) as {
        header: BlobHeader;
        messages: CommitMessage[];
      };
      return { version, name, blob: new Uint8Array(readFileSync(join(dir, file))), ...input };
    });
}

export function invalidVectors(version: number): InvalidVector[] {
  const dir = join(VECTORS_DIR, `v${version}`, 'invalid');
  const index = fromVectorJson(readFileSync(join(dir, 'index.json'), 'utf8')) as {
    expectation: BlobExpectation;
    vectors: Omit<InvalidVector, 'version' | 'blob' | 'expectation'>[];
  };
  return index.vectors.map((v) => ({
    ...v,
    version,
    expectation: index.expectation,
    blob: new Uint8Array(readFileSync(join(dir, v.file))),
  }));
}

/** Feeds bytes to a stream decoder in chunks of the given sizes (cycled). */
export async function* chunked(bytes: Uint8Array, sizes: readonly number[] = [7, 1, 64, 3]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length]!);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}
