import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WatchAnswer } from './slow-readers.js';

/**
 * Hands the answer to the raw response, written there by a route or the MCP SDK's transport:
 * headers set by hooks (CORS) go on it, with `head` when given; hijacked, no onSend hook sees the
 * answer, so its send bound starts here. Fastify still logs and counts it when it is sent. An
 * answer of `bytes` its client may not hold (slow-readers.ts) throws before anything is written.
 */
export function writeRaw(
  request: FastifyRequest,
  reply: FastifyReply,
  watchAnswer: WatchAnswer,
  head?: Record<string, string | number>,
  bytes?: number,
): void {
  watchAnswer(request, reply, bytes);
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value);
  // Headers first: should writing them fail, Fastify still owns the reply and answers the error.
  if (head) reply.raw.writeHead(200, head);
  reply.hijack();
}

/** Below this many bytes one copy into a single buffer costs less than a write per part. */
const GATHER_BELOW = 16 * 1024;

/**
 * A 200 answer of `parts` written one after the other (one writev), none of them copied: a
 * cached report of 100 kB was copied into a new buffer on every send, and those copies were
 * most of a repeat's garbage (issue 23). A small answer is gathered into one buffer instead.
 * A HEAD gets the headers alone, with the length the body would have.
 */
export function sendParts(
  request: FastifyRequest,
  reply: FastifyReply,
  watchAnswer: WatchAnswer,
  contentType: string,
  parts: readonly Buffer[],
): void {
  let length = 0;
  for (const part of parts) length += part.length;
  const head = { 'content-type': contentType, 'content-length': length };
  writeRaw(request, reply, watchAnswer, head, request.method === 'HEAD' ? 0 : length);
  const raw = reply.raw;
  if (request.method === 'HEAD') raw.end();
  else if (length < GATHER_BELOW) raw.end(Buffer.concat(parts as Buffer[], length));
  else {
    raw.cork();
    for (const part of parts) raw.write(part);
    raw.uncork();
    raw.end();
  }
}
