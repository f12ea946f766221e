/**
 * How the delivery loop shares its slots out (src/webhooks/slots.ts): a bound per receiver (a
 * URL's host and port), a lane for retries, and a fair order (not retrying first, receivers in
 * turn, the subscription started longest ago first), so no receiver holds the others' deliveries.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseStarts,
  receiverOf,
  retrySlotsOf,
  type DueDelivery,
} from '../../src/webhooks/slots.js';

const LIMITS = { slots: 32, perReceiver: 4, retrySlots: 8 };

/** `n` due deliveries at `receiver`, ids `prefix0`…, in that order. */
const at = (receiver: string, n: number, prefix: string, more: Partial<DueDelivery> = {}) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    receiver,
    retrying: false,
    lastStarted: 0,
    ...more,
  }));

const ids = (chosen: DueDelivery[]) => chosen.map((d) => d.id);

describe('which due webhook deliveries start', () => {
  it('names a receiver by its host and port, whatever the path', () => {
    assert.equal(receiverOf('https://Hooks.Example.com/a?x=1'), 'hooks.example.com');
    assert.equal(receiverOf('https://hooks.example.com:443/b'), 'hooks.example.com');
    assert.equal(receiverOf('http://127.0.0.1:8080/c'), '127.0.0.1:8080');
    assert.notEqual(receiverOf('http://127.0.0.1:8080/'), receiverOf('http://127.0.0.1:8081/'));
    assert.equal(receiverOf('https://[::1]:9/'), '[::1]:9');
    assert.equal(retrySlotsOf(32), 8);
    assert.equal(retrySlotsOf(2), 1);
  });

  it('gives one receiver at most its bound, counting those under way, and the rest to others', () => {
    const due = [...at('dead:1', 40, 'd'), ...at('ok:1', 1, 'h')];
    const chosen = ids(chooseStarts(due, [], LIMITS));
    assert.equal(chosen.filter((id) => id.startsWith('d')).length, 4);
    assert.ok(chosen.includes('h0'), 'the healthy one starts in the same round');
    const running = at('dead:1', 4, 'r');
    assert.deepEqual(ids(chooseStarts(due, running, LIMITS)), ['h0']);
  });

  it('lets receivers take turns, so a healthy one is not the last of a crowd of dead ones', () => {
    const dead = Array.from({ length: 10 }, (_, r) => at(`dead:${r}`, 4, `d${r}.`)).flat();
    const chosen = ids(chooseStarts([...dead, ...at('ok:1', 1, 'h')], [], LIMITS));
    assert.ok(chosen.indexOf('h0') <= 10, `the healthy one among the first 11: ${chosen}`);
    assert.equal(chosen.length, 32, 'every slot is used');
  });

  it('keeps retries to their lane, after the deliveries that are not failing', () => {
    const retries = Array.from({ length: 20 }, (_, r) =>
      at(`failing:${r}`, 1, `f${r}.`, { retrying: true }),
    ).flat();
    const fresh = at('ok:1', 3, 'n');
    const chosen = ids(chooseStarts([...retries, ...fresh], [], LIMITS));
    assert.deepEqual(chosen.slice(0, 3), ['n0', 'n1', 'n2']);
    assert.equal(chosen.filter((id) => id.startsWith('f')).length, 8);
    // With the lane full, a retry waits even with slots free.
    const running = at('elsewhere', 8, 'r', { retrying: true });
    assert.deepEqual(ids(chooseStarts(retries, running, LIMITS)), []);
    assert.deepEqual(ids(chooseStarts(fresh, running, LIMITS)), ['n0', 'n1', 'n2']);
  });

  it('starts the subscription started longest ago first, and never more than the slots', () => {
    const due = [
      { id: 'recent', receiver: 'a', retrying: false, lastStarted: 300 },
      { id: 'never', receiver: 'b', retrying: false, lastStarted: 0 },
      { id: 'older', receiver: 'c', retrying: false, lastStarted: 100 },
    ];
    assert.deepEqual(ids(chooseStarts(due, [], LIMITS)), ['never', 'older', 'recent']);
    assert.deepEqual(ids(chooseStarts(due, at('x', 31, 'r'), LIMITS)), ['never']);
    assert.deepEqual(ids(chooseStarts(due, at('x', 32, 'r'), LIMITS)), []);
  });
});
