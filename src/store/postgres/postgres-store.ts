import pg from 'pg';
import { ReportTimeoutError, StoreUnavailableError } from '../../errors.js';
import type { SeedSink } from '../../seed/sink.js';
import { MIGRATIONS, type DataTable } from '../schema.js';
import { SqlStore } from '../sql-store.js';
import { REFRESH_REPORT_FACTS } from '../sql/report-facts.js';
import type { Row } from '../store.js';
import { postgresDdl, toPostgresPlaceholders } from './postgres-sql.js';

/** Errors that mean the database is out of reach, not that the query was wrong. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
const QUERY_CANCELED = '57014';

function translate(error: unknown): Error {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? '';
  if (code === QUERY_CANCELED) return new ReportTimeoutError();
  if (
    (code && UNAVAILABLE_CODES.has(code)) ||
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/i.test(
      message,
    )
  ) {
    return new StoreUnavailableError(message);
  }
  return error as Error;
}

export interface PostgresOptions {
  /** Connections in the pool (per instance). */
  poolSize?: number;
  /** How long to wait for a connection before answering 503. */
  connectTimeoutMs?: number;
}

/**
 * The server store: `pg` with a pool, the shared SQL with `?` numbered into `$n`, text columns in
 * the "C" collation so orders are code-point orders as on SQLite, and report queries under a
 * server-side statement_timeout.
 */
export class PostgresStore extends SqlStore {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly reportPool: pg.Pool;
  private readonly sqlCache = new Map<string, string>();

  constructor(
    readonly url: string,
    options: PostgresOptions = {},
  ) {
    super();
    const common = {
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
      idleTimeoutMillis: 30_000,
    };
    this.pool = new pg.Pool({ ...common, max: options.poolSize ?? 10 });
    // Reports get their own small pool, so a slow aggregate never holds up point reads.
    this.reportPool = new pg.Pool({
      ...common,
      max: Math.max(2, Math.ceil((options.poolSize ?? 10) / 4)),
    });
    // A dropped idle connection is not a crash: the next query gets a fresh one or a 503.
    this.pool.on('error', () => {});
    this.reportPool.on('error', () => {});
  }

  private text(sql: string): string {
    let numbered = this.sqlCache.get(sql);
    if (numbered === undefined) {
      numbered = toPostgresPlaceholders(sql);
      this.sqlCache.set(sql, numbered);
    }
    return numbered;
  }

  async all(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    try {
      return (await this.pool.query({ text: this.text(sql), values: params as unknown[] }))
        .rows as Row[];
    } catch (error) {
      throw translate(error);
    }
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    try {
      return (
        (await this.pool.query({ text: this.text(sql), values: params as unknown[] })).rowCount ?? 0
      );
    } catch (error) {
      throw translate(error);
    }
  }

  async transaction(work: (tx: Pick<SqlStore, 'all' | 'run'>) => Promise<void>): Promise<void> {
    const client = await this.pool
      .connect()
      .catch((error: unknown) => Promise.reject(translate(error)));
    const tx = {
      all: async (sql: string, params: readonly unknown[] = []) =>
        (await client.query({ text: this.text(sql), values: params as unknown[] })).rows as Row[],
      run: async (sql: string, params: readonly unknown[] = []) =>
        (await client.query({ text: this.text(sql), values: params as unknown[] })).rowCount ?? 0,
    };
    try {
      await client.query('BEGIN');
      await work(tx);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw translate(error);
    } finally {
      client.release();
    }
  }

  async migrate(): Promise<void> {
    const client = await this.pool
      .connect()
      .catch((error: unknown) => Promise.reject(translate(error)));
    try {
      // One migrator at a time across instances.
      await client.query('SELECT pg_advisory_lock(7468)');
      await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const { rows } = await client.query('SELECT MAX(version) AS v FROM schema_version');
      const current = Number(rows[0]?.v ?? 0);
      for (let version = current; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        await client.query(postgresDdl(MIGRATIONS[version]));
        await client.query('INSERT INTO schema_version (version) VALUES ($1)', [version + 1]);
        await client.query('COMMIT');
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw translate(error);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7468)').catch(() => {});
      client.release();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.reportPool.end()]);
  }

  /** PostgreSQL has no cheap cross-connection change counter: nothing is cached across requests. */
  override async changeStamp(): Promise<null> {
    return null;
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  /** A report under a server-side statement_timeout: PostgreSQL cancels it past the limit. */
  async runReport(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.reportPool.connect();
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
      const result = await client.query({ text: this.text(sql), values: params });
      await client.query('COMMIT');
      return result.rows as Row[];
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => {});
      throw translate(error);
    } finally {
      client?.release();
    }
  }

  /**
   * Bulk loading in one transaction (all or nothing) with multi-row INSERTs of up to ~60,000
   * parameters each (PostgreSQL's limit is 65,535).
   */
  async openSink(): Promise<SeedSink & { finish(): Promise<void>; abort(): Promise<void> }> {
    const client = await this.pool
      .connect()
      .catch((error: unknown) => Promise.reject(translate(error)));
    await client.query('BEGIN');
    let done = false;
    const end = async (sql: string) => {
      if (done) return;
      done = true;
      try {
        await client.query(sql);
      } finally {
        client.release();
      }
    };
    return {
      insert: async (table: DataTable, rows) => {
        if (rows.length === 0) return;
        const columns = Object.keys(rows[0]);
        const perStatement = Math.max(1, Math.floor(60_000 / columns.length));
        for (let start = 0; start < rows.length; start += perStatement) {
          const chunk = rows.slice(start, start + perStatement);
          const values: unknown[] = [];
          const tuples = chunk.map((row) => {
            const base = values.length;
            for (const c of columns) values.push(row[c] ?? null);
            return `(${columns.map((_, i) => `$${base + i + 1}`).join(', ')})`;
          });
          await client.query({
            text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`,
            values,
          });
        }
      },
      finish: async () => {
        for (const sql of REFRESH_REPORT_FACTS) await client.query(sql);
        await end('COMMIT');
        await this.pool.query('ANALYZE');
      },
      abort: () => end('ROLLBACK'),
    };
  }
}
