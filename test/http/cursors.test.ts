import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PROVENANCE_GUIDANCE } from '../../src/provenance.js';
import { get, qs, startHarness, type Answer, type Harness, DIALECTS } from '../support/harness.js';

function assertInvalidCursor(answer: Answer, operationId: string) {
  assert.equal(answer.status, 200, answer.raw);
  assert.deepEqual(answer.body.data, {
    status: 'refused',
    code: 'invalid_cursor',
    message: {
      kind: 'vms.provenance',
      direction: 'outbound',
      trust: 'untrusted-third-party',
      guidance: PROVENANCE_GUIDANCE,
      source: { operationId, path: '$.message' },
      value: answer.body.data.message.value,
    },
  });
  assert.equal(typeof answer.body.data.message.value, 'string');
}

for (const dialect of DIALECTS) {
  describe(`cursors are bound to token, operation and order (${dialect})`, () => {
    let h: Harness;
    let cursor: string;
    before(async () => {
      h = await startHarness({ dialect });
      cursor = (await get(h.app, '/api/v1/timesheets?limit=3', h.tokens.staff)).body.data
        .nextCursor;
      assert.equal(typeof cursor, 'string');
    });
    after(() => h.close());

    it('continues for the token, operation and order it was issued to', async () => {
      const answer = await get(
        h.app,
        `/api/v1/timesheets${qs({ limit: 3, cursor })}`,
        h.tokens.staff,
      );
      assert.equal(answer.body.data.items.length, 3);
    });
    it('returns invalid_cursor for a cursor issued to another token', async () => {
      assertInvalidCursor(
        await get(h.app, `/api/v1/timesheets${qs({ cursor })}`, h.tokens.staff2),
        'list_timesheets',
      );
    });
    it('returns invalid_cursor for a cursor issued for another operation', async () => {
      assertInvalidCursor(
        await get(h.app, `/api/v1/workers${qs({ cursor })}`, h.tokens.staff),
        'list_workers',
      );
    });
    it('returns invalid_cursor for the other order', async () => {
      assertInvalidCursor(
        await get(h.app, `/api/v1/timesheets${qs({ cursor, order: 'desc' })}`, h.tokens.staff),
        'list_timesheets',
      );
    });
    it('returns invalid_cursor for a tampered cursor', async () => {
      const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
      assertInvalidCursor(
        await get(h.app, `/api/v1/timesheets${qs({ cursor: flipped })}`, h.tokens.staff),
        'list_timesheets',
      );
      assertInvalidCursor(
        await get(
          h.app,
          `/api/v1/timesheets${qs({ cursor: cursor.slice(0, -2) })}`,
          h.tokens.staff,
        ),
        'list_timesheets',
      );
    });
    it('returns invalid_cursor for garbage', async () => {
      for (const junk of ['x', '!!!', 'eyJ0IjoxfQ', 'a'.repeat(512)]) {
        assertInvalidCursor(
          await get(h.app, `/api/v1/timesheets${qs({ cursor: junk })}`, h.tokens.staff),
          'list_timesheets',
        );
      }
    });
    it('carries no readable data', () => {
      const text = Buffer.from(cursor, 'base64url').toString('latin1');
      assert.doesNotMatch(text, /ts_|\d{4}-\d{2}-\d{2}/);
      assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    });
  });
}
