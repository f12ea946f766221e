/**
 * `supplierId` (DESIGN §4.15) names only the suppliers the token can list (`list_suppliers`): the
 * id of another keeps nothing, as an id that names no supplier, even of the token's own records
 * that name it, and costs what such an id costs: it is resolved among the suppliers the token can
 * list, so the database never walks that supplier's records, and the answer's time says nothing
 * of how many it has (docs/limits-and-faults.md). Timed at the store, in turns, against a
 * supplier given 20,000 records of each filtered list: walking them costs a millisecond or more,
 * ten times the answer's own cost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { invoiceList } from '../../src/operations/invoices.js';
import type { ResourceSpec } from '../../src/operations/resource-operations.js';
import { assignmentList, expenseList } from '../../src/operations/simple-lists.js';
import type { DataTable } from '../../src/store/schema.js';
import type { Row } from '../../src/store/sink.js';
import type { Viewer } from '../../src/store/visibility.js';
import { loadChanges } from '../support/feed.js';
import { DIALECTS, get, qs, startHarness, WS, type Harness } from '../support/harness.js';
import { later } from '../support/random-loads.js';

const MANY = 20_000;
const RUNS = 41;
const LISTS: [ResourceSpec, DataTable][] = [
  [assignmentList, 'assignments'],
  [expenseList, 'expenses'],
  [invoiceList, 'invoices'],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const dialect of DIALECTS) {
  describe(`supplierId costs the same for a supplier the token cannot list as for none (${dialect})`, () => {
    let h: Harness;
    let other: { id: string; code: string };
    before(async () => {
      h = await startHarness({ dialect });
      const [supplier] = await h.all<{ id: string; code: string }>(
        `SELECT id, code FROM suppliers WHERE workspace_id = ? AND code <> ? AND code NOT IN
           (SELECT supplier_ref FROM assignments WHERE worker_id = ?) ORDER BY id LIMIT 1`,
        WS,
        h.supplierCode,
        h.workerId,
      );
      other = supplier;
      // Another worker's records, given to that supplier many times over.
      const rows: [DataTable, Row[]][] = [];
      for (const [, table] of LISTS) {
        const [row] = await h.all<Row>(
          `SELECT * FROM ${table} WHERE workspace_id = ? AND ${table === 'invoices' ? 'supplier_ref IS NOT NULL' : 'worker_id <> ?'} ORDER BY id LIMIT 1`,
          WS,
          ...(table === 'invoices' ? [] : [h.workerId]),
        );
        const copies = Array.from({ length: MANY }, (_, i) => ({
          ...row,
          id: `${String(row.id)}_many_${i}`,
          supplier_ref: other.code,
          created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        }));
        rows.push([table, copies]);
      }
      await loadChanges(h, rows);
    });
    after(() => h.close());

    it("keeps nothing of a worker's own expense that names a supplier it cannot list; staff's filter keeps it", async () => {
      const [expense] = await h.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? AND worker_id = ? ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      await loadChanges(h, [
        ['expenses', [{ ...expense, supplier_ref: other.code, updated_at: later() }]],
      ]);
      const path = `/api/v1/expenses${qs({ supplierId: other.id })}`;
      const ids = async (token: string) => {
        const answer = await get(h.app, path, token);
        assert.equal(answer.status, 200, answer.raw);
        return (answer.body.data.items as { id: string }[]).map((i) => i.id);
      };
      assert.deepEqual(await ids(h.tokens.worker), []);
      assert.ok((await ids(h.tokens.staff)).includes(String(expense.id)));
    });

    const viewers: Record<string, Viewer> = {
      'a billing entity': { role: 'billing_entity', workerId: null, supplierCode: '' },
      'a worker': { role: 'worker', workerId: '', supplierCode: null },
    };

    for (const [who, shape] of Object.entries(viewers))
      for (const [spec] of LISTS) {
        if (who === 'a worker' && spec === invoiceList) continue; // a worker reads no invoice
        it(`${spec.name}, ${who}`, async () => {
          const viewer = { ...shape, supplierCode: shape.supplierCode ?? null };
          if (viewer.role === 'billing_entity') viewer.supplierCode = h.supplierCode;
          else viewer.workerId = h.workerId;
          const source = { ...spec.source, columns: spec.record.columns };
          const read = async (id: string) => {
            const started = process.hrtime.bigint();
            const rows = await h.store.listPage(source, {
              workspaceId: WS,
              viewer,
              after: null,
              order: 'asc',
              limit: 51,
              conditions: [{ is: 'supplier', column: 'supplier_ref', value: id }],
            });
            assert.deepEqual(rows, []);
            return Number(process.hrtime.bigint() - started) / 1e3;
          };
          const [unlisted, none]: number[][] = [[], []];
          for (let i = 0; i < RUNS + 3; i++) {
            const a = await read(other.id);
            const b = await read('sup_none_0000000');
            if (i < 3) continue; // statements prepared, pages cached
            unlisted.push(a);
            none.push(b);
          }
          const [u, n] = [median(unlisted), median(none)];
          assert.ok(u < 3 * n, `another supplier's id: ${u} µs; no supplier's: ${n} µs`);
        });
      }
  });
}
