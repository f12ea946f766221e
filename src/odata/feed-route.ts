import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { AnyOperation } from '../operations/operation.js';
import type { Executor } from '../operations/executor.js';
import { credentialOf } from './credentials.js';
import {
  METRICS_OPERATION,
  SAVED_QUERY_OPERATION,
  savedQueryOperation,
  METADATA_OPERATION,
  SERVICE_DOCUMENT_OPERATION,
  SET_OPERATIONS,
  type FeedData,
} from './feed-operations.js';
import { parseResourcePath, type ResourcePath } from './request-path.js';
import { loadFilterGrammar } from './filter-expression.js';
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
import { metadataJson, metadataXml, modelOf, serviceDocument } from './service-model.js';
import { checkReportAccess, isReportSetName, reportPage } from './report-answers.js';
import { METRICS_SET } from './report-sets.js';
import { versionOf } from './feed-headers.js';
import { MAX_PAGE_BYTES, PageCache } from './page-cache.js';
import { answerResource, JSON_TYPE } from './resource-answers.js';

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

const ENTITY_OPTIONS: OptionName[] = ['$select', '$expand', '$format'];

function operationOf(path: ResourcePath): AnyOperation {
  if (path.kind === 'service') return SERVICE_DOCUMENT_OPERATION;
  if (path.kind === 'metadata') return METADATA_OPERATION;
  const operation = SET_OPERATIONS.get(path.set);
  if (operation) return operation;
  if (path.set === METRICS_SET) return METRICS_OPERATION;
  if (isReportSetName(path.set)) return savedQueryOperation(path.set);
  throw new ODataError('not_found', 'No such resource in this service.');
}

export function mountODataFeed(app: FastifyInstance, deps: FeedMount): void {
  const { executor } = deps;
  const pages = new PageCache(executor.deps.readResults.enabled);
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
    // Saved queries' sets are counted under one name: metrics' labels are a closed set.
    deps.meter(
      request,
      operation.name.startsWith('odata:SavedQuery_') ? SAVED_QUERY_OPERATION : operation,
    );
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
    // The grammar loads with a process's first $filter or $orderby (filter-expression.ts).
    if (options.$filter !== undefined || options.$orderby !== undefined) await loadFilterGrammar();
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
        serviceDocument(base, await modelOf(executor, principal)),
      );
    }
    if (path.kind === 'metadata') {
      seen.input = {};
      const format = formatOption(options.$format, true);
      const accept = String(request.headers.accept ?? '');
      const json =
        format === 'json' ||
        (format === null && /application\/json/i.test(accept) && !/application\/xml/i.test(accept));
      const model = await modelOf(executor, principal);
      return json
        ? send('application/json;charset=utf-8', metadataJson(model))
        : send('application/xml;charset=utf-8', metadataXml(model));
    }
    if (isReportSetName(path.set)) {
      checkReportAccess(path.set, principal);
      if (path.kind !== 'collection' || path.count)
        throw notOffered('A report set is read as a whole collection.');
      const reportSet = (await modelOf(executor, principal)).reports.find(
        (s) => s.name === path.set,
      );
      if (!reportSet) throw new ODataError('not_found', 'No such resource in this service.');
      const page = await reportPage(
        executor,
        principal,
        reportSet,
        options,
        base,
        request.receivedAt,
      );
      seen.input = page.input;
      return send(JSON_TYPE, page.body);
    }
    // A page asked again while the store is unchanged is sent as it was written (page-cache.ts).
    const pageKey = pages.keyOf(principal, [
      pathText,
      query.replace(/(^|&)api_key=[^&]*/g, ''),
      version,
      request.headers.prefer ?? null,
      request.method,
    ]);
    const kept = pageKey === null ? undefined : pages.get(pageKey);
    if (kept) {
      seen.input = kept.input;
      seen.data = { revealed: kept.revealed };
      deps.writeHead(request, reply, {
        ...kept.headers,
        'content-length': String(kept.body.length),
      });
      reply.raw.end(request.method === 'HEAD' ? undefined : kept.body);
      return reply;
    }
    const copied: string[] = [];
    let copiedBytes = 0;
    const answered = await answerResource({
      executor,
      request,
      reply,
      path,
      principal,
      options,
      base,
      version,
      seen,
      open: () => deps.writeHead(request, reply, { 'content-type': JSON_TYPE }),
      copy:
        pageKey === null
          ? undefined
          : (text) => {
              copiedBytes += text.length;
              if (copiedBytes <= MAX_PAGE_BYTES) copied.push(text);
            },
    });
    if (
      pageKey !== null &&
      copiedBytes <= MAX_PAGE_BYTES &&
      copied.length > 0 &&
      reply.raw.headersSent
    ) {
      const headers: Record<string, string> = { 'content-type': JSON_TYPE };
      const applied = reply.getHeader('preference-applied');
      if (typeof applied === 'string') headers['preference-applied'] = applied;
      pages.offer(pageKey, {
        body: Buffer.from(copied.join('')),
        headers,
        input: seen.input,
        revealed: seen.data?.revealed ?? [],
      });
    }
    return answered;
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
