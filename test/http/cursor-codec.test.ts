/**
 * The cursor codec (src/paging/cursor.ts) on its own: its keys made once and its IVs drawn from a
 * pool of random bytes. Every cursor carries an IV of its own, past many refills of the pool; a
 * cursor decodes in another codec of the same secret (a restarted server, another instance) and
 * in none of another secret; tampering with any byte is caught.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { createCursorCodec } from '../../src/paging/cursor.js';

const MAC_BYTES = 16;
const IV_BYTES = 12;
const ivOf = (cursor: string) =>
  Buffer.from(cursor, 'base64url')
    .subarray(MAC_BYTES, MAC_BYTES + IV_BYTES)
    .toString('hex');

it('gives every cursor an IV of its own, past many refills of the pool', () => {
  const codec = createCursorCodec('one secret');
  const ivs = new Set<string>();
  const count = 5_000; // 60,000 bytes of IVs: the 4,096-byte pool refilled 14 times
  for (let i = 0; i < count; i++) ivs.add(ivOf(codec.encode('binding', { after: 'same' })));
  assert.equal(ivs.size, count);
});

it('round-trips any payload, in another codec of the same secret and in no other', () => {
  const codec = createCursorCodec('the secret');
  const again = createCursorCodec('the secret');
  const other = createCursorCodec('another secret');
  fc.assert(
    fc.property(fc.jsonValue(), fc.string(), (payload, binding) => {
      const cursor = codec.encode(binding, payload);
      const expected = JSON.parse(JSON.stringify(payload)) as unknown;
      assert.deepEqual(codec.decode(binding, cursor), expected);
      assert.deepEqual(again.decode(binding, cursor), expected);
      assert.equal(other.decode(binding, cursor), null);
      assert.equal(codec.decode(`${binding}x`, cursor), null);
    }),
    { numRuns: 300 },
  );
});

it('refuses a cursor with any one byte changed', () => {
  const codec = createCursorCodec('the secret');
  const cursor = codec.encode('binding', { after: ['2026-01-01', 'wkr_1'] });
  const raw = Buffer.from(cursor, 'base64url');
  for (let i = 0; i < raw.length; i++) {
    const changed = Buffer.from(raw);
    changed[i] ^= 0x01;
    assert.equal(codec.decode('binding', changed.toString('base64url')), null, `byte ${i}`);
  }
});
