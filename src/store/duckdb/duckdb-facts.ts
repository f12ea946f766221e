import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { ReportTimeoutError } from '../../errors.js';
import type { ReportEngine, Row } from '../store.js';
import { COLUMNAR_TABLES } from './columnar-tables.js';
import { duckdbDialect } from './duckdb-dialect.js';

/** How the engine may use the machine: its threads and its memory (DuckDB's own settings). */
export interface DuckdbSettings {
  /** Threads for one query (DuckDB parallelises scans and aggregates); default 2. */
  threads?: number;
  /** DuckDB's buffer limit, e.g. '256MB' (its default is 80% of the machine's memory). */
  memoryLimit?: string;
}

export const DEFAULT_FACTS_MEMORY = '256MB';

/** An instance's configuration from the settings, read-only or for building. */
export function duckdbConfig(settings: DuckdbSettings, readOnly: boolean): Record<string, string> {
  return {
    threads: String(settings.threads ?? 2),
    memory_limit: settings.memoryLimit ?? DEFAULT_FACTS_MEMORY,
    // Hand memory freed after each query back to the system rather than keep it in the allocator.
    allocator_flush_threshold: '8MB',
    ...(readOnly ? { access_mode: 'READ_ONLY' } : {}),
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

/**
 * One columnar copy of the report facts, opened read-only: a file that holds one data stamp for
 * its whole life (a newer stamp is a new file). Queries run on a fixed set of connections, one
 * query each; past its time limit a query is interrupted, which frees its threads at once.
 */
export class DuckdbFacts {
  readonly engine: ReportEngine;
  private readonly idle: DuckDBConnection[];
  private readonly waiting: ((connection: DuckDBConnection) => void)[] = [];
  private running = 0;
  private closing: (() => void) | null = null;

  private constructor(
    private readonly instance: DuckDBInstance,
    connections: DuckDBConnection[],
    readonly dataStamp: string,
  ) {
    this.idle = connections;
    this.engine = {
      name: 'duckdb',
      dialect: duckdbDialect,
      dataStamp,
      run: (sql, params, timeoutMs) => this.run(sql, params, timeoutMs),
    };
  }

  /**
   * Opens the file and checks it holds `stamp`; `connections` is how many queries may run at
   * once (the report gate's concurrency).
   */
  static async open(
    path: string,
    stamp: string,
    connections: number,
    settings: DuckdbSettings = {},
  ): Promise<DuckdbFacts> {
    const instance = await DuckDBInstance.create(path, duckdbConfig(settings, true));
    try {
      const pool = await Promise.all(
        Array.from({ length: connections }, () => utcConnection(instance)),
      );
      const held = (await pool[0].runAndReadAll('SELECT data_stamp FROM facts_meta')).getRows();
      if (held.length !== 1 || held[0][0] !== stamp)
        throw new Error(`${path} does not hold data stamp ${stamp}`);
      // Read every column on every connection once, so the first reports do not pay for the
      // file's cold pages or a connection's first query.
      for (const connection of pool)
        for (const { table } of COLUMNAR_TABLES)
          await connection.run(`SELECT MIN(COLUMNS(*)) FROM ${table.name}`);
      const facts = new DuckdbFacts(instance, pool, stamp);
      // And a query shaped like a report, through the same path (binding, reading, converting).
      await facts.run(
        'SELECT status AS d0, COUNT(*) AS m0 FROM invoices WHERE workspace_id <> ? GROUP BY 1 ORDER BY 1 LIMIT ?',
        ['', 10],
        60_000,
      );
      return facts;
    } catch (error) {
      instance.closeSync();
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
      throw error;
    } finally {
      clearTimeout(timer);
      this.give(connection);
      this.running--;
      if (this.running === 0) this.closing?.();
    }
  }

  /** Closes the file once the queries running on it have answered. */
  async close(): Promise<void> {
    if (this.running > 0) await new Promise<void>((resolve) => (this.closing = resolve));
    for (const connection of this.idle) connection.closeSync();
    this.instance.closeSync();
  }
}
