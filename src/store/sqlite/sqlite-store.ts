import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SeedSink } from '../sink.js';
import { migrationSql } from '../dialect.js';
import { MIGRATIONS, type DataTable } from '../schema.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { SqlStore } from '../sql-store.js';
import { REFRESH_REPORT_FACTS } from '../sql/report-facts.js';
import type { PoolState, Row } from '../store.js';
import { ReportPool, REPORT_WORKERS } from './report-pool.js';

/** Prepared statements kept per connection: a fixed number, least recently used dropped first. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * The embedded store: better-sqlite3 in WAL mode with statements prepared once and cached (a
 * bounded cache: the shapes of SQL are finite in practice, but memory must not depend on it).
 * better-sqlite3 is synchronous and fast for point reads; report queries, which scan, run on
 * worker threads (ReportPool) so they never block the event loop.
 */
export class SqliteStore extends SqlStore {
  readonly dialect = sqliteDialect;
  readonly reportConcurrency = REPORT_WORKERS;
  readonly db: Database.Database;
  private readonly statements = new LRUCache<string, Database.Statement>({
    max: STATEMENT_CACHE_SIZE,
  });
  private reports: ReportPool | null = null;
  private ownWrites = 0;
  private readonly dataVersion: Database.Statement;

  /**
   * `bulk`: a file no one else reads yet, being filled by a seed (seedIntoNewFile): its rollback
   * journal in memory (small: a new file's pages have no old content to keep) and no syncing (a
   * crash leaves a file that is thrown away); WAL once it is closed. (better-sqlite3 runs SQLite
   * in defensive mode, which refuses journal_mode = OFF.)
   */
  constructor(
    readonly path: string,
    private readonly options: { bulk?: boolean } = {},
  ) {
    super();
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma(options.bulk ? 'journal_mode = MEMORY' : 'journal_mode = WAL');
    this.db.pragma(options.bulk ? 'synchronous = OFF' : 'synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.dataVersion = this.db.prepare('PRAGMA data_version');
  }

  /** A prepared statement for this SQL, prepared on first use. */
  prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async all(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.prepare(sql).all(...params) as Row[];
  }

  override async get(sql: string, params: readonly unknown[] = []): Promise<Row | null> {
    return (this.prepare(sql).get(...params) as Row | undefined) ?? null;
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    this.ownWrites++;
    return this.prepare(sql).run(...params).changes;
  }

  /** data_version changes when another connection commits; this connection's writes are counted. */
  override async changeStamp(): Promise<string> {
    return `${this.dataVersion.pluck().get() as number}:${this.ownWrites}`;
  }

  async transaction(work: (tx: Pick<SqlStore, 'all' | 'run'>) => Promise<void>): Promise<void> {
    this.db.exec('BEGIN');
    try {
      await work(this);
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  async migrate(): Promise<void> {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(migrationSql(this.dialect, MIGRATIONS[version]));
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
    await this.ensureDataStamp();
  }

  cacheSizes(): Record<string, number> {
    return {
      statements: this.statements.size,
      reportStatements: this.reports?.largestStatementCache() ?? 0,
      reportWorkersReplaced: this.reports?.retired ?? 0,
    };
  }

  /**
   * Requests read through one in-process connection (better-sqlite3 is synchronous): no pool to
   * show. Report queries on the row store run on worker threads, each with its own connection.
   */
  connectionPools(): PoolState[] {
    const { total, idle, waiting } = this.reports?.state() ?? { total: 0, idle: 0, waiting: 0 };
    return [{ pool: 'reports', total, idle, waiting }];
  }

  async close(): Promise<void> {
    await this.reports?.close();
    this.statements.clear();
    if (this.options.bulk && this.db.open) this.db.pragma('journal_mode = WAL');
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<boolean> {
    return this.db.open && this.prepare('SELECT 1 AS ok').get() !== undefined;
  }

  /** Reports run on worker threads with their own connections (an in-memory database has none to share). */
  async runReport(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]> {
    if (this.path === ':memory:') throw new Error('report queries need a database file');
    this.reports ??= new ReportPool(this.path);
    return this.reports.run(sql, params, timeoutMs);
  }

  async openSink(): Promise<SeedSink & { finish(): Promise<void>; abort(): Promise<void> }> {
    const inserts = new Map<DataTable, { columns: string[]; statement: Database.Statement }>();
    const insertFor = (table: DataTable, row: Row) => {
      let entry = inserts.get(table);
      if (!entry) {
        const columns = Object.keys(row);
        const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
        entry = { columns, statement: this.db.prepare(sql) };
        inserts.set(table, entry);
      }
      return entry;
    };
    // One transaction for the whole load: all or nothing, and far faster than one per batch.
    this.db.exec('BEGIN');
    return {
      insert: async (table, rows) => {
        if (rows.length === 0) return;
        const { columns, statement } = insertFor(table, rows[0]);
        for (const row of rows) statement.run(columns.map((c) => row[c] ?? null));
      },
      finish: async () => {
        this.ownWrites++;
        for (const sql of REFRESH_REPORT_FACTS) this.db.exec(sql);
        const [stamp, params] = this.stampSql();
        this.db.prepare(stamp).run(...params);
        this.db.exec('COMMIT');
        this.db.pragma('optimize');
        if (!this.options.bulk) this.db.pragma('wal_checkpoint(TRUNCATE)');
      },
      abort: async () => {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      },
    };
  }
}

/**
 * Fills a new SQLite database for `path` with `work` and puts it in place only when `work`
 * succeeds: written beside it under a temporary name with its journal in memory (no write-ahead log the
 * size of the data, so no twice the disk), then renamed over `path` (the old file's WAL and
 * shared-memory files removed first, so they cannot be applied to the new one). A failure or a
 * crash leaves `path` as it was. A server with the old file open keeps reading it until it
 * restarts.
 */
export async function seedIntoNewFile<T>(
  path: string,
  work: (store: SqliteStore) => Promise<T>,
): Promise<T> {
  const temp = `${path}.seeding-${process.pid}`;
  for (const leftover of [temp, `${temp}-journal`]) rmSync(leftover, { force: true });
  const store = new SqliteStore(temp, { bulk: true });
  try {
    await store.migrate();
    const result = await work(store);
    await store.close();
    for (const stale of [`${path}-wal`, `${path}-shm`]) rmSync(stale, { force: true });
    renameSync(temp, path);
    return result;
  } finally {
    await store.close();
    for (const leftover of [temp, `${temp}-wal`, `${temp}-shm`, `${temp}-journal`])
      rmSync(leftover, { force: true });
  }
}
