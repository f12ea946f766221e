import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  RESULT_CACHE_BYTES,
  ResultCache,
  SEEN_KEYS,
  jsonSize,
} from '../../src/operations/result-cache.js';

/** A full collection, then the bytes the heap holds. */
function heapAfterCollection(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const answer = (n: number, text = 'x') => ({
  items: Array.from({ length: n }, (_, i) => ({ i, text })),
});

describe('ResultCache', () => {
  it('keeps a first answer at once, or from its second request with admitOnSecond', async () => {
    let runs = 0;
    const run = async () => (runs++, answer(3));
    const eager = new ResultCache<unknown>();
    await eager.get('k', run);
    await eager.get('k', run);
    assert.equal(runs, 1);
    runs = 0;
    const careful = new ResultCache<unknown>(true, true);
    for (let i = 0; i < 3; i++) await careful.get('k', run);
    assert.equal(runs, 2, 'run twice, then answered from the cache');
    assert.equal(careful.hits, 1);
  });

  it('runs identical requests that arrive together once, and keeps no failure', async () => {
    const cache = new ResultCache<unknown>();
    let runs = 0;
    const slow = () => new Promise((resolve) => setTimeout(() => resolve((runs++, 1)), 10));
    await Promise.all([cache.get('k', slow), cache.get('k', slow), cache.get('k', slow)]);
    assert.equal(runs, 1);
    await assert.rejects(cache.get('bad', () => Promise.reject(new Error('no'))));
    assert.equal(await cache.get('bad', async () => 'ok'), 'ok');
  });

  it('stays within its size and never keeps an answer over a sixteenth of it', async () => {
    const cache = new ResultCache<unknown>();
    const big = answer(1, 'y'.repeat(RESULT_CACHE_BYTES / 8));
    await cache.get('big', async () => big);
    assert.equal(cache.size, 0);
    const piece = answer(1, 'z'.repeat(RESULT_CACHE_BYTES / 32));
    for (let i = 0; i < 100; i++) await cache.get(`k${i}`, async () => piece);
    assert.ok(cache.size <= 32, `holds ${cache.size}`);
    assert.ok(cache.size >= 16, `holds ${cache.size}`);
  });

  it('is off when disabled', async () => {
    const cache = new ResultCache<unknown>(false);
    let runs = 0;
    for (let i = 0; i < 3; i++) await cache.get('k', async () => runs++);
    assert.equal(runs, 3);
    assert.equal(cache.peek('k'), undefined);
  });

  it('sizes an answer within a tenth of its JSON text', () => {
    for (const value of [
      answer(200, 'Ünïcode ‮ text'),
      answer(5),
      answer(3, '"quoted"'),
      { a: null, b: [1, true, 'q'] },
      { rows: [{ spend: '123456.78', n: 1234567 }] },
    ]) {
      const exact = JSON.stringify(value).length;
      const ratio = jsonSize(value) / exact;
      assert.ok(ratio > 0.9 && ratio < 1.1, `${jsonSize(value)} vs ${exact}`);
    }
  });

  it('holds a key in a fixed size, however long the request it names', async () => {
    // Report bodies run to kilobytes (a hundred filter values); each request's key names its
    // whole input. Ten thousand of them (the keys seen once) held as text took 24 MB here.
    const cache = new ResultCache<unknown>(true, true);
    const body = 'v'.repeat(2048);
    // Keys are JSON text, as the executor writes them: each a string of its own.
    const key = (i: number) => JSON.stringify([i, body]);
    const before = heapAfterCollection();
    for (let i = 0; i < SEEN_KEYS; i++) await cache.get(key(i), async () => i);
    const held = heapAfterCollection() - before;
    assert.ok(held < 5 * 1024 * 1024, `${(held / 2 ** 20).toFixed(1)} MB held for the keys`);
    // And they still do their work: the second request of a key is kept, the third a hit.
    await cache.get(key(SEEN_KEYS - 1), async () => 'again');
    assert.equal(await cache.get(key(SEEN_KEYS - 1), async () => 'not run'), 'again');
  });
});
