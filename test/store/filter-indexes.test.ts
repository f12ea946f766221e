import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { invoiceList } from '../../src/operations/invoices.js';
import type { ResourceSpec } from '../../src/operations/resource-operations.js';
import {
  approvalStatusList,
  assignmentList,
  expenseList,
} from '../../src/operations/simple-lists.js';
import { timesheetList } from '../../src/operations/timesheets.js';
import { workerList } from '../../src/operations/workers.js';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.js';
import { listPageSql } from '../../src/store/sql/resource-sql.js';
import type { Viewer } from '../../src/store/visibility.js';
import { DIALECTS, WS } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/**
 * DESIGN §4.15: each filter is answered through an index. An equality filter must be read from
 * its `(workspace_id, column, created_at, id)` index in the page's order (no sort). A period bound
 * is read from a `period_*` index (then sorted) or by walking the page's index, as the planner
 * estimates: neither store knows that periods follow creation times, so this test does not ask
 * which (docs/performance.md#list-filters has what each costs). PostgreSQL plans by statistics,
 * so there the planner is told not to scan the table when it has another way. */
const LISTS: ResourceSpec[] = [
  invoiceList,
  timesheetList,
  workerList,
  assignmentList,
  expenseList,
  approvalStatusList,
];
const STAFF: Viewer = { role: 'staff', workerId: null, supplierCode: null };

/** The index each filter is answered through. */
const EXPECTED: Record<string, Record<string, RegExp>> = {
  list_invoices: {
    status: /invoices_status/,
    type: /invoices_type/,
    supplierId: /invoices_supplier/,
    number: /invoices_number/,
    periodFrom: /invoices_period_end|invoices_page/,
    periodTo: /invoices_period_start|invoices_page/,
  },
  list_timesheets: {
    status: /timesheets_status/,
    workerId: /timesheets_worker/,
    periodFrom: /timesheets_period_end|timesheets_page/,
    periodTo: /timesheets_period_start|timesheets_page/,
  },
  list_workers: { status: /workers_status/, onboardingState: /workers_onboarding/ },
  list_assignments: {
    status: /assignments_status/,
    workerId: /assignments_worker/,
    supplierId: /assignments_supplier/,
  },
  list_expenses: {
    status: /expenses_status/,
    workerId: /expenses_worker/,
    supplierId: /expenses_supplier/,
  },
  list_approval_statuses: {
    state: /approval_statuses_state/,
    subjectRef: /approval_statuses_subject/,
  },
};

for (const dialect of DIALECTS) {
  describe(`the lists' filters are answered through indexes (${dialect})`, () => {
    let database: TestDatabase;
    let client: pg.Client | null = null;
    before(async () => {
      database = await openTestDatabase(dialect);
      if (dialect === 'postgres') {
        client = new pg.Client({ connectionString: database.db });
        await client.connect();
        await client.query('SET enable_seqscan = off');
        await client.query('SET enable_bitmapscan = off');
      }
    });
    after(async () => {
      await client?.end();
      await database.drop();
    });

    async function plan(sql: string, params: unknown[]): Promise<string> {
      if (client) {
        const rows = await client.query(`EXPLAIN ${postgresDialect.placeholders(sql)}`, params);
        return rows.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      }
      const rows = await database.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...params);
      return rows.map((r) => r.detail).join('\n');
    }

    for (const spec of LISTS) {
      for (const [name, filter] of Object.entries(spec.filters ?? {})) {
        it(`${spec.name} ${name}`, async () => {
          const source = { ...spec.source, columns: spec.record.columns };
          const value =
            name === 'periodFrom' ? '2026-06-01' : name === 'periodTo' ? '2023-07-15' : 'x';
          const conditions = filter.conditions(value);
          for (const order of ['asc', 'desc'] as const) {
            const compiled = listPageSql(source, STAFF, order, false, conditions);
            const params = compiled.params({
              workspaceId: WS,
              viewer: STAFF,
              after: null,
              limit: 51,
              conditions,
            });
            const shown = await plan(compiled.sql, params);
            assert.match(shown, EXPECTED[spec.name][name], shown);
            assert.doesNotMatch(shown, /SCAN t\b|Seq Scan on \w+ t\b/, shown);
            // An equality filter walks its index in the page's order: nothing to sort.
            if (!name.startsWith('period')) assert.doesNotMatch(shown, /TEMP B-TREE|Sort\b/, shown);
          }
        });
      }
    }

    it('covers every filter every list declares', () => {
      for (const spec of LISTS)
        assert.deepEqual(Object.keys(spec.filters ?? {}), Object.keys(EXPECTED[spec.name]));
    });
  });
}
