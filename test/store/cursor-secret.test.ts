/**
 * The cursor secret generated when VMS_READ_SECRET is unset: instances starting together on a
 * new database must agree on it (the first write wins, atomically), or a cursor issued by one is
 * `invalid_cursor` on another.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolveSecret } from '../../src/service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

for (const dialect of DIALECTS)
  describe(`the generated cursor secret (${dialect})`, () => {
    let db: TestDatabase;
    const stores: Store[] = [];
    before(async () => {
      db = await openTestDatabase(dialect);
      await db.store.run("DELETE FROM meta WHERE key = 'cursor_secret'");
      // Eight instances, each with connections of its own.
      for (let i = 0; i < 8; i++) stores.push(await openStore(db.db));
    });
    after(async () => {
      for (const store of stores) await store.close();
      await db.drop();
    });

    it('is the same for every instance that starts at once: the first write wins', async () => {
      const secrets = await Promise.all(stores.map((store) => resolveSecret(store)));
      assert.equal(new Set(secrets).size, 1, 'one secret');
      assert.equal(await db.store.getMeta('cursor_secret'), secrets[0]);
      assert.ok(secrets[0].length >= 32);
    });

    it('is the configured one when VMS_READ_SECRET is set, and leaves the stored one alone', async () => {
      const stored = await db.store.getMeta('cursor_secret');
      const configured = 'a-configured-secret-of-forty-characters!';
      assert.equal(await resolveSecret(stores[0], configured), configured);
      assert.equal(await db.store.getMeta('cursor_secret'), stored);
    });
  });
