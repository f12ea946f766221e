// Attack 3's import: 1,000,000 new time entries (bench/load-files.mjs' generator) written once to
// bench/data, and `vms-read import` of them by the build under test.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ENTRY_COLUMNS,
  entryTemplates,
  entryTemplatesSql,
  newEntries,
  spawnImport,
  TEMPLATES,
  WORKSPACE as IMPORT_WORKSPACE,
  writeCsv,
} from '../load-files.mjs';
import { log, round } from './common.mjs';
import { pgQuery } from './databases.mjs';

export { IMPORT_WORKSPACE };

/** The first entry of each of the import workspace's recent timesheets (load-files' query). */
async function entryTemplatesOf(store) {
  if (store.kind === 'sqlite') {
    const sqlite = new Database(store.db, { readonly: true });
    try {
      return entryTemplates(sqlite);
    } finally {
      sqlite.close();
    }
  }
  return pgQuery(store.db, entryTemplatesSql('$1', '$2'), [IMPORT_WORKSPACE, TEMPLATES]);
}

/**
 * The folder of `rows` new time entries (bench/load-files.mjs' generator), made once per set of
 * templates and kept in bench/data for later runs.
 */
export async function importFolder(store, rows) {
  const templates = await entryTemplatesOf(store);
  const digest = createHash('sha256').update(JSON.stringify(templates)).digest('hex').slice(0, 12);
  const dir = resolve(`bench/data/open-internet-import-${rows}-${digest}`);
  const file = join(dir, 'time_entries.csv');
  if (existsSync(`${dir}.done`)) return { dir, bytes: statSync(file).size };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`writing ${rows} new time entries to ${file}`);
  const bytes = await writeCsv(file, ENTRY_COLUMNS, newEntries(templates, rows, 'open_internet'));
  writeFileSync(`${dir}.done`, '');
  return { dir, bytes };
}

/**
 * `vms-read import` of the build under /usr/bin/time, not awaited: its start, its process (that of
 * /usr/bin/time) and its promise.
 */
export function startImport(build, db, dir) {
  const startedAt = Date.now();
  const { child, exited } = spawnImport(db, dir, build.cli);
  const done = exited.then(({ code, stdout, stderr }) => {
    const endedAt = Date.now();
    let answer = null;
    try {
      answer = JSON.parse(stdout);
    } catch {
      // failed: stderr says why
    }
    return {
      code,
      startedAt,
      endedAt,
      seconds: round((endedAt - startedAt) / 1000, 2),
      peakRssMb: round(
        Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN) / 1024,
      ),
      counts: answer?.counts?.time_entries ?? null,
      ...(code === 0 ? {} : { stderr: stderr.slice(-1500) }),
    };
  });
  return { startedAt, pid: child.pid, done };
}
