import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, ERRORS, type ErrorCode } from '../errors.js';

/** Node's parser errors for a request that never became one, by the answer each gets. */
function reasonOf(error: { code?: string }): ErrorCode {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'header_too_large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'bad_request';
}

/**
 * Answers malformed HTTP (a bad request line, oversized headers, a request not received in time)
 * with the error shape of every other answer (DESIGN §4.1), request id included, then closes the
 * connection: Fastify never sees these requests, so its hooks and error handler cannot.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const reason = reasonOf(error);
    const { status } = ERRORS[reason];
    const requestId = randomUUID();
    const body = JSON.stringify(errorBody(reason, requestId));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'cache-control: no-store\r\n' +
        'x-content-type-options: nosniff\r\n' +
        'connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
