import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { csvRecords, readCsv, type CsvRecord } from '../../src/importer/csv-reader.js';
import { streamSource } from '../../src/importer/source-files.js';
import type { ImportProblem } from '../../src/importer/import-problems.js';

/** The text cut at the given places, as chunks arriving one by one. */
async function* chunked(text: string, cuts: number[]): AsyncGenerator<string> {
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)) {
    yield text.slice(from, cut);
    from = cut;
  }
  yield text.slice(from);
}

async function streamed(text: string, cuts: number[]) {
  const records: CsvRecord[] = [];
  const reader = csvRecords(chunked(text, cuts));
  for (;;) {
    const next = await reader.next();
    if (next.done) return { records, error: next.value };
    records.push(...next.value);
  }
}

/** Fields with everything CSV must carry: quotes, commas, CR, LF, CRLF, non-ASCII. */
const field = fc.stringMatching(/^[a-z",\r\n é😀]{0,8}$/u);
const quoted = (value: string) =>
  /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
const csvText = fc
  .array(fc.array(field, { minLength: 1, maxLength: 4 }), { maxLength: 8 })
  .chain((rows) =>
    fc
      .constantFrom('\n', '\r\n')
      .map((end) => rows.map((fields) => fields.map(quoted).join(',')).join(end) + end),
  );

describe('csvRecords reads a stream as readCsv reads the whole text', () => {
  it('gives the same records and lines however well-formed CSV is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(csvText, fc.array(fc.nat(), { maxLength: 6 }), async (text, cuts) => {
        assert.deepEqual(await streamed(text, cuts), readCsv(text));
      }),
      { numRuns: 300 },
    );
  });

  it('stops at the same first malformed spot, with the same records before it', async () => {
    const anything = fc.stringMatching(/^[a,"\r\n]{0,40}$/);
    await fc.assert(
      fc.asyncProperty(anything, fc.array(fc.nat(), { maxLength: 6 }), async (text, cuts) => {
        assert.deepEqual(await streamed(text, cuts), readCsv(text));
      }),
      { numRuns: 500 },
    );
  });

  it('numbers NDJSON lines across chunks and keeps a line split between them whole', async () => {
    const problems: ImportProblem[] = [];
    const source = { file: 'workers.ndjson', table: 'workers', format: 'ndjson' } as const;
    const text = '{"id":"a"}\n\n{"id":"b"}\r\n{"id":"c"}';
    const rows = [];
    for await (const batch of streamSource(source, chunked(text, [3, 12, 15]), problems))
      rows.push(...batch);
    assert.deepEqual(rows, [
      { line: 1, values: { id: 'a' } },
      { line: 3, values: { id: 'b' } },
      { line: 4, values: { id: 'c' } },
    ]);
    assert.deepEqual(problems, []);
  });
});
