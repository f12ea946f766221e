// `node bench/list-filters.mjs [--scale large] [--pg] [--runs 31]`: the lists' filters (DESIGN
// §4.15) against the target "a filtered page costs at most twice an unfiltered one at the large
// scale, whatever share it keeps". Each filter's first page (asc and desc) through the service in
// process (HTTP inject, a staff token), its p50 beside the same list's unfiltered first page
// measured in the same run: the baseline does the same work (the same route, serializer and
// page size) without the filter. Shares are counted in the database. Writes
// bench/results/list-filters-<ISO date-time>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createToken } from '../dist/src/auth/tokens.js';
import { createService } from '../dist/src/service.js';
import { openStore } from '../dist/src/store/open-store.js';
import { log, machine, round, seededDatabase } from './lib.mjs';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'large' },
    db: { type: 'string' },
    pg: { type: 'boolean', default: false },
    runs: { type: 'string', default: '31' },
  },
});
const RUNS = Number(values.runs);
const WS = 'ws_business';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { db, cluster } = await seededDatabase(values, 'filters');
log(`opening ${db.replace(/:[^@/]*@/, ':***@')} (migrating adds the filters' indexes once)`);
const opened = Date.now();
const store = await openStore(db);
log(`opened in ${round((Date.now() - opened) / 1000)} s`);
const token = await createToken(
  store,
  {
    workspaceId: WS,
    role: 'staff',
    scopes: ['read:program', 'read:financial', 'read:workforce', 'read:pii'],
  },
  new Date(),
);
// The answer cache would answer every repeat: off, so each run reads the store.
const { app } = await createService({
  store,
  quotaPerMinute: 0,
  logger: false,
  cacheReads: false,
});

const one = async (sql, ...params) => (await store.all(sql, params))[0];
const count = async (table, where = '', ...params) =>
  Number(
    (await one(`SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = ?${where}`, WS, ...params))
      .n,
  );

/** A date that splits a table's periods in two halves by period start. */
async function medianStart(table, total) {
  const row = await one(
    `SELECT period_start AS d FROM ${table} WHERE workspace_id = ? ORDER BY period_start LIMIT 1 OFFSET ?`,
    WS,
    Math.floor(total / 2),
  );
  return row.d;
}

async function cases() {
  const totals = {};
  for (const t of ['invoices', 'timesheets', 'workers', 'approval_statuses'])
    totals[t] = await count(t);
  // A supplier that has invoices: the one of the invoice in the middle of the list.
  const supplier = await one(
    `SELECT s.id, s.code FROM suppliers s WHERE s.workspace_id = ? AND s.code = (SELECT i.supplier_ref FROM invoices i WHERE i.workspace_id = ? AND i.supplier_ref IS NOT NULL ORDER BY i.created_at LIMIT 1 OFFSET ?)`,
    WS,
    WS,
    Math.floor(totals.invoices / 2),
  );
  const worker = await one(
    `SELECT worker_id AS id FROM timesheets WHERE workspace_id = ? ORDER BY created_at DESC LIMIT 1`,
    WS,
  );
  const number = await one(
    `SELECT number FROM invoices WHERE workspace_id = ? AND number IS NOT NULL ORDER BY created_at LIMIT 1 OFFSET ?`,
    WS,
    Math.floor(totals.invoices / 3),
  );
  const subject = await one(
    `SELECT subject_ref AS ref FROM approval_statuses WHERE workspace_id = ? ORDER BY created_at LIMIT 1 OFFSET ?`,
    WS,
    Math.floor(totals.approval_statuses / 2),
  );
  const tsHalf = await medianStart('timesheets', totals.timesheets);
  const invHalf = await medianStart('invoices', totals.invoices);
  const list = [
    ['invoices', 'invoices', { status: 'draft' }, " AND status = 'draft'"],
    ['invoices', 'invoices', { type: 'invoice' }, " AND type = 'invoice'"],
    ['invoices', 'invoices', { supplierId: supplier.id }, ' AND supplier_ref = ?', supplier.code],
    ['invoices', 'invoices', { number: number.number }, ' AND number = ?', number.number],
    ['invoices', 'invoices', { periodFrom: invHalf }, ' AND period_end >= ?', invHalf],
    [
      'invoices',
      'invoices',
      { periodFrom: '2025-03-01', periodTo: '2025-03-31' },
      " AND period_end >= '2025-03-01' AND period_start <= '2025-03-31'",
    ],
    ['timesheets', 'timesheets', { status: 'submitted' }, " AND status = 'submitted'"],
    ['timesheets', 'timesheets', { status: 'approved' }, " AND status = 'approved'"],
    ['timesheets', 'timesheets', { workerId: worker.id }, ' AND worker_id = ?', worker.id],
    ['timesheets', 'timesheets', { periodFrom: tsHalf }, ' AND period_end >= ?', tsHalf],
    [
      'timesheets',
      'timesheets',
      { periodFrom: '2025-03-01', periodTo: '2025-03-31' },
      " AND period_end >= '2025-03-01' AND period_start <= '2025-03-31'",
    ],
    [
      'timesheets',
      'timesheets',
      { periodFrom: '2025-03-03', periodTo: '2025-03-03' },
      " AND period_end >= '2025-03-03' AND period_start <= '2025-03-03'",
    ],
    ['workers', 'workers', { status: 'active' }, " AND status = 'active'"],
    [
      'workers',
      'workers',
      { onboardingState: 'onboarding' },
      " AND onboarding_state = 'onboarding'",
    ],
    ['approval-statuses', 'approval_statuses', { state: 'pending' }, " AND state = 'pending'"],
    [
      'approval-statuses',
      'approval_statuses',
      { subjectRef: subject.ref },
      ' AND subject_ref = ?',
      subject.ref,
    ],
  ];
  const out = [];
  for (const [path, table, params, where, ...bound] of list) {
    const kept = await count(table, where, ...bound);
    out.push({ path, table, params, kept, share: kept / totals[table], total: totals[table] });
  }
  return out;
}

/** One answer's time in ms. */
async function timed(url) {
  const started = process.hrtime.bigint();
  const response = await app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.body.slice(0, 300)}`);
  return ms;
}

/**
 * The p50 of the filtered page and of the unfiltered one, measured in turns (unfiltered, then
 * filtered, RUNS times) so that whatever else the machine does weighs on both alike.
 */
async function pair(path, params, order) {
  const plain = `/api/v1/${path}?${new URLSearchParams({ order })}`;
  const filtered = `/api/v1/${path}?${new URLSearchParams({ ...params, order })}`;
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const x = await timed(plain);
    const y = await timed(filtered);
    // Two warm-ups: the statements prepared, the pages in the cache.
    if (i >= 2) {
      a.push(x);
      b.push(y);
    }
  }
  return [round(median(a), 2), round(median(b), 2)];
}

const results = [];
for (const c of await cases()) {
  for (const order of ['asc', 'desc']) {
    const [unfilteredMs, filteredMs] = await pair(c.path, c.params, order);
    const row = {
      list: c.path,
      filter: Object.keys(c.params).join('+'),
      params: c.params,
      order,
      kept: c.kept,
      total: c.total,
      sharePct: round(c.share * 100, 3),
      unfilteredMs,
      filteredMs,
      ratio: round(filteredMs / unfilteredMs, 2),
    };
    results.push(row);
    log(
      `${row.list} ${JSON.stringify(row.params)} ${order}: keeps ${row.sharePct}% · ${row.filteredMs} ms vs ${row.unfilteredMs} ms · ${row.ratio}×`,
    );
  }
}
await app.close();
await store.close();
cluster?.stop();

mkdirSync('bench/results', { recursive: true });
const file = `bench/results/list-filters-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify(
    { machine: machine(), dialect: store.dialect, scale: values.scale, runs: RUNS, results },
    null,
    2,
  ),
);
console.log(
  `| list | filter | order | kept | share | unfiltered p50 | filtered p50 | ratio (target ≤ 2) |`,
);
console.log(`| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |`);
for (const r of results)
  console.log(
    `| ${r.list} | ${r.filter} | ${r.order} | ${r.kept.toLocaleString('en')} | ${r.sharePct}% | ${r.unfilteredMs} ms | ${r.filteredMs} ms | ${r.ratio}× ${r.ratio <= 2 ? '✓' : '✗'} |`,
  );
log(`wrote ${file}`);
