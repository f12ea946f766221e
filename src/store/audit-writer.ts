import type { AuditRecords } from './sql/audit/audit-records.js';

/**
 * Where a thread of its own writes the access trail's chain (audit/chain-thread.ts): the SQLite
 * database's `-audit` side file, or the PostgreSQL database by its URL on a connection of the
 * thread's own. A store no other thread can open (in memory) has none.
 */
export type AuditWriterTarget =
  { store: 'sqlite'; path: string } | { store: 'postgres'; url: string; timeoutMs: number };

/** What the chain's writer needs of the store: starting its chain and appending its events. */
export type ChainRecords = Pick<AuditRecords, 'startAuditChain' | 'appendAuditEvents'>;

/** How long the thread's SQLite connection waits for another process's write lock (ms). */
const SQLITE_BUSY_MS = 10_000;

/**
 * Opens the trail's records on the calling thread with a connection of its own (the same
 * statements as the store's, audit-records.ts): better-sqlite3 on the side file, or `pg` with a
 * pool of one whose every query is bounded, as the store's are.
 */
export async function openAuditWriter(
  target: AuditWriterTarget,
): Promise<{ records: ChainRecords; close(): Promise<void> }> {
  const { auditRecords } = await import('./sql/audit/audit-records.js');
  const noReads = async (): Promise<never> => {
    throw new Error('the chain writer does not read');
  };
  if (target.store === 'sqlite') {
    const { writerConnection } = await import('./sqlite/writer-connection.js');
    const connection = writerConnection(target.path, SQLITE_BUSY_MS);
    const records = auditRecords({
      all: noReads,
      run: async (sql, params) => connection.run(sql, params),
      runBatch: async (batch) => connection.runBatch(batch),
    });
    return { records, close: async () => connection.close() };
  }
  const { default: pg } = await import('pg');
  const { runBatch } = await import('./postgres/pg-batch.js');
  const { postgresDialect } = await import('./postgres/postgres-dialect.js');
  const pool = new pg.Pool({
    connectionString: target.url,
    max: 1,
    connectionTimeoutMillis: target.timeoutMs,
    query_timeout: target.timeoutMs,
    statement_timeout: target.timeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  // A dropped idle connection is not a crash: the next batch gets a fresh one, or is kept.
  pool.on('error', () => {});
  // Numbered once per shape: a batch's statements are of a few dozen (audit-records.ts).
  const numbered = new Map<string, string>();
  const query = (sql: string, params: readonly unknown[]) => {
    let text = numbered.get(sql);
    if (text === undefined) numbered.set(sql, (text = postgresDialect.placeholders(sql)));
    return { text, values: postgresDialect.params(params) };
  };
  const records = auditRecords({
    all: noReads,
    run: async (sql, params) => (await pool.query(query(sql, params))).rowCount ?? 0,
    runBatch: (batch) => runBatch(pool, query, batch),
  });
  return { records, close: () => pool.end() };
}
