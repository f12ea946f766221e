/**
 * Columnar copies that follow the row store by delta (DESIGN §4.11, src/store/duckdb/): after
 * any load the copy is patched to the new version and holds exactly what a copy written whole
 * holds; a new copy is written only for a new epoch (facts refresh) or a change larger than a
 * patch is worth; a failure is logged once, cleaned up and retried, while the row store answers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { ColumnarReports } from '../../src/store/duckdb/columnar-reports.js';
import { COLUMNAR_TABLES } from '../../src/store/duckdb/columnar-tables.js';
import { stampOf } from '../../src/store/store.js';
import { DIALECTS } from '../support/harness.js';
import { applyLoad, loadSteps } from '../support/random-loads.js';
import { assertAsWrittenWhole } from '../support/columnar-contents.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { until } from '../support/until.js';

const WS = 'ws_business';

for (const dialect of DIALECTS) {
  describe(`columnar copies that follow the row store by delta (${dialect})`, () => {
    let db: TestDatabase;
    let dir: string;
    let facts: ColumnarReports;
    const logs: string[] = [];
    const open = (options: { maxShare?: number } = {}) =>
      new ColumnarReports(db.store, {
        dir,
        pollMs: 0,
        // A report waits for the patch however slow the machine: what is asserted is the engine.
        waitMs: 120_000,
        log: (message) => logs.push(message),
        ...options,
      });

    before(async () => {
      db = await openTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'vms-read-patches-'));
      await buildColumnarFacts(db.store, dir);
      facts = open();
      await facts.warm();
    });
    after(async () => {
      await facts.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const engineNow = async () => {
      const engine = await facts.reportEngine();
      const live = (sql: string) => engine.run(sql, [], 60_000);
      return { engine, live };
    };

    it('patches its copy to every new version, holding exactly what a copy written whole holds', async () => {
      await fc.assert(
        fc.asyncProperty(loadSteps, async (steps) => {
          logs.length = 0;
          await applyLoad(db.store, WS, steps);
          const { engine, live } = await engineNow();
          assert.equal(engine.name, 'duckdb', logs.join('\n'));
          assert.equal(engine.dataStamp, stampOf(await db.store.dataVersion()));
          await assertAsWrittenWhole(live, db);
          assert.ok(!logs.some((line) => line.includes('written')), logs.join('\n'));
        }),
        { numRuns: 6 },
      );
    });

    it('writes a new copy after facts refresh (a new epoch), the row store answering meanwhile', async () => {
      logs.length = 0;
      await db.store.refreshReportFacts();
      const version = await db.store.dataVersion();
      // Without waiting: a new epoch cannot be patched.
      const slow = new ColumnarReports(db.store, { dir, pollMs: 0, waitMs: 0 });
      try {
        const first = await slow.reportEngine();
        assert.notEqual(first.name, 'duckdb');
        assert.equal(first.dataStamp, stampOf(version));
      } finally {
        await slow.close();
      }
      await facts.warm();
      const { engine } = await engineNow();
      assert.equal(engine.name, 'duckdb');
      assert.equal(engine.dataStamp, stampOf(version));
      assert.ok(
        logs.some((line) => line.includes('the data was rebuilt or replaced')),
        logs.join('\n'),
      );
      // The base of the old epoch is gone; one base and the live copies remain.
      const bases = readdirSync(dir).filter((name) => name.startsWith('base-'));
      assert.deepEqual(bases, [`base-${version.epoch}-${version.version}.duckdb`]);
    });

    it('writes a new copy rather than a patch when more changed than maxShare of its rows', async () => {
      const eager = open({ maxShare: 1e-9 });
      try {
        await eager.warm();
        logs.length = 0;
        await applyLoad(db.store, WS, [{ kind: 'entry', pick: 3, minutes: 60 }]);
        const stamp = stampOf(await db.store.dataVersion());
        // No report waits for a whole copy: the row store answers, exactly, while it is written.
        const meanwhile = await eager.reportEngine();
        assert.notEqual(meanwhile.name, 'duckdb');
        assert.equal(meanwhile.dataStamp, stamp);
        await eager.warm();
        const engine = await eager.reportEngine();
        assert.equal(engine.name, 'duckdb');
        assert.equal(engine.dataStamp, stamp);
        assert.ok(
          logs.some((l) => l.includes('more changed than a patch is worth')),
          logs.join('\n'),
        );
      } finally {
        await eager.close();
      }
    });

    it('publishes its copy as the new base once patches pass a tenth of it, and a server starting later opens that one', async () => {
      logs.length = 0;
      const version = await db.store.dataVersion();
      // Entries worth 15% of the copy as it is now (earlier tests' random loads grew it, lines
      // more than entries some runs), in one timesheet: past the tenth that publishes, under the
      // quarter that would write a base instead.
      const { live: now } = await engineNow();
      let copyRows = 0;
      for (const { table } of COLUMNAR_TABLES)
        copyRows += Number((await now(`SELECT COUNT(*) AS n FROM ${table.name}`))[0].n);
      const many = Array.from({ length: Math.ceil(copyRows * 0.15) }, (_, i) => ({
        kind: 'entry' as const,
        pick: 0,
        minutes: 30 + i,
      }));
      await applyLoad(db.store, WS, many);
      const { engine } = await engineNow();
      assert.equal(engine.name, 'duckdb');
      const current = await db.store.dataVersion();
      assert.equal(current.version, version.version + 1);
      // Published after the patch that passed the tenth, in the same turn of work: a loaded
      // machine may still be writing it when the patched copy answers.
      await until(() => logs.some((l) => l.includes('published as a new base')), 30_000).catch(() =>
        assert.fail(logs.join('\n')),
      );
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.startsWith('base-')),
        [`base-${current.epoch}-${current.version}.duckdb`],
      );
      const later = open();
      try {
        logs.length = 0;
        await later.warm();
        assert.ok(
          logs.some((l) =>
            l.includes(`from ${join(dir, `base-${current.epoch}-${current.version}.duckdb`)}`),
          ),
          logs.join('\n'),
        );
        assert.ok(!logs.some((l) => l.includes('patched')), 'nothing left to patch');
      } finally {
        await later.close();
      }
    });

    it('logs a failure once, answers from the row store meanwhile, and recovers on a later attempt', async () => {
      const failures: string[] = [];
      const watched = new ColumnarReports(db.store, {
        dir,
        pollMs: 0,
        waitMs: 100,
        log: (message, failure) => (failure ? failures : logs).push(message),
      });
      const aside = `${dir}-aside`;
      try {
        await watched.warm();
        // The copies' folder becomes a file: every scratch file of a patch fails to open.
        renameSync(dir, aside);
        writeFileSync(dir, 'not a folder');
        await applyLoad(db.store, WS, [{ kind: 'line', pick: 5, cents: 1234 }]);
        const version = stampOf(await db.store.dataVersion());
        for (let attempt = 0; attempt < 3; attempt++) {
          const engine = await watched.reportEngine();
          assert.notEqual(engine.name, 'duckdb');
          assert.equal(engine.dataStamp, version, 'exact: the row store at the current version');
          await new Promise((resolve) => setTimeout(resolve, 1200));
        }
        assert.equal(failures.length, 1, failures.join('\n'));
        rmSync(dir);
        renameSync(aside, dir);
        logs.length = 0;
        let engine = await watched.reportEngine();
        // A deadline, not a duration: attempts back off (1 s, doubling) after each failure.
        for (let i = 0; i < 450 && engine.name !== 'duckdb'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          engine = await watched.reportEngine();
        }
        assert.equal(engine.name, 'duckdb');
        assert.equal(engine.dataStamp, version);
        // The copy answers as soon as its patch commits; the attempt ends (and says it recovered)
        // a moment later, once it has also weighed publishing a base: a deadline, not a duration.
        for (let i = 0; i < 300 && !logs.some((l) => l.includes('in use again')); i++)
          await new Promise((resolve) => setTimeout(resolve, 100));
        assert.ok(
          logs.some((l) => l.includes('in use again')),
          logs.join('\n'),
        );
        // No scratch or partial file is left behind.
        assert.deepEqual(
          readdirSync(dir).filter((name) => name.includes('.partial') || name.endsWith('.csv')),
          [],
        );
      } finally {
        await watched.close();
        rmSync(aside, { recursive: true, force: true });
      }
    });
  });
}
