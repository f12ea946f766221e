import type { SqlDialect } from '../semantic/dialect.js';
import type { HeldRollup } from '../semantic/rollups.js';
import type { Dialect } from './dialect.js';
import type { Viewer, Visibility } from './visibility.js';
import type { DataTable } from './schema.js';
import type { Load, LoadOptions } from './load/load.js';
import type { ProgramConfig } from './program-config.js';
import type { OAuthRecords } from './sql/oauth-records.js';
import type { AuditWriterTarget } from './audit-writer.js';
import type { AuditRecords } from './sql/audit/audit-records.js';
export type { AuditQuery } from './sql/audit/audit-records.js';
import type { DeliveryRecords } from './sql/webhook-progress.js';
import type { WebhookRecords } from './sql/webhook-subscriptions.js';
import type { ErasureOutcome } from './sql/erasure.js';
import type { FeedTable } from './sql/change-log.js';

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

/**
 * A list filter (DESIGN §4.15) as the store renders it: a predicate on a column of the listed
 * table that one of its indexes answers. Values are bound, never written into the SQL.
 * - `equal`: the column holds the value.
 * - `supplier`: `supplier_ref` holds the code of the supplier whose id is the value.
 * - `atLeast` / `atMost`: the column's text is at or after / at or before the value (dates).
 * - `below`: the column's text sorts before the value (the store's own bounds on creation times).
 * - `in`: the column holds one of the value's comma-separated values (`ids`, by primary key).
 */
export interface ListCondition {
  is: 'equal' | 'supplier' | 'atLeast' | 'atMost' | 'below' | 'in';
  column: string;
  value: string;
}

/**
 * A condition on the rows of a listed table (alias `t`), rendered in the store's dialect: its SQL
 * text written by code (columns of the record definitions, fixed operators), every value a client
 * gave bound as a parameter.
 */
export type Predicate = (dialect: Dialect) => { sql: string; params: unknown[] };

/** One key of a selection's order. */
export interface SelectionOrder {
  column: string;
  direction: Order;
  /** Nulls come first ascending and last descending (OData's order), on both databases. */
  nullable: boolean;
}

/**
 * A page of any order and condition (the OData feed, DESIGN §4.18), after the viewer's
 * visibility: keyset paging on `order`, whose last keys make it total (`created_at`, `id`).
 */
export interface SelectionQuery {
  workspaceId: string;
  viewer: Viewer;
  where: readonly Predicate[];
  order: readonly SelectionOrder[];
  /** The previous page's last row's values of the order's columns; null for a first page. */
  after: readonly unknown[] | null;
  /** Rows to pass over first (`$skip`). */
  offset: number;
  limit: number;
}

export interface PageQuery {
  workspaceId: string;
  viewer: Viewer;
  after: Keyset | null;
  order: Order;
  /** Rows to read; callers ask for one more than the page size to learn `hasMore`. */
  limit: number;
  /** Filters, all of which a row must meet (none: every visible row). */
  conditions?: readonly ListCondition[];
}

/**
 * Where the row store's data stands (DESIGN §4.11): `version` is one higher after every load that
 * changed anything, committed with its rows; `epoch` changes when the report facts are rebuilt
 * whole (`facts refresh`) or the data cleared, so a columnar copy of another epoch is never
 * patched, only replaced.
 */
export interface DataVersion {
  epoch: string;
  version: number;
}

/** A data version as one string: what copies and cached results are labelled with. */
export function stampOf(version: DataVersion): string {
  return `${version.epoch}.${version.version}`;
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
  /** Minted with `--in-url`: the OData feed takes it as `api_key` (DESIGN §4.18). */
  inUrl: boolean;
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
  /**
   * How many reads it answers at once when its reads wait for a connection (PostgreSQL: the
   * pool's size); absent where they wait for none (SQLite reads in process, synchronously).
   */
  readonly readConcurrency?: number;
  /** Creates or upgrades the schema. */
  migrate(): Promise<void>;
  /**
   * Brings the query planner's statistics up to what the tables hold, after a bulk load (seed):
   * a planner that thinks a table small can sort a whole workspace for a page.
   */
  refreshStatistics(): Promise<void>;
  close(): Promise<void>;
  /**
   * A value that changes whenever data may have changed, by any connection or process; null
   * when the store cannot tell cheaply (then callers cache nothing across requests).
   */
  changeStamp(): Promise<string | null>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  /** Removes the change feed's tombstones older than `days` days; returns how many. */
  sweepTombstones(days: number): Promise<number>;
}

/** What authentication reads: tokens, their workspace, the worker or supplier they name. */
export interface TokenReads {
  findTokenByHash(hash: string): Promise<TokenRow | null>;
  /** An access key by its id (the subject of the built-in authorization server's grants). */
  findTokenById(id: string): Promise<TokenRow | null>;
  getWorkspace(id: string): Promise<Workspace | null>;
  supplierCode(workspaceId: string, supplierId: string): Promise<string | null>;
  workerExists(workspaceId: string, workerId: string): Promise<boolean>;
  changeStamp(): Promise<string | null>;
}

/** A place in the change feed: a change's (version, type, id). */
export type FeedPosition = readonly [version: number, type: string, id: string];

/** A page of the change feed to read (DESIGN §4.11). */
export interface ChangesQuery {
  workspaceId: string;
  viewer: Viewer;
  /** The item types this reader sees, each with its list's table, columns and visibility. */
  sources: readonly { type: string; source: ResourceSource }[];
  after: FeedPosition;
  /**
   * The tombstone horizon when the reader's first page was read (carried in its cursors); null
   * for a read from the start, which is never expired.
   */
  knownHorizon: number | null;
  /** Changes to read; callers ask for one more than the page size to learn `hasMore`. */
  limit: number;
}

/** A change as read: where it stands in the feed, and the record as stored now. */
/** A page of the change feed as read, with the tombstone horizon and data version of its snapshot. */
export interface ChangesPage {
  changes: Change[];
  horizon: number;
  /** The data version the page was read at: every change so far has it or an older one. */
  version: number;
}

export interface Change {
  version: number;
  type: string;
  id: string;
  /** The record, or null for a tombstone. */
  row: Row | null;
  /** Why a tombstone's record left this reader (DESIGN §4.13); null for a record. */
  removed: 'deleted' | 'not_visible' | null;
}

/** The tables whose ids a parameter may name: the records' and the saved queries'. */
export type IdTable = FeedTable | 'saved_queries';

/** What resource operations read: pages, gets and their parts, saved queries, changes. */
export interface ResourceReads {
  /** One page of a resource list in (created_at, id) order, filtered by the viewer's visibility. */
  listPage(source: ResourceSource, query: PageQuery): Promise<Row[]>;
  /** A page of a selection (any order and condition), filtered by the viewer's visibility. */
  selectPage(source: ResourceSource, query: SelectionQuery): Promise<Row[]>;
  /** How many rows a selection holds in all (its order, position, offset and limit aside). */
  selectCount(source: ResourceSource, query: SelectionQuery): Promise<number>;
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
  /**
   * Which of `ids` name a record of `table`, in any workspace: what the access trail keeps of an
   * id parameter (DESIGN §4.17: a value that names no record is text a person typed).
   */
  existingIds(table: IdTable, ids: readonly string[]): Promise<Set<string>>;
  /**
   * Changes after a position in (version, type, id) order, each record once at its latest
   * version, only those the viewer sees; positions and records read at one snapshot.
   */
  /**
   * A page of changes and the tombstone horizon it was read at, or `cursor_expired` when
   * tombstones after the position were removed since the reader's horizon.
   */
  changesPage(query: ChangesQuery): Promise<ChangesPage | 'cursor_expired'>;
}

/**
 * What answers one report query: a database engine over report facts copied or kept at one data
 * stamp. The compiler renders the query in its dialect; `run` applies a time limit.
 */
export interface ReportEngine {
  /** `duckdb` (the columnar copy), `sqlite` or `postgres` (the row store itself). */
  readonly name: string;
  readonly dialect: SqlDialect;
  /** The row store's data version (stampOf) the facts it reads were current at. */
  readonly dataStamp: string;
  /** Rollups of the facts it holds, for the queries they cover (the columnar copy's); none: the facts alone. */
  readonly rollups?: readonly HeldRollup[];
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
  /**
   * The engine that answers a query the one `reportEngine` gave failed for its own reasons
   * (ReportEngineFailedError: the columnar copy out of memory, say): the row store. Absent when
   * the row store answers reports itself.
   */
  fallbackEngine?(failure: unknown): Promise<ReportEngine>;
  latestConfig(workspaceId: string): Promise<{ version: number; config: ProgramConfig } | null>;
  /** A cheap fingerprint of what a workspace's catalog is built from; changes when any input does. */
  catalogStamp(workspaceId: string): Promise<string>;
  /** Stored metric definitions of the `semantic_catalog` table. */
  catalogEntries(
    workspaceId: string,
  ): Promise<{ key: string; definition: unknown; enabled: boolean }[]>;
}

/** What seeds, imports and the admin commands write, and read to check what they write. */
/** The least and the greatest of a table's ids. */
export interface IdRange {
  least: string;
  greatest: string;
}

export interface AdminWrites {
  /** The data version now (see DataVersion). */
  dataVersion(): Promise<DataVersion>;
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  /** Stores `value` under `key` unless one is stored already (atomically); returns what is stored. */
  setMetaOnce(key: string, value: string): Promise<string>;
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
   * The stored rows (`columns` of them) whose `column` holds one of `values`, within a workspace
   * when `workspaceId` is set: the importer's check of ids, codes and references before it writes.
   */
  storedRows(
    table: DataTable,
    column: string,
    values: readonly string[],
    columns: readonly string[],
    workspaceId: string | null,
  ): Promise<Row[]>;
  /**
   * The least and the greatest id a table holds (any workspace; null when it holds none): an id
   * outside them is not stored, and the importer need not ask (ids that grow with each load).
   */
  storedIdRange(table: DataTable): Promise<IdRange | null>;
  /**
   * Rebuilds the report fact tables from their sources and starts a new epoch, so columnar copies
   * are written anew: for rows written outside vms-read's own loads (`vms-read facts refresh`).
   */
  refreshReportFacts(): Promise<void>;
  /** True when any workspace exists. */
  hasData(): Promise<boolean>;
  /** Removes all data rows (tokens and meta included) so a seed can start again. */
  clearData(): Promise<void>;
  /**
   * A load (seed or import) in one transaction holding the data version: its writes upsert by id
   * and keep change log and report facts current; `finish` commits them with a new version.
   */
  openLoad(options?: LoadOptions): Promise<Load>;
  /** Erases a worker's personal data, as a new data version (DESIGN §4.13; sql/erasure.ts). */
  eraseWorker(workspaceId: string, workerId: string, at: string): Promise<ErasureOutcome>;
}

/** One consistent view of the row store, at one data version, for copying facts out of it. */
export interface FactSnapshot {
  readonly version: DataVersion;
  /**
   * The rows of a SELECT whose single column `line` is a CSV line (see csvLine), a page at a time,
   * in the order the SELECT gives.
   */
  lines(sql: string, params: readonly unknown[], pageSize: number): AsyncIterable<string[]>;
  /** The rows of a small SELECT. */
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** What the columnar copies of the report facts are written and patched from (src/store/duckdb/). */
export interface FactSource {
  readonly dialect: Dialect;
  dataVersion(): Promise<DataVersion>;
  /**
   * Runs `work` on one snapshot of the row store (a read transaction on a connection of its own),
   * so what it reads is exactly the data at `snapshot.version` however long it takes.
   */
  factSnapshot<T>(work: (snapshot: FactSnapshot) => Promise<T>): Promise<T>;
}

/**
 * The whole store, as SQLite and PostgreSQL implement it, each keeping its dialect inside. Callers
 * take the part they need: operations `ResourceReads` and `ReportFacts`, authentication
 * `TokenReads`, seeds, imports and admin commands `AdminWrites`, the server `StoreLifecycle`.
 */
/** What the built-in authorization server keeps (src/oauth-server/), in the same database. */
export interface AuthorizationRecords {
  authorizationRecords(): OAuthRecords;
}

/** The access trail (DESIGN §4.17): the server writes it, the CLI and `list_audit_events` read it. */
export interface AuditTrailStore {
  auditTrail(): AuditRecords;
  /**
   * Where a thread of its own may write the trail's chain with a connection of its own
   * (audit/chain-thread.ts); null when no other thread can open the store (in memory).
   */
  auditWriterTarget(): AuditWriterTarget | null;
}

/** Webhook subscriptions (DESIGN §4.14): the webhook commands and the delivery. */
export interface WebhookStore {
  webhooks(): WebhookRecords & DeliveryRecords;
  /** The same for the server's delivery loop: a write that would wait is StoreBusyError. */
  webhookDelivery(): WebhookRecords & DeliveryRecords;
}

export interface Store
  extends
    StoreLifecycle,
    WebhookStore,
    TokenReads,
    ResourceReads,
    ReportFacts,
    AdminWrites,
    FactSource,
    AuthorizationRecords,
    AuditTrailStore {}
