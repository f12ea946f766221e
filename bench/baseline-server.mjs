// The ceiling the service is measured against: node:http + better-sqlite3 + JSON.stringify with
// hand-written SQL over the same data, and no validation, auth, provenance, cursors or logging.
// Usage: node bench/baseline-server.mjs <db> <port>
import Database from 'better-sqlite3';
import { createServer } from 'node:http';
import { RAW_REPORTS } from './typical-reports.mjs';

const [dbPath, port] = process.argv.slice(2);
const db = new Database(dbPath, { readonly: true });
const WS = 'ws_business';
const listWorkers = db.prepare(
  `SELECT * FROM workers WHERE workspace_id = ? ORDER BY created_at, id LIMIT 50`,
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

const rawReports = Object.fromEntries(
  Object.entries(RAW_REPORTS).map(([name, sql]) => [name, db.prepare(sql)]),
);

const routes = {
  '/raw/report': (name) => ({ rows: rawReports[name].all() }),
  '/api/v1/workers': () => ({ items: listWorkers.all(WS) }),
  '/api/v1/workers/item': (id) => ({ item: getWorker.get(id, WS) ?? null }),
  '/api/v1/timesheets/item': (id) => {
    const timesheet = getTimesheet.get(id, WS);
    return { item: timesheet ? { timesheet, entries: entries.all(id) } : null };
  },
  '/api/v1/invoices/item': (id) => {
    const invoice = getInvoice.get(id, WS);
    return { item: invoice ? { invoice, lines: lines.all(id) } : null };
  },
};

createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const route = routes[url.pathname];
  const body = route
    ? JSON.stringify({ data: route(url.searchParams.get('id') ?? url.searchParams.get('name')) })
    : '{}';
  res.writeHead(route ? 200 : 404, { 'content-type': 'application/json' });
  res.end(body);
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
