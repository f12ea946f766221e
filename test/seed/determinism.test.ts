import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateSeed, type SeedOptions } from '../../src/seed/generate.js';
import type { Row, SeedSink } from '../../src/store/sink.js';
import type { DataTable } from '../../src/store/schema.js';
import { TINY } from './memory-sink.js';

/** A sink that keeps only a hash of every batch, in call order. */
class HashingSink implements SeedSink {
  readonly batches: string[] = [];
  rows = 0;

  async insert(table: DataTable, rows: Row[]): Promise<void> {
    this.rows += rows.length;
    this.batches.push(
      createHash('sha256').update(table).update(JSON.stringify(rows)).digest('hex'),
    );
  }
}

async function hashRun(options: SeedOptions): Promise<HashingSink> {
  const sink = new HashingSink();
  await generateSeed(options, sink);
  return sink;
}

describe('seed determinism', () => {
  it('gives byte-identical batches for the same options', async () => {
    const first = await hashRun(TINY);
    const second = await hashRun(TINY);
    assert.ok(first.rows > 10_000, `tiny has rows (${first.rows})`);
    assert.deepEqual(second.batches, first.batches);
  });

  it('gives different data for a different seed or asOf', async () => {
    const base = await hashRun(TINY);
    const otherSeed = await hashRun({ ...TINY, seed: TINY.seed + 1 });
    const otherDay = await hashRun({ ...TINY, asOf: '2026-05-31' });
    assert.notDeepEqual(otherSeed.batches, base.batches);
    assert.notDeepEqual(otherDay.batches, base.batches);
    // Beyond the fixed workspace rows, nearly every batch differs.
    const same = otherSeed.batches.filter((h) => base.batches.includes(h)).length;
    assert.ok(
      same < base.batches.length / 2,
      `${same} of ${base.batches.length} batches unchanged`,
    );
  });

  it('accepts any calendar day as asOf and rejects bad options', async () => {
    for (const asOf of ['2024-02-29', '2025-01-01', '2025-12-31']) {
      const sink = await hashRun({ seed: 1, scale: 'tiny', asOf });
      assert.ok(sink.rows > 0);
    }
    await assert.rejects(generateSeed({ ...TINY, asOf: '2025-02-30' }, new HashingSink()));
    await assert.rejects(generateSeed({ ...TINY, seed: 1.5 }, new HashingSink()));
  });
});
