/**
 * The trail's batches are written whole or not at all (issue 59): a batch's sets, set workers,
 * minute rows and events go in one transaction (one commit), so a batch the store refuses leaves
 * nothing of itself, and the same batch tried again is written once, even after its commit was made
 * (its answer lost): another event at a place already taken is still refused. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewAuditEvent } from '../../src/store/sql/audit/audit-records.js';
import { auditSqlOf } from '../support/audit.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const AT = 1_700_000_000_000;

const event = (seq: number, set: string | null): NewAuditEvent => ({
  chainId: 'chain_batch',
  seq,
  at: AT + seq,
  workspaceId: 'ws_batch',
  clientId: null,
  operation: 'list_workers',
  event: `{"at":${AT + seq},"revealed":${set === null ? '[]' : `{"set":"${set}"}`}}`,
  prev: 'p',
  hash: `h${seq}`,
  revealedSet: set,
  records: set === null ? null : `[{"id":"wk_${set}","type":"worker","worker":"wk_${set}"}]`,
  workers: set === null ? [] : [`wk_${set}`],
});

for (const dialect of DIALECTS)
  describe(`a trail batch is written whole or not at all (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect, false);
    });
    after(() => db.drop());

    const counts = async () => {
      const sql = auditSqlOf(db);
      const counted: Record<string, number> = {};
      for (const table of ['audit_events', 'audit_sets', 'audit_set_workers', 'audit_minutes'])
        counted[table] = Number((await sql.all(`SELECT COUNT(*) AS n FROM ${table}`, []))[0].n);
      return counted;
    };

    it('leaves nothing of a batch one of whose events the store refuses, and writes it once when tried again', async () => {
      const records = db.store.auditTrail();
      await records.appendAuditEvents([event(1, null)]);
      const written = await counts();
      // Its last event is another event at a place already taken: the store refuses the batch.
      await assert.rejects(
        records.appendAuditEvents([event(2, 'set_a'), { ...event(1, null), hash: 'h-other' }]),
      );
      assert.deepEqual(await counts(), written);
      await records.appendAuditEvents([event(2, 'set_a'), event(3, 'set_a')]);
      assert.deepEqual(await counts(), {
        audit_events: 3,
        audit_sets: 1,
        audit_set_workers: 1,
        audit_minutes: written.audit_minutes + 1,
      });
      const [found] = await records.listAuditEvents({ workspaceId: 'ws_batch', limit: 1 });
      assert.equal(found.event, `{"at":${AT + 3},"revealed":${event(3, 'set_a').records}}`);
    });

    it('takes a batch whose commit was made but not acknowledged once, when it is tried again', async () => {
      const records = db.store.auditTrail();
      const chain = { chainId: 'chain_again', startedAt: AT, anchor: 'p', firstSeq: 1 };
      const again = (seq: number) => ({ ...event(seq, 'set_b'), chainId: 'chain_again' });
      await records.startAuditChain(chain);
      await records.startAuditChain(chain);
      await records.appendAuditEvents([again(1), again(2)]);
      const written = await counts();
      // The same batch again (its commit's answer lost, a frozen database): nothing changes.
      await records.appendAuditEvents([again(1), again(2)]);
      assert.deepEqual(await counts(), written);
      assert.deepEqual(
        (await records.auditChains()).filter((c) => c.chainId === 'chain_again'),
        [chain],
      );
      assert.deepEqual(
        (await records.auditChainEvents('chain_again', 0, 10)).map((e) => [e.seq, e.hash]),
        [
          [1, 'h1'],
          [2, 'h2'],
        ],
      );
    });
  });
