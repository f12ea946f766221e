/**
 * list_changes, the change feed (DESIGN §4.11): a full export without a cursor, the records as
 * their lists serve them, visibility and scopes exactly as the lists (for every role, and no
 * trace of an invisible change), cursors bound to token and type, and a property: a consumer
 * that applies every page, with random loads in between, ends equal to the lists, and is never
 * shown an invoice of which what it reads did not change.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/operations/registry.js';
import { FEED_TYPES } from '../../src/store/sql/change-log.js';
import { DIALECTS, get, qs, startHarness, WS, type Harness } from '../support/harness.js';
import { applyLoad, later, loadSteps } from '../support/random-loads.js';
import { LIST_OF, type FeedItem } from '../support/feed.js';
import { renameWorker } from '../support/worker-names.js';

type Item = FeedItem;

/** A record with its envelopes' source left out: the feed and a list place them differently. */
function content(record: Record<string, unknown>): string {
  return JSON.stringify(record, (key, value) => (key === 'source' ? undefined : value));
}

/** Reads pages of the feed from `cursor` until hasMore is false; checks each page's shape. */
async function readFeed(
  h: Harness,
  token: string,
  cursor?: string,
  extra: Record<string, unknown> = {},
) {
  const items: Item[] = [];
  for (let pages = 0; pages < 100_000; pages++) {
    const answer = await get(h.app, `/api/v1/changes${qs({ cursor, ...extra })}`, token);
    assert.equal(answer.status, 200, answer.raw);
    const page = answer.body.data;
    assert.equal(typeof page.nextCursor, 'string', 'nextCursor is never null');
    assert.ok(page.nextCursor.length <= 512);
    items.push(...page.items);
    cursor = page.nextCursor as string;
    if (!page.hasMore) return { items, cursor };
  }
  throw new Error('the feed did not end');
}

/** Every record of every list the token may call, by type and id. */
async function readLists(h: Harness, token: string): Promise<Map<string, string>> {
  const records = new Map<string, string>();
  for (const [type, name] of Object.entries(LIST_OF)) {
    const operation = OPERATIONS.find((op) => op.name === name);
    assert.ok(operation);
    let cursor: string | undefined;
    for (;;) {
      const answer = await get(h.app, `${operation.path}${qs({ cursor })}`, token);
      if (answer.status === 403) break;
      assert.equal(answer.status, 200, answer.raw);
      for (const record of answer.body.data.items)
        records.set(`${type}:${record.id}`, content(record));
      if (!answer.body.data.hasMore) break;
      cursor = answer.body.data.nextCursor;
    }
  }
  return records;
}

/** A copy kept by applying the items in order: a record replaces, a tombstone removes. */
function applied(items: Item[], copy = new Map<string, string>()): Map<string, string> {
  for (const item of items) {
    const key = `${item.type}:${item.id}`;
    if (item.record === null) copy.delete(key);
    else copy.set(key, content(item.record));
  }
  return copy;
}
const keyed = (items: Item[]) => applied(items);

const sortKey = (item: Item) => [item.version, item.type, item.id] as const;
function assertOrdered(items: Item[]): void {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [sortKey(items[i - 1]), sortKey(items[i])];
    const before =
      a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])));
    assert.ok(before, `items out of order at ${i}: ${a.join(' ')} then ${b.join(' ')}`);
  }
}

for (const dialect of DIALECTS) {
  describe(`list_changes (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    it('reads every record of the workspace once, in (version, type, id) order, as its list serves it, when read from the start', async () => {
      const { items } = await readFeed(h, h.tokens.staff);
      assertOrdered(items);
      for (const [type, table] of Object.entries(FEED_TYPES)) {
        const [{ n }] = await h.all<{ n: number }>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = ?`,
          WS,
        );
        assert.equal(items.filter((i) => i.type === type).length, Number(n), type);
      }
      assert.deepEqual(keyed(items), await readLists(h, h.tokens.staff));
      // Provenance paths point into the feed's own answer.
      const enveloped = items.findIndex((i) => i.type === 'supplier');
      const name = items[enveloped].record?.name as {
        source: { operationId: string; path: string };
      };
      assert.deepEqual(name.source, {
        operationId: 'list_changes',
        path: `$.items[${enveloped % 50}].record.name`,
      });
    });

    for (const role of [
      'staffNoPii',
      'worker',
      'billing',
      'programOnly',
      'workforceOnly',
    ] as const) {
      it(`shows a ${role} token exactly the records its lists show it`, async () => {
        const token = h.tokens[role];
        const { items } = await readFeed(h, token);
        assertOrdered(items);
        assert.deepEqual(keyed(items), await readLists(h, token));
      });
    }

    it('follows one type with type=, and binds its cursor to that type and to the token', async () => {
      const { items, cursor } = await readFeed(h, h.tokens.staff, undefined, {
        type: 'invoice',
        limit: 40,
      });
      assert.ok(items.length > 0);
      assert.ok(items.every((i) => i.type === 'invoice'));
      for (const [token, extra] of [
        [h.tokens.staff, {}],
        [h.tokens.staff, { type: 'worker' }],
        [h.tokens.staff2, { type: 'invoice' }],
        [h.tokens.staff, { type: 'invoice', cursor: 'x'.repeat(40) }],
      ] as const) {
        const answer = await get(h.app, `/api/v1/changes${qs({ cursor, ...extra })}`, token);
        assert.equal(answer.status, 200);
        assert.equal(answer.body.data.code, 'invalid_cursor', JSON.stringify(extra));
      }
    });

    it('with start=latest reads nothing, and its cursor shows only what changed after it', async () => {
      const start = async (extra: Record<string, unknown> = {}) => {
        const answer = await get(
          h.app,
          `/api/v1/changes${qs({ start: 'latest', ...extra })}`,
          h.tokens.staff,
        );
        assert.equal(answer.status, 200, answer.raw);
        assert.deepEqual(
          { items: answer.body.data.items, hasMore: answer.body.data.hasMore },
          { items: [], hasMore: false },
        );
        return answer.body.data.nextCursor as string;
      };
      const all = await start();
      const workers = await start({ type: 'worker' });
      const suppliers = await start({ type: 'supplier' });
      assert.deepEqual((await readFeed(h, h.tokens.staff, all)).items, [], 'nothing since, yet');
      const renamed = await renameWorker(h, 3, randomBytes(6).toString('hex'));
      const since = (await readFeed(h, h.tokens.staff, all)).items;
      assert.deepEqual(
        since.map((i) => [i.type, i.id, (i.record?.displayName as { value: string }).value]),
        [['worker', renamed.id, renamed.name]],
        'the rename alone',
      );
      assert.deepEqual(
        (await readFeed(h, h.tokens.staff, workers, { type: 'worker' })).items.map((i) => i.id),
        [renamed.id],
      );
      assert.deepEqual(
        (await readFeed(h, h.tokens.staff, suppliers, { type: 'supplier' })).items,
        [],
      );
      // Bound to its type as any feed cursor; never beside a cursor.
      const other = await get(h.app, `/api/v1/changes${qs({ cursor: workers })}`, h.tokens.staff);
      assert.equal(other.body.data.code, 'invalid_cursor');
      const both = await get(
        h.app,
        `/api/v1/changes${qs({ start: 'latest', cursor: all })}`,
        h.tokens.staff,
      );
      assert.equal(both.status, 404, both.raw);
      assert.match(both.body.message?.value ?? both.raw, /start and cursor/);
      for (const query of ['?start=earliest', '?start=', '?start=latest&start=latest']) {
        const answer = await get(h.app, `/api/v1/changes${query}`, h.tokens.staff);
        assert.equal(answer.status, 404, query);
      }
    });

    it('refuses unknown types and parameters as any list does (404), and needs no particular scope', async () => {
      for (const query of ['?type=payslip', '?order=asc', '?limit=0', '?limit=1&limit=2']) {
        const answer = await get(h.app, `/api/v1/changes${query}`, h.tokens.staff);
        assert.equal(answer.status, 404, query);
      }
      const programOnly = await get(h.app, '/api/v1/changes?type=worker', h.tokens.programOnly);
      assert.equal(programOnly.status, 200);
      assert.deepEqual(programOnly.body.data.items, [], 'no read:workforce, no workers');
      assert.equal(programOnly.body.data.hasMore, false);
      // Its cursor (at the start, as nothing was read) goes on working: not expired.
      const again = await get(
        h.app,
        `/api/v1/changes${qs({ type: 'worker', cursor: programOnly.body.data.nextCursor })}`,
        h.tokens.programOnly,
      );
      assert.equal(again.status, 200, again.raw);
      assert.deepEqual(
        { items: again.body.data.items, hasMore: again.body.data.hasMore },
        { items: [], hasMore: false },
      );
    });

    it('leaves no trace of a change to a record the token cannot see, not even in hasMore', async () => {
      const { cursor: workerCursor } = await readFeed(h, h.tokens.worker);
      const { cursor: billingCursor } = await readFeed(h, h.tokens.billing);
      // Another worker's timesheet and an invoice of another supplier change.
      const [timesheet] = await h.all<Record<string, unknown>>(
        'SELECT * FROM timesheets WHERE workspace_id = ? AND worker_id <> ? ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      const [invoice] = await h.all<Record<string, unknown>>(
        `SELECT * FROM invoices i WHERE workspace_id = ? AND (supplier_ref IS NULL OR supplier_ref <> ?)
           AND NOT EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.supplier_ref = ?) ORDER BY id LIMIT 1`,
        WS,
        h.supplierCode,
        h.supplierCode,
      );
      const load = await h.store.openLoad();
      await load.insert('timesheets', [
        { ...timesheet, status: 'rejected', updated_at: later() } as never,
      ]);
      await load.insert('invoices', [{ ...invoice, status: 'void', updated_at: later() } as never]);
      await load.finish();
      for (const [token, cursor] of [
        [h.tokens.worker, workerCursor],
        [h.tokens.billing, billingCursor],
      ]) {
        const answer = await get(h.app, `/api/v1/changes${qs({ cursor, limit: 1 })}`, token);
        assert.deepEqual(
          { items: answer.body.data.items, hasMore: answer.body.data.hasMore },
          { items: [], hasMore: false },
        );
      }
      const staff = await readFeed(h, h.tokens.staff, undefined);
      const last = staff.items.slice(-2).map((i) => `${i.type}:${i.id}`);
      assert.deepEqual(last.sort(), [`invoice:${invoice.id}`, `timesheet:${timesheet.id}`].sort());
    });

    it('a consumer that applies every page, with random loads between pages, ends equal to the lists; no page shows a record older than the stored one', async () => {
      const tokens = [h.tokens.staff, h.tokens.worker, h.tokens.billing];
      const state = tokens.map(() => new Map<string, string>());
      const cursors: (string | undefined)[] = tokens.map(() => undefined);
      const audiences = [null, `worker:${h.workerId}`, `supplier:${h.supplierCode}`];
      // What each reader read of each invoice, as get_invoice serves it: header, lines, lineCount.
      const invoices = tokens.map(() => new Map<string, string>());
      const invoiceAs = async (t: number, id: string) => {
        const answer = await get(h.app, `/api/v1/invoices/item${qs({ id })}`, tokens[t]);
        return content(answer.body.data.item as Record<string, unknown>);
      };
      const readSome = async (t: number, pages: number, limit: number) => {
        for (let p = 0; p < pages; p++) {
          const answer = await get(
            h.app,
            `/api/v1/changes${qs({ cursor: cursors[t], limit })}`,
            tokens[t],
          );
          assert.equal(answer.status, 200, answer.raw);
          const page = answer.body.data;
          for (const item of page.items as Item[]) {
            // The latest version this reader has of the record: its change, or its own
            // audience row (a tombstone, or a supplier a worker reached by an assignment).
            const [stored] = await h.all<{ version: number }>(
              'SELECT version FROM record_changes WHERE type = ? AND id = ?',
              item.type,
              item.id,
            );
            const [own] = await h.all<{ version: number; reason: string | null }>(
              'SELECT version, reason FROM audience_changes WHERE audience = ? AND type = ? AND id = ?',
              audiences[t],
              item.type,
              item.id,
            );
            // A tombstone of the reader's own stands only while it cannot read the record
            // (checked below): then it is the reader's latest, whatever the record did since (a
            // consolidated invoice brought back without its lines reaches no billing entity). A
            // billing entity reads invoices through its own rows alone (DESIGN §4.16).
            const ownOnly = own?.reason || (t === 2 && item.type === 'invoice');
            const latest = ownOnly
              ? Number(own?.version)
              : Math.max(Number(stored?.version ?? 0), Number(own?.version ?? 0));
            assert.equal(item.version, latest, 'the record as stored, at its latest version');
            if (item.record === null) {
              const reason = t === 0 ? 'deleted' : own?.reason;
              assert.deepEqual(item.removed, { reason }, 'a tombstone says why');
            }
            applied([item], state[t]);
            if (item.type !== 'invoice') continue;
            // No trace (DESIGN §4.13, §4.16): an invoice comes again only when what this reader
            // reads of it changed (another supplier's line is not read by a billing entity).
            if (item.record === null) invoices[t].delete(item.id);
            else {
              const now = await invoiceAs(t, item.id);
              assert.notEqual(now, invoices[t].get(item.id), `invoice ${item.id} came unchanged`);
              invoices[t].set(item.id, now);
            }
          }
          cursors[t] = page.nextCursor;
          if (!page.hasMore) return;
        }
      };
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              loadSteps.map((steps) => ({ load: steps })),
              fc.record({
                token: fc.nat({ max: 2 }),
                pages: fc.integer({ min: 1, max: 30 }),
                limit: fc.integer({ min: 1, max: 50 }),
              }),
            ),
            { minLength: 1, maxLength: 8 },
          ),
          async (actions) => {
            for (const action of actions) {
              if ('load' in action) await applyLoad(h.store, WS, action.load);
              else await readSome(action.token, action.pages, action.limit);
            }
            for (let t = 0; t < tokens.length; t++) {
              await readSome(t, 100_000, 50);
              const lists = await readLists(h, tokens[t]);
              assert.deepEqual(state[t], lists, `token ${t}`);
              const tombstones = await h.all<{ type: string; id: string }>(
                'SELECT type, id FROM audience_changes WHERE audience = ? AND reason IS NOT NULL',
                audiences[t],
              );
              for (const { type, id } of tombstones)
                assert.ok(!lists.has(`${type}:${id}`), `a tombstone of ${type} ${id} it reads`);
              if (t !== 2) continue;
              // A billing entity has a read row of exactly the invoices it reads.
              const reads = await h.all<{ id: string }>(
                "SELECT id FROM audience_changes WHERE workspace_id = ? AND audience = ? AND type = 'invoice' AND reason IS NULL",
                WS,
                audiences[t],
              );
              assert.deepEqual(
                reads.map((r) => `invoice:${r.id}`).sort(),
                [...lists.keys()].filter((k) => k.startsWith('invoice:')).sort(),
              );
            }
          },
        ),
        { numRuns: 6 },
      );
    });
  });
}
