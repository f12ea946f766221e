/**
 * The importer's compact key set (src/importer/seen-keys.ts) against a Map of the same keys: the
 * same answers for any keys, through every growth of its table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SeenKeys } from '../../src/importer/seen-keys.js';
import { FUZZ_SEED } from '../fuzz/fuzz-settings.js';

describe('the keys an import has seen', () => {
  it('answers as a Map of key → first line does, for any keys (any text, repeats, lookalikes), room made for more keys at any moment', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.string({ unit: 'grapheme' }),
            fc.constantFrom('a', 'a\u0000', ''),
          ),
          {
            maxLength: 300,
          },
        ),
        fc.array(fc.string(), { maxLength: 50 }),
        fc.nat(300),
        fc.nat(5_000),
        (keys, unseen, reserveAt, reserved) => {
          const seen = new SeenKeys(4);
          const oracle = new Map<string, number>();
          keys.forEach((key, i) => {
            if (i === reserveAt) seen.reserve(reserved);
            const line = i + 1;
            assert.equal(seen.add(key, line), oracle.get(key) ?? 0, JSON.stringify(key));
            if (!oracle.has(key)) oracle.set(key, line);
          });
          assert.equal(seen.size, oracle.size);
          for (const key of [...keys, ...unseen]) {
            assert.equal(seen.lineOf(key), oracle.get(key) ?? 0);
            assert.equal(seen.has(key), oracle.has(key));
          }
        },
      ),
      { seed: FUZZ_SEED, numRuns: 300 },
    );
  });

  it('holds a million ids of one shape apart', () => {
    const seen = new SeenKeys();
    const id = (i: number) => `te_${String(i).padStart(9, '0')}`;
    for (let i = 0; i < 1_000_000; i++) assert.equal(seen.add(id(i), i + 1), 0);
    for (let i = 0; i < 1_000_000; i += 997) assert.equal(seen.add(id(i), 5), i + 1);
    assert.equal(seen.has('te_1000000000'), false);
    assert.equal(seen.size, 1_000_000);
  });
});
