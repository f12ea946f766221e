/**
 * Random loads for property tests: each step changes one record of the tiny seed the way a live
 * program does (an invoice issued or moved to another period, a timesheet re-moded, an
 * assignment moved to another org unit, a worker's type changed, an entry or line added, a line
 * of another supplier on a consolidated invoice among them), or
 * sends a row again unchanged or an older version of it; or moves a record out of a reader's
 * view (an assignment or expense to another supplier, a timesheet to another worker), gives a
 * worker a new assignment, deletes a record (a worker with everything that refers to it), or
 * brings a deleted one back. `applyLoad` writes the steps through the store's one load writer, as
 * `import` does, and says which records should have changed.
 */
import fc from 'fast-check';
import type { FeedType } from '../../src/store/sql/change-log.js';
import type { LoadResult } from '../../src/store/load/load.js';
import type { Row } from '../../src/store/sink.js';
import type { SqlStore } from '../../src/store/sql-store.js';
import type { DataTable } from '../../src/store/schema.js';

const UPDATABLE = [
  'suppliers',
  'workers',
  'assignments',
  'timesheets',
  'expenses',
  'invoices',
  'approval_statuses',
] as const;

const FEED_TYPE: Record<(typeof UPDATABLE)[number], FeedType> = {
  suppliers: 'supplier',
  workers: 'worker',
  assignments: 'assignment',
  timesheets: 'timesheet',
  expenses: 'expense',
  invoices: 'invoice',
  approval_statuses: 'approval_status',
};

export type LoadStep =
  | { kind: 'assignment'; pick: number; org: string | null; site: string; job: string }
  | { kind: 'worker'; pick: number; type: string; status: 'active' | 'inactive' }
  | { kind: 'timesheet'; pick: number; mode: string; status: string }
  | { kind: 'invoice'; pick: number; status: string; type: string; period: string }
  | { kind: 'expense'; pick: number; status: string }
  | { kind: 'approval'; pick: number; state: string }
  | { kind: 'entry'; pick: number; minutes: number }
  | { kind: 'line'; pick: number; cents: number; consolidated?: boolean; to?: number | null }
  | { kind: 'same'; table: (typeof UPDATABLE)[number]; pick: number }
  | {
      kind: 'move';
      table: 'assignments' | 'expenses' | 'timesheets' | 'invoices';
      pick: number;
      to: number;
    }
  | { kind: 'assign'; pick: number; to: number }
  | { kind: 'delete'; table: (typeof DELETABLE)[number]; pick: number }
  | { kind: 'reinsert'; pick: number }
  | { kind: 'older'; table: (typeof UPDATABLE)[number]; pick: number };

const pick = fc.nat({ max: 1_000_000 });

/** What a step deletes: a record no other refers to, or a worker with all that refers to it. */
const DELETABLE = ['timesheets', 'expenses', 'approval_statuses', 'invoices', 'workers'] as const;
const ORG_UNITS = ['OU-FIN', 'OU-ENG', 'OU-NEW', null];

export const loadStep: fc.Arbitrary<LoadStep> = fc.oneof(
  fc.record({
    kind: fc.constant('assignment' as const),
    pick,
    org: fc.constantFrom(...ORG_UNITS),
    site: fc.constantFrom('SITE-A', 'SITE-B'),
    job: fc.constantFrom('JOB-1', 'JOB-2'),
  }),
  fc.record({
    kind: fc.constant('worker' as const),
    pick,
    type: fc.constantFrom('profile_only', 'requisition_based', 'sow'),
    status: fc.constantFrom('active' as const, 'inactive' as const),
  }),
  fc.record({
    kind: fc.constant('timesheet' as const),
    pick,
    mode: fc.constantFrom('hourly', 'daily', 'monthly'),
    status: fc.constantFrom('submitted', 'approved', 'rejected'),
  }),
  fc.record({
    kind: fc.constant('invoice' as const),
    pick,
    status: fc.constantFrom('draft', 'issued', 'pushed', 'void'),
    type: fc.constantFrom('invoice', 'credit_note'),
    period: fc.constantFrom('2025-11-01', '2026-02-01', '2026-05-01'),
  }),
  fc.record({
    kind: fc.constant('expense' as const),
    pick,
    status: fc.constantFrom('approved', 'rejected'),
  }),
  fc.record({
    kind: fc.constant('approval' as const),
    pick,
    state: fc.constantFrom('pending', 'approved', 'rejected'),
  }),
  fc.record({
    kind: fc.constant('entry' as const),
    pick,
    minutes: fc.integer({ min: -480, max: 720 }),
  }),
  // A line of the copied line's supplier, or of another (`to`): on a consolidated invoice, a
  // line the billing entities of its other suppliers must not see (DESIGN §4.16).
  fc.record({
    kind: fc.constant('line' as const),
    pick,
    cents: fc.integer({ min: -50_000, max: 90_000 }),
    consolidated: fc.boolean(),
    to: fc.option(pick),
  }),
  fc.record({ kind: fc.constant('same' as const), table: fc.constantFrom(...UPDATABLE), pick }),
  fc.record({
    kind: fc.constant('move' as const),
    table: fc.constantFrom(
      'assignments' as const,
      'expenses' as const,
      'timesheets' as const,
      'invoices' as const,
    ),
    pick,
    to: pick,
  }),
  fc.record({ kind: fc.constant('assign' as const), pick, to: pick }),
  fc.record({ kind: fc.constant('delete' as const), table: fc.constantFrom(...DELETABLE), pick }),
  fc.record({ kind: fc.constant('reinsert' as const), pick }),
  fc.record({ kind: fc.constant('older' as const), table: fc.constantFrom(...UPDATABLE), pick }),
);

export const loadSteps = fc.array(loadStep, { minLength: 1, maxLength: 6 });

/** Timestamps later than anything the seed or an earlier step wrote. */
let tick = 0;
export function later(): string {
  return new Date(Date.UTC(2027, 0, 1) + ++tick * 1000).toISOString();
}

/** The `n`th row (modulo their number) of a table's rows in `workspace`, of those `where` keeps. */
async function pickRow(
  store: SqlStore,
  table: string,
  workspace: string,
  n: number,
  where = '',
): Promise<Row> {
  const [{ count }] = (await store.all(
    `SELECT COUNT(*) AS count FROM ${table} WHERE workspace_id = ?${where}`,
    [workspace],
  )) as { count: number }[];
  const [row] = await store.all(
    `SELECT * FROM ${table} WHERE workspace_id = ?${where} ORDER BY id LIMIT 1 OFFSET ?`,
    [workspace, n % Math.max(1, Number(count))],
  );
  return row as Row;
}

const ON_CONSOLIDATED = ' AND invoice_id IN (SELECT id FROM invoices WHERE supplier_ref IS NULL)';

/** Records deleted by earlier loads, per store: what `reinsert` brings back. */
const deletedRows = new WeakMap<SqlStore, { table: DataTable; row: Row }[]>();

/** A deletion as `deletions.csv` gives it, for the load. */
interface DeletionStep {
  type: FeedType;
  id: string;
}

/** A worker and everything that refers to it (its timesheets take their entries). */
async function workerClosure(
  store: SqlStore,
  worker: Row,
): Promise<{ table: DataTable; row: Row }[]> {
  const of = async (sql: string, table: DataTable) =>
    ((await store.all(sql, [worker.id, worker.id])) as Row[]).map((row) => ({ table, row }));
  return [
    ...(await of(
      `SELECT * FROM approval_statuses WHERE worker_id = ? OR worker_id = ?`,
      'approval_statuses',
    )),
    ...(await of(
      `SELECT * FROM expenses WHERE worker_id = ? OR assignment_id IN (SELECT id FROM assignments WHERE worker_id = ?)`,
      'expenses',
    )),
    ...(await of(
      `SELECT * FROM timesheets WHERE worker_id = ? OR id IN (SELECT timesheet_id FROM time_entries WHERE assignment_id IN (SELECT id FROM assignments WHERE worker_id = ?))`,
      'timesheets',
    )),
    ...(await of(`SELECT * FROM assignments WHERE worker_id = ? OR worker_id = ?`, 'assignments')),
    { table: 'workers', row: worker },
  ];
}

export interface AppliedLoad {
  result: LoadResult;
  /** Records the load must have recorded as changed at its version. */
  changed: { type: FeedType; id: string }[];
}

let serial = 0;

/** Writes `steps` as one load into `workspace`, in the order given. */
export async function applyLoad(
  store: SqlStore,
  workspace: string,
  steps: readonly LoadStep[],
): Promise<AppliedLoad> {
  const writes: { table: DataTable; row: Row; changes?: { type: FeedType; id: string } }[] = [];
  const deletions: DeletionStep[] = [];
  const deleted: { table: DataTable; row: Row }[] = [];
  // Nothing is written before the loop ends: a row picked twice is the same row, read once (a
  // load of thousands of entries from one timesheet read it thousands of times).
  const picked = new Map<string, Promise<Row>>();
  const pick = (table: string, n: number, where = '') => {
    const key = `${table}\u0000${n}\u0000${where}`;
    if (!picked.has(key)) picked.set(key, pickRow(store, table, workspace, n, where));
    return picked.get(key) as Promise<Row>;
  };
  // Workers that tokens name stay: their tokens must keep working.
  const tokenWorkers = new Set(
    ((await store.all('SELECT worker_id FROM tokens WHERE worker_id IS NOT NULL')) as Row[]).map(
      (r) => String(r.worker_id),
    ),
  );
  for (const step of steps) {
    const update = async (table: (typeof UPDATABLE)[number], edit: Partial<Row>) => {
      const row: Row = {
        ...(await pick(table, step.pick)),
        ...edit,
        updated_at: later(),
      } as Row;
      writes.push({ table, row, changes: { type: FEED_TYPE[table], id: String(row.id) } });
    };
    switch (step.kind) {
      case 'assignment':
        await update('assignments', {
          org_unit_key: step.org,
          site_key: step.site,
          job_code: step.job,
        });
        break;
      case 'worker':
        await update('workers', { type: step.type, status: step.status });
        break;
      case 'timesheet':
        await update('timesheets', { entry_mode: step.mode, status: step.status });
        break;
      case 'invoice':
        await update('invoices', {
          status: step.status,
          type: step.type,
          period_start: step.period,
        });
        break;
      case 'expense':
        await update('expenses', { status: step.status });
        break;
      case 'approval':
        await update('approval_statuses', { state: step.state });
        break;
      case 'entry': {
        const entry = await pick('time_entries', step.pick);
        const row = {
          ...entry,
          id: `te_rand_${process.pid}_${++serial}`,
          quantity_minutes: step.minutes,
          created_at: later(),
        };
        writes.push({
          table: 'time_entries',
          row,
          changes: { type: 'timesheet', id: String(entry.timesheet_id) },
        });
        break;
      }
      case 'line': {
        const on = step.consolidated ? ON_CONSOLIDATED : '';
        const line = await pick('invoice_lines', step.pick, on);
        if (!line) break;
        const supplier =
          step.to === null || step.to === undefined
            ? line.supplier_ref
            : (await pick('suppliers', step.to)).code;
        const row = {
          ...line,
          id: `il_rand_${process.pid}_${++serial}`,
          supplier_ref: supplier,
          amount_cents: step.cents,
          created_at: later(),
        };
        writes.push({
          table: 'invoice_lines',
          row,
          changes: { type: 'invoice', id: String(line.invoice_id) },
        });
        break;
      }
      case 'move': {
        // Another worker's id, or another supplier's code (an invoice: none, consolidated).
        if (step.table === 'timesheets') {
          const worker = await pick('workers', step.to);
          await update('timesheets', { worker_id: worker.id });
        } else {
          const supplier = await pick('suppliers', step.to);
          const code = step.table === 'invoices' && step.to % 3 === 0 ? null : supplier.code;
          await update(step.table, { supplier_ref: code });
        }
        break;
      }
      case 'assign': {
        const assignment = await pick('assignments', step.pick);
        const supplier = await pick('suppliers', step.to);
        const row = {
          ...assignment,
          id: `asg_rand_${process.pid}_${++serial}`,
          supplier_ref: supplier.code,
          created_at: later(),
          updated_at: later(),
        };
        writes.push({ table: 'assignments', row, changes: { type: 'assignment', id: row.id } });
        break;
      }
      case 'delete': {
        const row = await pick(step.table, step.pick);
        if (step.table === 'workers' && tokenWorkers.has(String(row.id))) break;
        const doomed =
          step.table === 'workers' ? await workerClosure(store, row) : [{ table: step.table, row }];
        for (const d of doomed) {
          const type = FEED_TYPE[d.table as (typeof UPDATABLE)[number]];
          if (deletions.some((x) => x.type === type && x.id === String(d.row.id))) continue;
          deletions.push({ type, id: String(d.row.id) });
          deleted.push(d);
        }
        break;
      }
      case 'reinsert': {
        const gone = deletedRows.get(store) ?? [];
        if (gone.length === 0) break;
        const [{ table, row }] = gone.splice(step.pick % gone.length, 1);
        // A record whose worker went too stays gone (nothing would refer to a stored worker).
        if (row.worker_id !== undefined && table !== 'workers') {
          const [worker] = await store.all('SELECT id FROM workers WHERE id = ?', [row.worker_id]);
          if (!worker) break;
        }
        if (table === 'assignments') break;
        writes.push({
          table,
          row: { ...row, updated_at: later() },
          changes: { type: FEED_TYPE[table as (typeof UPDATABLE)[number]], id: String(row.id) },
        });
        break;
      }
      case 'same':
        writes.push({
          table: step.table,
          row: await pick(step.table, step.pick),
        });
        break;
      case 'older': {
        const row = await pick(step.table, step.pick);
        writes.push({ table: step.table, row: { ...row, updated_at: '2000-01-01T00:00:00.000Z' } });
        break;
      }
    }
  }
  // A record this load writes that names a worker it deletes goes too (the deletion applies
  // after every row, and nothing may refer to a deleted worker).
  const goneWorkers = new Set(deletions.filter((d) => d.type === 'worker').map((d) => d.id));
  for (const { table, row } of writes) {
    if (!(UPDATABLE as readonly string[]).includes(table) || table === 'workers') continue;
    const type = FEED_TYPE[table as (typeof UPDATABLE)[number]];
    if (!goneWorkers.has(String(row.worker_id))) continue;
    if (deletions.some((d) => d.type === type && d.id === String(row.id))) continue;
    deletions.unshift({ type, id: String(row.id) });
    deleted.push({ table, row });
  }
  const stamp = later();
  const load = await store.openLoad();
  try {
    for (const { table, row } of writes) await load.insert(table, [row]);
    await load.remove(
      workspace,
      deletions.map((d, line) => ({
        ...d,
        deleted_at: stamp,
        file: 'deletions.csv',
        line: line + 2,
      })),
    );
    const result = await load.finish();
    const gone = deletedRows.get(store) ?? [];
    deletedRows.set(store, [...gone, ...deleted]);
    return {
      result,
      changed: [
        ...writes.flatMap((w) => (w.changes ? [w.changes] : [])),
        ...deletions.map(({ type, id }) => ({ type, id })),
      ],
    };
  } catch (error) {
    await load.abort();
    throw error;
  }
}
