/**
 * One instance delivers a subscription at a time (DESIGN §4.14: "the next delivery goes after a
 * 2xx"; "with several instances one delivers each subscription at a time"), on both stores. Two
 * delivery loops over one database whose rounds the test runs (`tick`) on a clock it moves, so a
 * lease lapses without anyone waiting for it and a loop renews its leases only when the test says
 * (a loop that stalled, a store that refused its writes, a clock behind the other's):
 *
 * - a receiver slower than the lease: the instance whose try is under way keeps the subscription
 *   (the try's lease lasts its time limit and a lease more, and a renewal never shortens it), so the
 *   other sends nothing meanwhile, and the next delivery goes after the 2xx;
 * - an instance that stalled between claiming a try and sending it, past the try's time limit and
 *   its lease: the other takes over and delivers in order; the stalled one, when it resumes, sends
 *   nothing;
 * - a try is held only by the lease's holder, for the delivery waiting.
 *
 * Versions never go backwards at a receiver except for a retry of the same delivery id.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, WS, type Harness } from '../support/harness.js';
import { applyLoad } from '../support/random-loads.js';
import { assertInVersionOrder, useWebhookFixture } from '../support/webhook-fixture.js';

let serial = 0;
/** A load that changes one invoice (a new status each time): one new data version. */
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

/** The lease, in the test clock's ms: short, the clock moves past it at once. */
const LEASE_MS = 1000;
/** A try's time limit: long, so that no real timer ends a try the test holds. */
const TIME_LIMIT_MS = 60_000;

/** A pause the test decides the end of. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

for (const dialect of DIALECTS) {
  describe(`webhook leases: one instance delivers a subscription at a time (${dialect})`, () => {
    const w = useWebhookFixture(dialect);
    /** Both loops' clock (ms), moved by the test. */
    let clock = Date.now();
    const now = () => clock;
    let hooks = 0;
    /** A URL at the receiver by a host name, so each try asks the loop's `resolve` first. */
    const byName = () => `${w.receiver.base.replace('127.0.0.1', 'hooks.test')}/lease-${++hooks}`;
    const loopback = async () => ['127.0.0.1'];
    const settings = { leaseMs: LEASE_MS, timeoutMs: TIME_LIMIT_MS, resolve: loopback };

    it('a receiver slower than the lease: the other instance sends nothing while the try waits', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['invoice'], byName());
      const answer = gate();
      w.receiver.script(sub.path, { status: 204, after: answer.opened });
      try {
        const one = w.idle(settings, { now });
        const other = w.idle(settings, { now });
        await invoiceLoad(w.h);
        await one.tick();
        const trying = one.delivering(sub.id);
        assert.ok(trying, 'the first instance delivers it');
        await w.receiver.until(() => w.at(sub.path).length === 1);
        // Its loop renews its leases once, then stalls while the receiver takes twice the lease.
        clock += LEASE_MS / 2;
        await one.tick();
        clock += 2 * LEASE_MS;
        await invoiceLoad(w.h);
        await other.tick();
        await other.delivering(sub.id);
        assert.equal(
          w.at(sub.path).length,
          1,
          'nothing sent by the other instance while the try was under way',
        );
        answer.open();
        await trying;
        await w.caughtUp(sub.id);
        const got = w.at(sub.path);
        assert.equal(got.length, 2, 'the next delivery after the 2xx, by the same instance');
        assertInVersionOrder(got);
      } finally {
        answer.open();
      }
    });

    it('an instance that stalled past its lease before sending sends nothing when it resumes', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['invoice'], byName());
      const stall = gate();
      const sending = gate();
      const resolveAfterStall = async () => {
        sending.open();
        await stall.opened;
        return ['127.0.0.1'];
      };
      try {
        const stalled = w.idle({ ...settings, resolve: resolveAfterStall }, { now });
        const other = w.idle(settings, { now });
        await invoiceLoad(w.h);
        await stalled.tick();
        const trying = stalled.delivering(sub.id);
        assert.ok(trying, 'the first instance delivers it');
        // Its try is claimed and about to connect; it stalls past the time limit and the lease.
        await sending.opened;
        clock += TIME_LIMIT_MS + 2 * LEASE_MS;
        await invoiceLoad(w.h);
        await other.tick();
        const takeover = other.delivering(sub.id);
        assert.ok(takeover, 'the other instance takes over once the lease lapsed');
        await takeover;
        await w.caughtUp(sub.id);
        const delivered = w.at(sub.path).length;
        assert.equal(delivered, 2, "the stalled instance's delivery, then the next");
        stall.open();
        await trying;
        assert.equal(
          w.at(sub.path).length,
          delivered,
          'nothing sent by the instance that lost its lease, after it lost it',
        );
        assertInVersionOrder(w.at(sub.path));
      } finally {
        stall.open();
      }
    });

    it('holds a try only for the lease holder and the delivery waiting, and never shortens it', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['invoice']);
      const records = w.h.store.webhookDelivery();
      const at = Date.now();
      await records.startProgress(sub.id, [sub.fromVersion + 1, '', '', 0]);
      assert.ok(await records.claim(sub.id, 'dlv_one', at, LEASE_MS));
      const { version } = await w.h.store.dataVersion();
      const pending = {
        messageId: 'msg_lease',
        body: '{}',
        dataVersion: version,
        nextPosition: [version + 1, 'invoice', 'inv_x', 0] as const,
        items: 1,
        attempts: 0,
        pendingSince: at,
        firstFailedAt: null,
        nextAttemptAt: at,
      };
      assert.ok(await records.setPending(sub.id, 'dlv_one', pending, version));
      const until = at + TIME_LIMIT_MS + LEASE_MS;
      assert.equal(await records.holdForTry(sub.id, 'dlv_other', 'msg_lease', until), false);
      assert.equal(await records.holdForTry(sub.id, 'dlv_one', 'msg_older', until), false);
      assert.equal(await records.holdForTry(sub.id, 'dlv_one', 'msg_lease', until), true);
      assert.equal((await records.findProgress(sub.id))?.leaseUntil, until);
      // A renewal lengthens a lease; the try's, longer, stays.
      await records.renewLeases('dlv_one', at + LEASE_MS, LEASE_MS);
      assert.equal((await records.findProgress(sub.id))?.leaseUntil, until);
      await records.renewLeases('dlv_one', until, LEASE_MS);
      assert.equal((await records.findProgress(sub.id))?.leaseUntil, until + LEASE_MS);
      // Until it lapses, no one else claims it.
      assert.equal(await records.claim(sub.id, 'dlv_other', until, LEASE_MS), false);
      await records.forget(sub.id);
    });
  });
}
