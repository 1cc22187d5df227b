// Lint rules that guard the architecture (docs/architecture.md):
// no import cycles, no deep imports into another package's src/, the layers of packages/table
// (packages/table/README.md), no floating promises.
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

// packages/table/src: each folder may import only the folders listed for it (and the two leaves
// errors.ts and version.ts, which import no folder); the other files at the top (table.ts,
// tables.ts, index.ts) may import any folder, and no folder imports them. The folders' index.ts
// files are the package's subpath exports, not for use inside the package.
const tableSrc = 'packages/table/src';
const tableLayers = {
  avro: [],
  spec: ['avro'],
  io: [],
  format: ['spec'],
  parquet: ['format', 'spec'],
  snapshot: ['format', 'spec', 'avro', 'io'],
  write: ['snapshot', 'parquet', 'format', 'spec', 'avro', 'io'],
  read: ['snapshot', 'parquet', 'format', 'spec', 'avro', 'io'],
};
const tableLeaves = ['errors.ts', 'version.ts'];
const tableTop = readdirSync(new URL(`./${tableSrc}`, import.meta.url)).filter((f) => f.endsWith('.ts') && !tableLeaves.includes(f));
const tableZones = [
  ...Object.entries(tableLayers).map(([folder, allowed]) => ({
    target: `./${tableSrc}/${folder}`,
    from: [
      ...Object.keys(tableLayers).filter((other) => other !== folder && !allowed.includes(other)).map((other) => `./${tableSrc}/${other}`),
      ...tableTop.map((file) => `./${tableSrc}/${file}`),
    ],
    message: `packages/table/src/${folder}/ may import only ${allowed.length === 0 ? '' : `${allowed.join('/, ')}/, `}errors.ts and version.ts (packages/table/README.md, layers).`,
  })),
  {
    target: `./${tableSrc}`,
    from: Object.keys(tableLayers).map((folder) => `./${tableSrc}/${folder}/index.ts`),
    message: 'A folder index.ts is a public subpath of @tributary/table; inside the package import the file itself.',
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '.data/**', '.cache/**', 'test/compat/java/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })],
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test tracks the promises its test() and describe() return.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: tableZones }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tributary/*/*', '!@tributary/table/spec', '!@tributary/table/parquet'],
              message: 'Import a package through its public index (or a subpath its package.json exports), not its files.',
            },
            {
              regex: '^(\\.\\./)+(packages/)?(errors|protocol|table|catalog|sources|worker|coordinator|cli)/src',
              message: 'Import another package by its name (@tributary/…), never by a path into its src/.',
            },
          ],
        },
      ],
    },
  },
  // The package arrows run one way: @tributary/errors ← table ← protocol ← sources ← worker, coordinator ← cli; table ← catalog ← coordinator.
  {
    files: ['packages/errors/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['@tributary/*'], message: '@tributary/errors depends on no other package.' }] }],
    },
  },
  {
    files: ['packages/table/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['@tributary/protocol', '@tributary/sources', '@tributary/worker', '@tributary/coordinator', '@tributary/cli'].map((name) => ({
            name,
            message: 'The table library depends only on @tributary/errors (and the testkit in tests).',
          })),
        },
      ],
    },
  },
  {
    files: ['packages/catalog/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['@tributary/protocol', '@tributary/sources', '@tributary/worker', '@tributary/coordinator', '@tributary/cli'].map((name) => ({
            name,
            message: 'The catalog depends only on @tributary/errors and the table library (and the testkit in tests).',
          })),
        },
      ],
    },
  },
  {
    files: ['packages/protocol/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@tributary/table', allowTypeImports: true, message: 'The protocol takes only types from the table library (CommitMessage, DataFileMeta, …): its code stays pure.' },
            { name: '@tributary/sources', message: 'The protocol is below the sources.' },
            { name: '@tributary/worker', message: 'The protocol is below the worker.' },
            { name: '@tributary/coordinator', message: 'The protocol is below the coordinator.' },
            { name: '@tributary/cli', message: 'The protocol is below the CLI.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/sources/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['@tributary/worker', '@tributary/coordinator', '@tributary/cli'].map((name) => ({ name, message: 'The sources are below the worker, the coordinator and the CLI.' })),
        },
      ],
    },
  },
);
