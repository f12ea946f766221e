import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Viewer } from '../../auth/principal.js';
import type { SeedSink } from '../../seed/sink.js';
import type { ProgramConfig } from '../program-config.js';
import { DATA_TABLES, MIGRATIONS, type DataTable } from '../schema.js';
import {
  getVisibleSql,
  invoiceLinesSql,
  listPageSql,
  timesheetEntriesSql,
} from '../sql/resource-sql.js';
import { ReportPool } from './report-pool.js';
import type {
  Keyset,
  SavedQueryRow,
  NewToken,
  PageQuery,
  ResourceSource,
  Row,
  Store,
  TokenRow,
  Workspace,
} from '../store.js';
import { toTokenRow, toWorkspace } from '../row-mapping.js';

/**
 * The embedded store: better-sqlite3 in WAL mode with every statement prepared once and cached.
 * better-sqlite3 is synchronous; the async interface is kept so PostgreSQL can implement it too.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private reports: ReportPool | null = null;

  constructor(readonly path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = OFF');
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

  async migrate(): Promise<void> {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[version]);
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }

  async close(): Promise<void> {
    await this.reports?.close();
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<boolean> {
    return this.db.open && this.prepare('SELECT 1 AS ok').get() !== undefined;
  }

  async getMeta(key: string): Promise<string | null> {
    const row = this.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
      { value: string } | undefined;
    return row?.value ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, value);
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return (this.prepare('SELECT * FROM workspaces ORDER BY id').all() as Row[]).map(toWorkspace);
  }

  async getWorkspace(id: string): Promise<Workspace | null> {
    const row = this.prepare('SELECT * FROM workspaces WHERE id = ?').get(id) as Row | undefined;
    return row ? toWorkspace(row) : null;
  }

  async latestConfig(
    workspaceId: string,
  ): Promise<{ version: number; config: ProgramConfig } | null> {
    const row = this.prepare(
      'SELECT version, config FROM program_configs WHERE workspace_id = ? ORDER BY version DESC LIMIT 1',
    ).get(workspaceId) as { version: number; config: string } | undefined;
    return row ? { version: row.version, config: JSON.parse(row.config) as ProgramConfig } : null;
  }

  async findTokenByHash(hash: string): Promise<TokenRow | null> {
    const row = this.prepare('SELECT * FROM tokens WHERE token_hash = ?').get(hash) as
      Row | undefined;
    return row ? toTokenRow(row) : null;
  }

  async insertToken(t: NewToken): Promise<void> {
    this.prepare(
      'INSERT INTO tokens (id, workspace_id, token_hash, role, worker_id, supplier_id, scopes, expires_at, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
    ).run(
      t.id,
      t.workspaceId,
      t.tokenHash,
      t.role,
      t.workerId,
      t.supplierId,
      t.scopes.join(' '),
      t.expiresAt,
      t.createdAt,
    );
  }

  async revokeToken(hash: string, at: string): Promise<boolean> {
    const result = this.prepare(
      'UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE token_hash = ?',
    ).run(at, hash);
    return result.changes > 0;
  }

  async supplierCode(workspaceId: string, supplierId: string): Promise<string | null> {
    const row = this.prepare('SELECT code FROM suppliers WHERE workspace_id = ? AND id = ?').get(
      workspaceId,
      supplierId,
    ) as { code: string } | undefined;
    return row?.code ?? null;
  }

  async workerExists(workspaceId: string, workerId: string): Promise<boolean> {
    return (
      this.prepare('SELECT 1 FROM workers WHERE workspace_id = ? AND id = ?').get(
        workspaceId,
        workerId,
      ) !== undefined
    );
  }

  async listPage(source: ResourceSource, q: PageQuery): Promise<Row[]> {
    const compiled = listPageSql(source, q.viewer, q.order, q.after !== null);
    return this.prepare(compiled.sql).all(...compiled.params({ ...q })) as Row[];
  }

  async getVisible(
    source: ResourceSource,
    workspaceId: string,
    viewer: Viewer,
    id: string,
  ): Promise<Row | null> {
    const compiled = getVisibleSql(source, viewer);
    return (
      (this.prepare(compiled.sql).get(...compiled.params({ workspaceId, viewer, id })) as
        Row | undefined) ?? null
    );
  }

  async timesheetEntries(
    timesheetId: string,
    columns: readonly string[],
    limit: number,
  ): Promise<Row[]> {
    return this.prepare(timesheetEntriesSql(columns)).all(timesheetId, limit) as Row[];
  }

  async invoiceLines(
    invoiceId: string,
    supplierCode: string | null,
    columns: readonly string[],
    limit: number,
  ) {
    const sql = invoiceLinesSql(columns, supplierCode !== null);
    const args = supplierCode !== null ? [invoiceId, supplierCode] : [invoiceId];
    const rows = this.prepare(sql.rows).all(...args, limit) as Row[];
    const count =
      rows.length < limit ? rows.length : (this.prepare(sql.count).get(...args) as { n: number }).n;
    return { rows, count };
  }

  async catalogStamp(workspaceId: string): Promise<string> {
    const row = this.prepare(
      `SELECT (SELECT MAX(version) FROM program_configs WHERE workspace_id = ?) AS v,
              (SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), '') FROM semantic_catalog WHERE workspace_id = ?) AS c`,
    ).get(workspaceId, workspaceId) as { v: number | null; c: string };
    return `${row.v ?? 0}:${row.c}`;
  }

  async catalogEntries(workspaceId: string) {
    const rows = this.prepare(
      `SELECT key, definition, enabled FROM semantic_catalog WHERE workspace_id = ? AND entry_type = 'metric' ORDER BY key`,
    ).all(workspaceId) as { key: string; definition: string; enabled: number }[];
    return rows.map((r) => ({
      key: r.key,
      definition: parseJson(r.definition),
      enabled: r.enabled === 1,
    }));
  }

  async insertConfig(
    workspaceId: string,
    version: number,
    config: ProgramConfig,
    at: string,
  ): Promise<void> {
    this.prepare(
      'INSERT INTO program_configs (workspace_id, version, config, created_at) VALUES (?, ?, ?, ?)',
    ).run(workspaceId, version, JSON.stringify(config), at);
  }

  /** Reports run on worker threads with their own connections (an in-memory database has none to share). */
  async runReport(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]> {
    if (this.path === ':memory:') throw new Error('report queries need a database file');
    this.reports ??= new ReportPool(this.path);
    return this.reports.run(sql, params, timeoutMs);
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
    const params = [workspaceId, ...(kind !== null ? [kind] : []), ...(after ?? []), limit];
    return this.prepare(sql).all(...params) as Row[];
  }

  async getSavedQuery(workspaceId: string, id: string): Promise<Row | null> {
    return (
      (this.prepare('SELECT * FROM saved_queries WHERE workspace_id = ? AND id = ?').get(
        workspaceId,
        id,
      ) as Row | undefined) ?? null
    );
  }

  async insertSavedQuery(row: SavedQueryRow): Promise<void> {
    this.prepare(
      'INSERT INTO saved_queries (id, workspace_id, kind, name, dashboard_id, definition, author, pinned_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      row.id,
      row.workspace_id,
      row.kind,
      row.name,
      row.dashboard_id,
      row.definition,
      row.author,
      row.pinned_at,
      row.created_at,
    );
  }

  async hasData(): Promise<boolean> {
    return this.prepare('SELECT 1 FROM workspaces LIMIT 1').get() !== undefined;
  }

  async clearData(): Promise<void> {
    this.db.transaction(() => {
      for (const table of [...DATA_TABLES, 'tokens', 'meta']) this.db.exec(`DELETE FROM ${table}`);
    })();
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
        this.db.exec('COMMIT');
        this.db.pragma('optimize');
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      },
      abort: async () => {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      },
    };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
