/**
 * The checks across rows, as rows arrive, in memory: ids unique within the files, supplier codes
 * unique within the workspace (a code another stored supplier holds is refused), and every
 * worker_id, assignment_id, timesheet_id and invoice_id naming a record in the files or in the
 * workspace. Ids are kept as fingerprints with the line of their first sight (seen-keys.ts); the
 * store is asked about references the files do not bring, a batch at a time, and about codes.
 * A reference always names a table that comes earlier in dependency order, so when a row
 * arrives every id of the files it may name has been seen.
 */
import type { Row } from '../store/sink.js';
import type { AdminWrites } from '../store/store.js';
import { COLUMN_RULES, type ColumnRule, type ImportTable } from './import-tables.js';
import { shown, type ProblemSink } from './import-problems.js';
import { SeenKeys } from './seen-keys.js';
import type { CheckedRow } from './stored-rows.js';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A reference to a record neither the files nor the workspace hold. */
export const missingReference = (column: string, id: string, target: string, workspaceId: string) =>
  `${column} ${shown(id)} is neither in the ${target} file nor in workspace ${workspaceId}`;

/** Records the store was found to hold, kept to spare asking again (rows name the same few). */
const FOUND_KEPT = 10_000;

/** The supplier a code is first seen with in the files. */
interface FirstCode {
  id: string | null;
  file: string;
  line: number;
}

export class KeyIndex {
  private readonly ids = new Map<string, SeenKeys>();
  /** Supplier codes of the files (a workspace's suppliers are few): exact. */
  private readonly codes = new Map<string, FirstCode>();
  /** Per table, ids of records the store was found to hold lately. */
  private readonly found = new Map<ImportTable, Set<string>>();
  private foundCount = 0;
  private readonly references = new Map<ImportTable, readonly ColumnRule[]>();
  /** Per table, per reference column, the last id found to resolve. */
  private readonly lastResolved = new Map<ImportTable, (string | null)[]>();

  constructor(
    private readonly workspaceId: string,
    private readonly problems: ProblemSink,
  ) {}

  private seen(space: string): SeenKeys {
    let keys = this.ids.get(space);
    if (!keys) this.ids.set(space, (keys = new SeenKeys()));
    return keys;
  }

  /** Makes room for about `rows` ids of a table (a file's rows, estimated from its size). */
  expect(table: ImportTable, rows: number): void {
    this.seen(table).reserve(rows);
  }

  /**
   * Notes a checked row's keys; a repeat within the files is a problem at once. Returns the
   * code the row is the first to bring, if it brings one (suppliers).
   */
  note(table: ImportTable, file: string, line: number, row: Row): string | null {
    const id = text(row.id);
    if (id !== null) {
      const first = this.seen(table).add(id, line);
      if (first !== 0) this.duplicate(file, line, 'id', id, first);
    }
    const code = table === 'suppliers' ? text(row.code) : null;
    if (code === null) return null;
    const first = this.codes.get(code);
    if (first) {
      this.duplicate(file, line, 'code', code, first.line);
      return null;
    }
    this.codes.set(code, { id, file, line });
    return code;
  }

  /** Notes a deletion's record; a second deletion of it within the file is a problem. */
  noteDeletion(file: string, line: number, type: string, id: string): void {
    const first = this.seen(`deletion:${type}`).add(id, line);
    if (first !== 0)
      this.problems.push({
        file,
        line,
        message: `duplicate deletion of ${type} ${shown(id)} (first at line ${first})`,
      });
  }

  private duplicate(file: string, line: number, column: string, value: string, first: number) {
    this.problems.push({
      file,
      line,
      message: `duplicate ${column} ${shown(value)} (first at line ${first})`,
    });
  }

  /**
   * Codes first seen in a batch, against the suppliers holding them before this load:
   * `released` are codes this load's updates take from stored suppliers (read as the rows were
   * judged), which a store that shows the load's own writes no longer finds.
   */
  async judgeCodes(
    store: Pick<AdminWrites, 'storedRows'>,
    codes: readonly string[],
    released: ReadonlyMap<string, string>,
  ): Promise<void> {
    if (codes.length === 0) return;
    const holders = new Map(
      (await store.storedRows('suppliers', 'code', codes, ['code', 'id'], this.workspaceId)).map(
        (row) => [String(row.code), String(row.id)],
      ),
    );
    for (const code of codes) {
      const holder = released.get(code) ?? holders.get(code);
      const first = this.codes.get(code) as FirstCode;
      if (holder !== undefined && holder !== first.id)
        this.problems.push({
          file: first.file,
          line: first.line,
          message: `code ${shown(code)} already belongs to supplier ${shown(holder)} in workspace ${this.workspaceId}`,
        });
    }
  }

  private noteFound(target: ImportTable, id: string): void {
    if (this.foundCount >= FOUND_KEPT) {
      this.found.clear();
      this.foundCount = 0;
    }
    let ids = this.found.get(target);
    if (!ids) this.found.set(target, (ids = new Set()));
    ids.add(id);
    this.foundCount++;
  }

  referencesOf(table: ImportTable): readonly ColumnRule[] {
    let rules = this.references.get(table);
    if (!rules)
      this.references.set(table, (rules = COLUMN_RULES[table].filter((r) => r.references)));
    return rules;
  }

  /**
   * References of a batch to ids neither in the files nor in the workspace, each a problem of
   * its row, the row's columns left to right. The store is asked only about ids the files do
   * not bring and it was not found to hold lately.
   */
  async checkReferences(
    store: Pick<AdminWrites, 'storedRows'>,
    table: ImportTable,
    batch: readonly CheckedRow[],
  ): Promise<void> {
    const rules = this.referencesOf(table);
    if (rules.length === 0) return;
    const asked = new Map<ImportTable, Set<string>>();
    // A string keeps its hash: the set of stored ids is asked first, the fingerprints after.
    const unresolved = (target: ImportTable, id: string) =>
      !this.found.get(target)?.has(id) && !this.seen(target).has(id);
    // Rows in a row name the same records (a timesheet's entries): the last id each column was
    // found to resolve is not looked up again (a record the files or the store hold stays so).
    let last = this.lastResolved.get(table);
    if (!last) this.lastResolved.set(table, (last = rules.map(() => null)));
    for (const { row } of batch)
      for (let r = 0; r < rules.length; r++) {
        const rule = rules[r];
        const target = rule.references as ImportTable;
        const id = text(row[rule.name]);
        if (id === null || id === last[r]) continue;
        if (!unresolved(target, id)) {
          last[r] = id;
          continue;
        }
        let ids = asked.get(target);
        if (!ids) asked.set(target, (ids = new Set()));
        ids.add(id);
      }
    if (asked.size === 0) return;
    const missing = new Set<string>();
    for (const [target, ids] of asked) {
      const held = new Set(
        (await store.storedRows(target, 'id', [...ids], ['id'], this.workspaceId)).map((r) =>
          String(r.id),
        ),
      );
      for (const id of ids) {
        if (!held.has(id)) missing.add(`${target}\u0000${id}`);
        else this.noteFound(target, id);
      }
    }
    for (const { file, line, row } of batch)
      for (const rule of rules) {
        const target = rule.references as ImportTable;
        const id = text(row[rule.name]);
        if (id === null || !missing.has(`${target}\u0000${id}`)) continue;
        this.problems.push({
          file,
          line,
          message: missingReference(rule.name, id, target, this.workspaceId),
        });
      }
  }
}
