import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
// The columnar copy's modules (DuckDB's, the catalog's and the records' schemas: about 400 files)
// are loaded when a copy is opened or written, not by commands that only read the store (`audit
// worker` started in 0.55 s, most of it loading modules it never ran).
import type { BuiltFacts } from './duckdb/build-facts.js';
import type { ColumnarOptions } from './duckdb/columnar-reports.js';
import type { DuckdbSettings } from './duckdb/duckdb-facts.js';
import { createPostgresDatabase } from './postgres/create-database.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { ReportFacts, Store } from './store.js';

export { NoDatabaseError } from './no-database-error.js';
import { NoDatabaseError } from './no-database-error.js';

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//.test(db);
}

/** A postgres URL as a message may show it: any password masked. */
export function maskedUrl(db: string): string {
  try {
    const url = new URL(db);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString();
  } catch {
    return 'the postgres URL given';
  }
}

/**
 * Why the file at `path` is not a vms-read database, or null when it is one (of any schema
 * version: opening migrates it). Opened read-only, so a refused file is left exactly as it was.
 */
function sqliteProblem(path: string): string | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 'no such file';
  if (!stat.isFile()) return 'not a file';
  if (stat.size === 0) return 'the file is empty';
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = db
      .prepare(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'workspaces')",
      )
      .pluck()
      .get() as number;
    return version >= 1 && tables === 2 ? null : "a SQLite database without vms-read's tables";
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_NOTADB') return 'not a SQLite database';
    throw error;
  } finally {
    db?.close();
  }
}

/**
 * What a seed finds at a SQLite path, read without changing it: nothing (no file or an empty
 * one), a vms-read database with or without data, or something else it must not overwrite.
 */
export function sqliteSeedTarget(path: string): 'none' | 'empty' | 'data' | 'foreign' {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || (stat.isFile() && stat.size === 0)) return 'none';
  if (sqliteProblem(path) !== null) return 'foreign';
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT 1 FROM workspaces LIMIT 1').get() ? 'data' : 'empty';
  } finally {
    db.close();
  }
}

const NO_SUCH_DATABASE = 'no such PostgreSQL database';

/** The same question of a PostgreSQL database, asked without writing anything. */
async function postgresProblem(store: PostgresStore): Promise<string | null> {
  try {
    const row = await store.get(
      "SELECT to_regclass('schema_version') IS NOT NULL AND to_regclass('meta') IS NOT NULL AND to_regclass('workspaces') IS NOT NULL AS ok",
    );
    return row?.ok === true ? null : "a PostgreSQL database without vms-read's tables";
  } catch (error) {
    // invalid_catalog_name: the server answered, and has no database of that name.
    if ((error as { code?: string }).code === '3D000') return NO_SUCH_DATABASE;
    throw error;
  }
}

function noDatabase(where: string, problem: string): NoDatabaseError {
  return new NoDatabaseError(
    `no vms-read database at ${where}: ${problem} (only vms-read seed and demo create one)`,
  );
}

/**
 * Opens and migrates the store a `--db` value names: a `postgres://` URL or a SQLite file path.
 * Unless `create` is set (`seed`, `demo`), it must already be a vms-read database, or this
 * throws NoDatabaseError having changed nothing. `poolSize` (VMS_READ_PG_POOL_SIZE) is
 * PostgreSQL's connection count, default 10.
 */
export async function openStore(
  db: string,
  options: { create?: boolean; poolSize?: number } = {},
): Promise<Store> {
  const postgres = isPostgresUrl(db);
  if (!options.create && !postgres) {
    const problem = sqliteProblem(resolve(db));
    if (problem !== null) throw noDatabase(resolve(db), problem);
  }
  const store = postgres
    ? new PostgresStore(db, { poolSize: options.poolSize })
    : new SqliteStore(db);
  try {
    if (store instanceof PostgresStore) {
      const problem = await postgresProblem(store);
      // seed and demo make the database itself when the server has none of that name.
      if (options.create && problem === NO_SUCH_DATABASE) await createPostgresDatabase(db);
      else if (!options.create && problem !== null) throw noDatabase(maskedUrl(db), problem);
    }
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * The folder of a database's columnar copies: `<file>.facts` beside a SQLite file, or, for a
 * PostgreSQL URL, a folder named by a hash of the URL (password left out) under the system's
 * temporary directory. `root` (VMS_READ_FACTS_DIR) replaces the parent folder in both cases.
 */
export function factsDirOf(db: string, root?: string): string {
  if (!isPostgresUrl(db)) {
    const file = resolve(db);
    return join(root ? resolve(root) : dirname(file), `${basename(file)}.facts`);
  }
  const url = new URL(db);
  url.password = '';
  url.searchParams.delete('password');
  const name = `pg-${createHash('sha256').update(url.toString()).digest('hex').slice(0, 16)}`;
  return join(root ? resolve(root) : join(tmpdir(), 'vms-read-facts'), name);
}

export interface ReportFactsOptions extends DuckdbSettings {
  /** `columnar` (default) or `row` (VMS_READ_REPORT_ENGINE). */
  engine?: 'columnar' | 'row';
  /** VMS_READ_FACTS_DIR. */
  root?: string;
  log?: ColumnarOptions['log'];
}

/**
 * What the service's reports read for the database `db` names: the columnar copy kept at the
 * store's data stamp (opened now if it exists, else written in the background), or with
 * `engine: 'row'` the store itself. Closing it closes the copy, not the store.
 */
export async function openReportFacts(
  store: Store,
  db: string,
  options: ReportFactsOptions = {},
): Promise<ReportFacts & { close(): Promise<void> }> {
  if (options.engine === 'row') {
    return {
      reportConcurrency: store.reportConcurrency,
      latestConfig: (workspaceId) => store.latestConfig(workspaceId),
      catalogStamp: (workspaceId) => store.catalogStamp(workspaceId),
      catalogEntries: (workspaceId) => store.catalogEntries(workspaceId),
      reportEngine: () => store.reportEngine(),
      close: async () => {},
    };
  }
  const { ColumnarReports } = await import('./duckdb/columnar-reports.js');
  const facts = new ColumnarReports(store, { ...options, dir: factsDirOf(db, options.root) });
  await facts.warm();
  return facts;
}

/** After a load (seed, import, refresh): writes the columnar copy for the new data stamp. */
export async function writeColumnarFacts(
  store: Store,
  db: string,
  options: ReportFactsOptions = {},
): Promise<BuiltFacts | null> {
  if (options.engine === 'row') return null;
  const { buildColumnarFacts } = await import('./duckdb/build-facts.js');
  return buildColumnarFacts(store, factsDirOf(db, options.root), options);
}
