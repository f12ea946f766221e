import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first (docs/architecture.md): a file may import from its own layer
 * and the layers listed before it, never from one listed after it. Each layer gets a
 * `no-restricted-imports` rule naming the layers above it (folders are unique names under src/,
 * so an import's path says which layer it reaches). Circles, type imports included, are found
 * by madge in `npm run lint`.
 */
const LAYERS = [
  [
    'kernel',
    [
      'errors.ts',
      'deadline.ts',
      'provenance.ts',
      'config-values.ts',
      'address-bounds.ts',
      'network-config.ts',
      'config.ts',
      'oauth-issuers.ts',
    ],
  ],
  ['records', ['records/']],
  ['paging', ['paging/']],
  ['semantic', ['semantic/']],
  ['store', ['store/']],
  ['auth', ['auth/']],
  ['metrics', ['metrics/']],
  ['operations', ['operations/']],
  ['audit', ['audit/']],
  ['webhooks', ['webhooks/']],
  ['seed', ['seed/']],
  ['importer', ['importer/']],
  ['admin', ['admin/']],
  ['mcp', ['mcp/']],
  ['oauth-server', ['oauth-server/']],
  ['odata', ['odata/']],
  ['http', ['http/']],
  ['service', ['service.ts', 'identity.ts']],
  ['cli', ['cli/']],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The import specifier of a relative import into a folder (`../store/x.js`) or a root file (`../service.js`). */
const reaching = (part) =>
  part.endsWith('/')
    ? `^\\.{1,2}/(\\.\\./)*${escape(part)}`
    : `^\\.{1,2}/(\\.\\./)*${escape(part.replace(/\.ts$/, '.js'))}$`;

const layerRules = LAYERS.flatMap(([name, parts], i) => {
  const above = LAYERS.slice(i + 1);
  if (above.length === 0) return [];
  return {
    files: parts.map((part) => (part.endsWith('/') ? `src/${part}**/*.ts` : `src/${part}`)),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: above.flatMap(([higher, higherParts]) =>
            higherParts.map((part) => ({
              regex: reaching(part),
              message: `${name} is below ${higher}: move the code to the layer it serves (docs/architecture.md).`,
            })),
          ),
        },
      ],
    },
  };
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
  ...layerRules,
  { files: ['src/cli/**', 'test/**', 'bench/**', 'scripts/**'], rules: { 'no-console': 'off' } },
);
