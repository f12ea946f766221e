// The hand-written PostgreSQL baseline of bench/bulk-load.mjs --pg: the same CSV files sent as they
// are through `COPY … FROM STDIN (FORMAT csv, HEADER true)` (pg-copy-streams, the store's own
// way), in one transaction, into fresh tables of a database of their own whose columns are the
// store's (workspace_id filled by a column default) with their primary keys only. What a
// PostgreSQL import cannot do with less: send every byte once and have the server write each row.
// Usage: node bench/bulk-load-copy-baseline.mjs <files dir> <postgres url> <workspace>
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { TABLES } from '../dist/src/store/schema.js';
import { baseType } from '../dist/src/store/table.js';

const [dir, url, workspace] = process.argv.slice(2);
const client = new pg.Client({ connectionString: url });
await client.connect();

const header = async (file) => {
  for await (const chunk of createReadStream(file, { end: 4095, encoding: 'utf8' }))
    return chunk.split('\n')[0];
};

let rows = 0;
const copyAll = async (table) => {
  const spec = TABLES.get(table);
  const columns = Object.entries(spec.columns).map(
    ([name, type]) =>
      `${name} ${baseType(type)}${name === 'workspace_id' ? ` DEFAULT '${workspace}'` : ''}`,
  );
  await client.query(
    `CREATE TABLE ${table} (${columns.join(', ')}, PRIMARY KEY (${spec.primaryKey.join(', ')}))`,
  );
  const file = join(dir, `${table}.csv`);
  const stream = client.query(
    copyFrom(`COPY ${table} (${await header(file)}) FROM STDIN (FORMAT csv, HEADER true)`),
  );
  await pipeline(createReadStream(file), stream);
  rows += Number(stream.rowCount);
};

const started = performance.now();
await client.query('BEGIN');
await copyAll('timesheets');
await copyAll('time_entries');
await client.query('COMMIT');
const seconds = (performance.now() - started) / 1000;
const { rows: size } = await client.query('SELECT pg_database_size(current_database()) AS bytes');
await client.end();
console.log(JSON.stringify({ rows, seconds, bytes: Number(size[0].bytes) }));
