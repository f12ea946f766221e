/**
 * Deletions (DESIGN §4.13), through the store's one load writer (src/store/load/deletions.ts):
 * a timesheet takes its entries and an invoice its lines, with their report facts, in the load's
 * transaction and data version; a deletion older than the stored record is skipped, one of an id
 * not stored changes nothing; a record others still refer to is refused by its line, and then
 * nothing of the load is written; a later row brings a deleted id back, one not later is skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DeletionRefusedError, type Deletion } from '../../src/store/load/deletions.js';
import type { LoadOptions, LoadResult } from '../../src/store/load/load.js';
import type { DataTable } from '../../src/store/schema.js';
import type { Row } from '../../src/store/sink.js';
import type { FeedType } from '../../src/store/sql/change-log.js';
import { entryFactsSelect, lineFactsSelect } from '../../src/store/sql/report-facts.js';
import { DIALECTS } from '../support/harness.js';
import { later } from '../support/random-loads.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const FILE = 'deletions.csv';

/** Rows as comparable text, whatever types the store returns them in. */
const text = (rows: Record<string, unknown>[]) =>
  rows.map((row) => JSON.stringify(Object.values(row).map((v) => (v === null ? null : String(v)))));

/** A deletion as `deletions.csv` gives it, on line `line`. */
const deletion = (type: FeedType, id: unknown, deletedAt: string, line = 2): Deletion => ({
  type,
  id: String(id),
  deleted_at: deletedAt,
  file: FILE,
  line,
});

const NONE = { inserted: 0, updated: 0, unchanged: 0, skipped: 0, deleted: 0 };

for (const dialect of DIALECTS) {
  describe(`deletions in loads (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    const version = async () => (await db.store.dataVersion()).version;
    const ids = (rows: { id: unknown }[]) => rows.map((r) => String(r.id)).sort();

    /** One load: rows, then deletions; finished, or aborted when finishing throws. */
    async function load(
      rows: [DataTable, Row[]][],
      deletions: Deletion[],
      options: LoadOptions = {},
    ): Promise<LoadResult> {
      const open = await db.store.openLoad(options);
      try {
        for (const [table, batch] of rows) await open.insert(table, batch);
        await open.remove(WS, deletions);
        return await open.finish();
      } catch (error) {
        await open.abort();
        throw error;
      }
    }

    /** The report fact tables hold exactly what rebuilding them from the records gives. */
    async function assertFactsCurrent(): Promise<void> {
      for (const [table, rebuild] of [
        ['report_time_entries', entryFactsSelect()],
        ['report_invoice_lines', lineFactsSelect()],
      ]) {
        const held = await db.all(`SELECT * FROM ${table} ORDER BY 1, 2, 3`);
        const rebuilt = await db.all(`${rebuild} ORDER BY 1, 2, 3`);
        assert.equal(held.length, rebuilt.length, table);
        assert.deepEqual(text(held), text(rebuilt), table);
      }
    }

    async function recordedAt(type: FeedType, id: unknown): Promise<number | null> {
      const [row] = await db.all<{ version: number }>(
        'SELECT version FROM record_changes WHERE type = ? AND id = ?',
        type,
        id,
      );
      return row ? Number(row.version) : null;
    }

    const stored = async (table: string, id: unknown) =>
      (await db.all(`SELECT id FROM ${table} WHERE id = ?`, id)).length === 1;

    it('deletes a timesheet with its entries and an invoice with its lines, their facts by delta, and records them at the new version', async () => {
      const [sheet] = await db.all<{ id: string; n: number }>(
        `SELECT timesheet_id AS id, COUNT(*) AS n FROM time_entries WHERE workspace_id = ?
           GROUP BY timesheet_id ORDER BY COUNT(*) DESC, timesheet_id LIMIT 1`,
        WS,
      );
      const [invoice] = await db.all<{ id: string; n: number }>(
        `SELECT invoice_id AS id, COUNT(*) AS n FROM invoice_lines WHERE workspace_id = ?
           GROUP BY invoice_id ORDER BY COUNT(*) DESC, invoice_id LIMIT 1`,
        WS,
      );
      const entries = ids(
        await db.all<{ id: string }>(
          'SELECT id FROM time_entries WHERE timesheet_id = ?',
          sheet.id,
        ),
      );
      const lines = ids(
        await db.all<{ id: string }>(
          'SELECT id FROM invoice_lines WHERE invoice_id = ?',
          invoice.id,
        ),
      );
      assert.ok(entries.length > 1 && lines.length > 1, 'records with several parts');
      const factsOf = async (table: string, partIds: string[]) =>
        Number(
          (
            await db.one<{ n: number }>(
              `SELECT COUNT(*) AS n FROM ${table} WHERE id IN (${partIds.map(() => '?').join(', ')})`,
              ...partIds,
            )
          ).n,
        );
      assert.equal(await factsOf('report_time_entries', entries), entries.length);
      assert.equal(await factsOf('report_invoice_lines', lines), lines.length);

      const before = await version();
      const at = later();
      const result = await load(
        [],
        [deletion('timesheet', sheet.id, at, 2), deletion('invoice', invoice.id, at, 3)],
      );
      assert.equal(result.changed, true);
      assert.equal(result.version, before + 1);
      assert.equal(await version(), before + 1);
      assert.deepEqual(result.counts.timesheets, { ...NONE, deleted: 1 });
      assert.deepEqual(result.counts.time_entries, { ...NONE, deleted: entries.length });
      assert.deepEqual(result.counts.invoices, { ...NONE, deleted: 1 });
      assert.deepEqual(result.counts.invoice_lines, { ...NONE, deleted: lines.length });
      for (const table of ['workers', 'assignments', 'expenses', 'suppliers'] as const)
        assert.deepEqual(result.counts[table], NONE, table);

      assert.equal(await stored('timesheets', sheet.id), false);
      assert.equal(await stored('invoices', invoice.id), false);
      assert.deepEqual(
        await db.all('SELECT id FROM time_entries WHERE timesheet_id = ?', sheet.id),
        [],
      );
      assert.deepEqual(
        await db.all('SELECT id FROM invoice_lines WHERE invoice_id = ?', invoice.id),
        [],
      );
      assert.equal(await factsOf('report_time_entries', entries), 0);
      assert.equal(await factsOf('report_invoice_lines', lines), 0);
      await assertFactsCurrent();

      // The change log keeps each at the deletion's version; record_deletions says when.
      assert.equal(await recordedAt('timesheet', sheet.id), before + 1);
      assert.equal(await recordedAt('invoice', invoice.id), before + 1);
      const deleted = await db.all<Record<string, unknown>>(
        `SELECT type, id, workspace_id, version, deleted_at, removed_at FROM record_deletions
           WHERE id IN (?, ?) ORDER BY type`,
        sheet.id,
        invoice.id,
      );
      assert.deepEqual(
        deleted.map(({ removed_at, ...rest }) => {
          assert.equal(typeof removed_at, 'string', 'when the load removed it');
          return { ...rest, version: Number(rest.version) };
        }),
        [
          {
            type: 'invoice',
            id: invoice.id,
            workspace_id: WS,
            version: before + 1,
            deleted_at: at,
          },
          {
            type: 'timesheet',
            id: sheet.id,
            workspace_id: WS,
            version: before + 1,
            deleted_at: at,
          },
        ],
      );
      // The columnar copies learn which facts went.
      const factDeletions = async (kind: string) =>
        await db.all<{ id: string; version: number }>(
          'SELECT id, version FROM fact_deletions WHERE kind = ? AND version = ? ORDER BY id',
          kind,
          before + 1,
        );
      assert.deepEqual(ids(await factDeletions('entry')), entries);
      assert.deepEqual(ids(await factDeletions('line')), lines);
    });

    it('skips a deletion earlier than the stored record, applies one dated as it, and counts one of an id not stored as unchanged', async () => {
      const [expense, other] = await db.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? ORDER BY id LIMIT 2',
        WS,
      );
      const before = await version();
      const nothing = await load(
        [],
        [
          deletion('expense', expense.id, '2000-01-01T00:00:00.000Z', 2),
          deletion('expense', 'exp_never_stored', later(), 3),
        ],
      );
      assert.equal(nothing.changed, false);
      assert.equal(nothing.version, before);
      assert.equal(await version(), before, 'nothing changed: the version stays');
      assert.deepEqual(nothing.counts.expenses, { ...NONE, skipped: 1, unchanged: 1 });
      assert.equal(await stored('expenses', expense.id), true);
      assert.deepEqual(
        await db.all(
          'SELECT id FROM record_deletions WHERE id IN (?, ?)',
          expense.id,
          'exp_never_stored',
        ),
        [],
      );

      // Not earlier than updated_at: the same instant applies.
      const applied = await load([], [deletion('expense', other.id, String(other.updated_at))]);
      assert.deepEqual(applied.counts.expenses, { ...NONE, deleted: 1 });
      assert.equal(applied.version, before + 1);
      assert.equal(await stored('expenses', other.id), false);
    });

    it('refuses deleting a worker that timesheets and assignments still refer to, by file and line, and writes nothing of the load', async () => {
      const [{ id: workerId }] = await db.all<{ id: string }>(
        `SELECT w.id FROM workers w WHERE w.workspace_id = ?
           AND EXISTS (SELECT 1 FROM timesheets t WHERE t.worker_id = w.id)
           AND EXISTS (SELECT 1 FROM assignments a WHERE a.worker_id = w.id) ORDER BY w.id LIMIT 1`,
        WS,
      );
      const [expense] = await db.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? AND worker_id <> ? ORDER BY id LIMIT 1',
        WS,
        workerId,
      );
      const [supplier] = await db.all<Row>(
        'SELECT * FROM suppliers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const before = await db.store.dataVersion();
      const at = later();
      const refused = load(
        [['suppliers', [{ ...supplier, name: 'Renamed in a refused load', updated_at: at }]]],
        [deletion('expense', expense.id, at, 2), deletion('worker', workerId, at, 3)],
      );
      await assert.rejects(refused, (error: unknown) => {
        assert.ok(error instanceof DeletionRefusedError, String(error));
        assert.ok(error.problems.length > 0);
        for (const problem of error.problems) {
          assert.equal(problem.file, FILE);
          assert.equal(problem.line, 3, problem.message);
          assert.match(
            problem.message,
            new RegExp(`^worker "${workerId}" is still referred to by`),
          );
        }
        const tables = error.problems.map((p) => /rows? of (\w+)/.exec(p.message)?.[1]);
        assert.ok(tables.includes('timesheets'), tables.join());
        assert.ok(tables.includes('assignments'), tables.join());
        assert.match(error.message, new RegExp(`^${FILE}:3: worker "${workerId}"`));
        return true;
      });
      assert.deepEqual(await db.store.dataVersion(), before, 'no new version');
      assert.equal(await stored('workers', workerId), true);
      assert.equal(
        await stored('expenses', expense.id),
        true,
        'the other deletion was not written',
      );
      const [name] = await db.all<{ name: string }>(
        'SELECT name FROM suppliers WHERE id = ?',
        supplier.id,
      );
      assert.equal(name.name, supplier.name, 'the rows of the load were not written');
      assert.deepEqual(
        await db.all('SELECT id FROM record_deletions WHERE id IN (?, ?)', workerId, expense.id),
        [],
      );
      assert.deepEqual(
        await db.all('SELECT id FROM audience_changes WHERE id IN (?, ?)', workerId, expense.id),
        [],
      );
    });

    it('refuses a deletion of an id stored in another workspace', async () => {
      const [foreign] = await db.all<{ id: string }>(
        "SELECT id FROM expenses WHERE workspace_id = 'ws_team' ORDER BY id LIMIT 1",
      );
      await assert.rejects(
        load([], [deletion('expense', foreign.id, later(), 7)]),
        (error: unknown) => {
          assert.ok(error instanceof DeletionRefusedError);
          assert.deepEqual(error.problems, [
            {
              file: FILE,
              line: 7,
              message: `expense ${JSON.stringify(foreign.id)} is stored in another workspace`,
            },
          ]);
          return true;
        },
      );
      assert.equal(await stored('expenses', foreign.id), true);
    });

    it('deletes a worker with everything that refers to it in the same load, whatever the order of the lines', async () => {
      const [{ id: workerId }] = await db.all<{ id: string }>(
        `SELECT w.id FROM workers w WHERE w.workspace_id = ?
           AND EXISTS (SELECT 1 FROM timesheets t WHERE t.worker_id = w.id)
           AND EXISTS (SELECT 1 FROM expenses e WHERE e.worker_id = w.id)
           AND EXISTS (SELECT 1 FROM approval_statuses s WHERE s.worker_id = w.id)
           ORDER BY w.id DESC LIMIT 1`,
        WS,
      );
      const of = async (sql: string) => ids(await db.all<{ id: string }>(sql, workerId, workerId));
      const closure = {
        approval_status: await of(
          'SELECT id FROM approval_statuses WHERE worker_id = ? OR worker_id = ?',
        ),
        expense: await of(
          'SELECT id FROM expenses WHERE worker_id = ? OR assignment_id IN (SELECT id FROM assignments WHERE worker_id = ?)',
        ),
        timesheet: await of(
          'SELECT id FROM timesheets WHERE worker_id = ? OR id IN (SELECT timesheet_id FROM time_entries WHERE assignment_id IN (SELECT id FROM assignments WHERE worker_id = ?))',
        ),
        assignment: await of('SELECT id FROM assignments WHERE worker_id = ? OR worker_id = ?'),
      };
      const entries = await of(
        'SELECT id FROM time_entries WHERE timesheet_id IN (SELECT id FROM timesheets WHERE worker_id = ? OR worker_id = ?)',
      );
      const suppliers = await of(
        `SELECT id FROM suppliers WHERE workspace_id = '${WS}' AND code IN (SELECT supplier_ref FROM assignments WHERE worker_id = ? OR worker_id = ?)`,
      );
      const before = await version();
      const at = later();
      // The worker first: deletions apply referring records first, whatever the file's order.
      const deletions = [
        deletion('worker', workerId, at, 2),
        ...Object.entries(closure).flatMap(([type, list]) =>
          list.map((id) => deletion(type as FeedType, id, at)),
        ),
      ].map((d, i) => ({ ...d, line: i + 2 }));
      const result = await load([], deletions);
      assert.equal(result.version, before + 1);
      assert.deepEqual(result.counts.workers, { ...NONE, deleted: 1 });
      assert.deepEqual(result.counts.assignments, { ...NONE, deleted: closure.assignment.length });
      assert.deepEqual(result.counts.timesheets, { ...NONE, deleted: closure.timesheet.length });
      assert.deepEqual(result.counts.expenses, { ...NONE, deleted: closure.expense.length });
      assert.deepEqual(result.counts.approval_statuses, {
        ...NONE,
        deleted: closure.approval_status.length,
      });
      assert.deepEqual(result.counts.time_entries, { ...NONE, deleted: entries.length });

      assert.equal(await stored('workers', workerId), false);
      for (const table of [
        'assignments',
        'timesheets',
        'expenses',
        'approval_statuses',
        'time_entries',
      ])
        assert.deepEqual(
          await db.all(`SELECT id FROM ${table} WHERE worker_id = ?`, workerId),
          [],
          table,
        );
      await assertFactsCurrent();
      for (const [type, list] of [['worker', [workerId]], ...Object.entries(closure)] as const)
        for (const id of list) assert.equal(await recordedAt(type as FeedType, id), before + 1);
      const [{ n }] = await db.all<{ n: number }>(
        'SELECT COUNT(*) AS n FROM record_deletions WHERE version = ?',
        before + 1,
      );
      assert.equal(Number(n), 1 + Object.values(closure).reduce((a, l) => a + l.length, 0));
      // The worker's feed: a tombstone of itself, and the suppliers it no longer reaches.
      const own = await db.all<{ type: string; id: string; reason: string }>(
        'SELECT type, id, reason FROM audience_changes WHERE audience = ? AND version = ? ORDER BY type, id',
        `worker:${workerId}`,
        before + 1,
      );
      assert.ok(
        own.some((r) => r.type === 'worker' && r.id === workerId && r.reason === 'deleted'),
      );
      for (const id of suppliers)
        assert.ok(
          own.some((r) => r.type === 'supplier' && r.id === id && r.reason === 'not_visible'),
          `supplier ${id} left the worker's view`,
        );
    });

    it('brings a deleted id back with a later row; a row not later than the deletion is skipped, as are entries of a timesheet not stored', async () => {
      const [expense] = await db.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? ORDER BY id DESC LIMIT 1',
        WS,
      );
      const [sheet] = await db.all<Row>(
        `SELECT t.* FROM timesheets t WHERE t.workspace_id = ?
           AND (SELECT COUNT(*) FROM time_entries e WHERE e.timesheet_id = t.id) > 1
           ORDER BY t.id DESC LIMIT 1`,
        WS,
      );
      const entries = await db.all<Row>(
        'SELECT * FROM time_entries WHERE timesheet_id = ? ORDER BY id',
        sheet.id,
      );
      const at = later();
      await load(
        [],
        [deletion('expense', expense.id, at, 2), deletion('timesheet', sheet.id, at, 3)],
      );
      assert.equal(await stored('expenses', expense.id), false);

      // Not later: as old as the deletion, or older; and entries whose timesheet is gone.
      const before = await version();
      const stale = await load(
        [
          ['expenses', [{ ...expense, updated_at: at }]],
          ['timesheets', [{ ...sheet, updated_at: '2001-01-01T00:00:00.000Z' }]],
          ['time_entries', entries],
        ],
        [],
      );
      assert.equal(stale.changed, false);
      assert.equal(await version(), before);
      assert.deepEqual(stale.counts.expenses, { ...NONE, skipped: 1 });
      assert.deepEqual(stale.counts.timesheets, { ...NONE, skipped: 1 });
      assert.deepEqual(stale.counts.time_entries, { ...NONE, skipped: entries.length });
      assert.equal(await stored('expenses', expense.id), false);
      assert.equal(await stored('timesheets', sheet.id), false);

      // Later: back, with the timesheet's entries and their facts, and no longer a deletion.
      const back = await load(
        [
          ['expenses', [{ ...expense, updated_at: later() }]],
          ['timesheets', [{ ...sheet, updated_at: later() }]],
          ['time_entries', entries],
        ],
        [],
      );
      assert.equal(back.version, before + 1);
      assert.deepEqual(back.counts.expenses, { ...NONE, inserted: 1 });
      assert.deepEqual(back.counts.timesheets, { ...NONE, inserted: 1 });
      assert.deepEqual(back.counts.time_entries, { ...NONE, inserted: entries.length });
      assert.equal(await stored('expenses', expense.id), true);
      assert.equal(await stored('timesheets', sheet.id), true);
      assert.equal(await recordedAt('expense', expense.id), before + 1);
      assert.equal(await recordedAt('timesheet', sheet.id), before + 1);
      assert.deepEqual(
        await db.all('SELECT id FROM record_deletions WHERE id IN (?, ?)', expense.id, sheet.id),
        [],
      );
      assert.deepEqual(
        await db.all(
          'SELECT id FROM audience_changes WHERE id IN (?, ?) AND reason IS NOT NULL',
          expense.id,
          sheet.id,
        ),
        [],
        'the tombstones went with the deletion',
      );
      await assertFactsCurrent();
    });

    it('deletes a supplier only with its assignments in the same load', async () => {
      const [worker] = await db.all<Row>(
        'SELECT * FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const [assignment] = await db.all<Row>(
        'SELECT * FROM assignments WHERE workspace_id = ? AND worker_id = ? ORDER BY id LIMIT 1',
        WS,
        worker.id,
      );
      const [template] = await db.all<Row>(
        'SELECT * FROM suppliers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const made = later();
      const supplier = {
        ...template,
        id: 'sup_to_delete',
        code: 'DEL-01',
        created_at: made,
        updated_at: made,
      };
      const placed = {
        ...assignment,
        id: 'asg_to_delete',
        supplier_ref: 'DEL-01',
        created_at: made,
        updated_at: made,
      };
      await load(
        [
          ['suppliers', [supplier]],
          ['assignments', [placed]],
        ],
        [],
      );

      const before = await version();
      await assert.rejects(
        load([], [deletion('supplier', supplier.id, later(), 4)]),
        (error: unknown) => {
          assert.ok(error instanceof DeletionRefusedError);
          assert.equal(error.problems.length, 1);
          const [problem] = error.problems;
          assert.equal(problem.file, FILE);
          assert.equal(problem.line, 4);
          assert.match(
            problem.message,
            /^supplier "sup_to_delete" is still referred to by 1 row of assignments \(asg_to_delete\)/,
          );
          return true;
        },
      );
      assert.equal(await version(), before);
      assert.equal(await stored('suppliers', supplier.id), true);

      const at = later();
      const result = await load(
        [],
        [deletion('supplier', supplier.id, at, 2), deletion('assignment', placed.id, at, 3)],
      );
      assert.equal(result.version, before + 1);
      assert.deepEqual(result.counts.suppliers, { ...NONE, deleted: 1 });
      assert.deepEqual(result.counts.assignments, { ...NONE, deleted: 1 });
      assert.equal(await stored('suppliers', supplier.id), false);
      assert.equal(await stored('assignments', placed.id), false);
      // Who could read the supplier: its billing entity, and the worker its assignment linked.
      const audiences = await db.all<{ audience: string; reason: string }>(
        "SELECT audience, reason FROM audience_changes WHERE type = 'supplier' AND id = ? ORDER BY audience",
        supplier.id,
      );
      assert.deepEqual(audiences, [
        { audience: 'supplier:DEL-01', reason: 'deleted' },
        { audience: `worker:${String(worker.id)}`, reason: 'deleted' },
      ]);
    });

    it('refuses a deletion when the same load writes a row that refers to the deleted record', async () => {
      const [worker] = await db.all<Row>(
        'SELECT * FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const [sheet] = await db.all<Row>(
        'SELECT * FROM timesheets WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const [assignment] = await db.all<Row>(
        'SELECT * FROM assignments WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const [template] = await db.all<Row>(
        'SELECT * FROM suppliers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const made = later();
      const lone = { ...worker, id: 'wkr_lone', created_at: made, updated_at: made };
      const loneSupplier = {
        ...template,
        id: 'sup_lone',
        code: 'LONE-01',
        created_at: made,
        updated_at: made,
      };
      await load(
        [
          ['workers', [lone]],
          ['suppliers', [loneSupplier]],
        ],
        [],
      );

      const before = await version();
      const cases: { rows: [DataTable, Row[]][]; doomed: Deletion; table: string; by: string }[] = [
        {
          rows: [
            [
              'timesheets',
              [
                {
                  ...sheet,
                  id: 'ts_of_lone',
                  worker_id: 'wkr_lone',
                  created_at: later(),
                  updated_at: later(),
                },
              ],
            ],
          ],
          doomed: deletion('worker', 'wkr_lone', later(), 5),
          table: 'timesheets',
          by: 'ts_of_lone',
        },
        {
          rows: [
            [
              'assignments',
              [
                {
                  ...assignment,
                  id: 'asg_at_lone',
                  supplier_ref: 'LONE-01',
                  created_at: later(),
                  updated_at: later(),
                },
              ],
            ],
          ],
          doomed: deletion('supplier', 'sup_lone', later(), 6),
          table: 'assignments',
          by: 'asg_at_lone',
        },
      ];
      for (const { rows, doomed, table, by } of cases) {
        await assert.rejects(load(rows, [doomed]), (error: unknown) => {
          assert.ok(error instanceof DeletionRefusedError);
          assert.deepEqual(
            error.problems.map((p) => [p.file, p.line]),
            [[FILE, doomed.line]],
          );
          assert.match(error.problems[0].message, new RegExp(`1 row of ${table} \\(${by}\\)`));
          return true;
        });
        assert.equal(await version(), before);
        assert.equal(await stored(table, by), false, 'the referring row was not written');
      }
      assert.equal(await stored('workers', 'wkr_lone'), true);
      assert.equal(await stored('suppliers', 'sup_lone'), true);
    });
  });
}
