// `node bench/supplier-filter.mjs [--scale small] [--pg] [--runs 501]`: what a billing entity can
// time of a list filtered by `supplierId` (DESIGN §4.15). Its lists of assignments, expenses and
// invoices, filtered by the id of: its own supplier, another supplier of its workspace (the one
// with the most records there, and the one with the fewest), a supplier of another workspace,
// and no supplier at all. Each is read at the store (`listPage`: what the database does) and
// through the service in process (HTTP inject: what a caller on the same machine would time), in
// turns in random order, so that whatever else the machine does weighs on every case alike. Prints the p50 (p10–p90) in µs of each; writes
// bench/results/supplier-filter-<ISO date-time>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createToken } from '../dist/src/auth/tokens.js';
import { invoiceList } from '../dist/src/operations/invoices.js';
import { assignmentList, expenseList } from '../dist/src/operations/simple-lists.js';
import { createService } from '../dist/src/service.js';
import { openStore } from '../dist/src/store/open-store.js';
import { log, machine, round, seededDatabase } from './lib.mjs';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    db: { type: 'string' },
    pg: { type: 'boolean', default: false },
    runs: { type: 'string', default: '501' },
  },
});
const RUNS = Number(values.runs);
const WS = 'ws_business';
const LISTS = [assignmentList, expenseList, invoiceList];

const { db, cluster } = await seededDatabase(values, 'supplier_filter');
const store = await openStore(db);
const all = (sql, ...params) => store.all(sql, params);

// The billing entity: the supplier with the fewest assignments.
const [own] = await all(
  `SELECT s.id, s.code, (SELECT COUNT(*) FROM assignments a WHERE a.workspace_id = s.workspace_id
     AND a.supplier_ref = s.code) AS n FROM suppliers s WHERE s.workspace_id = ? ORDER BY n, s.id LIMIT 1`,
  WS,
);
const [elsewhere] = await all(
  'SELECT id FROM suppliers WHERE workspace_id <> ? ORDER BY id LIMIT 1',
  WS,
);

/**
 * The ids filtered by, for one table: the billing entity's own supplier; of the other suppliers
 * of its workspace, the one with the most records there and the one with the fewest; a supplier
 * of another workspace; no supplier.
 */
async function casesOf(table) {
  const others = await all(
    `SELECT s.id, s.code, (SELECT COUNT(*) FROM ${table} t WHERE t.workspace_id = s.workspace_id
       AND t.supplier_ref = s.code) AS n FROM suppliers s WHERE s.workspace_id = ? AND s.id <> ?
     ORDER BY n DESC, s.id`,
    WS,
    own.id,
  );
  const [most, fewest] = [others[0], others[others.length - 1]];
  const records = async (code) =>
    Number(
      (
        await all(
          `SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = ? AND supplier_ref = ?`,
          WS,
          code,
        )
      )[0].n,
    );
  return {
    ids: {
      own: own.id,
      most: most.id,
      fewest: fewest.id,
      elsewhere: elsewhere.id,
      none: 'sup_none_0000000',
    },
    records: { own: await records(own.code), most: Number(most.n), fewest: Number(fewest.n) },
  };
}

const viewer = { role: 'billing_entity', workerId: null, supplierCode: own.code };
const token = await createToken(
  store,
  {
    workspaceId: WS,
    role: 'billing_entity',
    supplierId: own.id,
    scopes: ['read:program', 'read:financial', 'read:workforce', 'read:pii'],
  },
  new Date(),
);
// The answer cache would answer every repeat: off, so each run reads the store.
const { app } = await createService({ store, quotaPerMinute: 0, logger: false, cacheReads: false });

const timed = async (work) => {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e3;
};

function atStore(spec, id) {
  const source = { ...spec.source, columns: spec.record.columns };
  const conditions = [{ is: 'supplier', column: 'supplier_ref', value: id }];
  return () =>
    store.listPage(source, {
      workspaceId: WS,
      viewer,
      after: null,
      order: 'asc',
      limit: 51,
      conditions,
    });
}

function throughService(spec, id) {
  const url = `${spec.path}?${new URLSearchParams({ supplierId: id })}`;
  return async () => {
    const answer = await app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
    });
    if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.body.slice(0, 300)}`);
  };
}

const shuffled = (xs) => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)];
const summary = (xs) => ({
  p50: round(quantile(xs, 0.5)),
  p10: round(quantile(xs, 0.1)),
  p90: round(quantile(xs, 0.9)),
});

const results = [];
for (const spec of LISTS) {
  const { ids, records } = await casesOf(spec.source.table);
  for (const [at, make] of [
    ['store', atStore],
    ['service', throughService],
  ]) {
    const names = Object.keys(ids);
    const runs = Object.fromEntries(names.map((n) => [n, make(spec, ids[n])]));
    const times = Object.fromEntries(names.map((n) => [n, []]));
    for (let i = 0; i < RUNS + 5; i++) {
      // A random order each turn: a case read right after another pays for what that one left
      // (the own supplier's page, its garbage). Five warm-ups: statements prepared, pages cached.
      for (const name of shuffled(names)) {
        const us = await timed(runs[name]);
        if (i >= 5) times[name].push(us);
      }
    }
    const row = { list: spec.name, at, ids, records };
    for (const name of names) row[name] = summary(times[name]);
    results.push(row);
    log(`${spec.name} (${at}): ${names.map((n) => `${n} ${row[n].p50} µs`).join(' · ')}`);
  }
}
await app.close();
await store.close();
cluster?.stop();

mkdirSync('bench/results', { recursive: true });
const file = `bench/results/supplier-filter-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify(
    {
      machine: machine(),
      dialect: store.dialect,
      scale: values.scale,
      runs: RUNS,
      results,
    },
    null,
    2,
  ),
);
console.log(
  "| list | at | records: own / another supplier's, most / fewest | own supplier's id | another supplier's, most records | another supplier's, fewest | another workspace's supplier | no supplier |",
);
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const cell = (s) => `${s.p50} µs (${s.p10}–${s.p90})`;
for (const r of results)
  console.log(
    `| ${r.list} | ${r.at} | ${r.records.own} / ${r.records.most} / ${r.records.fewest} | ${cell(r.own)} | ${cell(r.most)} | ${cell(r.fewest)} | ${cell(r.elsewhere)} | ${cell(r.none)} |`,
  );
log(`wrote ${file}`);
