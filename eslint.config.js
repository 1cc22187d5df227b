// Lint rules that guard the architecture (docs/architecture.md):
// no import cycles, no deep imports into another package's src/, the layers of packages/table
// (packages/table/README.md), no floating promises.
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

// packages/table/src: each folder may import only the folders listed for it (and errors.ts); the
// files at the top (table.ts, index.ts) may import any folder, and no folder imports them. The
// folders' index.ts files are the package's subpath exports, not for use inside the package.
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
const tableTop = readdirSync(new URL(`./${tableSrc}`, import.meta.url)).filter((f) => f.endsWith('.ts') && f !== 'errors.ts');
const tableZones = [
  ...Object.entries(tableLayers).map(([folder, allowed]) => ({
    target: `./${tableSrc}/${folder}`,
    from: [
      ...Object.keys(tableLayers).filter((other) => other !== folder && !allowed.includes(other)).map((other) => `./${tableSrc}/${other}`),
      ...tableTop.map((file) => `./${tableSrc}/${file}`),
    ],
    message: `packages/table/src/${folder}/ may import only ${allowed.length === 0 ? 'errors.ts' : `${allowed.join('/, ')}/ and errors.ts`} (packages/table/README.md, layers).`,
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
              regex: '^(\\.\\./)+(packages/)?(protocol|table|sources|worker|coordinator|cli)/src',
              message: 'Import another package by its name (@tributary/…), never by a path into its src/.',
            },
          ],
        },
      ],
    },
  },
);
