/**
 * The trail's thread (chain-thread.ts, issue 59 "the trail as a log"): the server's trail hands
 * events to a thread that makes, hashes and stores them through a connection of its own. It
 * writes the bytes the trail writes on its own thread, and a thread that dies (mid-write) loses
 * nothing: its chain ends at what it stored, a new chain on a new thread takes the rest, and
 * `audit verify` holds. Both stores, each with its real connection in the thread.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChainThread } from '../../src/audit/chain-thread.js';
import type { AuditEvent } from '../../src/audit/event.js';
import { AuditTrail } from '../../src/audit/trail.js';
import { verifyTrail } from '../../src/audit/verify.js';
import type { AnsweredRequest } from '../../src/operations/answered.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';

for (const dialect of DIALECTS)
  describe(`the access trail's thread (${dialect})`, { timeout: 120_000 }, () => {
    let h: Harness;
    const answered: AnsweredRequest[] = [];
    before(async () => {
      h = await startHarness({ dialect, audit: true });
      // The answered requests of a page, a get and a refusal, as the server hands them over.
      const deps = h.executor.deps;
      const trail = deps.answers;
      deps.answers = { answered: (request) => answered.push(request) };
      const [worker] = await h.all<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      await get(h.app, '/api/v1/workers?limit=5', h.tokens.staff);
      await get(h.app, `/api/v1/workers/item?id=${worker.id}`, h.tokens.staff);
      await get(h.app, '/api/v1/workers/item?id=wk_none', h.tokens.staff);
      await get(h.app, '/api/v1/timesheets?limit=2', h.tokens.staff);
      deps.answers = trail;
      assert.equal(answered.length, 4);
    });
    after(() => h.close());

    const records = () => h.store.auditTrail();
    /** The stored events of a chain, in order, as the trail wrote them. */
    const chainEvents = async (chainId: string) =>
      (await records().auditChainEvents(chainId, 0, 10_000)).map((e) => e.event);
    /** `answered` again with new request ids (`tag`), a millisecond apart. */
    const again = (tag: string, times = 1) =>
      Array.from({ length: times }, (_, round) =>
        answered.map((request, i) => ({
          ...request,
          requestId: `${tag}-${round}-${i}`,
          at: 1_800_000_000_000 + round * 10 + i,
        })),
      ).flat();

    it('writes through its own connection the bytes the trail writes on its own thread', async () => {
      assert.ok(h.store.auditWriterTarget(), 'a store other threads can open');
      const threaded = new AuditTrail(records(), { thread: h.store.auditWriterTarget() });
      const local = new AuditTrail(records());
      for (const request of again('same')) {
        threaded.answered(request);
        local.answered({ ...request });
      }
      await Promise.all([threaded.close(), local.close()]);
      const [fromThread, fromLocal] = [
        await chainEvents(threaded.chainId),
        await chainEvents(local.chainId),
      ];
      assert.equal(fromThread.length, 4);
      assert.deepEqual(fromThread, fromLocal);
      assert.deepEqual(threaded.head(), {
        chain: threaded.chainId,
        seq: 4,
        hash: threaded.head()?.hash,
      });
      assert.deepEqual((await verifyTrail(records())).breaks, []);
    });

    it('loses nothing when its thread dies mid-write: a new chain takes the rest', async () => {
      const warnings: string[] = [];
      const trail = new AuditTrail(records(), {
        thread: h.store.auditWriterTarget(),
        log: { warn: (_fields, message) => warnings.push(message) },
      });
      const first = trail.chainId;
      const sent = again('die', 50);
      for (const request of sent.slice(0, 100)) trail.answered(request);
      await trail.flush();
      for (const request of sent.slice(100)) trail.answered(request);
      const writing = trail.flush();
      // The thread dies while it writes what it was just given.
      await (trail as unknown as { chain: ChainThread }).chain.terminate();
      await writing;
      assert.match(warnings.join('\n'), /access trail thread ended/);
      assert.notEqual(trail.chainId, first, 'a new chain');
      // The retry hands what the dead thread had not stored to the new one.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await trail.close();
      const stored = [...(await chainEvents(first)), ...(await chainEvents(trail.chainId))].map(
        (json) => (JSON.parse(json) as AuditEvent).requestId,
      );
      const ids = new Set(stored);
      for (const request of sent) assert.ok(ids.has(request.requestId), request.requestId);
      assert.ok(
        (await chainEvents(first)).length >= 100,
        'what the first thread stored stays in its chain',
      );
      const verified = await verifyTrail(records());
      assert.deepEqual(verified.breaks, []);
    });

    it('gives a new chain nothing a dead thread had stored: each commit is reported as made', async () => {
      const trail = new AuditTrail(records(), { thread: h.store.auditWriterTarget() });
      const first = trail.chainId;
      // Three commits' worth (BATCH events each), handed over at once.
      const sent = again('commits', 1500);
      for (const request of sent) trail.answered(request);
      const writing = trail.flush();
      // Killed as soon as the first commit is known here, while it hashes the next.
      while (trail.head() === null) await new Promise((resolve) => setTimeout(resolve, 1));
      await (trail as unknown as { chain: ChainThread }).chain.terminate();
      await writing;
      await trail.close();
      assert.notEqual(trail.chainId, first);
      const stored = [...(await chainEvents(first)), ...(await chainEvents(trail.chainId))].map(
        (json) => (JSON.parse(json) as AuditEvent).requestId,
      );
      assert.equal(stored.length, sent.length, 'every event once, none twice');
      assert.equal(new Set(stored).size, sent.length);
      assert.deepEqual((await verifyTrail(records())).breaks, []);
    });

    it('keeps events whose id parameters the store could not settle, and writes them after', async () => {
      const warnings: string[] = [];
      let refusing = true;
      const trail = new AuditTrail(records(), {
        thread: h.store.auditWriterTarget(),
        log: { warn: (_fields, message) => warnings.push(message) },
        ids: {
          existing: async () => {
            if (refusing) throw new Error('the store does not answer');
            return new Set<string>();
          },
        },
      });
      // The get of an id that names nothing: its claim is asked of the store.
      const sent = again('unsettled').filter((r) => /wk_none/.test(JSON.stringify(r.seen)));
      assert.equal(sent.length, 1);
      trail.answered(sent[0]);
      await trail.flush();
      assert.match(warnings.join('\n'), /access trail ids not settled/);
      assert.equal(trail.head(), null, 'kept, not written unsettled');
      refusing = false;
      await trail.close();
      const stored = (await chainEvents(trail.chainId)).map((json) => JSON.parse(json));
      assert.deepEqual(
        stored.map((e: AuditEvent) => e.requestId),
        [sent[0].requestId],
      );
      assert.deepEqual((stored[0] as AuditEvent).params, { id: { text: true, length: 7 } });
    });
  });
