/**
 * No waiting on loads (DESIGN §4.16): on SQLite an import holds the database's write lock for as
 * long as it loads, and better-sqlite3 waits for a lock holding the whole server still. With the
 * lock held by another connection for the whole test, as an import holds it, registration,
 * sign-in, consent, the code exchange, a refresh, revocation and /healthz all answer, and the
 * server's own hourly sweep gives up at once rather than wait (it sweeps the next hour).
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { startHarness, type Harness } from '../support/harness.js';
import { personWith } from '../support/oauth-browser.js';
import { refreshRequest, revokeRequest, signIn } from '../support/oauth-flow.js';

describe('the built-in server while an import holds SQLite’s write lock', () => {
  let h: Harness;
  let base = '';
  let importer: Database.Database;
  before(async () => {
    h = await startHarness({ dialect: 'sqlite', oauthServer: true });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    // The authorization server's records exist before the lock is taken, as on a running server.
    await h.store.authorizationRecords().deleteExpiredOAuthRecords(Date.now());
    importer = new Database((h.store as SqliteStore).path);
    importer.exec('BEGIN IMMEDIATE');
    importer.prepare("UPDATE meta SET value = value WHERE key = 'data_version'").run();
  });
  after(async () => {
    if (importer.inTransaction) importer.exec('ROLLBACK');
    importer.close();
    await h.close();
  });

  it('registers, signs in, exchanges, refreshes and revokes without waiting for it', async () => {
    const { tokens, client } = await signIn(base, personWith({ key: h.tokens.staff }));
    const api = await fetch(`${base}/api/v1/workers?limit=1`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(api.status, 200);
    const refreshed = await refreshRequest(base, client, tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal(await revokeRequest(base, refreshed.body.refresh_token, client.client_id), 200);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.ok(importer.inTransaction, 'the lock was held throughout');
  });

  it('sweeps tombstones another time rather than wait for the lock', async () => {
    assert.equal(await h.store.sweepTombstones(30), 0);
    assert.ok(importer.inTransaction);
  });
});
