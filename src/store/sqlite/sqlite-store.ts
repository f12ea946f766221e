import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreBusyError } from '../../errors.js';
import { createIndexSql, createTableSql, insertSql, migrationSql } from '../dialect.js';
import type { VersionedWrite } from '../load/load.js';
import type { WriteSession } from '../load/write-session.js';
import { MIGRATIONS } from '../schema.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { SqlStore } from '../sql-store.js';
import type { FactSnapshot, PoolState, Row } from '../store.js';
import { ReportPool, REPORT_WORKERS } from './report-pool.js';
import { openOAuthFile } from './oauth-file.js';
import { openSideFile, sideFilePath, type SideFile } from './side-file.js';
import {
  AUDIT_MINUTES_TABLE,
  AUDIT_SETS_TABLE,
  AUDIT_SET_WORKERS_TABLE,
  AUDIT_TABLES,
  MINUTES_FROM_EVENTS,
  REVEALS_TO_SETS,
} from '../sql/audit/audit-tables.js';
import type { AuditSql } from '../sql/audit/audit-records.js';
import type { AuditWriterTarget } from '../audit-writer.js';
import type { OAuthSql } from '../sql/oauth-records.js';

/** SQLite's page cache (KiB) for reads, and while a load writes. */
const DEFAULT_CACHE_KB = 2000;
const LOAD_CACHE_KB = 32768;

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
  private readonly pragmaDataVersion: Database.Statement;
  /** The data_version read in this turn of the event loop, or null before the first read. */
  private dataVersionThisTurn: number | null = null;

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
    // Freed content is overwritten with zeros, so text an update or deletion replaces (an
    // erased name, DESIGN §4.13) stays in no page of the file.
    this.db.pragma('secure_delete = ON');
    this.pragmaDataVersion = this.db.prepare('PRAGMA data_version');
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

  protected override async runAside(sql: string, params: readonly unknown[]): Promise<number> {
    return this.prepare(sql).run(...params).changes;
  }

  private oauthFile: SideFile | null = null;
  private auditFile: SideFile | null = null;

  /** The authorization server's records, in their own file (oauth-file.ts: never behind an import). */
  protected override oauthSql(): OAuthSql {
    return (this.oauthFile ??= openOAuthFile(this.path, this.db));
  }

  /** The trail's side file, made first (its thread's connection opens it as it is). */
  override auditWriterTarget(): AuditWriterTarget | null {
    if (this.path === ':memory:') return null;
    this.auditSql();
    return { store: 'sqlite', path: sideFilePath(this.path, '-audit') };
  }

  /** The access trail, in its own file (`<db>-audit`, side-file.ts: never behind an import). */
  protected override auditSql(): AuditSql {
    return (this.auditFile ??= openSideFile(this.path, '-audit', AUDIT_TABLES, {
      upgrades: [
        // 1 to 2: the workers of each event's reveals become sets (audit-tables.ts).
        (db) => {
          db.exec(createTableSql(sqliteDialect, AUDIT_SET_WORKERS_TABLE));
          for (const statement of REVEALS_TO_SETS) db.exec(statement);
        },
        // 2 to 3: the per-event indexes become minute rows (issue 59).
        (db) => {
          for (const table of [AUDIT_SETS_TABLE, AUDIT_MINUTES_TABLE])
            db.exec([createTableSql(sqliteDialect, table), ...createIndexSql(table)].join(';\n'));
          for (const statement of MINUTES_FROM_EVENTS) db.exec(statement);
        },
      ],
      // An event per answered request: written off the event loop.
      writeOnThread: true,
    }));
  }

  /**
   * better-sqlite3 waits for a lock synchronously, holding the whole server still: this write
   * does not wait (busy_timeout 0 for it alone) and is StoreBusyError while another process
   * (an import) holds the write lock.
   */
  protected override async runWithoutWaiting(
    sql: string,
    params: readonly unknown[],
  ): Promise<number> {
    return this.withoutWaiting(() => this.prepare(sql).run(...params).changes);
  }

  /**
   * Runs `write` with busy_timeout 0: SQLITE_BUSY (another process, an import, holds the write
   * lock) is StoreBusyError at once, never a synchronous wait that holds the server still.
   */
  private withoutWaiting<T>(write: () => T): T {
    this.db.pragma('busy_timeout = 0');
    try {
      return write();
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY')
        throw new StoreBusyError('another process is writing to the database');
      throw error;
    } finally {
      this.db.pragma('busy_timeout = 5000');
    }
  }

  /**
   * data_version changes when another connection commits; this connection's writes are counted.
   * Read once per turn of the event loop and shared by the requests of that turn (read per
   * request, it took a tenth of a cached answer's time): the requests a turn handles were read
   * from their connections when the turn began, so a commit their clients could have seen
   * happened before the read. (A caller in this process that writes on another connection and
   * asks at once, with no turn between, may get the stamp of before its write: tests let a turn
   * pass.)
   */
  override async changeStamp(): Promise<string> {
    if (this.dataVersionThisTurn === null) {
      this.dataVersionThisTurn = this.pragmaDataVersion.pluck().get() as number;
      setImmediate(() => (this.dataVersionThisTurn = null));
    }
    return `${this.dataVersionThisTurn}:${this.ownWrites}`;
  }

  async migrate(): Promise<void> {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(migrationSql(this.dialect, MIGRATIONS[version]));
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
    await this.refreshStatistics();
    await this.ensureDataVersion();
  }

  /**
   * SQLite's planner believes an index without statistics finds few rows, so an index added to a
   * table analyzed before (schema version 8's, on a database that held data) wins over the
   * analyzed ones: the unfiltered timesheets page sorted all 2.2 million rows at the large scale.
   * `PRAGMA optimize=0x10002` at open, as SQLite advises for long-lived connections, analyzes
   * every table whose statistics are missing or stale, within a bounded analysis (7.5 s once on
   * the 13 GB database after schema version 8; nothing on later opens).
   */
  async refreshStatistics(): Promise<void> {
    try {
      this.db.pragma('optimize=0x10002');
    } catch (error) {
      // Another process holds the write lock (an import), or the file is read-only: SQLite's
      // next optimize does it.
      const code = (error as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') && !code.startsWith('SQLITE_READONLY')) throw error;
    }
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
    this.oauthFile?.close();
    this.auditFile?.close();
    this.statements.clear();
    if (this.options.bulk && this.db.open) this.db.pragma('journal_mode = WAL');
    if (this.db.open) this.db.close();
  }

  /**
   * After an erasure: the write-ahead log, which may still hold pages written before, is
   * checkpointed into the file and truncated to nothing. A reader holding an old snapshot (a
   * server's long report) keeps the log; it is tried again for up to 10 s.
   */
  protected async scrubErased(): Promise<void> {
    this.oauthFile?.checkpoint();
    for (let attempt = 0; ; attempt++) {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!result || result.busy === 0) return;
      if (attempt >= 100)
        throw new Error(
          'the erasure is committed, but readers kept the write-ahead log from being truncated: run erase again when the server is idle',
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
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

  /**
   * A read transaction on the request connection: other connections' commits stay out of it
   * until it ends (WAL). Snapshots begun while one is open share it (the connection has one).
   */
  protected async readSnapshot<T>(
    work: (all: (sql: string, params: readonly unknown[]) => Promise<Row[]>) => Promise<T>,
  ): Promise<T> {
    const outermost = !this.db.inTransaction;
    if (outermost) this.db.exec('BEGIN');
    try {
      return await work((sql, params) => this.all(sql, params));
    } finally {
      if (outermost && this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  /**
   * BEGIN IMMEDIATE takes SQLite's write lock at once, so the version read here is the one this
   * transaction replaces: loads, refreshes and clears are serialised across processes.
   */
  protected async beginWrite({ waits } = { waits: true }): Promise<VersionedWrite> {
    // A load touches pages all over the tables' indexes: a page cache of 32 MB while it runs
    // (SQLite's default is 2 MB) keeps a large one's index pages at hand, in bounded memory.
    this.db.pragma(`cache_size = -${LOAD_CACHE_KB}`);
    // A seed's sorts (index builds, facts in key order) may use helper threads; an import's do
    // not: for an import they cost 100 MB more at a million rows and saved nothing.
    this.db.pragma(`threads = ${this.options.bulk ? 4 : 0}`);
    if (waits) this.db.exec('BEGIN IMMEDIATE');
    else
      this.withoutWaiting(() => {
        this.db.exec('BEGIN IMMEDIATE');
      });
    const stored = this.prepare("SELECT value FROM meta WHERE key = 'data_version'").get() as
      { value: string } | undefined;
    const session: WriteSession = {
      dialect: this.dialect,
      all: async (sql, params = []) => this.prepare(sql).all(...params) as Row[],
      run: async (sql, params = []) => this.prepare(sql).run(...params).changes,
      insertRows: async (table, columns, rows, conflictKey, onConflict) => {
        const statement = this.prepare(insertSql(table, columns, 1, conflictKey, onConflict));
        for (const row of rows) statement.run(row);
      },
    };
    return {
      session,
      current: Number(stored?.value ?? 0),
      commit: async () => {
        this.ownWrites++;
        this.db.exec('COMMIT');
        this.db.pragma(`cache_size = -${DEFAULT_CACHE_KB}`);
        // Committed: what follows only tidies up, and SQLite does it again later if it fails here.
        try {
          this.db.pragma('optimize');
          // TRUNCATE waits for every reader (a server's long report); a server's own write
          // (`waits: false`) leaves the log to SQLite's automatic checkpoints instead.
          if (!this.options.bulk && waits) this.db.pragma('wal_checkpoint(TRUNCATE)');
        } catch {
          // Left to SQLite's automatic checkpoints and the next optimize.
        }
      },
      rollback: async () => {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        this.db.pragma(`cache_size = -${DEFAULT_CACHE_KB}`);
      },
    };
  }

  /**
   * A read transaction on a read-only connection of its own: its first read fixes the snapshot,
   * which holds (WAL) whatever other connections commit meanwhile.
   */
  async factSnapshot<T>(work: (snapshot: FactSnapshot) => Promise<T>): Promise<T> {
    if (this.path === ':memory:') throw new Error('a snapshot needs a database file');
    const db = new Database(this.path, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.exec('BEGIN');
      const rows = db
        .prepare("SELECT key, value FROM meta WHERE key IN ('data_version', 'facts_epoch')")
        .all() as { key: string; value: string }[];
      const value = (key: string) => rows.find((r) => r.key === key)?.value;
      return await work({
        version: {
          epoch: value('facts_epoch') ?? 'none',
          version: Number(value('data_version') ?? 0),
        },
        async *lines(sql, params, pageSize) {
          let page: string[] = [];
          for (const line of db
            .prepare(sql)
            .pluck()
            .iterate(...params) as Iterable<string>) {
            page.push(line);
            if (page.length === pageSize) {
              yield page;
              page = [];
            }
          }
          if (page.length > 0) yield page;
        },
        all: async (sql, params) => db.prepare(sql).all(...params) as Row[],
      });
    } finally {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    }
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
