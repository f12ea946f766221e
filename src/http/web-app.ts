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

/** The page's policy; `connect` adds the origin of an organisation's authorization server. */
export function webCsp(connect: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ['connect-src', "'self'", ...connect].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** How the page signs people in (GET /app/sign-in.json; web/src/sign-in/). */
export interface WebSignIn {
  /** The authorization server the page signs in with, or null (access keys only). */
  issuer: string | null;
  /** The page's client id there. */
  clientId: string | null;
  /** The API's resource identifier (the `resource` the page asks a token for). */
  resource: string;
  /** The page's own address at this server, where sign-in comes back to. */
  page: string;
  /**
   * The accounts the built-in server's sign-in page offers one click away (`vms-read demo`), by
   * their labels; none elsewhere.
   */
  demoAccounts: string[];
}

const securityHeaders = (csp: string) => ({
  'content-security-policy': csp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The page holds no data (it reads it from the API, whose answers are no-store): revalidated.
  'cache-control': 'no-cache',
});

export async function mountWebApp(
  app: FastifyInstance,
  signIn: () => WebSignIn,
  /** An organisation's authorization server the page calls (its token endpoint): its origin. */
  externalIssuer?: string,
): Promise<void> {
  const index = `${WEB_ROOT}index.html`;
  // Not built (a checkout that ran tsc alone): the API serves on, without the page.
  if (!existsSync(index)) return;
  const page = readFileSync(index, 'utf8');
  const SECURITY_HEADERS = securityHeaders(
    webCsp(externalIssuer ? [new URL(externalIssuer).origin] : []),
  );
  for (const path of WEB_PATHS)
    app.get(path, (_request, reply) =>
      reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page),
    );
  app.get('/app/sign-in.json', (_request, reply) =>
    reply.header('cache-control', 'no-store').send(signIn()),
  );
  // The icon browsers ask for at /favicon.ico whatever a page links (the built-in server's sign-in
  // and consent pages, the API reference): the page's own, as SVG.
  const icon = `${WEB_ROOT}assets/favicon.svg`;
  const favicon = existsSync(icon) ? readFileSync(icon) : null;
  if (favicon)
    app.get('/favicon.ico', (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .type('image/svg+xml')
        .send(favicon),
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
