/**
 * The row rules compiled per column (src/importer/row-rules.ts) against the rules as each cell
 * walked them before (test/support/two-pass-import/row-rules-generic.ts): for any table, format
 * and row (columns carried or left out; values valid, near-valid or of any JSON type; U+0000,
 * lone surrogates, text past its length, future version times), the same stored row, the same
 * problems in the same order, the same columns found absent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SOURCE_RULES, type SourceTable } from '../../src/importer/import-tables.js';
import { checkRow, latestVersionTime } from '../../src/importer/row-rules.js';
import { FUZZ_SEED } from '../fuzz/fuzz-settings.js';
import { checkRow as checkRowGeneric } from '../support/two-pass-import/row-rules-generic.js';

const TABLES = Object.keys(SOURCE_RULES) as SourceTable[];
const NOW = Date.parse('2026-06-30T12:00:00.000Z');

/** Values each kind of column meets: the valid, the nearly valid and the wrong. */
const text = fc.oneof(
  fc.constantFrom(
    'wkr_1',
    'ws_business',
    'USD',
    'usd',
    'REG',
    'active',
    'approved',
    'hourly',
    'original',
    'timesheet',
    '2026-06-01',
    '2026-02-30',
    '2026-06-01T08:00:00.000Z',
    '2026-06-30T12:04:00.000Z',
    '2026-06-30T12:06:00.000Z',
    '2026-06-01T24:00:00.000Z',
    '0',
    '1',
    '-12',
    '2147483648',
    '99999999999999999999',
    '1.5',
    '',
    'a b',
    'Zoë',
    'x\u0000y',
    'bad\uD800',
    '{"query":{"metrics":["spend"]}}',
    '{"query":',
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('n'.repeat(201), 'i'.repeat(101), 'c'.repeat(5_000)),
);
const anyValue = fc.oneof(
  text,
  fc.integer(),
  fc.constantFrom(0, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1.5, true, false, null),
  fc.constantFrom([], {}, [1], { query: { metrics: ['spend'] } }),
);

describe('the compiled row rules', () => {
  it('check every row as the rules walked cell by cell did', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TABLES),
        fc.constantFrom('csv' as const, 'ndjson' as const),
        fc.array(fc.tuple(fc.nat(), fc.boolean(), anyValue), { maxLength: 16 }),
        (table, format, cells) => {
          const names = SOURCE_RULES[table].map((rule) => rule.name);
          const values: Record<string, unknown> = {};
          for (const [pick, carried, value] of cells) {
            const name = names[pick % names.length];
            // CSV carries text or an empty cell (null); NDJSON any JSON value.
            if (carried)
              values[name] = format === 'csv' && typeof value !== 'string' ? null : value;
          }
          const options = { workspaceId: 'ws_business', format, notAfter: latestVersionTime(NOW) };
          assert.deepEqual(
            checkRow(table, values, options),
            checkRowGeneric(table, values, options),
          );
        },
      ),
      { seed: FUZZ_SEED, numRuns: 3_000 },
    );
  });
});
