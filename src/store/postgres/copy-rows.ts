/**
 * New rows into PostgreSQL through `COPY … FROM STDIN` (pg-copy-streams, by node-postgres's
 * author): the server reads them as one stream in its text format, with none of a multi-row
 * INSERT's parsing and planning of tens of thousands of parameters. Used for rows known to be new
 * (a repeated key is an error, as a plain INSERT's would be); upserts stay INSERT … ON CONFLICT.
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Rows encoded per chunk written to the stream. */
const ROWS_PER_CHUNK = 2_000;

/** Characters the text format escapes with a backslash (SPECIAL_ONE: whether there is any). */
const SPECIAL = /[\\\t\n\r]/g;
const SPECIAL_ONE = /[\\\t\n\r]/;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One value in COPY's text format: `\N` for null, the special characters escaped. A string with
 * U+0000 is not made to fit (PostgreSQL text cannot hold it; the importer refuses it before any
 * write): the COPY fails and the load with it, rather than storing another value.
 */
export function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : String(value);
  return SPECIAL_ONE.test(text) ? text.replace(SPECIAL, (c) => ESCAPED[c]) : text;
}

/** The rows as COPY text lines, a chunk at a time. */
function* copyText(rows: readonly (readonly unknown[])[]): Generator<string> {
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    let text = '';
    const end = Math.min(rows.length, start + ROWS_PER_CHUNK);
    for (let i = start; i < end; i++) text += `${rows[i].map(copyValue).join('\t')}\n`;
    yield text;
  }
}

/** Writes `rows` (values in `columns` order) into `table` through COPY on `client`. */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  if (rows.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(copyText(rows)), stream);
}
