import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AnyOperation } from '../../operations/operation.js';
import { openApiDocument } from './document.js';
import SEED_EXAMPLES from './seed-examples.json' with { type: 'json' };

/**
 * The contract, published without a token: `GET /openapi.json` (built once from the registry at
 * start) and `GET /docs`, a reference page (Swagger UI, served from node_modules: the machines
 * it runs on may have no internet, and a page that fetched a CDN would leak who reads the docs).
 */

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
const ASSETS = `${DOCS_PATH}/assets/`;
/** Where npm put swagger-ui-dist (its files are served as they are). */
const UI_ROOT = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The Swagger UI files the page uses; nothing else in the package is served. */
const UI_FILES = new Set([
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/favicon-32x32.png',
]);

/** No inline script: the page's own script is a file too (Swagger UI sets inline styles). */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vms-read API reference</title>
<link rel="icon" type="image/png" href="${ASSETS}favicon-32x32.png">
<link rel="stylesheet" href="${ASSETS}swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS}swagger-ui-bundle.js"></script>
<script src="${ASSETS}swagger-ui-standalone-preset.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  validatorUrl: null,
  persistAuthorization: false
});
`;

export async function mountOpenApi(
  app: FastifyInstance,
  operations: readonly AnyOperation[],
): Promise<void> {
  const document = JSON.stringify(openApiDocument(operations, SEED_EXAMPLES));
  // The contract and the reference page hold no data: cached, revalidated (not the API's no-store).
  const cached = { 'cache-control': 'no-cache' };
  app.get(OPENAPI_PATH, (_request, reply) =>
    reply.headers(cached).type('application/json; charset=utf-8').send(document),
  );
  const secure = {
    'content-security-policy': DOCS_CSP,
    'x-content-type-options': 'nosniff',
    ...cached,
  };
  app.get(DOCS_PATH, (_request, reply) =>
    reply.headers(secure).type('text/html; charset=utf-8').send(PAGE),
  );
  app.get(`${DOCS_PATH}/init.js`, (_request, reply) =>
    reply.headers(secure).type('text/javascript; charset=utf-8').send(INIT),
  );
  await app.register(fastifyStatic, {
    root: UI_ROOT,
    prefix: ASSETS,
    decorateReply: false,
    index: false,
    allowedPath: (path) => UI_FILES.has(path),
    setHeaders: (response) => response.setHeader('x-content-type-options', 'nosniff'),
  });
}
