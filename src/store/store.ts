import type { SqlDialect } from '../semantic/dialect.js';
import type { Dialect } from './dialect.js';
import type { Viewer, Visibility } from './visibility.js';
import type { DataTable } from './schema.js';
import type { SeedSink } from './sink.js';
import type { Table } from './table.js';
import type { ProgramConfig } from './program-config.js';

export type Row = Record<string, unknown>;
export type Order = 'asc' | 'desc';

/** A table read by a resource list or get, the columns the API needs, and who sees what. */
export interface ResourceSource {
  table: string;
  columns: readonly string[];
  visibility: Visibility;
}

/** Keyset position: the (created_at, id) of the last record of the previous page. */
export type Keyset = readonly [createdAt: string, id: string];

export interface PageQuery {
  workspaceId: string;
  viewer: Viewer;
  after: Keyset | null;
  order: Order;
  /** Rows to read; callers ask for one more than the page size to learn `hasMore`. */
  limit: number;
}

export interface Workspace {
  id: string;
  name: string;
  plan: string;
  pageSize: number;
  rowBudget: number;
  catalogSource: string;
}

export interface SavedQueryRow {
  id: string;
  workspace_id: string;
  kind: string;
  name: string;
  dashboard_id: string | null;
  definition: string;
  author: string;
  pinned_at: string;
  created_at: string;
}

export interface TokenRow {
  id: string;
  workspaceId: string;
  role: string;
  workerId: string | null;
  supplierId: string | null;
  scopes: string[];
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface NewToken extends Omit<TokenRow, 'revokedAt'> {
  tokenHash: string;
  createdAt: string;
}

/**
 * One pool of database connections (or report worker threads, each holding one) at this moment:
 * what the metrics endpoint shows.
 */
export interface PoolState {
  /** `reads`: the connections requests read through; `reports`: those report queries run on. */
  pool: 'reads' | 'reports';
  /** Connections open (busy or idle). */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

/**
 * The database's life: schema, health and caches. Methods of every part below reject with
 * StoreUnavailableError when the database cannot be reached.
 */
export interface StoreLifecycle {
  /** How this database's SQL differs: DDL, placeholders, parameters, report fragments. */
  readonly dialect: Dialect;
  /** Entries held by each per-shape cache (prepared statements, SQL texts): all are bounded. */
  cacheSizes(): Record<string, number>;
  /** Its connection pools now; cheap, read at each metrics scrape. */
  connectionPools(): PoolState[];
  /** Creates or upgrades the schema. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * A value that changes whenever data may have changed, by any connection or process; null
   * when the store cannot tell cheaply (then callers cache nothing across requests).
   */
  changeStamp(): Promise<string | null>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
}

/** What authentication reads: tokens, their workspace, the worker or supplier they name. */
export interface TokenReads {
  findTokenByHash(hash: string): Promise<TokenRow | null>;
  getWorkspace(id: string): Promise<Workspace | null>;
  supplierCode(workspaceId: string, supplierId: string): Promise<string | null>;
  workerExists(workspaceId: string, workerId: string): Promise<boolean>;
  changeStamp(): Promise<string | null>;
}

/** What resource operations read: pages, gets and their parts, saved queries. */
export interface ResourceReads {
  /** One page of a resource list in (created_at, id) order, filtered by the viewer's visibility. */
  listPage(source: ResourceSource, query: PageQuery): Promise<Row[]>;
  /** One record by id when it exists in the workspace and the viewer sees it. */
  getVisible(
    source: ResourceSource,
    workspaceId: string,
    viewer: Viewer,
    id: string,
  ): Promise<Row | null>;
  /** A timesheet's entries, oldest first. */
  timesheetEntries(timesheetId: string, columns: readonly string[], limit: number): Promise<Row[]>;
  /** An invoice's lines (only the supplier's when `supplierCode` is set), oldest first, and their count. */
  invoiceLines(
    invoiceId: string,
    supplierCode: string | null,
    columns: readonly string[],
    limit: number,
  ): Promise<{ rows: Row[]; count: number }>;
  /** Saved queries in (pinned_at, id) order after a position, optionally of one kind. */
  listSavedQueries(
    workspaceId: string,
    kind: string | null,
    after: Keyset | null,
    limit: number,
  ): Promise<Row[]>;
  getSavedQuery(workspaceId: string, id: string): Promise<Row | null>;
}

/**
 * What answers one report query: a database engine over report facts copied or kept at one data
 * stamp. The compiler renders the query in its dialect; `run` applies a time limit.
 */
export interface ReportEngine {
  /** `duckdb` (the columnar copy), `sqlite` or `postgres` (the row store itself). */
  readonly name: string;
  readonly dialect: SqlDialect;
  /** The row store's data stamp the facts it reads were current at (AdminWrites.dataStamp). */
  readonly dataStamp: string;
  /**
   * Runs a compiled report query within a time limit; rejects with ReportTimeoutError past it,
   * having stopped the query where the engine can (DuckDB and PostgreSQL interrupt it).
   * Callers keep at most `reportConcurrency` of these running at once (the ReportGate).
   */
  run(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]>;
}

/** What reports read: the catalog's inputs and the report facts. */
export interface ReportFacts {
  /** How many report queries it runs at once (report workers or report connections). */
  readonly reportConcurrency: number;
  /**
   * The engine to answer a report now: the columnar copy when it holds the row store's current
   * data stamp, else the row store. Never one whose facts are older than the row store's.
   */
  reportEngine(): Promise<ReportEngine>;
  latestConfig(workspaceId: string): Promise<{ version: number; config: ProgramConfig } | null>;
  /** A cheap fingerprint of what a workspace's catalog is built from; changes when any input does. */
  catalogStamp(workspaceId: string): Promise<string>;
  /** Stored metric definitions of the `semantic_catalog` table. */
  catalogEntries(
    workspaceId: string,
  ): Promise<{ key: string; definition: unknown; enabled: boolean }[]>;
}

/** What seeds, imports and the admin commands write, and read to check what they write. */
export interface AdminWrites {
  /**
   * A token that changes with every load of data (seed, import, clear), written in the same
   * transaction as the data: what the columnar copy and cached results are checked against.
   */
  dataStamp(): Promise<string>;
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  listWorkspaces(): Promise<Workspace[]>;
  getWorkspace(id: string): Promise<Workspace | null>;
  latestConfig(workspaceId: string): Promise<{ version: number; config: ProgramConfig } | null>;
  /** Stores a new program configuration version. */
  insertConfig(
    workspaceId: string,
    version: number,
    config: ProgramConfig,
    at: string,
  ): Promise<void>;
  insertToken(token: NewToken): Promise<void>;
  /** Marks the token revoked; false when no such token. */
  revokeToken(hash: string, at: string): Promise<boolean>;
  insertSavedQuery(row: SavedQueryRow): Promise<void>;
  /**
   * Which of `values` stand in `column` of `table` (within a workspace when `workspaceId` is
   * set): the importer's check of ids and codes before it writes.
   */
  existingKeys(
    table: DataTable,
    column: string,
    workspaceId: string | null,
    values: readonly string[],
  ): Promise<Set<string>>;
  /**
   * Rebuilds the report fact tables from their sources and gives the data a new stamp: for rows
   * written outside vms-read's own loads (`vms-read facts refresh`).
   */
  refreshReportFacts(): Promise<void>;
  /** True when any workspace exists. */
  hasData(): Promise<boolean>;
  /** Removes all data rows (tokens and meta included) so a seed can start again. */
  clearData(): Promise<void>;
  /** A sink that writes seed or import batches; `finish` commits what was written. */
  openSink(): Promise<SeedSink & { finish(): Promise<void>; abort(): Promise<void> }>;
}

/** What the columnar copy of the report facts is built from (src/store/duckdb/build-facts.ts). */
export interface FactSource {
  dataStamp(): Promise<string>;
  /**
   * A table's rows as CSV lines (RFC 4180: text quoted, quotes doubled; NULL an empty unquoted
   * field; integers in decimal), `columns` only, in primary-key order, a page at a time.
   */
  csvPages(table: Table, columns: readonly string[], pageSize: number): AsyncIterable<string[]>;
}

/**
 * The whole store, as SQLite and PostgreSQL implement it, each keeping its dialect inside. Callers
 * take the part they need: operations `ResourceReads` and `ReportFacts`, authentication
 * `TokenReads`, seeds, imports and admin commands `AdminWrites`, the server `StoreLifecycle`.
 */
export interface Store
  extends StoreLifecycle, TokenReads, ResourceReads, ReportFacts, AdminWrites, FactSource {}
