/**
 * The staged import (PostgreSQL: src/store/load/staging.ts, src/importer/staged-checks.ts)
 * against the two-pass oracle on loads chosen for what the random ones reach rarely: new rows
 * written in one statement (no deletion remembered), more rows than a page of the staging
 * table's cursor, the same load once deletions are remembered (every row through the load
 * writer), updates beside new rows, U+0000 in values and references (PostgreSQL text cannot hold
 * it), and more problems than are kept, of which the first by line must be listed alike.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importDirectory } from '../../src/admin/import.js';
import { PROBLEMS_KEPT } from '../../src/importer/import-problems.js';
import { contents, shownOutcome, version } from '../support/two-pass-import/compare.js';
import { importDirectoryTwoPass } from '../support/two-pass-import/import-directory.js';
import { openTestDatabase, TEST_PG_URL, type TestDatabase } from '../support/test-databases.js';
import { VALID, WS } from './valid-rows.js';

const LATER = '2026-06-20T08:00:00.000Z';

/** A load directory of NDJSON files, one per table. */
function loadDir(files: Record<string, readonly Record<string, unknown>[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-staged-'));
  for (const [table, rows] of Object.entries(files))
    writeFileSync(
      join(dir, `${table}.ndjson`),
      rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
    );
  return dir;
}

describe(
  'the staged import on PostgreSQL does what the two-pass importer did',
  {
    skip: !TEST_PG_URL && 'no PostgreSQL test cluster',
  },
  () => {
    let one: TestDatabase;
    let two: TestDatabase;
    let worker: string;
    let assignment: string;
    before(async () => {
      [one, two] = await Promise.all([openTestDatabase('postgres'), openTestDatabase('postgres')]);
      const row = await one.one<{ id: string; worker_id: string }>(
        'SELECT id, worker_id FROM assignments WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      [worker, assignment] = [row.worker_id, row.id];
    });
    after(async () => {
      await Promise.all([one?.drop(), two?.drop()]);
    });

    /** The load through both importers: the same outcome, and the same database. */
    async function same(files: Record<string, readonly Record<string, unknown>[]>) {
      const dir = loadDir(files);
      try {
        const expected = await importDirectoryTwoPass(two.store, WS, dir);
        const actual = await importDirectory(one.store, WS, dir);
        assert.deepEqual(shownOutcome(actual), shownOutcome(expected));
        if (actual.imported) assert.deepEqual(await contents(one), await contents(two));
        else assert.deepEqual(await version(one), await version(two));
        return actual;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    /** `n` new timesheets of the stored worker, each with `perSheet` entries. */
    function sheets(prefix: string, n: number, perSheet: number) {
      const timesheets = Array.from({ length: n }, (_, i) => ({
        ...VALID.timesheets,
        id: `${prefix}ts_${i}`,
        worker_id: worker,
        period_start: `2026-05-${String(1 + (i % 28)).padStart(2, '0')}`,
      }));
      const time_entries = timesheets.flatMap((sheet, i) =>
        Array.from({ length: perSheet }, (_, j) => ({
          ...VALID.time_entries,
          id: `${prefix}te_${i}_${j}`,
          timesheet_id: sheet.id,
          assignment_id: assignment,
          worker_id: worker,
          quantity_minutes: 30 + j,
        })),
      );
      return { timesheets, time_entries };
    }

    it('writes new rows in one statement each when no deletion is remembered', async () => {
      const held = await one.one<{ n: number }>('SELECT COUNT(*) AS n FROM record_deletions');
      assert.equal(
        held.n,
        0,
        'the tiny seed remembers no deletion: new rows take the one statement',
      );
      const outcome = await same(sheets('a', 700, 8));
      assert.ok(outcome.imported);
      assert.equal(outcome.counts.time_entries.inserted, 5_600);
    });

    it('updates stored rows beside new ones, past a page of the staging cursor', async () => {
      const { timesheets, time_entries } = sheets('a', 700, 8);
      const outcome = await same({
        timesheets: [
          ...timesheets.map((sheet, i) =>
            i % 2 ? sheet : { ...sheet, status: 'submitted', updated_at: LATER },
          ),
          ...sheets('b', 6_000, 0).timesheets,
        ],
        time_entries,
      });
      assert.ok(outcome.imported);
      assert.deepEqual(
        [outcome.counts.timesheets.updated, outcome.counts.timesheets.unchanged],
        [350, 350],
      );
      assert.equal(outcome.counts.timesheets.inserted, 6_000);
    });

    it('writes every row through the load writer once deletions are remembered', async () => {
      const deleted = await same({
        deletions: [{ type: 'timesheet', id: 'bts_0', deleted_at: LATER }],
      });
      assert.ok(deleted.imported);
      assert.equal(deleted.counts.timesheets.deleted, 1);
      const outcome = await same({
        ...sheets('c', 650, 9),
        timesheets: [...sheets('c', 650, 9).timesheets, { ...sheets('b', 1, 0).timesheets[0] }],
      });
      assert.ok(outcome.imported);
      // The deleted timesheet, given again no later than its deletion, is skipped.
      assert.equal(outcome.counts.timesheets.skipped, 1);
    });

    it('refuses U+0000 in values and references with the same problems', async () => {
      const NUL = '\u0000';
      const outcome = await same({
        workers: [
          { ...VALID.workers, id: 'wkr_nul_1', display_name: `Ana${NUL}` },
          { ...VALID.workers, id: `wkr${NUL}2` },
        ],
        assignments: [
          { ...VALID.assignments, id: 'asg_nul_1', worker_id: `wkr${NUL}2` },
          { ...VALID.assignments, id: 'asg_nul_2', worker_id: 'wkr_nowhere' },
          { ...VALID.assignments, id: 'asg_nul_3', worker_id: 'wkr_nul_1' },
        ],
      });
      assert.equal(outcome.imported, false);
      const problems = shownOutcome(outcome).problems as string[];
      assert.ok(
        problems.some((p) => p.includes('NUL')),
        problems.join('\n'),
      );
      assert.ok(
        problems.some((p) => p.startsWith('assignments.ndjson:2: worker_id "wkr_nowhere"')),
      );
    });

    it(`lists the first problems by line when more than ${PROBLEMS_KEPT.toLocaleString('en')} are found`, async () => {
      // Each entry has a broken quantity (found as it is read) and a timesheet no one holds (found
      // by the staged checks after every row): the references of the first lines must be listed.
      const time_entries = Array.from({ length: PROBLEMS_KEPT + 500 }, (_, i) => ({
        ...VALID.time_entries,
        id: `many_${i}`,
        timesheet_id: 'ts_nowhere',
        assignment_id: assignment,
        worker_id: worker,
        quantity_minutes: 'many',
      }));
      const outcome = await same({ time_entries });
      if (outcome.imported) assert.fail('a load of broken entries was imported');
      assert.equal(outcome.total, 2 * time_entries.length);
      const problems = shownOutcome(outcome).problems as string[];
      assert.match(problems[1], /^time_entries\.ndjson:1: timesheet_id "ts_nowhere" is neither/);
    });

    it('leaves the databases alike after all of it', async () => {
      assert.deepEqual(await contents(one), await contents(two));
    });
  },
);
