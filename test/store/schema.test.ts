/**
 * The schema is data (src/store/schema.ts) and each dialect renders it: after a migration, every
 * table of the data exists with exactly its columns, in order, with their types and NOT NULL, and
 * every declared index exists; PostgreSQL text columns compare in the "C" collation. Migrations
 * of data (3, 9, 10) fill what a seed fills.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TABLES } from '../../src/store/schema.js';
import { FEED_TYPES } from '../../src/store/sql/change-log.js';
import { createTableSql } from '../../src/store/dialect.js';
import { entryFactsSelect, lineFactsSelect } from '../../src/store/sql/report-facts.js';
import { baseType, isNotNull } from '../../src/store/table.js';
import {
  DIALECTS,
  factTablesAgain,
  openTestDatabase,
  type TestDatabase,
} from '../support/test-databases.js';

interface ActualColumn {
  name: string;
  type: string;
  notNull: boolean;
  collation: string | null;
}

async function actualColumns(db: TestDatabase, table: string): Promise<ActualColumn[]> {
  if (db.dialect === 'sqlite') {
    const rows = await db.all<{ name: string; type: string; notnull: number; pk: number }>(
      `SELECT name, type, "notnull", pk FROM pragma_table_info('${table}') ORDER BY cid`,
    );
    return rows.map((r) => ({
      name: r.name,
      type: r.type,
      notNull: r.notnull === 1,
      collation: null,
    }));
  }
  const rows = await db.all<{
    name: string;
    type: string;
    nullable: string;
    collation: string | null;
  }>(
    `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, collation_name AS collation
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
      ORDER BY ordinal_position`,
    table,
  );
  return rows.map((r) => ({
    name: r.name,
    type: r.type,
    notNull: r.nullable === 'NO',
    collation: r.collation,
  }));
}

async function indexNames(db: TestDatabase, table: string): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ name: string }>(`SELECT name FROM pragma_index_list('${table}')`)
      : await db.all<{ name: string }>(
          'SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?',
          table,
        );
  return rows.map((r) => r.name);
}

const SQL_TYPES = {
  sqlite: { text: 'TEXT', integer: 'INTEGER', bigint: 'BIGINT' },
  postgres: { text: 'text', integer: 'integer', bigint: 'bigint' },
} as const;

for (const dialect of DIALECTS)
  describe(`the schema each dialect renders from the tables' data (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect, false);
    });
    after(() => db.drop());

    for (const table of TABLES.values())
      it(`creates ${table.name} as declared`, async () => {
        const expected = Object.entries(table.columns).map(([name, type]) => ({
          name,
          type: SQL_TYPES[dialect][baseType(type)],
          // A primary key column is NOT NULL in PostgreSQL; SQLite keeps the declaration.
          notNull: isNotNull(type) || (dialect === 'postgres' && table.primaryKey.includes(name)),
          collation: dialect === 'postgres' && baseType(type) === 'text' ? 'C' : null,
        }));
        assert.deepEqual(await actualColumns(db, table.name), expected);
        const indexes = await indexNames(db, table.name);
        for (const name of Object.keys(table.indexes ?? {}))
          assert.ok(indexes.includes(name), name);
      });
  });

for (const dialect of DIALECTS)
  describe(`migration 3: data versions for a database from before them (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('records every record at version 1, starts an epoch, drops the old stamp, rebuilds the entries index', async () => {
      const { store } = db;
      // The database as schema version 2 left it.
      for (const sql of [
        ...factTablesAgain(db.store.dialect),
        'DROP TABLE record_changes',
        'DROP TABLE fact_changes',
        // and without what later migrations add
        'DROP TABLE oauth_records',
        'DROP TABLE record_deletions',
        'DROP TABLE audience_changes',
        'DROP TABLE fact_deletions',
        'DROP TABLE webhook_subscriptions',
        'DROP TABLE webhook_progress',
        'DROP TABLE webhook_attempts',
        'DROP TABLE period_zones',
        "DELETE FROM meta WHERE key IN ('data_version', 'facts_epoch')",
        "INSERT INTO meta (key, value) VALUES ('data_stamp', 'mwu4sf9j-ca397581d2')",
        'DROP INDEX time_entries_timesheet',
        'CREATE INDEX time_entries_timesheet ON time_entries (timesheet_id, created_at, id)',
        // the access trail (schema version 12, PostgreSQL's)
        'DROP TABLE IF EXISTS audit_reveals',
        'DROP TABLE IF EXISTS audit_minutes',
        'DROP TABLE IF EXISTS audit_sets',
        'DROP TABLE IF EXISTS audit_set_workers',
        'DROP TABLE IF EXISTS audit_events',
        'DROP TABLE IF EXISTS audit_chains',
        dialect === 'sqlite'
          ? 'PRAGMA user_version = 2'
          : 'DELETE FROM schema_version WHERE version >= 3',
      ])
        await store.run(sql);
      await store.migrate();
      let records = 0;
      for (const [type, table] of Object.entries(FEED_TYPES)) {
        const [{ n }] = await db.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`);
        const [held] = await db.all<{ n: number; low: number; high: number }>(
          'SELECT COUNT(*) AS n, MIN(version) AS low, MAX(version) AS high FROM record_changes WHERE type = ?',
          type,
        );
        assert.deepEqual(
          [Number(held.n), Number(held.low), Number(held.high)],
          [Number(n), 1, 1],
          type,
        );
        records += Number(n);
      }
      assert.ok(records > 0);
      const version = await store.dataVersion();
      assert.equal(version.version, 1);
      assert.match(version.epoch, /^[0-9a-f]{12}$/);
      assert.deepEqual(await db.all("SELECT value FROM meta WHERE key = 'data_stamp'"), []);
      const columns =
        dialect === 'sqlite'
          ? (
              await db.all<{ name: string }>(
                "SELECT name FROM pragma_index_info('time_entries_timesheet')",
              )
            ).map((r) => r.name)
          : (
              await db.all<{ def: string }>(
                "SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'time_entries_timesheet'",
              )
            )[0].def
              .replace(/^.*\((.*)\)$/, '$1')
              .split(', ');
      assert.deepEqual(columns, ['timesheet_id', 'created_at', 'id', 'work_date']);
    });
  });

for (const dialect of DIALECTS)
  describe(`migration 9: period zones for a database of version 8 (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('fills the zones from the records and drops the period indexes', async () => {
      const { store } = db;
      const periodIndexes = ['timesheets', 'invoices'].flatMap((table) => [
        `${table}_period_start`,
        `${table}_period_end`,
      ]);
      // The database as schema version 8 left it.
      for (const sql of [
        ...factTablesAgain(db.store.dialect),
        ...['timesheets', 'invoices'].flatMap((table) => [
          `CREATE INDEX ${table}_period_start ON ${table} (workspace_id, period_start, period_end)`,
          `CREATE INDEX ${table}_period_end ON ${table} (workspace_id, period_end, period_start)`,
        ]),
        'DROP TABLE period_zones',
        // the access trail (schema version 12, PostgreSQL's)
        'DROP TABLE IF EXISTS audit_reveals',
        'DROP TABLE IF EXISTS audit_minutes',
        'DROP TABLE IF EXISTS audit_sets',
        'DROP TABLE IF EXISTS audit_set_workers',
        'DROP TABLE IF EXISTS audit_events',
        'DROP TABLE IF EXISTS audit_chains',
        dialect === 'sqlite'
          ? 'PRAGMA user_version = 8'
          : 'DELETE FROM schema_version WHERE version >= 9',
      ])
        await store.run(sql);
      await store.migrate();
      for (const table of ['timesheets', 'invoices']) {
        const indexes = await indexNames(db, table);
        assert.deepEqual(
          periodIndexes.filter((name) => indexes.includes(name)),
          [],
          `${table} keeps no period index`,
        );
        const [zones] = await db.all<{ n: number; days: number }>(
          `SELECT COUNT(*) AS n, (SELECT COUNT(DISTINCT workspace_id || substr(created_at, 1, 10)) FROM ${table}) AS days
           FROM period_zones WHERE table_name = ?`,
          table,
        );
        assert.ok(Number(zones.n) > 0);
        assert.equal(Number(zones.n), Number(zones.days), `${table}: a zone per workspace and day`);
        // And each zone holds its day's records' periods.
        const [outside] = await db.all<{ n: number }>(
          `SELECT COUNT(*) AS n FROM ${table} t LEFT JOIN period_zones z ON z.table_name = ?
           AND z.workspace_id = t.workspace_id AND z.created_day = substr(t.created_at, 1, 10)
           WHERE z.created_day IS NULL OR z.first_period_start > t.period_start
           OR z.last_period_end < t.period_end`,
          table,
        );
        assert.equal(Number(outside.n), 0, `${table}: every record within its zone`);
      }
    });
  });

for (const dialect of DIALECTS)
  describe(`migration 11: billing entities' reads of invoices for a database of version 10 (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('gives each billing entity a read row of each invoice it reads, at its version, as a seed does', async () => {
      const reads = `SELECT workspace_id, audience, id, version FROM audience_changes
        WHERE type = 'invoice' AND reason IS NULL ORDER BY workspace_id, audience, id`;
      const seeded = await db.all(reads);
      assert.ok(seeded.length > 0);
      // The database as schema version 10 left it: no reads of invoices.
      for (const sql of [
        ...factTablesAgain(db.store.dialect),
        "DELETE FROM audience_changes WHERE type = 'invoice' AND reason IS NULL",
        // the access trail (schema version 12, PostgreSQL's)
        'DROP TABLE IF EXISTS audit_reveals',
        'DROP TABLE IF EXISTS audit_minutes',
        'DROP TABLE IF EXISTS audit_sets',
        'DROP TABLE IF EXISTS audit_set_workers',
        'DROP TABLE IF EXISTS audit_events',
        'DROP TABLE IF EXISTS audit_chains',
        dialect === 'sqlite'
          ? 'PRAGMA user_version = 10'
          : 'DELETE FROM schema_version WHERE version >= 11',
      ])
        await db.store.run(sql);
      await db.store.migrate();
      assert.deepEqual(await db.all(reads), seeded);
    });
  });

for (const dialect of DIALECTS)
  describe(`versions 17 and 18: entries clustered by id, the report facts views over the records, for a database of version 16 (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('keeps every entry and reads the same facts from the records, and a new database never has the fact tables', async () => {
      const entries = 'SELECT * FROM time_entries ORDER BY id';
      const facts = 'SELECT * FROM report_time_entries ORDER BY workspace_id, work_date, id';
      const lines = 'SELECT * FROM report_invoice_lines ORDER BY workspace_id, invoice_period, id';
      const [heldEntries, heldFacts, heldLines] = [
        await db.all(entries),
        await db.all(facts),
        await db.all(lines),
      ];
      assert.ok(heldFacts.length > 0 && heldLines.length > 0);
      assert.deepEqual(await relationKinds(db), {
        report_invoice_lines: 'view',
        report_time_entries: 'view',
      });
      // The database as schema version 16 left it: fact tables filled from the records, and (on
      // SQLite) the entries a rowid table.
      const dialectOf = db.store.dialect;
      const v16 = [
        ...factTablesAgain(db.store.dialect),
        // the trail as schema 16 left it (PostgreSQL's: 19 makes these)
        'DROP TABLE IF EXISTS audit_minutes',
        'DROP TABLE IF EXISTS audit_sets',
        `INSERT INTO report_time_entries ${entryFactsSelect()}`,
        `INSERT INTO report_invoice_lines ${lineFactsSelect()}`,
        ...(dialect === 'sqlite'
          ? [
              'CREATE TABLE entries_16 AS SELECT * FROM time_entries',
              'DROP TABLE time_entries',
              createTableSql(dialectOf, { ...TABLES.get('time_entries')!, clustered: false }),
              'INSERT INTO time_entries SELECT * FROM entries_16',
              'DROP TABLE entries_16',
              'PRAGMA user_version = 16',
            ]
          : ['DELETE FROM schema_version WHERE version >= 17']),
      ];
      for (const sql of v16) await db.store.run(sql);
      assert.deepEqual(await relationKinds(db), {
        report_invoice_lines: 'table',
        report_time_entries: 'table',
      });
      await db.store.migrate();
      assert.deepEqual(await relationKinds(db), {
        report_invoice_lines: 'view',
        report_time_entries: 'view',
      });
      assert.deepEqual(await db.all(entries), heldEntries);
      assert.deepEqual(await db.all(facts), heldFacts);
      assert.deepEqual(await db.all(lines), heldLines);
      if (dialect === 'sqlite') {
        const [{ sql }] = await db.all<{ sql: string }>(
          "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'time_entries'",
        );
        assert.match(sql, /WITHOUT ROWID$/);
        assert.ok((await indexNames(db, 'time_entries')).includes('time_entries_timesheet'));
      }
    });
  });

/** Whether each report fact relation is a table or a view. */
async function relationKinds(db: TestDatabase): Promise<Record<string, string>> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ name: string; kind: string }>(
          "SELECT name, type AS kind FROM sqlite_master WHERE name LIKE 'report\\_%' ESCAPE '\\' ORDER BY name",
        )
      : await db.all<{ name: string; kind: string }>(
          `SELECT table_name AS name, CASE table_type WHEN 'VIEW' THEN 'view' ELSE 'table' END AS kind
             FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'report\\_%' ORDER BY table_name`,
        );
  return Object.fromEntries(rows.map((r) => [r.name, r.kind]));
}

// On SQLite the records are in the `-oauth` file, which makes its table's indexes whenever it opens.
for (const dialect of DIALECTS.filter((d) => d === 'postgres'))
  describe(`version 15: the authorization records by model and expiry (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('adds the index to a database of version 14', async () => {
      const index = 'oauth_records_model_expiry';
      assert.ok((await indexNames(db, 'oauth_records')).includes(index));
      await db.store.run(`DROP INDEX ${index}`);
      // the trail as schema 16 left it (19 makes these)
      for (const table of ['audit_minutes', 'audit_sets'])
        await db.store.run(`DROP TABLE IF EXISTS ${table}`);
      for (const sql of factTablesAgain(db.store.dialect)) await db.store.run(sql);
      await db.store.run('DELETE FROM schema_version WHERE version >= 15');
      await db.store.migrate();
      assert.ok((await indexNames(db, 'oauth_records')).includes(index));
    });
  });

for (const dialect of DIALECTS)
  describe(`version 16: access keys the OData feed takes in the URL (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect);
    });
    after(() => db.drop());

    it('makes tokens again with in_url, every key of a database of version 15 kept and not taken in the URL', async () => {
      const columns =
        'id, workspace_id, token_hash, role, worker_id, supplier_id, scopes, expires_at, revoked_at, created_at';
      // The database as schema version 15 left it: tokens without in_url, one key in it.
      for (const sql of [
        ...factTablesAgain(db.store.dialect),
        'DROP TABLE tokens',
        `CREATE TABLE tokens (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL,
           worker_id TEXT, supplier_id TEXT, scopes TEXT NOT NULL, expires_at TEXT, revoked_at TEXT, created_at TEXT NOT NULL)`,
        `INSERT INTO tokens (${columns}) VALUES ('tok_old', 'ws_business', 'hash', 'staff', NULL, NULL, 'read:workforce', NULL, NULL, '2026-01-01T00:00:00.000Z')`,
        // the trail as schema 16 left it (PostgreSQL's: 17 makes these)
        'DROP TABLE IF EXISTS audit_minutes',
        'DROP TABLE IF EXISTS audit_sets',
        dialect === 'sqlite'
          ? 'PRAGMA user_version = 15'
          : 'DELETE FROM schema_version WHERE version >= 16',
      ])
        await db.store.run(sql);
      await db.store.migrate();
      const [kept] = await db.all<{ id: string; in_url: number }>('SELECT id, in_url FROM tokens');
      assert.deepEqual({ id: kept.id, inUrl: Number(kept.in_url) }, { id: 'tok_old', inUrl: 0 });
      assert.equal((await db.store.findTokenById('tok_old'))?.inUrl, false);
    });
  });
