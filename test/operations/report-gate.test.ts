import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monotonicNow } from '../../src/deadline.js';
import { ApiError, ReportTimeoutError } from '../../src/errors.js';
import { ReportGate } from '../../src/operations/report-gate.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Work the test ends when it chooses: what happens meanwhile does not depend on the machine's speed. */
function held() {
  let release = () => {};
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => done, release };
}

describe('ReportGate: report admission with bounded concurrency and waiting', () => {
  it('runs at most `concurrency` at once and hands each freed slot to the next waiter', async () => {
    const gate = new ReportGate(2, 10);
    let running = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++running);
      await sleep(20);
      running--;
      return 'done';
    };
    const deadline = monotonicNow() + 5000;
    const results = await Promise.all(Array.from({ length: 7 }, () => gate.run(deadline, work)));
    assert.deepEqual(results, Array(7).fill('done'));
    assert.equal(most, 2);
  });

  it('answers 503 report_capacity (unavailable) at once past the waiting bound', async () => {
    const gate = new ReportGate(1, 2);
    const deadline = monotonicNow() + 60_000;
    const hold = held();
    const admitted = [1, 2, 3].map(() => gate.run(deadline, hold.work));
    // Refused while every admitted one is still held: it did not wait for a turn.
    await assert.rejects(gate.run(deadline, hold.work), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'report_capacity');
      assert.equal(error.headers['retry-after'], '1');
      return true;
    });
    hold.release();
    await Promise.all(admitted);
  });

  it('counts waiting against the deadline: a waiter past it leaves with ReportTimeoutError', async () => {
    const gate = new ReportGate(1, 10);
    const start = monotonicNow();
    const hold = held();
    const holder = gate.run(start + 60_000, hold.work);
    // It leaves at its own deadline while the holder still holds the turn, never before it.
    await assert.rejects(
      gate.run(start + 50, async () => 'never'),
      ReportTimeoutError,
    );
    assert.ok(monotonicNow() >= start + 50, 'not before its deadline');
    hold.release();
    await holder;
    // The timed-out waiter gave up its place: the gate still admits.
    assert.equal(await gate.run(monotonicNow() + 1000, async () => 'next'), 'next');
  });

  it('gives the work only the time left before the deadline', async () => {
    const gate = new ReportGate(1, 1);
    const deadline = monotonicNow() + 300;
    const remaining = await gate.run(deadline, async (ms) => ms);
    assert.ok(remaining > 0 && remaining <= 300);
    await assert.rejects(
      gate.run(monotonicNow() - 1, async () => 'late'),
      ReportTimeoutError,
    );
  });

  it('frees the slot when the work fails', async () => {
    const gate = new ReportGate(1, 0);
    const deadline = monotonicNow() + 1000;
    await assert.rejects(
      gate.run(deadline, () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await gate.run(deadline, async () => 'ok'), 'ok');
  });
});
