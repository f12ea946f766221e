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

/** Starts the send bound on an answer being written (routes that write the raw response call it). */
export type WatchAnswer = (request: FastifyRequest, reply: FastifyReply) => void;

export function installSlowReaderLimits(
  app: FastifyInstance,
  limits: SlowReaderLimits,
): WatchAnswer {
  /** Connections whose answer is still being handed over. */
  const sending = new Set<Socket>();
  const unsent = () => {
    let bytes = 0;
    for (const socket of sending) bytes += socket.writableLength;
    return bytes;
  };

  app.addHook('onRequest', async (request, reply) => {
    if (
      sending.size > 0 &&
      !EXEMPT.has(request.url.split('?')[0]) &&
      unsent() > limits.unsentBytes
    ) {
      reply.header('connection', 'close');
      throw new ApiError('unavailable', { 'retry-after': '1' });
    }
  });

  /** Per connection: requests asked on it so far, and those not yet handed over in full. */
  const connections = new WeakMap<Socket, { asked: number; open: number }>();
  const stateOf = (socket: Socket) => {
    let state = connections.get(socket);
    if (!state) connections.set(socket, (state = { asked: 0, open: 0 }));
    return state;
  };
  app.addHook('onRequest', async (request) => {
    if (request.raw.socket) stateOf(request.raw.socket).asked++;
  });

  const watch: WatchAnswer = (request, reply) => {
    const response = reply.raw;
    const socket = request.raw.socket;
    // Only a real connection: an injected request (tests, `app.inject`) has a stand-in socket
    // with no bytes in flight to bound.
    if (!(socket instanceof Socket) || response.writableFinished) return;
    const state = stateOf(socket);
    const asked = state.asked;
    state.open++;
    sending.add(socket);
    // Handed to the connection is not read by the client: the system's buffers take a large
    // answer whole. So the bound holds until the client asks again on the connection or closes
    // it: past `sendMs` with neither, the connection is closed and what is left unread dropped.
    const timer = setTimeout(() => {
      if (!response.writableFinished || (state.asked === asked && state.open === 0))
        socket.destroy();
    }, limits.sendMs);
    timer.unref();
    let handed = false;
    const handedOver = () => {
      if (handed) return;
      handed = true;
      state.open--;
      sending.delete(socket);
    };
    response.once('finish', handedOver);
    response.once('close', handedOver);
    socket.once('close', () => clearTimeout(timer));
  };
  app.addHook('onSend', async (request, reply) => watch(request, reply));
  return watch;
}
