import type { RevealedRecord } from '../operations/revelation.js';
import type { Row, SelectionQuery } from '../store/store.js';
import { annotation, entityWriter } from './json-writer.js';
import { ODataError, badRequest } from './query-options.js';
import { selectFragment, type Expansion, type SetQuery } from './set-query.js';
import { changedSince, deltaBinding, deltaTokenAfter, feedNow } from './delta-reads.js';
import { Revealed, type FeedContext, type Sink } from './feed-context.js';

/**
 * Reading a set (or a record's parts) as one OData page, written as it is read (DESIGN §4.18):
 * rows come from the store a chunk at a time by keyset and go to the answer as text, so memory
 * does not grow with the page. Server-driven paging: past the page size a `@odata.nextLink`
 * carries a `$skiptoken`, a signed cursor (4.5) bound to the token and the query.
 */

/** Rows read from the store at once. Expanded parents go fewer at a time: each brings its parts. */
const CHUNK = 1000;
const EXPANDED_CHUNK = 20;

/**
 * What a $skiptoken holds: the last row's order keys, how many of `$top` remain, the data version
 * the read began at, and for a read that tracks changes where the change feed stood then.
 */
interface PagePosition {
  after: unknown[];
  remaining: number | null;
  version: number;
  since?: [version: number, horizon: number];
}

function isPosition(value: unknown): value is PagePosition {
  const v = value as PagePosition;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.after) &&
    (v.remaining === null || Number.isSafeInteger(v.remaining)) &&
    Number.isSafeInteger(v.version) &&
    (v.since === undefined ||
      (Array.isArray(v.since) && v.since.length === 2 && v.since.every(Number.isSafeInteger)))
  );
}

const changedWhileRead = () =>
  new ODataError(
    'cursor_expired',
    'The set changed while it was read through nextLinks: read it again from its first page, for one consistent version.',
    '$skiptoken',
  );

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
  /** `Prefer: odata.track-changes` applies: the last page carries a deltaLink. */
  tracking: boolean;
  /** The options a deltaLink repeats (`$select`, `$format`), as sent. */
  deltaOptions: string;
  /** The `$select` a delta token is bound to, as sent, or null. */
  deltaSelect: string | null;
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
  // Where the feed stands before any row is read: what changes during the read, the delta brings.
  const start = position ? null : await feedNow(ctx);
  const since = !request.tracking ? undefined : (position?.since ?? start ?? undefined);
  // One consistent data version through nextLinks (DESIGN §4.18): a set read since its first page
  // changed is read again, never answered as a mix of versions.
  const version = position ? position.version : (start as [number, number])[0];
  if (position && (await changedSince(ctx, query.set, version))) throw changedWhileRead();
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
  // Rows of the last page read after a change are not answered as the end of a read: its nextLink
  // says the set changed (the check above), and the reader reads it again.
  const last = !(more && (remaining === null || remaining > 0));
  const changed = last && (await changedSince(ctx, query.set, version));
  let tail = ']';
  if (!last || changed) {
    const token = ctx.cursors.encode(binding, {
      after: after ?? [],
      remaining,
      version,
      ...(since ? { since } : {}),
    } satisfies PagePosition);
    const options = request.linkOptions === '' ? '' : `${request.linkOptions}&`;
    tail += `,${annotation('@odata.nextLink', `${ctx.base}${request.path}?${options}$skiptoken=${token}`).slice(0, -1)}`;
  } else if (since) {
    const token = ctx.cursors.encode(
      deltaBinding(ctx.principal.tokenId, query.set, request.deltaSelect),
      deltaTokenAfter(since),
    );
    const options = request.deltaOptions === '' ? '' : `${request.deltaOptions}&`;
    tail += `,${annotation('@odata.deltaLink', `${ctx.base}${request.path}?${options}$deltatoken=${token}`).slice(0, -1)}`;
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
