/**
 * The deletions of one load (DESIGN §4.13), applied in its transaction after its rows: type by
 * type, those that others refer to last (an approval status, invoice, expense or timesheet before
 * an assignment, an assignment before its worker and supplier). A deletion applies when its
 * `deleted_at` is not earlier than the stored `updated_at`; else it is skipped. Deleting an id
 * that is not stored changes nothing (`unchanged`, as replaying a deletion file is harmless).
 * A timesheet takes its time entries with it and an invoice its lines, and `fact_deletions` tells
 * the columnar copies that their facts went. A deleted record stays in
 * the change log at this version, with its `deleted_at` in `record_deletions` (a later row brings
 * it back, one not later is skipped) and a tombstone for each audience that could read it. A
 * record others still refer to after the load's own deletions is a problem of the deletion's
 * line, and the load writes nothing.
 */
import type { FeedTable, FeedType } from '../sql/change-log.js';
import { FEED_TYPES } from '../sql/change-log.js';
import type { DataTable } from '../schema.js';
import type { Row } from '../sink.js';
import {
  lineSuppliers,
  ownAudiences,
  workerAudience,
  type AudienceLog,
  type SupplierLinks,
} from './audiences.js';
import type { LoadCounts } from './load-counts.js';
import type { WriteSession } from './write-session.js';

/** One row of `deletions.csv` or `deletions.ndjson`, with where it came from. */
export interface Deletion {
  type: FeedType;
  id: string;
  deleted_at: string;
  file: string;
  line: number;
}

/** A deletion the load cannot apply: others still refer to the record. */
export interface DeletionProblem {
  file: string;
  line: number;
  message: string;
}

/** The load refused some deletions: nothing of it was written. */
export class DeletionRefusedError extends Error {
  constructor(readonly problems: readonly DeletionProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n'));
  }
}

/** Types in the order their deletions apply: referring records first. */
const ORDER: readonly FeedType[] = [
  'approval_status',
  'invoice',
  'expense',
  'timesheet',
  'assignment',
  'worker',
  'supplier',
];

/** Who may still refer to a deleted record: the table, its column, and what the column holds. */
const REFERRERS: Partial<
  Record<FeedType, { table: FeedTable | 'time_entries'; column: string; by: 'id' | 'code' }[]>
> = {
  worker: [
    { table: 'assignments', column: 'worker_id', by: 'id' },
    { table: 'timesheets', column: 'worker_id', by: 'id' },
    { table: 'expenses', column: 'worker_id', by: 'id' },
    { table: 'approval_statuses', column: 'worker_id', by: 'id' },
  ],
  assignment: [
    { table: 'expenses', column: 'assignment_id', by: 'id' },
    // No index by assignment (see change-log.ts): one scan of the entries, only for such loads.
    { table: 'time_entries', column: 'assignment_id', by: 'id' },
  ],
  supplier: [{ table: 'assignments', column: 'supplier_ref', by: 'code' }],
};

/** The parts a record takes with it, their fact table, and how a part's fact is keyed. */
const PARTS: Partial<Record<FeedType, { table: DataTable; kind: 'entry' | 'line' }>> = {
  timesheet: { table: 'time_entries', kind: 'entry' },
  invoice: { table: 'invoice_lines', kind: 'line' },
};

const CHUNK = 1000;

export class DeletionPass {
  private readonly problems: DeletionProblem[] = [];

  constructor(
    private readonly session: WriteSession,
    private readonly workspaceId: string,
    private readonly version: number,
    private readonly clock: string,
    private readonly counts: Record<DataTable, LoadCounts>,
    private readonly log: AudienceLog,
    private readonly links: SupplierLinks,
  ) {}

  /** The scratch tables: the deletions given, and those applied. */
  static scratchSql(session: WriteSession): string[] {
    return [
      ...session.dialect.scratchTable(
        'load_deletions',
        '(type TEXT NOT NULL, id TEXT NOT NULL, deleted_at TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (type, id))',
      ),
      ...session.dialect.scratchTable(
        'load_applied',
        '(type TEXT NOT NULL, id TEXT NOT NULL, code TEXT, PRIMARY KEY (type, id))',
      ),
    ];
  }

  /** Applies every deletion given; throws DeletionRefusedError when one cannot be. */
  async apply(): Promise<boolean> {
    let changed = false;
    for (const type of ORDER) if (await this.applyType(type)) changed = true;
    if (this.problems.length > 0) throw new DeletionRefusedError(this.problems);
    return changed;
  }

  private async applyType(type: FeedType): Promise<boolean> {
    const table = FEED_TYPES[type];
    let after = '';
    let applied = 0;
    for (;;) {
      const given = await this.session.all(
        `SELECT d.id AS given_id, d.deleted_at AS given_deleted_at, t.*
           FROM load_deletions d LEFT JOIN ${table} t ON t.id = d.id
           WHERE d.type = ? AND d.id > ? ORDER BY d.id LIMIT ${CHUNK}`,
        [type, after],
      );
      if (given.length === 0) break;
      after = String(given[given.length - 1].given_id);
      const doomed: Row[] = [];
      for (const row of given) {
        if (row.id === null || row.id === undefined) this.counts[table].unchanged++;
        else if (String(row.workspace_id) !== this.workspaceId)
          await this.refuse(type, String(row.given_id), 'is stored in another workspace');
        else if (String(row.updated_at) > String(row.given_deleted_at))
          this.counts[table].skipped++;
        else doomed.push(row as Row);
      }
      if (doomed.length > 0) await this.remove(type, doomed);
      applied += doomed.length;
    }
    if (applied === 0) return false;
    await this.checkReferrers(type);
    return true;
  }

  /** Takes these stored records out, with their parts and tombstones. */
  private async remove(type: FeedType, rows: readonly Row[]): Promise<void> {
    const table = FEED_TYPES[type];
    const ids = rows.map((r) => String(r.id));
    await this.session.insertRows(
      'load_applied',
      ['type', 'id', 'code'],
      rows.map((r) => [type, r.id, type === 'supplier' ? r.code : null]),
    );
    const inList = `(SELECT id FROM load_applied WHERE type = '${type}' AND id IN (${ids.map(() => '?').join(', ')}))`;
    // Who could read each record, before it goes: its own columns, a consolidated invoice's
    // lines, the workers a supplier's assignments linked before this load.
    const lines =
      type === 'invoice'
        ? await lineSuppliers(
            this.session,
            rows.filter((r) => r.supplier_ref === null).map((r) => String(r.id)),
          )
        : new Map<string, string[]>();
    await this.log.removed(
      rows.map((row) => ({
        workspaceId: this.workspaceId,
        type,
        id: String(row.id),
        audiences: [
          ...ownAudiences(type, row),
          ...(lines.get(String(row.id)) ?? []),
          ...(type === 'supplier'
            ? this.links.workersBefore(this.workspaceId, String(row.code)).map(workerAudience)
            : []),
        ],
      })),
      'deleted',
    );
    if (type === 'assignment') await this.links.touch(rows);
    const parts = PARTS[type];
    if (parts) await this.removeParts(type, parts, inList, ids);
    await this.session.run(`DELETE FROM ${table} WHERE id IN ${inList}`, [...ids]);
    await this.session.insertRows(
      'record_changes',
      ['type', 'id', 'workspace_id', 'version'],
      ids.map((id) => [type, id, this.workspaceId, this.version]),
      ['type', 'id'],
    );
    await this.session.insertRows(
      'record_deletions',
      ['type', 'id', 'workspace_id', 'version', 'deleted_at', 'removed_at'],
      rows.map((r) => [type, r.id, this.workspaceId, this.version, r.given_deleted_at, this.clock]),
      ['type', 'id'],
    );
    this.counts[table].deleted += rows.length;
  }

  /** A timesheet's entries or an invoice's lines, noted in `fact_deletions` for the copies. */
  private async removeParts(
    type: FeedType,
    parts: { table: DataTable; kind: 'entry' | 'line' },
    inList: string,
    ids: readonly string[],
  ): Promise<void> {
    const parent = type === 'timesheet' ? 'timesheet_id' : 'invoice_id';
    const partIds = `SELECT p.id FROM ${parts.table} p WHERE p.${parent} IN ${inList}`;
    const [{ n }] = await this.session.all(`SELECT COUNT(*) AS n FROM (${partIds}) k`, [...ids]);
    if (Number(n) === 0) return;
    await this.session.run(
      `DELETE FROM fact_deletions WHERE kind = '${parts.kind}' AND id IN (${partIds})`,
      [...ids],
    );
    await this.session.run(
      `INSERT INTO fact_deletions (kind, id, version) SELECT '${parts.kind}', p.id, ${this.version} FROM ${parts.table} p WHERE p.${parent} IN ${inList}`,
      [...ids],
    );
    await this.session.run(`DELETE FROM ${parts.table} WHERE ${parent} IN ${inList}`, [...ids]);
    this.counts[parts.table].deleted += Number(n);
  }

  /** Records of `type` deleted by this load that others still refer to: each a problem. */
  private async checkReferrers(type: FeedType): Promise<void> {
    for (const { table, column, by } of REFERRERS[type] ?? []) {
      const key = by === 'code' ? 'code' : 'id';
      const held = await this.session.all(
        `SELECT a.id AS id, MIN(r.id) AS referrer, COUNT(*) AS n FROM load_applied a
           JOIN ${table} r ON r.${column} = a.${key} AND r.workspace_id = ?
           WHERE a.type = ? GROUP BY a.id ORDER BY a.id`,
        [this.workspaceId, type],
      );
      for (const row of held) {
        const n = Number(row.n);
        await this.refuse(
          type,
          String(row.id),
          `is still referred to by ${n} ${n === 1 ? 'row' : 'rows'} of ${table} (${String(row.referrer)}${n > 1 ? ', …' : ''}): delete ${n === 1 ? 'it' : 'them'} in the same load, or keep the ${type.replace('_', ' ')}`,
        );
      }
    }
  }

  private async refuse(type: FeedType, id: string, problem: string): Promise<void> {
    const [where] = await this.session.all(
      'SELECT file, line FROM load_deletions WHERE type = ? AND id = ?',
      [type, id],
    );
    this.problems.push({
      file: String(where?.file ?? 'deletions'),
      line: Number(where?.line ?? 0),
      message: `${type} ${JSON.stringify(id)} ${problem}`,
    });
  }
}
