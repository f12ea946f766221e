import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { monotonicNow, withDeadline } from '../deadline.js';
import { StoreUnavailableError } from '../errors.js';
import { insufficientScope, type Executor } from '../operations/executor.js';
import type { Predicate } from '../store/store.js';
import { SETS_BY_NAME, type EntitySet } from './entity-model.js';
import {
  DEFAULT_PAGE_SIZE,
  deltaOptionsOf,
  feedInput,
  linkOptionsOf,
  pageSizeOf,
  tracksChanges,
} from './feed-headers.js';
import { isTracked, writeDelta } from './delta-reads.js';
import type { SetQuery } from './set-query.js';
import type { FeedData } from './feed-operations.js';
import {
  badRequest,
  formatOption,
  notOffered,
  ODataError,
  type RawOptions,
} from './query-options.js';
import type { ResourcePath } from './request-path.js';
import { resolveSetQuery } from './set-query.js';
import { writeCollection, writeEntity } from './set-reads.js';
import type { FeedContext, Sink } from './feed-context.js';

/**
 * The answers of the resource sets (DESIGN §4.18): a collection, an entity by key, a record's
 * parts by navigation, and their `$count`, each read through the store's selections within the
 * request's time limit and streamed as it is read.
 */

/** The media type of the feed's JSON answers (OData 4.0 JSON Format §3). */
export const JSON_TYPE =
  'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';

export interface ResourceRequest {
  executor: Executor;
  request: FastifyRequest;
  reply: FastifyReply;
  path: Exclude<ResourcePath, { kind: 'service' } | { kind: 'metadata' }>;
  principal: Principal;
  options: RawOptions['options'];
  base: string;
  version: '4.0' | '4.01';
  /** What the access trail is told of the request. */
  seen: { input?: unknown; data?: FeedData };
  /** Writes the answer's head (the HTTP layer's send bounds apply from then on). */
  open(): void;
  /** Where a copy of the answer's text goes as it is written (to keep it: page-cache.ts). */
  copy?: (text: string) => void;
}

/** The set, when this token may read it (its scope); else 403 as the executor answers. */
function readableSet(name: string, principal: Principal): EntitySet {
  const set = SETS_BY_NAME.get(name) as EntitySet;
  if (!principal.scopes.has(set.scope)) throw insufficientScope(principal, set.scope);
  return set;
}

/**
 * A sink that opens the answer with its first rows: what comes before them (the count, the
 * context) is held, so a failure before any row is still an error answer, not a cut one.
 */
/** Until the connection takes more (or closes), its listeners removed either way. */
function drained(raw: FastifyReply['raw']): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}

function responseSink(
  open: () => void,
  reply: FastifyReply,
  discard: boolean,
  copy?: (text: string) => void,
): { write: Sink; end(): void } {
  let held = '';
  let opened = false;
  const raw = reply.raw;
  const end = () => {
    if (!opened) open();
    raw.end(discard ? undefined : held);
  };
  const write: Sink = async (text) => {
    copy?.(text);
    if (!opened && held === '') {
      held = text;
      return;
    }
    if (!opened) {
      open();
      opened = true;
      text = held + text;
      held = '';
    }
    if (discard) return;
    // A client gone stops the read: the rest of the page is not read for no one.
    if (raw.destroyed) throw new Error('the client closed the connection');
    if (!raw.write(text)) await drained(raw);
  };
  return { write, end };
}

export async function answerResource(r: ResourceRequest): Promise<FastifyReply> {
  const { executor, request, reply, path, principal, options, base, version, seen } = r;
  const storeTimeoutMs = executor.deps.storeTimeoutMs;
  const set = readableSet(path.set, principal);
  formatOption(options.$format);
  const receivedAt = request.receivedAt;
  const ctx: FeedContext = {
    store: executor.deps.store,
    principal,
    cursors: executor.deps.cursors,
    base,
    version,
    pageSize: pageSizeOf(request.headers.prefer),
    bounded: (read) =>
      withDeadline(
        read,
        receivedAt + storeTimeoutMs - monotonicNow(),
        () => new StoreUnavailableError('the store did not answer in time'),
      ),
  };
  const sink = responseSink(r.open, reply, request.method === 'HEAD', r.copy);
  if (path.kind === 'entity') {
    const setQuery = resolveSetQuery(set, principal, options);
    seen.input = feedInput(options, setQuery, { key: path.key });
    const revealed = await writeEntity(ctx, setQuery, path.key, sink.write);
    if (revealed === null)
      throw new ODataError('not_found', 'No such entity, or not one this token can read.');
    seen.data = { revealed };
    sink.end();
    return reply;
  }
  let target = set;
  const scope: Predicate[] = [];
  let resourcePath = set.name;
  if (path.kind === 'navigation') {
    const navigation = set.navigation.find((n) => n.name === path.navigation);
    if (!navigation) {
      if (set.byName.has(path.navigation))
        throw notOffered('A property of an entity is not offered as a resource of its own.');
      throw new ODataError('not_found', 'No such resource in this service.');
    }
    const parent = await ctx.bounded(
      executor.deps.store.getVisible(set.source, principal.workspaceId, principal, path.key),
    );
    if (!parent)
      throw new ODataError('not_found', 'No such entity, or not one this token can read.');
    target = readableSet(navigation.target, principal);
    const fk = target.byName.get(navigation.foreignKey)!.column;
    scope.push(() => ({ sql: `t.${fk} = ?`, params: [path.key] }));
    resourcePath = `${set.name}('${encodeURIComponent(path.key.replace(/'/g, "''"))}')/${navigation.name}`;
  }
  const setQuery = resolveSetQuery(target, principal, options);
  if (options.$deltatoken !== undefined) return answerDelta(r, ctx, setQuery, sink);
  // Changes are tracked on a whole set's records (with or without $select), never a part of it.
  const tracking =
    tracksChanges(request.headers.prefer) &&
    path.kind === 'collection' &&
    !path.count &&
    isTracked(set) &&
    setQuery.where.length === 0 &&
    setQuery.expand.length === 0 &&
    setQuery.top === null &&
    setQuery.skip === 0;
  const applied = [
    ...(ctx.pageSize !== DEFAULT_PAGE_SIZE ? [`odata.maxpagesize=${ctx.pageSize}`] : []),
    ...(tracking ? ['odata.track-changes'] : []),
  ];
  if (applied.length > 0) reply.header('preference-applied', applied.join(', '));
  seen.input = feedInput(
    options,
    setQuery,
    path.kind === 'navigation' ? { key: path.key, navigation: path.navigation } : {},
  );
  if (path.count) {
    const n = await ctx.bounded(
      executor.deps.store.selectCount(target.source, {
        workspaceId: principal.workspaceId,
        viewer: principal,
        where: [...scope, ...setQuery.where],
        order: [],
        after: null,
        offset: 0,
        limit: 0,
      }),
    );
    seen.data = { revealed: [] };
    return reply.type('text/plain;charset=utf-8').send(String(n));
  }
  const revealed = await writeCollection(
    ctx,
    {
      query: setQuery,
      path: resourcePath,
      linkOptions: linkOptionsOf(options),
      scope,
      skiptoken: options.$skiptoken,
      tracking,
      deltaOptions: deltaOptionsOf(options),
      deltaSelect: options.$select ?? null,
    },
    sink.write,
  );
  seen.data = { revealed };
  sink.end();
  return reply;
}

/** A delta's page: the set's changes after its `$deltatoken`, with `$select` and `$format` only. */
async function answerDelta(
  r: ResourceRequest,
  ctx: FeedContext,
  query: SetQuery,
  sink: { write: Sink; end(): void },
): Promise<FastifyReply> {
  const { path, options, seen } = r;
  const others = Object.keys(options).filter(
    (o) => !['$deltatoken', '$select', '$format'].includes(o),
  );
  if (path.kind !== 'collection' || path.count || !isTracked(query.set) || others.length > 0)
    throw badRequest(
      'A $deltatoken is followed on its set alone, with $select at most.',
      '$deltatoken',
    );
  seen.input = { ...feedInput(options, query, {}), cursor: options.$deltatoken };
  const revealed = await writeDelta(
    ctx,
    query,
    {
      deltatoken: options.$deltatoken as string,
      path: query.set.name,
      linkOptions: deltaOptionsOf(options),
      selectText: options.$select ?? null,
    },
    sink.write,
  );
  seen.data = { revealed };
  sink.end();
  return r.reply;
}
