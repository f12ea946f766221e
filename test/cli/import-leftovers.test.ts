/**
 * An import keeps the keys it has seen in a scratch folder in TMPDIR (`vms-read-import-<host>-
 * <pid>-…`). One killed with -9 cannot remove its own: the next import removes what dead imports
 * left, and a folder untouched for an hour whatever its name, never one of a live process.
 * (The scratch folder is the importer's, whatever the store: SQLite here.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ownMark } from '../../src/store/process-marks.js';
import { CLI, exitOf, runCli } from '../support/cli.js';
import { entriesDir } from '../support/import-files.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { waitFor } from '../support/webhook-fixture.js';

const SCRATCH = 'vms-read-import-';

describe('the scratch folders of imports killed with -9', () => {
  let db: TestDatabase;
  let tmp: string;
  before(async () => {
    db = await openTestDatabase('sqlite');
    tmp = mkdtempSync(join(tmpdir(), 'vms-read-tmpdir-'));
  });
  after(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await db.drop();
  });

  const scratch = () =>
    readdirSync(tmp)
      .filter((name) => name.startsWith(SCRATCH))
      .sort();

  it('are removed by the next import; a live process’s and a recent unmarked one stay', async () => {
    const big = await entriesDir(db.all, 300_000, 'te_killed_');
    const killed = spawn(
      process.execPath,
      [CLI, 'import', '--db', db.db, '--workspace', 'ws_business', big],
      { env: { ...process.env, TMPDIR: tmp }, stdio: 'ignore' },
    );
    await waitFor(async () => scratch().length === 1, 60_000);
    killed.kill('SIGKILL');
    await exitOf(killed);
    rmSync(big, { recursive: true, force: true });
    const [dead] = scratch();
    assert.match(dead, new RegExp(`^${SCRATCH}.+-${killed.pid}-`), 'named for its process');

    // This test's own process is alive; an unmarked folder is judged by its age.
    const live = `${SCRATCH}${ownMark()}-live`;
    const recent = `${SCRATCH}unmarked-recent`;
    const old = `${SCRATCH}unmarked-old`;
    for (const name of [live, recent, old]) mkdirSync(join(tmp, name));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(tmp, old), twoHoursAgo, twoHoursAgo);

    const small = await entriesDir(db.all, 3, 'te_after_');
    const next = runCli(['import', '--db', db.db, '--workspace', 'ws_business', small], {
      TMPDIR: tmp,
    });
    rmSync(small, { recursive: true, force: true });
    assert.equal(next.status, 0, next.stderr);
    assert.deepEqual(scratch(), [live, recent].sort(), 'the dead and the old are gone');
  });
});
