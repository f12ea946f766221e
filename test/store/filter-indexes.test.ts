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
import { withCreationBounds } from '../../src/store/sql/period-bounds.js';
import { listPageSql } from '../../src/store/sql/resource-sql.js';
import type { Viewer } from '../../src/store/visibility.js';
import { DIALECTS, WS } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/**
 * DESIGN §4.15: each filter is answered through an index. An equality filter must be read from
 * its `(workspace_id, column, created_at, id)` index in the page's order (no sort). A period is
 * read by walking the page's own index between the first and the last creation day whose period
 * zone overlaps it (period-zones.test.ts has why that keeps every record), also with nothing to
 * sort. PostgreSQL plans by statistics, so there the planner is told not to scan the table when
 * it has another way. `ids` (at most 100 workers) is read by primary key, its few rows sorted. */
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
    periodFrom: /invoices_page/,
    periodTo: /invoices_page/,
  },
  list_timesheets: {
    status: /timesheets_status/,
    workerId: /timesheets_worker/,
    periodFrom: /timesheets_page/,
    periodTo: /timesheets_page/,
  },
  list_workers: {
    status: /workers_status/,
    onboardingState: /workers_onboarding/,
  },
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
        // Plans from statistics, not from whether autovacuum has analyzed the template yet.
        await client.query('ANALYZE');
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
        if (name === 'ids') continue; // below, at a scale where walking the workspace would cost
        it(`${spec.name} ${name}`, async () => {
          const source = { ...spec.source, columns: spec.record.columns };
          const value =
            name === 'periodFrom'
              ? '2026-04-01'
              : name === 'periodTo'
                ? '2023-07-15'
                : 'x';
          // A period is bounded by the creation days its zones allow, as the store bounds it.
          const conditions = await withCreationBounds(
            (sql, params) => database.store.get(sql, params),
            spec.source.table,
            WS,
            filter.conditions(value),
          );
          assert.ok(conditions, 'the period overlaps the seed');
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
            // Each filter walks an index in the page's order: nothing to sort.
            assert.doesNotMatch(shown, /TEMP B-TREE|Sort\b/, shown);
          }
        });
      }
    }

    // The baseline every filter is measured against: an index added for a filter must not take
    // the unfiltered page from its own index (planner-statistics.test.ts has how it once did).
    for (const spec of LISTS) {
      it(`${spec.name} without a filter walks ${spec.source.table}_page, nothing sorted`, async () => {
        const source = { ...spec.source, columns: spec.record.columns };
        for (const order of ['asc', 'desc'] as const) {
          const compiled = listPageSql(source, STAFF, order, false);
          const params = compiled.params({
            workspaceId: WS,
            viewer: STAFF,
            after: null,
            limit: 51,
          });
          const shown = await plan(compiled.sql, params);
          assert.match(shown, new RegExp(`${spec.source.table}_page\\b`), shown);
          assert.doesNotMatch(shown, /TEMP B-TREE|Sort\b/, shown);
        }
      });
    }

    it('covers every filter every list declares', () => {
      for (const spec of LISTS)
        assert.deepEqual(
          Object.keys(spec.filters ?? {}).filter((name) => name !== 'ids'),
          Object.keys(EXPECTED[spec.name]),
        );
    });

    // The tiny seed's workspace has a few dozen workers: walking them is rightly cheaper than a
    // hundred lookups. With 20,000 more (analyzed), ids must be looked up by primary key.
    it('list_workers ids: by primary key in a workspace of 20,000 workers, whatever the page order', async () => {
      await database.store.run(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
         INSERT INTO workers (id, workspace_id, type, display_name, onboarding_state, status, created_at, updated_at)
         SELECT 'wkr_bulk_' || i, ?, 'direct_sourced', 'Bulk worker', 'complete', 'active',
                '2021-01-01T00:00:00.000Z', '2021-01-01T00:00:00.000Z' FROM n`,
        [WS],
      );
      if (client) await client.query('ANALYZE workers');
      else await database.store.run('ANALYZE');
      const source = { ...workerList.source, columns: workerList.record.columns };
      const ids = Array.from({ length: 100 }, (_, i) => `wkr_bulk_${i * 150 + 1}`).join(',');
      const conditions = workerList.filters!.ids.conditions(ids);
      for (const order of ['asc', 'desc'] as const)
        for (const after of [null, ['2021-01-01T00:00:00.000Z', 'wkr_bulk_1'] as const]) {
          const compiled = listPageSql(source, STAFF, order, after !== null, conditions);
          const params = compiled.params({ workspaceId: WS, viewer: STAFF, after, limit: 51, conditions });
          const shown = await plan(compiled.sql, params);
          assert.match(shown, /PRIMARY KEY|autoindex_workers_1|workers_pkey/, shown);
          assert.doesNotMatch(shown, /workers_page|SCAN workers|Seq Scan on workers/, shown);
        }
    });
  });
}
