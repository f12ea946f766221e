/**
 * docs/mcp.md's table "Malformed requests", walked (issue 35, item 4): each malformed request
 * gets the same JSON-RPC error, code and fixed text, on the 2025 path, on the 2026-07-28 path
 * and (for what reaches a server as a request) over stdio; the HTTP status is the table's, the
 * same on both paths except where a revision's transport fixes another (a method not found is
 * 404 in 2026-07-28, SEP-2575). A GET or DELETE is 405 whatever its content type.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { JSON_RPC } from '../../src/mcp/protocol-errors.js';
import { CLI } from '../support/cli.js';
import { startHarness, type Harness } from '../support/harness.js';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'vms-read-tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Era = '2025' | '2026';

interface Row {
  /** As docs/mcp.md's table names it. */
  name: string;
  /** The body: a JSON value, or raw text. */
  body: unknown;
  raw?: boolean;
  headers?: Record<string, string>;
  status: number | Record<Era, number>;
  error: { code: number; message: string };
  /** The id the answer carries. */
  id: number | null;
  /** A request a server sees as one: walked over stdio too. */
  stdio?: boolean;
}

const request = (method: string, params?: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

const ROWS: Row[] = [
  {
    name: 'not JSON',
    body: '{"jsonrpc":',
    raw: true,
    status: 400,
    error: JSON_RPC.parseError,
    id: null,
  },
  { name: 'a batch', body: [request('tools/list')], status: 400, error: JSON_RPC.batch, id: null },
  {
    name: 'JSON that is no message',
    body: { hello: 1 },
    status: 400,
    error: JSON_RPC.invalidRequest,
    id: null,
  },
  {
    name: 'a wrong jsonrpc version',
    body: { jsonrpc: '1.0', id: 1, method: 'tools/list' },
    status: 400,
    error: JSON_RPC.invalidRequest,
    id: 1,
  },
  {
    name: 'params not an object',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 5 },
    status: 400,
    error: JSON_RPC.invalidRequest,
    id: 1,
  },
  {
    name: 'an unknown method',
    body: request('vms/nothing', {}),
    status: { '2025': 200, '2026': 404 },
    error: JSON_RPC.methodNotFound,
    id: 1,
    stdio: true,
  },
  {
    name: 'tools/call without a string name',
    body: request('tools/call', { name: 5 }),
    status: 200,
    error: JSON_RPC.invalidParams,
    id: 1,
    stdio: true,
  },
  {
    name: 'an unknown tool',
    body: request('tools/call', { name: 'no_such_tool', arguments: {} }),
    status: 200,
    error: JSON_RPC.unknownTool,
    id: 1,
    stdio: true,
  },
  {
    name: 'resources/read without a string uri',
    body: request('resources/read', { uri: 5 }),
    status: 200,
    error: JSON_RPC.invalidParams,
    id: 1,
    stdio: true,
  },
  {
    name: 'resources/read of another uri',
    body: request('resources/read', { uri: 'ui://elsewhere/view.html' }),
    status: 200,
    error: JSON_RPC.notFound,
    id: 1,
    stdio: true,
  },
  {
    name: 'an Accept without JSON',
    body: request('tools/list', {}),
    headers: { accept: 'text/html' },
    status: 406,
    error: JSON_RPC.notAcceptable,
    id: null,
  },
  {
    name: 'a Content-Type that is not JSON',
    body: JSON.stringify(request('tools/list', {})),
    raw: true,
    headers: { 'content-type': 'text/plain' },
    status: 415,
    error: JSON_RPC.mediaType,
    id: null,
  },
];

/** The body and headers of a row in an era: the 2026-07-28 envelope in a request's `_meta`. */
function framed(row: Row, era: Era) {
  let body = row.body;
  const value = body as { method?: unknown; params?: unknown };
  const headers: Record<string, string> = {};
  if (era === '2026') {
    headers['mcp-protocol-version'] = MODERN;
    if (!row.raw && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if (typeof value.method === 'string') headers['mcp-method'] = value.method;
      const params = value.params;
      // What a 2026-07-28 client sends beside tools/call and resources/read: the name or URI.
      const named = params as { name?: unknown; uri?: unknown } | undefined;
      const name = named?.name ?? named?.uri;
      if (typeof name === 'string') headers['mcp-name'] = name;
      if (typeof params === 'object' && params !== null && !Array.isArray(params))
        body = { ...value, params: { ...params, _meta: ENVELOPE } };
    }
  }
  return { body: row.raw ? (body as string) : JSON.stringify(body), headers };
}

describe("docs/mcp.md's table of malformed requests", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('is the table the docs show', () => {
    const doc = readFileSync(
      fileURLToPath(new URL('../../../docs/mcp.md', import.meta.url)),
      'utf8',
    );
    for (const row of ROWS) {
      const line = doc.split('\n').find((l) => l.startsWith(`| ${row.name} `));
      assert.ok(line, `docs/mcp.md has a row for ${row.name}`);
      assert.ok(line.includes(`\`${row.error.code}\``), `${row.name}: its code`);
      assert.ok(line.includes(row.error.message), `${row.name}: its text`);
      const statuses = typeof row.status === 'number' ? [row.status] : Object.values(row.status);
      for (const status of statuses)
        assert.ok(line.includes(String(status)), `${row.name}: ${status}`);
    }
  });

  for (const era of ['2025', '2026'] as const)
    it(`answers each row the same on the ${era} path`, async () => {
      for (const row of ROWS) {
        const { body, headers } = framed(row, era);
        const answer = await h.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            authorization: `Bearer ${h.tokens.staff}`,
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            ...headers,
            ...row.headers,
          },
          payload: body,
        });
        const status = typeof row.status === 'number' ? row.status : row.status[era];
        assert.equal(answer.statusCode, status, `${row.name}: ${answer.body}`);
        assert.deepEqual(
          answer.json(),
          { jsonrpc: '2.0', id: row.id, error: row.error },
          `${row.name} (${era})`,
        );
      }
    });

  it('answers a GET, DELETE, PUT or PATCH 405, whatever it carries', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH'] as const)
      for (const headers of [{}, { 'content-type': 'application/json' }]) {
        const answer = await h.app.inject({ method, url: '/mcp', headers });
        assert.equal(answer.statusCode, 405, `${method} ${JSON.stringify(headers)}`);
        assert.equal(answer.headers.allow, 'POST');
        assert.equal(answer.json().error.code, 'method_not_allowed');
      }
  });

  it('answers the requests among them the same over stdio', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--db', h.db, '--token', h.tokens.staff]);
    try {
      const answers = lines(child);
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: ENVELOPE['io.modelcontextprotocol/clientInfo'],
        },
      });
      assert.ok('result' in ((await answers.next()) as object));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      for (const row of ROWS.filter((r) => r.stdio)) {
        send(row.body);
        assert.deepEqual(
          await answers.next(),
          { jsonrpc: '2.0', id: 1, error: row.error },
          row.name,
        );
      }
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });
});

/** The JSON lines a child writes on stdout, one at a time. */
function lines(child: ChildProcessWithoutNullStreams) {
  const queue: unknown[] = [];
  const waiting: ((value: unknown) => void)[] = [];
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      if (part.trim() === '') continue;
      const value: unknown = JSON.parse(part);
      const next = waiting.shift();
      if (next) next(value);
      else queue.push(value);
    }
  });
  return {
    next: () =>
      queue.length > 0
        ? Promise.resolve(queue.shift())
        : new Promise<unknown>((resolve) => waiting.push(resolve)),
  };
}
