import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import {
  checkDefinition,
  resolveCatalog,
  type Catalog,
  type CatalogTableEntry,
} from '../../src/semantic/catalog.js';
import { compileReport, type CompiledReport } from '../../src/semantic/compile.js';
import type { SqlDialect } from '../../src/semantic/dialect.js';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.js';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.js';
import type { Query } from '../../src/semantic/query-schema.js';
import { shapeRows } from '../../src/semantic/results.js';
import { normalizeQuery, validateQuery, type QueryPlan } from '../../src/semantic/validate.js';
import { migrationSql } from '../../src/store/dialect.js';
import { MIGRATIONS } from '../../src/store/schema.js';

const WS = 'ws-1';
const TODAY = new Date('2026-01-15T12:00:00Z');
const TS = '2026-01-01T00:00:00.000Z';

const EVIL = [
  "x' OR '1'='1",
  "'); DROP TABLE workers;--",
  '1; SELECT * FROM tokens',
  '" OR ""="',
  "\\'; DELETE FROM expenses; --",
  '*/ UNION SELECT token_hash, 1 FROM tokens /*',
  "2026-01-01' OR 1=1 --",
];

const DEFAULT_CATALOG = resolveCatalog({
  workspaceSource: 'default',
  configVersion: 1,
  enabledMetrics: null,
  tableEntries: [],
});

function freshDb(): Database.Database {
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS) db.exec(migrationSql(sqliteDialect, migration));
  db.prepare(
    `INSERT INTO workers (id, workspace_id, supplier_ref, org_unit_key, type, display_name,
       onboarding_state, status, created_at, updated_at)
     VALUES ('w1', ?, 'S1', 'OU1', 'requisition_based', 'W', 'active', 'active', ?, ?)`,
  ).run(WS, TS, TS);
  db.prepare(
    `INSERT INTO assignments (id, workspace_id, worker_id, supplier_ref, org_unit_key, currency,
       bill_rate_cents, start_date, status, created_at, updated_at)
     VALUES ('a1', ?, 'w1', 'S1', 'OU1', 'USD', 5000, '2025-01-01', 'active', ?, ?)`,
  ).run(WS, TS, TS);
  db.prepare(
    `INSERT INTO tokens (id, workspace_id, token_hash, role, scopes, created_at, in_url)
     VALUES ('tok1', ?, 'hash-secret', 'staff', 'read:financial', ?, 0)`,
  ).run(WS, TS);
  return db;
}

let sequence = 0;
function addExpense(db: Database.Database, supplier: string | null, category = 'travel') {
  db.prepare(
    `INSERT INTO expenses (id, workspace_id, worker_id, assignment_id, supplier_ref, category,
       incurred_on, amount_cents, currency, status, created_at, updated_at)
     VALUES (?, ?, 'w1', 'a1', ?, ?, '2026-01-05', 100, 'USD', 'approved', ?, ?)`,
  ).run(`x${++sequence}`, WS, supplier, category, TS, TS);
}

/** Every table's row count and the schema text: must be unchanged by any report. */
function snapshot(db: Database.Database) {
  const tables = db.prepare(`SELECT name, sql FROM sqlite_master ORDER BY type, name`).all() as {
    name: string;
    sql: string | null;
  }[];
  const counts = Object.fromEntries(
    tables
      .filter((t) => t.sql?.startsWith('CREATE TABLE'))
      .map((t) => [
        t.name,
        (db.prepare(`SELECT COUNT(*) AS n FROM ${t.name}`).get() as { n: number }).n,
      ]),
  );
  return { tables, counts };
}

function planOf(query: Query, catalog: Catalog = DEFAULT_CATALOG): QueryPlan {
  const v = validateQuery(normalizeQuery({ query }, TODAY), catalog);
  if (!v.ok) assert.fail(`refused (${v.code}): ${JSON.stringify(query)}`);
  return v.plan;
}

function compile(plan: QueryPlan, dialect: SqlDialect = sqliteDialect): CompiledReport {
  return compileReport(
    plan,
    {
      dialect,
      workspaceId: WS,
      payCodes: [{ code: "REG'--", band: "regular'); DROP TABLE tokens;--" }],
      today: '2026-01-15',
    },
    { offset: 0, take: 100 },
  );
}

function execute(db: Database.Database, plan: QueryPlan, compiled: CompiledReport) {
  const raw = db
    .prepare(compiled.sql)
    .safeIntegers(true)
    .all(...compiled.params) as Record<string, unknown>[];
  return shapeRows(plan, raw, 'run_semantic_query');
}

/** The SQL text carries none of the value, and no fragment of it that could be SQL. */
function assertNotInSql(sql: string, value: string) {
  assert.ok(!sql.includes(value), `SQL contains ${value}`);
  for (const fragment of ['DROP', 'DELETE', 'tokens', 'UNION', '--', "'1'='1", 'token_hash'])
    if (value.includes(fragment)) assert.ok(!sql.includes(fragment), `SQL contains ${fragment}`);
}

describe('filter values are bound parameters, never SQL text', () => {
  const filterCases = (value: string): { name: string; query: Query; rows: number }[] => [
    {
      name: 'eq',
      query: {
        metrics: ['expense_count'],
        filters: [{ dimension: 'supplier', operator: 'eq', values: [value] }],
      },
      rows: 0,
    },
    {
      name: 'in',
      query: {
        metrics: ['expense_count'],
        dimensions: ['supplier'],
        filters: [{ dimension: 'expense_category', operator: 'in', values: [value, `${value}2`] }],
      },
      rows: 0,
    },
    {
      name: 'between',
      query: {
        metrics: ['expense_count'],
        filters: [{ dimension: 'supplier', operator: 'between', values: [value, value] }],
      },
      rows: 0,
    },
    {
      name: 'neq (matches the stored rows, as data)',
      query: {
        metrics: ['expense_count'],
        dimensions: ['supplier'],
        filters: [{ dimension: 'supplier', operator: 'neq', values: [value] }],
      },
      rows: 1,
    },
  ];

  for (const value of EVIL) {
    for (const c of filterCases(value)) {
      it(`${c.name} with ${JSON.stringify(value)}: bound, correct rows, tables intact`, () => {
        const db = freshDb();
        addExpense(db, 'S1');
        const before = snapshot(db);
        const plan = planOf(c.query);
        const compiled = compile(plan);
        assertNotInSql(compiled.sql, value);
        assert.ok(!compiled.sql.includes("'"), 'no quoted literal in SQL without a time grain');
        assert.ok(compiled.params.includes(value));
        assert.equal(execute(db, plan, compiled).length, c.rows);
        assert.deepEqual(snapshot(db), before);
      });
    }
  }

  it('matches a stored value containing SQL exactly, and returns it unchanged as data', () => {
    const db = freshDb();
    for (const value of EVIL) addExpense(db, value);
    addExpense(db, 'S1');
    const before = snapshot(db);
    for (const value of EVIL) {
      const plan = planOf({
        metrics: ['expense_count'],
        dimensions: ['supplier'],
        filters: [{ dimension: 'supplier', operator: 'eq', values: [value] }],
      });
      const rows = execute(db, plan, compile(plan));
      assert.equal(rows.length, 1, value);
      assert.equal((rows[0].supplier as { value: string }).value, value);
      assert.equal(rows[0].expense_count, 1);
    }
    assert.deepEqual(snapshot(db), before);
  });

  it('groups stored SQL-looking values as ordinary rows', () => {
    const db = freshDb();
    for (const value of EVIL) addExpense(db, value);
    const before = snapshot(db);
    const plan = planOf({ metrics: ['expense_count'], dimensions: ['supplier'] });
    const rows = execute(db, plan, compile(plan));
    assert.deepEqual(
      rows.map((r) => (r.supplier as { value: string }).value),
      [...EVIL].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
    assert.deepEqual(snapshot(db), before);
  });

  it('keeps a time-dimension filter injection out of SQL: refused before compiling', () => {
    const v = validateQuery(
      normalizeQuery(
        {
          query: {
            metrics: ['expense_count'],
            filters: [
              { dimension: 'incurred_on', operator: 'gte', values: ["2026-01-01' OR 1=1 --"] },
            ],
          },
        },
        TODAY,
      ),
      DEFAULT_CATALOG,
    );
    assert.equal(!v.ok && v.code, 'bad_filter');
  });

  it('binds the workspace id, timeRange dates, pay codes and today as parameters', () => {
    const plan = planOf({
      metrics: ['hours_worked', 'time_entry_count'],
      dimensions: ['band'],
      timeRange: { from: '2026-01-01', to: '2026-01-31' },
    });
    for (const dialect of [sqliteDialect, postgresDialect]) {
      const { sql, params } = compile(plan, dialect);
      for (const value of [
        WS,
        '2026-01-01',
        '2026-01-31',
        "REG'--",
        "regular'); DROP TABLE tokens;--",
      ]) {
        assert.ok(!sql.includes(value), `${dialect.name}: ${value} in SQL`);
        assert.ok(params.includes(value), `${dialect.name}: ${value} not bound`);
      }
      assert.equal((sql.match(/\?/g) ?? []).length, params.length, dialect.name);
    }
    const tenure = planOf({ metrics: ['avg_tenure_days'] });
    const { sql, params } = compile(tenure);
    assert.ok(!sql.includes('2026-01-15') && params.includes('2026-01-15'));
  });

  it('keeps values out of the PostgreSQL SQL text too, with one placeholder per parameter', () => {
    for (const value of EVIL) {
      const plan = planOf({
        metrics: ['spend', 'avg_regular_rate'],
        dimensions: ['supplier', 'invoice_period'],
        timeGrain: 'month',
        filters: [
          { dimension: 'supplier', operator: 'neq', values: [value] },
          { dimension: 'org_unit', operator: 'in', values: [value, 'x'] },
        ],
      });
      const { sql, params } = compile(plan, postgresDialect);
      assertNotInSql(sql, value);
      assert.equal((sql.match(/\?/g) ?? []).length, params.length);
      assert.equal(params.filter((p) => p === value).length, 2);
    }
  });
});

describe('dimension-like and key-like strings with SQL are refused before compiling', () => {
  for (const value of EVIL) {
    const cases: { name: string; query: Query; code: string }[] = [
      { name: 'metric key', query: { metrics: [value] }, code: 'unknown_metric' },
      {
        name: 'dimension key',
        query: { metrics: ['expense_count'], dimensions: [value] },
        code: 'unknown_dimension',
      },
      {
        name: 'filter dimension',
        query: {
          metrics: ['expense_count'],
          filters: [{ dimension: value, operator: 'eq', values: ['x'] }],
        },
        code: 'unknown_dimension',
      },
      {
        name: 'order key',
        query: { metrics: ['expense_count'], order: [{ key: value, direction: 'asc' }] },
        code: 'bad_order',
      },
    ];
    for (const c of cases) {
      it(`${c.name} ${JSON.stringify(value)} is ${c.code}`, () => {
        const v = validateQuery(normalizeQuery({ query: c.query }, TODAY), DEFAULT_CATALOG);
        assert.equal(!v.ok && v.code, c.code);
        if (!v.ok)
          for (const key of v.closestMetrics) assert.ok(DEFAULT_CATALOG.metrics.has(key), key);
      });
    }
  }
});

const base = {
  label: 'Custom',
  view: 'expenses',
  unit: 'count',
  measure: { agg: 'count' },
};

describe('catalog-table definitions containing SQL are rejected', () => {
  const cases: { name: string; definition: unknown }[] = [
    {
      name: 'a column with SQL',
      definition: {
        ...base,
        unit: 'cents',
        measure: { agg: 'sum', column: 'amount) FROM tokens --' },
      },
    },
    {
      name: 'a column naming another table column',
      definition: { ...base, measure: { agg: 'count_distinct', column: 'token_hash' } },
    },
    {
      name: 'a raw SQL expression as column',
      definition: { ...base, measure: { agg: 'max', column: '(SELECT token_hash FROM tokens)' } },
    },
    { name: 'a view with SQL', definition: { ...base, view: 'expenses; DROP TABLE workers' } },
    { name: 'a view that is a table name', definition: { ...base, view: 'tokens' } },
    {
      name: 'a view that is a FROM clause',
      definition: { ...base, view: 'expenses x JOIN tokens t ON 1=1' },
    },
    {
      name: 'a condition column with SQL',
      definition: {
        ...base,
        measure: { agg: 'count', where: [{ column: "x' OR '1'='1", op: 'eq', values: ['a'] }] },
      },
    },
    {
      name: 'a condition operator with SQL',
      definition: {
        ...base,
        measure: {
          agg: 'count',
          where: [{ column: 'expense_status', op: '= 1 OR 1 =', values: ['a'] }],
        },
      },
    },
    {
      name: 'an aggregation with SQL',
      definition: {
        ...base,
        measure: { agg: 'sum(amount)); DROP TABLE workers; --', column: 'amount' },
      },
    },
    {
      name: 'a column named after an Object.prototype member',
      definition: { ...base, measure: { agg: 'sum', column: 'constructor' } },
    },
    { name: 'an extra sql member', definition: { ...base, sql: 'SELECT token_hash FROM tokens' } },
  ];
  for (const c of cases) {
    it(`rejects ${c.name}`, () => {
      assert.equal(checkDefinition(c.definition), false);
      const catalog = resolveCatalog({
        workspaceSource: 'semantic_catalog_table',
        configVersion: 1,
        enabledMetrics: null,
        tableEntries: [{ key: 'custom', definition: c.definition, enabled: true }],
      });
      assert.deepEqual(catalog.rejected, ['custom']);
      assert.equal(catalog.metrics.size, 0);
    });
  }

  it('skips an entry whose key carries SQL', () => {
    const catalog = resolveCatalog({
      workspaceSource: 'semantic_catalog_table',
      configVersion: 1,
      enabledMetrics: null,
      tableEntries: [{ key: "custom'; DROP TABLE tokens; --", definition: base, enabled: true }],
    });
    assert.equal(catalog.metrics.size, 0);
  });
});

describe('catalog-table condition values and labels with SQL are bound as data', () => {
  function tableCatalog(values: string[]): Catalog {
    const entries: CatalogTableEntry[] = [
      {
        key: 'odd_category_count',
        enabled: true,
        definition: {
          label: "Odd'); DROP TABLE workers;--",
          view: 'expenses',
          unit: 'count',
          measure: {
            agg: 'count',
            where: [{ column: 'expense_category', op: 'in', values }],
          },
        },
      },
      {
        key: 'not_odd_total',
        enabled: true,
        definition: {
          label: 'Total elsewhere',
          view: 'expenses',
          unit: 'cents',
          measure: {
            agg: 'sum',
            column: 'amount',
            where: [{ column: 'expense_category', op: 'neq', values: [values[0]] }],
          },
        },
      },
    ];
    const catalog = resolveCatalog({
      workspaceSource: 'semantic_catalog_table',
      configVersion: 1,
      enabledMetrics: null,
      tableEntries: entries,
    });
    assert.deepEqual(catalog.rejected, []);
    return catalog;
  }

  for (const value of EVIL) {
    it(`condition value ${JSON.stringify(value)} matches only that exact stored text`, () => {
      const db = freshDb();
      addExpense(db, 'S1', value);
      addExpense(db, 'S1', value);
      addExpense(db, 'S1', 'travel');
      addExpense(db, 'S2', `${value} `);
      const before = snapshot(db);
      const catalog = tableCatalog([value]);
      const plan = planOf(
        { metrics: ['odd_category_count', 'not_odd_total'], dimensions: ['supplier'] },
        catalog,
      );
      for (const dialect of [sqliteDialect, postgresDialect]) {
        const { sql } = compile(plan, dialect);
        assertNotInSql(sql, value);
        assert.ok(!sql.includes('Odd'), 'labels never reach SQL');
      }
      const compiled = compile(plan);
      assert.ok(compiled.params.includes(value));
      const rows = execute(db, plan, compiled).map((r) => [
        (r.supplier as { value: string }).value,
        r.odd_category_count,
        r.not_odd_total,
      ]);
      assert.deepEqual(rows, [
        ['S1', 2, 100],
        ['S2', 0, 100],
      ]);
      assert.deepEqual(snapshot(db), before);
    });
  }
});
