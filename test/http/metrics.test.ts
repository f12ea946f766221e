import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { readConfig } from '../../src/config.js';
import { callerWithToken, callTool, toolsetOf } from '../../src/mcp/tools.js';
import { ADDRESS_BOUNDS } from '../../src/address-bounds.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { DELIVERY_OUTCOMES } from '../../src/metrics/webhook-metrics.js';
import { REFUSAL_MESSAGES } from '../../src/semantic/refusals.js';
import { serviceSettings } from '../../src/service.js';
import { assertError, assertRefusal } from '../support/assertions.js';
import {
  DIALECTS,
  get,
  OTHER_WS,
  post,
  send,
  startHarness,
  WS,
  type Harness,
} from '../support/harness.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of Prometheus's text format (comments skipped): name, labels, value. */
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)",?/g))
      labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels (le aside), 0 when it has none yet. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = samples.filter(
    (s) =>
      s.name === name &&
      Object.keys(labels).length === Object.keys(s.labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} is ambiguous`);
  return found[0]?.value ?? 0;
}

async function scrape(h: Harness): Promise<Sample[]> {
  const answer = await get(h.app, '/metrics');
  assert.equal(answer.status, 200, answer.raw);
  return parseSamples(answer.raw);
}

/** The label values each metric of ours may carry: closed sets, never request input. */
const ALLOWED_LABELS: Record<string, (value: string) => boolean> = {
  operation: (v) => v === 'none' || OPERATIONS.some((op) => op.name === v),
  status: (v) => /^[1-5]\d\d$/.test(v),
  transport: (v) => v === 'rest' || v === 'mcp',
  code: (v) => v in REFUSAL_MESSAGES,
  engine: (v) => ['duckdb', 'sqlite', 'postgres'].includes(v),
  pool: (v) => v === 'reads' || v === 'reports',
  state: (v) => v === 'running' || v === 'waiting',
  outcome: (v) => (DELIVERY_OUTCOMES as readonly string[]).includes(v),
  // Subscription ids, which an operator makes (none in these tests).
  subscription: (v) => /^whk_[0-9a-f]{24}$/.test(v),
  le: (v) => v === '+Inf' || Number.isFinite(Number(v)),
  bound: (v) => v in ADDRESS_BOUNDS,
};

const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

describe('VMS_READ_METRICS switches metrics on', () => {
  it('passes the switch from the configuration to the service', () => {
    assert.equal(serviceSettings(readConfig({ VMS_READ_METRICS: '1' })).metrics, true);
    assert.equal(serviceSettings(readConfig({})).metrics, false);
  });
});

describe('metrics off (the default)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers /metrics 404 in the error shape, as any unknown path, and counts nothing', async () => {
    assertError(await get(h.app, '/metrics'), 404, 'not_found');
    assertError(await get(h.app, '/metrics', h.tokens.staff), 404, 'not_found');
    assert.equal(h.executor.deps.metrics, undefined);
  });
});

for (const dialect of DIALECTS) {
  describe(`metrics at GET /metrics (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      // Reports on the row store, so that its report pool (connections or worker threads) is used.
      h = await startHarness({ dialect, metrics: true, engine: 'row' });
    });
    after(() => h.close());

    it('serves the Prometheus text format without a token', async () => {
      const answer = await get(h.app, '/metrics');
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(answer.raw, /^# HELP vms_read_requests_total /m);
      assert.match(answer.raw, /^# TYPE vms_read_request_duration_seconds histogram$/m);
    });

    it('counts REST requests by operation, status and transport, with their latency', async () => {
      const before = await scrape(h);
      assert.equal((await get(h.app, '/api/v1/workers?limit=2', h.tokens.staff)).status, 200);
      assert.equal((await get(h.app, '/api/v1/workers?limit=2', h.tokens.staff)).status, 200);
      assert.equal((await get(h.app, '/api/v1/workers?limit=x', h.tokens.staff)).status, 404);
      assert.equal((await get(h.app, '/api/v1/workers')).status, 401);
      assert.equal((await get(h.app, '/api/v1/no-such-thing', h.tokens.staff)).status, 404);
      const after = await scrape(h);
      const delta = (name: string, labels: Record<string, string>) =>
        valueOf(after, name, labels) - valueOf(before, name, labels);
      const requests = (operation: string, status: string) =>
        delta('vms_read_requests_total', { operation, status, transport: 'rest' });
      assert.equal(requests('list_workers', '200'), 2);
      assert.equal(requests('list_workers', '404'), 1);
      assert.equal(requests('list_workers', '401'), 1);
      assert.equal(requests('none', '404'), 1);
      const latency = { operation: 'list_workers', transport: 'rest' };
      assert.equal(delta('vms_read_request_duration_seconds_count', latency), 4);
      assert.equal(
        delta('vms_read_request_duration_seconds_bucket', { ...latency, le: '+Inf' }),
        4,
      );
      assert.ok(delta('vms_read_request_duration_seconds_sum', latency) > 0);
    });

    it('counts MCP tool calls by tool, and exchanges refused before any tool as none', async () => {
      const before = await scrape(h);
      const call = (body: unknown, token = h.tokens.staff) =>
        post(h.app, '/mcp', token || undefined, body, MCP_HEADERS);
      assert.equal(
        (await call(toolCall('list_workers', { limit: 1 }))).body.result.isError,
        undefined,
      );
      const denied = await call(toolCall('list_invoices'), h.tokens.workforceOnly);
      assert.equal(denied.body.result.isError, true);
      assert.equal((await call(toolCall('no_such_tool'))).body.error.code, -32602);
      assert.equal((await call(toolCall('list_workers'), '')).status, 401);
      const after = await scrape(h);
      const requests = (operation: string, status: string) =>
        valueOf(after, 'vms_read_requests_total', { operation, status, transport: 'mcp' }) -
        valueOf(before, 'vms_read_requests_total', { operation, status, transport: 'mcp' });
      assert.equal(requests('list_workers', '200'), 1);
      assert.equal(requests('list_invoices', '403'), 1);
      assert.equal(requests('none', '404'), 1);
      assert.equal(requests('none', '401'), 1);
      // The HTTP exchange that carried a tool call is not counted a second time.
      assert.equal(requests('none', '200'), 0);
      assert.equal(
        valueOf(after, 'vms_read_request_duration_seconds_count', {
          operation: 'list_workers',
          transport: 'mcp',
        }) -
          valueOf(before, 'vms_read_request_duration_seconds_count', {
            operation: 'list_workers',
            transport: 'mcp',
          }),
        1,
      );
    });

    it('counts refusals by operation and code', async () => {
      const before = await scrape(h);
      const unknown = await post(h.app, '/api/v1/reports/query', h.tokens.staff, {
        query: { metrics: ['no_such_metric'] },
      });
      assertRefusal(unknown, 'unknown_metric', 'run_semantic_query', true);
      const missing = await post(h.app, '/api/v1/reports/saved-queries/run', h.tokens.staff, {
        savedQueryId: 'sq_none',
      });
      assertRefusal(missing, 'not_found', 'run_saved_query', true);
      const byMcp = await post(
        h.app,
        '/mcp',
        h.tokens.staff,
        toolCall('list_workers', { cursor: 'not-a-cursor' }),
        MCP_HEADERS,
      );
      assert.equal(byMcp.body.result.structuredContent.code, 'invalid_cursor');
      const after = await scrape(h);
      const refusals = (operation: string, code: string) =>
        valueOf(after, 'vms_read_refusals_total', { operation, code }) -
        valueOf(before, 'vms_read_refusals_total', { operation, code });
      assert.equal(refusals('run_semantic_query', 'unknown_metric'), 1);
      assert.equal(refusals('run_saved_query', 'not_found'), 1);
      assert.equal(refusals('list_workers', 'invalid_cursor'), 1);
    });

    it('times report queries on their engine, answers from the cache excluded', async () => {
      const report = { operation: 'run_semantic_query', engine: dialect };
      const count = (samples: Sample[]) =>
        valueOf(samples, 'vms_read_report_query_duration_seconds_count', report);
      const before = count(await scrape(h));
      const body = { query: { metrics: ['invoice_count'], dimensions: ['invoice_status'] } };
      assert.equal((await post(h.app, '/api/v1/reports/query', h.tokens.staff, body)).status, 200);
      assert.equal(count(await scrape(h)), before + 1);
      assert.equal((await post(h.app, '/api/v1/reports/query', h.tokens.staff, body)).status, 200);
      assert.equal(count(await scrape(h)), before + 1, 'a repeat is answered from the cache');
    });

    it("shows the store's connection pools and the report queries running and waiting", async () => {
      const report = { query: { metrics: ['timesheet_count'] } };
      assert.equal(
        (await post(h.app, '/api/v1/reports/query', h.tokens.staff, report)).status,
        200,
      );
      const samples = await scrape(h);
      const pools = dialect === 'postgres' ? ['reads', 'reports'] : ['reports'];
      assert.deepEqual(
        samples
          .filter((s) => s.name === 'vms_read_store_pool_connections')
          .map((s) => s.labels.pool)
          .sort(),
        pools,
      );
      for (const pool of pools) {
        const total = valueOf(samples, 'vms_read_store_pool_connections', { pool });
        const idle = valueOf(samples, 'vms_read_store_pool_idle_connections', { pool });
        assert.ok(total >= 1, `${pool}: a connection (or worker) was opened for the report`);
        assert.ok(idle >= 0 && idle <= total, `${pool}: ${idle} idle of ${total}`);
        assert.equal(valueOf(samples, 'vms_read_store_pool_waiting_queries', { pool }), 0);
      }
      assert.equal(valueOf(samples, 'vms_read_report_queries', { state: 'running' }), 0);
      assert.equal(valueOf(samples, 'vms_read_report_queries', { state: 'waiting' }), 0);
    });

    it('includes the process metrics', async () => {
      const names = new Set((await scrape(h)).map((s) => s.name));
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ])
        assert.ok(names.has(name), name);
    });

    it('carries no token, workspace or record value, and labels only from closed sets', async () => {
      const worker = await h.one<{ id: string; display_name: string }>(
        'SELECT id, display_name FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const workspaces = await h.all<{ id: string; name: string }>(
        'SELECT id, name FROM workspaces',
      );
      const forged = `vmsr_${'Q'.repeat(43)}`;
      const requests = [
        get(h.app, `/api/v1/workers/item?id=${worker.id}`, h.tokens.staff),
        get(h.app, `/api/v1/workers/item?id=${worker.id}`, h.tokens.worker),
        get(
          h.app,
          `/api/v1/workers?limit=1&${encodeURIComponent(worker.display_name)}=1`,
          h.tokens.staff,
        ),
        get(h.app, `/api/v1/${encodeURIComponent(worker.display_name)}`, h.tokens.staff),
        get(h.app, `/api/v1/suppliers`, h.tokens.otherWorkspaceStaff),
        get(h.app, `/api/v1/timesheets?workerId=${worker.id}`, h.tokens.billing),
        get(h.app, '/api/v1/workers', forged),
        get(h.app, `/${WS}/${OTHER_WS}`, h.tokens.staff),
        get(h.app, `/api/v1/ZQmarker%zz`, h.tokens.staff),
        get(h.app, `/api/v1/workers?id=ZQmarker%E0%A4%A`, h.tokens.staff),
        post(h.app, '/api/v1/reports/query', h.tokens.staff, {
          query: { metrics: [worker.display_name] },
        }),
        post(h.app, '/mcp', h.tokens.staff, toolCall('get_worker', { id: worker.id }), MCP_HEADERS),
        post(h.app, '/mcp', h.tokens.staff, toolCall(worker.display_name), MCP_HEADERS),
        post(h.app, '/mcp', forged, toolCall('list_workers'), MCP_HEADERS),
      ];
      for (const answer of await Promise.all(requests)) assert.ok(answer.status < 500, answer.raw);
      const text = (await get(h.app, '/metrics')).raw;
      const secrets = [
        ...Object.values(h.tokens),
        forged,
        ...workspaces.flatMap((w) => [w.id, w.name]),
        worker.id,
        worker.display_name,
        encodeURIComponent(worker.display_name),
        h.supplierId,
        h.supplierCode,
        'ZQmarker',
      ];
      for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} is in /metrics`);
      for (const sample of parseSamples(text).filter((s) => s.name.startsWith('vms_read_')))
        for (const [label, value] of Object.entries(sample.labels))
          assert.ok(
            ALLOWED_LABELS[label]?.(value),
            `${sample.name}: label ${label}="${value}" is not from a closed set`,
          );
    });
  });
}

// The quota does not depend on the store: SQLite alone.
describe('quota rejections (429) by transport', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ metrics: true, quotaPerMinute: 2 });
  });
  after(() => h.close());

  const quota = async (transport: string) =>
    valueOf(await scrape(h), 'vms_read_quota_rejections_total', { transport });

  it('starts both transports at 0', async () => {
    assert.equal(await quota('rest'), 0);
    assert.equal(await quota('mcp'), 0);
    assert.match(
      (await get(h.app, '/metrics')).raw,
      /vms_read_quota_rejections_total\{transport="mcp"\} 0/,
    );
  });

  it('counts a REST 429', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await get(h.app, '/api/v1/suppliers', h.tokens.staff)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    assert.equal(await quota('rest'), 1);
    assert.equal(await quota('mcp'), 0);
    const samples = await scrape(h);
    const labels = { operation: 'list_suppliers', status: '429', transport: 'rest' };
    assert.equal(valueOf(samples, 'vms_read_requests_total', labels), 1);
  });

  it('counts a 429 on HTTP /mcp', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (await post(h.app, '/mcp', h.tokens.staff2, toolCall('list_suppliers'), MCP_HEADERS))
          .status,
      );
    assert.deepEqual(statuses, [200, 200, 429]);
    assert.equal(await quota('mcp'), 1);
    assert.equal(await quota('rest'), 1);
  });

  it('counts a 429 on a tool call that checks its own token (stdio)', async () => {
    const caller = callerWithToken(h.executor, h.tokens.worker);
    const toolset = toolsetOf(OPERATIONS);
    const results: CallToolResult[] = [];
    for (let i = 0; i < 3; i++)
      results.push(await callTool(h.executor, toolset, caller, { name: 'list_timesheets' }));
    assert.deepEqual(
      results.map((r) => r.isError ?? false),
      [false, false, true],
    );
    assert.equal(await quota('mcp'), 2);
    const labels = { operation: 'list_timesheets', status: '429', transport: 'mcp' };
    assert.equal(valueOf(await scrape(h), 'vms_read_requests_total', labels), 1);
  });
});

describe('refusals by the bounds per client address', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ metrics: true, authFailuresPerMinute: 1, anonymousPerMinute: 2 });
  });
  after(() => h.close());
  const refusals = async (bound: string) =>
    valueOf(await scrape(h), 'vms_read_address_refusals_total', { bound });

  it('starts every bound at 0 and counts each 429 by its bound', async () => {
    for (const bound of Object.keys(ADDRESS_BOUNDS)) assert.equal(await refusals(bound), 0);
    const wrong = `vmsr_${'r'.repeat(43)}`;
    const failures = [];
    for (let i = 0; i < 3; i++)
      failures.push(
        (
          await send(h.app, {
            url: '/api/v1/suppliers',
            headers: { authorization: `Bearer ${wrong}` },
            remoteAddress: '203.0.113.30',
          })
        ).status,
      );
    assert.deepEqual(failures, [401, 429, 429]);
    assert.equal(await refusals('failedAuthentications'), 2);
    const anonymous = [];
    for (let i = 0; i < 3; i++)
      anonymous.push(
        (await send(h.app, { url: '/openapi.json', remoteAddress: '203.0.113.31' })).status,
      );
    assert.deepEqual(anonymous, [200, 200, 429]);
    assert.equal(await refusals('requestsWithoutCredential'), 1);
  });
});
