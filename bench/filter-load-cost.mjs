// `node bench/filter-load-cost.mjs [--scale medium] [--rows 100000] [--runs 3]`: what the lists'
// filters cost a load (DESIGN §4.15): the equality filters' indexes (schema version 8) and the
// period zones the load writer keeps (version 9). Two copies of the seeded database at the
// current schema, the baseline with the filters' indexes dropped: both do the same import of the
// same rows and differ only in the indexes. Each run imports N updated timesheets and then N new
// ones (`vms-read import`, a process per load, as an operator runs it) into each copy in turn,
// the order alternating between runs. The zones' upkeep is the same in both copies, so it is
// timed on its own: the statements the load writer runs for the same rows, in a transaction
// rolled back. Writes
// bench/results/filter-load-cost-<ISO date-time>.json.
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../dist/src/store/open-store.js';
import { FILTER_INDEXES } from '../dist/src/store/schema.js';
import { widenPeriodZones } from '../dist/src/store/sql/period-zones.js';
import { benchDb, benchSeed, ensureSeeded, log, machine, round } from './lib.mjs';
import { runImport, updatedTimesheets, WORKSPACE, writeCsv } from './load-files.mjs';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'medium' },
    rows: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
  },
});
const N = Number(values.rows);
const RUNS = Number(values.runs);

const source = benchDb(values.scale);
ensureSeeded(source, benchSeed(values.scale));
const dir = mkdtempSync(join(tmpdir(), 'vms-read-filter-cost-'));
const copies = { baseline: join(dir, 'baseline.db'), withFilters: join(dir, 'with.db') };
for (const copy of Object.values(copies)) {
  copyFileSync(source, copy);
  // Opening migrates the copy to the current schema (and refreshes its statistics).
  const started = Date.now();
  await (await openStore(copy)).close();
  log(`${copy}: opened (migrated) in ${round((Date.now() - started) / 1000)} s`);
}
{
  const baseline = new Database(copies.baseline);
  for (const name of FILTER_INDEXES) baseline.exec(`DROP INDEX ${name}`);
  baseline.close();
}

/** The zones' upkeep for these rows alone: what the load writer runs, rolled back. */
async function zoneUpkeepMs(columns, rows) {
  const db = new Database(copies.withFilters);
  const objects = rows.map((row) => ({
    workspace_id: WORKSPACE,
    ...Object.fromEntries(columns.map((c, i) => [c, row[i]])),
  }));
  const run = async (sql, params) => db.prepare(sql).run(...params);
  db.exec('BEGIN IMMEDIATE');
  const started = performance.now();
  // In the load writer's batches of 500 rows.
  for (let i = 0; i < objects.length; i += 500)
    await widenPeriodZones(run, 'timesheets', objects.slice(i, i + 500));
  const ms = performance.now() - started;
  db.exec('ROLLBACK');
  db.close();
  return round(ms, 1);
}

/** One load's files: N timesheets as stored with a new status (updates), or with new ids. */
async function loadFiles(kind, run) {
  const reader = new Database(copies.withFilters, { readonly: true });
  const { columns, rows } = updatedTimesheets(reader, N);
  reader.close();
  const id = columns.indexOf('id');
  const out = join(dir, `${kind}-${run}`);
  mkdirSync(out);
  const written =
    kind === 'new'
      ? rows.map((row, i) => row.map((v, c) => (c === id ? `ts_cost_${run}_${i}` : v)))
      : rows;
  await writeCsv(join(out, 'timesheets.csv'), columns, written);
  return out;
}

const results = [];
for (let run = 0; run < RUNS; run++) {
  for (const kind of ['update', 'new']) {
    const files = await loadFiles(kind, run);
    const order = run % 2 === 0 ? ['baseline', 'withFilters'] : ['withFilters', 'baseline'];
    const seconds = {};
    for (const which of order) {
      const { seconds: s, answer } = await runImport(copies[which], files);
      const counts = answer.counts?.timesheets ?? answer.counts;
      seconds[which] = round(s, 2);
      log(`run ${run + 1} ${kind} ${which}: ${round(s, 2)} s ${JSON.stringify(counts)}`);
    }
    results.push({ run: run + 1, kind, ...seconds });
  }
}
const zones = await (async () => {
  const reader = new Database(copies.withFilters, { readonly: true });
  const { columns, rows } = updatedTimesheets(reader, N);
  reader.close();
  return zoneUpkeepMs(columns, rows);
})();
rmSync(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = ['update', 'new'].map((kind) => {
  const rows = results.filter((r) => r.kind === kind);
  const [baseline, withFilters] = ['baseline', 'withFilters'].map((c) =>
    median(rows.map((r) => r[c])),
  );
  return { kind, rows: N, baseline, withFilters, ratio: round(withFilters / baseline, 2) };
});
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/filter-load-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify(
    { machine: machine(), scale: values.scale, runs: RUNS, results, summary },
    null,
    2,
  ),
);
console.log('| load | timesheets | without the indexes (median) | with them | ratio |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const s of summary)
  console.log(
    `| ${s.kind} | ${s.rows.toLocaleString('en')} | ${s.baseline} s | ${s.withFilters} s | ${s.ratio}× |`,
  );
log(`the zones' upkeep for ${N.toLocaleString('en')} timesheets: ${zones} ms`);
log(`wrote ${file}`);
