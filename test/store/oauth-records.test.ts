/**
 * What the built-in authorization server keeps in the database (src/store/sql/oauth-records.ts):
 * found while unexpired, consumed for good, revoked by grant, swept once expired; and its keys,
 * made once and shared by every instance over one database. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serverKeys } from '../../src/oauth-server/server-keys.js';
import { openStore } from '../../src/store/open-store.js';
import type { OAuthRecords } from '../../src/store/sql/oauth-records.js';
import type { Store } from '../../src/store/store.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');

for (const dialect of DIALECTS)
  describe(`authorization records (${dialect})`, () => {
    let db: TestDatabase;
    let records: OAuthRecords;
    const save = (
      id: string,
      fields: { grantId?: string; expiresAt?: number | null; uid?: string },
    ) =>
      records.saveOAuthRecord({
        model: 'RefreshToken',
        id,
        payload: { jti: id, kind: 'RefreshToken' },
        grantId: fields.grantId ?? null,
        uid: fields.uid ?? null,
        expiresAt: fields.expiresAt === undefined ? NOW + 60_000 : fields.expiresAt,
      });
    before(async () => {
      db = await openTestDatabase(dialect);
      records = db.store.authorizationRecords();
    });
    after(() => db.drop());

    it('finds a record while it has not expired, and by its uid', async () => {
      await save('a', { uid: 'u-a' });
      await save('b', { expiresAt: NOW - 1 });
      await save('c', { expiresAt: null });
      assert.deepEqual((await records.findOAuthRecord('RefreshToken', 'a', NOW))?.payload, {
        jti: 'a',
        kind: 'RefreshToken',
      });
      assert.equal(await records.findOAuthRecord('RefreshToken', 'b', NOW), null);
      assert.ok(await records.findOAuthRecord('RefreshToken', 'c', NOW + 1e12));
      assert.equal((await records.findOAuthRecordByUid('RefreshToken', 'u-a', NOW))?.id, 'a');
      assert.equal(await records.findOAuthRecord('Session', 'a', NOW), null, 'per model');
    });

    it('keeps a record consumed when it is saved again', async () => {
      await save('d', {});
      await records.consumeOAuthRecord('RefreshToken', 'd', NOW);
      await save('d', {});
      assert.equal((await records.findOAuthRecord('RefreshToken', 'd', NOW))?.consumedAt, NOW);
    });

    it('removes every record of a grant, and only those', async () => {
      await save('e1', { grantId: 'g1' });
      await save('e2', { grantId: 'g1' });
      await save('f', { grantId: 'g2' });
      await records.revokeOAuthGrant('g1');
      assert.equal(await records.findOAuthRecord('RefreshToken', 'e1', NOW), null);
      assert.equal(await records.findOAuthRecord('RefreshToken', 'e2', NOW), null);
      assert.ok(await records.findOAuthRecord('RefreshToken', 'f', NOW));
    });

    it('sweeps expired records and keeps the rest', async () => {
      await save('g', { expiresAt: NOW - 5 });
      const removed = await records.deleteExpiredOAuthRecords(NOW);
      assert.ok(removed >= 2, String(removed)); // b and g
      assert.ok(await records.findOAuthRecord('RefreshToken', 'a', NOW));
      assert.ok(await records.findOAuthRecord('RefreshToken', 'c', NOW));
    });

    it('makes the signing keys once: every instance over the database gets the same', async () => {
      const stores: Store[] = [];
      for (let i = 0; i < 4; i++) stores.push(await openStore(db.db));
      try {
        const keys = await Promise.all(stores.map((store) => serverKeys(store)));
        const kids = new Set(keys.map((k) => k.signing.keys[0].kid));
        assert.equal(kids.size, 1);
        assert.equal(new Set(keys.map((k) => k.cookies[0])).size, 1);
        assert.equal(keys[0].signing.keys[0].kty, 'EC');
        assert.ok(keys[0].signing.keys[0].d, 'the private part is kept, with the data');
      } finally {
        for (const store of stores) await store.close();
      }
    });
  });
