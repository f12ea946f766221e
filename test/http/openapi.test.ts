import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { captureExamples } from '../../src/http/openapi/capture-examples.js';
import { openApiDocument } from '../../src/http/openapi/document.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { createToken } from '../../src/auth/tokens.js';
import { ALL_SCOPES, AS_OF, send, startHarness, WS, type Harness } from '../support/harness.js';
import { assertError } from '../support/assertions.js';

/**
 * The published contract: docs/openapi.json is what the registry and the seed give today (drift
 * fails here), the server serves the same document without a token, a real validator (Redocly)
 * finds no error in it, and the typed client's types are generated from it.
 * `npm run openapi` writes the three generated files instead of comparing them.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCUMENT = `${ROOT}docs/openapi.json`;
const EXAMPLES = `${ROOT}src/http/openapi/seed-examples.json`;
const CLIENT_TYPES = `${ROOT}client/src/schema.ts`;
const CLIENT_ROUTES = `${ROOT}client/src/routes.ts`;
const update = process.env.VMS_READ_UPDATE_OPENAPI === '1';
const run = promisify(execFile);
/** While `npm run openapi` writes the files, the checks of what it writes wait for the next run. */
const checks = { skip: update && 'writing the generated files (npm run openapi)' };

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

interface DocumentEntry {
  operationId: string;
  security: Record<string, string[]>[];
  'x-staff-only'?: boolean;
}

/**
 * The client's table of operations: each operationId's method, path, the scope it needs (null:
 * any token) and whether it is for staff tokens only, from the document.
 */
function clientRoutes(document: { paths: Record<string, Record<string, DocumentEntry>> }) {
  const lines = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, entry]) => entry.operationId !== 'healthz')
      .map(([method, entry]) => {
        const [scope = null] = entry.security[0]?.bearer ?? [];
        const needs = scope === null ? 'null' : `'${scope}'`;
        return `  ${entry.operationId}: {\n    method: '${method}',\n    path: '${path}',\n    scope: ${needs},\n    staffOnly: ${entry['x-staff-only'] === true},\n  },`;
      }),
  );
  return `// Generated from docs/openapi.json by \`npm run openapi\`: do not edit.\n\n/** Each operation's method, path, the scope it needs (null: any token), whether it is staff's only. */\nexport const ROUTES = {\n${lines.join('\n')}\n} as const;\n`;
}

/** The typed client's declarations, as openapi-typescript writes them from the document. */
async function clientTypes(): Promise<string> {
  const { stdout } = await run(`${ROOT}node_modules/.bin/openapi-typescript`, [DOCUMENT], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

describe('the OpenAPI document', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ now: () => new Date(`${AS_OF}T12:00:00.000Z`) });
  });
  after(() => h.close());

  it('is what the registry and the seed give (docs/openapi.json, the seed examples, client types)', async () => {
    const everyScope = await createToken(
      h.store,
      { workspaceId: WS, role: 'staff', scopes: [...ALL_SCOPES, 'read:audit'] },
      new Date(),
    );
    const examples = await captureExamples(h.app, OPERATIONS, everyScope);
    const document = openApiDocument(OPERATIONS, examples);
    if (update) {
      writeFileSync(EXAMPLES, json(examples));
      writeFileSync(DOCUMENT, json(document));
      writeFileSync(CLIENT_TYPES, await clientTypes());
      writeFileSync(CLIENT_ROUTES, clientRoutes(document as never));
      return;
    }
    const hint = 'run `npm run openapi` and commit the generated files';
    assert.deepEqual(JSON.parse(readFileSync(EXAMPLES, 'utf8')), examples, `examples: ${hint}`);
    assert.equal(readFileSync(DOCUMENT, 'utf8'), json(document), `docs/openapi.json: ${hint}`);
    assert.equal(readFileSync(CLIENT_TYPES, 'utf8'), await clientTypes(), `client types: ${hint}`);
    assert.equal(readFileSync(CLIENT_ROUTES, 'utf8'), clientRoutes(document as never), hint);
  });

  it('is served at /openapi.json without a token, as checked in', checks, async () => {
    const answer = await send(h.app, { method: 'GET', url: '/openapi.json' });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers['content-type']), /^application\/json/);
    assert.deepEqual(answer.body, JSON.parse(readFileSync(DOCUMENT, 'utf8')));
  });

  it('has every operation, with its scope, input and every error status', checks, () => {
    const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
    for (const operation of OPERATIONS) {
      const entry = document.paths[operation.path][operation.method.toLowerCase()];
      assert.equal(entry.operationId, operation.name);
      // An operation open to any valid token (list_changes) requires no scope, and cannot answer 403.
      const scoped = operation.scope !== null;
      // An access key or an OAuth access token, with the operation's scope.
      assert.deepEqual(entry.security, [
        { bearer: scoped ? [operation.scope] : [] },
        { oauth: scoped ? [operation.scope] : [] },
      ]);
      // Reports and the trail refuse other roles whatever their scopes; the page reads it here.
      assert.equal(entry['x-staff-only'], operation.staffOnly ? true : undefined, operation.name);
      // What the token was taken for, on every answer (a client calls only what it may).
      assert.deepEqual(Object.keys(entry.responses['200'].headers), [
        'x-request-id',
        'x-token-role',
        'x-token-scopes',
      ]);
      for (const status of ['200', '401', ...(scoped ? ['403'] : []), '404', '429', '503'])
        assert.ok(entry.responses[status], `${operation.name} documents ${status}`);
      if (!scoped) assert.equal(entry.responses['403'], undefined, operation.name);
      if (operation.method === 'GET')
        assert.deepEqual(
          entry.parameters.map((p: { name: string }) => p.name).sort(),
          Object.keys(operation.input.properties).sort(),
        );
      else assert.ok(entry.requestBody.content['application/json'].example);
      assert.ok(entry.responses['200'].content['application/json'].example, operation.name);
    }
    const limited = document.components.responses.Error429;
    assert.ok(limited.headers['Retry-After']);
  });

  it('passes @redocly/cli lint with no error and no warning', checks, async () => {
    const result = await run(
      `${ROOT}node_modules/.bin/redocly`,
      ['lint', DOCUMENT, '--config', `${ROOT}redocly.yaml`, '--format', 'summary'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    const output = `${result.stdout}\n${result.stderr}`;
    assert.match(output, /Woohoo! Your API description is valid/, output);
    assert.doesNotMatch(output, /You have \d+ warning/, output);
  });
});

describe('the reference page at /docs', checks, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('is served from node_modules, without a token, under a CSP with no inline script', async () => {
    const page = await send(h.app, { method: 'GET', url: '/docs' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(page.raw, /<script>|https?:\/\//);
    for (const src of page.raw.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const asset = await send(h.app, { method: 'GET', url: src[1] });
      assert.equal(asset.status, 200, src[1]);
    }
  });

  it('serves nothing else of the package', async () => {
    for (const url of [
      '/docs/assets/index.html',
      '/docs/assets/../package.json',
      '/docs/assets/',
    ]) {
      const answer = await send(h.app, { method: 'GET', url });
      assertError(answer, 404, 'not_found');
    }
  });
});
