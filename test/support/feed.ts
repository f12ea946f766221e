/**
 * The change feed as tests read it: an item's shape, the list that serves each type, pages; and
 * what they do to it: a load of rows and deletions, a billing entity's token.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { createToken } from '../../src/auth/tokens.js';
import type { Deletion } from '../../src/store/load/deletions.js';
import type { LoadOptions, LoadResult } from '../../src/store/load/load.js';
import type { DataTable } from '../../src/store/schema.js';
import type { Row } from '../../src/store/sink.js';
import type { FeedType } from '../../src/store/sql/change-log.js';
import { ALL_SCOPES, get, qs, WS, type Harness } from './harness.js';

/** One item of `list_changes`: a record, or a tombstone (`record` null; DESIGN §4.13). */
export interface FeedItem {
  type: FeedType;
  id: string;
  version: number;
  record: (Record<string, unknown> & { id: string }) | null;
  removed?: { reason: 'deleted' | 'not_visible' };
}

/** The list operation that serves each item type. */
export const LIST_OF = {
  supplier: 'list_suppliers',
  worker: 'list_workers',
  assignment: 'list_assignments',
  timesheet: 'list_timesheets',
  expense: 'list_expenses',
  invoice: 'list_invoices',
  approval_status: 'list_approval_statuses',
} as const satisfies Record<FeedType, string>;

export interface FeedPage {
  items: FeedItem[];
  hasMore: boolean;
  nextCursor: string;
}

/** One page of the feed from `cursor` (the start without one), as the feed answers it. */
export async function feedPage(
  app: FastifyInstance,
  token: string,
  cursor?: string,
): Promise<FeedPage> {
  const answer = await get(app, `/api/v1/changes${qs({ cursor })}`, token);
  assert.equal(answer.status, 200, answer.raw);
  const { items, hasMore, nextCursor } = answer.body.data;
  assert.ok(Array.isArray(items), answer.raw);
  return { items: items as FeedItem[], hasMore: hasMore as boolean, nextCursor };
}

/** Reads the feed from `cursor` (the start without one) to its end. */
export async function feedToEnd(
  app: FastifyInstance,
  token: string,
  cursor?: string,
): Promise<{ items: FeedItem[]; cursor: string }> {
  const items: FeedItem[] = [];
  for (;;) {
    const page = await feedPage(app, token, cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!page.hasMore) return { items, cursor };
  }
}

/** One load of `rows` and deletions of WS, through the store's load writer: it changes something. */
export async function loadChanges(
  h: Harness,
  rows: [DataTable, Row[]][],
  deletions: Omit<Deletion, 'file' | 'line'>[] = [],
  options: LoadOptions = {},
): Promise<LoadResult> {
  const open = await h.store.openLoad(options);
  try {
    for (const [table, batch] of rows) await open.insert(table, batch);
    await open.remove(
      WS,
      deletions.map((d, i) => ({ ...d, file: 'deletions.csv', line: i + 2 })),
    );
    const result = await open.finish();
    assert.equal(result.changed, true, 'the load changed something');
    return result;
  } catch (error) {
    await open.abort();
    throw error;
  }
}

/** A token, every scope, of the billing entity of the WS supplier whose code is `code`. */
export async function billingToken(h: Harness, code: string): Promise<string> {
  const { id } = await h.one<{ id: string }>(
    'SELECT id FROM suppliers WHERE workspace_id = ? AND code = ?',
    WS,
    code,
  );
  return createToken(
    h.store,
    { workspaceId: WS, role: 'billing_entity', supplierId: id, scopes: ALL_SCOPES },
    new Date(),
  );
}
