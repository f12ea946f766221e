/**
 * StoreTurns (issue 56): at most `concurrency` operations at once, and a freed turn goes round
 * the clients that wait, each client's oldest first, so one client's flood delays another's
 * request by one operation, not by the flood. A waiter past its deadline leaves unstarted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monotonicNow } from '../../src/deadline.js';
import { StoreTurns } from '../../src/operations/store-turns.js';

/** Work the test ends when it chooses, recording when it started. */
function held(started: string[], name: string) {
  let release = () => {};
  const done = new Promise<string>((resolve) => (release = () => resolve(name)));
  return {
    work: () => {
      started.push(name);
      return done;
    },
    release: () => release(),
  };
}

const late = () => new Error('late');

describe('StoreTurns: turns at the store shared between clients', () => {
  it('gives a freed turn to the next client that waits, not to the flood ahead of it', async () => {
    const turns = new StoreTurns(1);
    const started: string[] = [];
    const deadline = monotonicNow() + 60_000;
    const flood = Array.from({ length: 5 }, (_, i) => held(started, `a${i}`));
    const answers = flood.map((op) => turns.run('a', deadline, late, op.work));
    const other = held(started, 'b0');
    const answer = turns.run('b', deadline, late, other.work);
    assert.deepEqual(turns.state(), { running: 1, waiting: 5 });
    flood[0].release();
    await answers[0];
    // b waited for one of a's operations, then had the turn; a's next waits for b's.
    assert.deepEqual(started, ['a0', 'b0']);
    other.release();
    assert.equal(await answer, 'b0');
    for (const op of flood.slice(1)) op.release();
    assert.deepEqual(await Promise.all(answers), ['a0', 'a1', 'a2', 'a3', 'a4']);
    assert.deepEqual(started, ['a0', 'b0', 'a1', 'a2', 'a3', 'a4']);
    assert.deepEqual(turns.state(), { running: 0, waiting: 0 });
  });

  it('goes round three clients in turn, each client oldest first', async () => {
    const turns = new StoreTurns(1);
    const started: string[] = [];
    const deadline = monotonicNow() + 60_000;
    const first = held(started, 'x');
    const running = turns.run('x', deadline, late, first.work);
    const ops = ['a1', 'a2', 'b1', 'c1', 'b2', 'c2'].map((name) => ({
      name,
      op: held(started, name),
    }));
    const answers = ops.map(({ name, op }) => turns.run(name[0], deadline, late, op.work));
    first.release();
    await running;
    for (const { op } of ops) {
      op.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(answers);
    assert.deepEqual(started, ['x', 'a1', 'b1', 'c1', 'a2', 'b2', 'c2']);
  });

  it('lets a waiter past its deadline leave with late(), its work never started, and keeps the turns', async () => {
    const turns = new StoreTurns(1);
    const started: string[] = [];
    const holder = held(started, 'holder');
    const running = turns.run('a', monotonicNow() + 60_000, late, holder.work);
    const never = held(started, 'never');
    await assert.rejects(turns.run('b', monotonicNow() + 20, late, never.work), /late/);
    assert.deepEqual(turns.state(), { running: 1, waiting: 0 });
    holder.release();
    await running;
    assert.deepEqual(started, ['holder']);
    assert.equal(await turns.run('b', monotonicNow() + 1000, late, async () => 'next'), 'next');
  });

  it('frees the turn when the work fails', async () => {
    const turns = new StoreTurns(1);
    const deadline = monotonicNow() + 1000;
    await assert.rejects(
      turns.run('a', deadline, late, () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await turns.run('a', deadline, late, async () => 'ok'), 'ok');
  });
});
