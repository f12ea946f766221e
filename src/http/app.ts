import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Logger } from 'pino';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { monotonicNow, turnStart, withDeadline } from '../deadline.js';
import { ApiError, errorBody } from '../errors.js';
import { mountMcpHttp } from './mcp-route.js';
import { toolsetOf } from '../mcp/tools.js';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';
import { parseQueryString } from '../operations/query-string.js';
import type { StoreLifecycle } from '../store/store.js';
import { answerClientError } from './client-errors.js';
import { installCors } from './cors.js';
import { errorAnswer, installErrorHandling } from './error-handling.js';
import { installJsonBodyParser } from './json-body.js';
import { installMetrics } from './metrics-route.js';
import { mountOpenApi } from './openapi/route.js';
import { mountResourceMetadata } from './resource-metadata.js';
import { mountOperation } from './routes.js';
import { mountWebApp } from './web-app.js';
import { serverOrigin, type OriginConfig, type ServerOrigin } from './server-origin.js';
import { WEB_CLIENT_ID } from '../auth/own-tokens.js';
import type { AuthorizationServerMount } from '../oauth-server/mount.js';
import { installSlowReaderLimits, type SlowReaderLimits } from './slow-readers.js';
import type { AddressBoundName } from '../address-bounds.js';
import { installAnonymousBound } from './anonymous-bound.js';
import { installAnswerTrail } from './answer-trail.js';
import { installClientAddress } from './client-address.js';
import { mountODataFeed } from '../odata/feed-route.js';
import { authorizationOf } from './authorization.js';
import { writeRaw } from './raw-answer.js';

export interface AppDeps {
  executor: Executor;
  operations: readonly AnyOperation[];
  store: StoreLifecycle;
  /** Pino options, a logger, or false for none (tests). */
  logger?: boolean | Record<string, unknown> | FastifyBaseLogger;
  /** The server's own origin, and the browser origins allowed on /mcp and answered by CORS. */
  origins: OriginConfig;
  /** Bounds on answers clients do not read (slow-readers.ts); defaults where absent. */
  slowReaders?: Partial<SlowReaderLimits>;
  /** The authorization servers whose tokens are accepted, as the resource metadata lists them. */
  authorizationServers?: (origin: ServerOrigin) => readonly string[];
  /** The built-in authorization server, mounted at this origin when given (DESIGN §4.12). */
  authorizationServer?: Omit<
    AuthorizationServerMount,
    'issuer' | 'resources' | 'pages' | 'clientAddress' | 'failures' | 'refusedByAddress'
  >;
  /**
   * The proxies whose X-Forwarded-For (or Forwarded) is believed (VMS_READ_TRUSTED_PROXIES:
   * addresses and CIDR ranges); empty, those headers are ignored (client-address.ts).
   */
  trustedProxies?: readonly string[];
  /** Requests without a credential one address may make a minute (VMS_READ_ANONYMOUS_PER_MINUTE). */
  anonymousPerMinute?: number;
  /** The organisation's authorization server the page signs in with (VMS_READ_WEB_ISSUER). */
  webSignIn?: { issuer: string; clientId: string };
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Shuts down (SIGTERM): answers new requests 503 (connection: close), keeps accepting until
     * no connection came for 40 ms (so none that reached the server is reset), then stops
     * accepting, closes idle connections, lets requests in flight finish (all within `drainMs`),
     * and closes every connection left, a half-sent request's included.
     */
    drainAndClose(drainMs: number): Promise<void>;
  }
}

/** DESIGN §4.1: a request body over 1 MiB is 413 `payload_too_large`, on /api and /mcp alike. */
export const BODY_LIMIT = 1024 * 1024;
/** A client has this long to send its headers, and the whole request, or the connection drops. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** How long the listener must see no new connection before a drain closes it (drainAndClose). */
const QUIET_MS = 40;
/**
 * How long a drain waits, after that, for a connection accepted before it to send its first
 * request (a client connects, then writes: on a busy machine its write may come later than the
 * quiet wait). A connection that sends nothing is closed at the end of it.
 */
const FIRST_REQUEST_GRACE_MS = 1000;

/** /healthz answers 503 within 2 s while the store does not answer (README, DESIGN §4.1). */
const HEALTH_DEADLINE_MS = 1500;

/**
 * Headers on every answer (DESIGN §4.1 and issue 21): answers carry personal and financial
 * records, so no cache, shared or private, keeps them; and no browser guesses a type other than
 * the one sent. The page, its assets and the API reference allow revalidated caching instead.
 */
export const ANSWER_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
const ANSWER_HEADER_LIST = Object.entries(ANSWER_HEADERS);

/**
 * A path as the log may show it: a segment shaped like a token (`vmsr_…`) or like any long opaque
 * value (a token or cursor pasted into a path) is replaced, so none reaches a log line.
 */
export function loggablePath(path: string): string {
  return path
    .split('/')
    .map((segment) =>
      /vmsr_/i.test(segment) || /^[A-Za-z0-9_%.~-]{33,}$/.test(segment) ? '[redacted]' : segment,
    )
    .join('/');
}

/** One JSON log line per request, when it completes, carrying its request_id. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(
    error: Error | null,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    // At LOG_LEVEL=warn and above a served request writes nothing: build no line for it.
    if (
      !error &&
      (reply.log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.('info') === false
    )
      return;
    const line = {
      method: request.method,
      // A route's own pattern, or the path asked for, with anything token-shaped left out.
      path: request.routeOptions.url ?? loggablePath(request.url.split('?')[0]),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}

/** Builds the HTTP server without listening: tests inject requests, the CLI listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    genReqId: () => randomUUID(),
    logController: new OneLinePerRequest({ requestIdLogLabel: 'request_id' }),
    bodyLimit: BODY_LIMIT,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Node checks the timeouts above every connectionsCheckingInterval (30 s by default). A
    // request without Host is answered by the hook below, in the error shape, not by Node's
    // bare 400.
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
      requireHostHeader: false,
    },
    clientErrorHandler: answerClientError,
    // A path Fastify cannot decode never reaches a route or hook: answer it here, in our shape
    // (with no body to a HEAD, which no onSend hook strips here).
    frameworkErrors: (_error, request, reply: FastifyReply) =>
      reply
        .header('x-request-id', request.id)
        .headers(ANSWER_HEADERS)
        .code(404)
        .send(request.method === 'HEAD' ? '' : errorBody('not_found', request.id)),
    routerOptions: { querystringParser: parseQueryString },
    // While draining, new requests get this service's own 503 (below), not Fastify's body.
    return503OnClosing: false,
    // drainAndClose closes connections itself, once those that reached the server are answered.
    forceCloseConnections: false,
  });

  // The client's address, decided once per request (trusted proxies), for every bound per address.
  const clientAddress = installClientAddress(app, deps.trustedProxies ?? []);

  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | null = null;
  // The app's own hooks take a callback rather than return a promise: each request passes
  // through them, and a promise per hook per request showed in the profile (issue 23).
  app.addHook('onRequest', (request, reply, done) => {
    // From the start of the event loop's turn that read it off its connection: time spent
    // behind the requests read before it in the same turn counts against its limits
    // (turnStart). An injected request (in process: the warm-up, tests) was read off nothing,
    // and its own callbacks can chain for long without the loop turning: its clock starts now.
    request.receivedAt = request.raw.socket instanceof Socket ? turnStart() : monotonicNow();
    // On the raw response, so that answers written by the MCP transport carry them too.
    const raw = reply.raw;
    raw.setHeader('x-request-id', request.id);
    for (const [name, value] of ANSWER_HEADER_LIST) raw.setHeader(name, value);
    // HTTP/1.1 requires Host (RFC 9112 §3.2): without one, a 400 in the error shape.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      done(new ApiError('bad_request'));
    else done();
  });
  // Before CORS: a preflight is a request without a credential too.
  const metrics = deps.executor.deps.metrics;
  const refusedByAddress = metrics && ((bound: AddressBoundName) => metrics.addressRefused(bound));
  installAnonymousBound(app, deps.anonymousPerMinute, refusedByAddress);
  // Preflights are answered here, before the token and the quota; every later refusal (503
  // below, 401, 429, 404) to a listed origin carries the CORS headers set here.
  await installCors(app, deps.origins.allowedOrigins);
  const answered = () => {
    if (--inFlight === 0) drained?.();
  };
  app.addHook('onRequest', (_request, reply, done) => {
    if (closing) {
      reply.header('connection', 'close');
      done(new ApiError('shutting_down'));
      return;
    }
    inFlight++;
    reply.raw.once('close', answered);
    done();
  });

  const watchAnswer = installSlowReaderLimits(app, deps.slowReaders);
  installJsonBodyParser(app);
  const origin = serverOrigin(app, deps.origins);
  const answer = errorAnswer(origin);
  installErrorHandling(app, answer);
  installMetrics(app, deps.executor.deps.metrics);
  installAnswerTrail(app, deps.executor);

  app.get('/healthz', async () => {
    const ready = await withDeadline(
      deps.store.ping(),
      HEALTH_DEADLINE_MS,
      () => new Error(),
    ).catch(() => false);
    if (!ready) throw new ApiError('unavailable');
    return { status: 'ok' };
  });

  mountResourceMetadata(app, origin, deps.authorizationServers ?? (() => []));
  // oidc-provider and what it brings (a third of a second of a start) load only for a server
  // that mounts its own authorization server.
  if (deps.authorizationServer) {
    const { mountAuthorizationServer } = await import('../oauth-server/mount.js');
    await mountAuthorizationServer(app, {
      ...deps.authorizationServer,
      failures: deps.executor.failures,
      refusedByAddress,
      clientAddress,
      issuer: () => origin.resource(),
      resources: () => origin.resources(),
      pages: () =>
        origin
          .resources()
          .filter((resource) => !resource.endsWith('/mcp'))
          .map((resource) => `${resource}/app`),
    });
  }
  await mountOpenApi(app, deps.operations);
  await mountWebApp(
    app,
    () => {
      const resource = origin.resource();
      const page = `${resource}/app`;
      if (deps.webSignIn) return { ...deps.webSignIn, resource, page, demoAccounts: [] };
      if (deps.authorizationServer)
        return {
          issuer: resource,
          clientId: WEB_CLIENT_ID,
          resource,
          page,
          demoAccounts: (deps.authorizationServer.demoAccounts ?? []).map((a) => a.label),
        };
      return { issuer: null, clientId: null, resource, page, demoAccounts: [] };
    },
    deps.webSignIn?.issuer,
  );
  for (const operation of deps.operations)
    mountOperation(app, deps.executor, operation, watchAnswer);
  mountODataFeed(app, {
    executor: deps.executor,
    base: (request) => `${origin.ownFor(request.headers.host)}/odata/v4/`,
    authorizationOf,
    writeHead: (request, reply, head) => writeRaw(request, reply, watchAnswer, head),
    meter: (request, operation) => {
      const meters = metrics?.requestMeters(operation.name, 'rest');
      if (meters) request.meters = meters;
    },
    errorAnswer: answer,
  });
  mountMcpHttp(app, deps.executor, toolsetOf(deps.operations), {
    origin,
    errorAnswer: answer,
    watchAnswer,
  });

  // Connections accepted so far: the drain keeps listening until none came for a while. Those
  // that have not yet begun a request: the drain gives them a moment to send it.
  let connections = 0;
  const waiting = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections++;
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
  });
  app.server.on('request', (request: IncomingMessage) => {
    waiting.delete(request.socket);
  });

  app.decorate('drainAndClose', async (drainMs: number) => {
    closing = true;
    const deadline = monotonicNow() + drainMs;
    // Connections that reached the server just before the signal, some still in the kernel's
    // listen backlog, would be reset by closing the listener under them: it stays open until no
    // connection has come for QUIET_MS, each request meanwhile answered 503 (connection: close).
    // Counted in turns of the event loop too: a turn blocked by a long request accepts nothing.
    let quietSince = monotonicNow();
    let seen = connections;
    let quietTurns = 0;
    while (monotonicNow() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS / 4));
      // After the timer, a poll phase (where connections are accepted and read), then this.
      await new Promise((resolve) => setImmediate(resolve));
      if (connections !== seen) {
        seen = connections;
        quietSince = monotonicNow();
        quietTurns = 0;
      } else if (++quietTurns >= 2 && monotonicNow() - quietSince >= QUIET_MS) break;
    }
    const closed = app.close();
    // A connection accepted before the listener closed whose request has not come yet (or has
    // come in part: the grace bounds it) has until the grace ends to begin it; each is answered.
    const graceEnds = Math.min(deadline, monotonicNow() + FIRST_REQUEST_GRACE_MS);
    while (waiting.size > 0 && monotonicNow() < graceEnds)
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS / 4));
    // Keep-alive connections with nothing in flight: closed now (any request they had sent was read
    // and answered meanwhile).
    app.server.closeIdleConnections();
    if (inFlight > 0) {
      await new Promise<void>((resolve) => {
        drained = resolve;
        setTimeout(resolve, Math.max(0, deadline - monotonicNow())).unref();
      });
    }
    app.server.closeAllConnections();
    await closed;
  });
  return app;
}
