// `vms-read import` of a generated file of N time entries into a tiny seeded database: rows per
// second and the import process's peak RSS (the target: ≥ 200k rows/s, ≤ 300 MB at any size).
// Usage: npm run build && node bench/import.mjs [--rows 200000] [--format csv|ndjson] [--out F]
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, cli, commandRun, log } from './lib.mjs';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    format: { type: 'string', default: 'csv' },
    out: { type: 'string' },
  },
});
const ROWS = Number(values.rows);
const round = (x, digits = 1) => Number(x.toFixed(digits));

const dir = mkdtempSync(join(tmpdir(), 'vms-read-import-bench-'));
try {
  const db = join(dir, 'bench.db');
  cli(['seed', '--db', db, '--scale', 'tiny', '--seed', '1', '--as-of', '2026-06-30']);
  const sqlite = new Database(db, { readonly: true });
  const ts = sqlite
    .prepare(
      "SELECT t.id, t.worker_id, e.assignment_id FROM timesheets t JOIN time_entries e ON e.timesheet_id = t.id WHERE t.workspace_id = 'ws_business' LIMIT 1",
    )
    .get();
  sqlite.close();

  const files = join(dir, 'files');
  mkdirSync(files);
  const file = join(files, `time_entries.${values.format}`);
  log(`writing ${ROWS} time entries to ${file}`);
  const out = createWriteStream(file);
  const AT = '2026-06-10T09:00:00.000Z';
  const columns = [
    'id',
    'timesheet_id',
    'assignment_id',
    'worker_id',
    'work_date',
    'pay_code',
    'quantity_minutes',
    'kind',
    'captured_on_behalf',
    'created_at',
  ];
  if (values.format === 'csv') out.write(`${columns.join(',')}\n`);
  for (let i = 0; i < ROWS; i++) {
    const row = [
      `te_bench_${i}`,
      ts.id,
      ts.assignment_id,
      ts.worker_id,
      `2026-0${1 + (i % 6)}-1${i % 10}`,
      'REG',
      60 + (i % 480),
      'original',
      i % 2,
      AT,
    ];
    const line =
      values.format === 'csv'
        ? row.join(',')
        : JSON.stringify(
            Object.fromEntries(
              columns.map((c, k) => [c, c === 'captured_on_behalf' ? row[k] === 1 : row[k]]),
            ),
          );
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');

  log('importing');
  const started = performance.now();
  const command = commandRun(CLI, ['import', '--db', db, '--workspace', 'ws_business', files]);
  const child = spawn('/usr/bin/time', ['-v', process.execPath, ...command.args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...command.env, ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}) },
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`import failed: ${stderr}`);
  // The import's counts per table are what it did with the rows (inserted, updated, …): every
  // row of the file was read and written, whichever it was.
  const entries = JSON.parse(stdout).counts.time_entries;
  const imported = entries.inserted + entries.updated + entries.unchanged;
  if (imported !== ROWS) throw new Error(`imported ${imported} of ${ROWS} rows: ${stdout}`);
  const peakMb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)[1]) / 1024;
  const factsMs = Number(/columnar report facts written to .* in (\d+) ms/.exec(stderr)?.[1] ?? 0);
  const result = {
    rows: imported,
    format: values.format,
    bytes: readFileSync(file).length,
    seconds: round(seconds, 2),
    rowsPerSecond: Math.round(imported / seconds),
    columnarCopySeconds: round(factsMs / 1000, 2),
    rowsPerSecondWithoutCopy: Math.round(imported / (seconds - factsMs / 1000)),
    peakRssMb: round(peakMb),
  };
  console.log(JSON.stringify(result, null, 2));
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  if (process.env.BENCH_KEEP) log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
