import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * Runs report queries on its own read-only connection, off the server's event loop, so a long
 * aggregate never blocks other requests and the pool can abandon it at its time limit.
 */
const db = new Database((workerData as { path: string }).path, {
  readonly: true,
  fileMustExist: true,
});
db.pragma('busy_timeout = 5000');
// Report SQL differs with every query shape (dimensions, filters, order): a bounded cache, so
// memory stays flat however many distinct shapes arrive.
const statements = new LRUCache<string, Database.Statement>({ max: 128 });
/** Statements prepared over this worker's life: the pool retires a worker that prepared many. */
let prepared = 0;

parentPort?.on('message', ({ id, sql, params }: { id: number; sql: string; params: unknown[] }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      // Integers arrive as BigInt so sums beyond 2^53 stay exact.
      statement = db.prepare(sql).safeIntegers(true);
      statements.set(sql, statement);
      prepared++;
    }
    parentPort?.postMessage({
      id,
      rows: statement.all(...params),
      statements: statements.size,
      prepared,
    });
  } catch (error) {
    parentPort?.postMessage({
      id,
      error: (error as Error).message,
      statements: statements.size,
      prepared,
    });
  }
});
