/**
 * A delivery's message (src/webhooks/message.ts), as a receiver checks it with the Standard
 * Webhooks library: the body is DESIGN §4.14's, the signature verifies under the subscription's
 * secret, and a changed body, another secret, a replayed old timestamp or a tampered id is
 * refused by the library.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { messageBody, signedHeaders } from '../../src/webhooks/message.js';

const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const other = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;

describe("a delivery's message", () => {
  const body = messageBody({
    subscription: 'whk_1',
    dataVersion: 7,
    items: [
      { type: 'invoice', id: 'inv_1', version: 7, record: null, removed: { reason: 'deleted' } },
    ],
    nextCursor: 'c',
  });

  it('is the documented body, signed as Standard Webhooks says', () => {
    assert.deepEqual(JSON.parse(body), {
      type: 'vms.changes',
      subscription: 'whk_1',
      dataVersion: 7,
      items: [
        { type: 'invoice', id: 'inv_1', version: 7, record: null, removed: { reason: 'deleted' } },
      ],
      nextCursor: 'c',
    });
    const now = new Date();
    const headers = signedHeaders(secret, 'msg_abc', body, now);
    assert.equal(headers['webhook-id'], 'msg_abc');
    assert.equal(headers['webhook-timestamp'], String(Math.floor(now.getTime() / 1000)));
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('is refused by the library when anything was changed or replayed late', () => {
    const headers = signedHeaders(secret, 'msg_abc', body, new Date());
    const refuses = (payload: string, h: Record<string, string>, key = secret) =>
      assert.throws(() => new Webhook(key).verify(payload, h));
    refuses(body.replace('"dataVersion":7', '"dataVersion":8'), headers);
    refuses(body, headers, other);
    refuses(body, { ...headers, 'webhook-id': 'msg_other' });
    const old = new Date(Date.now() - 60 * 60_000);
    refuses(body, signedHeaders(secret, 'msg_abc', body, old));
  });
});
