import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATIONS } from '../../src/operations/registry.js';
import { DEFAULT_METRICS } from '../../src/semantic/default-catalog.js';
import { VIEWS } from '../../src/semantic/views.js';
import { assertSameAnswer } from '../support/assertions.js';
import { callOperation, startHarness, WS, type Answer, type Harness } from '../support/harness.js';
import { TEST_PG_URL } from '../support/test-databases.js';

describe(
  'SQLite and PostgreSQL answer alike on the same seed',
  { skip: !TEST_PG_URL && 'no PostgreSQL test cluster' },
  () => {
    let sqlite: Harness;
    let postgres: Harness;
    before(async () => {
      [sqlite, postgres] = await Promise.all([
        startHarness({ dialect: 'sqlite' }),
        startHarness({ dialect: 'postgres' }),
      ]);
    });
    after(async () => {
      await sqlite?.close();
      await postgres?.close();
    });

    /** Calls one operation on both and compares; follows nextCursor for lists and reports. */
    async function compare(
      name: string,
      input: Record<string, unknown>,
      role: keyof Harness['tokens'] = 'staff',
      pages = 3,
    ) {
      const op = OPERATIONS.find((o) => o.name === name);
      assert.ok(op, name);
      let inputs: [Record<string, unknown>, Record<string, unknown>] = [input, input];
      for (let page = 0; page < pages; page++) {
        const [a, b]: Answer[] = await Promise.all([
          callOperation(sqlite.app, op, sqlite.tokens[role], inputs[0]),
          callOperation(postgres.app, op, postgres.tokens[role], inputs[1]),
        ]);
        assert.equal(a.status, b.status, `${name} status`);
        assertSameAnswer(
          a.body.data ?? a.body.error,
          b.body.data ?? b.body.error,
          `${name}#${page}`,
        );
        const [ca, cb] = [a.body.data?.nextCursor, b.body.data?.nextCursor];
        if (!ca || !cb) return;
        inputs = [
          { ...input, cursor: ca },
          { ...input, cursor: cb },
        ];
      }
    }

    const firstIds = async (table: string, n: number) =>
      (
        await sqlite.all<{ id: string }>(
          `SELECT id FROM ${table} WHERE workspace_id = ? ORDER BY created_at, id LIMIT ${n}`,
          WS,
        )
      ).map((r) => r.id);

    for (const name of [
      'list_workers',
      'list_timesheets',
      'list_invoices',
      'list_suppliers',
      'list_assignments',
      'list_expenses',
      'list_approval_statuses',
    ]) {
      it(`${name}: pages in both orders and every role`, async () => {
        await compare(name, { limit: 7 });
        await compare(name, { limit: 50, order: 'desc' });
        for (const role of ['worker', 'billing', 'staffNoPii'] as const)
          await compare(name, {}, role, 2);
      });
    }

    it('get_worker, get_timesheet and get_invoice for the same ids', async () => {
      for (const id of await firstIds('workers', 5)) await compare('get_worker', { id });
      const sheets = await sqlite.all<{ id: string }>(
        `SELECT timesheet_id AS id FROM time_entries WHERE workspace_id = ? GROUP BY timesheet_id ORDER BY COUNT(*) DESC, timesheet_id LIMIT 3`,
        WS,
      );
      for (const { id } of sheets) await compare('get_timesheet', { id });
      const invoices = await sqlite.all<{ id: string }>(
        `SELECT invoice_id AS id FROM invoice_lines WHERE workspace_id = ? GROUP BY invoice_id ORDER BY COUNT(*) DESC, invoice_id LIMIT 3`,
        WS,
      );
      for (const { id } of invoices) {
        await compare('get_invoice', { id });
        await compare('get_invoice', { id }, 'billing');
      }
    });

    it('list_catalog, list_saved_queries and run_saved_query', async () => {
      await compare('list_catalog', {});
      await compare('list_saved_queries', { limit: 3 });
      for (const { id } of await sqlite.all<{ id: string }>(
        `SELECT id FROM saved_queries WHERE workspace_id = ? ORDER BY id`,
        WS,
      )) {
        await compare('run_saved_query', { savedQueryId: id });
      }
    });

    it('run_semantic_query for every metric, ungrouped, by every dimension and by month', async () => {
      for (const [key, metric] of Object.entries(DEFAULT_METRICS)) {
        const view = VIEWS.get(metric.view);
        assert.ok(view);
        await compare('run_semantic_query', { query: { metrics: [key] } });
        for (const dimension of view.dimensions)
          await compare(
            'run_semantic_query',
            { query: { metrics: [key], dimensions: [dimension], limit: 1000 } },
            'staff',
            2,
          );
        await compare('run_semantic_query', {
          query: {
            metrics: [key],
            dimensions: [view.timeDimension],
            timeGrain: 'week',
            limit: 1000,
            order: [{ key, direction: 'desc' }],
          },
        });
      }
    });
  },
);
