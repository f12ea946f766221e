/**
 * docs/api.md's receiver (`receiver.mjs`), run as written against `vms-read serve`, on both
 * stores: an integrator follows the program by webhooks alone. The subscription is made and the
 * changes imported with the CLI; while the receiver is down the delivery is retried; the server
 * is killed (-9) in the middle of those retries and started again, and the same delivery (the
 * same webhook-id) reaches the receiver once it is up, verified by the Standard Webhooks library;
 * a deletion then arrives as a tombstone.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { exitOf, freePort, runCli, staffKeyByCli, startServer } from '../support/cli.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { waitFor } from '../support/webhook-fixture.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RECEIVER = /```js title="receiver\.mjs"\n([\s\S]*?)```/;
const WS = 'ws_business';
/** Quick retries, and a short lease: the killed server's claim lapses after 2 s. */
const SERVER_ENV = {
  VMS_READ_WEBHOOK_ALLOW_INSECURE: '1',
  VMS_READ_WEBHOOK_RETRY_MS: '200',
  VMS_READ_WEBHOOK_LEASE_MS: '2000',
};

for (const dialect of DIALECTS) {
  describe(`docs/api.md's webhook receiver, run as written (${dialect})`, () => {
    let db: TestDatabase;
    let dir: string;
    const children: ChildProcess[] = [];
    before(async () => {
      db = await openTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'vms-read-receiver-'));
      const code = RECEIVER.exec(readFileSync(join(ROOT, 'docs/api.md'), 'utf8'))?.[1];
      assert.ok(code, 'docs/api.md shows receiver.mjs');
      writeFileSync(join(dir, 'receiver.mjs'), code);
      // `npm install standardwebhooks`, as the page says: here, the repository's copy.
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    });
    after(async () => {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children.map(exitOf));
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    });

    /** `vms-read import` of one directory of files. */
    function load(name: string, files: Record<string, string>) {
      const at = join(dir, name);
      mkdirSync(at);
      for (const [file, text] of Object.entries(files)) writeFileSync(join(at, file), text);
      const imported = runCli(['import', '--db', db.db, '--workspace', WS, at]);
      assert.equal(imported.status, 0, imported.stderr);
    }

    const deliveries = (id: string) => {
      const shown = runCli(['webhook', 'deliveries', '--db', db.db, '--id', id, '--json']);
      assert.equal(shown.status, 0, shown.stderr);
      return JSON.parse(shown.stdout) as { messageId: string; outcome: string; error: string }[];
    };

    it('follows the program by webhooks alone, across a crash of the server', async () => {
      const key = staffKeyByCli(db.db, WS, 'read:program,read:workforce');
      const receiverPort = await freePort();
      const made = runCli(
        [
          'webhook',
          'create',
          '--db',
          db.db,
          '--token',
          key,
          '--url',
          `http://127.0.0.1:${receiverPort}/vms-hook`,
        ],
        SERVER_ENV,
      );
      assert.equal(made.status, 0, made.stderr);
      const { id, secret } = JSON.parse(made.stdout) as { id: string; secret: string };

      const logs: (() => string)[] = [];
      const serve = async () => {
        const port = await freePort();
        const server = await startServer(['serve', '--db', db.db, '--port', String(port)], port, {
          ...SERVER_ENV,
          LOG_LEVEL: 'debug',
        });
        children.push(server.child);
        logs.push(server.output);
        return server.child;
      };
      const first = await serve();
      load('1-supplier', {
        'suppliers.csv':
          'id,code,name,status,created_at,updated_at\n' +
          'sup_hook_1,HOOK-1,Hook Staffing,active,2026-01-05T09:00:00.000Z,2026-01-05T09:00:00.000Z\n',
      });
      // No receiver yet: the delivery fails and is retried.
      await waitFor(async () => deliveries(id).length >= 2);
      const pending = deliveries(id);
      assert.ok(pending.every((a) => a.outcome === 'retry'));
      assert.match(pending[0].error, /ECONNREFUSED/);
      first.kill('SIGKILL');
      await exitOf(first);

      const receiver = spawn(process.execPath, ['receiver.mjs'], {
        cwd: dir,
        env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(receiverPort) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(receiver);
      let printed = '';
      receiver.stdout!.on('data', (d) => (printed += d));
      receiver.stderr!.on('data', (d) => (printed += d));
      await waitFor(async () => printed.includes('listening'));

      await serve();
      await waitFor(async () => /upsert supplier sup_hook_1 version \d+/.test(printed));
      const [delivered] = deliveries(id);
      assert.equal(delivered.outcome, 'delivered');
      assert.equal(delivered.messageId, pending[0].messageId, 'the same delivery, after the crash');

      load('2-deletion', {
        'deletions.csv': 'type,id,deleted_at\nsupplier,sup_hook_1,2026-01-06T09:00:00.000Z\n',
      });
      await waitFor(async () => printed.includes('remove supplier sup_hook_1'));
      assert.equal(printed.match(/sup_hook_1/g)?.length, 2, `once each:\n${printed}`);
      // The servers logged at every level said nothing of the secret, the URL or the bodies.
      for (const output of logs) {
        assert.ok(output().length > 0);
        for (const never of [secret, secret.slice(6), `${receiverPort}/vms-hook`, 'Hook Staffing'])
          assert.ok(!output().includes(never), `a server log shows ${never}`);
      }
    });
  });
}
