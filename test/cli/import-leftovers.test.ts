/**
 * An import keeps what it has seen in memory (src/importer/seen-keys.ts) and writes only inside
 * the load's transaction: one killed with -9 while it writes leaves no file of its own behind (in
 * TMPDIR or beside the database) and no row in the database, and the next import runs.
 * (Before issue 59 it kept its keys in a scratch folder in TMPDIR that the next import removed.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { CLI, exitOf, runCli } from '../support/cli.js';
import { entriesDir } from '../support/import-files.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { waitFor } from '../support/webhook-fixture.js';

describe('an import killed with -9 while it writes', () => {
  let db: TestDatabase;
  let tmp: string;
  before(async () => {
    db = await openTestDatabase('sqlite');
    tmp = mkdtempSync(`${tmpdir()}/vms-read-tmpdir-`);
  });
  after(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await db.drop();
  });

  const entries = async () => Number((await db.all('SELECT COUNT(*) AS n FROM time_entries'))[0].n);
  const walBytes = () => {
    try {
      return statSync(`${db.db}-wal`).size;
    } catch {
      return 0;
    }
  };

  /** What vms-read itself left in TMPDIR (Node's own compile cache aside). */
  const ours = () => readdirSync(tmp).filter((name) => name !== 'node-compile-cache');

  it('leaves nothing in TMPDIR and nothing in the database; the next import loads', async () => {
    const before = await entries();
    const big = await entriesDir(db.all, 300_000, 'te_killed_');
    const startWal = walBytes();
    const killed = spawn(
      process.execPath,
      [CLI, 'import', '--db', db.db, '--workspace', 'ws_business', big],
      { env: { ...process.env, TMPDIR: tmp }, stdio: 'ignore' },
    );
    // Killed once its rows are going into the database's log: mid-write.
    await waitFor(async () => walBytes() > startWal + 4 * 1024 * 1024, 60_000);
    killed.kill('SIGKILL');
    await exitOf(killed);
    rmSync(big, { recursive: true, force: true });
    assert.deepEqual(ours(), [], 'no scratch file of its own');
    assert.equal(await entries(), before, 'none of its rows');

    const small = await entriesDir(db.all, 3, 'te_after_');
    const next = runCli(['import', '--db', db.db, '--workspace', 'ws_business', small], {
      TMPDIR: tmp,
    });
    rmSync(small, { recursive: true, force: true });
    assert.equal(next.status, 0, next.stderr);
    assert.equal(await entries(), before + 3);
    assert.deepEqual(ours(), []);
  });
});
