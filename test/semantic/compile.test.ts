import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { resolveCatalog } from '../../src/semantic/catalog.js';
import { bucket, compileReport, type CompileContext } from '../../src/semantic/compile.js';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.js';
import type { Query, TimeGrain } from '../../src/semantic/query-schema.js';
import { shapeRows } from '../../src/semantic/results.js';
import { normalizeQuery, validateQuery } from '../../src/semantic/validate.js';
import { migrationSql } from '../../src/store/dialect.js';
import { MIGRATIONS } from '../../src/store/schema.js';

const WS = 'ws-1';
const OTHER_WS = 'ws-2';
const TODAY = new Date('2026-01-15T12:00:00Z');
const TS = '2026-01-01T00:00:00.000Z';
const CATALOG = resolveCatalog({
  workspaceSource: 'default',
  configVersion: 1,
  enabledMetrics: null,
  tableEntries: [],
});
const PAY_CODES = [
  { code: 'REG', band: 'regular' },
  { code: 'OT', band: 'overtime' },
  { code: 'DT', band: 'doubletime' },
];

type Row = Record<string, unknown>;

const DEFAULTS: Record<string, Row> = {
  workers: {
    workspace_id: WS,
    supplier_ref: 'S1',
    org_unit_key: 'OU1',
    type: 'requisition_based',
    display_name: 'Worker',
    work_email: null,
    classification_status: null,
    tenure_start: null,
    onboarding_state: 'active',
    status: 'active',
    created_at: TS,
    updated_at: TS,
  },
  assignments: {
    workspace_id: WS,
    worker_id: 'w1',
    supplier_ref: 'S1',
    job_code: 'J1',
    site_key: 'SITE1',
    org_unit_key: 'OU1',
    currency: 'USD',
    bill_rate_cents: 5000,
    start_date: '2025-01-01',
    end_date: null,
    status: 'active',
    created_at: TS,
    updated_at: TS,
  },
  timesheets: {
    workspace_id: WS,
    worker_id: 'w1',
    entry_mode: 'hourly',
    period_start: '2026-01-05',
    period_end: '2026-01-11',
    status: 'approved',
    config_version: 1,
    approval_instance_ref: null,
    submitted_at: null,
    decided_at: null,
    created_at: TS,
    updated_at: TS,
  },
  time_entries: {
    workspace_id: WS,
    timesheet_id: 't1',
    assignment_id: 'a1',
    worker_id: 'w1',
    supplier_ref: 'S1',
    work_date: '2026-01-05',
    pay_code: 'REG',
    quantity_minutes: 60,
    quantity_units: null,
    kind: 'original',
    corrects_entry_id: null,
    captured_on_behalf: 0,
    created_at: TS,
  },
  expenses: {
    workspace_id: WS,
    worker_id: 'w1',
    assignment_id: 'a1',
    supplier_ref: 'S1',
    category: 'travel',
    incurred_on: '2026-01-05',
    amount_cents: 1000,
    currency: 'USD',
    status: 'approved',
    created_at: TS,
    updated_at: TS,
  },
  invoices: {
    workspace_id: WS,
    supplier_ref: 'S1',
    type: 'invoice',
    number: 'INV-1',
    status: 'issued',
    grouping_rule: 'per_worker',
    group_key: 'g',
    period_start: '2026-01-01',
    period_end: '2026-01-31',
    currency: 'USD',
    total_cents: 1000,
    config_version: 1,
    corrects_invoice_ref: null,
    issued_at: '2026-02-01T00:00:00.000Z',
    created_at: TS,
    updated_at: TS,
  },
};

let sequence = 0;

function insert(db: Database.Database, table: string, row: Row = {}): string {
  const full: Row = { id: `${table}-${++sequence}`, ...DEFAULTS[table], ...row };
  const columns = Object.keys(full);
  db.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  ).run(full);
  return String(full.id);
}

/** A fresh in-memory store with the production schema and the worker/assignment expenses join on. */
function freshDb(): Database.Database {
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS) db.exec(migrationSql(sqliteDialect, migration));
  insert(db, 'workers', { id: 'w1' });
  insert(db, 'assignments', { id: 'a1' });
  insert(db, 'timesheets', { id: 't1' });
  return db;
}

interface RunOptions {
  window?: { offset: number; take: number };
  payCodes?: CompileContext['payCodes'];
}

function run(db: Database.Database, query: Query, options: RunOptions = {}) {
  const validation = validateQuery(normalizeQuery({ query }, TODAY), CATALOG);
  if (!validation.ok) assert.fail(`refused (${validation.code}): ${JSON.stringify(query)}`);
  const compiled = compileReport(
    validation.plan,
    {
      dialect: sqliteDialect,
      workspaceId: WS,
      payCodes: options.payCodes ?? PAY_CODES,
      today: TODAY.toISOString().slice(0, 10),
    },
    options.window ?? { offset: 0, take: 1000 },
  );
  // Reports read the fact views, over the rows the test inserted (schema 18).
  // As the production report worker does: integers arrive as BigInt.
  const raw = db
    .prepare(compiled.sql)
    .safeIntegers(true)
    .all(...compiled.params) as Row[];
  return shapeRows(validation.plan, raw, 'run_semantic_query').map(unwrap);
}

/** Row values with provenance envelopes replaced by their text. */
function unwrap(row: Row): Row {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      v !== null && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v,
    ]),
  );
}

/** Rows as [dimension values..., metric values...] in column order. */
const tuples = (rows: Row[]) => rows.map((r) => Object.values(r));

const BUCKET_DATES = [
  '2024-02-29',
  '2025-12-28',
  '2025-12-29',
  '2026-01-01',
  '2026-01-04',
  '2026-01-05',
  '2026-03-31',
  '2026-04-01',
];

function bucketDb() {
  const db = freshDb();
  for (const incurred_on of BUCKET_DATES) insert(db, 'expenses', { incurred_on });
  return db;
}

describe('compileReport: time buckets (ISO date of the bucket start, UTC)', () => {
  const expected: Record<TimeGrain, [string, number][]> = {
    day: BUCKET_DATES.map((d) => [d, 1]),
    week: [
      ['2024-02-26', 1],
      ['2025-12-22', 1],
      ['2025-12-29', 3],
      ['2026-01-05', 1],
      ['2026-03-30', 2],
    ],
    month: [
      ['2024-02-01', 1],
      ['2025-12-01', 2],
      ['2026-01-01', 3],
      ['2026-03-01', 1],
      ['2026-04-01', 1],
    ],
    quarter: [
      ['2024-01-01', 1],
      ['2025-10-01', 2],
      ['2026-01-01', 4],
      ['2026-04-01', 1],
    ],
    year: [
      ['2024-01-01', 1],
      ['2025-01-01', 2],
      ['2026-01-01', 5],
    ],
  };
  for (const [grain, rows] of Object.entries(expected)) {
    it(`groups by ${grain}`, () => {
      const db = bucketDb();
      const result = run(db, {
        metrics: ['expense_count'],
        dimensions: ['incurred_on'],
        timeGrain: grain as TimeGrain,
      });
      assert.deepEqual(tuples(result), rows);
    });
  }

  it('puts Sunday 2026-01-04 in the ISO week starting Monday 2025-12-29, across the year boundary', () => {
    const db = bucketDb();
    const result = run(db, {
      metrics: ['expense_count'],
      dimensions: ['incurred_on'],
      timeGrain: 'week',
      timeRange: { from: '2025-12-29', to: '2026-01-04' },
    });
    assert.deepEqual(tuples(result), [['2025-12-29', 3]]);
  });

  it('leaves the time dimension as a plain date without a grain', () => {
    const db = bucketDb();
    const result = run(db, { metrics: ['expense_count'], dimensions: ['incurred_on'] });
    assert.deepEqual(
      result.map((r) => r.incurred_on),
      BUCKET_DATES,
    );
  });

  it('ignores the grain when the time dimension is not selected', () => {
    const db = bucketDb();
    const result = run(db, {
      metrics: ['expense_count'],
      dimensions: ['currency'],
      timeGrain: 'week',
    });
    assert.deepEqual(tuples(result), [['USD', 8]]);
  });

  it('filters timeRange inclusively on both ends', () => {
    const db = bucketDb();
    const result = run(db, {
      metrics: ['expense_count'],
      dimensions: ['incurred_on'],
      timeRange: { from: '2025-12-29', to: '2026-01-04' },
    });
    assert.deepEqual(
      result.map((r) => r.incurred_on),
      ['2025-12-29', '2026-01-01', '2026-01-04'],
    );
  });
});

describe('bucket (SQLite) against a reference computation for every day of tricky ranges', () => {
  const db = new Database(':memory:');
  const days: string[] = [];
  for (const [from, count] of [
    ['2020-12-20', 20],
    ['2024-02-20', 15],
    ['2025-12-20', 20],
    ['2026-03-25', 10],
  ] as const) {
    for (let i = 0; i < count; i++)
      days.push(
        new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
      );
  }
  const reference: Record<TimeGrain, (d: Date) => string> = {
    day: (d) => d.toISOString().slice(0, 10),
    week: (d) =>
      new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10),
    month: (d) => d.toISOString().slice(0, 8) + '01',
    quarter: (d) =>
      `${d.getUTCFullYear()}-${String(Math.floor(d.getUTCMonth() / 3) * 3 + 1).padStart(2, '0')}-01`,
    year: (d) => `${d.getUTCFullYear()}-01-01`,
  };
  for (const [grain, ref] of Object.entries(reference)) {
    it(`${grain} buckets match the reference`, () => {
      const statement = db.prepare(
        `WITH t(d) AS (VALUES (?)) SELECT ${bucket('t.d', grain as TimeGrain, sqliteDialect)} AS b FROM t`,
      );
      for (const day of days) {
        const { b } = statement.get(day) as { b: string };
        assert.equal(b, ref(new Date(`${day}T00:00:00Z`)), `${grain} of ${day}`);
      }
    });
  }

  it('week buckets always start on a Monday', () => {
    const statement = db.prepare(
      `WITH t(d) AS (VALUES (?)) SELECT ${bucket('t.d', 'week', sqliteDialect)} AS b FROM t`,
    );
    for (const day of days) {
      const { b } = statement.get(day) as { b: string };
      assert.equal(new Date(`${b}T00:00:00Z`).getUTCDay(), 1, day);
    }
  });
});

describe('compileReport: row order', () => {
  // Code-point order: 'B' (U+42) < 'Z' < 'a' < 'é' (U+E9) < 'ｚ' (U+FF5A) < '😀' (U+1F600).
  // UTF-16 order would put the emoji (a surrogate pair, 0xD83D) before 'ｚ'.
  const suppliers = ['a', '😀', null, 'é', 'B', 'ｚ', 'Z'];
  const ascending = ['B', 'Z', 'a', 'é', 'ｚ', '😀', null];

  function orderDb() {
    const db = freshDb();
    for (const supplier_ref of suppliers) insert(db, 'expenses', { supplier_ref });
    return db;
  }

  it('sorts a text dimension ascending in code-point order with nulls last by default', () => {
    const result = run(orderDb(), { metrics: ['expense_count'], dimensions: ['supplier'] });
    assert.deepEqual(
      result.map((r) => r.supplier),
      ascending,
    );
  });

  it('sorts descending on request and still puts nulls last', () => {
    const result = run(orderDb(), {
      metrics: ['expense_count'],
      dimensions: ['supplier'],
      order: [{ key: 'supplier', direction: 'desc' }],
    });
    assert.deepEqual(
      result.map((r) => r.supplier),
      [...ascending.slice(0, -1).reverse(), null],
    );
  });

  function mixDb() {
    const db = freshDb();
    const groups: [string, string, number][] = [
      ['USD', 'b', 2],
      ['EUR', 'a', 2],
      ['USD', 'a', 1],
      ['EUR', 'b', 3],
      ['GBP', 'a', 2],
    ];
    for (const [currency, supplier_ref, n] of groups)
      for (let i = 0; i < n; i++) insert(db, 'expenses', { currency, supplier_ref });
    return db;
  }
  const mixQuery: Query = { metrics: ['expense_count'], dimensions: ['currency', 'supplier'] };

  const cases: { name: string; order: Query['order']; expected: [string, string, number][] }[] = [
    {
      name: 'without order: every dimension ascending, in selection order',
      order: [],
      expected: [
        ['EUR', 'a', 2],
        ['EUR', 'b', 3],
        ['GBP', 'a', 2],
        ['USD', 'a', 1],
        ['USD', 'b', 2],
      ],
    },
    {
      name: 'by a metric descending, ties broken by the dimensions ascending',
      order: [{ key: 'expense_count', direction: 'desc' }],
      expected: [
        ['EUR', 'b', 3],
        ['EUR', 'a', 2],
        ['GBP', 'a', 2],
        ['USD', 'b', 2],
        ['USD', 'a', 1],
      ],
    },
    {
      name: 'by the second dimension descending, then the first ascending',
      order: [{ key: 'supplier', direction: 'desc' }],
      expected: [
        ['EUR', 'b', 3],
        ['USD', 'b', 2],
        ['EUR', 'a', 2],
        ['GBP', 'a', 2],
        ['USD', 'a', 1],
      ],
    },
    {
      name: 'by several keys in the requested sequence',
      order: [
        { key: 'currency', direction: 'desc' },
        { key: 'supplier', direction: 'asc' },
      ],
      expected: [
        ['USD', 'a', 1],
        ['USD', 'b', 2],
        ['GBP', 'a', 2],
        ['EUR', 'a', 2],
        ['EUR', 'b', 3],
      ],
    },
    {
      name: 'by a metric ascending, ties by the dimensions ascending',
      order: [{ key: 'expense_count', direction: 'asc' }],
      expected: [
        ['USD', 'a', 1],
        ['EUR', 'a', 2],
        ['GBP', 'a', 2],
        ['USD', 'b', 2],
        ['EUR', 'b', 3],
      ],
    },
  ];
  for (const c of cases) {
    it(`orders ${c.name}`, () => {
      assert.deepEqual(tuples(run(mixDb(), { ...mixQuery, order: c.order })), c.expected);
    });
  }

  it('orders a ratio metric with nulls (zero denominator) last in both directions', () => {
    const db = freshDb();
    const sheets: [string, string][] = [
      ['X', 'rejected'],
      ['X', 'approved'],
      ['Y', 'approved'],
      ['Z', 'submitted'],
    ];
    for (const [supplier, status] of sheets) {
      const worker = insert(db, 'workers', { supplier_ref: supplier });
      insert(db, 'timesheets', { worker_id: worker, status });
    }
    const query = (direction: 'asc' | 'desc'): Query => ({
      metrics: ['timesheet_rejection_rate'],
      dimensions: ['supplier'],
      filters: [{ dimension: 'supplier', operator: 'in', values: ['X', 'Y', 'Z'] }],
      order: [{ key: 'timesheet_rejection_rate', direction }],
    });
    assert.deepEqual(tuples(run(db, query('desc'))), [
      ['X', 0.5],
      ['Y', 0],
      ['Z', null],
    ]);
    assert.deepEqual(tuples(run(db, query('asc'))), [
      ['Y', 0],
      ['X', 0.5],
      ['Z', null],
    ]);
  });
});

describe('compileReport: groups, empty results and HAVING', () => {
  it('makes a null dimension value a row of its own', () => {
    const db = freshDb();
    insert(db, 'expenses', { supplier_ref: null });
    insert(db, 'expenses', { supplier_ref: null });
    insert(db, 'expenses', { supplier_ref: 'A' });
    const result = run(db, { metrics: ['expense_count'], dimensions: ['supplier'] });
    assert.deepEqual(tuples(result), [
      ['A', 1],
      [null, 2],
    ]);
  });

  it('keeps null and non-null combinations of two dimensions apart', () => {
    const db = freshDb();
    insert(db, 'assignments', { id: 'a-null', org_unit_key: null });
    insert(db, 'expenses', { assignment_id: 'a-null', supplier_ref: null });
    insert(db, 'expenses', { assignment_id: 'a-null', supplier_ref: 'A' });
    insert(db, 'expenses', { supplier_ref: null });
    insert(db, 'expenses', { supplier_ref: 'A' });
    const result = run(db, { metrics: ['expense_count'], dimensions: ['org_unit', 'supplier'] });
    assert.deepEqual(tuples(result), [
      ['OU1', 'A', 1],
      ['OU1', null, 1],
      [null, 'A', 1],
      [null, null, 1],
    ]);
  });

  it('returns no rows when nothing matches (grouped)', () => {
    const db = bucketDb();
    const result = run(db, {
      metrics: ['expense_count', 'expense_total'],
      dimensions: ['supplier'],
      timeRange: { from: '2030-01-01', to: '2030-12-31' },
    });
    assert.deepEqual(result, []);
  });

  it('returns no rows for a dimensionless query when no fact matches', () => {
    const db = bucketDb();
    for (const metrics of [
      ['expense_count'],
      ['expense_total'],
      ['expense_count', 'expense_total'],
    ]) {
      const result = run(db, {
        metrics,
        filters: [{ dimension: 'currency', operator: 'eq', values: ['JPY'] }],
      });
      assert.deepEqual(result, [], metrics.join());
    }
  });

  it('returns exactly one row for a dimensionless query when facts match', () => {
    const db = bucketDb();
    assert.deepEqual(run(db, { metrics: ['expense_count', 'expense_total'] }), [
      { expense_count: 8, expense_total: 8000 },
    ]);
  });

  it('returns one row with zero when facts match but the metric condition excludes them all', () => {
    const db = freshDb();
    insert(db, 'expenses', { status: 'draft' });
    assert.deepEqual(run(db, { metrics: ['expense_total'] }), [{ expense_total: 0 }]);
  });

  it('returns no rows on an empty store', () => {
    const db = freshDb();
    assert.deepEqual(run(db, { metrics: ['expense_count'] }), []);
    assert.equal(run(db, { metrics: ['worker_count'] }).length, 1); // the base worker exists
  });

  it('reads only the workspace it compiled for', () => {
    const db = freshDb();
    insert(db, 'assignments', { id: 'a-other', workspace_id: OTHER_WS });
    insert(db, 'expenses', { workspace_id: OTHER_WS, assignment_id: 'a-other' });
    assert.deepEqual(run(db, { metrics: ['expense_count'] }), []);
    insert(db, 'expenses', {});
    assert.deepEqual(run(db, { metrics: ['expense_count'] }), [{ expense_count: 1 }]);
  });
});

describe('compileReport: LIMIT/OFFSET window', () => {
  const query: Query = { metrics: ['expense_count'], dimensions: ['incurred_on'] };

  it('returns take rows starting at offset, in the deterministic order', () => {
    const db = bucketDb();
    const page = (offset: number, take: number) =>
      run(db, query, { window: { offset, take } }).map((r) => r.incurred_on);
    assert.deepEqual(page(0, 3), BUCKET_DATES.slice(0, 3));
    assert.deepEqual(page(3, 3), BUCKET_DATES.slice(3, 6));
    assert.deepEqual(page(6, 3), BUCKET_DATES.slice(6));
    assert.deepEqual(page(8, 3), []);
    assert.deepEqual(page(2, 1), [BUCKET_DATES[2]]);
  });

  it('pages concatenate to the full result without repeats or gaps', () => {
    const db = bucketDb();
    const full = run(db, query);
    const pages = [0, 2, 4, 6].flatMap((offset) => run(db, query, { window: { offset, take: 2 } }));
    assert.deepEqual(pages, full);
  });
});

describe('compileReport: view-specific columns', () => {
  function entriesDb() {
    const db = freshDb();
    for (const [pay_code, quantity_minutes] of [
      ['REG', 480],
      ['OT', 120],
      ['DT', 60],
      ['XYZ', 30],
    ] as const)
      insert(db, 'time_entries', { pay_code, quantity_minutes });
    return db;
  }

  it('derives a pay band from the configured pay codes (unknown code: null band)', () => {
    const result = run(entriesDb(), { metrics: ['hours_worked'], dimensions: ['band'] });
    assert.deepEqual(tuples(result), [
      ['doubletime', 1],
      ['overtime', 2],
      ['regular', 8],
      [null, 0.5],
    ]);
  });

  it('has no band at all without configured pay codes', () => {
    const result = run(
      entriesDb(),
      { metrics: ['hours_worked'], dimensions: ['band'] },
      { payCodes: [] },
    );
    assert.deepEqual(tuples(result), [[null, 11.5]]);
  });

  it('filters on the band: neq keeps null bands, in matches exactly', () => {
    const db = entriesDb();
    assert.deepEqual(
      run(db, {
        metrics: ['hours_worked'],
        filters: [{ dimension: 'band', operator: 'neq', values: ['overtime'] }],
      }),
      [{ hours_worked: 9.5 }],
    );
    assert.deepEqual(
      run(db, {
        metrics: ['hours_worked'],
        filters: [{ dimension: 'band', operator: 'in', values: ['regular'] }],
      }),
      [{ hours_worked: 8 }],
    );
  });

  it('computes an overtime share ratio from conditional sums', () => {
    const [row] = run(entriesDb(), { metrics: ['overtime_hours_share', 'overtime_hours'] });
    assert.equal(row.overtime_hours, 3);
    assert.equal(row.overtime_hours_share, 180 / 690);
  });

  it('nets reversals and restatements in hours', () => {
    const db = freshDb();
    insert(db, 'time_entries', { id: 'orig', quantity_minutes: 480 });
    insert(db, 'time_entries', {
      kind: 'reversal',
      quantity_minutes: -480,
      corrects_entry_id: 'orig',
    });
    insert(db, 'time_entries', {
      kind: 'restatement',
      quantity_minutes: 450,
      corrects_entry_id: 'orig',
    });
    assert.deepEqual(run(db, { metrics: ['hours_worked', 'time_entry_count'] }), [
      { hours_worked: 7.5, time_entry_count: 3 },
    ]);
  });

  it('measures tenure against the compile date (a bound parameter)', () => {
    const db = new Database(':memory:');
    for (const migration of MIGRATIONS) db.exec(migrationSql(sqliteDialect, migration));
    insert(db, 'workers', { tenure_start: '2026-01-05' });
    insert(db, 'workers', { tenure_start: '2026-01-10', status: 'inactive' });
    insert(db, 'workers', { tenure_start: null });
    assert.deepEqual(
      run(db, { metrics: ['avg_tenure_days', 'worker_count', 'active_worker_count'] }),
      [{ avg_tenure_days: 7.5, worker_count: 3, active_worker_count: 2 }],
    );
  });

  it('buckets issue dates of invoices, with drafts (no issue date) as a null row', () => {
    const db = freshDb();
    insert(db, 'invoices', { issued_at: '2026-01-20T10:00:00.000Z' });
    insert(db, 'invoices', { issued_at: '2026-01-05T23:59:59.999Z' });
    insert(db, 'invoices', { issued_at: null, status: 'draft', number: null });
    const result = run(db, {
      metrics: ['invoice_count'],
      dimensions: ['issued_date'],
      timeGrain: 'month',
    });
    assert.deepEqual(tuples(result), [
      ['2026-01-01', 2],
      [null, 1],
    ]);
  });
});
