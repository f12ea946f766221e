/**
 * Erasure reaches every place that can hold a worker's text (DESIGN §4.13, "On the open
 * internet"), on both stores: a webhook delivery waiting to be sent that names the worker is
 * dropped (to be built again, erased), and nothing of its old body, nor of what the receiver
 * answered, is left in the files of the tables that held them (on PostgreSQL each of those tables
 * is rewritten, dead rows and all; on SQLite freed space is zeroed and the write-ahead log
 * truncated); the built-in authorization server's records that hold the worker's name or email
 * (an email given as a sign-in's `login_hint`) go too. Each check first finds the text where it
 * was, so it cannot pass by looking in the wrong place.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { eraseWorker } from '../../src/admin/erase.js';
import { webhookDeliveries } from '../../src/admin/webhooks.js';
import { DIALECTS, WS } from '../support/harness.js';
import { holding, tableFiles } from '../support/store-files.js';
import { useWebhookFixture, waitFor } from '../support/webhook-fixture.js';
import { renameWorker } from '../support/worker-names.js';

/** The tables that can hold a worker's name or email. */
const HOLDING = ['workers', 'webhook_progress', 'webhook_attempts', 'oauth_records'];

for (const dialect of DIALECTS) {
  describe(`erasure and what webhooks and sign-ins kept (${dialect})`, () => {
    const w = useWebhookFixture(dialect);
    const files = (tables = HOLDING) => tableFiles(dialect, w.h.db, tables);

    it("leaves nothing of a waiting delivery's body, nor of the receiver's answer, in the files", async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['worker']);
      // Refused with an echo of what it was sent; tried again only in a minute.
      w.receiver.script(sub.path, { status: 503, echo: true });
      w.deliver({ retryMs: 60_000 });
      const worker = await renameWorker(w.h, 7, randomBytes(6).toString('hex'));
      await w.receiver.until(() => w.at(sub.path).length === 1);
      await waitFor(async () => (await webhookDeliveries(w.h.store, sub.id, 1)).length === 1);
      assert.ok(w.at(sub.path)[0].answer.includes(worker.name), 'the receiver echoed the name');
      // The loop stops, so that what the files hold is the erasure's doing alone.
      await w.reset();
      const [waiting] = await w.h.all<{ body: string | null }>(
        'SELECT body FROM webhook_progress WHERE subscription_id = ?',
        sub.id,
      );
      assert.ok(waiting.body?.includes(worker.name), 'the waiting delivery names the worker');
      assert.ok(
        holding(await files(['webhook_progress']), worker.name).length > 0,
        'the body is in the files before',
      );

      await eraseWorker(w.h.store, WS, worker.id);
      const [dropped] = await w.h.all<{ body: string | null; message_id: string | null }>(
        'SELECT body, message_id FROM webhook_progress WHERE subscription_id = ?',
        sub.id,
      );
      assert.deepEqual(dropped, { body: null, message_id: null }, 'the waiting delivery dropped');
      const after = await files();
      for (const text of [worker.name, worker.email])
        assert.deepEqual(holding(after, text), [], `${text} left in the files`);
    });

    // A writer between two statements (a server's trail or webhook loop, an import) has a
    // transaction id older than the erasure's and no snapshot (backend_xmin is empty); in another
    // database of the cluster it still counts, for every snapshot taken while it runs lists it.
    if (dialect === 'postgres')
      for (const where of ['this database', 'another database of the cluster'])
        it(`waits for a transaction begun before it that wrote, in ${where}`, async () => {
          const worker = await renameWorker(w.h, 11, randomBytes(6).toString('hex'));
          const url = new URL(w.h.db);
          if (where !== 'this database') url.pathname = '/postgres';
          const writer = new pg.Client({ connectionString: url.toString() });
          await writer.connect();
          try {
            await writer.query('BEGIN');
            await writer.query('SELECT pg_current_xact_id()');
            let erased = false;
            const erasing = eraseWorker(w.h.store, WS, worker.id).then(() => (erased = true));
            await new Promise((resolve) => setTimeout(resolve, 700));
            assert.equal(erased, false, 'the erasure waits for the older transaction');
            await writer.query('COMMIT');
            await erasing;
          } finally {
            await writer.end();
          }
          const after = await files(['workers']);
          for (const text of [worker.name, worker.email])
            assert.deepEqual(holding(after, text), [], `${text} left in the files`);
        });

    it("removes the authorization server's records that hold the worker's name or email", async () => {
      const worker = await renameWorker(w.h, 9, randomBytes(6).toString('hex'));
      const records = w.h.store.authorizationRecords();
      const interaction = (id: string, hint: string) =>
        records.saveOAuthRecord({
          model: 'Interaction',
          id,
          payload: { kind: 'Interaction', jti: id, params: { client_id: 'c1', login_hint: hint } },
          grantId: null,
          uid: id,
          expiresAt: Date.now() + 3_600_000,
        });
      await interaction('by-email', worker.email);
      await interaction('by-name', worker.name);
      await interaction('another', 'someone.else@example.com');
      assert.ok(holding(await files(['oauth_records']), worker.email).length > 0, 'in the files');

      await eraseWorker(w.h.store, WS, worker.id);
      const now = Date.now();
      assert.equal(await records.findOAuthRecord('Interaction', 'by-email', now), null);
      assert.equal(await records.findOAuthRecord('Interaction', 'by-name', now), null);
      assert.ok(await records.findOAuthRecord('Interaction', 'another', now), 'others stay');
      const after = await files();
      for (const text of [worker.name, worker.email])
        assert.deepEqual(holding(after, text), [], `${text} left in the files`);
    });
  });
}
