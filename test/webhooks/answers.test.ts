/**
 * What receivers answered is kept without record text (DESIGN §4.13, §4.14): a receiver may echo
 * the body it was sent, names included, so the attempt log keeps an answer's status, how long the
 * try took and the answer's size, never its text; `webhook deliveries` prints that, before an
 * erasure and after. A database from before (whose log kept a refusal's first 200 characters)
 * loses that text to schema version 10. On both stores.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eraseWorker } from '../../src/admin/erase.js';
import { webhookDeliveries } from '../../src/admin/webhooks.js';
import { createTableSql } from '../../src/store/dialect.js';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.js';
import { WEBHOOK_ATTEMPTS_TABLE } from '../../src/store/sql/webhook-delivery-tables.js';
import { runCli } from '../support/cli.js';
import { DIALECTS, WS } from '../support/harness.js';
import { holding, tableFiles } from '../support/store-files.js';
import { factTablesAgain, openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { useWebhookFixture } from '../support/webhook-fixture.js';
import { renameWorker } from '../support/worker-names.js';

for (const dialect of DIALECTS) {
  describe(`what a webhook receiver answered (${dialect})`, () => {
    const w = useWebhookFixture(dialect);

    it('keeps the status, time and size of each answer, never its text, before an erasure and after', async () => {
      const sub = await w.subscribe(w.h.tokens.staff, ['worker']);
      // A refusal, then an acknowledgement, each quoting the record it was sent.
      w.receiver.script(sub.path, { status: 422, echo: true }, { status: 200, echo: true });
      w.deliver();
      const worker = await renameWorker(w.h, 5, randomBytes(6).toString('hex'));
      await w.caughtUp(sub.id);
      const got = w.at(sub.path);
      assert.equal(got.length, 2);
      for (const r of got)
        assert.ok(r.answer.includes(worker.name), 'the receiver echoed the name');

      const attempts = await webhookDeliveries(w.h.store, sub.id, 10);
      assert.deepEqual(
        attempts.map((a) => [a.outcome, a.status, a.answerBytes, a.error]),
        [
          ['delivered', 200, Buffer.byteLength(got[1].answer), null],
          ['retry', 422, Buffer.byteLength(got[0].answer), null],
        ],
      );
      const stored = await w.h.all(
        'SELECT * FROM webhook_attempts WHERE subscription_id = ?',
        sub.id,
      );
      assert.equal(stored.length, 2);
      assert.ok(!JSON.stringify(stored).includes(worker.name), 'the log holds no answer text');

      const shown = () => {
        const text = runCli(['webhook', 'deliveries', '--db', w.h.db, '--id', sub.id]);
        const json = runCli(['webhook', 'deliveries', '--db', w.h.db, '--id', sub.id, '--json']);
        assert.equal(text.status, 0, text.stderr);
        assert.equal(json.status, 0, json.stderr);
        return { text: text.stdout, json: json.stdout };
      };
      const before = shown();
      const lines = before.text.split('\n').filter(Boolean).slice(1);
      assert.match(
        lines[0],
        new RegExp(`^\\S+\\tdelivered\\t200\\t${attempts[0].answerBytes}\\t\\d+\\tmsg_\\S+\\t$`),
      );
      assert.match(
        lines[1],
        new RegExp(`^\\S+\\tretry\\t422\\t${attempts[1].answerBytes}\\t\\d+\\tmsg_\\S+\\t$`),
      );
      assert.deepEqual(JSON.parse(before.json), attempts);

      await eraseWorker(w.h.store, WS, worker.id);
      const afterErasure = shown();
      for (const output of [before.text, before.json, afterErasure.text, afterErasure.json])
        for (const text of [worker.name, worker.email])
          assert.ok(!output.includes(text), `webhook deliveries shows ${text}`);
    });
  });

  describe(`schema version 10: no answer text kept from before (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect, false);
    });
    after(() => db.drop());

    it("drops the text of receivers' answers from an older log, and keeps the rest", async () => {
      const version =
        MIGRATIONS.findIndex((m) => m.tables.includes(WEBHOOK_ATTEMPTS_TABLE) && m.before) + 1;
      assert.ok(version > 0, 'a migration rebuilds the attempt log');
      // The log as the version before left it: a refusal's first words kept in `error`.
      const columns = Object.fromEntries(
        Object.entries(WEBHOOK_ATTEMPTS_TABLE.columns).filter(([c]) => c !== 'answer_bytes'),
      );
      const older = { ...WEBHOOK_ATTEMPTS_TABLE, columns, indexes: {} };
      await db.store.run('DROP TABLE webhook_attempts');
      await db.store.run(
        createTableSql(dialect === 'sqlite' ? sqliteDialect : postgresDialect, older),
      );
      const said = `Quintessa Echoed ${randomBytes(6).toString('hex')}`;
      const insert = `INSERT INTO webhook_attempts (subscription_id, message_id, attempt, at, data_version, items, status, error, ms, outcome)
        VALUES (?, ?, ?, ?, 7, 1, ?, ?, 12, ?)`;
      await db.store.run(insert, ['whk_a', 'msg_1', 1, 1000, 422, `refused: ${said}`, 'retry']);
      await db.store.run(insert, [
        'whk_a',
        'msg_1',
        2,
        2000,
        null,
        'ECONNREFUSED: connect ECONNREFUSED 10.0.0.9:443',
        'retry',
      ]);
      await db.store.run(insert, ['whk_a', 'msg_1', 3, 3000, 204, null, 'delivered']);
      await db.store.run(
        dialect === 'sqlite'
          ? `PRAGMA user_version = ${version - 1}`
          : `DELETE FROM schema_version WHERE version >= ${version}`,
      );
      // What later versions made, made again by the migration (PostgreSQL's access trail; the
      // report facts, tables again until version 18).
      for (const table of [
        'audit_reveals',
        'audit_minutes',
        'audit_sets',
        'audit_set_workers',
        'audit_events',
        'audit_chains',
      ])
        await db.store.run(`DROP TABLE IF EXISTS ${table}`);
      for (const sql of factTablesAgain(db.store.dialect)) await db.store.run(sql);
      const files = await tableFiles(dialect, db.db, ['webhook_attempts']);
      if (dialect === 'postgres')
        assert.ok(holding(files, said).length > 0, 'the text is in the files before');

      await db.store.migrate();
      const rows = await db.all<Record<string, unknown>>(
        'SELECT attempt, status, error, answer_bytes FROM webhook_attempts ORDER BY attempt',
      );
      assert.deepEqual(
        rows.map((r) => [
          Number(r.attempt),
          r.status === null ? null : Number(r.status),
          r.error,
          r.answer_bytes,
        ]),
        [
          [1, 422, null, null],
          [2, null, 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.9:443', null],
          [3, 204, null, null],
        ],
      );
      // On PostgreSQL the old table went with its files.
      if (dialect === 'postgres') {
        const now = [...files, ...(await tableFiles(dialect, db.db, ['webhook_attempts']))];
        assert.deepEqual(holding(now, said), [], 'the text is left in the files');
      }
    });
  });
}
