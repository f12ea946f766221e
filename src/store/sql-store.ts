import { randomBytes } from 'node:crypto';
import { StoreBusyError } from '../errors.js';
import { insertSql, type Dialect } from './dialect.js';
import type { Viewer } from './visibility.js';
import {
  SET_DATA_VERSION,
  startLoad,
  type Load,
  type LoadOptions,
  type VersionedWrite,
} from './load/load.js';
import { sweepTombstones, tombstoneHorizon } from './sql/tombstones.js';
import { ERASED_NAME, eraseWorkerRow, holdingJson, type ErasureOutcome } from './sql/erasure.js';
import type { ProgramConfig } from './program-config.js';
import { toTokenRow, toWorkspace } from './row-mapping.js';
import { DATA_TABLES, TABLES, type DataTable } from './schema.js';
import { columnNames, type Table } from './table.js';
import { FILL_PERIOD_ZONES, PERIOD_ZONES_TABLE } from './sql/period-zones.js';
import { hasPeriodBound, withCreationBounds } from './sql/period-bounds.js';
import {
  getVisibleSql,
  invoiceLinesSql,
  listPageSql,
  timesheetEntriesSql,
} from './sql/resource-sql.js';
import { changedRecordsSql, changePositionsSql } from './sql/changes-sql.js';
import { selectionCountSql, selectionPageSql } from './sql/selection-sql.js';
import { CHANGE_LOG_TABLES, TOMBSTONE_TABLES } from './sql/change-log.js';
import { oauthRecords, type OAuthRecords, type OAuthSql } from './sql/oauth-records.js';
import type { AuditWriterTarget } from './audit-writer.js';
import { auditRecords, type AuditRecords, type AuditSql } from './sql/audit/audit-records.js';
import { deliveryRecords, type DeliveryRecords } from './sql/webhook-progress.js';
import { webhookRecords, type WebhookRecords } from './sql/webhook-subscriptions.js';
import {
  stampOf,
  type Change,
  type ChangesPage,
  type ChangesQuery,
  type DataVersion,
  type FactSnapshot,
  type IdRange,
  type IdTable,
  type Keyset,
  type NewToken,
  type PageQuery,
  type PoolState,
  type ReportEngine,
  type ResourceSource,
  type Row,
  type SavedQueryRow,
  type SelectionQuery,
  type Store,
  type TokenRow,
  type Workspace,
} from './store.js';

/** Placeholders per key lookup: well under SQLite's and PostgreSQL's limits. */
const KEY_CHUNK = 500;

/** A new epoch: random, safe in a file name. */
function newEpoch(): string {
  return randomBytes(6).toString('hex');
}

/**
 * Everything both stores do the same way, written once over three primitives (`all`, `get`,
 * `run`) that take SQL with `?` placeholders. A dialect store supplies the primitives and what
 * truly differs: migrations, the write transaction of loads, snapshots for copying facts out,
 * report execution with a time limit, connections.
 */
export abstract class SqlStore implements Store {
  abstract readonly dialect: Dialect;
  abstract readonly reportConcurrency: number;
  abstract cacheSizes(): Record<string, number>;
  abstract connectionPools(): PoolState[];
  abstract all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  abstract run(sql: string, params?: readonly unknown[]): Promise<number>;
  abstract migrate(): Promise<void>;
  abstract refreshStatistics(): Promise<void>;
  abstract close(): Promise<void>;
  abstract ping(): Promise<boolean>;
  abstract changeStamp(): Promise<string | null>;
  abstract runReport(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]>;
  /**
   * A write transaction holding the data version (see VersionedWrite). `waits: false` (the
   * server's own writes) gives up at once, StoreBusyError, when another process holds the write
   * lock (an import), rather than wait for it.
   */
  protected abstract beginWrite(options?: { waits: boolean }): Promise<VersionedWrite>;
  abstract factSnapshot<T>(work: (snapshot: FactSnapshot) => Promise<T>): Promise<T>;
  /** Runs `work`'s reads in one read transaction, so they see the data as of one moment. */
  protected abstract readSnapshot<T>(
    work: (all: (sql: string, params: readonly unknown[]) => Promise<Row[]>) => Promise<T>,
  ): Promise<T>;

  async get(sql: string, params: readonly unknown[] = []): Promise<Row | null> {
    return (await this.all(sql, params))[0] ?? null;
  }

  async dataVersion(): Promise<DataVersion> {
    const rows = await this.all(
      "SELECT key, value FROM meta WHERE key IN ('data_version', 'facts_epoch')",
    );
    const value = (key: string) => rows.find((r) => r.key === key)?.value;
    return {
      epoch: String(value('facts_epoch') ?? 'none'),
      version: Number(value('data_version') ?? 0),
    };
  }

  /** After migrating: a database without an epoch (new, or from before epochs) gets one. */
  protected async ensureDataVersion(): Promise<void> {
    if ((await this.getMeta('facts_epoch')) === null) await this.setMeta('facts_epoch', newEpoch());
  }

  /** The row store answers reports itself from its report fact tables. */
  async reportEngine(): Promise<ReportEngine> {
    return {
      name: this.dialect.name,
      dialect: this.dialect,
      dataStamp: stampOf(await this.dataVersion()),
      run: (sql, params, timeoutMs) => this.runReport(sql, params, timeoutMs),
    };
  }

  async openLoad(options: LoadOptions = {}): Promise<Load> {
    return startLoad(await this.beginWrite(), options);
  }

  /**
   * Erases a worker's personal data (sql/erasure.ts) and scrubs the old text out of the
   * database files (`scrubErased`), even when an earlier erasure already replaced it.
   */
  async eraseWorker(workspaceId: string, workerId: string, at: string): Promise<ErasureOutcome> {
    // The authorization server's records that name the worker first, wherever they are kept (on
    // SQLite a file of their own, outside the erasure's transaction): a failure after this leaves
    // them gone and the worker not yet erased, which the next `erase` finishes.
    const worker = await this.get(
      'SELECT display_name, work_email FROM workers WHERE id = ? AND workspace_id = ?',
      [workerId, workspaceId],
    );
    for (const text of [worker?.display_name, worker?.work_email])
      if (typeof text === 'string' && text !== '' && text !== ERASED_NAME)
        await this.authorizationRecords().dropOAuthRecordsNaming(holdingJson(text));
    const outcome = await this.versioned((session, current) =>
      eraseWorkerRow(session, current, workspaceId, workerId, at),
    );
    if (outcome.found) await this.scrubErased();
    return outcome;
  }

  /** Gets text an erasure replaced out of the database files (SQLite's WAL; PostgreSQL's dead rows). */
  protected abstract scrubErased(): Promise<void>;

  /**
   * Removes tombstones older than the horizon (DESIGN §4.13): the server's hourly sweep. It never
   * waits for an import (DESIGN §4.16): a busy store is swept at the next hour.
   */
  async sweepTombstones(days: number): Promise<number> {
    return this.versioned(
      (session) =>
        sweepTombstones(
          session,
          days,
          new Date(),
          this.dialect.upsert('meta', ['key', 'value'], ['key']),
        ),
      { waits: false },
    ).catch((error: unknown) => {
      if (error instanceof StoreBusyError) return 0;
      throw error;
    });
  }

  async getMeta(key: string): Promise<string | null> {
    return (
      ((await this.get('SELECT value FROM meta WHERE key = ?', [key]))?.value as
        string | undefined) ?? null
    );
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.run(this.dialect.upsert('meta', ['key', 'value'], ['key']), [key, value]);
  }

  async setMetaOnce(key: string, value: string): Promise<string> {
    await this.run(insertSql('meta', ['key', 'value'], 1, ['key'], 'ignore'), [key, value]);
    return (await this.getMeta(key)) ?? value;
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return (await this.all('SELECT * FROM workspaces ORDER BY id')).map(toWorkspace);
  }

  async getWorkspace(id: string): Promise<Workspace | null> {
    const row = await this.get('SELECT * FROM workspaces WHERE id = ?', [id]);
    return row ? toWorkspace(row) : null;
  }

  async latestConfig(
    workspaceId: string,
  ): Promise<{ version: number; config: ProgramConfig } | null> {
    const row = await this.get(
      'SELECT version, config FROM program_configs WHERE workspace_id = ? ORDER BY version DESC LIMIT 1',
      [workspaceId],
    );
    return row
      ? { version: Number(row.version), config: JSON.parse(String(row.config)) as ProgramConfig }
      : null;
  }

  async findTokenByHash(hash: string): Promise<TokenRow | null> {
    const row = await this.get('SELECT * FROM tokens WHERE token_hash = ?', [hash]);
    return row ? toTokenRow(row) : null;
  }

  private oauth: OAuthRecords | null = null;

  /** Webhook subscriptions and their delivery (sql/webhook-subscriptions.ts, webhook-progress.ts). */
  webhooks(): WebhookRecords & DeliveryRecords {
    return (this.webhookPart ??= this.webhookRecordsOver((sql, params) =>
      this.runAside(sql, params),
    ));
  }

  /** The same, for the server's delivery loop: its writes never wait (runWithoutWaiting). */
  webhookDelivery(): WebhookRecords & DeliveryRecords {
    return (this.deliveryPart ??= this.webhookRecordsOver((sql, params) =>
      this.runWithoutWaiting(sql, params),
    ));
  }

  // Not the data's writes: a delivery's progress leaves the change stamp (answer caches) alone.
  private webhookRecordsOver(run: (sql: string, params: readonly unknown[]) => Promise<number>) {
    const sql = { all: (text: string, params: readonly unknown[]) => this.all(text, params), run };
    return { ...webhookRecords(sql), ...deliveryRecords(sql) };
  }

  private webhookPart: (WebhookRecords & DeliveryRecords) | undefined;
  private deliveryPart: (WebhookRecords & DeliveryRecords) | undefined;

  /**
   * A write aside (runAside) that does not wait for another process's write lock: StoreBusyError
   * instead. By default the same as runAside (PostgreSQL waits on a row without holding up the
   * server); SQLite's would hold the whole server still while an import runs.
   */
  protected runWithoutWaiting(sql: string, params: readonly unknown[]): Promise<number> {
    return this.runAside(sql, params);
  }

  authorizationRecords(): OAuthRecords {
    return (this.oauth ??= oauthRecords(this.oauthSql()));
  }

  private audit: AuditRecords | null = null;

  /** The access trail (DESIGN §4.17, sql/audit/). */
  auditTrail(): AuditRecords {
    return (this.audit ??= auditRecords(this.auditSql()));
  }

  /** No thread of its own by default: the store's subclasses say where one may write. */
  auditWriterTarget(): AuditWriterTarget | null {
    return null;
  }

  /** Where the access trail is read and written: beside the data by default, written aside. */
  protected auditSql(): AuditSql {
    return {
      all: (sql, params) => this.all(sql, params),
      run: (sql, params) => this.runAside(sql, params),
    };
  }

  /** Where the authorization server's records are read and written: beside the data by default. */
  protected oauthSql(): OAuthSql {
    return {
      get: (sql, params) => this.get(sql, params),
      run: (sql, params) => this.runAside(sql, params),
    };
  }

  /**
   * A write that is not the data's (the authorization server's records): by default a plain
   * `run`; SQLite's leaves its change stamp alone, so signing in does not empty answer caches.
   */
  protected runAside(sql: string, params: readonly unknown[]): Promise<number> {
    return this.run(sql, params);
  }

  async findTokenById(id: string): Promise<TokenRow | null> {
    const row = await this.get('SELECT * FROM tokens WHERE id = ?', [id]);
    return row ? toTokenRow(row) : null;
  }

  async insertToken(t: NewToken): Promise<void> {
    await this.insertRow('tokens', {
      id: t.id,
      workspace_id: t.workspaceId,
      token_hash: t.tokenHash,
      role: t.role,
      worker_id: t.workerId,
      supplier_id: t.supplierId,
      scopes: t.scopes.join(' '),
      expires_at: t.expiresAt,
      revoked_at: null,
      created_at: t.createdAt,
      in_url: t.inUrl ? 1 : 0,
    });
  }

  /** Inserts one row: the table's declared columns, each from `row` (absent is NULL). */
  protected async insertRow(table: string, row: Record<string, unknown>): Promise<void> {
    const columns = columnNames(TABLES.get(table) as Table);
    await this.run(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      columns.map((column) => row[column] ?? null),
    );
  }

  async revokeToken(hash: string, at: string): Promise<boolean> {
    return (
      (await this.run(
        'UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE token_hash = ?',
        [at, hash],
      )) > 0
    );
  }

  async supplierCode(workspaceId: string, supplierId: string): Promise<string | null> {
    return (
      ((
        await this.get('SELECT code FROM suppliers WHERE workspace_id = ? AND id = ?', [
          workspaceId,
          supplierId,
        ])
      )?.code as string) ?? null
    );
  }

  async workerExists(workspaceId: string, workerId: string): Promise<boolean> {
    return (
      (await this.get('SELECT 1 AS ok FROM workers WHERE workspace_id = ? AND id = ?', [
        workspaceId,
        workerId,
      ])) !== null
    );
  }

  async listPage(source: ResourceSource, q: PageQuery): Promise<Row[]> {
    const given = q.conditions ?? [];
    const page = async (
      all: (sql: string, params: readonly unknown[]) => Promise<Row[]>,
    ): Promise<Row[]> => {
      const conditions = await withCreationBounds(
        async (sql, params) => (await all(sql, params))[0] ?? null,
        source.table,
        q.workspaceId,
        given,
      );
      if (conditions === null) return [];
      const compiled = listPageSql(source, q.viewer, q.order, q.after !== null, conditions);
      return all(compiled.sql, compiled.params({ ...q, conditions }));
    };
    // A period's bounds and the page it bounds are read in one snapshot: a load committed
    // between them could add records on days the bounds, read before it, leave out.
    return hasPeriodBound(source.table, given)
      ? this.readSnapshot(page)
      : page((sql, params) => this.all(sql, params));
  }

  async selectPage(source: ResourceSource, q: SelectionQuery): Promise<Row[]> {
    const statement = selectionPageSql(this.dialect, source, q);
    return this.all(statement.sql, statement.params);
  }

  async selectCount(source: ResourceSource, q: SelectionQuery): Promise<number> {
    const statement = selectionCountSql(this.dialect, source, q);
    return Number((await this.get(statement.sql, statement.params))?.n ?? 0);
  }

  async getVisible(
    source: ResourceSource,
    workspaceId: string,
    viewer: Viewer,
    id: string,
  ): Promise<Row | null> {
    const compiled = getVisibleSql(source, viewer);
    return this.get(compiled.sql, compiled.params({ workspaceId, viewer, id }));
  }

  async timesheetEntries(
    timesheetId: string,
    columns: readonly string[],
    limit: number,
  ): Promise<Row[]> {
    return this.all(timesheetEntriesSql(columns), [timesheetId, limit]);
  }

  async invoiceLines(
    invoiceId: string,
    supplierCode: string | null,
    columns: readonly string[],
    limit: number,
  ) {
    const sql = invoiceLinesSql(columns, supplierCode !== null);
    const args = supplierCode !== null ? [invoiceId, supplierCode] : [invoiceId];
    const rows = await this.all(sql.rows, [...args, limit]);
    // The count query runs only when the page is full: otherwise the rows are the count.
    const count = rows.length < limit ? rows.length : Number((await this.get(sql.count, args))?.n);
    return { rows, count };
  }

  async catalogStamp(workspaceId: string): Promise<string> {
    const row = await this.get(
      `SELECT (SELECT MAX(version) FROM program_configs WHERE workspace_id = ?) AS v,
              (SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), '') FROM semantic_catalog WHERE workspace_id = ?) AS c`,
      [workspaceId, workspaceId],
    );
    return `${row?.v ?? 0}:${row?.c ?? ''}`;
  }

  async catalogEntries(workspaceId: string) {
    const rows = await this.all(
      `SELECT key, definition, enabled FROM semantic_catalog WHERE workspace_id = ? AND entry_type = 'metric' ORDER BY key`,
      [workspaceId],
    );
    return rows.map((r) => ({
      key: String(r.key),
      definition: parseJson(String(r.definition)),
      enabled: Number(r.enabled) === 1,
    }));
  }

  async insertConfig(
    workspaceId: string,
    version: number,
    config: ProgramConfig,
    at: string,
  ): Promise<void> {
    await this.run(
      'INSERT INTO program_configs (workspace_id, version, config, created_at) VALUES (?, ?, ?, ?)',
      [workspaceId, version, JSON.stringify(config), at],
    );
  }

  async listSavedQueries(
    workspaceId: string,
    kind: string | null,
    after: Keyset | null,
    limit: number,
  ): Promise<Row[]> {
    const sql =
      'SELECT id, kind, name, dashboard_id, pinned_at FROM saved_queries WHERE workspace_id = ?' +
      (kind !== null ? ' AND kind = ?' : '') +
      (after !== null ? ' AND (pinned_at, id) > (?, ?)' : '') +
      ' ORDER BY pinned_at, id LIMIT ?';
    return this.all(sql, [workspaceId, ...(kind !== null ? [kind] : []), ...(after ?? []), limit]);
  }

  async getSavedQuery(workspaceId: string, id: string): Promise<Row | null> {
    return this.get('SELECT * FROM saved_queries WHERE workspace_id = ? AND id = ?', [
      workspaceId,
      id,
    ]);
  }

  async existingIds(table: IdTable, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < ids.length; start += KEY_CHUNK) {
      const chunk = ids.slice(start, start + KEY_CHUNK);
      const rows = await this.all(
        `SELECT id FROM ${table} WHERE id IN (${chunk.map(() => '?').join(', ')})`,
        chunk,
      );
      for (const row of rows) found.add(String(row.id));
    }
    return found;
  }

  async changesPage(query: ChangesQuery): Promise<ChangesPage | 'cursor_expired'> {
    return this.readSnapshot(async (all) => {
      // Tombstones removed since the cursor was given may lie after it (DESIGN §4.13): a read
      // that began before their removal, at or before the newest of them, could have missed one.
      const horizon = await tombstoneHorizon(all);
      if (query.knownHorizon !== null && query.knownHorizon < horizon && query.after[0] <= horizon)
        return 'cursor_expired' as const;
      const [stamp] = await all("SELECT value FROM meta WHERE key = 'data_version'", []);
      const version = Number(stamp?.value ?? 0);
      if (query.sources.length === 0) return { changes: [], horizon, version };
      const positions = changePositionsSql(query);
      const page = await all(positions.sql, positions.params);
      const rows = new Map<string, Row>();
      for (const { type, source } of query.sources) {
        const ids = page
          .filter((c) => c.type === type && (c.reason === null || c.reason === undefined))
          .map((c) => String(c.id));
        if (ids.length === 0) continue;
        const records = changedRecordsSql(source, ids.length, query.viewer);
        const found = await all(records.sql, [query.workspaceId, ...ids, ...records.params]);
        for (const row of found) rows.set(`${type}\u0000${String(row.id)}`, row);
      }
      const changes = page.flatMap((c): Change[] => {
        const at = { version: Number(c.version), type: String(c.type), id: String(c.id) };
        if (c.reason === 'deleted' || c.reason === 'not_visible')
          return [{ ...at, row: null, removed: c.reason }];
        const row = rows.get(`${at.type}\u0000${at.id}`);
        if (row) return [{ ...at, row, removed: null }];
        // Staff read the change log itself: a record its table no longer holds was deleted.
        return query.viewer.role === 'staff' ? [{ ...at, row: null, removed: 'deleted' }] : [];
      });
      return { changes, horizon, version };
    });
  }

  async insertSavedQuery(row: SavedQueryRow): Promise<void> {
    await this.insertRow('saved_queries', row as unknown as Record<string, unknown>);
  }

  /**
   * Starts a new epoch (columnar copies are written anew from the records) and rebuilds the period
   * zones; the data version stays: no record changed (`vms-read facts refresh`).
   */
  async refreshReportFacts(): Promise<void> {
    await this.versioned(async (session) => {
      // The period zones: rows written by other means than a load left them behind.
      await session.run(`DELETE FROM ${PERIOD_ZONES_TABLE.name}`);
      for (const sql of FILL_PERIOD_ZONES) await session.run(sql);
      await session.run(this.dialect.upsert('meta', ['key', 'value'], ['key']), [
        'facts_epoch',
        newEpoch(),
      ]);
    });
  }

  /** Runs `work` in a write transaction holding the data version: all of it, or none. */
  private async versioned<T>(
    work: (session: VersionedWrite['session'], current: number) => Promise<T>,
    options?: { waits: boolean },
  ): Promise<T> {
    const write = await this.beginWrite(options);
    try {
      const result = await work(write.session, write.current);
      await write.commit();
      return result;
    } catch (error) {
      await write.rollback();
      throw error;
    }
  }

  async storedRows(
    table: DataTable,
    column: string,
    values: readonly string[],
    columns: readonly string[],
    workspaceId: string | null,
  ): Promise<Row[]> {
    const found: Row[] = [];
    const scope = workspaceId === null ? [] : [workspaceId];
    const where = workspaceId === null ? '' : 'workspace_id = ? AND ';
    for (let start = 0; start < values.length; start += KEY_CHUNK) {
      const chunk = values.slice(start, start + KEY_CHUNK);
      const sql = `SELECT ${columns.join(', ')} FROM ${table} WHERE ${where}${column} IN (${chunk.map(() => '?').join(', ')})`;
      found.push(...(await this.all(sql, [...scope, ...chunk])));
    }
    return found;
  }

  async storedIdRange(table: DataTable): Promise<IdRange | null> {
    const row = await this.get(`SELECT MIN(id) AS least, MAX(id) AS greatest FROM ${table}`);
    if (!row || row.least === null || row.least === undefined) return null;
    return { least: String(row.least), greatest: String(row.greatest) };
  }

  async hasData(): Promise<boolean> {
    return (await this.get('SELECT 1 AS ok FROM workspaces LIMIT 1')) !== null;
  }

  /** Removes every data row, tokens and meta included; a new database: version 0, a new epoch. */
  async clearData(): Promise<void> {
    await this.versioned(async (session) => {
      for (const table of [
        ...DATA_TABLES,
        ...[...CHANGE_LOG_TABLES, ...TOMBSTONE_TABLES, PERIOD_ZONES_TABLE].map((t) => t.name),
        'tokens',
      ])
        await session.run(`DELETE FROM ${table}`);
      await session.run("DELETE FROM meta WHERE key <> 'data_version'");
      await session.run(SET_DATA_VERSION, ['0']);
      await session.run("INSERT INTO meta (key, value) VALUES ('facts_epoch', ?)", [newEpoch()]);
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
