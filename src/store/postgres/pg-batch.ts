import type pg from 'pg';

/** A statement and its parameters, as the store's dialect writes them (`?` placeholders). */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/**
 * Runs `batch` in one transaction on a connection of its own (all or none, one commit: the access
 * trail's batches, issue 59); its changes. `query` makes each statement PostgreSQL's.
 */
export async function runBatch(
  pool: pg.Pool,
  query: (sql: string, params: readonly unknown[]) => pg.QueryConfig,
  batch: readonly Statement[],
): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    let changes = 0;
    for (const { sql, params } of batch)
      changes += (await client.query(query(sql, params))).rowCount ?? 0;
    await client.query('COMMIT');
    return changes;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
