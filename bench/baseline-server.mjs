// The honest ceiling the service is measured against: node:http + better-sqlite3 doing the same
// reads over the same data and sending byte for byte the bodies the service sends (envelopes,
// provenance, cursors), which it holds precomputed as UTF-8 bytes, as a raw server with a cache
// would: only a fresh request id goes between the bytes before and after it. So the ratio is what the service adds (routing, auth, validation,
// visibility, mapping, cursors, logging), not a difference in payload.
// With `fastify` as fourth argument the same handler runs behind one bare Fastify route per path
// (no hooks, no logging): the framework's own floor, measured in the same run.
// Usage: node bench/baseline-server.mjs <db> <port> <bodies.json> [fastify]
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

export const REQUEST_ID_MARK = '"request_id":"@@"';

const [dbPath, port, bodiesFile, framework] = process.argv.slice(2);
/** Each body as the bytes before its request id and after it. */
const bodies = new Map(
  Object.entries(JSON.parse(readFileSync(bodiesFile, 'utf8'))).map(([path, body]) => {
    const at = body.indexOf(REQUEST_ID_MARK);
    if (at < 0) throw new Error(`${path}: the captured body has no request id`);
    const after = body.slice(at + REQUEST_ID_MARK.length);
    return [path, [Buffer.from(`${body.slice(0, at)}"request_id":"`), Buffer.from(`"${after}`)]];
  }),
);
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

/** The body for a request with its reads done, or undefined for an unknown one. */
function answer(pathname, search, requestId) {
  const read = reads[pathname];
  const template = bodies.get(`${pathname}${search}`);
  if (!read || template === undefined) return undefined;
  const params = new URLSearchParams(search);
  read(params.get('id') ?? params.get('name'));
  return Buffer.concat([template[0], Buffer.from(requestId), template[1]]);
}

const ready = () => process.stdout.write('ready\n');

if (framework === 'fastify') {
  const app = Fastify({ logger: false, genReqId: () => randomUUID() });
  for (const path of Object.keys(reads))
    app.get(path, (request, reply) => {
      const at = request.url.indexOf('?');
      const body = answer(path, at < 0 ? '' : request.url.slice(at), request.id);
      if (body === undefined) return reply.code(404).send();
      return reply
        .header('x-request-id', request.id)
        .type('application/json; charset=utf-8')
        .send(body);
    });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
  ready();
} else {
  createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const requestId = randomUUID();
    const body = answer(url.pathname, url.search, requestId);
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': requestId,
    });
    res.end(body);
  }).listen(Number(port), '127.0.0.1', ready);
}
