import Database from 'better-sqlite3';
import { createIndexSql, createTableSql } from '../dialect.js';
import type { Row } from '../store.js';
import type { Table } from '../table.js';
import { SideFileThread, type Statement } from './side-file-thread.js';
import { sqliteDialect } from './sqlite-dialect.js';

/** How long a write to a side file may wait for another server's write (ms). */
const BUSY_MS = 1000;
/** How long the writes' own thread may wait for another process's write (ms): the server does not. */
const THREAD_BUSY_MS = 10_000;
/** How long opening it may wait for another process making or upgrading it (ms). */
const OPEN_BUSY_MS = 120_000;

/**
 * A file of its own beside a SQLite database (`<db><suffix>`, with its own WAL), for what servers
 * write while they serve (DESIGN §4.16 "No waiting on loads"): an import holds the database's
 * write lock for as long as it loads, and better-sqlite3 waits for a lock synchronously, so a
 * write to the database itself held the whole server still. The authorization server's records
 * (`-oauth`) and the access trail (`-audit`) are written here, by servers only, in short
 * statements. An in-memory database keeps them in memory too.
 */
export function sideFilePath(databasePath: string, suffix: string): string {
  return databasePath === ':memory:' ? ':memory:' : `${databasePath}${suffix}`;
}

export interface SideFile {
  get(sql: string, params: readonly unknown[]): Promise<Row | null>;
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /** Runs the statements in one transaction (all or none, one commit): their changes. */
  runBatch(batch: readonly Statement[]): Promise<number>;
  /** Writes the WAL into the file and truncates it (after an erasure: no old page left in it). */
  checkpoint(): void;
  close(): void;
}

export interface SideFileOptions {
  /**
   * Runs once, in the transaction that makes the file: what an older version kept elsewhere
   * moves in then.
   */
  made?: (db: Database.Database) => void;
  /**
   * A file's `user_version` is 1 + the upgrades it has had: `upgrades[i]` takes a file of version
   * i + 1 to the next, before the tables are made (a fresh file is made at the last version at once).
   */
  upgrades?: readonly ((db: Database.Database) => void)[];
  /**
   * Writes (`run`) on a thread of their own with its own connection (side-file-thread.ts), for a
   * file written on every request (the access trail): the server's event loop hands the
   * statement over and goes on. Reads stay on this connection. Not for an in-memory database,
   * which one connection alone sees.
   */
  writeOnThread?: boolean;
}

/** Opens the side file, creating it and its tables when missing (SideFileOptions). */
export function openSideFile(
  databasePath: string,
  suffix: string,
  tables: readonly Table[],
  { made = () => {}, upgrades = [], writeOnThread = false }: SideFileOptions = {},
): SideFile {
  const path = sideFilePath(databasePath, suffix);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Making or upgrading the file (another process may be doing it: it holds the lock meanwhile)
  // may wait longer than a write does.
  db.pragma(`busy_timeout = ${OPEN_BUSY_MS}`);
  // What is removed (a revoked grant, an erased worker's sign-in) is overwritten, as in the database.
  db.pragma('secure_delete = ON');
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > 0) for (const upgrade of upgrades.slice(version - 1)) upgrade(db);
    db.exec(
      tables
        .flatMap((table) => [createTableSql(sqliteDialect, table), ...createIndexSql(table)])
        .map((statement) => statement.replace(/^CREATE (TABLE|INDEX) /, 'CREATE $1 IF NOT EXISTS '))
        .join(';\n'),
    );
    if (version === 0) made(db);
    db.pragma(`user_version = ${1 + upgrades.length}`);
  }).immediate();
  db.pragma(`busy_timeout = ${BUSY_MS}`);
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const thread =
    writeOnThread && path !== ':memory:' ? new SideFileThread(path, THREAD_BUSY_MS) : null;
  return {
    get: async (sql, params) => (prepare(sql).get(...params) as Row | undefined) ?? null,
    all: async (sql, params) => prepare(sql).all(...params) as Row[],
    run: thread
      ? (sql, params) => thread.run(sql, params)
      : async (sql, params) => prepare(sql).run(...params).changes,
    runBatch: thread
      ? (batch) => thread.runBatch(batch)
      : async (batch) =>
          db.transaction(() =>
            batch.reduce(
              (changes, { sql, params }) => changes + prepare(sql).run(...params).changes,
              0,
            ),
          )(),
    checkpoint: () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    close: () => {
      thread?.close();
      if (db.open) db.close();
    },
  };
}
