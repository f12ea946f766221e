import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import {
  DEFAULT_UNREAD_LIMITS,
  UnreadShares,
  type Pending,
  type UnreadLimits,
} from './unread-shares.js';

/**
 * Clients that do not read their answers (issues 21 and 35): an answer's bytes wait in this
 * process until the client takes them, and a client that reads a byte a second keeps its
 * connection busy for ever. Two bounds:
 *
 * - an answer not handed in full to the connection within `sendMs` of its start is abandoned
 *   and its connection closed (the bytes it held freed);
 * - what each client holds unread, counted from each request's arrival (unread-shares.ts): a
 *   request past its client's share is answered at once, before any work, 429 `rate_limited`
 *   (its own bound) or 503 `unavailable` (its share of a full server), with Retry-After, and its
 *   connection closed. `/healthz` and `/metrics` are neither counted nor refused: they are small
 *   and say how the instance is.
 */
export interface SlowReaderLimits extends UnreadLimits {
  /** VMS_READ_SEND_TIMEOUT_MS, default 30 s. */
  sendMs: number;
}

export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
export const DEFAULT_SLOW_READER_LIMITS: SlowReaderLimits = {
  sendMs: DEFAULT_SEND_TIMEOUT_MS,
  ...DEFAULT_UNREAD_LIMITS,
};

const EXEMPT = new Set(['/healthz', '/metrics']);

/** The send bound on one answer. */
interface Bound {
  timer: NodeJS.Timeout;
  /** The answer was handed to the connection in full (or the connection closed). */
  handed: boolean;
}

interface Connection {
  asked: number;
  open: number;
  bounds: Set<Bound>;
  /** Requests admitted on it whose answers are not handed over yet. */
  unanswered: number;
}

/** A request on a real connection: its count against its client, its answer's bound. */
interface Exchange {
  connection: Connection;
  pending: Pending | null;
  bound: Bound | null;
  over: boolean;
}

const EXCHANGE = Symbol('vms-read exchange');
type Tracked = IncomingMessage & { [EXCHANGE]?: Exchange };

/**
 * Starts the send bound on an answer being written (routes that write the raw response call it),
 * once `bytes` (its size, when known) is checked against what its client may still hold: a
 * client already holding unread answers that this one would take past its share is refused
 * (throws 429 `rate_limited`), the answer dropped unsent.
 */
export type WatchAnswer = (request: FastifyRequest, reply: FastifyReply, bytes?: number) => void;

/** The bound's watch, and how many requests it counts as not yet answered in full. */
export type SlowReaderWatch = WatchAnswer & { pending(): number };

/**
 * Whose share a request counts against: its token on the routes that check one (the API and
 * MCP), its address elsewhere and without a token (so that made-up tokens buy no share of the
 * open routes).
 */
function clientOf(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  const path = request.routeOptions.url;
  if (authorization && path !== undefined && (path.startsWith('/api/') || path === '/mcp'))
    return `token ${authorization}`;
  return `address ${request.clientAddress}`;
}

export function installSlowReaderLimits(
  app: FastifyInstance,
  given: Partial<SlowReaderLimits> = {},
): SlowReaderWatch {
  const limits = { ...DEFAULT_SLOW_READER_LIMITS, ...given };
  const shares = new UnreadShares(limits);
  /**
   * Per connection: requests asked on it so far, answers not yet handed over in full, and the
   * bounds still running on its answers. One `close` listener per connection, not one per
   * answer: a keep-alive connection carries thousands of answers.
   */
  const connections = new WeakMap<Socket, Connection>();
  const stateOf = (socket: Socket) => {
    let state = connections.get(socket);
    if (!state) {
      const created: Connection = { asked: 0, open: 0, bounds: new Set(), unanswered: 0 };
      connections.set(socket, (state = created));
      socket.once('close', () => {
        for (const bound of created.bounds) clearTimeout(bound.timer);
        created.bounds.clear();
      });
    }
    return state;
  };

  /** The answer was handed over in full, or its connection closed: its counts end. */
  const over = (exchange: Exchange) => {
    if (exchange.over) return;
    exchange.over = true;
    if (exchange.pending) {
      shares.release(exchange.pending);
      exchange.connection.unanswered--;
    }
    const { bound, connection } = exchange;
    if (bound && !bound.handed) {
      bound.handed = true;
      connection.open--;
    }
  };

  // One hook, taking a callback (no promise per request): the count against the client first,
  // then the count of requests asked on the connection.
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    // Only a real connection: an injected request (tests, `app.inject`) has a stand-in socket
    // with no bytes in flight to bound.
    if (!(socket instanceof Socket)) return done();
    const connection = stateOf(socket);
    const exchange: Exchange = { connection, pending: null, bound: null, over: false };
    if (!EXEMPT.has(request.url.split('?')[0])) {
      const admitted = shares.admit(clientOf(request), reply.raw, connection.unanswered > 0);
      if (typeof admitted === 'string') {
        reply.header('connection', 'close');
        done(new ApiError(admitted, { 'retry-after': '1' }));
        return;
      }
      exchange.pending = admitted;
      connection.unanswered++;
    }
    (request.raw as Tracked)[EXCHANGE] = exchange;
    const end = () => over(exchange);
    reply.raw.once('finish', end);
    reply.raw.once('close', end);
    connection.asked++;
    // The client asked again: the bounds on answers already handed over are met.
    for (const bound of connection.bounds)
      if (bound.handed) {
        clearTimeout(bound.timer);
        connection.bounds.delete(bound);
      }
    done();
  });

  const watch: WatchAnswer = (request, reply, bytes) => {
    const response = reply.raw;
    const socket = request.raw.socket;
    const exchange = (request.raw as Tracked)[EXCHANGE];
    // An answer that can no longer be sent is not watched: a response closed before its answer
    // was ready (the client went away while a report ran) emits no more `close`.
    if (!exchange || !(socket instanceof Socket) || exchange.over || exchange.bound) return;
    if (response.writableFinished || response.destroyed) return;
    // An error answer is small and never refused (refusing it would answer another error).
    const checked = exchange.pending && bytes !== undefined && reply.statusCode < 400;
    if (checked && !shares.fits(exchange.pending as Pending, bytes)) {
      reply.header('connection', 'close');
      throw new ApiError('unread_answers', { 'retry-after': '1' });
    }
    const { connection } = exchange;
    const asked = connection.asked;
    connection.open++;
    // Handed to the connection is not read by the client: the system's buffers take a large
    // answer whole. So the bound holds until the client asks again on the connection or closes
    // it: past `sendMs` with neither, the connection is closed and what is left unread dropped.
    const bound: Bound = {
      handed: false,
      timer: setTimeout(() => {
        connection.bounds.delete(bound);
        if (!response.writableFinished || (connection.asked === asked && connection.open === 0))
          socket.destroy();
      }, limits.sendMs),
    };
    bound.timer.unref();
    connection.bounds.add(bound);
    exchange.bound = bound;
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    try {
      watch(request, reply, sizeOf(payload));
    } catch (error) {
      done(error as ApiError);
      return;
    }
    done(null, payload);
  });
  return Object.assign(watch, { pending: () => shares.size });
}

/** An answer's size in bytes when Fastify holds it whole; undefined for a stream. */
function sizeOf(payload: unknown): number | undefined {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  if (Buffer.isBuffer(payload)) return payload.length;
  return undefined;
}
