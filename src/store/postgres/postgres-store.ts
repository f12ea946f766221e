import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { ReportTimeoutError, StoreBusyError, StoreUnavailableError } from '../../errors.js';
import type { VersionedWrite } from '../load/load.js';
import type { WriteSession } from '../load/write-session.js';
import { MIGRATIONS } from '../schema.js';
import { SqlStore } from '../sql-store.js';
import { TABLES_HOLDING_NAMES } from '../sql/erasure.js';
import type { FactSnapshot, PoolState, Row } from '../store.js';
import { insertSql, migrationSql } from '../dialect.js';
import type { AuditSql } from '../sql/audit/audit-records.js';
import type { AuditWriterTarget } from '../audit-writer.js';
import { copyRows } from './copy-rows.js';
import { runBatch } from './pg-batch.js';
import { postgresDialect } from './postgres-dialect.js';

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

/**
 * A pg error as the service answers it: out of reach (refused, dropped, or no answer in time on
 * the client side) is StoreUnavailableError (503); a report cancelled by its statement_timeout is
 * ReportTimeoutError; a point query cancelled by the server's statement_timeout is unavailable.
 */
/** `FOR UPDATE NOWAIT` met a lock another transaction holds (an import's). */
const LOCK_NOT_AVAILABLE = '55P03';

function translate(error: unknown, report = false): Error {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? '';
  if (code === QUERY_CANCELED)
    return report ? new ReportTimeoutError() : new StoreUnavailableError(message);
  if (code === LOCK_NOT_AVAILABLE) return new StoreBusyError(message);
  if (
    (code && UNAVAILABLE_CODES.has(code)) ||
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error|Query read timeout/i.test(
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
  /**
   * How long the database may take to give a connection or answer a query before the request
   * gets 503: the pool's connection timeout, every query's client-side timeout and the server's
   * statement_timeout for point queries. Default 2 s (DESIGN §4.1).
   */
  answerTimeoutMs?: number;
}

/** Client-side timeout added to a report's own limit: the server cancels first when it can. */
const REPORT_GRACE_MS = 1000;

/**
 * The server store: `pg` with a pool, the shared SQL with `?` numbered into `$n`, text columns in
 * the "C" collation so orders are code-point orders as on SQLite, and report queries under a
 * server-side statement_timeout. Every query on every pool is bounded on both sides, so a
 * database that stops answering (or a frozen one) costs a request 503, never a hang, and the
 * connections it held are dropped and replaced when the database answers again.
 */
export class PostgresStore extends SqlStore {
  readonly dialect = postgresDialect;
  readonly reportConcurrency: number;
  readonly readConcurrency: number;
  readonly pool: pg.Pool;
  private readonly reportPool: pg.Pool;
  private readonly answerTimeoutMs: number;
  // Placeholder numbering per SQL text; report SQL has many shapes, so the cache is bounded.
  private readonly sqlCache = new LRUCache<string, string>({ max: 512 });

  constructor(
    readonly url: string,
    options: PostgresOptions = {},
  ) {
    super();
    this.answerTimeoutMs = options.answerTimeoutMs ?? 2000;
    const common = {
      connectionString: url,
      connectionTimeoutMillis: this.answerTimeoutMs,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
    };
    this.pool = new pg.Pool({
      ...common,
      max: options.poolSize ?? 10,
      query_timeout: this.answerTimeoutMs,
      statement_timeout: this.answerTimeoutMs,
    });
    // The executor gives operations that read records this many turns at once (store-turns.ts).
    this.readConcurrency = options.poolSize ?? 10;
    // Reports get their own small pool, so a slow aggregate never holds up point reads. A report
    // statement gets the report's own limit (SET LOCAL, and a client-side timeout per query);
    // the statements around it keep the answer time.
    this.reportConcurrency = Math.max(2, Math.ceil((options.poolSize ?? 10) / 4));
    this.reportPool = new pg.Pool({
      ...common,
      max: this.reportConcurrency,
      statement_timeout: this.answerTimeoutMs,
    });
    // A dropped idle connection is not a crash: the next query gets a fresh one or a 503.
    this.pool.on('error', () => {});
    this.reportPool.on('error', () => {});
  }

  /** The query config pg takes: `$n` placeholders, parameters as PostgreSQL can hold them. */
  private query(sql: string, params: readonly unknown[], timeoutMs = this.answerTimeoutMs) {
    let text = this.sqlCache.get(sql);
    if (text === undefined) {
      text = this.dialect.placeholders(sql);
      this.sqlCache.set(sql, text);
    }
    return { text, values: this.dialect.params(params), query_timeout: timeoutMs };
  }

  async all(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    try {
      return (await this.pool.query(this.query(sql, params))).rows as Row[];
    } catch (error) {
      throw translate(error);
    }
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    try {
      return (await this.pool.query(this.query(sql, params))).rowCount ?? 0;
    } catch (error) {
      throw translate(error);
    }
  }

  /** The trail's thread connects by the same URL, its queries bounded as the pool's are. */
  override auditWriterTarget(): AuditWriterTarget {
    return { store: 'postgres', url: this.url, timeoutMs: this.answerTimeoutMs };
  }

  /** The access trail's batches each in one transaction (pg-batch.ts). */
  protected override auditSql(): AuditSql {
    return {
      ...super.auditSql(),
      runBatch: (batch) =>
        runBatch(this.pool, (sql, params) => this.query(sql, params), batch).catch((error) => {
          throw translate(error);
        }),
    };
  }

  async migrate(): Promise<void> {
    const client = await this.adminClient();
    try {
      // One migrator at a time across instances.
      await client.query('SELECT pg_advisory_lock(7468)');
      await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const { rows } = await client.query('SELECT MAX(version) AS v FROM schema_version');
      const current = Number(rows[0]?.v ?? 0);
      for (let version = current; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        const sql = migrationSql(this.dialect, MIGRATIONS[version]);
        if (sql !== '') await client.query(sql);
        await client.query('INSERT INTO schema_version (version) VALUES ($1)', [version + 1]);
        await client.query('COMMIT');
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw translate(error);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7468)').catch(() => {});
      await client.end();
    }
    await this.ensureDataVersion();
  }

  /** ANALYZE, on a connection without the pools' time limits (seconds at the large scale). */
  async refreshStatistics(): Promise<void> {
    const client = await this.adminClient();
    try {
      await client.query('ANALYZE');
    } catch (error) {
      throw translate(error);
    } finally {
      await client.end();
    }
  }

  /**
   * A connection of its own, outside the pools and without their timeouts, for work that
   * legitimately takes long: migrations, loads (seed, import) and snapshots copied into
   * columnar facts.
   */
  private async adminClient(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.answerTimeoutMs,
    });
    client.on('error', () => {});
    await client.connect().catch((error: unknown) => Promise.reject(translate(error)));
    return client;
  }

  cacheSizes(): Record<string, number> {
    return { sqlTexts: this.sqlCache.size };
  }

  connectionPools(): PoolState[] {
    const state = (pool: PoolState['pool'], of: pg.Pool): PoolState => ({
      pool,
      total: of.totalCount,
      idle: of.idleCount,
      waiting: of.waitingCount,
    });
    return [state('reads', this.pool), state('reports', this.reportPool)];
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.reportPool.end()]);
  }

  /** PostgreSQL has no cheap cross-connection change counter: nothing is cached across requests. */
  override async changeStamp(): Promise<null> {
    return null;
  }

  /**
   * After an erasure: every table that can hold the erased text is rewritten (VACUUM FULL), so
   * the old versions of the rows it changed or removed (the worker's, a dropped webhook body, an
   * authorization record) leave the tables' files, TOAST included; it holds each table for the
   * moment that takes. VACUUM FULL keeps an old version while any transaction might still see
   * it, so it waits first, up to 30 s, until none can: every transaction older than the
   * erasure's has ended, in any database of the cluster (one that wrote holds no snapshot
   * between statements, yet every snapshot taken while it runs, the rewrite's own too, counts it
   * as running), and no session of this database still reads from a snapshot taken before (a
   * server's report, a columnar copy being patched). The write-ahead log keeps the old
   * versions until its segments are recycled.
   */
  protected async scrubErased(): Promise<void> {
    const { rows } = await this.pool.query<{ now: string; now32: string }>(
      `SELECT id::text AS now, (id::text::bigint % 4294967296)::text AS now32
         FROM pg_current_xact_id() AS id`,
    );
    for (let attempt = 0; ; attempt++) {
      const older = await this.pool.query<{ running: boolean; reading: number }>(
        `SELECT pg_snapshot_xmin(pg_current_snapshot()) < $1::xid8 AS running,
                (SELECT count(*)::int FROM pg_stat_activity
                  WHERE datname = current_database() AND pid <> pg_backend_pid()
                    AND backend_xmin IS NOT NULL
                    AND age(backend_xmin) > age($2::xid)) AS reading`,
        [rows[0].now, rows[0].now32],
      );
      if (!older.rows[0].running && older.rows[0].reading === 0) break;
      if (attempt >= 300)
        throw new Error(
          'the erasure is committed, but transactions older than it kept the old rows: run erase again when the server is idle',
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.pool.query(`VACUUM FULL ${TABLES_HOLDING_NAMES.join(', ')}`);
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A report under a server-side statement_timeout (PostgreSQL cancels it past the limit) and a
   * client-side one a little longer (for a database that does not answer at all).
   */
  async runReport(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]> {
    let client: pg.PoolClient | undefined;
    let failure: Error | undefined;
    const limit = Math.max(1, Math.floor(timeoutMs));
    try {
      client = await this.reportPool.connect();
      await client.query(this.query('BEGIN READ ONLY', []));
      await client.query(this.query(`SET LOCAL statement_timeout = ${limit}`, []));
      const result = await client.query(this.query(sql, params, limit + REPORT_GRACE_MS));
      await client.query(this.query('COMMIT', []));
      return result.rows as Row[];
    } catch (error) {
      failure = translate(error, true);
      await client?.query('ROLLBACK').catch(() => {});
      throw failure;
    } finally {
      client?.release(failure);
    }
  }

  /** A REPEATABLE READ, read-only transaction on a pooled connection, under the usual timeouts. */
  protected async readSnapshot<T>(
    work: (all: (sql: string, params: readonly unknown[]) => Promise<Row[]>) => Promise<T>,
  ): Promise<T> {
    let client: pg.PoolClient | undefined;
    let failure: Error | undefined;
    try {
      client = await this.pool.connect();
      const held = client;
      await held.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await work(
        async (sql, params) => (await held.query(this.query(sql, params))).rows as Row[],
      );
      await held.query('COMMIT');
      return result;
    } catch (error) {
      failure = translate(error);
      await client?.query('ROLLBACK').catch(() => {});
      throw failure;
    } finally {
      client?.release(failure);
    }
  }

  /**
   * Loads, refreshes and clears, on a connection of their own without timeouts (they take as
   * long as their data): the data version's row is locked FOR UPDATE at once, so loads commit
   * their versions one after another, in order, and a reader never sees version v+1 without v.
   */
  protected async beginWrite({ waits } = { waits: true }): Promise<VersionedWrite> {
    const client = await this.adminClient();
    const query = async (sql: string, params: readonly unknown[] = []) => {
      try {
        return await client.query(this.query(sql, params, 0));
      } catch (error) {
        throw translate(error);
      }
    };
    let ended = false;
    const end = async (sql: string) => {
      if (ended) return;
      ended = true;
      try {
        await client.query(sql);
      } finally {
        await client.end().catch(() => {});
      }
    };
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `SELECT value FROM meta WHERE key = 'data_version' FOR UPDATE${waits ? '' : ' NOWAIT'}`,
      );
      const session: WriteSession = {
        dialect: this.dialect,
        all: async (sql, params) => (await query(sql, params)).rows as Row[],
        run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
        insertRows: async (table, columns, rows, conflictKey, onConflict) => {
          if (!conflictKey) {
            // Rows known to be new: one COPY stream (copy-rows.ts).
            try {
              return await copyRows(client, table, columns, rows);
            } catch (error) {
              throw translate(error);
            }
          }
          // Upserts: multi-row INSERTs of up to ~60,000 parameters (PostgreSQL's limit is 65,535).
          const perStatement = Math.max(1, Math.floor(60_000 / columns.length));
          for (let start = 0; start < rows.length; start += perStatement) {
            const chunk = rows.slice(start, start + perStatement);
            await query(
              insertSql(table, columns, chunk.length, conflictKey, onConflict),
              chunk.flat(),
            );
          }
        },
      };
      return {
        session,
        current: Number(rows[0]?.value ?? 0),
        commit: () => end('COMMIT').catch((error: unknown) => Promise.reject(translate(error))),
        rollback: () => end('ROLLBACK').catch(() => {}),
      };
    } catch (error) {
      await end('ROLLBACK').catch(() => {});
      throw translate(error);
    }
  }

  /**
   * A REPEATABLE READ, read-only transaction on a connection of its own: every statement sees the
   * data as of its first one. Rows are read through a cursor, a page at a time.
   */
  async factSnapshot<T>(work: (snapshot: FactSnapshot) => Promise<T>): Promise<T> {
    const client = await this.adminClient();
    let cursors = 0;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query(
        "SELECT key, value FROM meta WHERE key IN ('data_version', 'facts_epoch')",
      );
      const value = (key: string) =>
        (rows as { key: string; value: string }[]).find((r) => r.key === key)?.value;
      const query = this.query.bind(this);
      return await work({
        version: {
          epoch: value('facts_epoch') ?? 'none',
          version: Number(value('data_version') ?? 0),
        },
        async *lines(sql, params, pageSize) {
          const name = `facts_${++cursors}`;
          const declared = query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, params, 0);
          await client.query(declared);
          try {
            for (;;) {
              const page = await client.query(`FETCH ${pageSize} FROM ${name}`);
              if (page.rows.length > 0) yield page.rows.map((r: { line: string }) => r.line);
              if (page.rows.length < pageSize) return;
            }
          } finally {
            await client.query(`CLOSE ${name}`);
          }
        },
        all: async (sql, params) => (await client.query(query(sql, params, 0))).rows as Row[],
      });
    } catch (error) {
      throw translate(error);
    } finally {
      await client.query('COMMIT').catch(() => {});
      await client.end().catch(() => {});
    }
  }
}
