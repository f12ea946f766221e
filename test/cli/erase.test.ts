/**
 * `vms-read erase` (DESIGN §4.13): a worker's name and email replaced as a new data version,
 * financial records and reports unchanged, and the old text gone from the database files,
 * checked byte by byte: every file of the SQLite database (main file and write-ahead log) and of
 * its columnar copy; on PostgreSQL, the files of the workers table after a checkpoint. Each check
 * first finds the text where it was, so it cannot pass by looking in the wrong place.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { holding, tableFiles } from '../support/store-files.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';

for (const dialect of DIALECTS) {
  describe(`vms-read erase (${dialect})`, () => {
    let db: TestDatabase;
    let root: string;
    let n = 0;
    before(async () => {
      db = await openTestDatabase(dialect);
      root = mkdtempSync(join(tmpdir(), 'vms-read-erase-'));
    });
    after(async () => {
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    });

    function importWorker(row: Record<string, unknown>) {
      const dir = join(root, `load-${n++}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'workers.ndjson'), `${JSON.stringify(row)}\n`);
      const result = runCli(['import', '--db', db.db, '--workspace', WS, dir]);
      assert.equal(result.status, 0, result.stderr);
    }

    /** The files that may hold the workers table's rows. */
    const storeFiles = () => tableFiles(dialect, db.db, ['workers']);

    it("replaces the worker's name and email as a new version, leaves money and reports as they were, and leaves no old text in the files", async () => {
      const worker = await db.one<Record<string, unknown>>(
        'SELECT * FROM workers WHERE workspace_id = ? AND work_email IS NOT NULL ORDER BY id LIMIT 1',
        WS,
      );
      // Two names and an email no other row holds; the first replaced by the second by a load,
      // so an old version of the row was freed before the erasure.
      const mark = randomBytes(6).toString('hex');
      const first = `Quintessa Erasable ${mark}`;
      const second = `Quintessa Renamed ${mark}`;
      const email = `q.${mark}@example.com`;
      importWorker({
        id: worker.id,
        display_name: first,
        work_email: email,
        updated_at: new Date(Date.now() - 60_000).toISOString(),
      });
      importWorker({ id: worker.id, display_name: second, updated_at: new Date().toISOString() });
      if (dialect === 'sqlite') {
        // A columnar copy beside the file, searched with it (it copies no name or email).
        const refresh = runCli(['facts', 'refresh', '--db', db.db]);
        assert.equal(refresh.status, 0, refresh.stderr);
      }
      const files = await storeFiles();
      if (dialect === 'sqlite')
        assert.ok(
          files.some((f) => f.endsWith('.duckdb')),
          files.join(),
        );
      assert.ok(holding(files, second).length > 0, 'the name is in the files before');
      const money = async () => ({
        lines: await db.one('SELECT COUNT(*) AS n, SUM(amount_cents) AS cents FROM invoice_lines'),
        entries: await db.one(
          'SELECT COUNT(*) AS n, SUM(minutes) AS minutes FROM report_time_entries',
        ),
        invoices: await db.all('SELECT id, total_cents, status FROM invoices ORDER BY id'),
      });
      const before = await money();
      const version = (await db.store.dataVersion()).version;

      const result = runCli([
        'erase',
        '--db',
        db.db,
        '--workspace',
        WS,
        '--worker',
        String(worker.id),
      ]);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {
        workspace: WS,
        worker: worker.id,
        erased: ['displayName', 'workEmail'],
        changed: true,
        dataVersion: version + 1,
      });
      const stored = await db.one<Record<string, unknown>>(
        'SELECT * FROM workers WHERE id = ?',
        worker.id,
      );
      assert.equal(stored.display_name, '(erased)');
      assert.equal(stored.work_email, null);
      assert.equal(stored.supplier_ref, worker.supplier_ref, 'other columns kept');
      const [change] = await db.all<{ version: number }>(
        "SELECT version FROM record_changes WHERE type = 'worker' AND id = ?",
        worker.id,
      );
      assert.equal(Number(change.version), version + 1, 'the feed shows the worker changed');
      assert.deepEqual(await money(), before, 'financial records and report facts as they were');

      const after = await storeFiles();
      for (const text of [first, second, email])
        assert.deepEqual(holding(after, text), [], `${text} left in the files`);

      // Again: nothing to change, the version stays, the files are scrubbed anyway.
      const again = runCli([
        'erase',
        '--db',
        db.db,
        '--workspace',
        WS,
        '--worker',
        String(worker.id),
      ]);
      assert.equal(again.status, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).changed, false);
      assert.equal(JSON.parse(again.stdout).dataVersion, version + 1);
    });

    it('refuses an unknown worker or workspace with exit 2, writing nothing', async () => {
      const version = await db.store.dataVersion();
      const unknown = runCli(['erase', '--db', db.db, '--workspace', WS, '--worker', 'wkr_nobody']);
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /unknown worker: wkr_nobody in workspace ws_business/);
      const [other] = await db.all<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id <> ? ORDER BY id LIMIT 1',
        WS,
      );
      const elsewhere = runCli(['erase', '--db', db.db, '--workspace', WS, '--worker', other.id]);
      assert.equal(elsewhere.status, 2, "another workspace's worker is not this one's");
      const noWorkspace = runCli([
        'erase',
        '--db',
        db.db,
        '--workspace',
        'ws_none',
        '--worker',
        other.id,
      ]);
      assert.equal(noWorkspace.status, 2);
      assert.match(noWorkspace.stderr, /unknown workspace: ws_none/);
      const usage = runCli(['erase', '--db', db.db, '--workspace', WS]);
      assert.equal(usage.status, 2);
      assert.deepEqual(await db.store.dataVersion(), version);
    });
  });
}
