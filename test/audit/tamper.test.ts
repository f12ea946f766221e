/**
 * `audit verify` covers what the searches read (DESIGN §4.17): a random single-cell edit or row
 * deletion in the trail's tables (`audit_events`, `audit_sets`, `audit_set_workers`,
 * `audit_minutes`, `audit_chains`) either
 * fails `verify` (with the chains' heads kept outside) or changes nothing a search returns: the
 * workspace's list, "who saw this worker", by client, by operation, by time. The edits the
 * issue found passing (a workspace, a time, a set moved; a set's workers deleted; a chain cut at
 * its end or removed whole) are each shown failing. Both stores.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import type { AuditTrail } from '../../src/audit/trail.js';
import { verifyTrail } from '../../src/audit/verify.js';
import type { AuditChainHead } from '../../src/store/sql/audit/audit-check-reads.js';
import type { AuditQuery } from '../../src/store/sql/audit/audit-records.js';
import { auditSqlOf } from '../support/audit.js';
import { DIALECTS, get, OTHER_WS, startHarness, WS, type Harness } from '../support/harness.js';

const DAY = 86_400_000;
type Row = Record<string, unknown>;
const TABLES = {
  audit_events: ['chain_id', 'seq'],
  audit_sets: ['day', 'set_id'],
  audit_set_workers: ['workspace_id', 'worker_id', 'day', 'set_id'],
  audit_minutes: ['workspace_id', 'minute', 'chain_id', 'first_seq'],
  audit_chains: ['chain_id'],
} as const;
type TableName = keyof typeof TABLES;

for (const dialect of DIALECTS)
  describe(`verify covers what searches read (${dialect})`, { timeout: 600_000 }, () => {
    let h: Harness;
    let heads: AuditChainHead[] = [];
    const saved = {} as Record<TableName, Row[]>;
    const workers: string[] = [];
    const sql = () => auditSqlOf(h);
    before(async () => {
      h = await startHarness({ dialect, audit: true });
      const trail = h.executor.deps.answers as AuditTrail;
      // A second day: the same answers a day earlier, through a tee to the trail.
      const answers = trail.answered.bind(trail);
      const { deps } = h.executor as unknown as { deps: { answers: AuditTrail } };
      deps.answers = {
        answered: (request) => {
          answers(request);
          answers({ ...request, requestId: `${request.requestId}-x`, at: request.at - DAY });
        },
      } as AuditTrail;
      const staff = h.tokens.staff;
      const timesheets = await h.all<{ id: string; worker_id: string }>(
        'SELECT id, worker_id FROM timesheets WHERE workspace_id = ? ORDER BY id LIMIT 3',
        WS,
      );
      for (const path of [
        '/api/v1/workers?limit=4',
        '/api/v1/workers?limit=4',
        `/api/v1/workers/item?id=${timesheets[0].worker_id}`,
        `/api/v1/timesheets/item?id=${timesheets[1].id}`,
        `/api/v1/timesheets?workerId=${timesheets[2].worker_id}&limit=2`,
        '/api/v1/suppliers?limit=2',
        '/api/v1/assignments?limit=3',
      ])
        await get(h.app, path, staff);
      await get(h.app, '/api/v1/workers?limit=2', h.tokens.otherWorkspaceStaff);
      await get(h.app, '/api/v1/expenses?limit=2', h.tokens.worker);
      deps.answers = trail;
      await trail.flushAll();
      heads = await h.store.auditTrail().auditHeads();
      for (const table of Object.keys(TABLES) as TableName[])
        saved[table] = await sql().all(`SELECT * FROM ${table}`, []);
      for (const row of saved.audit_set_workers)
        if (!workers.includes(String(row.worker_id))) workers.push(String(row.worker_id));
      assert.ok(
        saved.audit_events.length >= 18 && workers.length >= 5,
        `${saved.audit_events.length} events, ${workers.length} workers`,
      );
    });
    after(() => h.close());

    /** Every search a reader makes of this trail, as the ids of what each returns. */
    async function searches(): Promise<string> {
      const now = Date.now();
      const queries: Omit<AuditQuery, 'limit'>[] = [
        {},
        { workspaceId: WS },
        { workspaceId: OTHER_WS },
        { workspaceId: WS, operation: 'list_workers' },
        { workspaceId: WS, operation: 'get_worker' },
        { workspaceId: WS, since: now - DAY / 2 },
        { workspaceId: WS, until: now - DAY / 2 },
        { workspaceId: WS, clientId: 'none' },
        ...workers.map((workerId) => ({ workspaceId: WS, workerId })),
        ...workers.map((workerId) => ({ workspaceIds: [WS, OTHER_WS], workerId })),
      ];
      const results: string[] = [];
      for (const query of queries) {
        const found = await h.store.auditTrail().listAuditEvents({ ...query, limit: 10_000 });
        results.push(found.map((e) => `${e.chainId}:${e.seq}:${e.hash}:${e.event}`).join(','));
      }
      return results.join('\n');
    }

    async function restore(): Promise<void> {
      for (const [table, rows] of Object.entries(saved) as [TableName, Row[]][]) {
        await sql().run(`DELETE FROM ${table}`, []);
        for (const row of rows) {
          const columns = Object.keys(row);
          await sql().run(
            `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
            columns.map((c) => row[c]),
          );
        }
      }
    }

    const fails = async () => (await verifyTrail(h.store.auditTrail(), heads)).breaks.length > 0;
    const where = (table: TableName, row: Row) => ({
      sql: TABLES[table].map((c) => `${c} = ?`).join(' AND '),
      params: TABLES[table].map((c) => row[c]),
    });

    it('holds as written', async () => {
      assert.deepEqual((await verifyTrail(h.store.auditTrail(), heads)).breaks, []);
    });

    it('fails on each edit that once passed', async () => {
      const [event] = saved.audit_events.filter(
        (e) => e.workspace_id === WS && e.revealed_set !== null,
      );
      const at = where('audit_events', event);
      const edits: [string, string, unknown[]][] = [
        ['workspace moved', 'UPDATE audit_events SET workspace_id = ?', [OTHER_WS]],
        ['time moved', 'UPDATE audit_events SET at = ?', [Number(event.at) - 3 * DAY]],
        ['set changed', 'UPDATE audit_events SET revealed_set = ?', ['someone_else']],
        ['set removed', 'UPDATE audit_events SET revealed_set = NULL', []],
        ['operation renamed', 'UPDATE audit_events SET operation = ?', ['list_suppliers']],
        ['client given', 'UPDATE audit_events SET client_id = ?', ['client_x']],
      ];
      for (const [name, update, params] of edits) {
        await sql().run(`${update} WHERE ${at.sql}`, [...params, ...at.params]);
        assert.ok(await fails(), name);
        await restore();
      }
      await sql().run('DELETE FROM audit_set_workers WHERE worker_id = ?', [workers[0]]);
      assert.ok(await fails(), 'a set’s workers deleted');
      await restore();
      const set = saved.audit_sets.find((row) => String(row.records).includes(workers[0]))!;
      const records = String(set.records).replace(workers[0], workers[1]);
      await sql().run('UPDATE audit_sets SET records = ? WHERE day = ? AND set_id = ?', [
        records,
        set.day,
        set.set_id,
      ]);
      assert.ok(await fails(), 'a set’s records changed');
      await restore();
      const [minute] = saved.audit_minutes.filter(
        (m) => m.workspace_id === WS && m.workers !== '[]',
      );
      for (const [name, update] of [
        ['a minute row removed', 'DELETE FROM audit_minutes'],
        ['its workers emptied', "UPDATE audit_minutes SET workers = '[]'"],
        ['its operations emptied', "UPDATE audit_minutes SET operations = '[]'"],
        ['its range cut', 'UPDATE audit_minutes SET last_seq = first_seq - 1'],
      ]) {
        const key = where('audit_minutes', minute);
        await sql().run(`${update} WHERE ${key.sql}`, key.params);
        assert.ok(await fails(), name);
        await restore();
      }
      const chain = String(event.chain_id);
      const last = Math.max(
        ...saved.audit_events.filter((e) => e.chain_id === chain).map((e) => Number(e.seq)),
      );
      await sql().run('DELETE FROM audit_events WHERE chain_id = ? AND seq > ?', [chain, last - 5]);
      assert.ok(await fails(), 'the chain cut at its end');
      await restore();
      await sql().run('DELETE FROM audit_events WHERE chain_id = ?', [chain]);
      await sql().run('DELETE FROM audit_chains WHERE chain_id = ?', [chain]);
      assert.ok(await fails(), 'the chain removed whole');
      await restore();
      await sql().run('UPDATE audit_chains SET first_seq = 3, anchor = ? WHERE chain_id = ?', [
        saved.audit_events.find((e) => e.chain_id === chain && Number(e.seq) === 3)?.prev,
        chain,
      ]);
      assert.ok(await fails(), 'an anchor moved over events still there');
      await restore();
      assert.equal(await fails(), false, 'restored');
    });

    it('fails, or changes no search, for any single-cell edit or row deletion', async () => {
      const expected = await searches();
      const tables = Object.keys(TABLES) as TableName[];
      const edit = fc.record({
        table: fc.constantFrom(...tables),
        row: fc.nat(),
        column: fc.nat(),
        kind: fc.constantFrom('delete', 'other row', 'null', 'plus one', 'minus one', 'appended'),
        other: fc.nat(),
      });
      await fc.assert(
        fc.asyncProperty(edit, async ({ table, row: r, column: c, kind, other }) => {
          const rows = saved[table];
          const row = rows[r % rows.length];
          const key = where(table, row);
          if (kind === 'delete')
            await sql().run(`DELETE FROM ${table} WHERE ${key.sql}`, key.params);
          else {
            const columns = Object.keys(row);
            const column = columns[c % columns.length];
            const value = row[column];
            const next =
              kind === 'other row'
                ? rows[other % rows.length][column]
                : kind === 'null'
                  ? null
                  : typeof value === 'number' ||
                      typeof value === 'bigint' ||
                      /^\d+$/.test(String(value))
                    ? Number(value) + (kind === 'minus one' ? -1 : 1)
                    : `${String(value)}x`;
            try {
              await sql().run(`UPDATE ${table} SET ${column} = ? WHERE ${key.sql}`, [
                next,
                ...key.params,
              ]);
            } catch {
              // A constraint refused it (a key taken, a column not null): nothing changed.
            }
          }
          try {
            if (!(await fails())) assert.equal(await searches(), expected, `${kind} ${table}`);
          } finally {
            await restore();
          }
        }),
        { numRuns: 100 },
      );
    });
  });
