import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { invoiceList } from '../../src/operations/invoices.js';
import { timesheetList } from '../../src/operations/timesheets.js';
import { listPageSql } from '../../src/store/sql/resource-sql.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Viewer } from '../../src/store/visibility.js';
import { WS } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/**
 * SQLite's planner takes an index without statistics for a selective one. On a database analyzed
 * before an upgrade added indexes (schema version 8's filter indexes), it read the unfiltered
 * timesheets page through `timesheets_period_end` and sorted every row of the workspace: 2.5 s at
 * the large scale. Opening the store refreshes what is missing or stale (`PRAGMA optimize`).
 */
const STAFF: Viewer = { role: 'staff', workerId: null, supplierCode: null };
const PAGES = [
  { spec: timesheetList, added: 'timesheets_status', page: 'timesheets_page' },
  { spec: invoiceList, added: 'invoices_status', page: 'invoices_page' },
];

describe('SQLite statistics for indexes an upgrade added (sqlite)', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase('sqlite');
  });
  after(() => database.drop());

  function plans(store: SqliteStore): string[] {
    return PAGES.map(({ spec }) => {
      const compiled = listPageSql(
        { ...spec.source, columns: spec.record.columns },
        STAFF,
        'desc',
        false,
      );
      const params = compiled.params({ workspaceId: WS, viewer: STAFF, after: null, limit: 51 });
      return (
        store.db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...params) as {
          detail: string;
        }[]
      )
        .map((r) => r.detail)
        .join(' / ');
    });
  }

  it('an unfiltered page walks its own index once the store has opened', async () => {
    const store = database.store as SqliteStore;
    // The database as one analyzed before version 8 was: statistics for every index but the new.
    store.db.exec('ANALYZE');
    for (const { added } of PAGES) {
      const columns = store.db
        .prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`)
        .pluck()
        .all(added) as string[];
      store.db.exec(
        `DROP INDEX ${added}; CREATE INDEX ${added} ON ${added.split('_')[0]} (${columns.join(', ')})`,
      );
    }
    // Without their statistics the new indexes win, and every row is sorted (the hazard).
    const before = plans(store);
    PAGES.forEach(({ added }, i) => {
      assert.match(before[i], new RegExp(`INDEX ${added}\\b`), before[i]);
      assert.match(before[i], /TEMP B-TREE/, before[i]);
    });
    await store.close();

    const reopened = new SqliteStore(database.db);
    try {
      await reopened.migrate();
      const now = plans(reopened);
      PAGES.forEach(({ page }, i) => {
        assert.match(now[i], new RegExp(`INDEX ${page}\\b`), now[i]);
        assert.doesNotMatch(now[i], /TEMP B-TREE/, now[i]);
      });
    } finally {
      await reopened.close();
    }
  });
});
