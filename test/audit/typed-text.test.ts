/**
 * The access trail keeps ids, never names or emails (DESIGN §4.17): text a person typed (a search
 * word, a name, an email, an invoice number, a report filter's values, a value given for an id
 * parameter that names no record of its kind) is kept as `{"text": true, "length": n}`; ids,
 * enumerated values, dates and numbers as they were. So after `erase` nothing in the trail holds
 * the worker's name or email, whatever was asked. Also: the client's name over MCP's 2026-07-28
 * envelope, and a User-Agent read as the UTF-8 it was sent in. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eraseWorker } from '../../src/admin/erase.js';
import type { AuditEvent } from '../../src/audit/event.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import {
  DIALECTS,
  get,
  OTHER_WS,
  post,
  startHarness,
  WS,
  type Harness,
} from '../support/harness.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const text = (value: string) => ({ text: true, length: [...value].length });

for (const dialect of DIALECTS)
  describe(`what the trail keeps of parameters (${dialect})`, () => {
    let h: Harness;
    let person: { id: string; display_name: string; work_email: string };
    let otherWorker = '';
    before(async () => {
      h = await startHarness({ dialect, audit: true });
      person = await h.one(
        'SELECT id, display_name, work_email FROM workers WHERE workspace_id = ? AND work_email IS NOT NULL AND LENGTH(display_name) BETWEEN 5 AND 40 ORDER BY id LIMIT 1',
        WS,
      );
      otherWorker = (
        await h.one<{ id: string }>(
          'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
          OTHER_WS,
        )
      ).id;
    });
    after(() => h.close());

    const trail = () => h.executor.deps.answers as AuditTrail;
    async function eventOf(requestId: string): Promise<AuditEvent> {
      await trail().flushAll();
      const stored = await h.store.auditTrail().listAuditEvents({ limit: 100_000 });
      const found = stored.map((s) => JSON.parse(s.event) as AuditEvent);
      const event = found.find((e) => e.requestId === requestId);
      assert.ok(event, `an event for ${requestId}`);
      return event;
    }
    const idOf = (answer: { headers: Record<string, unknown> }) =>
      String(answer.headers['x-request-id']);
    const callTool = (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      post(
        h.app,
        '/mcp',
        h.tokens.staff,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
        { ...MCP_HEADERS, ...headers },
      );
    const paramsOf = async (path: string) =>
      (await eventOf(idOf(await get(h.app, path, h.tokens.staff)))).params;

    it('keeps a name, an email or a number looked up as its length', async () => {
      const name = encodeURIComponent(person.display_name);
      assert.deepEqual(await paramsOf(`/api/v1/audit-events?worker=${name}`), {
        worker: text(person.display_name),
      });
      assert.deepEqual(
        await paramsOf(`/api/v1/invoices?number=${encodeURIComponent(person.work_email)}`),
        { number: text(person.work_email) },
      );
      const number = (
        await h.one<{ number: string }>(
          'SELECT number FROM invoices WHERE workspace_id = ? AND number IS NOT NULL LIMIT 1',
          WS,
        )
      ).number;
      assert.deepEqual(await paramsOf(`/api/v1/invoices?number=${encodeURIComponent(number)}`), {
        number: text(number),
      });
      // The page's search box: a name typed where an id goes.
      assert.deepEqual(await paramsOf('/api/v1/workers/item?id=Kwame'), { id: text('Kwame') });
    });

    it('keeps ids that name a record of their kind, in any workspace, and enumerated values', async () => {
      assert.deepEqual(await paramsOf(`/api/v1/workers/item?id=${person.id}`), { id: person.id });
      // Not visible to this token (another workspace's), but an id of a worker all the same.
      assert.deepEqual(await paramsOf(`/api/v1/workers/item?id=${otherWorker}`), {
        id: otherWorker,
      });
      assert.deepEqual(
        await paramsOf(`/api/v1/timesheets?workerId=${otherWorker}&status=approved&limit=3`),
        { workerId: otherWorker, status: 'approved', limit: 3 },
      );
      assert.deepEqual(await paramsOf('/api/v1/timesheets?workerId=Quinn&periodFrom=2024-01-01'), {
        workerId: text('Quinn'),
        periodFrom: '2024-01-01',
      });
      // A timesheet's id is no worker's.
      const timesheet = (
        await h.one<{ id: string }>('SELECT id FROM timesheets WHERE workspace_id = ? LIMIT 1', WS)
      ).id;
      assert.deepEqual(await paramsOf(`/api/v1/expenses?workerId=${timesheet}`), {
        workerId: text(timesheet),
      });
      assert.deepEqual(
        await paramsOf(`/api/v1/audit-events?operation=get_worker&since=2026-01-01T00:00:00Z`),
        { operation: 'get_worker', since: '2026-01-01T00:00:00Z' },
      );
      assert.deepEqual(await paramsOf('/api/v1/audit-events?operation=Kwame%20Quinn'), {
        operation: text('Kwame Quinn'),
      });
    });

    it("keeps a report's catalog keys once it ran, and its filters' values as their lengths", async () => {
      const query = {
        metrics: ['hours_worked'],
        dimensions: ['supplier'],
        filters: [{ dimension: 'supplier', operator: 'in', values: [person.display_name, 7] }],
        timeRange: { from: '2024-01-01', to: '2024-03-31' },
      };
      const ran = await post(h.app, '/api/v1/reports/query', h.tokens.staff, { query });
      assert.equal(ran.status, 200);
      const event = await eventOf(idOf(ran));
      const kept = {
        ...query,
        filters: [
          { dimension: 'supplier', operator: 'in', values: [text(person.display_name), 7] },
        ],
      };
      assert.deepEqual(event.params, { query: kept });
      assert.deepEqual((event.report?.query as { filters: unknown }).filters, kept.filters);

      const refused = await post(h.app, '/api/v1/reports/query', h.tokens.staff, {
        query: { metrics: [person.display_name] },
      });
      assert.equal(refused.body.data.status, 'refused');
      const refusal = await eventOf(idOf(refused));
      assert.deepEqual(refusal.params, { query: { metrics: [text(person.display_name)] } });
    });

    it('holds no name or email of a worker after erase, whatever was asked', async () => {
      const asked = [
        `/api/v1/audit-events?worker=${encodeURIComponent(person.display_name)}`,
        `/api/v1/invoices?number=${encodeURIComponent(person.work_email)}`,
        `/api/v1/workers/item?id=${encodeURIComponent(person.display_name.split(' ')[0].slice(0, 60) || 'x')}`,
        `/api/v1/workers/item?id=${person.id}`,
      ];
      for (const path of asked) await get(h.app, path, h.tokens.staff);
      await callTool({ name: 'list_invoices', arguments: { number: person.work_email } });
      await trail().flushAll();
      await eraseWorker(h.store, WS, person.id);
      const stored = (await h.store.auditTrail().listAuditEvents({ limit: 100_000 }))
        .map((s) => s.event)
        .join('\n');
      assert.ok(stored.includes(person.id), 'the id is kept');
      assert.ok(!stored.includes(person.work_email), 'no email');
      assert.ok(!stored.includes(JSON.stringify(person.display_name).slice(1, -1)), 'no name');
    });

    it("records the client's name from MCP's 2026-07-28 envelope, else the User-Agent", async () => {
      const modern = await callTool(
        {
          name: 'list_suppliers',
          arguments: { limit: 1 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'Claude', version: '2.1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
        {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'list_suppliers',
          'user-agent': 'node',
        },
      );
      assert.equal(modern.status, 200, modern.raw);
      const result = JSON.parse(modern.body.result.content[0].text);
      assert.equal((await eventOf(result.request_id)).userAgent, 'Claude/2.1');
    });

    it('reads a User-Agent as the UTF-8 its client sent', async () => {
      const sent = 'Müller-Tool/1 ✓ عربي';
      // What arrives on the wire: UTF-8 bytes, which Node hands over one byte per character.
      const answer = await get(h.app, '/api/v1/suppliers?limit=1', h.tokens.staff, {
        'user-agent': Buffer.from(sent, 'utf8').toString('latin1'),
      });
      assert.equal((await eventOf(idOf(answer))).userAgent, sent);
    });
  });
