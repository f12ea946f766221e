/**
 * The load writer (src/store/load/): loads upsert by id, commit a new data version only when
 * they change something, record what they changed, and keep the report facts equal to what a
 * whole rebuild gives, by delta. Properties over random loads of the tiny seed, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { entryFactsSelect, lineFactsSelect } from '../../src/store/sql/report-facts.js';
import { LoadConflictError } from '../../src/store/load/load-writer.js';
import type { Row } from '../../src/store/sink.js';
import { DIALECTS } from '../support/harness.js';
import { applyLoad, later, loadSteps } from '../support/random-loads.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';

/** Rows as comparable text, whatever types the store returns them in. */
const text = (rows: Record<string, unknown>[]) =>
  rows.map((row) => JSON.stringify(Object.values(row).map((v) => (v === null ? null : String(v)))));

for (const dialect of DIALECTS) {
  describe(`loads that update and cost what they change (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    /** The report fact tables hold exactly what rebuilding them from the records gives. */
    async function assertFactsCurrent(): Promise<void> {
      const pairs = [
        ['report_time_entries', entryFactsSelect()],
        ['report_invoice_lines', lineFactsSelect()],
      ];
      for (const [table, rebuild] of pairs) {
        const held = await db.all(`SELECT * FROM ${table} ORDER BY 1, 2, 3`);
        const rebuilt = await db.all(`${rebuild} ORDER BY 1, 2, 3`);
        assert.equal(held.length, rebuilt.length, table);
        assert.deepEqual(text(held), text(rebuilt), table);
      }
    }

    it('keeps facts equal to a whole rebuild, the version one up per changing load, and the change log current', async () => {
      await fc.assert(
        fc.asyncProperty(loadSteps, async (steps) => {
          const before = (await db.store.dataVersion()).version;
          const { result, changed } = await applyLoad(db.store, WS, steps);
          const after = (await db.store.dataVersion()).version;
          const written = Object.values(result.counts).reduce(
            (n, c) => n + c.inserted + c.updated + c.deleted,
            0,
          );
          assert.equal(result.changed, written > 0);
          assert.equal(after, result.changed ? before + 1 : before);
          assert.equal(result.version, after);
          // Each record the load changed (or added an entry or line to) stands at the new version:
          // every such step carries a later updated_at or a new id, so none is skipped.
          assert.equal(result.changed, changed.length > 0);
          for (const { type, id } of changed) {
            const [row] = await db.all<{ version: number }>(
              'SELECT version FROM record_changes WHERE type = ? AND id = ?',
              type,
              id,
            );
            assert.equal(Number(row?.version), after, `${type} ${id}`);
          }
          await assertFactsCurrent();
        }),
        { numRuns: 12 },
      );
    });

    it('counts inserted, updated, unchanged and skipped rows, and records exactly the changed ones', async () => {
      const [worker] = await db.all<Row>(
        'SELECT * FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const [other] = await db.all<Row>(
        'SELECT * FROM workers WHERE workspace_id = ? ORDER BY id DESC LIMIT 1',
        WS,
      );
      const before = (await db.store.dataVersion()).version;
      const fresh = { ...worker, id: 'wkr_new_load', created_at: later(), updated_at: later() };
      const changedWorker = {
        ...worker,
        status: worker.status === 'active' ? 'inactive' : 'active',
        updated_at: later(),
      };
      const older = { ...other, status: 'inactive', updated_at: '2001-01-01T00:00:00.000Z' };
      const load = await db.store.openLoad();
      await load.insert('workers', [fresh, changedWorker, older, { ...other }]);
      const result = await load.finish();
      assert.deepEqual(result.counts.workers, {
        inserted: 1,
        updated: 1,
        unchanged: 1,
        skipped: 1,
        deleted: 0,
      });
      assert.equal(result.version, before + 1);
      const recorded = await db.all<{ id: string }>(
        'SELECT id FROM record_changes WHERE version = ? ORDER BY id',
        before + 1,
      );
      assert.deepEqual(
        recorded.map((r) => r.id),
        [String(worker.id), 'wkr_new_load'].sort(),
      );
      const [stored] = await db.all<{ status: string; updated_at: string }>(
        'SELECT status, updated_at FROM workers WHERE id = ?',
        other.id,
      );
      assert.equal(stored.status, other.status, 'the older version was skipped');
    });

    it('changes nothing, not even the version, when a load brings only what is stored', async () => {
      const rows = await db.all<Row>(
        'SELECT * FROM invoices WHERE workspace_id = ? ORDER BY id LIMIT 20',
        WS,
      );
      const before = await db.store.dataVersion();
      const load = await db.store.openLoad();
      await load.insert('invoices', rows);
      const result = await load.finish();
      assert.equal(result.changed, false);
      assert.deepEqual(result.counts.invoices, {
        inserted: 0,
        updated: 0,
        unchanged: 20,
        skipped: 0,
        deleted: 0,
      });
      assert.deepEqual(await db.store.dataVersion(), before);
    });

    it('refuses a changed time entry and a rival version of a record, writing nothing of the load', async () => {
      const [entry] = await db.all<Row>(
        'SELECT * FROM time_entries WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const [invoice] = await db.all<Row>(
        'SELECT * FROM invoices WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const before = await db.store.dataVersion();
      const cases: [string, Row][] = [
        ['time_entries', { ...entry, quantity_minutes: Number(entry.quantity_minutes ?? 0) + 1 }],
        ['invoices', { ...invoice, total_cents: Number(invoice.total_cents) + 1 }],
        ['invoices', { ...invoice, workspace_id: 'ws_team', updated_at: later() }],
      ];
      for (const [table, row] of cases) {
        const load = await db.store.openLoad();
        await load.insert('suppliers', [
          {
            id: 'sup_never',
            workspace_id: WS,
            code: 'NEVER',
            name: 'n',
            status: 'active',
            created_at: later(),
            updated_at: later(),
          },
        ]);
        await assert.rejects(load.insert(table as 'invoices', [row]), LoadConflictError);
        await load.abort();
      }
      assert.deepEqual(await db.store.dataVersion(), before);
      assert.deepEqual(await db.all('SELECT id FROM suppliers WHERE id = ?', 'sup_never'), []);
    });
  });
}
