/**
 * The checks across rows, for files of any size: ids unique within the files; an id already
 * stored is an update, judged by the upsert rules (src/store/load/upsert-rules.ts: another
 * workspace's id, a changed time entry or invoice line, or a changed record with the stored
 * `updated_at` are refused); supplier codes unique within the workspace (a code another stored
 * supplier holds is refused); every worker_id, assignment_id, timesheet_id and invoice_id naming
 * a record in the files or in the workspace. The keys seen, each with a digest of its row, are
 * kept in a scratch SQLite file on disk, not in memory, and the store is asked about them a chunk
 * at a time.
 */
import Database from 'better-sqlite3';
import { hash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalRow,
  classify,
  storedVersionOf,
  VERSION_COLUMN,
} from '../store/load/upsert-rules.js';
import type { Row } from '../store/sink.js';
import { TABLES } from '../store/schema.js';
import type { AdminWrites } from '../store/store.js';
import { columnNames, type Table } from '../store/table.js';
import { COLUMN_RULES, IMPORT_TABLES, type ImportTable } from './import-tables.js';
import { shown, type ProblemSink } from './import-problems.js';

/** Keys asked of the store at once. */
const CHUNK = 500;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const SCHEMA = `
  CREATE TABLE ids (tbl TEXT, id TEXT, file TEXT, line INTEGER, digest TEXT, version TEXT, PRIMARY KEY (tbl, id)) WITHOUT ROWID;
  CREATE TABLE codes (code TEXT PRIMARY KEY, id TEXT, file TEXT, line INTEGER) WITHOUT ROWID;
  CREATE TABLE refs (target TEXT, id TEXT, column_name TEXT, column_index INTEGER, file TEXT, line INTEGER);
  CREATE TABLE missing (target TEXT, id TEXT, PRIMARY KEY (target, id)) WITHOUT ROWID;
`;

export class KeyIndex {
  private readonly dir = mkdtempSync(join(tmpdir(), 'vms-read-import-'));
  private readonly db = new Database(join(this.dir, 'keys.db'));
  private readonly insertId;
  private readonly firstId;
  private readonly insertCode;
  private readonly firstCode;
  private readonly insertRef;

  constructor(
    private readonly workspaceId: string,
    private readonly problems: ProblemSink,
  ) {
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(SCHEMA);
    this.insertId = this.db.prepare(
      'INSERT OR IGNORE INTO ids (tbl, id, file, line, digest, version) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.firstId = this.db.prepare('SELECT line FROM ids WHERE tbl = ? AND id = ?').pluck();
    this.insertCode = this.db.prepare(
      'INSERT OR IGNORE INTO codes (code, id, file, line) VALUES (?, ?, ?, ?)',
    );
    this.firstCode = this.db.prepare('SELECT line FROM codes WHERE code = ?').pluck();
    this.insertRef = this.db.prepare(
      'INSERT INTO refs (target, id, column_name, column_index, file, line) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.db.exec('BEGIN');
  }

  /** Notes a checked row's keys; a repeat within the files is a problem at once. */
  note(table: ImportTable, file: string, line: number, row: Row): void {
    const id = text(row.id);
    const version = VERSION_COLUMN[table];
    if (
      id !== null &&
      this.insertId.run(
        table,
        id,
        file,
        line,
        digest(canonicalRow(table, row)),
        version ? text(row[version]) : null,
      ).changes === 0
    )
      this.duplicate(file, line, 'id', id, this.firstId.get(table, id) as number);
    const code = table === 'suppliers' ? text(row.code) : null;
    if (code !== null && this.insertCode.run(code, id, file, line).changes === 0)
      this.duplicate(file, line, 'code', code, this.firstCode.get(code) as number);
    COLUMN_RULES[table].forEach((rule, index) => {
      const target = rule.references as ImportTable | undefined;
      const ref = target ? text(row[rule.name]) : null;
      if (target && ref !== null) this.insertRef.run(target, ref, rule.name, index, file, line);
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

  /**
   * Each noted id the store already holds, judged as the load will judge it (an update, the same
   * row, an older one, or a problem), a page of ids at a time.
   */
  private async judgeStored(store: Pick<AdminWrites, 'storedRows'>): Promise<void> {
    type Key = {
      tbl: ImportTable;
      id: string;
      file: string;
      line: number;
      digest: string;
      version: string | null;
    };
    const noted = new Set(this.db.prepare('SELECT DISTINCT tbl FROM ids').pluck().all());
    for (const table of IMPORT_TABLES.filter((t) => noted.has(t))) {
      const columns = columnNames(TABLES.get(table) as Table);
      const pages = this.pages<Key>(
        'SELECT * FROM ids WHERE tbl = ? AND id > ? ORDER BY id LIMIT ?',
        [table, ''],
        (last) => [table, last.id],
      );
      for (const page of pages) {
        const stored = new Map(
          (
            await store.storedRows(
              table,
              'id',
              page.map((k) => k.id),
              columns,
              null,
            )
          ).map((row) => [String(row.id), row as Row]),
        );
        for (const key of page) {
          const held = stored.get(key.id);
          if (!held) continue;
          const version = storedVersionOf(table, held);
          const outcome = classify(
            table,
            { id: key.id, content: key.digest, version: key.version },
            { ...version, content: digest(version.content) },
            this.workspaceId,
          );
          if (typeof outcome === 'object')
            this.problems.push({ file: key.file, line: key.line, message: outcome.problem });
        }
      }
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
    this.db.exec('CREATE INDEX refs_target ON refs (target, id)');
    await this.judgeStored(store);
    await this.judgeCodes(store);
    // References to ids the files do not bring must name a record of the workspace.
    type Ref = { target: ImportTable; id: string };
    const unresolved = this.pages<Ref>(
      `SELECT DISTINCT target, id FROM refs r WHERE (target, id) > (?, ?)
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
    // Each referring row, in file and line order, its columns left to right.
    const referring = this.db.prepare(
      `SELECT r.target, r.id, r.column_name, r.file, r.line FROM refs r
       JOIN missing m ON m.target = r.target AND m.id = r.id ORDER BY r.file, r.line, r.column_index`,
    );
    for (const ref of referring.iterate() as Iterable<
      Ref & { column_name: string; file: string; line: number }
    >)
      this.problems.push({
        file: ref.file,
        line: ref.line,
        message: `${ref.column_name} ${shown(ref.id)} is neither in the ${ref.target} file nor in workspace ${this.workspaceId}`,
      });
  }

  close(): void {
    if (this.db.open) this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A row's canonical content as a short digest: what the scratch index compares. */
function digest(content: string): string {
  return hash('sha1', content, 'base64');
}
