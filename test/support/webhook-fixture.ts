/**
 * What the webhook delivery tests share: delivery loops over a harness's store (stopped after
 * each test), subscriptions to fresh paths of a receiver that verifies them, and waits.
 */
import assert from 'node:assert/strict';
import { createWebhook } from '../../src/admin/webhooks.js';
import type { Executor } from '../../src/operations/executor.js';
import type { Store } from '../../src/store/store.js';
import {
  WebhookDelivery,
  type DeliveryDeps,
  type DeliverySettings,
} from '../../src/webhooks/delivery.js';
import { after, afterEach, before } from 'node:test';
import { startHarness, type Dialect, type Harness } from './harness.js';
import { startReceiver, type Receiver, type Received } from './webhook-receiver.js';

/**
 * Quick retries: a test waits milliseconds, not minutes. The time limit stays long enough that
 * a loaded machine does not give up on a receiver that answered (a try given up is sent again).
 */
export const FAST: DeliverySettings = {
  allowInsecure: true,
  retryMs: 50,
  pollMs: 20,
  timeoutMs: 5000,
};

const quiet = (d: object, m: string) => process.env.DEBUG_WEBHOOKS && console.error(m, d);
export const TEST_LOG = { warn: quiet, info: quiet };

/** Polls `condition` until it holds, failing after `ms`. */
export async function waitFor(condition: () => Promise<boolean>, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`the condition did not come to hold within ${ms} ms`);
}

export interface Subscribed {
  id: string;
  secret: string;
  path: string;
  fromVersion: number;
}

/**
 * Asserts that what a subscription's receiver got is in version order (DESIGN §4.14: the next
 * delivery goes after a 2xx): each delivery's items in order and after every earlier delivery's,
 * and a delivery that arrives again (a retry: the same `webhook-id` and body, as at-least-once
 * allows) does so before any newer one. Its items are never compared with themselves: a retried
 * delivery of versions 4 and 5 gives 4, 5, 4, 5, which is in order.
 */
export function assertInVersionOrder(got: readonly Received[]): void {
  const shown = got.map((r) => `${r.id}: ${r.body.items.map((i) => i.version).join(',')}`);
  const seen = new Set<string>();
  let newest = -Infinity;
  for (const [n, r] of got.entries()) {
    const previous = got[n - 1];
    if (previous?.id === r.id) {
      assert.equal(r.raw, previous.raw, `a retry sends the same body: ${shown.join(' | ')}`);
      continue;
    }
    assert.ok(
      !seen.has(r.id),
      `${r.id} arrived again after a newer delivery: ${shown.join(' | ')}`,
    );
    seen.add(r.id);
    const versions = r.body.items.map((i) => i.version);
    for (const version of versions) {
      assert.ok(version >= newest, `versions went backwards: ${shown.join(' | ')}`);
      newest = version;
    }
  }
}

export function webhookFixture(h: Harness, receiver: Receiver) {
  const running: WebhookDelivery[] = [];
  let paths = 0;
  /** A delivery loop over the harness's store and executor unless given, stopped at `reset`. */
  const loop = (
    settings: Partial<DeliverySettings>,
    deps: Partial<DeliveryDeps> & { store?: Store; executor?: Executor },
  ) => {
    const delivery = new WebhookDelivery(
      { store: h.store, executor: h.executor, log: TEST_LOG, ...deps },
      { ...FAST, ...settings },
    );
    running.push(delivery);
    return delivery;
  };
  return {
    /** A delivery loop, started: it polls on its own. */
    deliver(
      settings: Partial<DeliverySettings> = {},
      deps: Partial<DeliveryDeps> & { store?: Store; executor?: Executor } = {},
    ): WebhookDelivery {
      const delivery = loop(settings, deps);
      delivery.start();
      return delivery;
    },
    /**
     * A delivery loop that does not poll: the test runs its rounds (`tick()`), so it renews its
     * leases only then (a loop that stalled). Once a subscription's task ends the loop polls.
     */
    idle(
      settings: Partial<DeliverySettings> = {},
      deps: Partial<DeliveryDeps> & { store?: Store; executor?: Executor } = {},
    ): WebhookDelivery {
      return loop(settings, deps);
    },
    /** Stops every loop and disables every subscription: the next test starts quiet. */
    async reset(): Promise<void> {
      await Promise.all(running.splice(0).map((d) => d.stop()));
      for (const { id } of await h.store.webhooks().listWebhooks())
        await h.store.webhooks().setWebhookState(id, 'disabled', new Date().toISOString());
    },
    /** A subscription of `token` to a fresh path of the receiver (or to `url`, its path kept). */
    async subscribe(token: string, types: string[] = [], url?: string): Promise<Subscribed> {
      const path = url === undefined ? `/hook${++paths}` : new URL(url).pathname;
      const made = await createWebhook(
        h.store,
        { token, url: url ?? `${receiver.base}${path}`, types, now: new Date() },
        { allowInsecure: true },
      );
      receiver.secretFor(path, made.secret);
      return { ...made, path, fromVersion: (await h.store.dataVersion()).version };
    },
    /** What the receiver got on `path`, in order. */
    at: (path: string): Received[] => receiver.received.filter((r) => r.path === path),
    /** Waits until subscription `id` has delivered everything through the current version. */
    async caughtUp(id: string, ms = 15_000): Promise<void> {
      const { version } = await h.store.dataVersion();
      await waitFor(async () => {
        const p = await h.store.webhooks().findProgress(id);
        return p !== null && p.pending === null && p.checkedVersion >= version;
      }, ms);
    },
  };
}

export type WebhookFixture = ReturnType<typeof webhookFixture> & { h: Harness; receiver: Receiver };

/**
 * A harness on `dialect` and a receiver for a describe block: started before its tests, loops
 * stopped and subscriptions disabled after each, closed after all.
 */
export function useWebhookFixture(dialect: Dialect): WebhookFixture {
  const fixture = {} as WebhookFixture;
  before(async () => {
    const h = await startHarness({ dialect });
    const receiver = await startReceiver();
    Object.assign(fixture, webhookFixture(h, receiver), { h, receiver });
  });
  afterEach(() => fixture.reset());
  after(async () => {
    await fixture.receiver.close();
    await fixture.h.close();
  });
  return fixture;
}
