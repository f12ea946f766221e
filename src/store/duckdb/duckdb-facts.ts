import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { duckdb } from './duckdb-module.js';
import { ReportEngineFailedError, ReportTimeoutError } from '../../errors.js';
import { stampOf, type DataVersion, type ReportEngine, type Row } from '../store.js';
import { COLUMNAR_TABLES } from './columnar-tables.js';
import { duckdbDialect } from './duckdb-dialect.js';
import { ensureRollups, heldRollups } from './rollup-tables.js';
import { ROLLUPS, type HeldRollup } from '../../semantic/rollups.js';

/** How the engine may use the machine: its threads and its memory (DuckDB's own settings). */
export interface DuckdbSettings {
  /** Threads for one query (DuckDB parallelises scans and aggregates); default 2. */
  threads?: number;
  /** DuckDB's buffer limit, e.g. '256MB' (its default is 80% of the machine's memory). */
  memoryLimit?: string;
  /**
   * Whether reports may read the copy's rollups (VMS_READ_ROLLUPS; default true). Off, every
   * report reads the facts; the rollups are still written and kept, so a copy serves either way.
   */
  rollups?: boolean;
}

/**
 * DuckDB's memory limit by use, unless VMS_READ_FACTS_MEMORY sets one for all: a serving copy
 * answers most reports from its rollups and had filled a larger buffer pool with fact columns it
 * read once at open (256MB: 445 MB RSS at start at the large seed; 96MB: 290 MB, the same report
 * times, issue 23); a base being written sums its rollups over every fact and keeps 256MB.
 */
export const DEFAULT_FACTS_MEMORY = { serve: '96MB', build: '256MB', read: '256MB' } as const;

/**
 * An instance's configuration from the settings: `serve` for a copy that answers reports (and
 * takes patches), `build` for a new base being written, `read` to look at one.
 */
export function duckdbConfig(
  settings: DuckdbSettings,
  use: 'serve' | 'build' | 'read',
): Record<string, string> {
  return {
    threads: String(settings.threads ?? 2),
    memory_limit: settings.memoryLimit ?? DEFAULT_FACTS_MEMORY[use],
    // Hand memory freed after each query back to the system rather than keep it in the allocator.
    allocator_flush_threshold: '8MB',
    // A base is loaded from files already in key order, a part of a file per thread: each row
    // group still covers a narrow range of dates, and the load is a sixth faster.
    ...(use === 'build' ? { preserve_insertion_order: 'false' } : {}),
    ...(use === 'read' ? { access_mode: 'READ_ONLY' } : {}),
  };
}

/** A connection reading times in UTC, as the row stores do. */
export async function utcConnection(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  return connection;
}

/** A DuckDB value as the report results read it: decimals and other objects as their text. */
function plain(value: DuckDBValue): unknown {
  return value === null || typeof value !== 'object' ? value : String(value);
}

/** The table in every copy that says which data version of the row store it holds. */
export const FACTS_META =
  'CREATE TABLE facts_meta (epoch VARCHAR NOT NULL, version BIGINT NOT NULL)';

/** The data version a copy holds, read on `connection`. */
export async function heldVersion(connection: DuckDBConnection): Promise<DataVersion> {
  const rows = (await connection.runAndReadAll('SELECT epoch, version FROM facts_meta')).getRows();
  if (rows.length !== 1) throw new Error('the copy has no data version');
  return { epoch: String(rows[0][0]), version: Number(rows[0][1]) };
}

/**
 * One columnar copy of the report facts, open: a server's own copy (read and patched by this
 * process alone; see columnar-reports.ts). Queries run on a fixed set of connections, one query
 * each; past its time limit a query is interrupted, which frees its threads at once. Patches run
 * on a connection of their own, in a transaction: a query sees the copy before a patch or after
 * it, never half of it (DuckDB's MVCC).
 */
export class DuckdbFacts {
  private readonly idle: DuckDBConnection[];
  private readonly waiting: ((connection: DuckDBConnection) => void)[] = [];
  private running = 0;
  private closing: (() => void) | null = null;
  private current: { version: DataVersion; engine: ReportEngine };

  private constructor(
    private readonly instance: DuckDBInstance,
    connections: DuckDBConnection[],
    private readonly writer: DuckDBConnection,
    version: DataVersion,
    readonly path: string,
    /** The rollups reports may read: none when they are off. */
    private rollups: readonly HeldRollup[] | undefined,
    /** DuckDB's memory limit while serving, and while a patch runs (it holds both versions). */
    private readonly memory: { serve: string; patch: string },
  ) {
    this.idle = connections;
    this.current = this.at(version);
  }

  private at(version: DataVersion) {
    const engine: ReportEngine = {
      name: 'duckdb',
      dialect: duckdbDialect,
      dataStamp: stampOf(version),
      rollups: this.rollups,
      run: (sql, params, timeoutMs) => this.run(sql, params, timeoutMs),
    };
    return { version, engine };
  }

  /** The data version the copy holds now, and the engine that answers from it. */
  get version(): DataVersion {
    return this.current.version;
  }

  get engine(): ReportEngine {
    return this.current.engine;
  }

  /**
   * Opens the file; `connections` is how many queries may run at once (the report gate's
   * concurrency).
   */
  static async open(
    path: string,
    connections: number,
    settings: DuckdbSettings & { log?: (message: string) => void } = {},
  ): Promise<DuckdbFacts> {
    const instance = await (
      await duckdb()
    ).DuckDBInstance.create(path, duckdbConfig(settings, 'serve'));
    try {
      const pool = await Promise.all(
        Array.from({ length: connections }, () => utcConnection(instance)),
      );
      const writer = await utcConnection(instance);
      const version = await heldVersion(writer);
      // A copy from a base written before a rollup was defined (or defined otherwise) gets it now.
      const written = await ensureRollups(writer);
      if (written.length > 0)
        settings.log?.(`rollups written in the columnar copy: ${written.join(', ')}`);
      // Read every column on every connection once, so the first reports do not pay for the
      // file's cold pages or a connection's first query.
      const tables = [...COLUMNAR_TABLES.map((c) => c.table.name), ...ROLLUPS.map((r) => r.name)];
      for (const connection of pool)
        for (const table of tables) await connection.run(`SELECT MIN(COLUMNS(*)) FROM ${table}`);
      const rollups = settings.rollups === false ? undefined : await heldRollups(writer);
      const facts = new DuckdbFacts(instance, pool, writer, version, path, rollups, {
        serve: settings.memoryLimit ?? DEFAULT_FACTS_MEMORY.serve,
        patch: settings.memoryLimit ?? DEFAULT_FACTS_MEMORY.build,
      });
      // And a query shaped like a report, through the same path (binding, reading, converting).
      await facts.run(
        'SELECT status AS d0, COUNT(*) AS m0 FROM invoices WHERE workspace_id <> ? GROUP BY 1 ORDER BY 1 LIMIT ?',
        ['', 10],
        60_000,
      );
      // The reads above leave the file's pages in the system's cache and DuckDB's buffer pool
      // full of every column's blocks (40 MB at the medium seed), which most reports never read
      // again (they read rollups): given back, a block a report needs is read from that cache.
      await facts.releaseBuffers();
      return facts;
    } catch (error) {
      instance.closeSync();
      throw error;
    }
  }

  /** Rows in each of its tables: what a patch is weighed against. */
  async tableRows(): Promise<Record<string, number>> {
    const rows: Record<string, number> = {};
    for (const { table } of COLUMNAR_TABLES) {
      const reader = await this.writer.runAndReadAll(`SELECT COUNT(*) FROM ${table.name}`);
      rows[table.name] = Number(reader.getRows()[0][0]);
    }
    return rows;
  }

  /**
   * Runs `work` on the write connection in one transaction that ends by holding `version`; reports
   * answer from the copy as it was until it commits. A failure rolls it all back.
   */
  async patch(version: DataVersion, work: (connection: DuckDBConnection) => Promise<void>) {
    // A patch keeps the rows it replaces until it commits: it runs with a copy's build limit
    // (a patch of 27,000 scattered rows ran out of 96MB), set back once it is over.
    await this.writer.run(`SET memory_limit = '${this.memory.patch}'`);
    try {
      await this.transaction(version, work);
    } finally {
      await this.writer.run(`SET memory_limit = '${this.memory.serve}'`).catch(() => {});
    }
    if (this.rollups) this.rollups = await heldRollups(this.writer);
    this.current = this.at(version);
  }

  private async transaction(
    version: DataVersion,
    work: (connection: DuckDBConnection) => Promise<void>,
  ): Promise<void> {
    await this.writer.run('BEGIN TRANSACTION');
    try {
      await work(this.writer);
      await this.writer.run('UPDATE facts_meta SET epoch = ?, version = ?', [
        version.epoch,
        version.version,
      ]);
      await this.writer.run('COMMIT');
    } catch (error) {
      await this.writer.run('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  private take(): Promise<DuckDBConnection> {
    const connection = this.idle.pop();
    if (connection) return Promise.resolve(connection);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private give(connection: DuckDBConnection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  async run(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]> {
    this.running++;
    const connection = await this.take();
    let interrupted = false;
    const timer = setTimeout(
      () => {
        interrupted = true;
        connection.interrupt();
      },
      Math.max(1, timeoutMs),
    );
    try {
      const reader = await connection.runAndReadAll(sql, params as DuckDBValue[]);
      const names = reader.columnNames();
      return reader.getRows().map((values) => {
        const row: Row = {};
        names.forEach((name, i) => (row[name] = plain(values[i])));
        return row;
      });
    } catch (error) {
      if (interrupted) throw new ReportTimeoutError();
      throw new ReportEngineFailedError('duckdb', error);
    } finally {
      clearTimeout(timer);
      this.give(connection);
      this.running--;
      if (this.running === 0) this.closing?.();
    }
  }

  /**
   * Gives back the table blocks DuckDB's buffer pool holds and no query is using: a limit of 1 MB
   * evicts them (DuckDB refuses it, changing nothing, if what is pinned will not fit), then the
   * serving limit again.
   */
  async releaseBuffers(): Promise<void> {
    try {
      await this.writer.run("SET memory_limit = '1MB'");
    } catch {
      // Pinned by a query: the pool stays as it is.
    } finally {
      await this.writer.run(`SET memory_limit = '${this.memory.serve}'`);
    }
  }

  /** Bytes of table blocks DuckDB's buffer pool holds now (its own count, `duckdb_memory()`). */
  async bufferedTableBytes(): Promise<number> {
    const reader = await this.writer.runAndReadAll(
      "SELECT COALESCE(SUM(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'BASE_TABLE'",
    );
    return Number(reader.getRows()[0][0]);
  }

  /** Writes everything the copy holds into its file, so the file alone is whole (to copy it). */
  async checkpoint(): Promise<void> {
    await this.writer.run('CHECKPOINT');
  }

  /** Closes the file once the queries running on it have answered. */
  async close(): Promise<void> {
    if (this.running > 0) await new Promise<void>((resolve) => (this.closing = resolve));
    for (const connection of this.idle) connection.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }
}
