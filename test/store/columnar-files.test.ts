/**
 * The copies' folder after faults (issue 21, item 4): what a killed process left (partial files,
 * its live copy) is removed when a server starts, and a base DuckDB cannot open is replaced by a
 * new one, the failure logged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { ColumnarReports } from '../../src/store/duckdb/columnar-reports.js';
import { stampOf } from '../../src/store/store.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const HOST = hostname().replace(/[^A-Za-z0-9_.]/g, '_');
/** A process id no process has: the writer of these files is gone. */
const GONE = 4_000_000;

describe('the copies folder after faults', () => {
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    db = await openTestDatabase('sqlite');
  });
  after(() => db.drop());

  it('removes at start what a killed process left, and keeps what a live one writes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-files-'));
    try {
      await buildColumnarFacts(db.store, dir);
      const left = [
        `base.${HOST}-${GONE}-1a2b3c4d.partial`,
        `base.${HOST}-${GONE}-1a2b3c4d.partial.csv.0`,
        `delta-report_time_entries.${HOST}-${GONE}-5e6f7a8b.partial.csv`,
        `live-${HOST}-${GONE}-9c0d1e2f.duckdb`,
      ];
      const alive = `base.${HOST}-${process.pid}-0badc0de.partial`;
      for (const name of [...left, alive]) writeFileSync(join(dir, name), 'x');
      const facts = new ColumnarReports(db.store, { dir, pollMs: 0 });
      try {
        await facts.warm();
        const names = readdirSync(dir);
        for (const name of left) assert.ok(!names.includes(name), `${name} is removed`);
        assert.ok(names.includes(alive), 'a file of a process still running is kept');
      } finally {
        await facts.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces a base DuckDB cannot open with a new one, logging the failure', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-files-'));
    const logs: string[] = [];
    const failures: string[] = [];
    try {
      const built = await buildColumnarFacts(db.store, dir);
      writeFileSync(
        built.path,
        'not a DuckDB file, and longer than its header would be'.repeat(200),
      );
      const facts = new ColumnarReports(db.store, {
        dir,
        pollMs: 0,
        log: (message, failure) => (failure ? failures : logs).push(message),
      });
      try {
        await facts.warm();
        assert.equal(failures.length, 1, failures.join('\n'));
        assert.notEqual(
          (await facts.reportEngine()).name,
          'duckdb',
          'the row store answers meanwhile',
        );
        // The next attempt, after the pause, writes a new base and opens it.
        let engine = await facts.reportEngine();
        for (let i = 0; i < 300 && engine.name !== 'duckdb'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          engine = await facts.reportEngine();
        }
        assert.equal(engine.name, 'duckdb');
        assert.equal(engine.dataStamp, stampOf(await db.store.dataVersion()));
        assert.ok(
          logs.some((line) => line.includes('columnar report facts written')),
          logs.join('\n'),
        );
      } finally {
        await facts.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
