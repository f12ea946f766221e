/**
 * The access trail (DESIGN §4.17): one event per answered request of the API and of MCP's tool
 * calls, refusals, 401 and 429 included; what each answer revealed, with personal data marked;
 * ids only, never a credential, a name or an email; a chain that `verify` walks, and that finds a
 * changed, removed or inserted event. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEvent } from '../../src/audit/event.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import { verifyTrail } from '../../src/audit/verify.js';
import { createToken } from '../../src/auth/tokens.js';
import { auditSqlOf } from '../support/audit.js';
import { DIALECTS, get, post, startHarness, WS, type Harness } from '../support/harness.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

for (const dialect of DIALECTS)
  describe(`the access trail (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      // Behind a proxy, so each refusal without a credential can come from an address of its own:
      // it is then the first of its address's minute, whose event carries its request id.
      h = await startHarness({ dialect, audit: true, trustedProxies: ['127.0.0.1'] });
    });
    after(() => h.close());

    const trail = () => h.executor.deps.answers as AuditTrail;
    const records = () => h.store.auditTrail();
    /** The events of these request ids, written first. */
    async function eventsOf(requestIds: string[]): Promise<AuditEvent[]> {
      await trail().flushAll();
      const stored = await records().listAuditEvents({ limit: 10_000 });
      const events = stored.map((s) => JSON.parse(s.event) as AuditEvent);
      return requestIds.map((id) => {
        const found = events.filter((e) => e.requestId === id);
        assert.equal(found.length, 1, `one event for ${id}, found ${found.length}`);
        return found[0];
      });
    }

    it('keeps one event per answered request, with what it revealed', async () => {
      const list = await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff);
      const noPii = await get(h.app, '/api/v1/workers?limit=2', h.tokens.staffNoPii);
      const one = await get(
        h.app,
        `/api/v1/timesheets/item?id=${(await h.one<{ id: string }>('SELECT id FROM timesheets WHERE worker_id = ? LIMIT 1', h.workerId)).id}`,
        h.tokens.staff,
      );
      const unauthorized = await get(h.app, '/api/v1/workers', 'vmsr_' + 'x'.repeat(43), {
        'x-forwarded-for': '198.51.100.41',
      });
      const refused = await get(h.app, '/api/v1/workers?cursor=nonsense', h.tokens.staff);
      const strict = await get(h.app, '/api/v1/workers?limit=0', h.tokens.staff);
      const answers = [list, noPii, one, unauthorized, refused, strict];
      const [listed, withoutPii, timesheet, denied, invalid, notFound] = await eventsOf(
        answers.map((a) => String(a.headers['x-request-id'])),
      );

      assert.equal(listed.transport, 'rest');
      assert.equal(listed.operation, 'list_workers');
      assert.equal(listed.workspace, WS);
      assert.equal(listed.caller?.kind, 'access_key');
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.params, { limit: 3 });
      assert.deepEqual(
        listed.revealed,
        list.body.data.items.map((w: { id: string }) => ({
          type: 'worker',
          id: w.id,
          worker: w.id,
          personalData: true,
        })),
      );
      assert.ok(withoutPii.revealed.every((r) => r.personalData === undefined));
      assert.deepEqual(timesheet.revealed, [
        { type: 'timesheet', id: one.body.data.item.timesheet.id, worker: h.workerId },
      ]);
      assert.equal(denied.status, 401);
      assert.equal(denied.caller, null);
      assert.equal(denied.code, 'unauthorized');
      assert.equal(denied.count, 1, 'counted: the only one of its address this minute');
      assert.equal(denied.countedBy, 'address');
      assert.equal(invalid.status, 200);
      assert.equal(invalid.code, 'invalid_cursor');
      assert.deepEqual(invalid.revealed, []);
      assert.deepEqual(invalid.params, {}, 'accepted, the cursor left out');
      assert.equal(notFound.status, 404);
      assert.equal(notFound.params, null, 'not accepted: no parameters kept');
    });

    it('names the worker of an approval status (its subject’s), served or not', async () => {
      const list = await get(h.app, '/api/v1/approval-statuses?limit=5', h.tokens.staff);
      const feed = await get(h.app, '/api/v1/changes?type=approval_status&limit=5', h.tokens.staff);
      const [listed, fed] = await eventsOf(
        [list, feed].map((a) => String(a.headers['x-request-id'])),
      );
      for (const [event, items] of [
        [listed, list.body.data.items as { id: string }[]],
        [fed, (feed.body.data.items as { record: { id: string } }[]).map((i) => i.record)],
      ] as const) {
        assert.equal(items.length, 5);
        // The worker is the trail's alone: the answer does not carry it.
        assert.ok(items.every((item) => !('workerId' in item)));
        const workers = await h.all<{ id: string; worker_id: string }>(
          `SELECT id, worker_id FROM approval_statuses WHERE id IN (${items.map(() => '?').join(', ')})`,
          ...items.map((i) => i.id),
        );
        const workerOf = new Map(workers.map((w) => [w.id, w.worker_id]));
        assert.deepEqual(
          event.revealed,
          items.map((item) => ({
            type: 'approval_status',
            id: item.id,
            worker: workerOf.get(item.id),
          })),
        );
      }
    });

    it('keeps one event per tool call, and for a refused /mcp request', async () => {
      const called = await post(
        h.app,
        '/mcp',
        h.tokens.staff,
        toolCall('list_suppliers', { limit: 2 }),
        MCP_HEADERS,
      );
      const result = called.body.result.content[0].text;
      const requestId = JSON.parse(result).request_id as string;
      const refused = await post(h.app, '/mcp', undefined, toolCall('list_workers'), {
        ...MCP_HEADERS,
        'x-forwarded-for': '198.51.100.42',
      });
      const [tool, denied] = await eventsOf([requestId, String(refused.headers['x-request-id'])]);
      assert.equal(tool.transport, 'mcp');
      assert.equal(tool.operation, 'list_suppliers');
      assert.equal(tool.revealed.length, 2);
      assert.ok(tool.revealed.every((r) => r.type === 'supplier'));
      assert.equal(denied.transport, 'mcp');
      assert.equal(denied.status, 401);
      // Refused before its body was read: which tool it asked for is not known.
      assert.equal(denied.operation, null);
    });

    it('holds no credential, name or email', async () => {
      await get(h.app, '/api/v1/workers?limit=50', h.tokens.staff);
      await trail().flush();
      const text = (await records().listAuditEvents({ limit: 10_000 }))
        .map((e) => e.event)
        .join('\n');
      const people = await h.all<{ display_name: string; work_email: string | null }>(
        'SELECT display_name, work_email FROM workers WHERE workspace_id = ?',
        WS,
      );
      for (const token of Object.values(h.tokens)) assert.ok(!text.includes(token));
      for (const person of people) {
        assert.ok(!text.includes(person.display_name), person.display_name);
        if (person.work_email) assert.ok(!text.includes(person.work_email));
      }
    });

    it('verifies, and finds a changed, a removed and an inserted event', async () => {
      await get(h.app, '/api/v1/suppliers?limit=1', h.tokens.staff);
      await trail().flush();
      const clean = await verifyTrail(records());
      assert.deepEqual(clean.breaks, []);
      assert.ok(clean.events > 0);
      const sql = auditSqlOf(h);
      const [victim] = await sql.all(
        'SELECT * FROM audit_events WHERE chain_id = ? ORDER BY seq LIMIT 1 OFFSET 2',
        [trail().chainId],
      );
      const at = [victim.chain_id, victim.seq];
      const problem = async () => (await verifyTrail(records())).breaks[0];

      await sql.run('UPDATE audit_events SET event = ? WHERE chain_id = ? AND seq = ?', [
        String(victim.event).replace('"status":200', '"status":201'),
        ...at,
      ]);
      assert.deepEqual(await problem(), {
        chainId: victim.chain_id,
        seq: Number(victim.seq),
        problem: 'changed',
        detail: 'its hash is not the hash of what it holds',
      });
      await sql.run('UPDATE audit_events SET event = ? WHERE chain_id = ? AND seq = ?', [
        victim.event,
        ...at,
      ]);
      assert.equal(await problem(), undefined, 'restored');

      await sql.run('DELETE FROM audit_events WHERE chain_id = ? AND seq = ?', at);
      assert.equal((await problem())?.problem, 'missing');
      const columns = Object.keys(victim);
      await sql.run(
        `INSERT INTO audit_events (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        columns.map((c) => victim[c]),
      );
      assert.equal(await problem(), undefined, 'put back');

      const [last] = await sql.all(
        'SELECT * FROM audit_events WHERE chain_id = ? ORDER BY seq DESC LIMIT 1',
        [trail().chainId],
      );
      await sql.run(
        `INSERT INTO audit_events (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        columns.map((c) =>
          c === 'seq' ? Number(last.seq) + 1 : c === 'prev' ? 'f'.repeat(64) : last[c],
        ),
      );
      assert.equal((await problem())?.problem, 'does not follow');
      await sql.run('DELETE FROM audit_events WHERE chain_id = ? AND seq = ?', [
        trail().chainId,
        Number(last.seq) + 1,
      ]);
    });
  });

for (const dialect of DIALECTS)
  describe(`list_audit_events (${dialect})`, () => {
    let h: Harness;
    let auditor = '';
    before(async () => {
      h = await startHarness({ dialect, audit: true });
      auditor = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ['read:workforce', 'read:audit'] },
        new Date(),
      );
    });
    after(() => h.close());

    it('is for staff tokens holding read:audit: others get 403', async () => {
      assert.equal((await get(h.app, '/api/v1/audit-events', h.tokens.staff2)).status, 403);
      const worker = await createToken(
        h.store,
        { workspaceId: WS, role: 'worker', workerId: h.workerId, scopes: ['read:audit'] },
        new Date(),
      );
      const refused = await get(h.app, '/api/v1/audit-events', worker);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'forbidden');
    });

    it('answers the workspace’s events newest first, with its filters and pages', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          String(
            (await get(h.app, `/api/v1/workers/item?id=${h.workerId}`, h.tokens.staff)).headers[
              'x-request-id'
            ],
          ),
        );
      await get(h.app, '/api/v1/workers?limit=1', h.tokens.otherWorkspaceStaff);
      await (h.executor.deps.answers as AuditTrail).flush();
      const first = await get(
        h.app,
        `/api/v1/audit-events?worker=${h.workerId}&operation=get_worker&limit=2`,
        auditor,
      );
      assert.equal(first.status, 200, first.raw);
      const page = first.body.data;
      assert.deepEqual(
        page.items.map((e: { requestId: string }) => e.requestId),
        [ids[2], ids[1]],
      );
      assert.equal(page.order, 'desc');
      assert.equal(page.items[0].userAgent?.kind, 'vms.provenance');
      assert.equal(page.items[0].params.value, JSON.stringify({ id: h.workerId }));
      assert.deepEqual(page.items[0].revealed, [
        { type: 'worker', id: h.workerId, worker: h.workerId, personalData: true },
      ]);
      const next = await get(
        h.app,
        `/api/v1/audit-events?worker=${h.workerId}&operation=get_worker&limit=2&cursor=${page.nextCursor}`,
        auditor,
      );
      assert.deepEqual(
        next.body.data.items.map((e: { requestId: string }) => e.requestId),
        [ids[0]],
      );
      // Another workspace's events are never this one's.
      const all = await get(h.app, '/api/v1/audit-events?limit=50', auditor);
      assert.ok(all.body.data.items.every((e: { caller: { keyId?: string } }) => e.caller));
      const other = await get(
        h.app,
        '/api/v1/audit-events?limit=50&operation=list_workers',
        auditor,
      );
      assert.equal(other.body.data.items.length, 0, 'the other workspace’s list_workers');
      // The cursor is bound to its filters.
      const moved = await get(
        h.app,
        `/api/v1/audit-events?limit=2&cursor=${page.nextCursor}`,
        auditor,
      );
      assert.equal(moved.body.data.code, 'invalid_cursor');
    });
  });
