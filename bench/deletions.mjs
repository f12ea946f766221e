// Deletions and erasure at scale (issue 33): into a copy of the seeded database, while a server
// runs on it, `vms-read import` of a deletions.csv naming timesheets that hold 10,000 time
// entries (they go with them), and how long until a report on the running server reflects it from
// its columnar copy, and whether that copy was patched (not written anew); then `vms-read erase`
// of one worker. Each beside a baseline measured in the same run on its own copy: the same rows
// deleted (the entries noted for the copies, the entries, the timesheets) or the same worker updated and the log
// truncated, by hand-written SQL through better-sqlite3, without the importer, change log,
// audiences or the CLI's start.
// Usage: npm run build && node bench/deletions.mjs [--scale large] [--db F] [--entries 10000]
//        [--out F]
import Database from 'better-sqlite3';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runImport, WORKSPACE, writeCsv } from './load-files.mjs';
import {
  askReport,
  copyDatabase,
  removeCopy,
  startServer,
  untilReflected,
} from './load-server.mjs';
import {
  benchDb,
  benchSeed,
  cli,
  ensureSeeded,
  log as say,
  machine,
  round,
  waitFor,
} from './lib.mjs';

const log = (message) => say(`[deletions] ${message}`);

/** The targets, shown beside the figures. */
export const TARGETS = { deleteSeconds: 3, reflectedMs: 1000, eraseSeconds: 2 };

const TOTAL_ENTRIES = { metrics: ['time_entry_count'], dimensions: [] };
const SCOPES = 'read:program,read:financial,read:workforce,read:pii';

/** Timesheets of the workspace, in id order, until their entries reach `entries`. */
function timesheetsHolding(sqlite, entries) {
  const picked = [];
  let held = 0;
  const rows = sqlite
    .prepare(
      `SELECT t.id AS id, (SELECT COUNT(*) FROM time_entries e WHERE e.timesheet_id = t.id) AS n
         FROM timesheets t WHERE t.workspace_id = ? ORDER BY t.id`,
    )
    .iterate(WORKSPACE);
  for (const row of rows) {
    if (row.n === 0) continue;
    picked.push(row.id);
    held += row.n;
    if (held >= entries) break;
  }
  return { ids: picked, entries: held };
}

/**
 * A baseline: `work` timed on a fresh copy of the seeded database opened by better-sqlite3 as
 * the store opens it (WAL, commits not synced, freed space zeroed), the copy removed after.
 */
function onCopy(source, work) {
  const { copy } = copyDatabase(source);
  try {
    // The copy's pages written out first: else the first synced write (the erasure's checkpoint)
    // pays for the whole fresh copy's write-back, as the timed command does not.
    for (const file of [copy, `${copy}-wal`].filter((f) => existsSync(f))) {
      const fd = openSync(file, 'r+');
      fsyncSync(fd);
      closeSync(fd);
    }
    const db = new Database(copy);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('secure_delete = ON');
    const started = performance.now();
    work(db);
    const seconds = (performance.now() - started) / 1000;
    db.close();
    return seconds;
  } finally {
    removeCopy(copy);
  }
}

/** The data version the baseline's deletion notes (the copy is thrown away: any value writes alike). */
const NEXT_VERSION = 1_000_000;

/**
 * The baseline of a deletion: the same entries noted for the columnar copies (`fact_deletions`,
 * as a load does since schema 18 keeps no fact tables), then the entries and timesheets deleted,
 * by plain SQL.
 */
const baselineDeletion = (source, ids) =>
  onCopy(source, (db) =>
    db.transaction(() => {
      db.exec('CREATE TEMP TABLE doomed (id TEXT PRIMARY KEY)');
      const add = db.prepare('INSERT INTO doomed (id) VALUES (?)');
      for (const id of ids) add.run(id);
      db.exec(`INSERT INTO fact_deletions (kind, id, version)
        SELECT 'entry', e.id, ${NEXT_VERSION} FROM time_entries e WHERE e.timesheet_id IN (SELECT id FROM doomed)`);
      db.exec('DELETE FROM time_entries WHERE timesheet_id IN (SELECT id FROM doomed)');
      db.exec('DELETE FROM timesheets WHERE id IN (SELECT id FROM doomed)');
    })(),
  );

/** The baseline of an erasure: the same row updated and the write-ahead log truncated. */
const baselineErasure = (source, workerId) =>
  onCopy(source, (db) => {
    db.prepare(
      "UPDATE workers SET display_name = '(erased)', work_email = NULL, updated_at = ? WHERE id = ?",
    ).run(new Date().toISOString(), workerId);
    db.pragma('wal_checkpoint(TRUNCATE)');
  });

/** `vms-read erase` with its wall time. */
function timedErase(db, workerId) {
  const started = performance.now();
  const answer = JSON.parse(
    cli(['erase', '--db', db, '--workspace', WORKSPACE, '--worker', workerId]),
  );
  return { seconds: (performance.now() - started) / 1000, answer };
}

async function main() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: 'large' },
      db: { type: 'string' },
      entries: { type: 'string', default: '10000' },
      out: { type: 'string' },
    },
  });
  const wanted = Number(values.entries);
  const seed = benchSeed(values.scale);
  const source = values.db ?? benchDb(values.scale);
  const seedFigures = ensureSeeded(source, seed);
  const sourceDb = new Database(source, { readonly: true });
  const doomed = timesheetsHolding(sourceDb, wanted);
  const [worker] = sourceDb
    .prepare(
      'SELECT id FROM workers WHERE workspace_id = ? AND work_email IS NOT NULL ORDER BY id LIMIT 1',
    )
    .all(WORKSPACE);
  sourceDb.close();
  log(`${doomed.ids.length} timesheets holding ${doomed.entries} entries; worker ${worker.id}`);

  log('baselines: the same deletion and erasure by plain SQL');
  const baseline = {
    deleteSeconds: baselineDeletion(source, doomed.ids),
    eraseSeconds: baselineErasure(source, worker.id),
  };

  const { copy } = copyDatabase(source);
  const filesDir = mkdtempSync(join(tmpdir(), 'vms-read-deletions-'));
  let server = null;
  try {
    const token = cli([
      'token',
      'create',
      '--db',
      copy,
      '--workspace',
      WORKSPACE,
      '--role',
      'staff',
      '--scopes',
      SCOPES,
    ]).trim();
    const auth = { authorization: `Bearer ${token}` };
    server = await startServer(copy);
    await waitFor(`${server.base}/healthz`, 180);
    const first = await untilReflected(server, auth, TOTAL_ENTRIES, () => true, performance.now());
    if (first.ms === null) throw new Error('the server never answered a report from duckdb');
    const before = (await askReport(server, auth, TOTAL_ENTRIES, 0)).rows[0].time_entry_count;

    await writeCsv(
      join(filesDir, 'deletions.csv'),
      ['type', 'id', 'deleted_at'],
      doomed.ids.map((id) => ['timesheet', id, new Date().toISOString()]),
    );
    log(`importing deletions.csv (${doomed.ids.length} timesheets)`);
    const factsLogFrom = server.factsLog.length;
    const imported = await runImport(copy, filesDir);
    const counts = imported.answer.counts;
    if (counts.time_entries.deleted !== doomed.entries)
      throw new Error(`expected ${doomed.entries} entries deleted, got ${JSON.stringify(counts)}`);
    const reflected = await untilReflected(
      server,
      auth,
      TOTAL_ENTRIES,
      (rows) => rows[0]?.time_entry_count === before - doomed.entries,
      imported.exitedAt,
    );
    const factsLog = server.factsLog.slice(factsLogFrom).map((e) => e.message);
    const rewritten = factsLog.some((m) => /new copy is written/.test(m));
    log(`erasing worker ${worker.id}`);
    const erased = timedErase(copy, worker.id);

    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      scale: values.scale,
      seed: { ...seed, ...seedFigures },
      workspace: WORKSPACE,
      targets: TARGETS,
      deletion: {
        timesheets: doomed.ids.length,
        entries: doomed.entries,
        seconds: round(imported.seconds, 2),
        baselineSeconds: round(baseline.deleteSeconds, 3),
        peakRssMb: imported.peakRssMb,
        counts: { timesheets: counts.timesheets, time_entries: counts.time_entries },
        reflectedMs: reflected.ms,
        fellBackToRowStore: reflected.engines.sqlite + reflected.engines.postgres > 0,
        copyWrittenAnew: rewritten,
        serverLog: factsLog,
      },
      erasure: {
        worker: worker.id,
        seconds: round(erased.seconds, 2),
        baselineSeconds: round(baseline.eraseSeconds, 3),
        answer: erased.answer,
      },
    };
    const mark = (ok) => (ok ? '✓' : '✗');
    const d = result.deletion;
    const e = result.erasure;
    console.log(
      `\ndeletions and erasure in ${WORKSPACE} (scale ${values.scale}), a server running on the database`,
    );
    console.log(
      `delete ${d.timesheets} timesheets with ${d.entries} entries: ${d.seconds} s (baseline, plain SQL: ${d.baselineSeconds} s; ${round(d.seconds / d.baselineSeconds, 1)}×), target ≤ ${TARGETS.deleteSeconds} s ${mark(d.seconds <= TARGETS.deleteSeconds)}`,
    );
    console.log(
      `  reflected from the columnar copy after ${d.reflectedMs ?? 'never'} ms, target ≤ ${TARGETS.reflectedMs} ms ${mark(d.reflectedMs !== null && d.reflectedMs <= TARGETS.reflectedMs)}; copy written anew: ${d.copyWrittenAnew ? 'yes ✗' : 'no ✓'}`,
    );
    console.log(
      `erase one worker: ${e.seconds} s (baseline, plain SQL: ${e.baselineSeconds} s; the rest is the CLI's start), target ≤ ${TARGETS.eraseSeconds} s ${mark(e.seconds <= TARGETS.eraseSeconds)}`,
    );
    const out =
      values.out ??
      `bench/results/deletions-${values.scale}-${result.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    log(`written to ${out}`);
  } finally {
    await server?.stop();
    removeCopy(copy);
    rmSync(filesDir, { recursive: true, force: true });
  }
}

await main();
