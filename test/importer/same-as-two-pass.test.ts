/**
 * The one-pass importer (src/importer/import-pass.ts) against the importer it replaced (two
 * passes with a scratch key index, kept as the oracle in test/support/two-pass-import/), on both
 * stores: any random load (random-loads.ts) into two copies of one database gives the same
 * outcome through each (the same counts and data version, or the same line-numbered problems)
 * and leaves the same database: every record, the change log, tombstones, period zones, the data
 * version. The copies stay alike from load to load as long as the importers agree.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { importDirectory } from '../../src/admin/import.js';
import { FUZZ_SEED } from '../fuzz/fuzz-settings.js';
import { contents, shownOutcome, version } from '../support/two-pass-import/compare.js';
import { importDirectoryTwoPass } from '../support/two-pass-import/import-directory.js';
import {
  loadPlan,
  storedIds,
  writeLoad,
  type StoredIds,
} from '../support/two-pass-import/random-loads.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { assertTimeBoxed } from '../support/time-boxed.js';
import { WS } from './valid-rows.js';

for (const dialect of DIALECTS)
  describe(`the one-pass importer does what the two-pass importer did (${dialect})`, () => {
    let one: TestDatabase;
    let two: TestDatabase;
    let stored: StoredIds;
    before(async () => {
      [one, two] = await Promise.all([openTestDatabase(dialect), openTestDatabase(dialect)]);
      stored = await storedIds(one.all);
    });
    after(async () => {
      await Promise.all([one?.drop(), two?.drop()]);
    });

    it('gives the same outcome and the same database for any load, valid or not', async (t) => {
      let run = 0;
      const outcomes = { imported: 0, refused: 0 };
      // Time-boxed: the load in flight at 20 s ends before the databases are dropped.
      await assertTimeBoxed(
        loadPlan,
        async (plan) => {
          const dir = writeLoad(plan, stored, `r${run++}_`);
          try {
            const expected = await importDirectoryTwoPass(two.store, WS, dir);
            const actual = await importDirectory(one.store, WS, dir);
            outcomes[actual.imported ? 'imported' : 'refused']++;
            assert.deepEqual(shownOutcome(actual), shownOutcome(expected));
            // A refused load wrote nothing through either: the data version says so, cheaply.
            if (actual.imported) assert.deepEqual(await contents(one), await contents(two));
            else assert.deepEqual(await version(one), await version(two));
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
        { seed: FUZZ_SEED, numRuns: 150, timeLimitMs: 20_000, includeErrorInReport: true },
      );
      // Both kinds were drawn: the property held for loads written and for loads refused.
      t.diagnostic(`loads imported: ${outcomes.imported}, refused: ${outcomes.refused}`);
      assert.ok(outcomes.imported > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
    });
  });
