import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The web page for people (web/, built into dist/web/ by `npm run build`): `GET /` and `GET /app`
 * answer its one HTML page, `/app/assets/*` its script and style sheet. It signs in with a pasted
 * token and calls the same API as anyone; nothing on the server knows it is there. A strict
 * Content-Security-Policy: no inline script or style, nothing from another origin.
 */
export const WEB_PATHS = ['/', '/app'] as const;

/** dist/web, beside dist/src where this module is compiled. */
const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': WEB_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The page holds no data (it reads it from the API, whose answers are no-store): revalidated.
  'cache-control': 'no-cache',
};

export async function mountWebApp(app: FastifyInstance): Promise<void> {
  const index = `${WEB_ROOT}index.html`;
  // Not built (a checkout that ran tsc alone): the API serves on, without the page.
  if (!existsSync(index)) return;
  const page = readFileSync(index, 'utf8');
  for (const path of WEB_PATHS)
    app.get(path, (_request, reply) =>
      reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page),
    );
  await app.register(fastifyStatic, {
    root: `${WEB_ROOT}assets`,
    prefix: '/app/assets/',
    decorateReply: false,
    index: false,
    setHeaders: (response) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    },
  });
}
