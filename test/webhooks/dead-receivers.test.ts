/**
 * Dead receivers never hold the deliveries of other subscriptions (DESIGN §4.14, "On the open
 * internet"), on both stores, against real servers the test starts: one that accepts connections
 * and never answers (one, or ten), at which 40 subscriptions are made first, and the verifying
 * receiver. With the product's settings (32 slots, the 10 s time limit, a round every 200 ms), a
 * healthy subscription's delivery arrives while the dead receivers still hold every connection
 * they were given.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, describe, it, type TestContext } from 'node:test';
import { webhookDeliveries } from '../../src/admin/webhooks.js';
import { DIALECTS, WS } from '../support/harness.js';
import { applyLoad } from '../support/random-loads.js';
import { useWebhookFixture } from '../support/webhook-fixture.js';

/** The time limit of a try in the product: the dead receiver holds each connection this long. */
const TIME_LIMIT_MS = 10_000;

let serial = 0;

/** Servers that accept connections, read, and never answer. */
async function deadServers(n: number) {
  const held = new Set<Socket>();
  const servers: Server[] = [];
  for (let i = 0; i < n; i++) {
    const server = createServer((socket) => {
      held.add(socket);
      socket.on('data', () => {});
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  return {
    held,
    urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`),
    async close() {
      for (const socket of held) socket.destroy();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`dead receivers hold no other subscription (${dialect})`, () => {
    const w = useWebhookFixture(dialect);
    let dead: Awaited<ReturnType<typeof deadServers>>;
    before(async () => {
      dead = await deadServers(10);
    });
    after(() => dead.close());

    /**
     * Subscriptions to the dead receivers at `urls` first, then a healthy one; one change: the
     * healthy delivery arrives while every dead try still waits.
     */
    async function healthyAmong(urls: string[], t: TestContext) {
      const stuck = [];
      for (const url of urls) stuck.push(await w.subscribe(w.h.tokens.staff, ['invoice'], url));
      const healthy = await w.subscribe(w.h.tokens.staff, ['invoice']);
      w.deliver({ timeoutMs: TIME_LIMIT_MS, pollMs: 200, concurrency: 32, retryMs: 60_000 });
      const changed = Date.now();
      await applyLoad(w.h.store, WS, [
        { kind: 'invoice', pick: ++serial, status: 'void', type: 'invoice', period: '2026-02-01' },
      ]);
      await w.receiver.until(() => w.at(healthy.path).length === 1, 3 * TIME_LIMIT_MS);
      const waited = w.at(healthy.path)[0].at - changed;
      // What the design guarantees, whatever the machine's speed: the healthy delivery never
      // waits for a slot a dead try holds, so it arrives before the first dead try ends (the time
      // limit), which the log confirms below. (The design's second is the benchmark's to
      // measure, bench/webhooks.mjs; here it is only reported: 0.3-0.8 s on a quiet machine,
      // 5.5 s once in CI at a load of 6.)
      assert.ok(waited < TIME_LIMIT_MS, `the healthy delivery waited ${waited} ms`);
      t.diagnostic(`the healthy delivery arrived ${waited} ms after the change`);
      for (const s of stuck)
        assert.deepEqual(await webhookDeliveries(w.h.store, s.id, 1), [], 'no dead try ended yet');
      assert.ok(dead.held.size > 0, 'the dead receivers hold connections');
    }

    it('delivers a healthy subscription while 40 subscriptions wait on one receiver that never answers', (t) =>
      healthyAmong(
        Array.from({ length: 40 }, (_, i) => `${dead.urls[0]}/dead/${i}`),
        t,
      ));

    it('delivers a healthy subscription while 40 subscriptions wait on 10 receivers that never answer', (t) =>
      healthyAmong(
        Array.from({ length: 40 }, (_, i) => `${dead.urls[i % 10]}/dead/${i}`),
        t,
      ));
  });
}
