import type { FastifyRequest } from 'fastify';

/**
 * The request's one `Authorization` header, or undefined when it carries none (discovery: DESIGN
 * §4.16, never a failed authentication). Node keeps only the first of repeated Authorization
 * headers, so they are counted in the raw list: two are a malformed credential that was
 * presented (DESIGN §4.2, 401), given as '' (which no token matches), never a choice between them.
 */
export function authorizationOf(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length !== 13 || raw[i].toLowerCase() !== 'authorization') continue;
    if (value !== undefined) return '';
    value = raw[i + 1];
  }
  return value;
}
