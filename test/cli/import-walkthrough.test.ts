/**
 * docs/operations.md "Every kind of change, worked through", run as written: each fenced block
 * titled `<step>/<file>` is a file of that step's directory; the steps are imported in order into
 * a freshly seeded database, and each step's output (`<step> output`: the counts of the tables
 * it names, every other table all zeros, and the data version) or refusal (`<step> stderr`, exit
 * 1, nothing written) is what the document shows. Both stores.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const DOC = fileURLToPath(new URL('../../../docs/operations.md', import.meta.url));
const SECTION = /### Every kind of change, worked through\n([\s\S]*?)\n### /;
const BLOCK = /```\w+ title="([^"]+)"\n([\s\S]*?)```/g;

interface Step {
  name: string;
  files: Record<string, string>;
  output?: Record<string, unknown>;
  stderr?: string;
}

/** The steps of the section, in the order they appear. */
function stepsOf(markdown: string): Step[] {
  const section = SECTION.exec(markdown)?.[1];
  assert.ok(section, 'docs/operations.md has the worked example');
  const steps: Step[] = [];
  const stepNamed = (name: string) => {
    let step = steps.find((s) => s.name === name);
    if (!step) steps.push((step = { name, files: {} }));
    return step;
  };
  for (const [, title, body] of section.matchAll(BLOCK)) {
    const file = /^([\w-]+)\/([\w.]+)$/.exec(title);
    const result = /^([\w-]+) (output|stderr)$/.exec(title);
    if (file) stepNamed(file[1]).files[file[2]] = body;
    else if (result?.[2] === 'output')
      stepNamed(result[1]).output = JSON.parse(body) as Record<string, unknown>;
    else if (result) stepNamed(result[1]).stderr = body.trim();
    else assert.fail(`a block titled ${title} is neither a file nor a result`);
  }
  return steps;
}

const ZERO = { inserted: 0, updated: 0, unchanged: 0, skipped: 0, deleted: 0 };

for (const dialect of DIALECTS) {
  describe(`docs/operations.md's worked example of every kind of change (${dialect})`, () => {
    let db: TestDatabase;
    let root: string;
    before(async () => {
      db = await openTestDatabase(dialect);
      root = mkdtempSync(join(tmpdir(), 'vms-read-walkthrough-'));
    });
    after(async () => {
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    });

    it('imports each step as the document shows, with its output', async () => {
      const steps = stepsOf(readFileSync(DOC, 'utf8'));
      assert.ok(
        steps.length >= 6,
        'new records, an update, a status change, a correction, deletions',
      );
      assert.equal((await db.store.dataVersion()).version, 1, 'fresh from the seed');
      for (const step of steps) {
        const dir = join(root, step.name);
        mkdirSync(dir);
        for (const [file, text] of Object.entries(step.files)) writeFileSync(join(dir, file), text);
        const before = await db.store.dataVersion();
        const result = runCli(['import', '--db', db.db, '--workspace', 'ws_business', dir]);
        if (step.stderr !== undefined) {
          assert.equal(result.status, 1, `${step.name}: ${result.stdout}`);
          assert.equal(result.stderr.trim(), step.stderr, step.name);
          assert.deepEqual(await db.store.dataVersion(), before, `${step.name}: nothing written`);
          continue;
        }
        assert.equal(result.status, 0, `${step.name}: ${result.stderr}`);
        const { counts, dataVersion } = JSON.parse(result.stdout) as {
          counts: Record<string, unknown>;
          dataVersion: number;
        };
        const { dataVersion: shown, ...shownCounts } = step.output ?? {};
        assert.equal(dataVersion, shown, step.name);
        for (const [table, got] of Object.entries(counts))
          assert.deepEqual(got, shownCounts[table] ?? ZERO, `${step.name}: ${table}`);
        for (const table of Object.keys(shownCounts))
          assert.ok(table in counts, `${step.name}: ${table} is a table`);
      }
      // What the steps left: the worker offboarded with its other columns kept, the timesheet
      // and its entries gone.
      const worker = await db.one('SELECT * FROM workers WHERE id = ?', 'wkr_doc_1');
      assert.deepEqual(
        [
          worker.status,
          worker.onboarding_state,
          worker.supplier_ref,
          worker.work_email,
          worker.tenure_start,
        ],
        ['inactive', 'offboarded', 'DOC-1', 'ada@example.com', '2026-01-05'],
      );
      assert.deepEqual(
        await db.all("SELECT id FROM time_entries WHERE timesheet_id = 'ts_doc_1'"),
        [],
      );
    });
  });
}
