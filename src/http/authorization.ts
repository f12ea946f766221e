import type { FastifyRequest } from 'fastify';

/**
 * The request's one `Authorization` header. Node keeps only the first of repeated Authorization
 * headers, so they are counted in the raw list: two are a malformed credential (DESIGN §4.2, 401),
 * never a choice between tokens.
 */
export function authorizationOf(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length !== 13 || raw[i].toLowerCase() !== 'authorization') continue;
    if (value !== undefined) return undefined;
    value = raw[i + 1];
  }
  return value;
}
