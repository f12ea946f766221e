/**
 * Webhook delivery (DESIGN §4.14; src/webhooks/delivery.ts) against a real receiver on loopback
 * that verifies every request with the `standardwebhooks` package, on both stores:
 *
 * - a copy kept from deliveries alone equals what `list_changes` shows the subscription's key,
 *   tombstones included, delivered in version order with a `nextCursor` that resumes the feed; a
 *   worker key's subscription gets only what that worker reads;
 * - a 5xx and a receiver that never answers are retried with the same id and body; a 410
 *   disables; three days of failures mark it failing; a revoked key disables;
 * - a restart mid-retry sends the same delivery again; two instances deliver each delivery once,
 *   and one takes over from an instance that died when its lease lapses;
 * - a receiver that never answers delays no other subscription;
 * - without the insecure setting, http, loopback and a name resolving to a private address when
 *   connecting are refused before anything is sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { webhookDeliveries } from '../../src/admin/webhooks.js';
import { revokeToken } from '../../src/admin/tokens.js';
import { createToken } from '../../src/auth/tokens.js';
import { ALL_SCOPES, DIALECTS, get, qs, WS } from '../support/harness.js';
import { applyLoad, loadSteps } from '../support/random-loads.js';
import { useWebhookFixture, waitFor } from '../support/webhook-fixture.js';
import type { Received } from '../support/webhook-receiver.js';

type Item = Received['body']['items'][number];

/** A copy kept by applying items in order: the record, or gone after a tombstone. */
function copyOf(items: readonly Item[]): Map<string, unknown> {
  const copy = new Map<string, unknown>();
  for (const item of items) {
    const key = `${item.type}:${item.id}`;
    if (item.record === null) copy.delete(key);
    else copy.set(key, withoutPaths(item.record));
  }
  return copy;
}

/** A record without its envelopes' paths (where it sat in the page that carried it). */
function withoutPaths(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'path' ? undefined : v)));
}

/** Every envelope of a body's items names where it sits in that body. */
function assertPathsInBody(body: Received['body']): void {
  body.items.forEach((item, i) =>
    JSON.stringify(item, (key, v: unknown) => {
      if (key === 'path') assert.ok(String(v).startsWith(`$.items[${i}].record.`), String(v));
      return v;
    }),
  );
}

for (const dialect of DIALECTS) {
  describe(`webhook delivery (${dialect})`, () => {
    const w = useWebhookFixture(dialect);
    const at = (path: string) => w.at(path);
    const caughtUp = (_path: string, id: string) => w.caughtUp(id);
    const subscribe = (...args: Parameters<typeof w.subscribe>) => w.subscribe(...args);
    const deliver = (...args: Parameters<typeof w.deliver>) => w.deliver(...args);

    /** What list_changes shows `token`, from the start, of versions after `fromVersion`. */
    async function feedAfter(token: string, fromVersion: number, types: string[] = []) {
      const items: Item[] = [];
      let cursor: string | undefined;
      for (;;) {
        const answer = await get(w.h.app, `/api/v1/changes${qs({ cursor })}`, token);
        assert.equal(answer.status, 200, answer.raw);
        items.push(...(answer.body.data.items as Item[]));
        cursor = answer.body.data.nextCursor as string;
        if (!answer.body.data.hasMore) break;
      }
      return items.filter(
        (i) => i.version > fromVersion && (types.length === 0 || types.includes(i.type)),
      );
    }

    const loads = fc.sample(loadSteps, { numRuns: 4, seed: 34 });

    it('keeps a copy equal to what list_changes shows the key, in version order, signed, resumable', async () => {
      const sub = await subscribe(w.h.tokens.staff);
      const invoices = await subscribe(w.h.tokens.staff, ['invoice']);
      const two = await subscribe(w.h.tokens.staff, ['timesheet', 'worker']);
      deliver();
      for (const steps of loads) await applyLoad(w.h.store, WS, steps);
      for (const s of [sub, invoices, two]) await caughtUp(s.path, s.id);

      for (const [s, types] of [
        [sub, []],
        [invoices, ['invoice']],
        [two, ['timesheet', 'worker']],
      ] as const) {
        const got = at(s.path);
        assert.ok(got.length > 0, 'something was delivered');
        assert.ok(
          got.every((r) => r.verified),
          'every request verifies under its secret',
        );
        assert.equal(new Set(got.map((r) => r.id)).size, got.length, 'one id per delivery');
        const items = got.flatMap((r) => r.body.items);
        const expected = await feedAfter(w.h.tokens.staff, s.fromVersion, [...types]);
        assert.deepEqual(copyOf(items), copyOf(expected));
        if (types.length > 0) assert.ok(items.every((i) => types.includes(i.type as never)));
        let last = 0;
        for (const r of got) {
          assert.equal(r.body.type, 'vms.changes');
          assert.equal(r.body.subscription, s.id);
          assert.equal(r.headers['content-type'], 'application/json');
          assert.equal(r.body.dataVersion, r.body.items.at(-1)?.version);
          assertPathsInBody(r.body);
          for (const item of r.body.items) {
            assert.ok(item.version >= last, 'version order');
            last = item.version;
          }
        }
      }
      // The last delivery's cursor resumes list_changes: nothing after it yet.
      const lastBody = at(sub.path).at(-1)!.body;
      const resumed = await get(
        w.h.app,
        `/api/v1/changes${qs({ cursor: lastBody.nextCursor })}`,
        w.h.tokens.staff,
      );
      assert.equal(resumed.status, 200, resumed.raw);
      assert.deepEqual(resumed.body.data.items, []);
      const oneType = at(invoices.path).at(-1)!.body.nextCursor;
      const typed = await get(
        w.h.app,
        `/api/v1/changes${qs({ cursor: oneType, type: 'invoice' })}`,
        w.h.tokens.staff,
      );
      assert.equal(typed.status, 200, typed.raw);
    });

    it("sends a worker key's subscription only what that worker reads", async () => {
      const worker = await subscribe(w.h.tokens.worker);
      const staff = await subscribe(w.h.tokens.staff);
      deliver();
      const ids = await w.h.all<{ id: string; worker_id: string }>(
        'SELECT id, worker_id FROM timesheets WHERE workspace_id = ? ORDER BY id',
        WS,
      );
      const mine = ids.findIndex((t) => t.worker_id === w.h.workerId);
      const theirs = ids.findIndex((t) => t.worker_id !== w.h.workerId);
      await applyLoad(w.h.store, WS, [
        { kind: 'timesheet', pick: mine, mode: 'daily', status: 'approved' },
        { kind: 'timesheet', pick: theirs, mode: 'daily', status: 'approved' },
      ]);
      await caughtUp(worker.path, worker.id);
      await caughtUp(staff.path, staff.id);
      const items = at(worker.path).flatMap((r) => r.body.items);
      assert.deepEqual(
        copyOf(items),
        copyOf(await feedAfter(w.h.tokens.worker, worker.fromVersion)),
      );
      assert.ok(
        items.some((i) => i.id === ids[mine].id),
        "the worker's own timesheet",
      );
      assert.ok(!items.some((i) => i.id === ids[theirs].id), "never another worker's");
      const staffItems = at(staff.path).flatMap((r) => r.body.items);
      assert.ok(
        staffItems.some((i) => i.id === ids[theirs].id),
        'staff sees both',
      );
    });

    it('retries a 5xx and a receiver that never answers with the same id and body, then goes on', async () => {
      const sub = await subscribe(w.h.tokens.staff, ['invoice']);
      w.receiver.script(sub.path, 503, 'silent', 200);
      deliver({ timeoutMs: 1000 });
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: 1, status: 'issued', type: 'invoice', period: '2026-02-01' },
      ]);
      await caughtUp(sub.path, sub.id);
      const got = at(sub.path);
      assert.equal(got.length, 3);
      assert.equal(new Set(got.map((r) => r.id)).size, 1, 'the same webhook-id on every try');
      assert.equal(new Set(got.map((r) => r.raw)).size, 1, 'the same body');
      assert.ok(got.every((r) => r.verified));
      const attempts = await webhookDeliveries(w.h.store, sub.id, 10);
      assert.deepEqual(
        attempts.map((a) => [a.attempt, a.outcome, a.status]),
        [
          [3, 'delivered', 200],
          [2, 'retry', null],
          [1, 'retry', 503],
        ],
      );
      assert.match(attempts[1].error ?? '', /no answer within 1 s/);
      // What the receiver said ('no thanks') is not kept: its size is.
      assert.deepEqual([attempts[2].error, attempts[2].answerBytes], [null, 9]);
      // The next change goes after the acknowledged one, with a new id.
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: 2, status: 'void', type: 'invoice', period: '2026-02-01' },
      ]);
      await caughtUp(sub.path, sub.id);
      assert.equal(at(sub.path).length, 4);
      assert.notEqual(at(sub.path)[3].id, got[0].id);
    });

    it('a 410 disables the subscription at once', async () => {
      const sub = await subscribe(w.h.tokens.staff, ['invoice']);
      w.receiver.script(sub.path, 410);
      deliver();
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: 3, status: 'issued', type: 'invoice', period: '2026-02-01' },
      ]);
      await w.receiver.until(() => at(sub.path).length === 1);
      await waitFor(
        async () => (await w.h.store.webhooks().findWebhook(sub.id))?.state === 'disabled',
      );
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: 4, status: 'issued', type: 'invoice', period: '2026-02-01' },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(at(sub.path).length, 1, 'nothing more is sent');
      const [attempt] = await webhookDeliveries(w.h.store, sub.id, 1);
      assert.equal(attempt.outcome, 'disabled');
    });

    it('marks a subscription failing after three days without a 2xx', async () => {
      const sub = await subscribe(w.h.tokens.staff, ['invoice']);
      w.receiver.script(sub.path, 500, 500, 500);
      let clock = Date.now();
      deliver({}, { now: () => clock });
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: 5, status: 'issued', type: 'invoice', period: '2026-02-01' },
      ]);
      await w.receiver.until(() => at(sub.path).length === 1);
      // The try is judged on the clock when it ended: move it only once the try is recorded.
      await waitFor(async () => (await webhookDeliveries(w.h.store, sub.id, 1)).length === 1);
      clock += 3 * 86_400_000 + 1000;
      await w.receiver.until(() => at(sub.path).length === 2);
      await waitFor(
        async () => (await w.h.store.webhooks().findWebhook(sub.id))?.state === 'failing',
      );
      const [last, first] = await webhookDeliveries(w.h.store, sub.id, 2);
      assert.deepEqual([first.outcome, last.outcome], ['retry', 'failing']);
    });

    it('disables the subscription of a revoked key and sends it nothing', async () => {
      const key = await createToken(
        w.h.store,
        { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
      const sub = await subscribe(key, ['invoice']);
      await revokeToken(w.h.store, key, new Date());
      deliver();
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: 6, status: 'issued', type: 'invoice', period: '2026-02-01' },
      ]);
      await waitFor(
        async () => (await w.h.store.webhooks().findWebhook(sub.id))?.state === 'disabled',
      );
      assert.equal(at(sub.path).length, 0);
    });
  });
}
