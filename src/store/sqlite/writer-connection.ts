import Database from 'better-sqlite3';

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** The connection's page cache, in KiB. */
const WRITER_CACHE_KB = 2048;
/**
 * Prepared statements by SQL, at most STATEMENTS (the oldest forgotten first): the writers post a
 * few shapes (audit-records.ts writes chunks of nine sizes), and a bound keeps it so whatever a
 * caller posts (issue 56: one statement per batch size held 119 MB).
 */
const STATEMENTS = 64;

/** A side file's writing connection on a thread of its own: its statements and batches. */
export interface WriterConnection {
  run(sql: string, params: readonly unknown[]): number;
  /** The statements in one transaction: one commit, all or none (the trail's batches). */
  runBatch(batch: readonly Statement[]): number;
  close(): void;
}

/**
 * Opens a side file (side-file.ts) for a thread that only writes to it: the server's writes
 * (side-file-writer.ts) or the access trail's chain (chain-thread-entry.ts). Waiting for another
 * process's write lock is harmless there, so it waits longer than the server's own connections.
 */
export function writerConnection(path: string, busyMs: number): WriterConnection {
  const db = new Database(path, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${busyMs}`);
  db.pragma('secure_delete = ON');
  // Pages kept in memory: better-sqlite3 builds SQLite with 16 MB by default, and this connection
  // only appends (the right edges of its tables and indexes), so it filled them with pages it
  // never read again as the file grew: the access trail's thread reached 20 MB of the server's
  // memory after some 10,000 answered requests (issue 56). 2 MB: as fast, measured.
  db.pragma(`cache_size = -${WRITER_CACHE_KB}`);
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string): Database.Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      const oldest = statements.size >= STATEMENTS ? statements.keys().next().value : undefined;
      if (oldest !== undefined) statements.delete(oldest);
      statements.set(sql, (statement = db.prepare(sql)));
    }
    return statement;
  };
  const run = (sql: string, params: readonly unknown[]) => prepared(sql).run(...params).changes;
  const runBatch = db.transaction((batch: readonly Statement[]) =>
    batch.reduce((changes, { sql, params }) => changes + run(sql, params), 0),
  );
  return { run, runBatch: (batch) => runBatch(batch), close: () => db.close() };
}
