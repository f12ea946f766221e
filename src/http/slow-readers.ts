import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * Clients that do not read their answers (issue 21): an answer's bytes wait in this process
 * until the client takes them, and a client that reads a byte a second keeps its connection busy
 * forever. Two bounds:
 *
 * - an answer not handed in full to the connection within `sendMs` of its start is abandoned
 *   and its connection closed (the bytes it held freed);
 * - while answers not yet taken by their clients hold more than `unsentBytes` in all, a new
 *   request is answered at once 503 `unavailable` with Retry-After, before any work (no answer
 *   built, no memory taken), and its connection closed. `/healthz` and `/metrics` are exempt:
 *   they are small and say how the instance is.
 */
export interface SlowReaderLimits {
  /** VMS_READ_SEND_TIMEOUT_MS, default 30 s. */
  sendMs: number;
  /** VMS_READ_UNSENT_MB × 2^20, default 64 MB. */
  unsentBytes: number;
}

export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
export const DEFAULT_UNSENT_MB = 64;

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
}

/** Starts the send bound on an answer being written (routes that write the raw response call it). */
export type WatchAnswer = (request: FastifyRequest, reply: FastifyReply) => void;

/** The bound's watch, and how many connections it counts as still handing an answer over. */
export type SlowReaderWatch = WatchAnswer & { sending(): number };

export function installSlowReaderLimits(
  app: FastifyInstance,
  limits: SlowReaderLimits,
): SlowReaderWatch {
  /** Connections whose answer is still being handed over. */
  const sending = new Set<Socket>();
  const unsent = () => {
    let bytes = 0;
    for (const socket of sending) bytes += socket.writableLength;
    return bytes;
  };

  const unsentOverLimit = (request: FastifyRequest) =>
    sending.size > 0 && unsent() > limits.unsentBytes && !EXEMPT.has(request.url.split('?')[0]);

  /**
   * Per connection: requests asked on it so far, answers not yet handed over in full, and the
   * bounds still running on its answers. One `close` listener per connection, not one per
   * answer: a keep-alive connection carries thousands of answers.
   */
  const connections = new WeakMap<Socket, Connection>();
  const stateOf = (socket: Socket) => {
    let state = connections.get(socket);
    if (!state) {
      const created: Connection = { asked: 0, open: 0, bounds: new Set() };
      connections.set(socket, (state = created));
      socket.once('close', () => {
        for (const bound of created.bounds) clearTimeout(bound.timer);
        created.bounds.clear();
      });
    }
    return state;
  };
  // One hook, taking a callback (no promise per request): first the bound on what waits
  // unsent, then the count of requests asked on the connection.
  app.addHook('onRequest', (request, reply, done) => {
    if (unsentOverLimit(request)) {
      reply.header('connection', 'close');
      done(new ApiError('unavailable', { 'retry-after': '1' }));
      return;
    }
    const socket = request.raw.socket;
    if (socket instanceof Socket) {
      const state = stateOf(socket);
      state.asked++;
      // The client asked again: the bounds on answers already handed over are met.
      for (const bound of state.bounds)
        if (bound.handed) {
          clearTimeout(bound.timer);
          state.bounds.delete(bound);
        }
    }
    done();
  });

  const watch: WatchAnswer = (request, reply) => {
    const response = reply.raw;
    const socket = request.raw.socket;
    // Only a real connection: an injected request (tests, `app.inject`) has a stand-in socket
    // with no bytes in flight to bound. And only an answer that can still be sent: a response
    // closed before its answer was ready (the client went away while a report ran) emits no
    // more `close`, so it would be counted as sending for ever.
    if (!(socket instanceof Socket) || response.writableFinished || response.destroyed) return;
    const state = stateOf(socket);
    const asked = state.asked;
    state.open++;
    sending.add(socket);
    // Handed to the connection is not read by the client: the system's buffers take a large
    // answer whole. So the bound holds until the client asks again on the connection or closes
    // it: past `sendMs` with neither, the connection is closed and what is left unread dropped.
    const bound: Bound = {
      handed: false,
      timer: setTimeout(() => {
        state.bounds.delete(bound);
        if (!response.writableFinished || (state.asked === asked && state.open === 0))
          socket.destroy();
      }, limits.sendMs),
    };
    bound.timer.unref();
    state.bounds.add(bound);
    const handedOver = () => {
      if (bound.handed) return;
      bound.handed = true;
      state.open--;
      if (state.open === 0) sending.delete(socket);
    };
    response.once('finish', handedOver);
    response.once('close', handedOver);
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    watch(request, reply);
    done(null, payload);
  });
  return Object.assign(watch, { sending: () => sending.size });
}
