/**
 * The trail's writes come in batches as large as the requests of the last quarter second (issue
 * 56): each batch size used to be a statement of its own, which SQLite's writer thread kept
 * prepared (119 MB for sizes up to 500) and PostgreSQL's placeholder cache kept as text. Batches
 * of every size from 1 to 600 are now written as chunks of a few sizes, every event stored. Both
 * stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  auditRecords,
  chunkSizes,
  ROWS_PER_INSERT,
  type AuditSql,
  type NewAuditEvent,
} from '../../src/store/sql/audit/audit-records.js';
import { auditSqlOf } from '../support/audit.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const LARGEST_BATCH = 600;

/** The store's trail SQL, with the distinct insert statements it was given counted. */
function counting(sql: AuditSql) {
  const inserts = new Set<string>();
  const counted: AuditSql = {
    all: (text, params) => sql.all(text, params),
    run: (text, params) => {
      if (text.startsWith('INSERT')) inserts.add(text);
      return sql.run(text, params);
    },
    // The store's own way of writing a batch (one transaction), its statements counted too.
    runBatch: sql.runBatch
      ? (batch) => {
          for (const { sql: text } of batch) if (text.startsWith('INSERT')) inserts.add(text);
          return sql.runBatch!(batch);
        }
      : undefined,
  };
  return { sql: counted, inserts };
}

/** `count` events of one chain from `seq` on, each revealing one worker of its own set. */
const events = (chainId: string, seq: number, count: number): NewAuditEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    chainId,
    seq: seq + i,
    at: 1_700_000_000_000 + seq + i,
    workspaceId: 'ws_shapes',
    clientId: null,
    operation: 'get_worker',
    event: '{}',
    prev: 'p',
    hash: `h${seq + i}`,
    revealedSet: `set${seq + i}`,
    workers: [`wk${seq + i}`],
  }));

it('writes a batch in chunks of powers of two, the largest first, adding up to the batch', () => {
  assert.deepEqual(chunkSizes(0), []);
  assert.deepEqual(chunkSizes(1), [1]);
  assert.deepEqual(chunkSizes(300), [256, 32, 8, 4]);
  assert.deepEqual(chunkSizes(600), [256, 256, 64, 16, 8]);
  for (let rows = 1; rows <= 2 * ROWS_PER_INSERT + 3; rows++)
    assert.equal(
      chunkSizes(rows).reduce((a, b) => a + b, 0),
      rows,
    );
});

for (const dialect of DIALECTS)
  describe(`the trail's insert statements stay few whatever the batch sizes (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect, false);
    });
    after(() => db.drop());

    it('stores batches of every size from 1 to 600 through at most nine shapes per table', async () => {
      const { sql, inserts } = counting(auditSqlOf(db));
      const records = auditRecords(sql);
      let seq = 1;
      for (let size = 1; size <= LARGEST_BATCH; size++) {
        await records.appendAuditEvents(events('c-shapes', seq, size));
        seq += size;
      }
      const stored = await sql.all('SELECT COUNT(*) AS n FROM audit_events WHERE chain_id = ?', [
        'c-shapes',
      ]);
      assert.equal(Number(stored[0].n), seq - 1);
      // Three tables (events, their sets' workers, the batches' minute rows), each in sizes 1,
      // 2, 4 … 256: 27 at most.
      assert.ok(inserts.size <= 27, `${inserts.size} insert statements`);
    });
  });
