/**
 * Refusals cost the trail nothing an attacker can grow (DESIGN §4.17): a 401, and a 429 of a
 * per-address bound, are one event per address, status and UTC minute with their `count`; a 429
 * of a caller's quota one per caller and minute; past VMS_READ_AUDIT_REFUSALS_PER_MINUTE such
 * events in a minute one more counts the rest. Both stores, through the app; the minute's rules
 * on their own with made-up times.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEvent } from '../../src/audit/event.js';
import { RefusalCounts, refusalGroupOf } from '../../src/audit/refusal-counts.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import type { AnsweredRequest } from '../../src/operations/answered.js';
import type { Principal } from '../../src/auth/principal.js';
import { DIALECTS, get, post, startHarness, type Harness } from '../support/harness.js';

const MINUTE = 60_000;

function refusal(
  at: number,
  address: string,
  status = 401,
  principal?: Principal,
): AnsweredRequest {
  return {
    requestId: `r${at}-${address}`,
    at,
    transport: 'rest',
    address,
    userAgent: null,
    principal: principal ?? null,
    operation: null,
    seen: {},
    status,
    code: status === 401 ? 'unauthorized' : 'rate_limited',
  };
}

describe('counting refusals by minute', () => {
  it('groups by address (an IPv6 address by its /64) and status, and by caller for a 429', () => {
    const counts = new RefusalCounts(10);
    const t = 5 * MINUTE;
    const caller = { tokenId: 'tok_a' } as Principal;
    const requests = [
      refusal(t, '203.0.113.1'),
      refusal(t + 1, '203.0.113.1'),
      refusal(t + 2, '203.0.113.1', 429),
      refusal(t + 3, '2001:db8::1'),
      refusal(t + 4, '2001:db8::2'),
      refusal(t + 5, '198.51.100.9', 429, caller),
      refusal(t + 6, '198.51.100.10', 429, caller),
    ];
    for (const request of requests)
      assert.deepEqual(counts.count(request, refusalGroupOf(request) as string), []);
    assert.deepEqual(
      counts.take().map((c) => [c.first.requestId, c.count, c.by]),
      [
        [requests[0].requestId, 2, 'address'],
        [requests[2].requestId, 1, 'address'],
        [requests[3].requestId, 2, 'address'],
        [requests[5].requestId, 2, 'caller'],
      ],
    );
  });

  it('counts no answer that is an event of its own', () => {
    const principal = { tokenId: 'tok_a' } as Principal;
    assert.equal(refusalGroupOf({ ...refusal(0, 'a', 200, principal) }), null);
    assert.equal(refusalGroupOf({ ...refusal(0, 'a', 404, principal) }), null);
    assert.equal(refusalGroupOf({ ...refusal(0, 'a', 403, principal) }), null);
    assert.notEqual(refusalGroupOf(refusal(0, 'a', 403)), null, 'no credential: counted');
  });

  it('ends a minute when one after it begins, and counts a late one in the minute under way', () => {
    const counts = new RefusalCounts(10);
    const first = refusal(7 * MINUTE + 59_999, '203.0.113.1');
    counts.count(first, refusalGroupOf(first) as string);
    const next = refusal(8 * MINUTE, '203.0.113.1');
    const ended = counts.count(next, refusalGroupOf(next) as string);
    assert.deepEqual(
      ended.map((c) => [c.first.requestId, c.count]),
      [[first.requestId, 1]],
    );
    const late = refusal(7 * MINUTE + 59_998, '203.0.113.1');
    assert.deepEqual(counts.count(late, refusalGroupOf(late) as string), []);
    assert.deepEqual(
      counts.take().map((c) => [c.first.requestId, c.count]),
      [[next.requestId, 2]],
    );
  });

  it('holds at most its ceiling of groups, then one that counts the rest', () => {
    const counts = new RefusalCounts(3);
    for (let i = 0; i < 50; i++) {
      const request = refusal(MINUTE + i, `203.0.113.${i}`);
      counts.count(request, refusalGroupOf(request) as string);
      counts.count(request, refusalGroupOf(request) as string);
    }
    const taken = counts.take();
    assert.deepEqual(
      taken.map((c) => [c.count, c.by]),
      [
        [2, 'address'],
        [2, 'address'],
        [2, 'address'],
        [94, 'rest'],
      ],
    );
  });
});

for (const dialect of DIALECTS)
  describe(`refusals in the trail (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({
        dialect,
        audit: true,
        trustedProxies: ['127.0.0.1'],
        authFailuresPerMinute: 5,
        anonymousPerMinute: 40,
        auditRefusalsPerMinute: 20,
      });
    });
    after(() => h.close());

    const trail = () => h.executor.deps.answers as AuditTrail;
    /** The trail's events after `action`, and how many rows it added. */
    async function eventsAfter(action: () => Promise<void>): Promise<AuditEvent[]> {
      await trail().flushAll();
      const before = new Set(
        (await h.store.auditTrail().listAuditEvents({ limit: 100_000 })).map((e) => e.hash),
      );
      await action();
      await trail().flushAll();
      return (await h.store.auditTrail().listAuditEvents({ limit: 100_000 }))
        .filter((e) => !before.has(e.hash))
        .map((e) => JSON.parse(e.event) as AuditEvent);
    }
    const from = (address: string) => ({ 'x-forwarded-for': address });
    /** Events by address and status, with the refusals they count (a minute may end between). */
    function tally(events: AuditEvent[]): Record<string, number> {
      const out: Record<string, number> = {};
      for (const e of events) {
        const key = `${e.countedBy ?? 'own'} ${e.address} ${e.status}`;
        out[key] = (out[key] ?? 0) + (e.count ?? 1);
      }
      return out;
    }

    it('keeps a flood without a credential from one address as one event a minute, counted', async () => {
      const events = await eventsAfter(async () => {
        for (let i = 0; i < 120; i++) {
          const answer = await get(h.app, '/api/v1/workers', undefined, from('203.0.113.7'));
          assert.ok([401, 429].includes(answer.status));
        }
        for (let i = 0; i < 30; i++)
          await post(
            h.app,
            '/mcp',
            undefined,
            { jsonrpc: '2.0', id: 1, method: 'ping' },
            {
              ...from('203.0.113.7'),
              accept: 'application/json, text/event-stream',
            },
          );
      });
      // 40 requests without a credential a minute: 401s, then the address bound's 429s.
      assert.deepEqual(tally(events), {
        'address 203.0.113.7 401': 40,
        'address 203.0.113.7 429': 110,
      });
      assert.ok(events.length <= 4, `${events.length} events (one a status and minute)`);
      const first = events.find((e) => e.status === 401) as AuditEvent;
      assert.equal(first.caller, null);
      assert.equal(first.workspace, null);
    });

    it('keeps wrong credentials as one event per address, status and minute', async () => {
      const events = await eventsAfter(async () => {
        for (let i = 0; i < 25; i++)
          await get(h.app, '/api/v1/workers', `vmsr_${'w'.repeat(43)}`, from('203.0.113.8'));
      });
      // 5 wrong credentials a minute get 401, the rest the failed-authentication bound's 429.
      assert.deepEqual(tally(events), {
        'address 203.0.113.8 401': 5,
        'address 203.0.113.8 429': 20,
      });
      assert.ok(events.length <= 4);
    });

    it("keeps a caller's spent quota as one event per caller and minute", async () => {
      const quota = await startHarness({ dialect, audit: true, quotaPerMinute: 3 });
      try {
        const trailOf = quota.executor.deps.answers as AuditTrail;
        for (let i = 0; i < 12; i++)
          await get(quota.app, '/api/v1/suppliers?limit=1', quota.tokens.staff);
        await trailOf.flushAll();
        const events = (await quota.store.auditTrail().listAuditEvents({ limit: 1000 })).map(
          (e) => JSON.parse(e.event) as AuditEvent,
        );
        const answered = events.filter((e) => e.status === 200);
        const spent = events.filter((e) => e.status === 429);
        assert.equal(answered.length, 3, 'each answer an event of its own');
        assert.equal(
          spent.reduce((sum, e) => sum + (e.count ?? 0), 0),
          9,
        );
        assert.ok(spent.length <= 2, 'one a minute');
        assert.equal(spent[0].countedBy, 'caller');
        assert.equal(spent[0].caller?.kind, 'access_key');
      } finally {
        await quota.close();
      }
    });

    it('adds at most the ceiling of events a minute, and one for the rest, from any number of addresses', async () => {
      const events = await eventsAfter(async () => {
        for (let i = 0; i < 100; i++)
          for (let j = 0; j < 2; j++)
            await get(h.app, '/api/v1/workers', undefined, from(`198.51.100.${i}`));
      });
      const counted = events.reduce((sum, e) => sum + (e.count ?? 0), 0);
      assert.equal(counted, 200);
      // 20 addresses' events, then one for the rest, in each minute the flood touched.
      const rest = events.filter((e) => e.countedBy === 'rest');
      assert.ok(rest.length >= 1 && rest.length <= 2, `${rest.length} events for the rest`);
      assert.ok(events.length <= 2 * 21, `${events.length} events`);
      assert.equal(rest[0].address, null);
      assert.equal(rest[0].caller, null);
      assert.ok((rest[0].count ?? 0) >= 100, 'most of the flood is in the rest');
    });
  });
