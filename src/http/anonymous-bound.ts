import type { FastifyInstance } from 'fastify';
import { ADDRESS_BOUNDS, AddressWindows, type AddressBoundName } from '../address-bounds.js';
import { ApiError } from '../errors.js';
import { carriesUrlKey } from '../odata/credentials.js';

/** Small, and what an operator or a load balancer asks to know how the instance is. */
const EXEMPT = new Set(['/healthz', '/metrics']);

/**
 * Requests without a credential (DESIGN §4.16): discovery documents, the page and its files, the
 * sign-in pages, /openapi.json and /docs, 401s. Anyone on the internet may make them, so each
 * client address may make at most `perMinute` of them a minute (VMS_READ_ANONYMOUS_PER_MINUTE,
 * 0: no bound); past it, 429 with Retry-After and the connection closed, before any work. No
 * address without a credential takes more than that share of the server; a request with a token
 * (in its Authorization header, or the OData feed's `api_key`) is bounded by its quota instead.
 */
export function installAnonymousBound(
  app: FastifyInstance,
  perMinute: number = ADDRESS_BOUNDS.requestsWithoutCredential.limit,
  refused?: (bound: AddressBoundName) => void,
): void {
  if (perMinute === 0) return;
  const windows = new AddressWindows('requestsWithoutCredential', perMinute, refused);
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization !== undefined || carriesUrlKey(request.url)) return;
    if (EXEMPT.has(request.url.split('?')[0])) return;
    const wait = await windows.take(request.clientAddress);
    if (wait === 0) return;
    throw new ApiError(
      'rate_limited',
      { 'retry-after': String(wait), connection: 'close' },
      'Too many requests without a credential from this address; retry after Retry-After seconds.',
    );
  });
}
