import type { Principal } from '../auth/principal.js';
import type { RevealedRecord } from '../operations/revelation.js';
import type { CursorCodec } from '../paging/cursor.js';
import type { FeedType } from '../store/sql/change-log.js';
import type { ResourceReads, Row, SelectionQuery } from '../store/store.js';
import type { EntitySet } from './entity-model.js';
import { annotation, entityWriter } from './json-writer.js';
import { ODataError, badRequest } from './query-options.js';
import { selectFragment, type Expansion, type SetQuery } from './set-query.js';

/**
 * Reading a set (or a record's parts) as one OData page, written as it is read (DESIGN §4.18):
 * rows come from the store a chunk at a time by keyset and go to the answer as text, so memory
 * does not grow with the page. Server-driven paging: past the page size a `@odata.nextLink`
 * carries a `$skiptoken`, a signed cursor (4.5) bound to the token and the query.
 */

export interface FeedContext {
  store: ResourceReads;
  principal: Principal;
  cursors: CursorCodec;
  /** The service root as clients reach it, ending in `/`. */
  base: string;
  version: '4.0' | '4.01';
  /** Rows per page (`Prefer: odata.maxpagesize`, default 1,000). */
  pageSize: number;
  /** A store read within the request's time limit. */
  bounded<T>(read: Promise<T>): Promise<T>;
}

/** Where an answer's text goes: the connection (awaiting its drain) or a buffer. */
export type Sink = (text: string) => void | Promise<void>;

/** Rows read from the store at once. Expanded parents go fewer at a time: each brings its parts. */
const CHUNK = 1000;
const EXPANDED_CHUNK = 20;

/** What a $skiptoken holds: the last row's order keys, and how many of `$top` remain. */
interface PagePosition {
  after: unknown[];
  remaining: number | null;
}

function isPosition(value: unknown): value is PagePosition {
  const v = value as PagePosition;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.after) &&
    (v.remaining === null || Number.isSafeInteger(v.remaining))
  );
}

/** The records an answer carried, by their type and id (entries and lines under their parent). */
export class Revealed {
  private readonly records = new Map<string, RevealedRecord>();
  add(set: EntitySet, row: Row, personal: boolean): void {
    const type: FeedType = set.feedType;
    const id = String(row[set.byName.get(set.revealedAs)?.column ?? 'id']);
    const key = `${type}\u0000${id}`;
    const known = this.records.get(key);
    if (known) {
      if (personal) known.personalData = true;
      return;
    }
    const record: RevealedRecord = { type, id };
    const worker = set.name === 'Workers' ? row.id : (row.worker_id ?? row.worker_ref);
    if (typeof worker === 'string') record.worker = worker;
    if (personal) record.personalData = true;
    this.records.set(key, record);
  }
  list(): RevealedRecord[] {
    return [...this.records.values()];
  }
}

const hasPersonal = (props: readonly { personal: boolean }[]) => props.some((p) => p.personal);

/** Writes each parent with its expanded parts, read for a chunk of parents at once. */
async function expandedWriter(
  ctx: FeedContext,
  query: SetQuery,
  parents: Row[],
  revealed: Revealed,
): Promise<(row: Row) => string> {
  const children = new Map<string, Map<string, string[]>>();
  for (const e of query.expand) {
    const byParent = new Map<string, string[]>();
    children.set(e.navigation.name, byParent);
    const fk = e.target.byName.get(e.navigation.foreignKey)!.column;
    const write = entityWriter(e.properties);
    const rows = await ctx.bounded(
      ctx.store.selectPage(e.target.source, {
        workspaceId: ctx.principal.workspaceId,
        viewer: ctx.principal,
        where: [
          () => ({
            sql: `t.${fk} IN (${parents.map(() => '?').join(', ')})`,
            params: parents.map((p) => p.id),
          }),
        ],
        order: [
          { column: fk, direction: 'asc', nullable: false },
          { column: 'created_at', direction: 'asc', nullable: false },
          { column: 'id', direction: 'asc', nullable: false },
        ],
        after: null,
        offset: 0,
        limit: Number.MAX_SAFE_INTEGER,
      }),
    );
    const personal = hasPersonal(e.properties);
    for (const row of rows) {
      const parent = String(row[fk]);
      let list = byParent.get(parent);
      if (!list) byParent.set(parent, (list = []));
      list.push(write(row));
      revealed.add(e.target, row, personal);
    }
  }
  return entityWriter(query.properties, (row) =>
    query.expand
      .map((e: Expansion) => {
        const list = children.get(e.navigation.name)?.get(String(row.id)) ?? [];
        return `${JSON.stringify(e.navigation.name)}:[${list.join(',')}]`;
      })
      .join(','),
  );
}

export interface CollectionRequest {
  query: SetQuery;
  /** The set's path as requested (`Workers`, `Timesheets('x')/Entries`), for the nextLink. */
  path: string;
  /** The options to repeat in a nextLink (those that decide rows and shape), as sent. */
  linkOptions: string;
  /** Conditions beyond the query's (a navigation's parent). */
  scope: SelectionQuery['where'];
  skiptoken: string | undefined;
}

/** Writes one page of a collection; returns what it revealed. */
export async function writeCollection(
  ctx: FeedContext,
  request: CollectionRequest,
  sink: Sink,
): Promise<RevealedRecord[]> {
  const { query } = request;
  const binding = JSON.stringify(['odata', ctx.principal.tokenId, request.path, query.binding]);
  let position: PagePosition | null = null;
  if (request.skiptoken !== undefined) {
    if (query.top !== null || query.skip > 0)
      throw badRequest('$skiptoken continues a page: send it without $top or $skip.', '$skiptoken');
    const decoded = ctx.cursors.decode(binding, request.skiptoken);
    if (!isPosition(decoded))
      throw new ODataError(
        'invalid_cursor',
        'The $skiptoken was issued to another token or for another query; start again without it.',
        '$skiptoken',
      );
    position = decoded;
  }
  const total = position ? position.remaining : query.top;
  const pageLimit = Math.min(ctx.pageSize, total ?? Infinity);
  const selection = (after: unknown[] | null, offset: number, limit: number): SelectionQuery => ({
    workspaceId: ctx.principal.workspaceId,
    viewer: ctx.principal,
    where: [...request.scope, ...query.where],
    order: query.order,
    after,
    offset,
    limit,
  });
  const revealed = new Revealed();
  const count = query.count
    ? await ctx.bounded(ctx.store.selectCount(query.set.source, selection(null, 0, 0)))
    : undefined;
  const context = `${ctx.base}$metadata#${query.set.name}${selectFragment(query, ctx.version)}`;
  await sink(
    `{${annotation('@odata.context', context)}${annotation('@odata.count', count)}"value":[`,
  );
  const plainWriter = entityWriter(query.properties);
  const personal = hasPersonal(query.properties);
  let after = position?.after ?? null;
  let offset = position ? 0 : query.skip;
  let written = 0;
  let more = false;
  while (written < pageLimit) {
    const want = Math.min(query.expand.length > 0 ? EXPANDED_CHUNK : CHUNK, pageLimit - written);
    const rows = await ctx.bounded(
      ctx.store.selectPage(query.set.source, selection(after, offset, want + 1)),
    );
    more = rows.length > want;
    const page = more ? rows.slice(0, want) : rows;
    if (page.length === 0) break;
    const write =
      query.expand.length > 0 ? await expandedWriter(ctx, query, page, revealed) : plainWriter;
    let text = '';
    for (const row of page) {
      text += (written++ === 0 ? '' : ',') + write(row);
      revealed.add(query.set, row, personal);
    }
    await sink(text);
    const last = page[page.length - 1];
    after = query.order.map((o) => last[o.column] ?? null);
    offset = 0;
    if (!more) break;
  }
  const remaining = total === null ? null : total - written;
  let tail = ']';
  if (more && (remaining === null || remaining > 0)) {
    const token = ctx.cursors.encode(binding, {
      after: after ?? [],
      remaining,
    } satisfies PagePosition);
    const options = request.linkOptions === '' ? '' : `${request.linkOptions}&`;
    tail += `,${annotation('@odata.nextLink', `${ctx.base}${request.path}?${options}$skiptoken=${token}`).slice(0, -1)}`;
  }
  await sink(`${tail}}`);
  return revealed.list();
}

/** Writes one entity by key (with its expansions); null when it is not there for this token. */
export async function writeEntity(
  ctx: FeedContext,
  query: SetQuery,
  key: string,
  sink: Sink,
): Promise<RevealedRecord[] | null> {
  const row = await ctx.bounded(
    ctx.store.getVisible(query.set.source, ctx.principal.workspaceId, ctx.principal, key),
  );
  if (!row) return null;
  const revealed = new Revealed();
  const write =
    query.expand.length > 0
      ? await expandedWriter(ctx, query, [row], revealed)
      : entityWriter(query.properties);
  revealed.add(query.set, row, hasPersonal(query.properties));
  const context = `${ctx.base}$metadata#${query.set.name}${selectFragment(query, ctx.version)}/$entity`;
  const body = write(row);
  await sink(`{${annotation('@odata.context', context)}${body.slice(1)}`);
  return revealed.list();
}
