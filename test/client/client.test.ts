import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  createVmsReadClient,
  isRefusal,
  retryAfterMs,
  VmsReadError,
  VmsReadRefusal,
} from 'vms-read-client';
import { DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';

/** The typed client (client/, built from docs/openapi.json) against a live server, on both stores. */
for (const dialect of DIALECTS) {
  describe(`the typed client against a live server (${dialect})`, () => {
    let h: Harness;
    let baseUrl: string;
    before(async () => {
      h = await startHarness({ dialect });
      baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    it('lists every worker, following nextCursor page after page', async () => {
      const vms = createVmsReadClient({ baseUrl, token: h.tokens.staff });
      const ids: string[] = [];
      for await (const worker of vms.items('list_workers', { limit: 7 })) ids.push(worker.id);
      const expected = await h.all<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id',
        WS,
      );
      assert.ok(expected.length > 7, 'more than one page');
      assert.deepEqual([...ids].sort(), expected.map((w) => w.id).sort());
      assert.equal(new Set(ids).size, ids.length, 'no item twice');
    });

    it("runs client/README.md's five-line example as written: every worker, one a line", async () => {
      const root = fileURLToPath(new URL('../../../', import.meta.url));
      const readme = readFileSync(`${root}client/README.md`, 'utf8');
      const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      assert.equal(example.trim().split('\n').length, 5, 'five lines');
      // In dist/ (not committed), where `vms-read-client` resolves as it would in a project.
      const file = `${root}dist/readme-example.mjs`;
      writeFileSync(file, example);
      const env = { ...process.env, VMS_URL: baseUrl, VMS_TOKEN: h.tokens.staff };
      const { stdout } = await promisify(execFile)(process.execPath, [file], { env });
      const printed = stdout.trim().split('\n');
      const workers = await h.all<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id = ?',
        WS,
      );
      assert.equal(printed.length, workers.length);
      assert.ok(
        printed.every((line) => /^wkr_\S+ \S/.test(line)),
        printed[0],
      );
    });

    it("runs client/README.md's sync loop as written: a full export, then only what a load changed", async () => {
      const root = fileURLToPath(new URL('../../../', import.meta.url));
      const readme = readFileSync(`${root}client/README.md`, 'utf8');
      const loop = /## Following changes[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      assert.match(loop, /vms\.changes/);
      const file = `${root}dist/readme-sync-loop.mjs`;
      writeFileSync(file, loop);
      const cwd = mkdtempSync(join(tmpdir(), 'vms-read-sync-'));
      const env = { ...process.env, VMS_URL: baseUrl, VMS_TOKEN: h.tokens.staff };
      const run = async () =>
        (await promisify(execFile)(process.execPath, [file], { env, cwd })).stdout
          .trim()
          .split('\n')
          .filter(Boolean);
      try {
        const exported = await run();
        const [{ n }] = await h.all<{ n: number }>(
          'SELECT COUNT(*) AS n FROM record_changes WHERE workspace_id = ?',
          WS,
        );
        assert.equal(exported.length, Number(n), 'every record once');
        assert.deepEqual(await run(), [], 'nothing changed since');
        const [invoice] = await h.all<Record<string, unknown>>(
          'SELECT * FROM invoices WHERE workspace_id = ? ORDER BY id LIMIT 1',
          WS,
        );
        const load = await h.store.openLoad();
        const updatedAt = new Date(Date.UTC(2030, 0, 1)).toISOString();
        await load.insert('invoices', [
          { ...invoice, status: 'void', updated_at: updatedAt } as never,
        ]);
        const { version } = await load.finish();
        assert.deepEqual(await run(), [`invoice ${String(invoice.id)} ${version}`]);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });

    it('calls a get and a report with typed input, and gives refusals as data', async () => {
      const vms = createVmsReadClient({ baseUrl, token: h.tokens.staff });
      const { item } = await vms.call('get_worker', { id: h.workerId });
      assert.equal(item?.id, h.workerId);
      const catalog = await vms.call('list_catalog');
      assert.ok(catalog.metrics.some((m) => m.key === 'hours_worked'));
      const refused = await vms.call('run_semantic_query', { query: { metrics: ['no_such'] } });
      assert.ok(isRefusal(refused));
      assert.equal(refused.code, 'unknown_metric');
      const answered = await vms.call('run_semantic_query', { query: { metrics: ['spend'] } });
      assert.ok(!isRefusal(answered) && answered.rows.length === 1);
    });

    it('runs a report to its last row through nextCursor, and throws a refusal met on the way', async () => {
      const vms = createVmsReadClient({ baseUrl, token: h.tokens.staff });
      // Past the business plan's row budget (500): the run continues through nextCursor.
      const input = { query: { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 700 } };
      let pages = 0;
      const days: unknown[] = [];
      for await (const page of vms.pages('run_semantic_query', input)) {
        pages++;
        days.push(...page.rows.map((row) => row.work_date));
      }
      assert.ok(pages > 1, `several pages (${pages})`);
      assert.equal(days.length, 700);
      assert.equal(new Set(days).size, days.length);
      let rows = 0;
      for await (const row of vms.rows('run_semantic_query', input)) if (row) rows++;
      assert.equal(rows, days.length);
      await assert.rejects(
        async () => {
          for await (const row of vms.rows('run_semantic_query', { query: { metrics: ['nope'] } }))
            assert.fail(`no row expected: ${JSON.stringify(row)}`);
        },
        (error: unknown) => error instanceof VmsReadRefusal && error.code === 'unknown_metric',
      );
    });

    it('throws errors typed by code, with the request id of the answer', async () => {
      const vms = createVmsReadClient({ baseUrl, token: 'not-a-token' });
      const error = await vms.call('list_suppliers', {}).catch((e: unknown) => e);
      assert.ok(error instanceof VmsReadError);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'unauthorized');
      assert.match(error.requestId, /^[0-9a-f-]{36}$/);
      const strict = createVmsReadClient({ baseUrl, token: h.tokens.staff });
      const notFound = await strict.call('list_workers', { limit: 0 }).catch((e: unknown) => e);
      assert.ok(notFound instanceof VmsReadError && notFound.code === 'not_found');
    });
  });
}

describe('the typed client waits what Retry-After asks on 429', () => {
  let h: Harness;
  let baseUrl: string;
  before(async () => {
    // 60 a minute: one request a second once the bucket is spent.
    h = await startHarness({ quotaPerMinute: 60 });
    baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.close());

  it('retries after the quota refills, and gives the 429 when told not to retry', async () => {
    const statuses: number[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const spend = async () => {
      for (let i = 0; i < 80; i++) {
        const r = await fetch(`${baseUrl}/api/v1/suppliers?limit=1`, {
          headers: { authorization: `Bearer ${h.tokens.staff}` },
        });
        await r.arrayBuffer();
        if (r.status === 429) return;
      }
      assert.fail('the quota was never spent');
    };
    await spend();
    const patient = createVmsReadClient({ baseUrl, token: h.tokens.staff, fetch: recording });
    const page = await patient.call('list_suppliers', { limit: 1 });
    assert.ok(!isRefusal(page) && page.items.length === 1);
    assert.deepEqual(statuses, [429, 200]);

    await spend();
    const impatient = createVmsReadClient({ baseUrl, token: h.tokens.staff, maxRetries: 0 });
    const error = await impatient.call('list_suppliers', { limit: 1 }).catch((e: unknown) => e);
    assert.ok(error instanceof VmsReadError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.ok((error.retryAfterSeconds ?? 0) >= 1);
  });
});

describe('Retry-After as the client reads it', () => {
  it('takes seconds or an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    assert.equal(retryAfterMs('3', now), 3000);
    assert.equal(retryAfterMs('Mon, 23 Nov 2026 10:00:05 GMT', now), 5000);
    assert.equal(retryAfterMs('Mon, 23 Nov 2026 09:00:00 GMT', now), 0);
    assert.equal(retryAfterMs(null, now), null);
    assert.equal(retryAfterMs('soon', now), null);
  });

  it('retries a 503 with Retry-After, and not past maxDelayMs', async () => {
    const answers = [503, 503, 200];
    let calls = 0;
    const server: typeof fetch = async () => {
      const status = answers[calls++];
      const body =
        status === 200
          ? { data: { items: [], hasMore: false, nextCursor: null, order: 'asc' }, request_id: 'r' }
          : { error: { code: 'unavailable', message: 'retry later' }, request_id: 'r' };
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
      });
    };
    const vms = createVmsReadClient({ baseUrl: 'http://vms.test', token: 't', fetch: server });
    const page = await vms.call('list_suppliers', {});
    assert.ok(!isRefusal(page));
    assert.deepEqual(page.items, []);
    assert.equal(calls, 3);

    const slow: typeof fetch = async () =>
      new Response('{"error":{"code":"unavailable","message":"m"},"request_id":"r"}', {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '120' },
      });
    const bounded = createVmsReadClient({ baseUrl: 'http://vms.test', token: 't', fetch: slow });
    const error = await bounded.call('list_suppliers', {}).catch((e: unknown) => e);
    assert.ok(error instanceof VmsReadError);
    assert.equal(error.retryAfterSeconds, 120);
  });
});
