// Lint rules that guard the architecture (docs/architecture.md):
// no import cycles, no deep imports into another package's src/, no floating promises.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

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
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tributary/*/*', '!@tributary/table/spec', '!@tributary/table/parquet'],
              message: 'Import a package through its public index (or a subpath its package.json exports), not its files.',
            },
            {
              regex: '^(\\.\\./)+(packages/)?(protocol|table|sources|worker|coordinator)/src',
              message: 'Import another package by its name (@tributary/…), never by a path into its src/.',
            },
          ],
        },
      ],
    },
  },
);
