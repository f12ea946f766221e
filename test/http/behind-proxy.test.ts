/**
 * vms-read on the internet behind a real TLS proxy (DESIGN §4.16, docs/deploy.md): Debian's nginx
 * with the repository's deploy/nginx.conf ends TLS in front of `vms-read serve` run with
 * VMS_READ_PUBLIC_URL and VMS_READ_TRUSTED_PROXIES. The MCP SDK v2 client, in a process of its own
 * given only the https URL (the test's CA trusted through NODE_EXTRA_CA_CERTS), registers, signs a
 * person in through the proxy and calls tools; the metadata and the challenges name the public
 * origin; failed authentications and registrations are counted per real client address behind
 * the proxy (clients connect to nginx from 127.0.0.2 and 127.0.0.3). SQLite, as `npm start`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort, runCli, staffKeyByCli, startServer } from '../support/cli.js';
import { skipWithoutNginx, startTlsProxy, type TlsProxy } from '../support/tls-proxy.js';
import { OPERATIONS } from '../../src/operations/registry.js';

const skip = skipWithoutNginx();
const HOST_SCRIPT = fileURLToPath(new URL('../support/proxy-mcp-host.js', import.meta.url));
const REGISTRATIONS = 3;
const FAILURES = 5;

describe('behind a TLS-terminating nginx', { skip }, () => {
  let dir = '';
  let proxy: TlsProxy;
  let server: Awaited<ReturnType<typeof startServer>>;
  let key = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-proxy-'));
    const db = join(dir, 'proxied.db');
    const seeded = runCli(['seed', '--db', db, '--scale', 'tiny']);
    assert.equal(seeded.status, 0, seeded.stderr);
    key = staffKeyByCli(db, 'ws_business', 'read:workforce,read:pii');
    const port = await freePort();
    proxy = await startTlsProxy(port);
    server = await startServer(['serve', '--db', db, '--port', String(port)], port, {
      VMS_READ_PUBLIC_URL: proxy.origin,
      VMS_READ_TRUSTED_PROXIES: '127.0.0.1',
      VMS_READ_REGISTRATIONS_PER_HOUR: String(REGISTRATIONS),
      VMS_READ_AUTH_FAILURES_PER_MINUTE: String(FAILURES),
    });
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await proxy?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A request to the proxy from `from` (a loopback address of the client's own), trusting the CA. */
  const fromClient = (
    from: string,
    path: string,
    options: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const req = request(
          `${proxy.origin}${path}`,
          {
            method: options.method ?? 'GET',
            headers: options.headers,
            localAddress: from,
            ca: proxy.ca,
            agent: false,
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body }),
            );
          },
        );
        req.on('error', reject);
        req.end(options.body);
      },
    );

  it('lets an MCP host given only the https URL register, sign a person in and call tools', () => {
    const output = execFileSync(process.execPath, [HOST_SCRIPT, `${proxy.origin}/mcp`, key], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: proxy.caFile },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const found = JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
    assert.equal(found.tools, OPERATIONS.length);
    assert.equal(found.isError, false);
    assert.equal(found.items, 2);
    assert.equal(found.resource, `${proxy.origin}/mcp`);
    assert.equal(found.authorizationServer, proxy.origin);
    assert.equal(found.issuer, proxy.origin);
    assert.ok(found.clientId);
  });

  it('names the public https origin in the metadata and the challenges', async () => {
    const resource = await fromClient('127.0.0.2', '/.well-known/oauth-protected-resource/mcp');
    assert.deepEqual(JSON.parse(resource.body).authorization_servers, [proxy.origin]);
    const server = JSON.parse(
      (await fromClient('127.0.0.2', '/.well-known/oauth-authorization-server')).body,
    );
    assert.equal(server.issuer, proxy.origin);
    assert.equal(server.token_endpoint, `${proxy.origin}/oauth/token`);
    const challenge = await fromClient('127.0.0.2', '/mcp', { method: 'POST' });
    assert.equal(challenge.status, 401);
    assert.equal(
      challenge.headers['www-authenticate'],
      `Bearer realm="vms-read", resource_metadata="${proxy.origin}/.well-known/oauth-protected-resource/mcp", scope="read:program read:financial read:workforce read:pii"`,
    );
  });

  it('counts registrations per real client address behind the proxy', async () => {
    const register = (from: string) =>
      fromClient(from, '/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'] }),
      });
    // A client sending its own X-Forwarded-For chooses nothing: nginx appends what it saw.
    for (let i = 0; i < REGISTRATIONS; i++)
      assert.equal((await register('127.0.0.4')).status, 201, `registration ${i + 1}`);
    const refused = await register('127.0.0.4');
    assert.equal(refused.status, 429);
    assert.equal(JSON.parse(refused.body).error, 'temporarily_unavailable');
    assert.equal((await register('127.0.0.5')).status, 201, 'another client: its own count');
  });

  it('counts failed authentications per real client address behind the proxy', async () => {
    const call = (from: string, token: string, forged?: string) =>
      fromClient(from, '/api/v1/workers?limit=1', {
        headers: {
          authorization: `Bearer ${token}`,
          ...(forged ? { 'x-forwarded-for': forged } : {}),
        },
      });
    const wrong = `vmsr_${'w'.repeat(43)}`;
    // Each from 127.0.0.6, whatever address it claims: the bound holds.
    for (let i = 0; i < FAILURES; i++)
      assert.equal((await call('127.0.0.6', wrong, `198.51.100.${i}`)).status, 401);
    assert.equal((await call('127.0.0.6', wrong, '198.51.100.99')).status, 429);
    assert.equal((await call('127.0.0.6', key)).status, 200, 'a correct key still passes');
    assert.equal((await call('127.0.0.7', wrong)).status, 401, 'another client is not blocked');
  });
});
