/**
 * The importer asks the store only about ids within the least and greatest a table holds
 * (stored-rows.ts `mayBeStored`): the rows whose ids are those bounds themselves are still found
 * stored, and ids beyond them on either side are new, on both stores.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importDirectory } from '../../src/admin/import.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { VALID, WS } from './valid-rows.js';

for (const dialect of DIALECTS)
  describe(`ids at and beyond the bounds of a table's ids (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(async () => {
      await db?.drop();
    });

    it('finds the least and the greatest stored, and takes ids beyond them as new', async () => {
      const bounds = await db.all<{ id: string; workspace_id: string }>(
        'SELECT id, workspace_id FROM workers WHERE id = (SELECT MIN(id) FROM workers)' +
          ' OR id = (SELECT MAX(id) FROM workers) ORDER BY id',
      );
      assert.equal(bounds.length, 2);
      const [least, greatest] = bounds.map((b) => b.id);
      // The bounds given again with an old version (skipped if ours, refused if another
      // workspace's: either way found stored), and ids beyond them (new).
      const OLD = '2000-01-01T00:00:00.000Z';
      const rows = [
        ...bounds.map(({ id }) => ({ ...VALID.workers, id, created_at: OLD, updated_at: OLD })),
        { ...VALID.workers, id: `0${least.slice(1)}` },
        { ...VALID.workers, id: `${greatest}_after` },
      ];
      const dir = mkdtempSync(join(tmpdir(), 'vms-read-id-range-'));
      try {
        writeFileSync(
          join(dir, 'workers.ndjson'),
          rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
        );
        const outcome = await importDirectory(db.store, WS, dir);
        const elsewhere = bounds.filter((b) => b.workspace_id !== WS);
        if (elsewhere.length > 0) {
          assert.ok(!outcome.imported);
          assert.deepEqual(
            outcome.problems.map((p) => p.message),
            elsewhere.map((b) => `id ${JSON.stringify(b.id)} already exists in another workspace`),
          );
        } else {
          assert.ok(outcome.imported, JSON.stringify(outcome));
          assert.deepEqual(
            [outcome.counts.workers.skipped, outcome.counts.workers.inserted],
            [2, 2],
          );
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
