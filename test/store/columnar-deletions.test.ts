/**
 * Columnar copies follow deletions by delta (DESIGN §4.13, src/store/duckdb/patch-facts.ts): a
 * patch past a load that deleted a timesheet, an invoice and a worker with all that refers to it
 * takes out their entry and line facts and the deleted records (fact_deletions and
 * record_deletions), without writing a new copy; the patched copy holds what a copy written whole
 * holds, and its report answers equal the row store's.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_METRICS } from '../../src/semantic/default-catalog.js';
import { VIEWS } from '../../src/semantic/views.js';
import { createService } from '../../src/service.js';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { DuckdbFacts } from '../../src/store/duckdb/duckdb-facts.js';
import { patchColumnarFacts } from '../../src/store/duckdb/patch-facts.js';
import type { Deletion } from '../../src/store/load/deletions.js';
import type { DataTable } from '../../src/store/schema.js';
import type { Row } from '../../src/store/sink.js';
import type { FeedType } from '../../src/store/sql/change-log.js';
import type { ReportFacts } from '../../src/store/store.js';
import { assertSameAnswer } from '../support/assertions.js';
import { assertAsWrittenWhole } from '../support/columnar-contents.js';
import { DIALECTS, post, staffToken } from '../support/harness.js';
import { later } from '../support/random-loads.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const QUERY = '/api/v1/reports/query';

for (const dialect of DIALECTS) {
  describe(`columnar copies follow deletions by patch (${dialect})`, () => {
    let db: TestDatabase;
    let dir: string;
    let facts: DuckdbFacts;
    before(async () => {
      db = await openTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'vms-read-deletion-patches-'));
      const built = await buildColumnarFacts(db.store, join(dir, 'bases'));
      const copy = join(dir, 'copy.duckdb');
      copyFileSync(built.path, copy);
      facts = await DuckdbFacts.open(copy, 1);
    });
    after(async () => {
      await facts?.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const live = (sql: string) => facts.engine.run(sql, [], 60_000);
    const idsOf = async (sql: string, ...params: unknown[]) =>
      (await db.all<{ id: string }>(sql, ...params)).map((r) => String(r.id));
    /** Of these ids, those the copy's table still holds. */
    async function held(table: string, ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const list = ids.map((id) => `'${id.replace(/'/g, "''")}'`).join(', ');
      return (await live(`SELECT id FROM ${table} WHERE id IN (${list})`)).map((r) => String(r.id));
    }

    async function load(rows: [DataTable, Row[]][], deletions: { type: FeedType; id: string }[]) {
      const at = later();
      const open = await db.store.openLoad();
      try {
        for (const [table, batch] of rows) await open.insert(table, batch);
        const given: Deletion[] = deletions.map((d, i) => ({
          ...d,
          deleted_at: at,
          file: 'deletions.csv',
          line: i + 2,
        }));
        await open.remove(WS, given);
        return await open.finish();
      } catch (error) {
        await open.abort();
        throw error;
      }
    }

    async function patch() {
      const outcome = await patchColumnarFacts(facts, db.store, { dir, maxShare: 0.25 });
      assert.equal(outcome.kind, 'patched', JSON.stringify(outcome));
      assert.deepEqual(facts.version, await db.store.dataVersion());
      await assertAsWrittenWhole(live, db, 'as a copy written whole');
      return outcome;
    }

    let sheet: Row;
    let sheetEntries: Row[];

    it("removes a deleted timesheet's entry facts, an invoice's line facts and the deleted records, by patch", async () => {
      [sheet] = await db.all<Row>(
        `SELECT t.* FROM timesheets t WHERE t.workspace_id = ?
           AND (SELECT COUNT(*) FROM time_entries e WHERE e.timesheet_id = t.id) > 1 ORDER BY t.id LIMIT 1`,
        WS,
      );
      sheetEntries = await db.all<Row>(
        'SELECT * FROM time_entries WHERE timesheet_id = ?',
        sheet.id,
      );
      const [{ id: invoiceId }] = await db.all<{ id: string }>(
        `SELECT invoice_id AS id FROM invoice_lines WHERE workspace_id = ?
           GROUP BY invoice_id ORDER BY COUNT(*) DESC, invoice_id LIMIT 1`,
        WS,
      );
      // A worker with the fewest timesheets, and everything that refers to it.
      const [{ id: workerId }] = await db.all<{ id: string }>(
        `SELECT w.id FROM workers w WHERE w.workspace_id = ?
           AND EXISTS (SELECT 1 FROM timesheets t WHERE t.worker_id = w.id)
           AND EXISTS (SELECT 1 FROM expenses x WHERE x.worker_id = w.id) AND w.id <> ?
           ORDER BY (SELECT COUNT(*) FROM timesheets t WHERE t.worker_id = w.id), w.id LIMIT 1`,
        WS,
        sheet.worker_id,
      );
      const closure = {
        approval_status: await idsOf(
          'SELECT id FROM approval_statuses WHERE worker_id = ?',
          workerId,
        ),
        expense: await idsOf(
          'SELECT id FROM expenses WHERE worker_id = ? OR assignment_id IN (SELECT id FROM assignments WHERE worker_id = ?)',
          workerId,
          workerId,
        ),
        timesheet: await idsOf(
          'SELECT id FROM timesheets WHERE worker_id = ? OR id IN (SELECT timesheet_id FROM time_entries WHERE assignment_id IN (SELECT id FROM assignments WHERE worker_id = ?))',
          workerId,
          workerId,
        ),
        assignment: await idsOf('SELECT id FROM assignments WHERE worker_id = ?', workerId),
      };
      const entries = [
        ...sheetEntries.map((e) => String(e.id)),
        ...(await idsOf(
          `SELECT id FROM time_entries WHERE timesheet_id IN (${closure.timesheet.map(() => '?').join(', ')})`,
          ...closure.timesheet,
        )),
      ];
      const lines = await idsOf('SELECT id FROM invoice_lines WHERE invoice_id = ?', invoiceId);
      const gone = {
        report_time_entries: entries,
        report_invoice_lines: lines,
        timesheets: [String(sheet.id), ...closure.timesheet],
        invoices: [invoiceId],
        workers: [workerId],
        expenses: closure.expense,
        assignments: closure.assignment,
      };
      for (const [table, ids] of Object.entries(gone))
        assert.deepEqual((await held(table, ids)).sort(), [...ids].sort(), `${table} before`);

      const result = await load(
        [],
        [
          { type: 'timesheet', id: String(sheet.id) },
          { type: 'invoice', id: invoiceId },
          { type: 'worker', id: workerId },
          ...Object.entries(closure).flatMap(([type, ids]) =>
            ids.map((id) => ({ type: type as FeedType, id })),
          ),
        ],
      );
      assert.equal(result.counts.time_entries.deleted, entries.length);
      assert.equal(result.counts.invoice_lines.deleted, lines.length);

      const outcome = await patch();
      assert.equal(outcome.kind === 'patched' && outcome.version.version, result.version);
      for (const [table, ids] of Object.entries(gone))
        assert.deepEqual(await held(table, ids), [], `${table} after`);
    });

    it('patches a copy past a deleted timesheet brought back and another deletion, and answers reports as the row store does', async () => {
      const [invoice] = await db.all<{ id: string }>(
        `SELECT i.id FROM invoices i WHERE i.workspace_id = ? AND i.supplier_ref IS NULL
           AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id) ORDER BY i.id LIMIT 1`,
        WS,
      );
      const lines = await idsOf('SELECT id FROM invoice_lines WHERE invoice_id = ?', invoice.id);
      await load(
        [
          ['timesheets', [{ ...sheet, status: 'approved', updated_at: later() }]],
          ['time_entries', sheetEntries],
        ],
        [{ type: 'invoice', id: invoice.id }],
      );
      await patch();
      assert.equal(
        (
          await held(
            'report_time_entries',
            sheetEntries.map((e) => String(e.id)),
          )
        ).length,
        sheetEntries.length,
      );
      assert.equal((await held('timesheets', [String(sheet.id)])).length, 1);
      assert.deepEqual(await held('report_invoice_lines', lines), []);
      assert.deepEqual(await held('invoices', [invoice.id]), []);

      // The same reports, from the patched copy and from the row store.
      const copyFacts: ReportFacts = {
        reportConcurrency: 1,
        reportEngine: async () => facts.engine,
        latestConfig: (w) => db.store.latestConfig(w),
        catalogStamp: (w) => db.store.catalogStamp(w),
        catalogEntries: (w) => db.store.catalogEntries(w),
      };
      const services: FastifyInstance[] = [];
      try {
        for (const options of [{ facts: copyFacts }, {}]) {
          const { app } = await createService({
            store: db.store,
            secret: 'test-secret',
            quotaPerMinute: 0,
            cacheReports: false,
            ...options,
          });
          await app.ready();
          services.push(app);
        }
        const [fromCopy, fromRows] = services;
        const token = await staffToken(db.store);
        let compared = 0;
        for (const [key, metric] of Object.entries(DEFAULT_METRICS)) {
          const view = VIEWS.get(metric.view);
          assert.ok(view, metric.view);
          const queries = [
            { metrics: [key] },
            { metrics: [key], dimensions: [view.timeDimension], timeGrain: 'month', limit: 1000 },
            ...view.dimensions.map((d) => ({ metrics: [key], dimensions: [d], limit: 1000 })),
          ];
          for (const query of queries) {
            const [a, b] = await Promise.all([
              post(fromCopy, QUERY, token, { query }),
              post(fromRows, QUERY, token, { query }),
            ]);
            assert.equal(a.status, 200, a.raw);
            assert.equal(b.status, 200, b.raw);
            assertSameAnswer(a.body.data, b.body.data, JSON.stringify(query));
            compared++;
          }
        }
        assert.ok(compared > 20, `${compared} reports compared`);
      } finally {
        for (const app of services) await app.close();
      }
    });
  });
}
