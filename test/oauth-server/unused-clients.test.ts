/**
 * The ceiling on clients nobody has used (DESIGN §4.16, VMS_READ_UNUSED_CLIENTS_MAX): past it a
 * registration is 429 `temporarily_unavailable` with `Retry-After` (when the first unused client
 * expires) from every address, on every instance over the same database; registrations at once
 * do not pass it; a client that is used frees its place. Both stores.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { createService } from '../../src/service.js';
import { FULL_FOR_MS } from '../../src/oauth-server/unused-clients.js';
import { DIALECTS, startHarness, type Harness } from '../support/harness.js';
import { personWith } from '../support/oauth-browser.js';
import { CALLBACK, signIn } from '../support/oauth-flow.js';

const MAX = 4;
const HOURS = 2;
/** Registrations past the ceiling, each from an address of its own, in the memory test. */
const ATTEMPTS = 5000;
const MB = 2 ** 20;

/** A full collection, then the bytes the heap holds. */
function heapAfterCollection(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const METADATA = {
  redirect_uris: [CALLBACK],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
};

/**
 * The same through node:http, its status only: fetch keeps a finalization record for each
 * response until a task after the collection runs it, which a heap measured at once would count.
 */
function registerStatus(agent: Agent, base: string, address: string): Promise<number> {
  const body = JSON.stringify(METADATA);
  return new Promise((resolve, reject) => {
    const sent = request(
      `${base}/oauth/register`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-forwarded-for': address,
        },
      },
      (answer) => answer.resume().on('end', () => resolve(answer.statusCode ?? 0)),
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** POST /oauth/register from `address` (through the trusted proxy): status, headers, body. */
async function register(base: string, address: string) {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(METADATA),
  });
  return {
    status: response.status,
    retryAfter: Number(response.headers.get('retry-after')),
    body: (await response.json()) as Record<string, string>,
  };
}

for (const dialect of DIALECTS)
  describe(`the ceiling on unused clients (${dialect})`, () => {
    let h: Harness;
    let other: FastifyInstance;
    let base = '';
    let otherBase = '';
    let n = 0;
    const anywhere = () => `198.51.100.${++n}`;
    /** The ids of the clients registered here and not used yet, oldest first. */
    const registered: string[] = [];
    const registerAt = async (at: string) => {
      const answer = await register(at, anywhere());
      if (answer.status === 201) registered.push(answer.body.client_id);
      return answer;
    };
    /** A person signs in to `clientId`: the client has had a grant. */
    const use = (clientId = '') =>
      signIn(base, personWith({ key: h.tokens.staff }), {
        client: { client_id: clientId, redirect_uris: [CALLBACK] },
      });
    /** Unused clients as the store holds them: registered, expiry still ahead. */
    const unused = () =>
      h.store.authorizationRecords().countOAuthRecordsExpiring('Client', Date.now(), 1000);
    const settings = {
      oauthServer: true,
      unusedClientsMax: MAX,
      unusedClientHours: HOURS,
      trustedProxies: ['127.0.0.1'],
    };
    before(async () => {
      h = await startHarness({ dialect, ...settings });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      // A second instance over the same database (its own memory, the same store).
      ({ app: other } = await createService({
        store: h.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
        origins: { allowedOrigins: [] },
        ...settings,
      }));
      otherBase = await other.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await other.close();
      await h.close();
    });

    it('refuses registrations past it, from every address and on every instance', async () => {
      const started = Date.now();
      for (let i = 0; i < MAX; i++)
        assert.equal((await registerAt(i % 2 ? otherBase : base)).status, 201);
      assert.equal(await unused(), MAX);
      for (const at of [base, otherBase, base]) {
        const refused = await registerAt(at);
        assert.equal(refused.status, 429, JSON.stringify(refused.body));
        assert.equal(refused.body.error, 'temporarily_unavailable');
        assert.match(
          refused.body.error_description,
          /Too many clients are registered and not yet used/,
        );
        // When the first unused client expires and frees its place.
        const expected = (started + HOURS * 3600_000 - Date.now()) / 1000;
        assert.ok(Math.abs(refused.retryAfter - expected) < 60, `${refused.retryAfter} s`);
      }
      assert.equal(await unused(), MAX);
    });

    it('frees the place of a client once it is used', async () => {
      // A person signs in to a client registered before (its place taken already).
      await use(registered.shift());
      assert.equal(await unused(), MAX - 1);
      // Each instance that found the ceiling reached counts again at most FULL_FOR_MS later.
      await new Promise((resolve) => setTimeout(resolve, FULL_FOR_MS + 50));
      assert.equal((await registerAt(otherBase)).status, 201);
      assert.equal((await registerAt(base)).status, 429);
    });

    it('does not let registrations at once pass it', async () => {
      // Room for 2: a person signs in to two of the unused clients.
      await use(registered.shift());
      await use(registered.shift());
      await new Promise((resolve) => setTimeout(resolve, FULL_FOR_MS + 50));
      const answers = await Promise.all(Array.from({ length: 12 }, () => registerAt(base)));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [201, 201, ...Array(10).fill(429)]);
      for (const refused of answers.filter((a) => a.status === 429)) {
        assert.equal(refused.body.error, 'temporarily_unavailable');
        assert.ok(refused.retryAfter > 0, JSON.stringify(refused));
      }
      assert.equal(await unused(), MAX);
    });
  });

for (const dialect of DIALECTS)
  describe(`memory past the ceiling on unused clients (${dialect})`, () => {
    let h: Harness;
    let base = '';
    before(async () => {
      // The bound per address on, as in the product: an address's window is memory (an hour).
      h = await startHarness({
        dialect,
        oauthServer: true,
        unusedClientsMax: MAX,
        registrationsPerHour: 20,
        trustedProxies: ['127.0.0.1'],
      });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    it('holds nothing for registrations past it, from however many addresses', async () => {
      // Each from an address of its own, as from an attacker holding many IPv6 /64s: without
      // the ceiling each was a client kept and an address's hour-long window (some 0.5 KB).
      let n = 0;
      const agent = new Agent({ keepAlive: true, maxSockets: 16 });
      const statuses: Record<number, number> = {};
      const attempts = async (count: number) => {
        const stop = n + count;
        const sender = async () => {
          while (n < stop) {
            const address = `10.${n >> 16}.${(n >> 8) & 255}.${n++ & 255}`;
            const status = await registerStatus(agent, base, address);
            statuses[status] = (statuses[status] ?? 0) + 1;
          }
        };
        await Promise.all(Array.from({ length: 16 }, sender));
      };
      // The ceiling reached, and the refusal's path run before anything is measured.
      await attempts(MAX + 200);
      const before = heapAfterCollection();
      await attempts(ATTEMPTS);
      const held = heapAfterCollection() - before;
      agent.destroy();
      assert.ok(held < MB, `${(held / MB).toFixed(2)} MB held after ${ATTEMPTS} registrations`);
      assert.deepEqual(statuses, { 201: MAX, 429: ATTEMPTS + 200 });
    });
  });
