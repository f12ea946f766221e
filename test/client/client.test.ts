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
import type { Change, ChangedRecord, ListName, Tombstone } from 'vms-read-client';
import { DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';
import { LIST_OF } from '../support/feed.js';

/** A copy as the sync loop keeps it: `type:id` → record. */
type Copy = Record<string, unknown>;

/** The list that serves each type of the change feed. */
const LISTS: Record<Change['type'], ListName> = LIST_OF;

/**
 * A record with each provenance envelope as its value: the feed and the lists serve the same
 * record, but an envelope says where it was read (`$.items[i].record.…` or `$.items[i].…`).
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value !== 'object' || value === null) return value;
  if ((value as { kind?: unknown }).kind === 'vms.provenance')
    return (value as { value: unknown }).value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
}

/** What a change tells, as typed: `record === null` narrows to a tombstone and its reason. */
function said(change: Change): string {
  if (change.record === null) {
    const tombstone: Tombstone = change;
    return `${tombstone.type} ${tombstone.id} ${tombstone.removed.reason}`;
  }
  const changed: ChangedRecord = change;
  return `${changed.type} ${changed.record.id}`;
}

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

    it("takes the lists' filters as typed input, each page of the walk filtered (DESIGN §4.15)", async () => {
      const vms = createVmsReadClient({ baseUrl, token: h.tokens.staff });
      const approved: string[] = [];
      for await (const timesheet of vms.items('list_timesheets', {
        status: 'approved',
        periodFrom: '2025-01-01',
        periodTo: '2025-03-31',
        limit: 20,
      })) {
        assert.equal(timesheet.status, 'approved');
        assert.ok(timesheet.periodEnd >= '2025-01-01' && timesheet.periodStart <= '2025-03-31');
        approved.push(timesheet.id);
      }
      const expected = await h.all<{ id: string }>(
        "SELECT id FROM timesheets WHERE workspace_id = ? AND status = 'approved' AND period_end >= '2025-01-01' AND period_start <= '2025-03-31'",
        WS,
      );
      assert.ok(expected.length > 20, 'more than one page');
      assert.deepEqual([...approved].sort(), expected.map((t) => t.id).sort());
      const drafts = await vms.call('list_invoices', { status: 'draft', order: 'desc' });
      assert.ok(!isRefusal(drafts) && drafts.items.every((i) => i.status === 'draft'));
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

    /**
     * client/README.md's sync loop as written, for one token, in a directory of its own: `run`
     * runs it once and gives its lines; `copy` is its vms-copy.json, envelopes as their values.
     */
    function syncLoop(token: string) {
      const root = fileURLToPath(new URL('../../../', import.meta.url));
      const readme = readFileSync(`${root}client/README.md`, 'utf8');
      const loop = /## Following changes[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      assert.match(loop, /vms\.changes/);
      const file = `${root}dist/readme-sync-loop.mjs`;
      writeFileSync(file, loop);
      const cwd = mkdtempSync(join(tmpdir(), 'vms-read-sync-'));
      const env = { ...process.env, VMS_URL: baseUrl, VMS_TOKEN: token };
      return {
        loop,
        run: async () =>
          (await promisify(execFile)(process.execPath, [file], { env, cwd })).stdout
            .trim()
            .split('\n')
            .filter(Boolean),
        copy: () => plain(JSON.parse(readFileSync(join(cwd, 'vms-copy.json'), 'utf8'))) as Copy,
        cursor: () => readFileSync(join(cwd, 'vms-cursor.txt'), 'utf8'),
        close: () => rmSync(cwd, { recursive: true, force: true }),
      };
    }

    /** Every record the seven lists serve this token, by `type:id`, envelopes as their values. */
    async function listed(token: string): Promise<Copy> {
      const vms = createVmsReadClient({ baseUrl, token });
      const records: Copy = {};
      for (const [type, list] of Object.entries(LISTS))
        for await (const item of vms.items(list, {} as never))
          records[`${type}:${(item as { id: string }).id}`] = plain(item);
      return records;
    }

    /**
     * Invoices a load may delete alone (no credit note corrects them), by id; with a supplier's
     * code, those it bills on (consolidated invoices: lines of that supplier).
     */
    const deletableInvoices = (supplierCode?: string) =>
      h.all<Record<string, unknown>>(
        `SELECT * FROM invoices i WHERE workspace_id = ?
         AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.corrects_invoice_ref = i.id)${
           supplierCode
             ? ' AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.supplier_ref = ?)'
             : ''
         } ORDER BY id`,
        ...[WS, ...(supplierCode ? [supplierCode] : [])],
      );

    const deletion = (id: unknown, at = '2030-01-02T00:00:00.000Z') => ({
      type: 'invoice' as const,
      id: String(id),
      deleted_at: at,
      file: 'deletions.csv',
      line: 2,
    });

    it("runs client/README.md's sync loop as written: a full export, then what a load updated, moved and deleted, the copy as the lists serve it", async () => {
      const staff = syncLoop(h.tokens.staff);
      const billing = syncLoop(h.tokens.billing);
      try {
        // docs/api.md shows the same loop.
        const root = fileURLToPath(new URL('../../../', import.meta.url));
        const api = readFileSync(`${root}docs/api.md`, 'utf8');
        const documented = /## The change feed[\s\S]*?```js\n([\s\S]*?)```/.exec(api)?.[1];
        assert.equal(documented, staff.loop, "docs/api.md's loop is client/README.md's");

        const exported = await staff.run();
        const [{ n }] = await h.all<{ n: number }>(
          'SELECT COUNT(*) AS n FROM record_changes WHERE workspace_id = ?',
          WS,
        );
        assert.equal(exported.length, Number(n), 'every record once');
        assert.ok(
          exported.every((line) => line.endsWith(' upserted')),
          exported.find((line) => !line.endsWith(' upserted')),
        );
        assert.deepEqual(staff.copy(), await listed(h.tokens.staff), 'the copy is the lists');
        assert.ok((await billing.run()).length > 0);
        assert.deepEqual(billing.copy(), await listed(h.tokens.billing));
        assert.deepEqual(await staff.run(), [], 'nothing changed since');
        assert.deepEqual(await billing.run(), []);

        // A load voids one invoice, deletes another of the billing entity's supplier, and moves
        // one of that supplier's assignments to another supplier.
        const [voided] = await deletableInvoices();
        const deleted = (await deletableInvoices(h.supplierCode)).find((i) => i.id !== voided.id);
        assert.ok(deleted, 'an invoice of the billing entity to delete');
        const [assignment] = await h.all<Record<string, unknown>>(
          'SELECT * FROM assignments WHERE workspace_id = ? AND supplier_ref = ? ORDER BY id LIMIT 1',
          WS,
          h.supplierCode,
        );
        const [other] = await h.all<{ code: string }>(
          'SELECT code FROM suppliers WHERE workspace_id = ? AND code <> ? ORDER BY code LIMIT 1',
          WS,
          h.supplierCode,
        );
        const before = staff.cursor();
        const load = await h.store.openLoad();
        const updatedAt = new Date(Date.UTC(2030, 0, 1)).toISOString();
        await load.insert('invoices', [
          { ...voided, status: 'void', updated_at: updatedAt } as never,
        ]);
        await load.insert('assignments', [
          { ...assignment, supplier_ref: other.code, updated_at: updatedAt } as never,
        ]);
        await load.remove(WS, [deletion(deleted.id)]);
        const { version } = await load.finish();

        const invoiceLines = [
          [String(voided.id), `invoice ${String(voided.id)} ${version} upserted`],
          [String(deleted.id), `invoice ${String(deleted.id)} ${version} deleted`],
        ]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([, line]) => line);
        assert.deepEqual(await staff.run(), [
          `assignment ${String(assignment.id)} ${version} upserted`,
          ...invoiceLines,
        ]);
        const copy = staff.copy();
        assert.equal(copy[`invoice:${String(deleted.id)}`], undefined, 'the deleted one is gone');
        assert.equal((copy[`invoice:${String(voided.id)}`] as { status: string }).status, 'void');
        assert.equal(
          (copy[`assignment:${String(assignment.id)}`] as { supplierRef: string }).supplierRef,
          other.code,
        );
        assert.deepEqual(copy, await listed(h.tokens.staff), 'the copy is still the lists');

        // The billing entity could read the deleted invoice and the moved assignment: a
        // tombstone each, and its copy is what its lists serve it now.
        const seen = await billing.run();
        assert.ok(
          seen.includes(`invoice ${String(deleted.id)} ${version} deleted`),
          seen.join('\n'),
        );
        assert.ok(
          seen.includes(`assignment ${String(assignment.id)} ${version} not_visible`),
          seen.join('\n'),
        );
        assert.deepEqual(billing.copy(), await listed(h.tokens.billing));
        assert.deepEqual(await staff.run(), []);
        assert.deepEqual(await billing.run(), []);

        // The typed client yields the same, a tombstone narrowed by `record === null`.
        const vms = createVmsReadClient({ baseUrl, token: h.tokens.staff });
        const told: string[] = [];
        for await (const change of vms.changes({ cursor: before })) told.push(said(change));
        assert.deepEqual(told, [
          `assignment ${String(assignment.id)}`,
          ...[String(voided.id), String(deleted.id)]
            .sort()
            .map((id) => (id === deleted.id ? `invoice ${id} deleted` : `invoice ${id}`)),
        ]);
      } finally {
        staff.close();
        billing.close();
      }
    });

    it("runs client/README.md's sync loop after cursor_expired: the copy is built again from the start", async () => {
      const staff = syncLoop(h.tokens.staff);
      try {
        await staff.run();
        const saved = staff.cursor();
        const [, gone] = await deletableInvoices();
        assert.ok(staff.copy()[`invoice:${String(gone.id)}`], 'in the copy');
        // With no days kept, the deletion's tombstone goes at once: older cursors are expired.
        const load = await h.store.openLoad({ tombstoneDays: 0 });
        await load.remove(WS, [deletion(gone.id, '2030-01-03T00:00:00.000Z')]);
        await load.finish();

        // The typed client throws the refusal, as any refusal met on the way.
        const vms = createVmsReadClient({ baseUrl, token: h.tokens.staff });
        await assert.rejects(
          async () => {
            for await (const change of vms.changes({ cursor: saved }))
              assert.fail(`no change expected: ${said(change)}`);
          },
          (error: unknown) =>
            error instanceof VmsReadRefusal &&
            error.code === 'cursor_expired' &&
            error.refusal.code === 'cursor_expired',
        );

        const rebuilt = await staff.run();
        assert.equal(rebuilt[0], 'cursor expired: copying everything again');
        const [{ n }] = await h.all<{ n: number }>(
          'SELECT COUNT(*) AS n FROM record_changes WHERE workspace_id = ?',
          WS,
        );
        assert.equal(rebuilt.length - 1, Number(n), 'every record once, from the start');
        const copy = staff.copy();
        assert.equal(copy[`invoice:${String(gone.id)}`], undefined, 'the deleted one is gone');
        assert.deepEqual(copy, await listed(h.tokens.staff), 'the copy is the lists');
        assert.deepEqual(await staff.run(), [], 'and follows on from its new cursor');
      } finally {
        staff.close();
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
