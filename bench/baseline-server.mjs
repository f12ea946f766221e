// The honest ceiling the service is measured against: node:http + better-sqlite3 doing the same
// reads over the same data and sending byte for byte the bodies the service sends (envelopes,
// provenance, cursors), which it holds precomputed as a raw server with a cache would: only a fresh
// request id goes into each. So the ratio is what the service adds (routing, auth, validation,
// visibility, mapping, cursors, logging), not a difference in payload.
// Usage: node bench/baseline-server.mjs <db> <port> <bodies.json>
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

export const REQUEST_ID_MARK = '"request_id":"@@"';

const [dbPath, port, bodiesFile] = process.argv.slice(2);
const bodies = new Map(Object.entries(JSON.parse(readFileSync(bodiesFile, 'utf8'))));
const db = new Database(dbPath, { readonly: true });
const WS = 'ws_business';
const listWorkers = db.prepare(
  `SELECT * FROM workers WHERE workspace_id = ? ORDER BY created_at, id LIMIT 51`,
);
const getWorker = db.prepare(`SELECT * FROM workers WHERE id = ? AND workspace_id = ?`);
const getTimesheet = db.prepare(`SELECT * FROM timesheets WHERE id = ? AND workspace_id = ?`);
const entries = db.prepare(
  `SELECT * FROM time_entries WHERE timesheet_id = ? ORDER BY created_at, id LIMIT 1000`,
);
const getInvoice = db.prepare(`SELECT * FROM invoices WHERE id = ? AND workspace_id = ?`);
const lines = db.prepare(
  `SELECT * FROM invoice_lines WHERE invoice_id = ? ORDER BY created_at, id LIMIT 500`,
);

/** The reads each path does: the same rows the service reads for it. */
const reads = {
  // A repeated report: the service answers it from its result cache, a raw server from the body
  // it holds (bench/reports.mjs measures the engines themselves).
  '/raw/report': () => null,
  '/api/v1/workers': () => listWorkers.all(WS),
  '/api/v1/workers/item': (id) => getWorker.get(id, WS),
  '/api/v1/timesheets/item': (id) => getTimesheet.get(id, WS) && entries.all(id),
  '/api/v1/invoices/item': (id) => getInvoice.get(id, WS) && lines.all(id),
};

createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const read = reads[url.pathname];
  const template = bodies.get(req.url);
  if (!read || template === undefined) {
    res.writeHead(404).end();
    return;
  }
  read(url.searchParams.get('id') ?? url.searchParams.get('name'));
  const requestId = randomUUID();
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
  });
  res.end(template.replace(REQUEST_ID_MARK, `"request_id":"${requestId}"`));
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
