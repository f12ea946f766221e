/**
 * "Who saw this worker" by sets of revealed records (src/store/sql/audit/): an answer given again
 * names the same set, whose workers are written once a day, not once per request; the workers'
 * events are still found, each once, by worker and period; retention removes the sets of days
 * before the events kept; a trail of version 12 (a reveal row per worker per event: PostgreSQL's
 * migration 12, a `-audit` file of user_version 1) moves to sets and is found and verified as
 * before. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEvent } from '../../src/audit/event.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import { verifyTrail } from '../../src/audit/verify.js';
import { createIndexSql, createTableSql } from '../../src/store/dialect.js';
import { AUDIT_TABLES_12 } from '../../src/store/sql/audit/audit-tables.js';
import type { StoredAuditEvent } from '../../src/store/sql/audit/audit-records.js';
import { auditSqlOf } from '../support/audit.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';
import { factTablesAgain } from '../support/test-databases.js';

const DAY = 86_400_000;

for (const dialect of DIALECTS)
  describe(`the trail's sets of revealed records (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect, audit: true });
    });
    after(() => h.close());
    const trail = () => h.executor.deps.answers as AuditTrail;
    const sql = () => auditSqlOf(h);
    const count = async (query: string, ...params: unknown[]) =>
      Number((await sql().all(query, params))[0].n);

    it('writes the workers of an answer given again once, and finds every event of it', async () => {
      const path = '/api/v1/workers?limit=7&status=active';
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(String((await get(h.app, path, h.tokens.staff)).headers['x-request-id']));
      await trail().flush();
      const events = await h.store.auditTrail().listAuditEvents({ workspaceId: WS, limit: 10_000 });
      const mine = events.filter((e) => ids.includes(JSON.parse(e.event).requestId));
      assert.equal(mine.length, 5);
      const sets = await sql().all(
        `SELECT DISTINCT revealed_set FROM audit_events WHERE chain_id = ? AND seq IN (${mine.map(() => '?').join(', ')})`,
        [mine[0].chainId, ...mine.map((e) => e.seq)],
      );
      assert.equal(sets.length, 1, 'one set for the five answers');
      const set = String(sets[0].revealed_set);
      assert.equal(
        await count('SELECT COUNT(*) AS n FROM audit_set_workers WHERE set_id = ?', set),
        7,
        'its seven workers, once',
      );
      // Every worker of the page finds the five events, each once, newest first.
      const workers = (JSON.parse(mine[0].event) as AuditEvent).revealed.map((r) => r.worker);
      for (const worker of workers) {
        const found = await h.store
          .auditTrail()
          .listAuditEvents({ workspaceId: WS, workerId: worker, limit: 10_000 });
        const requestIds = found.map((e) => JSON.parse(e.event).requestId as string);
        assert.deepEqual(
          requestIds.filter((id) => ids.includes(id)),
          [...ids].reverse(),
        );
        assert.equal(new Set(requestIds).size, requestIds.length, 'no event twice');
        // A period that ends before them finds none of them.
        const earlier = await h.store.auditTrail().listAuditEvents({
          workspaceId: WS,
          workerId: worker,
          until: Math.min(...mine.map((e) => e.at)),
          limit: 10_000,
        });
        assert.ok(earlier.every((e) => !ids.includes(JSON.parse(e.event).requestId)));
      }
    });

    it('removes the sets of the days retention removed', async () => {
      await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff);
      await trail().flush();
      const before = await count('SELECT COUNT(*) AS n FROM audit_set_workers');
      assert.ok(before > 0);
      // Nothing is older than a day ago: nothing goes.
      await h.store.auditTrail().pruneAuditEvents(Date.now() - DAY);
      assert.equal(await count('SELECT COUNT(*) AS n FROM audit_set_workers'), before);
      // Everything before tomorrow's start: every event and every set of today and before.
      const tomorrow = (Math.floor(Date.now() / DAY) + 1) * DAY;
      await h.store.auditTrail().pruneAuditEvents(tomorrow);
      assert.equal(await count('SELECT COUNT(*) AS n FROM audit_set_workers'), 0);
      assert.equal(await count('SELECT COUNT(*) AS n FROM audit_events'), 0);
    });

    /** A worker's events page after page of `limit`, each page as listed. */
    async function pagesOf(worker: string, limit: number) {
      const pages: StoredAuditEvent[][] = [];
      let before: readonly [number, string, number] | undefined;
      for (;;) {
        const page = await h.store
          .auditTrail()
          .listAuditEvents({ workspaceId: WS, workerId: worker, before, limit });
        pages.push(page);
        if (page.length < limit) return pages;
        const last = page[page.length - 1];
        before = [last.at, last.chainId, last.seq];
      }
    }

    it("pages a worker's events over several days newest first, each once", async () => {
      // Two chains' events over four days, some at the same instant, the worker in sets that
      // repeat across days (a page read again tomorrow) and in sets of their own.
      const records = h.store.auditTrail();
      const worker = 'wkr_paged';
      const start = (Math.floor(Date.now() / DAY) - 3) * DAY;
      const written: { chainId: string; seq: number; at: number }[] = [];
      for (const chainId of ['chain_paged_a', 'chain_paged_b']) {
        await records.startAuditChain({ chainId, startedAt: start, anchor: 'x', firstSeq: 1 });
        const events = Array.from({ length: 14 }, (_, i) => {
          const at = start + Math.floor(i / 4) * DAY + (i % 4 === 3 ? 500 : (i % 4) * 1000);
          const seq = i + 1;
          written.push({ chainId, seq, at });
          return {
            chainId,
            seq,
            at,
            workspaceId: WS,
            clientId: null,
            operation: 'list_workers',
            revealedSet: i % 3 === 0 ? `set_paged_${chainId}_${i}` : 'set_paged_shared',
            event: JSON.stringify({ seq }),
            prev: 'x',
            hash: `${chainId}${seq}`,
            workers: [worker, 'wkr_paged_other'],
          };
        });
        await records.appendAuditEvents(events);
      }
      const newestFirst = written
        .sort((a, b) => b.at - a.at || (b.chainId < a.chainId ? -1 : 1) || b.seq - a.seq)
        .map((e) => `${e.chainId}:${e.seq}`);
      const paged = (await pagesOf(worker, 3)).flat().map((e) => `${e.chainId}:${e.seq}`);
      assert.deepEqual(paged, newestFirst);
      // A page of thousands (the CLI's, read in one pass): the same order, from any place, in
      // any period.
      const big = async (extra: object) =>
        (
          await records.listAuditEvents({
            workspaceId: WS,
            workerId: worker,
            limit: 5000,
            ...extra,
          })
        ).map((e) => `${e.chainId}:${e.seq}`);
      assert.deepEqual(await big({}), newestFirst);
      const tenth = written[9];
      assert.deepEqual(
        await big({ before: [tenth.at, tenth.chainId, tenth.seq] }),
        newestFirst.slice(10),
      );
      const [since, until] = [start + DAY + 1000, start + 3 * DAY];
      assert.deepEqual(
        await big({ since, until }),
        written.filter((e) => e.at >= since && e.at < until).map((e) => `${e.chainId}:${e.seq}`),
      );
    });

    it("pages a worker's events a thousand and more at a time, each page full until the last", async () => {
      const records = h.store.auditTrail();
      const worker = 'wkr_many';
      const chainId = 'chain_many';
      const start = (Math.floor(Date.now() / DAY) - 3) * DAY;
      await records.startAuditChain({ chainId, startedAt: start, anchor: 'x', firstSeq: 1 });
      // 2,600 events over four days, a set of its own every seventh (the rest one shared set).
      const events = Array.from({ length: 2600 }, (_, i) => ({
        chainId,
        seq: i + 1,
        at: start + Math.floor(i / 650) * DAY + (i % 650) * 1000,
        workspaceId: WS,
        clientId: null,
        operation: 'get_worker',
        revealedSet: i % 7 === 0 ? `set_many_${i}` : 'set_many_shared',
        event: JSON.stringify({ i }),
        prev: 'x',
        hash: `h${i}`,
        workers: [worker],
      }));
      await records.appendAuditEvents(events);
      const pages = (await pagesOf(worker, 1100)).map((page) => page.map((e) => e.seq));
      assert.deepEqual(
        pages.map((page) => page.length),
        [1100, 1100, 400],
      );
      assert.deepEqual(pages.flat(), events.map((e) => e.seq).reverse());
    });
  });

for (const dialect of DIALECTS)
  describe(`a trail of version 12 moves to sets, then to minute rows (${dialect})`, () => {
    it('finds and verifies the events it kept, by worker', async () => {
      const h = await startHarness({ dialect, audit: true });
      try {
        const old = (h.store as unknown as { dialect: Parameters<typeof createTableSql>[0] })
          .dialect;
        // The trail as version 12 left it: its tables as they were, two events, their reveals.
        const audit = auditSqlOf(h);
        for (const statement of [
          'DROP TABLE IF EXISTS audit_minutes',
          'DROP TABLE IF EXISTS audit_sets',
          'DROP TABLE IF EXISTS audit_set_workers',
          'DROP TABLE IF EXISTS audit_events',
          'DROP TABLE IF EXISTS audit_chains',
          ...AUDIT_TABLES_12.flatMap((t) => [createTableSql(old, t), ...createIndexSql(t)]),
        ])
          await audit.run(statement, []);
        const stored = await writeOldEvents(h);
        // Version 12 again, then the store opened as a server would: the trail moved to sets.
        if (dialect === 'sqlite') {
          await audit.run('PRAGMA user_version = 1', []);
          const store = h.store as unknown as {
            auditFile: { close(): void } | null;
            audit?: unknown;
          };
          store.auditFile?.close();
          store.auditFile = null;
          delete store.audit;
        } else {
          for (const sql of factTablesAgain(old)) await h.store.run(sql);
          await h.store.run('DELETE FROM schema_version WHERE version >= 13');
          await h.store.migrate();
        }
        const found = await h.store
          .auditTrail()
          .listAuditEvents({ workspaceId: WS, workerId: 'wkr_old_1', limit: 100 });
        assert.deepEqual(
          found.map((e) => e.seq),
          [2, 1],
        );
        const other = await h.store
          .auditTrail()
          .listAuditEvents({ workspaceId: WS, workerId: 'wkr_old_2', limit: 100 });
        assert.deepEqual(
          other.map((e) => e.seq),
          [2],
        );
        assert.deepEqual(
          found.map((e) => e.hash),
          [stored[1], stored[0]],
        );
        assert.deepEqual((await verifyTrail(h.store.auditTrail())).breaks, []);
        assert.equal(
          Number((await auditSqlOf(h).all('SELECT COUNT(*) AS n FROM audit_set_workers', []))[0].n),
          3,
        );
      } finally {
        await h.close();
      }
    });
  });

/** Two events of a chain as version 12 wrote them, with their reveal rows; their hashes. */
async function writeOldEvents(h: Harness): Promise<string[]> {
  const { canonicalEvent, chainStart, eventHash } = await import('../../src/audit/event.js');
  const audit = auditSqlOf(h);
  const chain = 'chain_old';
  await audit.run(
    'INSERT INTO audit_chains (chain_id, started_at, anchor, first_seq) VALUES (?, ?, ?, 1)',
    [chain, Date.now() - 2 * DAY, chainStart(chain)],
  );
  let prev = chainStart(chain);
  const hashes: string[] = [];
  const revealed = [['wkr_old_1'], ['wkr_old_1', 'wkr_old_2']];
  for (const [i, workers] of revealed.entries()) {
    const at = Date.now() - DAY + i * 1000;
    const event: AuditEvent = {
      at,
      requestId: `req_old_${i}`,
      workspace: WS,
      caller: { kind: 'access_key', keyId: 'tok_old' },
      role: 'staff',
      worker: null,
      supplier: null,
      address: null,
      userAgent: null,
      transport: 'rest',
      operation: 'list_workers',
      params: {},
      status: 200,
      code: null,
      revealed: workers.map((w) => ({ type: 'worker' as const, id: w, worker: w })),
    };
    const json = canonicalEvent(event);
    const hash = eventHash(prev, chain, i + 1, json);
    await audit.run(
      `INSERT INTO audit_events (chain_id, seq, at, workspace_id, client_id, operation, event, prev, hash)
       VALUES (?, ?, ?, ?, NULL, 'list_workers', ?, ?, ?)`,
      [chain, i + 1, at, WS, json, prev, hash],
    );
    for (const worker of workers)
      await audit.run(
        'INSERT INTO audit_reveals (workspace_id, worker_id, at, chain_id, seq) VALUES (?, ?, ?, ?, ?)',
        [WS, worker, at, chain, i + 1],
      );
    hashes.push(hash);
    prev = hash;
  }
  return hashes;
}
