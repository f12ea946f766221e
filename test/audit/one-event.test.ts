/**
 * The access trail's property (DESIGN §4.17): whatever the operations, roles and transports, every
 * answered request has exactly one event, and the records it says were revealed are exactly those
 * the answer carried (a page's items, a get's record, a feed page's items and tombstones), with
 * personal data marked where a name or email was in it; a refusal without an accepted credential
 * is counted instead (its address's event of the minute says how many). fast-check over random
 * requests, both stores.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import type { AuditEvent } from '../../src/audit/event.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import {
  callOperation,
  DIALECTS,
  post,
  startHarness,
  validInput,
  type Answer,
  type Harness,
} from '../support/harness.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const ROLES = ['staff', 'staffNoPii', 'worker', 'billing', 'programOnly', 'otherWorkspaceStaff'];

type Data = Record<string, unknown>;
interface Record_ {
  id: string;
  displayName?: unknown;
  workEmail?: unknown;
}

/** What an answer carried, as the trail should say it: type and id, personal data marked. */
function carried(operation: string, data: Data | undefined): string[] {
  if (!data || data.status === 'refused') return [];
  const mark = (type: string, r: Record_) =>
    `${type}:${r.id}${'displayName' in r || 'workEmail' in r ? ':personal' : ''}`;
  const typeOf = (name: string) =>
    ({
      list_workers: 'worker',
      get_worker: 'worker',
      list_timesheets: 'timesheet',
      get_timesheet: 'timesheet',
      list_invoices: 'invoice',
      get_invoice: 'invoice',
      list_suppliers: 'supplier',
      list_assignments: 'assignment',
      list_expenses: 'expense',
      list_approval_statuses: 'approval_status',
    })[name];
  if (operation === 'list_changes')
    return (data.items as { type: string; id: string; record: Record_ | null }[]).map((item) =>
      item.record ? mark(item.type, item.record) : `${item.type}:${item.id}`,
    );
  const type = typeOf(operation);
  if (!type) return [];
  if (Array.isArray(data.items)) return (data.items as Record_[]).map((r) => mark(type, r));
  const item = data.item as Data | null;
  if (!item) return [];
  const header = (item.timesheet ?? item.invoice ?? item) as Record_;
  return [mark(type, header)];
}

for (const dialect of DIALECTS)
  describe(`one event per answered request (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect, audit: true });
    });
    after(() => h.close());

    /** How many refusals the trail's counted events stand for. */
    async function countedRefusals(): Promise<number> {
      const stored = await h.store.auditTrail().listAuditEvents({ limit: 100_000 });
      return stored
        .map((s) => JSON.parse(s.event) as AuditEvent)
        .reduce((sum, event) => sum + (event.count ?? 0), 0);
    }

    it('holds for random operations, roles, inputs and transports', async () => {
      const request = fc.record({
        operation: fc.constantFrom(...OPERATIONS),
        role: fc.constantFrom(...ROLES, 'none', 'forged'),
        transport: fc.constantFrom('rest', 'mcp'),
        input: fc.constantFrom('valid', 'paged', 'broken'),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (requests) => {
          const sent: { id: string; operation: string; data?: Data; status: number }[] = [];
          const trail = h.executor.deps.answers as AuditTrail;
          await trail.flushAll();
          const countedBefore = await countedRefusals();
          let counted = 0;
          for (const r of requests) {
            // Without a credential that works, the refusal is counted, not an event of its own.
            if (r.role === 'none' || r.role === 'forged') counted++;
            const token =
              r.role === 'none'
                ? undefined
                : r.role === 'forged'
                  ? `vmsr_${'f'.repeat(43)}`
                  : h.tokens[r.role as keyof Harness['tokens']];
            const base = validInput(r.operation);
            const input =
              r.input === 'broken'
                ? { ...base, unknownParameter: 1 }
                : r.input === 'paged' && 'limit' in r.operation.input.properties
                  ? { ...base, limit: 2 }
                  : base;
            if (r.transport === 'rest') {
              const answer: Answer = await callOperation(h.app, r.operation, token, input);
              sent.push({
                id: String(answer.headers['x-request-id']),
                operation: r.operation.name,
                data: answer.status === 200 ? answer.body.data : undefined,
                status: answer.status,
              });
            } else {
              const answer = await post(
                h.app,
                '/mcp',
                token,
                {
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'tools/call',
                  params: { name: r.operation.name, arguments: input },
                },
                MCP_HEADERS,
              );
              if (answer.status !== 200) {
                sent.push({
                  id: String(answer.headers['x-request-id']),
                  operation: '',
                  status: answer.status,
                });
                continue;
              }
              const result = answer.body.result;
              const text = JSON.parse(result.content[0].text);
              sent.push({
                id: text.request_id,
                operation: r.operation.name,
                data: result.isError ? undefined : text.data,
                status: result.isError ? 0 : 200,
              });
            }
          }
          await trail.flushAll();
          assert.equal((await countedRefusals()) - countedBefore, counted, 'refusals counted');
          const stored = await h.store.auditTrail().listAuditEvents({ limit: 100_000 });
          const byRequest = new Map<string, AuditEvent[]>();
          for (const s of stored) {
            const event = JSON.parse(s.event) as AuditEvent;
            byRequest.set(event.requestId, [...(byRequest.get(event.requestId) ?? []), event]);
          }
          for (const s of sent.filter((_, i) => !['none', 'forged'].includes(requests[i].role))) {
            const events = byRequest.get(s.id) ?? [];
            assert.equal(events.length, 1, `one event for ${s.operation} ${s.id}`);
            const [event] = events;
            if (s.status === 200)
              assert.deepEqual(
                event.revealed.map((r) => `${r.type}:${r.id}${r.personalData ? ':personal' : ''}`),
                carried(s.operation, s.data),
                s.operation,
              );
            else assert.deepEqual(event.revealed, [], 'a refusal reveals nothing');
          }
        }),
        { numRuns: 25 },
      );
    });
  });
