/**
 * The trail's thread and a PostgreSQL that goes away (issue 59): the thread's own connection
 * fails while the database is stopped or frozen; what it was given is kept, in order, and
 * written once the database answers again: one chain, no gap, `audit verify` holds. A cluster of
 * its own (stopping the shared test cluster would break the other files).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { AuditTrail } from '../../src/audit/trail.js';
import { verifyTrail } from '../../src/audit/verify.js';
import type { AnsweredRequest } from '../../src/operations/answered.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { postgresBinaries, startCluster, type PgCluster } from '../support/pg-cluster.js';

const request = (i: number): AnsweredRequest => ({
  requestId: `fault-${i}`,
  at: 1_800_000_000_000 + i,
  transport: 'rest',
  address: '192.0.2.1',
  userAgent: 'faults/1',
  principal: null,
  operation: null,
  seen: {},
  status: 200,
  code: null,
});

describe(
  "the trail's thread and PostgreSQL going away",
  { skip: !postgresBinaries() && 'PostgreSQL binaries not found', timeout: 180_000 },
  () => {
    let cluster: PgCluster;
    let store: PostgresStore;
    before(async () => {
      cluster = await startCluster();
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('CREATE DATABASE trail_faults');
      await admin.end();
      store = new PostgresStore(cluster.url.replace(/\/postgres$/, '/trail_faults'), {
        answerTimeoutMs: 1000,
      });
      await store.migrate();
    });
    after(async () => {
      await store?.close();
      cluster?.destroy();
    });

    /** The request ids stored in `chainId`, in order. */
    const storedIn = async (chainId: string) =>
      (await store.auditTrail().auditChainEvents(chainId, 0, 10_000)).map(
        (e) => (JSON.parse(e.event) as { requestId: string }).requestId,
      );

    for (const fault of ['stopped', 'frozen'] as const)
      it(`keeps what it was given while the database is ${fault}, and writes it after`, async () => {
        const warnings: string[] = [];
        const trail = new AuditTrail(store.auditTrail(), {
          thread: store.auditWriterTarget(),
          log: { warn: (_fields, message) => warnings.push(message) },
        });
        const answer = (from: number, to: number) => {
          for (let i = from; i < to; i++) trail.answered(request(i));
        };
        answer(1, 11);
        await trail.flush();
        assert.equal(trail.head()?.seq, 10);
        if (fault === 'stopped') cluster.stop();
        else cluster.freeze();
        try {
          answer(11, 31);
          await trail.flush();
          assert.match(warnings.join('\n'), /access trail not written/);
          assert.equal(trail.head()?.seq, 10, 'nothing more stored meanwhile');
        } finally {
          if (fault === 'stopped') cluster.start();
          else cluster.thaw();
        }
        // Written again on the next flush (the timer's, or this one).
        await trail.flush();
        await trail.close();
        assert.equal(trail.head()?.seq, 30);
        assert.deepEqual(
          await storedIn(trail.chainId),
          Array.from({ length: 30 }, (_, i) => `fault-${i + 1}`),
          'every event once, in order, in one chain',
        );
        assert.doesNotMatch(warnings.join('\n'), /thread ended/);
        assert.deepEqual((await verifyTrail(store.auditTrail())).breaks, []);
      });

    it('shuts down within its bound while the database is frozen', async () => {
      const trail = new AuditTrail(store.auditTrail(), { thread: store.auditWriterTarget() });
      trail.answered(request(100));
      await trail.flush();
      assert.equal(trail.head()?.seq, 1, "the thread's connection open and idle");
      cluster.freeze();
      try {
        // The thread's connection never answers: the thread is stopped, not waited on for ever (a
        // close that hung would end this test at its time limit, as it did before).
        await trail.close();
        assert.equal(trail.head()?.seq, 1);
      } finally {
        cluster.thaw();
      }
    });
  },
);
