/**
 * Period zones (src/store/sql/period-zones.ts): a period filter's page walks only the creation
 * days whose zone overlaps the period. Zones are a bound, so what must hold is that they never
 * leave a record out: every record lies within its day's zone after any load (upserts that move
 * periods or creation times, rows that carry only what changed, deletions, records brought
 * back) and after `facts refresh`, and every period filter, paged through in either order, keeps
 * exactly the records a plain scan keeps. Both stores. (A load committed between a page's bounds
 * and its rows is kept out by reading both in one snapshot, `SqlStore.listPage`; no test races
 * one.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { invoiceList } from '../../src/operations/invoices.js';
import type { ResourceSpec } from '../../src/operations/resource-operations.js';
import { timesheetList } from '../../src/operations/timesheets.js';
import { dayAfter, withCreationBounds } from '../../src/store/sql/period-bounds.js';
import type { Row } from '../../src/store/sink.js';
import type { ListCondition, Order } from '../../src/store/store.js';
import type { Viewer } from '../../src/store/visibility.js';
import { DIALECTS } from '../support/harness.js';
import { applyLoad, later, loadSteps } from '../support/random-loads.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const STAFF: Viewer = { role: 'staff', workerId: null, supplierCode: null };
const LISTS: { spec: ResourceSpec; table: string }[] = [
  { spec: timesheetList, table: 'timesheets' },
  { spec: invoiceList, table: 'invoices' },
];

/** Days from before the seed's history to after it (the seed ends 2026-06-30). */
const day = fc
  .integer({ min: Date.UTC(2022, 11, 1), max: Date.UTC(2027, 1, 1) })
  .map((ms) => new Date(ms - (ms % 86_400_000)).toISOString().slice(0, 10));
const period = fc.record({ from: fc.option(day), to: fc.option(day) });

for (const dialect of DIALECTS) {
  describe(`period zones keep every record a period filter keeps (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    /** Records outside their day's zone: none, ever. */
    async function uncovered(table: string): Promise<number> {
      const row = await db.one<{ n: number }>(
        `SELECT COUNT(*) AS n FROM ${table} t LEFT JOIN period_zones z ON z.table_name = ?
         AND z.workspace_id = t.workspace_id AND z.created_day = substr(t.created_at, 1, 10)
         WHERE z.created_day IS NULL OR z.first_period_start > t.period_start
         OR z.last_period_end < t.period_end`,
        table,
      );
      return Number(row.n);
    }

    /** Every id a filtered list gives, page by page, through the store. */
    async function listed(
      spec: ResourceSpec,
      conditions: ListCondition[],
      order: Order,
    ): Promise<string[]> {
      const source = { ...spec.source, columns: spec.record.columns };
      const ids: string[] = [];
      let after: [string, string] | null = null;
      for (;;) {
        const rows = await db.store.listPage(source, {
          workspaceId: WS,
          viewer: STAFF,
          after,
          order,
          limit: 7,
          conditions,
        });
        ids.push(...rows.map((r) => String(r.id)));
        if (rows.length < 7) return ids;
        const last = rows[rows.length - 1];
        after = [String(last.created_at), String(last.id)];
      }
    }

    async function assertKeepsWhatAScanKeeps(
      which: { from: string | null; to: string | null },
      order: Order,
    ): Promise<void> {
      for (const { spec, table } of LISTS) {
        const conditions: ListCondition[] = [
          ...(which.from ? spec.filters!.periodFrom.conditions(which.from) : []),
          ...(which.to ? spec.filters!.periodTo.conditions(which.to) : []),
        ];
        const dir = order === 'asc' ? 'ASC' : 'DESC';
        const scanned = await db.all<{ id: string }>(
          `SELECT id FROM ${table} WHERE workspace_id = ?` +
            (which.from ? ' AND period_end >= ?' : '') +
            (which.to ? ' AND period_start <= ?' : '') +
            ` ORDER BY created_at ${dir}, id ${dir}`,
          WS,
          ...(which.from ? [which.from] : []),
          ...(which.to ? [which.to] : []),
        );
        assert.deepEqual(
          await listed(spec, conditions, order),
          scanned.map((r) => r.id),
          `${table} ${JSON.stringify(which)} ${order}`,
        );
      }
    }

    it('the seed and its migration leave no record outside its zone', async () => {
      for (const { table } of LISTS) assert.equal(await uncovered(table), 0, table);
      const zones = await db.one<{ n: number }>(
        'SELECT COUNT(*) AS n FROM period_zones WHERE workspace_id = ?',
        WS,
      );
      assert.ok(Number(zones.n) > 10);
    });

    it('after random loads, every period filter keeps what a scan keeps, in both orders', async () => {
      await fc.assert(
        fc.asyncProperty(
          loadSteps,
          period,
          fc.constantFrom<Order>('asc', 'desc'),
          async (steps, which, order) => {
            await applyLoad(db.store, WS, steps);
            for (const { table } of LISTS) assert.equal(await uncovered(table), 0, table);
            await assertKeepsWhatAScanKeeps(which, order);
          },
        ),
        { numRuns: 25 },
      );
    });

    it('a load that moves periods and creation times far away widens the zones', async () => {
      const picked = await db.all<Record<string, unknown>>(
        `SELECT * FROM timesheets WHERE workspace_id = ? ORDER BY id LIMIT 4`,
        WS,
      );
      const edits: Row[] = [
        // One to a period years away, one created on a day no record was, one both.
        { period_start: '2019-01-07', period_end: '2019-01-13' },
        { created_at: '2030-02-02T10:00:00.000Z' },
        {
          created_at: '2018-05-05T10:00:00.000Z',
          period_start: '2031-01-01',
          period_end: '2031-01-31',
        },
      ];
      const load = await db.store.openLoad();
      await load.insert('timesheets', [
        ...picked
          .slice(0, 3)
          .map((row, i) => ({ ...(row as Row), ...edits[i], updated_at: later() })),
        // A row that carries only what changed, as an import file may: laid over the stored row.
        {
          id: String(picked[3].id),
          workspace_id: WS,
          period_end: '2035-06-30',
          updated_at: later(),
        },
      ]);
      await load.finish();
      assert.equal(await uncovered('timesheets'), 0);
      for (const order of ['asc', 'desc'] as const) {
        await assertKeepsWhatAScanKeeps({ from: '2019-01-10', to: '2019-01-10' }, order);
        await assertKeepsWhatAScanKeeps({ from: '2031-01-15', to: null }, order);
        await assertKeepsWhatAScanKeeps({ from: null, to: '2019-02-01' }, order);
        await assertKeepsWhatAScanKeeps({ from: '2035-01-01', to: null }, order);
      }
      const found = await listed(
        timesheetList,
        timesheetList.filters!.periodFrom.conditions('2031-01-15'),
        'asc',
      );
      assert.deepEqual(found, [picked[2].id, picked[3].id]);
    });

    it('a period no zone overlaps is answered without reading the list', async () => {
      const period = (from: string, to: string) => [
        ...timesheetList.filters!.periodFrom.conditions(from),
        ...timesheetList.filters!.periodTo.conditions(to),
      ];
      const bounds = (conditions: ListCondition[]) =>
        withCreationBounds(
          (sql, params) => db.store.get(sql, params),
          'timesheets',
          WS,
          conditions,
        );
      assert.equal(await bounds(period('1990-01-01', '1990-12-31')), null);
      assert.deepEqual(await listed(timesheetList, period('1990-01-01', '1990-12-31'), 'desc'), []);
      // A period the seed's zones do overlap is bounded by creation days, not refused.
      const held = await bounds(period('2026-03-01', '2026-03-31'));
      assert.ok(held);
      assert.deepEqual(
        held.filter((c) => c.column === 'created_at').map((c) => c.is),
        ['atLeast', 'below'],
      );
    });

    it('facts refresh takes in rows written by other means than a load', async () => {
      const [sheet] = await db.all<{ id: string }>(
        'SELECT id FROM timesheets WHERE workspace_id = ? ORDER BY id DESC LIMIT 1',
        WS,
      );
      // By hand, as an older vms-read or an operator's SQL would: the zones know nothing of it.
      await db.store.run(
        "UPDATE timesheets SET period_start = '2044-01-01', period_end = '2044-01-07' WHERE id = ?",
        [sheet.id],
      );
      assert.equal(await uncovered('timesheets'), 1);
      await db.store.refreshReportFacts();
      assert.equal(await uncovered('timesheets'), 0);
      await assertKeepsWhatAScanKeeps({ from: '2044-01-02', to: null }, 'asc');
    });

    it('bounds a day by the next one, and nothing past 9999-12-31', () => {
      assert.equal(dayAfter('2024-02-28'), '2024-02-29');
      assert.equal(dayAfter('2025-12-31'), '2026-01-01');
      assert.equal(dayAfter('9999-12-31'), null);
      assert.equal(dayAfter('2025-13-01'), null);
      assert.equal(dayAfter('2025-03'), null);
    });
  });
}
