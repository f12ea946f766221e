import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * A side file's writes on a thread of their own (side-file.ts): its own connection runs each
 * statement the server posts, and the commit's work (the B-trees, the WAL, its checkpoints) is
 * done here, off the server's event loop. Waiting for another process's write lock is harmless
 * here, so it waits longer than the server's own connections would.
 */
const { path, busyMs } = workerData as { path: string; busyMs: number };
/** The connection's page cache, in KiB. */
const WRITER_CACHE_KB = 2048;
const db = new Database(path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma(`busy_timeout = ${busyMs}`);
db.pragma('secure_delete = ON');
// Pages kept in memory: better-sqlite3 builds SQLite with 16 MB by default, and this connection
// only appends (the right edges of its tables and indexes), so it filled them with pages it never
// read again as the file grew: the access trail's thread reached 20 MB of the server's memory
// after some 10,000 answered requests (issue 56). 2 MB: as fast, measured.
db.pragma(`cache_size = -${WRITER_CACHE_KB}`);
/**
 * Prepared statements by SQL, at most STATEMENTS (the oldest forgotten first): the writers post a
 * few shapes (audit-records.ts writes chunks of nine sizes), and a bound keeps it so whatever a
 * caller posts (issue 56: one statement per batch size held 119 MB).
 */
const STATEMENTS = 64;
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

interface Statement {
  sql: string;
  params: unknown[];
}

/** A batch's statements in one transaction: one commit, all or none (the trail's batches). */
const runBatch = db.transaction((batch: Statement[]) => {
  let changes = 0;
  for (const { sql, params } of batch) changes += prepared(sql).run(...params).changes;
  return changes;
});

parentPort?.on(
  'message',
  (message: ({ id: number } & (Statement | { batch: Statement[] })) | 'close') => {
    if (message === 'close') {
      db.close();
      parentPort?.close();
      return;
    }
    try {
      const changes =
        'batch' in message
          ? runBatch(message.batch)
          : prepared(message.sql).run(...message.params).changes;
      parentPort?.postMessage({ id: message.id, changes });
    } catch (error) {
      const { message: text, code } = error as { message: string; code?: string };
      parentPort?.postMessage({ id: message.id, error: text, code });
    }
  },
);
