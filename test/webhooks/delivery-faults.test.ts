/**
 * Webhook delivery under faults (DESIGN §4.14), on both stores, against a real receiver that
 * verifies with `standardwebhooks`: a restart mid-retry sends the same delivery again; two
 * instances on one database deliver each delivery once, and one takes over from an instance that
 * died when its lease lapses; a receiver that never answers delays no other subscription; without
 * the insecure setting, http, loopback, link-local and a name that resolves to a private address
 * when connecting (DNS rebinding) are refused before anything is sent; the metrics count it all.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { describe, it } from 'node:test';
import { eraseWorker } from '../../src/admin/erase.js';
import { webhookDeliveries } from '../../src/admin/webhooks.js';
import { StoreBusyError } from '../../src/errors.js';
import { ServiceMetrics } from '../../src/metrics/service-metrics.js';
import { createExecutor } from '../../src/service.js';
import { openStore } from '../../src/store/open-store.js';
import { DIALECTS, WS, type Harness } from '../support/harness.js';
import { applyLoad } from '../support/random-loads.js';
import {
  assertInVersionOrder,
  useWebhookFixture,
  waitFor,
  type Subscribed,
} from '../support/webhook-fixture.js';

let serial = 0;
/** A load that changes one invoice (a new status each time). */
const invoiceLoad = (h: Harness) =>
  applyLoad(h.store, WS, [
    {
      kind: 'invoice',
      pick: ++serial,
      status: ['issued', 'void', 'draft'][serial % 3],
      type: 'invoice',
      period: '2026-02-01',
    },
  ]);

for (const dialect of DIALECTS) {
  describe(`webhook delivery under faults (${dialect})`, () => {
    const w = useWebhookFixture(dialect);

    it('sends the same delivery again after a restart in the middle of its retries', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['invoice']);
      w.receiver.script(sub.path, 503);
      const first = w.deliver({ retryMs: 400 });
      await invoiceLoad(w.h);
      await waitFor(async () => (await webhookDeliveries(w.h.store, sub.id, 1)).length === 1);
      await first.stop();
      w.deliver();
      await w.caughtUp(sub.id);
      const got = w.at(sub.path);
      assert.equal(got.length, 2);
      assert.equal(got[1].id, got[0].id, 'the same webhook-id');
      assert.equal(got[1].raw, got[0].raw, 'the same body');
      assert.ok(got.every((r) => r.verified));
    });

    it('with two instances, delivers each delivery once; one takes over from a dead one', async () => {
      const store2 = await openStore(w.h.db);
      const executor2 = await createExecutor({ store: store2, secret: 'test-secret' });
      try {
        const subs = [];
        for (let i = 0; i < 6; i++) subs.push(await w.subscribe(w.h.tokens.staff, ['invoice']));
        // Each first delivery holds two versions or more, and the first subscription's is refused
        // once: it arrives again, the same id and body (4, 5, 4, 5), as at-least-once allows and
        // as a loaded machine causes anyway (a receiver that answers past the 5 s time limit).
        w.receiver.script(subs[0].path, 503);
        await invoiceLoad(w.h);
        await invoiceLoad(w.h);
        const one = w.deliver();
        w.deliver({}, { store: store2, executor: executor2 });
        for (let i = 0; i < 3; i++) {
          await invoiceLoad(w.h);
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        for (const s of subs) await w.caughtUp(s.id);
        for (const s of subs) {
          const got = w.at(s.path);
          assert.ok(got.length > 0);
          // Each message delivered by one instance, once. A message arrives again only as a
          // recorded attempt of its own (a retry, with the same id).
          const attempts = await webhookDeliveries(w.h.store, s.id, 100);
          const log = JSON.stringify(attempts);
          const delivered = attempts.filter((a) => a.outcome === 'delivered');
          assert.equal(
            new Set(delivered.map((a) => a.messageId)).size,
            delivered.length,
            `no delivery twice: ${log}`,
          );
          for (const id of new Set(got.map((r) => r.id)))
            assert.ok(
              got.filter((r) => r.id === id).length <=
                attempts.filter((a) => a.messageId === id).length,
              `every arrival of ${id} an attempt recorded: ${log}`,
            );
          assertInVersionOrder(got);
        }
        const [refused, again] = w.at(subs[0].path);
        assert.ok(refused.body.items.length >= 2, 'versions made before the loops started, in one');
        assert.equal(again.id, refused.id, 'the refused delivery again');
        // A graceful stop gives up the leases: the other instance goes on at once.
        await one.stop();
        await invoiceLoad(w.h);
        for (const s of subs) await w.caughtUp(s.id);

        // An instance that died holds its lease until it lapses; then another takes over.
        const [s] = subs;
        const lapse = Date.now() + 800;
        await w.h.store.run(
          'UPDATE webhook_progress SET lease_owner = ?, lease_until = ? WHERE subscription_id = ?',
          ['dlv_dead', lapse, s.id],
        );
        const before = w.at(s.path).length;
        await invoiceLoad(w.h);
        await w.receiver.until(() => w.at(s.path).length > before);
        assert.ok(w.at(s.path).at(-1)!.at >= lapse, 'not before the lease lapsed');
        await w.caughtUp(s.id);
      } finally {
        await w.reset();
        await executor2.close();
        await store2.close();
      }
    });

    it('a receiver that never answers delays no other subscription', async () => {
      const dead = await w.subscribe(w.h.tokens.staff, ['invoice']);
      w.receiver.script(dead.path, 'silent', 'silent', 'silent');
      const healthy = [];
      for (let i = 0; i < 12; i++) healthy.push(await w.subscribe(w.h.tokens.staff, ['invoice']));
      w.deliver({ concurrency: 4 });
      await invoiceLoad(w.h);
      for (const s of healthy) await w.caughtUp(s.id);
      // Every healthy receiver had it while the dead one's first try was still waiting.
      assert.deepEqual(await webhookDeliveries(w.h.store, dead.id, 1), []);
      assert.equal(w.at(dead.path).length, 1);
    });

    it('without the insecure setting, refuses http, loopback, link-local and rebinding names', async () => {
      const port = new URL(w.receiver.base).port;
      const urls = {
        http: `${w.receiver.base}/refused-http`,
        loopback: `https://127.0.0.1:${port}/refused`,
        ipv6: `https://[::1]:${port}/refused`,
        linkLocal: 'https://169.254.169.254/latest/meta-data',
        rebinding: `https://hooks.example.test:${port}/refused`,
      };
      const subs: Record<string, Subscribed> = {};
      for (const [name, url] of Object.entries(urls))
        subs[name] = await w.subscribe(w.h.tokens.staff, ['invoice'], url);
      // At `create` the name was public; now it resolves to loopback.
      w.deliver({ allowInsecure: false, resolve: async () => ['127.0.0.1'] });
      const before = w.receiver.received.length;
      await invoiceLoad(w.h);
      const errors: Record<string, string> = {};
      await waitFor(async () => {
        for (const [name, s] of Object.entries(subs)) {
          const [attempt] = await webhookDeliveries(w.h.store, s.id, 1);
          if (attempt) errors[name] = `${attempt.outcome} ${attempt.error}`;
        }
        return Object.keys(errors).length === Object.keys(urls).length;
      });
      assert.match(errors.http, /^retry the URL must be https/);
      assert.match(errors.loopback, /^retry 127\.0\.0\.1 is not a public address/);
      assert.match(errors.ipv6, /^retry ::1 is not a public address/);
      assert.match(errors.linkLocal, /^retry 169\.254\.169\.254 is not a public address/);
      assert.match(
        errors.rebinding,
        /^retry hooks\.example\.test resolves to 127\.0\.0\.1, which is not a public address/,
      );
      assert.equal(w.receiver.received.length, before, 'nothing reached the receiver');
    });

    it('rebuilds a waiting delivery that names an erased worker, without the erased text', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['worker']);
      w.receiver.script(sub.path, 503);
      w.deliver({ retryMs: 60_000 });
      const [worker] = await w.h.all<{ id: string; display_name: string }>(
        'SELECT id, display_name FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1 OFFSET 3',
        WS,
      );
      await applyLoad(w.h.store, WS, [
        { kind: 'worker', pick: 3, type: 'profile_only', status: 'active' },
      ]);
      await w.receiver.until(() => w.at(sub.path).length === 1);
      assert.ok(w.at(sub.path)[0].raw.includes(worker.display_name), 'the name was sent');
      await waitFor(async () => (await webhookDeliveries(w.h.store, sub.id, 1)).length === 1);
      await eraseWorker(w.h.store, WS, worker.id);
      // Dropped, or already built again (the erasure is a new version): never with the name.
      const [stored] = await w.h.all<{ body: string | null }>(
        'SELECT body FROM webhook_progress WHERE subscription_id = ?',
        sub.id,
      );
      assert.ok(!stored.body?.includes(worker.display_name), 'the erased name is not kept');
      await w.reset();
      await w.h.store.webhooks().setWebhookState(sub.id, 'active', new Date().toISOString());
      w.deliver();
      await w.caughtUp(sub.id);
      const [, resent] = w.at(sub.path);
      assert.notEqual(resent.id, w.at(sub.path)[0].id, 'a new delivery');
      assert.ok(!resent.raw.includes(worker.display_name), 'without the erased name');
      const erased = resent.body.items.find((i) => i.id === worker.id);
      assert.equal(
        (erased?.record as { displayName: { value: string } }).displayName.value,
        '(erased)',
      );
    });

    it('keeps a delivery only if the data did not change since its page was read', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['invoice']);
      const records = w.h.store.webhookDelivery();
      await records.startProgress(sub.id, [sub.fromVersion + 1, '', '', 0]);
      assert.ok(await records.claim(sub.id, 'dlv_test', Date.now(), 60_000));
      const pending = {
        messageId: 'msg_test',
        body: '{}',
        dataVersion: sub.fromVersion,
        nextPosition: [sub.fromVersion + 1, 'invoice', 'inv_x', 0] as const,
        items: 1,
        attempts: 0,
        pendingSince: Date.now(),
        firstFailedAt: null,
        nextAttemptAt: Date.now(),
      };
      // Read before a load (an erasure, say) that committed since: not kept.
      await invoiceLoad(w.h);
      assert.equal(await records.setPending(sub.id, 'dlv_test', pending, sub.fromVersion), false);
      const { version } = await w.h.store.dataVersion();
      assert.equal(await records.setPending(sub.id, 'dlv_test', pending, version), true);
      assert.equal((await records.findProgress(sub.id))?.pending?.messageId, 'msg_test');
      await records.forget(sub.id);
    });

    if (dialect === 'sqlite')
      it("never waits for an import's write lock: the delivery's writes are refused, then made", async () => {
        const sub = await w.subscribe(w.h.tokens.staff, ['invoice']);
        const importer = new Database(w.h.db);
        importer.pragma('busy_timeout = 5000');
        await invoiceLoad(w.h);
        // An import's transaction holds the write lock.
        importer.exec('BEGIN IMMEDIATE');
        try {
          await assert.rejects(
            w.h.store.webhookDelivery().startProgress(sub.id, [1, '', '', 0]),
            StoreBusyError,
          );
          w.deliver();
          await new Promise((resolve) => setTimeout(resolve, 300));
          assert.equal(w.at(sub.path).length, 0, 'nothing stored, so nothing sent yet');
        } finally {
          importer.exec('COMMIT');
          importer.close();
        }
        await w.caughtUp(sub.id);
        assert.equal(w.at(sub.path).length, 1);
      });

    it('counts deliveries by outcome and shows each subscription’s lag', async () => {
      const metrics = new ServiceMetrics({
        operations: [],
        pools: () => [],
        reportQueries: () => ({ running: 0, waiting: 0 }),
      });
      const ok = await w.subscribe(w.h.tokens.staff, ['invoice']);
      const failing = await w.subscribe(w.h.tokens.staff, ['invoice']);
      w.receiver.script(failing.path, 500, 500, 500, 500, 500, 500, 500, 500);
      w.deliver({ retryMs: 60_000 }, { meters: metrics.webhooks });
      await invoiceLoad(w.h);
      await w.caughtUp(ok.id);
      await waitFor(async () => (await webhookDeliveries(w.h.store, failing.id, 1)).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 60));
      const text = await metrics.text();
      assert.match(text, /^vms_read_webhook_deliveries_total\{outcome="delivered"\} 1$/m);
      assert.match(text, /^vms_read_webhook_deliveries_total\{outcome="retry"\} 1$/m);
      assert.match(text, /^vms_read_webhook_deliveries_total\{outcome="failing"\} 0$/m);
      assert.match(
        text,
        new RegExp(`^vms_read_webhook_lag_versions\\{subscription="${ok.id}"\\} 0$`, 'm'),
      );
      assert.match(
        text,
        new RegExp(`^vms_read_webhook_lag_versions\\{subscription="${failing.id}"\\} 1$`, 'm'),
      );
      const lag = new RegExp(
        `^vms_read_webhook_lag_seconds\\{subscription="${failing.id}"\\} ([0-9.e-]+)$`,
        'm',
      ).exec(text);
      assert.ok(lag && Number(lag[1]) > 0, 'the failing one has waited');
      assert.match(text, /^vms_read_webhook_attempt_duration_seconds_count 2$/m);
    });
  });
}
