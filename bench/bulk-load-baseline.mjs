// The hand-written baseline of bench/bulk-load.mjs: the same CSV files read line by line, each
// line split at its commas (the bench writes no quoted field), and inserted with prepared
// statements in one transaction into a fresh SQLite file whose tables have the same columns
// (workspace_id included) and their primary keys only (rowid tables, or clustered where the store's are: time entries since schema 17); WAL, synchronous = NORMAL. What an import
// cannot do with less: read every byte and write every row once.
// Usage: node bench/bulk-load-baseline.mjs <files dir> <new db> <workspace>
import Database from 'better-sqlite3';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { TABLES } from '../dist/src/store/schema.js';

const [dir, file, workspace] = process.argv.slice(2);
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');

const INTEGER = new Set(['integer', 'bigint', 'integer!', 'bigint!']);
let rows = 0;
const insertAll = async (table) => {
  const spec = TABLES.get(table);
  const types = spec.columns;
  db.exec(
    `CREATE TABLE ${table} (${Object.keys(types)
      .map((c) => `${c} ${INTEGER.has(types[c]) ? 'INTEGER' : 'TEXT'}`)
      .join(
        ', ',
      )}, PRIMARY KEY (${spec.primaryKey.join(', ')}))${spec.clustered ? ' WITHOUT ROWID' : ''}`,
  );
  const lines = createInterface({ input: createReadStream(join(dir, `${table}.csv`)) });
  let insert = null;
  let integer = [];
  for await (const line of lines) {
    const fields = line.split(',');
    if (insert === null) {
      const columns = ['workspace_id', ...fields];
      integer = fields.map((c) => INTEGER.has(types[c]));
      insert = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      continue;
    }
    insert.run(workspace, ...fields.map((v, i) => (v === '' ? null : integer[i] ? Number(v) : v)));
    rows++;
  }
};

const started = performance.now();
db.exec('BEGIN');
await insertAll('timesheets');
await insertAll('time_entries');
db.exec('COMMIT');
db.close();
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ rows, seconds }));
