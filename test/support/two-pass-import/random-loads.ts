/**
 * Random import directories for the one-pass importer's property tests: rows of every importable
 * table made from one valid row each (test/importer/valid-rows.ts), with ids new, stored, another
 * workspace's or repeated; references to the load's own rows, stored records or nothing; versions
 * older, the same or newer; now and then a value broken, left out or a column unknown; deletions;
 * CSV or NDJSON. Most loads are valid or nearly so, so that both the written database and the
 * refusals are compared.
 */
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  COLUMN_RULES,
  IMPORT_TABLES,
  type ImportTable,
} from '../../../src/importer/import-tables.js';
import { FEED_TYPE_OF, isFeedTable } from '../../../src/store/sql/change-log.js';
import { AT, VALID, WS } from '../../importer/valid-rows.js';

/** The tables a random load fills, in dependency order (saved queries left to their own tests). */
export const LOAD_TABLES = IMPORT_TABLES.filter(
  (table): table is LoadTable => table !== 'saved_queries',
);
type LoadTable = Exclude<ImportTable, 'saved_queries'>;

/** Ids the database holds: a few of the workspace's per table, one of another workspace's. */
export interface StoredIds {
  own: Record<LoadTable, string[]>;
  other: Partial<Record<LoadTable, string>>;
  /** Codes stored suppliers of the workspace hold. */
  codes: string[];
}

export async function storedIds(
  all: (sql: string, ...params: unknown[]) => Promise<Record<string, unknown>[]>,
): Promise<StoredIds> {
  const ids: StoredIds = { own: {} as StoredIds['own'], other: {}, codes: [] };
  for (const table of LOAD_TABLES) {
    const own = await all(`SELECT id FROM ${table} WHERE workspace_id = ? ORDER BY id LIMIT 3`, WS);
    ids.own[table] = own.map((r) => String(r.id));
    const [other] = await all(`SELECT id FROM ${table} WHERE workspace_id <> ? LIMIT 1`, WS);
    if (other) ids.other[table] = String(other.id);
  }
  const codes = await all('SELECT code FROM suppliers WHERE workspace_id = ? ORDER BY id', WS);
  ids.codes = codes.map((r) => String(r.code));
  return ids;
}

type IdChoice = { kind: 'new' | 'stored' | 'other'; n: number };
type RefChoice = { kind: 'file' | 'stored' | 'missing'; n: number };
type Mutation = { kind: 'bad' | 'null' | 'drop' | 'unknown'; column: number } | null;

interface RowPlan {
  id: IdChoice;
  refs: RefChoice[];
  time: 'older' | 'same' | 'newer';
  code: 'own' | 'stored' | 'shared';
  mutation: Mutation;
}

interface DeletionPlan {
  table: LoadTable;
  id: IdChoice;
  csv: boolean;
}

export interface LoadPlan {
  /** Choices that make no problem only (new or stored ids, references that resolve, …). */
  clean: boolean;
  files: { table: LoadTable; csv: boolean; rows: RowPlan[] }[];
  deletions: DeletionPlan[];
}

const idChoice: fc.Arbitrary<IdChoice> = fc.record({
  kind: fc.constantFrom<IdChoice['kind']>('new', 'new', 'new', 'stored', 'stored', 'other'),
  n: fc.nat(3),
});

const rowPlan: fc.Arbitrary<RowPlan> = fc.record({
  id: idChoice,
  refs: fc.array(
    fc.record({
      kind: fc.constantFrom<RefChoice['kind']>('file', 'file', 'stored', 'stored', 'missing'),
      n: fc.nat(3),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  time: fc.constantFrom<RowPlan['time']>('older', 'same', 'newer', 'newer'),
  code: fc.constantFrom<RowPlan['code']>('own', 'own', 'own', 'stored', 'shared'),
  mutation: fc.oneof(
    { weight: 12, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constantFrom('bad', 'null', 'drop', 'unknown') as fc.Arbitrary<
          'bad' | 'null' | 'drop' | 'unknown'
        >,
        column: fc.nat(20),
      }),
    },
  ),
});

export const loadPlan: fc.Arbitrary<LoadPlan> = fc.record({
  clean: fc.boolean(),
  files: fc
    .uniqueArray(
      fc.record({
        table: fc.constantFrom(...LOAD_TABLES),
        csv: fc.boolean(),
        rows: fc.array(rowPlan, { minLength: 1, maxLength: 5 }),
      }),
      { selector: (f) => f.table, minLength: 1, maxLength: 5 },
    )
    .map((files) =>
      files.sort((a, b) => LOAD_TABLES.indexOf(a.table) - LOAD_TABLES.indexOf(b.table)),
    ),
  deletions: fc.oneof(
    { weight: 3, arbitrary: fc.constant<DeletionPlan[]>([]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.record({
          table: fc.constantFrom(...LOAD_TABLES.filter(isFeedTable)),
          id: idChoice,
          csv: fc.boolean(),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    },
  ),
});

const TIMES = {
  older: '2020-01-01T00:00:00.000Z',
  same: AT,
  newer: '2026-06-20T09:30:00.000Z',
};

/** Writes a plan's files into a new folder; `prefix` makes its new ids its own. */
export function writeLoad(plan: LoadPlan, stored: StoredIds, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-random-load-'));
  const { clean } = plan;
  const idOf = (table: LoadTable, choice: IdChoice): string => {
    const own = stored.own[table];
    // Entries and lines never change once stored: a clean load brings new ones only.
    const immutable = table === 'time_entries' || table === 'invoice_lines';
    if (choice.kind === 'stored' && own.length > 0 && !(clean && immutable))
      return own[choice.n % own.length];
    if (choice.kind === 'other' && stored.other[table] && !clean) return stored.other[table];
    return `${prefix}${table.slice(0, 3)}_${choice.n}`;
  };
  const fileIds = new Map<string, string[]>();
  for (const { table, csv, rows } of plan.files) {
    const refRules = COLUMN_RULES[table].filter((rule) => rule.references);
    const used = new Set<string>();
    const made = rows.map((row, index) => {
      let id = idOf(table, row.id);
      // A clean load names each record once.
      if (clean && used.has(id)) id = `${prefix}${table.slice(0, 3)}_u${index}`;
      used.add(id);
      const values: Record<string, unknown> = { ...VALID[table], id };
      refRules.forEach((rule, i) => {
        const target = rule.references as LoadTable;
        const choice = row.refs[i];
        const inFile = fileIds.get(target) ?? [];
        const held = stored.own[target];
        values[rule.name] =
          choice.kind === 'file' && inFile.length > 0
            ? inFile[choice.n % inFile.length]
            : (choice.kind === 'missing' && !clean) || held.length === 0
              ? `${prefix}missing_${choice.n}`
              : held[choice.n % held.length];
      });
      // The stored record's own time with other values is a refusal: not in a clean load.
      if ('updated_at' in values)
        values.updated_at = TIMES[clean && row.time === 'same' ? 'newer' : row.time];
      if (table === 'suppliers')
        values.code =
          row.code === 'own' || clean
            ? `C-${String(values.id)}`
            : row.code === 'stored' && stored.codes.length > 0
              ? stored.codes[0]
              : `${prefix}C-shared`;
      if (!clean) mutate(values, row.mutation);
      return values;
    });
    fileIds.set(
      table,
      made.map((v) => v.id).filter((id): id is string => typeof id === 'string'),
    );
    writeFileSync(join(dir, `${table}.${csv ? 'csv' : 'ndjson'}`), text(made, csv));
  }
  if (plan.deletions.length > 0 && !clean) {
    const csv = plan.deletions[0].csv;
    const rows = plan.deletions.map(({ table, id }) => ({
      type: isFeedTable(table) ? FEED_TYPE_OF[table] : null,
      id: idOf(table, id),
      deleted_at: TIMES.newer,
    }));
    writeFileSync(join(dir, `deletions.${csv ? 'csv' : 'ndjson'}`), text(rows, csv));
  }
  return dir;
}

function mutate(values: Record<string, unknown>, mutation: Mutation): void {
  if (!mutation) return;
  const columns = Object.keys(values);
  const column = columns[mutation.column % columns.length];
  if (mutation.kind === 'bad') values[column] = 'not valid!';
  else if (mutation.kind === 'null') values[column] = null;
  else if (mutation.kind === 'drop') delete values[column];
  else values.no_such_column = 'x';
}

/** Rows as NDJSON, or as CSV under the union of their columns (a column a row lacks is empty). */
function text(rows: Record<string, unknown>[], csv: boolean): string {
  if (!csv) return rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
  const header = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: unknown) => {
    if (value === null || value === undefined) return '';
    const raw = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    return /[",\n\r]/.test(raw) ? `"${raw.replace(/"/g, '""')}"` : raw;
  };
  return [header.join(','), ...rows.map((row) => header.map((c) => cell(row[c])).join(','))]
    .map((line) => `${line}\n`)
    .join('');
}
