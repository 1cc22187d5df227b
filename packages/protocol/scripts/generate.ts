/**
 * Regenerates the protobufjs static code in src/generated/ from proto/commit_message.proto
 * (`npm run generate -w @tributary/protocol`). The unit test generated-code.test.ts runs the same
 * generation into a temporary folder and fails if the checked-in files differ, so the .proto and
 * the code never drift apart.
 *
 * Options: static code without verify/convert/delimited helpers (the package converts to its own
 * domain types in commit-message-codec.ts), `Long` for every 64-bit field (converted to bigint in
 * int64.ts), and protobuf null semantics so that proto3 `optional` fields read back as null.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const cliRoot = dirname(require.resolve('protobufjs-cli/package.json'));

export const PROTO_FILE = join(packageRoot, 'proto', 'commit_message.proto');
export const GENERATED_DIR = join(packageRoot, 'src', 'generated');
export const GENERATED_FILES = ['commit-message.js', 'commit-message.d.ts'] as const;

const PBJS_OPTIONS = [
  '--target', 'static-module',
  '--wrap', 'es6',
  '--es6',
  '--force-long',
  '--null-semantics',
  '--no-verify',
  '--no-convert',
  '--no-delimited',
  '--no-typeurl',
  '--no-service',
];

function run(bin: string, args: string[]): void {
  const result = spawnSync(process.execPath, [join(cliRoot, 'bin', bin), ...args], { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${bin} failed (${String(result.status)}): ${result.stderr}`);
  }
}

/** Writes commit-message.js and commit-message.d.ts into `outDir`. */
export function generateInto(outDir: string): void {
  const js = join(outDir, GENERATED_FILES[0]);
  run('pbjs', [...PBJS_OPTIONS, '--out', js, PROTO_FILE]);
  run('pbts', ['--out', join(outDir, GENERATED_FILES[1]), js]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  generateInto(GENERATED_DIR);
  console.log(`generated ${GENERATED_FILES.join(', ')} in ${GENERATED_DIR}`);
}
