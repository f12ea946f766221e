/**
 * The rollups of a columnar copy (src/store/duckdb/rollup-tables.ts) beyond what every patch
 * test checks: a copy from a base without them (or with another definition) gets them when it
 * opens, and a load of entries across most months of a workspace leaves them exactly what a copy
 * written whole holds.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROLLUPS } from '../../src/semantic/rollups.js';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { ColumnarReports } from '../../src/store/duckdb/columnar-reports.js';
import { assertAsWrittenWhole } from '../support/columnar-contents.js';
import { applyLoad } from '../support/random-loads.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';

describe('rollups of the columnar copy', () => {
  let db: TestDatabase;
  let dir: string;
  const logs: string[] = [];
  const open = () =>
    new ColumnarReports(db.store, {
      dir,
      pollMs: 0,
      waitMs: 120_000,
      log: (message) => logs.push(message),
    });
  const assertLiveAsWrittenWhole = async (facts: ColumnarReports) => {
    const engine = await facts.reportEngine();
    assert.equal(engine.name, 'duckdb', logs.join('\n'));
    await assertAsWrittenWhole((sql) => engine.run(sql, [], 60_000), db);
  };

  before(async () => {
    db = await openTestDatabase('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'vms-read-rollups-'));
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are written when a copy opens from a base without them or with another definition', async () => {
    const built = await buildColumnarFacts(db.store, dir);
    // The base as an older version wrote it: one rollup missing, one of another definition,
    // one no longer defined.
    const instance = await DuckDBInstance.create(built.path);
    const connection = await instance.connect();
    const [missing, changed] = [ROLLUPS[1].name, ROLLUPS[2].name];
    await connection.run(`DROP TABLE ${missing}`);
    await connection.run(`DELETE FROM facts_rollups WHERE name = '${missing}'`);
    await connection.run(`DELETE FROM ${changed}`);
    await connection.run(`UPDATE facts_rollups SET definition = '{}' WHERE name = '${changed}'`);
    await connection.run('CREATE TABLE rollup_gone (x INTEGER)');
    await connection.run(`INSERT INTO facts_rollups VALUES ('rollup_gone', '{}')`);
    connection.closeSync();
    instance.closeSync();

    logs.length = 0;
    const facts = open();
    try {
      await facts.warm();
      assert.ok(
        logs.some((l) => l === `rollups written in the columnar copy: ${missing}, ${changed}`),
        logs.join('\n'),
      );
      await assertLiveAsWrittenWhole(facts);
      const engine = await facts.reportEngine();
      const gone = await engine.run(
        "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_name = 'rollup_gone'",
        [],
        60_000,
      );
      assert.equal(Number(gone[0].n), 0);
    } finally {
      await facts.close();
    }
  });

  it('stay exact after a load of entries across many months', async () => {
    const facts = open();
    try {
      await facts.warm();
      const [{ n }] = await db.all<{ n: number }>(
        'SELECT COUNT(*) AS n FROM time_entries WHERE workspace_id = ?',
        WS,
      );
      // Entries copied from 120 spread over the workspace's entries: in many months.
      const picks = Array.from({ length: 120 }, (_, i) => Math.floor((i * Number(n)) / 120));
      const [{ all }] = await db.all<{ all: number }>(
        'SELECT COUNT(*) AS "all" FROM (SELECT DISTINCT workspace_id, substr(work_date, 1, 7) FROM report_time_entries) m',
      );
      // The months these entries fall in, against every workspace's months: past a quarter.
      const touched = new Set<string>();
      for (const pick of picks) {
        const [row] = await db.all<{ d: string }>(
          'SELECT substr(work_date, 1, 7) AS d FROM time_entries WHERE workspace_id = ? ORDER BY id LIMIT 1 OFFSET ?',
          WS,
          pick,
        );
        touched.add(row.d);
      }
      assert.ok(touched.size > 0.25 * Number(all), `${touched.size} of ${all} months`);
      await applyLoad(
        db.store,
        WS,
        picks.map((pick, i) => ({ kind: 'entry' as const, pick, minutes: 15 + i })),
      );
      await assertLiveAsWrittenWhole(facts);
    } finally {
      await facts.close();
    }
  });
});
