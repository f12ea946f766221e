/**
 * Input sizes (issue 21, item 3): a value of 100 MB in a file is refused with a line-numbered
 * problem, nothing is written, and the import's memory stays bounded (≤ 300 MB) whatever the file.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliMeasured } from '../support/cli.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const AT = '2026-06-01T08:00:00.000Z';
const HUNDRED_MB = 100 * 1024 * 1024;

/** A file with `head`, a value of `size` x's, then `tail`, written a megabyte at a time. */
function writeHuge(path: string, head: string, size: number, tail: string): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    const block = 'x'.repeat(1024 * 1024);
    for (let left = size; left > 0; left -= block.length)
      writeSync(fd, block.slice(0, Math.min(left, block.length)));
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
}

describe('import of a 100 MB value', () => {
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    db = await openTestDatabase('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'vms-read-sizes-'));
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const workers = async () =>
    Number((await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM workers')).n);

  for (const format of ['ndjson', 'csv'] as const) {
    it(`refuses it in ${format} with file:line, writes nothing, and stays under 300 MB`, async () => {
      const files = mkdtempSync(join(dir, `${format}-`));
      const path = join(files, `workers.${format}`);
      if (format === 'ndjson')
        writeHuge(
          path,
          `{"id":"wkr_big","type":"profile_only","display_name":"`,
          HUNDRED_MB,
          `","onboarding_state":"active","status":"active","created_at":"${AT}","updated_at":"${AT}"}\n`,
        );
      else
        writeHuge(
          path,
          `id,type,display_name,onboarding_state,status,created_at,updated_at\nwkr_big,profile_only,"`,
          HUNDRED_MB,
          `",active,active,${AT},${AT}\n`,
        );
      const before = await workers();
      const result = runCliMeasured(['import', '--db', db.db, '--workspace', WS, files]);
      assert.equal(result.status, 1, result.stderr);
      const expected =
        format === 'ndjson'
          ? 'workers.ndjson:1: the line is longer than 1,048,576 characters (a value too long); it is not read'
          : 'workers.csv:2: a record longer than 1,048,576 characters starts here (a value too long, or a quote never closed); the rest of the file is not read';
      assert.equal(result.stderr.split('\n')[0], expected);
      assert.equal(await workers(), before);
      assert.ok(result.peakRssMb <= 300, `peak RSS ${result.peakRssMb.toFixed(0)} MB`);
      rmSync(files, { recursive: true, force: true });
    });
  }
});
