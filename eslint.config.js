import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first (docs/architecture.md): a file may import from its own layer
 * and the layers below it, never from one above. Circles (type imports included) are found by
 * madge in `npm run lint`.
 */
const LAYERS = [
  ['kernel', ['src/errors.ts', 'src/deadline.ts', 'src/provenance.ts', 'src/config.ts']],
  ['records', ['src/records']],
  ['paging', ['src/paging']],
  ['semantic', ['src/semantic']],
  ['store', ['src/store']],
  ['auth', ['src/auth']],
  ['operations', ['src/operations']],
  ['seed', ['src/seed']],
  ['importer', ['src/importer']],
  ['admin', ['src/admin']],
  ['mcp', ['src/mcp']],
  ['http', ['src/http']],
  ['service', ['src/service.ts']],
  ['cli', ['src/cli']],
];

const layerZones = LAYERS.flatMap(([name, targets], i) => {
  const above = LAYERS.slice(i + 1);
  if (above.length === 0) return [];
  return targets.map((target) => ({
    target: `./${target}`,
    from: above.flatMap(([, paths]) => paths.map((p) => `./${p}`)),
    message: `${name} is below ${above.map(([n]) => n).join(', ')}: move the code to the layer it serves (docs/architecture.md).`,
  }));
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
    },
  },
  { files: ['src/cli/**', 'test/**', 'bench/**', 'scripts/**'], rules: { 'no-console': 'off' } },
);
