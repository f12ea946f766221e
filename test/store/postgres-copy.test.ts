/**
 * New rows reach PostgreSQL through COPY (src/store/postgres/copy-rows.ts): whatever text a file
 * may carry (backslashes, tabs, line breaks, a literal `\N`, the empty string) comes back as it
 * went in, nulls as nulls, and a repeated key fails the COPY as a plain INSERT would, leaving
 * nothing written. Against the suite's real PostgreSQL cluster.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { copyRows, copyValue } from '../../src/store/postgres/copy-rows.js';
import { TEST_PG_URL } from '../support/test-databases.js';

describe(
  'rows copied into PostgreSQL',
  { skip: !TEST_PG_URL && 'no PostgreSQL test cluster' },
  () => {
    let client: pg.Client;
    before(async () => {
      client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      await client.query(
        'CREATE TEMP TABLE copied (id bigint PRIMARY KEY, label text, note text, amount bigint)',
      );
    });
    after(() => client.end());

    /** A COPY of `rows` (id, label) that PostgreSQL refuses with `code`. */
    const refused = (rows: unknown[][], code: string) =>
      assert.rejects(
        copyRows(client, 'copied', ['id', 'label'], rows),
        (error: Error & { code?: string }) => error.code === code,
      );

    // PostgreSQL's text holds any character but NUL (the importer refuses NUL before a write).
    const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\u0000'));
    const tricky = fc.constantFrom('\\N', '\\', '\t', '\n', '\r\n', '', ' ', '\\t', 'a\\nb');
    const value = fc.option(fc.oneof(text, tricky), { nil: null });

    it('gives back every value as it went in, nulls as nulls', async () => {
      let next = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(value, value, fc.option(fc.bigInt(-(2n ** 62n), 2n ** 62n), { nil: null })),
            { maxLength: 30 },
          ),
          async (rows) => {
            await client.query('TRUNCATE copied');
            const given = rows.map(([label, note, amount]) => [next++, label, note, amount]);
            await copyRows(client, 'copied', ['id', 'label', 'note', 'amount'], given);
            const { rows: back } = await client.query(
              'SELECT id::text, label, note, amount::text FROM copied ORDER BY copied.id',
            );
            assert.deepEqual(
              back.map((r) => [r.id, r.label, r.note, r.amount]),
              given.map((row) => row.map((v) => (v === null ? null : String(v)))),
            );
          },
        ),
        { numRuns: 60 },
      );
    });

    it('writes a chunk boundary and more (thousands of rows) in order', async () => {
      await client.query('TRUNCATE copied');
      const given = Array.from({ length: 4_321 }, (_, i) => [i, `w${i}`, i % 3 ? null : 'x\ty', i]);
      await copyRows(client, 'copied', ['id', 'label', 'note', 'amount'], given);
      const { rows } = await client.query(
        'SELECT count(*)::int AS n, sum(amount)::text AS total, count(note)::int AS notes FROM copied',
      );
      assert.deepEqual(rows[0], { n: 4_321, total: String((4_320 * 4_321) / 2), notes: 1_441 });
    });

    it('fails on a key already stored, as an INSERT would, and writes none of its rows', async () => {
      await client.query('TRUNCATE copied');
      await copyRows(client, 'copied', ['id', 'label'], [[1, 'first']]);
      await refused(
        [
          [2, 'second'],
          [1, 'again'],
        ],
        '23505', // unique_violation
      );
      const { rows } = await client.query('SELECT id::int AS id, label FROM copied ORDER BY id');
      assert.deepEqual(rows, [{ id: 1, label: 'first' }]);
    });

    it('refuses text holding U+0000 (PostgreSQL text cannot hold it) and writes none of the rows', async () => {
      await client.query('TRUNCATE copied');
      await refused(
        [
          [1, 'fine'],
          [2, 'a\u0000b'],
        ],
        '22021', // invalid_byte_sequence_for_encoding
      );
      const { rows } = await client.query('SELECT count(*)::int AS n FROM copied');
      assert.deepEqual(rows, [{ n: 0 }]);
    });
  },
);

// The encoding alone, on any machine (the describe above needs the test cluster).
it('encodes the text format as PostgreSQL documents it', () => {
  assert.equal(copyValue(null), '\\N');
  assert.equal(copyValue(undefined), '\\N');
  assert.equal(copyValue('\\N'), '\\\\N');
  assert.equal(copyValue('a\tb\nc\rd\\e'), 'a\\tb\\nc\\rd\\\\e');
  assert.equal(copyValue(''), '');
  assert.equal(copyValue(12), '12');
  assert.equal(copyValue(2n ** 62n), '4611686018427387904');
});
