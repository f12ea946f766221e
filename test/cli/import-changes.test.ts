/**
 * What a row of an import means (DESIGN §4.11 "What a row means", "Times from the future"): an
 * update carries only some columns and the rest keep their stored values; a column carried empty
 * or null clears; a new record needs every required column; a time later than the load's clock
 * plus 5 minutes is refused by line; the seed dates nothing after the moment it runs. Through the
 * CLI, on both stores, as docs/import.md's worked examples show them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { seedStore } from '../../src/admin/seed.js';
import { DIALECTS, openTestDatabase, TINY, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';

/** An instant `minutes` from now, as the stores keep timestamps. */
const fromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

for (const dialect of DIALECTS) {
  describe(`import: what a row means (${dialect})`, () => {
    let db: TestDatabase;
    let root: string;
    let n = 0;
    before(async () => {
      db = await openTestDatabase(dialect);
      root = mkdtempSync(join(tmpdir(), 'vms-read-rows-'));
    });
    after(async () => {
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    });

    function importFiles(files: Record<string, string>) {
      const dir = join(root, `load-${n++}`);
      mkdirSync(dir);
      for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
      return runCli(['import', '--db', db.db, '--workspace', WS, dir]);
    }

    /** A worker with every column filled, as stored. */
    async function fullWorker() {
      return db.one<Record<string, unknown>>(
        `SELECT * FROM workers WHERE workspace_id = ? AND supplier_ref IS NOT NULL AND org_unit_key IS NOT NULL
           AND tenure_start IS NOT NULL AND classification_status IS NOT NULL AND work_email IS NOT NULL ORDER BY id LIMIT 1`,
        WS,
      );
    }

    it('keeps the columns an update leaves out (CSV): an offboarding clears nothing', async () => {
      const worker = await fullWorker();
      const stamp = fromNow(-1);
      const result = importFiles({
        'workers.csv': `id,type,onboarding_state,status,created_at,updated_at\n${String(worker.id)},${String(worker.type)},offboarded,inactive,${String(worker.created_at)},${stamp}\n`,
      });
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout).counts.workers, {
        inserted: 0,
        updated: 1,
        unchanged: 0,
        skipped: 0,
        deleted: 0,
      });
      const stored = await db.one('SELECT * FROM workers WHERE id = ?', worker.id);
      assert.deepEqual(stored, {
        ...worker,
        onboarding_state: 'offboarded',
        status: 'inactive',
        updated_at: stamp,
      });
    });

    it('clears a column carried empty (CSV) or null (NDJSON), and only that one', async () => {
      const worker = await fullWorker();
      const first = fromNow(-1);
      const csv = importFiles({
        'workers.csv': `id,work_email,updated_at\n${String(worker.id)},,${first}\n`,
      });
      assert.equal(csv.status, 0, csv.stderr);
      assert.deepEqual(await db.one('SELECT * FROM workers WHERE id = ?', worker.id), {
        ...worker,
        work_email: null,
        updated_at: first,
      });
      const second = fromNow(0);
      const ndjson = importFiles({
        'workers.ndjson': `${JSON.stringify({ id: worker.id, org_unit_key: null, updated_at: second })}\n`,
      });
      assert.equal(ndjson.status, 0, ndjson.stderr);
      assert.deepEqual(await db.one('SELECT * FROM workers WHERE id = ?', worker.id), {
        ...worker,
        work_email: null,
        org_unit_key: null,
        updated_at: second,
      });
    });

    it('refuses a new record that leaves out required columns, and a required column carried empty, by line', async () => {
      const worker = await fullWorker();
      const version = await db.store.dataVersion();
      const result = importFiles({
        'workers.ndjson': [
          { id: 'wkr_partial_new', status: 'active', updated_at: fromNow(-1) },
          { id: worker.id, display_name: null, updated_at: fromNow(-1) },
        ]
          .map((row) => JSON.stringify(row))
          .join('\n'),
      });
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /workers\.ndjson:1: missing columns type, display_name, onboarding_state, created_at: a new record needs every required column/,
      );
      assert.match(result.stderr, /workers\.ndjson:2: missing value for display_name/);
      assert.deepEqual(await db.store.dataVersion(), version, 'nothing written');
    });

    it('refuses an updated_at more than 5 minutes after the load clock, by line', async () => {
      const worker = await fullWorker();
      const version = await db.store.dataVersion();
      const far = '9999-12-31T23:59:59.000Z';
      const result = importFiles({
        'workers.csv': `id,status,updated_at\n${String(worker.id)},inactive,${far}\n${String(worker.id)}x,inactive,${fromNow(6)}\n`,
      });
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /workers\.csv:2: updated_at "9999-12-31T23:59:59\.000Z" is in the future \(more than 5 minutes after this load's clock\)/,
      );
      assert.match(result.stderr, /workers\.csv:3: updated_at "[^"]+" is in the future/);
      assert.deepEqual(await db.store.dataVersion(), version, 'nothing written');
      // Within the 5 minutes: a clock a little ahead of the load's is not refused.
      const ahead = importFiles({
        'workers.csv': `id,status,updated_at\n${String(worker.id)},inactive,${fromNow(3)}\n`,
      });
      assert.equal(ahead.status, 0, ahead.stderr);
    });

    it('checks deletions.csv by line before anything is written: the type, the id, deleted_at and repeats', async () => {
      const version = await db.store.dataVersion();
      const result = importFiles({
        'deletions.csv': [
          'type,id,deleted_at',
          `timesheet,ts_x,${fromNow(-1)}`,
          `time_entry,te_x,${fromNow(-1)}`,
          `invoice,has space,${fromNow(-1)}`,
          `worker,wkr_x,${fromNow(60)}`,
          `timesheet,ts_x,${fromNow(-1)}`,
          `expense,exp_x,yesterday`,
        ].join('\n'),
      });
      assert.equal(result.status, 1);
      const lines = result.stderr.trim().split('\n');
      assert.match(
        lines[0],
        /^deletions\.csv:3: type must be one of supplier, worker, assignment, timesheet, expense, invoice, approval_status, got "time_entry"$/,
      );
      assert.match(lines[1], /^deletions\.csv:4: id must be /);
      assert.match(lines[2], /^deletions\.csv:5: deleted_at "[^"]+" is in the future/);
      assert.match(
        lines[3],
        /^deletions\.csv:6: duplicate deletion of timesheet "ts_x" \(first at line 2\)$/,
      );
      assert.match(lines[4], /^deletions\.csv:7: deleted_at must be a UTC timestamp/);
      assert.deepEqual(await db.store.dataVersion(), version, 'nothing written');
    });

    it('counts a deletion of an id not stored as unchanged, and a second one of a deleted id too', async () => {
      const [expense] = await db.all<{ id: string }>(
        'SELECT id FROM expenses WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const deletions = `type,id,deleted_at\nexpense,${expense.id},${fromNow(0)}\nexpense,exp_never_stored,${fromNow(0)}\n`;
      const first = importFiles({ 'deletions.csv': deletions });
      assert.equal(first.status, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout).counts.expenses, {
        inserted: 0,
        updated: 0,
        unchanged: 1,
        skipped: 0,
        deleted: 1,
      });
      const again = importFiles({
        'deletions.ndjson': deletions
          .split('\n')
          .slice(1, -1)
          .map((line) => {
            const [type, id, deletedAt] = line.split(',');
            return JSON.stringify({ type, id, deleted_at: deletedAt });
          })
          .join('\n'),
      });
      assert.equal(again.status, 0, again.stderr);
      const replay = JSON.parse(again.stdout);
      assert.deepEqual(replay.counts.expenses, {
        inserted: 0,
        updated: 0,
        unchanged: 2,
        skipped: 0,
        deleted: 0,
      });
      assert.equal(
        replay.dataVersion,
        JSON.parse(first.stdout).dataVersion,
        'a replay changes nothing',
      );
    });

    it('seeds nothing dated after the moment it runs, so an update stamped now always applies', async () => {
      const seeded = await openTestDatabase(dialect, false);
      try {
        await seedStore(seeded.store, { ...TINY, asOf: new Date().toISOString().slice(0, 10) });
        const now = new Date().toISOString();
        for (const [table, column] of [
          ['suppliers', 'updated_at'],
          ['workers', 'updated_at'],
          ['assignments', 'updated_at'],
          ['timesheets', 'updated_at'],
          ['time_entries', 'created_at'],
          ['expenses', 'updated_at'],
          ['invoices', 'updated_at'],
          ['approval_statuses', 'updated_at'],
          ['saved_queries', 'pinned_at'],
        ]) {
          const { n: later } = await seeded.one<{ n: number }>(
            `SELECT COUNT(*) AS n FROM ${table} WHERE ${column} > ?`,
            now,
          );
          assert.equal(Number(later), 0, `${table}.${column} after ${now}`);
        }
      } finally {
        await seeded.drop();
      }
    });
  });
}
