/**
 * Where a store's rows lie on disk, for tests that prove text has left the database files
 * (erasure, DESIGN §4.13): every file beside a SQLite database (its main file and write-ahead
 * log), or, on PostgreSQL, the files of the named tables and of their TOAST tables after a
 * checkpoint (the test cluster runs on this machine). Each check first finds the text where it
 * was, so it cannot pass by looking in the wrong place.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import type { Dialect } from './test-databases.js';

/** Every file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The files among `files` holding `text` (as UTF-8 bytes). */
export function holding(files: readonly string[], text: string): string[] {
  const needle = Buffer.from(text, 'utf8');
  return files.filter((file) => existsSync(file) && readFileSync(file).includes(needle));
}

/** The files that may hold the rows of `tables` in the database `db` (a `--db` value). */
export async function tableFiles(
  dialect: Dialect,
  db: string,
  tables: readonly string[],
): Promise<string[]> {
  if (dialect === 'sqlite') return filesUnder(dirname(db));
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    // Dirty pages reach the files; then each table's current file and its segments.
    await client.query('CHECKPOINT');
    const dir = (await client.query('SHOW data_directory')).rows[0].data_directory as string;
    const { rows } = await client.query<{ f: string | null }>(
      `SELECT pg_relation_filepath(c.oid) AS f FROM pg_class c WHERE c.oid = ANY($1::regclass[])
       UNION ALL
       SELECT pg_relation_filepath(c.reltoastrelid) FROM pg_class c
        WHERE c.oid = ANY($1::regclass[]) AND c.reltoastrelid <> 0`,
      [tables],
    );
    const bases = rows.flatMap((r) => (r.f ? [join(dir, r.f)] : []));
    return bases.flatMap((base) =>
      filesUnder(dirname(base)).filter((f) => f === base || f.startsWith(`${base}.`)),
    );
  } finally {
    await client.end();
  }
}
