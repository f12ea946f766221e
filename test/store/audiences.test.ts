/**
 * The audiences of the feed's tombstones (src/store/load/audiences.ts) mirror the visibility the
 * resource lists declare (src/operations): a worker or billing entity gets a tombstone of exactly
 * the records its lists could show it. Held equal twice: rule by rule (AUDIENCE_COLUMNS against
 * each list's `visibility`, through the feed's own type → list mapping), and record by record
 * over the tiny seed, for every worker and every supplier of a workspace, on both stores (with
 * the read rows the seed gives billing entities of the invoices they read).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listChanges } from '../../src/operations/changes.js';
import { invoiceList } from '../../src/operations/invoices.js';
import type { ResourceSpec } from '../../src/operations/resource-operations.js';
import {
  approvalStatusList,
  assignmentList,
  expenseList,
  supplierList,
} from '../../src/operations/simple-lists.js';
import { timesheetList } from '../../src/operations/timesheets.js';
import { workerList } from '../../src/operations/workers.js';
import {
  AUDIENCE_COLUMNS,
  invoiceReaders,
  lineSuppliers,
  ownAudiences,
  SupplierLinks,
  supplierAudience,
  workerAudience,
} from '../../src/store/load/audiences.js';
import type { WriteSession } from '../../src/store/load/write-session.js';
import type { Row } from '../../src/store/sink.js';
import { FEED_TYPE_NAMES, FEED_TYPES, type FeedType } from '../../src/store/sql/change-log.js';
import { ruleFor, visibilityPredicate } from '../../src/store/sql/resource-sql.js';
import type { Viewer, VisibilityRule } from '../../src/store/visibility.js';
import { DIALECTS } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const LISTS: readonly ResourceSpec[] = [
  supplierList,
  workerList,
  assignmentList,
  timesheetList,
  expenseList,
  invoiceList,
  approvalStatusList,
];

/**
 * The list each feed type is served as (changes.ts's FEED), read from list_changes' own output
 * schema: each item type's `record` is that list's record schema.
 */
function feedLists(): Record<FeedType, ResourceSpec> {
  const items = (
    listChanges.output as unknown as {
      properties: { items: { items: { anyOf: { properties: Record<string, unknown> }[] } } };
    }
  ).properties.items.items.anyOf;
  const feed: Partial<Record<FeedType, ResourceSpec>> = {};
  for (const { properties } of items) {
    const type = (properties.type as { const?: string }).const as FeedType | undefined;
    if (type === undefined) continue; // the tombstone
    const spec = LISTS.find((list) => list.record.schema === properties.record);
    assert.ok(spec, `the list of ${type}`);
    feed[type] = spec;
  }
  return feed as Record<FeedType, ResourceSpec>;
}

/** What AUDIENCE_COLUMNS must say for one role's rule of a list. */
function expectedColumn(
  rule: VisibilityRule,
  role: 'worker' | 'supplier',
): { column: string | undefined; note: string } {
  if (rule === 'none') return { column: undefined, note: 'the role reads none of them' };
  if (rule === 'all')
    throw new Error('a role other than staff reading every record has no audience');
  if (rule === 'supplierOfWorker') {
    assert.equal(role, 'worker', 'supplierOfWorker is a worker rule');
    return {
      column: undefined,
      note: 'workers reach suppliers through assignments (SupplierLinks)',
    };
  }
  if (rule === 'invoiceOfSupplier') {
    assert.equal(role, 'supplier', 'invoiceOfSupplier is a billing entity rule');
    return {
      column: 'supplier_ref',
      note: 'its own invoices, consolidated ones by their lines (lineSuppliers)',
    };
  }
  // Invoice lines are no feed type: their invoice's change stands for them.
  assert.notEqual(rule, 'lineOfSupplier', 'lineOfSupplier is no feed list rule');
  if (rule === 'lineOfSupplier') throw new Error('unreachable');
  assert.equal(rule.is, role, `a ${role} rule names a ${role} column`);
  return { column: rule.column, note: `by its column ${rule.column}` };
}

describe('audiences mirror the visibility of the resource lists', () => {
  it('covers every feed type, each through its list', () => {
    const feed = feedLists();
    assert.deepEqual(Object.keys(feed).sort(), [...FEED_TYPE_NAMES].sort());
    assert.deepEqual(Object.keys(AUDIENCE_COLUMNS).sort(), [...FEED_TYPE_NAMES].sort());
    for (const [type, spec] of Object.entries(feed))
      assert.equal(spec.source.table, FEED_TYPES[type as FeedType], type);
  });

  it('names, for each type, the columns the lists decide visibility by', () => {
    const feed = feedLists();
    for (const type of FEED_TYPE_NAMES) {
      const { visibility } = feed[type].source;
      const worker = expectedColumn(visibility.worker, 'worker');
      const supplier = expectedColumn(visibility.billing_entity, 'supplier');
      assert.equal(
        AUDIENCE_COLUMNS[type].worker,
        worker.column,
        `${type}, workers: ${worker.note}`,
      );
      assert.equal(
        AUDIENCE_COLUMNS[type].supplier,
        supplier.column,
        `${type}, billing entities: ${supplier.note}`,
      );
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`audiences read what the lists show, record by record (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('gives each worker and each billing entity of the workspace exactly the records its lists show it', async () => {
      const feed = feedLists();
      // audiences.ts reads through a write session's `all` only.
      const session = {
        all: (sql: string, params?: readonly unknown[]) => db.store.all(sql, params),
      };
      const read = session as unknown as WriteSession;
      const workers = (
        await db.all<{ id: string }>('SELECT id FROM workers WHERE workspace_id = ?', WS)
      ).map((r) => r.id);
      const codes = (
        await db.all<{ code: string }>('SELECT code FROM suppliers WHERE workspace_id = ?', WS)
      ).map((r) => r.code);
      const viewers: { audience: string; viewer: Viewer }[] = [
        ...workers.map((id) => ({
          audience: workerAudience(id),
          viewer: { role: 'worker' as const, workerId: id, supplierCode: null },
        })),
        ...codes.map((code) => ({
          audience: supplierAudience(code),
          viewer: { role: 'billing_entity' as const, workerId: null, supplierCode: code },
        })),
      ];
      const links = new SupplierLinks(read);
      await links.touch(await db.all<Row>('SELECT * FROM assignments WHERE workspace_id = ?', WS));
      let throughLines = 0;
      let throughLinks = 0;
      for (const type of FEED_TYPE_NAMES) {
        const { source } = feed[type];
        const rows = await db.all<Row>(`SELECT * FROM ${source.table} WHERE workspace_id = ?`, WS);
        const consolidated =
          type === 'invoice'
            ? await lineSuppliers(
                read,
                rows.filter((r) => r.supplier_ref === null).map((r) => String(r.id)),
              )
            : new Map<string, string[]>();
        // Who reads each record, by audiences.ts.
        const byAudience = new Map<string, Set<string>>();
        for (const row of rows) {
          const own =
            type === 'invoice' ? invoiceReaders(row, consolidated) : ownAudiences(type, row);
          const linked =
            type === 'supplier'
              ? links.workersBefore(WS, String(row.code)).map(workerAudience)
              : [];
          throughLines += consolidated.get(String(row.id))?.length ?? 0;
          throughLinks += linked.length;
          for (const audience of [...own, ...linked]) {
            if (!byAudience.has(audience)) byAudience.set(audience, new Set());
            byAudience.get(audience)?.add(String(row.id));
          }
        }
        // Who reads each record, by the list's visibility.
        for (const { audience, viewer } of viewers) {
          const visible = visibilityPredicate(ruleFor({ ...source, columns: [] }, viewer));
          const shown = await db.all<{ id: string }>(
            `SELECT t.id AS id FROM ${source.table} t WHERE t.workspace_id = ?${visible.sql}`,
            WS,
            ...visible.params.map((p) => p(viewer)),
          );
          assert.deepEqual(
            [...(byAudience.get(audience) ?? [])].sort(),
            shown.map((r) => String(r.id)).sort(),
            `${type} for ${audience}`,
          );
          if (type !== 'invoice' || viewer.role !== 'billing_entity') continue;
          // The seed gave each billing entity a read row of each invoice it reads (DESIGN §4.16).
          const reads = await db.all<{ id: string }>(
            `SELECT id FROM audience_changes WHERE workspace_id = ? AND audience = ? AND type = 'invoice' AND reason IS NULL`,
            WS,
            audience,
          );
          assert.deepEqual(
            reads.map((r) => String(r.id)).sort(),
            shown.map((r) => String(r.id)).sort(),
            `the seed's reads of invoices for ${audience}`,
          );
        }
      }
      assert.ok(throughLines > 0, 'some consolidated invoice reached through its lines');
      assert.ok(throughLinks > 0, 'some supplier reached through an assignment');
    });
  });
}
