/**
 * The checks across rows, for files of any size: ids unique within the files; supplier codes
 * unique within the workspace (a code another stored supplier holds is refused); every
 * worker_id, assignment_id, timesheet_id and invoice_id naming a record in the files or in the
 * workspace. The keys seen are kept in a scratch SQLite file on disk, not in memory, and the
 * store is asked about them a chunk at a time. (Ids the store holds are judged as rows arrive:
 * stored-rows.ts.)
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownMark, removeLeftovers } from '../../../src/store/process-marks.js';
import type { Row } from '../../../src/store/sink.js';
import type { AdminWrites } from '../../../src/store/store.js';
import { COLUMN_RULES, type ImportTable } from '../../../src/importer/import-tables.js';
import { shown, type ProblemSink } from '../../../src/importer/import-problems.js';

/** Keys asked of the store at once. */
const CHUNK = 500;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const SCHEMA = `
  CREATE TABLE ids (tbl TEXT, id TEXT, file TEXT, line INTEGER, PRIMARY KEY (tbl, id)) WITHOUT ROWID;
  CREATE TABLE codes (code TEXT PRIMARY KEY, id TEXT, file TEXT, line INTEGER) WITHOUT ROWID;
  CREATE TABLE refs (target TEXT, id TEXT, PRIMARY KEY (target, id)) WITHOUT ROWID;
  CREATE TABLE missing (target TEXT, id TEXT, PRIMARY KEY (target, id)) WITHOUT ROWID;
`;

/** The scratch folders' names in TMPDIR: `vms-read-import-<host>-<pid>-XXXXXX`. */
const SCRATCH = 'vms-read-import-';

/** A new scratch folder, after removing those that dead imports left (a `kill -9`). */
function scratchFolder(): string {
  removeLeftovers(tmpdir(), SCRATCH);
  return mkdtempSync(join(tmpdir(), `${SCRATCH}${ownMark()}-`));
}

export class KeyIndex {
  private readonly dir = scratchFolder();
  private readonly db = new Database(join(this.dir, 'keys.db'));
  private readonly insertId;
  private readonly firstId;
  private readonly insertCode;
  private readonly firstCode;
  private readonly insertRef;
  private readonly isMissing;
  /** References noted lately: rows of a file mostly name the same few records. */
  private readonly recentRefs = new Set<string>();
  private missingCount = 0;

  constructor(
    private readonly workspaceId: string,
    private readonly problems: ProblemSink,
  ) {
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(SCHEMA);
    this.insertId = this.db.prepare(
      'INSERT OR IGNORE INTO ids (tbl, id, file, line) VALUES (?, ?, ?, ?)',
    );
    this.firstId = this.db.prepare('SELECT line FROM ids WHERE tbl = ? AND id = ?').pluck();
    this.insertCode = this.db.prepare(
      'INSERT OR IGNORE INTO codes (code, id, file, line) VALUES (?, ?, ?, ?)',
    );
    this.firstCode = this.db.prepare('SELECT line FROM codes WHERE code = ?').pluck();
    this.insertRef = this.db.prepare('INSERT OR IGNORE INTO refs (target, id) VALUES (?, ?)');
    this.isMissing = this.db.prepare('SELECT 1 FROM missing WHERE target = ? AND id = ?').pluck();
    this.db.exec('BEGIN');
  }

  /** Notes a checked row's keys; a repeat within the files is a problem at once. */
  note(table: ImportTable, file: string, line: number, row: Row): void {
    const id = text(row.id);
    if (id !== null && this.insertId.run(table, id, file, line).changes === 0)
      this.duplicate(file, line, 'id', id, this.firstId.get(table, id) as number);
    const code = table === 'suppliers' ? text(row.code) : null;
    if (code !== null && this.insertCode.run(code, id, file, line).changes === 0)
      this.duplicate(file, line, 'code', code, this.firstCode.get(code) as number);
    for (const rule of COLUMN_RULES[table]) {
      const target = rule.references;
      const ref = target ? text(row[rule.name]) : null;
      if (!target || ref === null) continue;
      const key = `${target}\u0000${ref}`;
      if (this.recentRefs.has(key)) continue;
      if (this.recentRefs.size >= 10_000) this.recentRefs.clear();
      this.recentRefs.add(key);
      this.insertRef.run(target, ref);
    }
  }

  /** Notes a deletion's record; a second deletion of it within the file is a problem. */
  noteDeletion(file: string, line: number, type: string, id: string): void {
    if (this.insertId.run(`deletion:${type}`, id, file, line).changes === 0)
      this.problems.push({
        file,
        line,
        message: `duplicate deletion of ${type} ${shown(id)} (first at line ${String(this.firstId.get(`deletion:${type}`, id))})`,
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
   * The scratch index a page at a time, in key order (`after` gives the next page's start from
   * the last row): no statement stays open while the store is asked.
   */
  private *pages<T>(sql: string, first: unknown[], after: (last: T) => unknown[]): Generator<T[]> {
    const statement = this.db.prepare(sql);
    let from = first;
    for (;;) {
      const page = statement.all(...from, CHUNK) as T[];
      if (page.length > 0) yield page;
      if (page.length < CHUNK) return;
      from = after(page[page.length - 1]);
    }
  }

  /** A supplier code another stored supplier of the workspace holds is refused. */
  private async judgeCodes(store: Pick<AdminWrites, 'storedRows'>): Promise<void> {
    type Code = { code: string; id: string | null; file: string; line: number };
    const pages = this.pages<Code>(
      'SELECT * FROM codes WHERE code > ? ORDER BY code LIMIT ?',
      [''],
      (last) => [last.code],
    );
    for (const page of pages) {
      const holders = new Map(
        (
          await store.storedRows(
            'suppliers',
            'code',
            page.map((c) => c.code),
            ['code', 'id'],
            this.workspaceId,
          )
        ).map((row) => [String(row.code), String(row.id)]),
      );
      for (const code of page) {
        const holder = holders.get(code.code);
        if (holder !== undefined && holder !== code.id)
          this.problems.push({
            file: code.file,
            line: code.line,
            message: `code ${shown(code.code)} already belongs to supplier ${shown(holder)} in workspace ${this.workspaceId}`,
          });
      }
    }
  }

  /** The checks against what the store holds, once every row has been noted. */
  async checkStored(store: Pick<AdminWrites, 'storedRows'>): Promise<void> {
    this.db.exec('COMMIT');
    await this.judgeCodes(store);
    // References to ids the files do not bring must name a record of the workspace.
    type Ref = { target: ImportTable; id: string };
    const unresolved = this.pages<Ref>(
      `SELECT target, id FROM refs r WHERE (target, id) > (?, ?)
         AND NOT EXISTS (SELECT 1 FROM ids i WHERE i.tbl = r.target AND i.id = r.id)
       ORDER BY target, id LIMIT ?`,
      ['', ''],
      (last) => [last.target, last.id],
    );
    const miss = this.db.prepare('INSERT INTO missing (target, id) VALUES (?, ?)');
    for (const page of unresolved) {
      for (const target of new Set(page.map((r) => r.target))) {
        const ids = page.filter((r) => r.target === target).map((r) => r.id);
        const found = new Set(
          (await store.storedRows(target, 'id', ids, ['id'], this.workspaceId)).map((r) =>
            String(r.id),
          ),
        );
        for (const id of ids) if (!found.has(id)) miss.run(target, id);
      }
    }
    this.missingCount = Number(this.db.prepare('SELECT COUNT(*) FROM missing').pluck().get());
  }

  /** True when some reference names a record neither in the files nor in the workspace. */
  get hasMissing(): boolean {
    return this.missingCount > 0;
  }

  /**
   * The problems of a row whose references name records neither in the files nor in the
   * workspace, its columns left to right (read again once `hasMissing` says there are some).
   */
  missingReferences(table: ImportTable, file: string, line: number, row: Row): void {
    for (const rule of COLUMN_RULES[table]) {
      const target = rule.references;
      const ref = target ? text(row[rule.name]) : null;
      if (!target || ref === null || this.isMissing.get(target, ref) === undefined) continue;
      this.problems.push({
        file,
        line,
        message: `${rule.name} ${shown(ref)} is neither in the ${target} file nor in workspace ${this.workspaceId}`,
      });
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
