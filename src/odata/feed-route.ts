import { once } from 'node:events';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { Predicate } from '../store/store.js';
import { withDeadline, monotonicNow } from '../deadline.js';
import { ApiError, StoreUnavailableError } from '../errors.js';
import type { AnyOperation } from '../operations/operation.js';
import { insufficientScope, type Executor } from '../operations/executor.js';
import { SETS_BY_NAME, type EntitySet } from './entity-model.js';
import { credentialOf } from './credentials.js';
import {
  METADATA_OPERATION,
  SERVICE_DOCUMENT_OPERATION,
  SET_OPERATIONS,
  type FeedData,
} from './feed-operations.js';
import { parseResourcePath, type ResourcePath } from './request-path.js';
import {
  formatOption,
  notOffered,
  ODataError,
  readOptions,
  apiKeyOf,
  COLLECTION_OPTIONS,
  type RawOptions,
  type OptionName,
} from './query-options.js';
import { metadataJson, metadataXml, serviceDocument } from './service-model.js';
import { resolveSetQuery } from './set-query.js';
import { writeCollection, writeEntity, type FeedContext, type Sink } from './set-reads.js';
import { pageSizeOf, versionOf, linkOptionsOf, feedInput } from './feed-headers.js';

/**
 * `/odata/v4/`: the OData feed (DESIGN §4.18), a second read-only face of the same records for BI
 * tools. A transport like MCP: it authenticates and admits through the executor, checks scopes as
 * the executor does, reads through the store's selections, and hands each answered request to the
 * access trail as `odata:<Set>`. Mounted by the HTTP layer, which lends it what it owns.
 */
export interface FeedMount {
  executor: Executor;
  /** The service root a request reaches (the server's own origin), ending in `/`. */
  base(request: FastifyRequest): string;
  /** The request's one Authorization header (two are '', a malformed credential). */
  authorizationOf(request: FastifyRequest): string | undefined;
  /** Writes an answer's head to the raw response and hands it over (the HTTP layer's send bounds). */
  writeHead(request: FastifyRequest, reply: FastifyReply, head: Record<string, string>): void;
  /** Counts this request under its operation's meters, when metrics are on. */
  meter(request: FastifyRequest, operation: AnyOperation): void;
  /** The one error answer of the API. */
  errorAnswer(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The operation this request answered, where its route answers several (the OData feed). */
    answeredOperation?: AnyOperation;
  }
}

export const FEED_PREFIX = '/odata/v4/';

const JSON_TYPE =
  'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';
const ENTITY_OPTIONS: OptionName[] = ['$select', '$expand', '$format'];

function operationOf(path: ResourcePath): AnyOperation {
  if (path.kind === 'service') return SERVICE_DOCUMENT_OPERATION;
  if (path.kind === 'metadata') return METADATA_OPERATION;
  const operation = SET_OPERATIONS.get(path.set);
  if (!operation) throw new ODataError('not_found', 'No such resource in this service.');
  return operation;
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
function responseSink(
  open: () => void,
  reply: FastifyReply,
  discard: boolean,
): { write: Sink; end(): void } {
  let held = '';
  let opened = false;
  const raw = reply.raw;
  const end = () => {
    if (!opened) open();
    raw.end(discard ? undefined : held);
  };
  const write: Sink = async (text) => {
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
    if (!raw.write(text)) await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
  };
  return { write, end };
}

export function mountODataFeed(app: FastifyInstance, deps: FeedMount): void {
  const { executor } = deps;
  const storeTimeoutMs = executor.deps.storeTimeoutMs;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url;
    const q = url.indexOf('?');
    const pathText = url.slice(
      url.startsWith(FEED_PREFIX) ? FEED_PREFIX.length : FEED_PREFIX.length - 1,
      q < 0 ? undefined : q,
    );
    const query = q < 0 ? '' : url.slice(q + 1);
    const version = versionOf(request.headers['odata-maxversion']);
    reply.header('odata-version', version);
    const path = parseResourcePath(pathText);
    const operation = operationOf(path);
    request.answeredOperation = operation;
    deps.meter(request, operation);
    const allowed =
      path.kind === 'service' || path.kind === 'metadata'
        ? (['$format'] as OptionName[])
        : path.kind === 'entity'
          ? ENTITY_OPTIONS
          : (path.kind === 'collection' || path.kind === 'navigation') && path.count
            ? (['$filter'] as OptionName[])
            : COLLECTION_OPTIONS;
    // Options are judged after authentication and the quota (DESIGN §4.1's order); the key in
    // the URL is read first.
    let read: RawOptions | Error;
    try {
      read = readOptions(query, allowed);
    } catch (error) {
      read = error as Error;
    }
    const apiKey = read instanceof Error ? apiKeyOf(query) : read.apiKey;
    const credential = credentialOf(deps.authorizationOf(request), apiKey);
    const principal = await executor.authenticate(
      credential.authorization,
      request.receivedAt,
      request.clientAddress,
    );
    request.principal = principal;
    // A key in the URL is accepted only if it was made for that (a leaked URL carries no session).
    if (credential.inUrl && !principal.inUrl)
      throw new ApiError(
        'unauthorized',
        {},
        undefined,
        'a key in the URL not minted with --in-url',
      );
    await executor.admit(principal);
    if (read instanceof Error) throw read;
    const { options } = read;
    const base = deps.base(request);
    const seen: { input?: unknown; data?: FeedData } = {};
    request.seen = seen;
    const send = (type: string, body: string) => {
      seen.data = { revealed: [] };
      return reply.type(type).send(body);
    };
    if (path.kind === 'service') {
      seen.input = {};
      formatOption(options.$format);
      return send(
        'application/json;odata.metadata=minimal;charset=utf-8',
        serviceDocument(base, principal),
      );
    }
    if (path.kind === 'metadata') {
      seen.input = {};
      const format = formatOption(options.$format, true);
      const accept = String(request.headers.accept ?? '');
      const json =
        format === 'json' ||
        (format === null && /application\/json/i.test(accept) && !/application\/xml/i.test(accept));
      return json
        ? send('application/json;charset=utf-8', metadataJson(principal))
        : send('application/xml;charset=utf-8', metadataXml(principal));
    }
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
    if (ctx.pageSize !== 1000)
      reply.header('preference-applied', `odata.maxpagesize=${ctx.pageSize}`);
    const open = () => deps.writeHead(request, reply, { 'content-type': JSON_TYPE });
    const sink = responseSink(open, reply, request.method === 'HEAD');
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
      },
      sink.write,
    );
    seen.data = { revealed };
    sink.end();
    return reply;
  };
  const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (reply.raw.headersSent) {
      // Rows were already sent: the answer cannot become an error now; it is cut short.
      request.log.warn({ err: error }, 'an OData answer failed after its first rows');
      reply.raw.destroy();
      return reply;
    }
    if (reply.getHeader('odata-version') === undefined) reply.header('odata-version', '4.0');
    return deps.errorAnswer(error, request, reply);
  };
  // Tools that only do Basic are told they may (RFC 7617), beside the Bearer challenge.
  const onSend = (
    _request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (e: null, p: unknown) => void,
  ) => {
    const bearer = reply.getHeader('www-authenticate');
    if (reply.statusCode === 401 && typeof bearer === 'string')
      reply.header('www-authenticate', [bearer, 'Basic realm="vms-read", charset="UTF-8"']);
    done(null, payload);
  };
  for (const url of ['/odata/v4', `${FEED_PREFIX}*`])
    app.route({
      method: ['GET', 'HEAD'],
      url,
      handler,
      errorHandler,
      onSend,
      config: { challengeScope: 'read:program read:financial read:workforce read:pii' },
    });
}
