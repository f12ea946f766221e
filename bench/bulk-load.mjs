// The many-timesheets load (issue 45): `vms-read import` of N new timesheets with 10 time entries
// each (by default 100,000 and 1,000,000: about 136 MB of CSV) into a copy of the small seed,
// against the same files read and inserted by hand into a fresh SQLite file
// (bench/bulk-load-baseline.mjs), measured in the same run. Rows per second of each (timesheets
// and entries together), the ratio, each process's peak RSS, and the database's growth per row.
// With --pg the same load into a throwaway PostgreSQL cluster seeded alike, against the files sent
// through COPY by hand (bench/bulk-load-copy-baseline.mjs).
// Usage: npm run build && node bench/bulk-load.mjs [--timesheets 100000] [--scale small] [--pg]
//        [--out F]
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ENTRY_COLUMNS, runImport, WORKSPACE, writeCsv } from './load-files.mjs';
import { copyDatabase, removeCopy } from './load-server.mjs';
import {
  benchDb,
  benchSeed,
  ensureSeeded,
  log,
  peakRssMbOf,
  round,
  seededDatabase,
} from './lib.mjs';

const ENTRIES_PER_TIMESHEET = 10;
/** A new record's creation time: fixed, so runs compare; after the seed's as-of date. */
const CREATED_AT = '2026-06-29T12:00:00.000Z';

/** Bytes of a database file and its write-ahead log. */
const sizeOf = (db) =>
  ['', '-wal'].reduce((sum, s) => sum + (existsSync(db + s) ? statSync(db + s).size : 0), 0);

/**
 * N new timesheets, each a copy of one of the workspace's recent ones (its worker, mode, period
 * and status) under a new id, and 10 entries each copying that timesheet's first entry (its
 * assignment, supplier, day and pay code) with quantities that vary: the files of the load.
 */
export async function writeFiles(db, dir, timesheets) {
  const sqlite = new Database(db, { readonly: true });
  const templates = sqlite
    .prepare(
      `SELECT t.*, e.assignment_id, e.supplier_ref, e.work_date, e.pay_code,
              e.quantity_minutes, e.quantity_units
         FROM (SELECT * FROM timesheets WHERE workspace_id = ?
                ORDER BY created_at DESC, id DESC LIMIT 2000) t
         JOIN time_entries e ON e.id = (SELECT id FROM time_entries WHERE timesheet_id = t.id
                                         ORDER BY created_at, id LIMIT 1)`,
    )
    .all(WORKSPACE);
  sqlite.close();
  const sheetColumns = [
    'id',
    'worker_id',
    'entry_mode',
    'period_start',
    'period_end',
    'status',
    'config_version',
    'approval_instance_ref',
    'submitted_at',
    'decided_at',
    'created_at',
    'updated_at',
  ];
  const template = (i) => templates[i % templates.length];
  const sheetId = (i) => `ts_bulk_${String(i).padStart(7, '0')}`;
  const bytes = await writeCsv(
    join(dir, 'timesheets.csv'),
    sheetColumns,
    (function* () {
      for (let i = 0; i < timesheets; i++) {
        const t = template(i);
        yield sheetColumns.map((c) =>
          c === 'id'
            ? sheetId(i)
            : c === 'approval_instance_ref'
              ? null
              : c === 'created_at' || c === 'updated_at'
                ? CREATED_AT
                : t[c],
        );
      }
    })(),
  );
  const entryBytes = await writeCsv(
    join(dir, 'time_entries.csv'),
    ENTRY_COLUMNS,
    (function* () {
      for (let i = 0; i < timesheets; i++) {
        const t = template(i);
        for (let k = 0; k < ENTRIES_PER_TIMESHEET; k++)
          yield [
            `te_bulk_${String(i).padStart(7, '0')}_${k}`,
            sheetId(i),
            t.assignment_id,
            t.worker_id,
            t.supplier_ref,
            t.work_date,
            t.pay_code,
            t.quantity_minutes === null ? null : 15 + ((i + k) % 32) * 15,
            t.quantity_units,
            'original',
            null,
            k % 7 === 0 ? 1 : 0,
            CREATED_AT,
          ];
      }
    })(),
  );
  return bytes + entryBytes;
}

/** A script under /usr/bin/time: its JSON answer and its peak RSS. */
function timed(script, args) {
  const result = spawnSync('/usr/bin/time', ['-v', process.execPath, script, ...args], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${script} failed: ${result.stderr}`);
  return { ...JSON.parse(result.stdout), peakRssMb: peakRssMbOf(result.stderr) };
}

/**
 * Where the loads go, SQLite: each import into a copy of the seeded file; by hand into a fresh
 * file (bench/bulk-load-baseline.mjs).
 */
function sqliteTarget(seeded, dir) {
  return {
    name: 'SQLite',
    byHand: 'prepared INSERTs in one transaction into a fresh file',
    copy: async () => {
      const { copy } = copyDatabase(seeded);
      return { db: copy, size: async () => sizeOf(copy), remove: async () => removeCopy(copy) };
    },
    hand: async (files, round) => {
      const into = join(dir, `hand-${round}.db`);
      const run = timed('bench/bulk-load-baseline.mjs', [files, into, WORKSPACE]);
      run.bytes = sizeOf(into);
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${into}${suffix}`, { force: true });
      return run;
    },
    stop: async () => {},
  };
}

/**
 * PostgreSQL: a throwaway cluster seeded at the scale (the same seed as the SQLite file the
 * files are drawn from, so the same ids), each import into a database made from it as a template,
 * by hand through COPY into a fresh database (bench/bulk-load-copy-baseline.mjs). Growth is
 * pg_database_size's.
 */
async function postgresTarget(scale) {
  const { cluster } = await seededDatabase({ scale, pg: true }, 'bulk_seeded');
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: cluster.url });
  try {
    await admin.connect();
  } catch (error) {
    cluster.destroy();
    throw error;
  }
  const urlOf = (name) => cluster.url.replace(/\/postgres$/, `/${name}`);
  const size = async (name) =>
    Number((await admin.query(`SELECT pg_database_size('${name}') AS b`)).rows[0].b);
  const fresh = async (name, template) => {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    return urlOf(name);
  };
  return {
    name: 'PostgreSQL',
    byHand: 'COPY of the files in one transaction into a fresh database',
    copy: async () => {
      const db = await fresh('bulk_copy', 'bulk_seeded');
      return {
        db,
        size: () => size('bulk_copy'),
        remove: () => admin.query('DROP DATABASE bulk_copy'),
      };
    },
    hand: async (files, round) => {
      const name = `bulk_hand_${round}`;
      await fresh(name);
      const empty = await size(name);
      const run = timed('bench/bulk-load-copy-baseline.mjs', [files, urlOf(name), WORKSPACE]);
      run.bytes = run.bytes - empty;
      await admin.query(`DROP DATABASE ${name}`);
      return run;
    },
    // The cluster stopped and its folder removed.
    stop: async () => {
      await admin.end().catch(() => {});
      cluster.destroy();
    },
  };
}

export async function bulkLoad({ timesheets = 100_000, scale = 'small', pg = false } = {}) {
  const seeded = benchDb(scale);
  ensureSeeded(seeded, benchSeed(scale));
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-bulk-load-'));
  let target = null;
  try {
    target = pg ? await postgresTarget(scale) : sqliteTarget(seeded, dir);
    const files = join(dir, 'files');
    mkdirSync(files);
    log(`writing ${timesheets} timesheets and ${timesheets * ENTRIES_PER_TIMESHEET} entries`);
    const csvBytes = await writeFiles(seeded, files, timesheets);
    const rows = timesheets * (1 + ENTRIES_PER_TIMESHEET);
    // Each side twice, in turn, the import first in the first round: the better of each.
    const imports = [];
    const hands = [];
    for (let round = 0; round < 2; round++) {
      const hand = async () => {
        log(`by hand (${target.name})`);
        hands.push(await target.hand(files, round));
      };
      if (round === 1) await hand();
      const copy = await target.copy();
      const before = await copy.size();
      log(`importing (${target.name})`);
      const load = await runImport(copy.db, files);
      const counts = load.answer.counts;
      const taken = counts.timesheets.inserted + counts.time_entries.inserted;
      if (taken !== rows) throw new Error(`the import inserted ${taken} of ${rows} rows`);
      imports.push({
        seconds: load.seconds,
        peakRssMb: load.peakRssMb,
        grown: (await copy.size()) - before,
      });
      await copy.remove();
      if (round === 0) await hand();
    }
    const best = (runs) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const load = best(imports);
    const hand = best(hands);
    return {
      store: target.name,
      byHandIs: target.byHand,
      scale,
      timesheets,
      entries: timesheets * ENTRIES_PER_TIMESHEET,
      csvBytes,
      csvBytesPerRow: round(csvBytes / rows),
      import: {
        seconds: round(load.seconds, 2),
        rowsPerSecond: Math.round(rows / load.seconds),
        peakRssMb: load.peakRssMb,
        bytesPerRow: round(load.grown / rows),
        runs: imports.map((r) => round(r.seconds, 2)),
      },
      byHand: {
        seconds: round(hand.seconds, 2),
        rowsPerSecond: Math.round(rows / hand.seconds),
        peakRssMb: hand.peakRssMb,
        bytesPerRow: round(hand.bytes / rows),
        runs: hands.map((r) => round(r.seconds, 2)),
      },
      ratio: round(hand.seconds / load.seconds, 2),
    };
  } finally {
    await target?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The table npm run bench prints. */
export function printBulkLoadTable(result) {
  const { import: load, byHand } = result;
  console.log(
    `\nMany timesheets (${result.timesheets} timesheets, ${result.entries} entries, ${round(result.csvBytes / 1e6)} MB of CSV, into ${result.scale}, ${result.store}; by hand: ${result.byHandIs}):`,
  );
  console.log('| load | seconds | rows/s | peak RSS MB | bytes per row |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  console.log(
    `| vms-read import | ${load.seconds} | ${load.rowsPerSecond} | ${load.peakRssMb} | ${load.bytesPerRow} |`,
  );
  console.log(
    `| by hand | ${byHand.seconds} | ${byHand.rowsPerSecond} | ${byHand.peakRssMb} | ${byHand.bytesPerRow} |`,
  );
  console.log(
    result.store === 'PostgreSQL'
      ? `ratio (import ÷ COPY by hand, rows/s): ${result.ratio}× (target 0.5×)`
      : `ratio (import ÷ by hand, rows/s): ${result.ratio}× (target 0.6×, and 200,000 rows/s)`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      timesheets: { type: 'string', default: '100000' },
      scale: { type: 'string', default: 'small' },
      pg: { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  const result = await bulkLoad({
    timesheets: Number(values.timesheets),
    scale: values.scale,
    pg: values.pg,
  });
  console.log(JSON.stringify(result, null, 2));
  printBulkLoadTable(result);
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}
