// The files a load of the loads benchmark (bench/loads.mjs) imports: new time entries copied
// from the workspace's recent ones, its timesheets updated to the next status, written as CSV;
// the timesheets by status a report must come to show; and `vms-read import` of such a folder.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, statSync } from 'node:fs';
import { CLI, commandRun, peakRssMbOf } from './lib.mjs';

/** The biggest workspace of every scale: its plan's page is 100, the loads target is set for it. */
export const WORKSPACE = 'ws_enterprise';

/** How many recent timesheets lend their (timesheet, assignment, worker) to the new entries. */
export const TEMPLATES = 2000;

/** A new entry's creation time: fixed, so runs compare; recent against the seed's as-of date. */
const CREATED_AT = '2026-06-29T12:00:00.000Z';

/**
 * Updated timesheets carry an `updated_at` after every stored one, one millisecond apart and
 * increasing across the runs of this process, so each update load replaces what the one before
 * wrote (an equal or earlier time would be refused or skipped).
 */
// Two hours ago, a millisecond per row: later than anything the seed stamps, and never in the
// future (an import refuses an updated_at more than 5 minutes after its clock), even for a
// million updates (about 17 minutes of stamps).
let updateClock = Date.now() - 2 * 3_600_000;

/** Each status moves to the next, so every updated row changes the report's counts. */
const NEXT_STATUS = {
  draft: 'submitted',
  submitted: 'approved',
  approved: 'rejected',
  rejected: 'draft',
};

// ---------------------------------------------------------------------------------------------
// The files a load imports

/** A CSV field: empty for null (as the importer reads it), quoted when it must be. */
const csvField = (value) => {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** Writes `rows` (an iterable of arrays) under a header, in chunks, minding back-pressure. */
export async function writeCsv(file, columns, rows) {
  const out = createWriteStream(file);
  let chunk = [`${columns.join(',')}`];
  const flush = async () => {
    if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain');
    chunk = [];
  };
  for (const row of rows) {
    chunk.push(row.map(csvField).join(','));
    if (chunk.length >= 10_000) await flush();
  }
  if (chunk.length > 0) await flush();
  out.end();
  await once(out, 'close');
  return statSync(file).size;
}

/**
 * The first entry of each of the workspace's most recent timesheets: new entries copy their
 * timesheet, assignment, worker, supplier, day and pay code, so each one names real records and
 * lands where the seed's entries are.
 */
export function entryTemplates(sqlite) {
  return sqlite.prepare(entryTemplatesSql('?', '?')).all(WORKSPACE, TEMPLATES);
}

/** Its query, with the placeholders of a dialect for the workspace and the number of templates. */
export const entryTemplatesSql = (workspace, templates) =>
  `SELECT e.timesheet_id, e.assignment_id, e.worker_id, e.supplier_ref, e.work_date,
          e.pay_code, e.quantity_minutes, e.quantity_units
     FROM (SELECT id FROM timesheets WHERE workspace_id = ${workspace}
            ORDER BY created_at DESC, id DESC LIMIT ${templates}) t
     JOIN time_entries e ON e.id = (SELECT id FROM time_entries WHERE timesheet_id = t.id
                                     ORDER BY created_at, id LIMIT 1)`;

export const ENTRY_COLUMNS = [
  'id',
  'timesheet_id',
  'assignment_id',
  'worker_id',
  'supplier_ref',
  'work_date',
  'pay_code',
  'quantity_minutes',
  'quantity_units',
  'kind',
  'corrects_entry_id',
  'captured_on_behalf',
  'created_at',
];

/** N new original time entries spread over the templates, with ids no run has used. */
export function* newEntries(templates, n, run) {
  for (let i = 0; i < n; i++) {
    const t = templates[i % templates.length];
    yield [
      `te_load_${run}_${i}`,
      t.timesheet_id,
      t.assignment_id,
      t.worker_id,
      t.supplier_ref,
      t.work_date,
      t.pay_code,
      t.quantity_minutes === null ? null : 15 + (i % 32) * 15,
      t.quantity_units,
      'original',
      null,
      i % 7 === 0 ? 1 : 0,
      CREATED_AT,
    ];
  }
}

/**
 * N of the workspace's timesheets (all of them when it holds fewer) as stored, each with the
 * next status and a later `updated_at`: N updates.
 */
export function updatedTimesheets(sqlite, n) {
  const stored = sqlite
    .prepare(
      'SELECT * FROM timesheets WHERE workspace_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
    )
    .all(WORKSPACE, n);
  const columns = Object.keys(stored[0] ?? {}).filter((c) => c !== 'workspace_id');
  const rows = stored.map((row) =>
    columns.map((c) =>
      c === 'status'
        ? NEXT_STATUS[row.status]
        : c === 'updated_at'
          ? new Date(updateClock++).toISOString()
          : row[c],
    ),
  );
  return { columns, rows };
}

/** Timesheets by status, as the row store holds them now: what the report must come to show. */
export function statusCounts(sqlite) {
  return Object.fromEntries(
    sqlite
      .prepare(
        'SELECT status, COUNT(*) AS n FROM timesheets WHERE workspace_id = ? GROUP BY status',
      )
      .all(WORKSPACE)
      .map((r) => [r.status, r.n]),
  );
}

// ---------------------------------------------------------------------------------------------
// The import

/**
 * `vms-read import` under /usr/bin/time (of the CLI at `cliPath`: this build's by default): wall
 * seconds, peak RSS and its JSON answer.
 */
export async function runImport(db, dir, cliPath = CLI) {
  const started = performance.now();
  const { code, stdout, stderr } = await spawnImport(db, dir, cliPath).exited;
  const exitedAt = performance.now();
  if (code !== 0)
    throw new Error(`vms-read import ${dir} failed (${code}): ${stderr.slice(-2000)}`);
  return {
    exitedAt,
    seconds: (exitedAt - started) / 1000,
    peakRssMb: peakRssMbOf(stderr),
    answer: JSON.parse(stdout),
  };
}

/**
 * `vms-read import` of `dir` into the workspace, under /usr/bin/time, as a child (of the CLI at
 * `cliPath`: this build's by default): `exited` resolves with its exit code, stdout and stderr.
 */
export function spawnImport(db, dir, cliPath = CLI) {
  const command = commandRun(cliPath, ['import', '--db', db, '--workspace', WORKSPACE, dir]);
  const child = spawn('/usr/bin/time', ['-v', process.execPath, ...command.args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: command.env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { child, exited: once(child, 'exit').then(([code]) => ({ code, stdout, stderr })) };
}
