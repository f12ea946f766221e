import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createToken } from '../../src/auth/tokens.js';
import type { Scope } from '../../src/auth/scopes.js';
import { assertError, assertRefusal } from '../support/assertions.js';
import {
  ALL_SCOPES,
  DIALECTS,
  get,
  qs,
  startHarness,
  WS,
  type Answer,
  type Harness,
} from '../support/harness.js';
import { TestIdentityProvider } from '../support/identity-provider.js';

const RESOURCE = 'http://localhost';

/** Every list an OAuth token and an access key are compared on (DESIGN §4.4, §4.7, §4.11). */
const LISTS = [
  '/api/v1/workers',
  '/api/v1/suppliers',
  '/api/v1/assignments',
  '/api/v1/timesheets',
  '/api/v1/expenses',
  '/api/v1/invoices',
  '/api/v1/approval-statuses',
  '/api/v1/changes',
];

/** What an answer says, without what is bound to the caller (request id, cursors). */
function comparable(answer: Answer) {
  if (answer.status !== 200) return { status: answer.status, code: answer.body.error?.code };
  const { nextCursor, ...data } = answer.body.data;
  return { status: 200, data, hasNext: nextCursor !== null && nextCursor !== undefined };
}

for (const dialect of DIALECTS) {
  describe(`OAuth grants (${dialect})`, () => {
    let h: Harness;
    let idp: TestIdentityProvider;
    const token = (claims: Record<string, unknown> = {}) =>
      idp.sign({
        sub: 'person-1',
        aud: RESOURCE,
        scope: ALL_SCOPES.join(' '),
        client_id: 'hr-portal',
        vms_workspace: WS,
        vms_role: 'staff',
        ...claims,
      });

    before(async () => {
      idp = await TestIdentityProvider.start({
        resources: () => [RESOURCE],
        claims: () => ({}),
      });
      h = await startHarness({
        dialect,
        quotaPerMinute: 0,
        oauthIssuers: [idp.entry],
      });
    });
    after(async () => {
      await h.close();
      await idp.close();
    });

    describe('cursors bind to the grant (issuer, subject, client)', () => {
      it('continue with a refreshed token of the same grant', async () => {
        const first = await get(h.app, '/api/v1/workers?limit=3', await token({ jti: 'a' }));
        const cursor = first.body.data.nextCursor;
        assert.ok(cursor);
        const refreshed = await token({ jti: 'b', iat: Math.floor(Date.now() / 1000) - 1 });
        const next = await get(h.app, `/api/v1/workers${qs({ limit: 3, cursor })}`, refreshed);
        assert.equal(next.status, 200, next.raw);
        assert.notDeepEqual(next.body.data.items[0].id, first.body.data.items[0].id);
      });
      it('are refused to another subject, another client, and an access key', async () => {
        const first = await get(h.app, '/api/v1/workers?limit=3', await token());
        const cursor = first.body.data.nextCursor;
        for (const other of [
          await token({ sub: 'person-2' }),
          await token({ client_id: 'another-app' }),
          h.tokens.staff,
        ]) {
          const answer = await get(h.app, `/api/v1/workers${qs({ limit: 3, cursor })}`, other);
          assertRefusal(answer, 'invalid_cursor', 'list_workers', false);
        }
      });
      it("keep the change feed's resume cursor across tokens of the grant", async () => {
        let cursor: string | undefined;
        let answer: Answer;
        do {
          answer = await get(h.app, `/api/v1/changes${qs({ cursor })}`, await token());
          assert.equal(answer.status, 200, answer.raw);
          cursor = answer.body.data.nextCursor;
        } while (answer.body.data.hasMore);
        const later = await get(
          h.app,
          `/api/v1/changes${qs({ cursor })}`,
          await token({ jti: 'later' }),
        );
        assert.equal(later.status, 200, later.raw);
        assert.deepEqual(later.body.data.items, []);
        const stranger = await get(
          h.app,
          `/api/v1/changes${qs({ cursor })}`,
          await token({ client_id: 'another-app' }),
        );
        assertRefusal(stranger, 'invalid_cursor', 'list_changes', false);
      });
      it('uses azp as the client when client_id is absent', async () => {
        const first = await get(
          h.app,
          '/api/v1/workers?limit=3',
          await token({ client_id: undefined, azp: 'hr-portal' }),
        );
        const cursor = first.body.data.nextCursor;
        const same = await get(h.app, `/api/v1/workers${qs({ limit: 3, cursor })}`, await token());
        assert.equal(same.status, 200, same.raw);
      });
    });

    describe('every role sees through an OAuth token what it sees through an access key', () => {
      it('holds for random claim sets (role, worker or supplier, scopes) on every list', async () => {
        const workerIds = (
          await h.all<{ id: string }>(
            'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 8',
            WS,
          )
        ).map((r) => r.id);
        const supplierIds = (
          await h.all<{ id: string }>(
            'SELECT id FROM suppliers WHERE workspace_id = ? ORDER BY id LIMIT 8',
            WS,
          )
        ).map((r) => r.id);
        workerIds.push(h.workerId);
        supplierIds.push(h.supplierId);
        const claimSet = fc.record({
          role: fc.constantFrom('staff', 'worker', 'billing_entity' as const),
          worker: fc.constantFrom(...workerIds),
          supplier: fc.constantFrom(...supplierIds),
          scopes: fc.subarray(ALL_SCOPES, { minLength: 1 }),
          limit: fc.integer({ min: 1, max: 60 }),
        });
        let subject = 0;
        await fc.assert(
          fc.asyncProperty(claimSet, async ({ role, worker, supplier, scopes, limit }) => {
            const key = await createToken(
              h.store,
              {
                workspaceId: WS,
                role,
                workerId: role === 'worker' ? worker : null,
                supplierId: role === 'billing_entity' ? supplier : null,
                scopes: scopes as Scope[],
              },
              new Date(),
            );
            const jwt = await token({
              sub: `person-${subject++}`,
              scope: scopes.join(' '),
              vms_role: role,
              vms_worker: worker,
              vms_supplier: supplier,
            });
            for (const list of LISTS) {
              const path = `${list}?limit=${limit}`;
              assert.deepEqual(
                comparable(await get(h.app, path, jwt)),
                comparable(await get(h.app, path, key)),
                `${role} ${scopes.join(',')} ${path}`,
              );
            }
          }),
          { numRuns: 12, seed: 31 },
        );
      });
    });

    describe('quota', () => {
      let limited: Harness;
      before(async () => {
        limited = await startHarness({
          dialect,
          quotaPerMinute: 3,
          oauthIssuers: [idp.entry],
        });
      });
      after(() => limited.close());
      it('is one budget per subject, whichever token or client presents it (DESIGN §4.16)', async () => {
        for (let i = 0; i < 3; i++) {
          const answer = await get(limited.app, '/api/v1/suppliers', await token({ jti: `q${i}` }));
          assert.equal(answer.status, 200, answer.raw);
        }
        const spent = await get(limited.app, '/api/v1/suppliers', await token({ jti: 'q3' }));
        assertError(spent, 429, 'rate_limited');
        // Another client of the same subject: the same budget, spent.
        const otherClient = await get(
          limited.app,
          '/api/v1/suppliers',
          await token({ client_id: 'another-app' }),
        );
        assertError(otherClient, 429, 'rate_limited');
        const otherSubject = await get(
          limited.app,
          '/api/v1/suppliers',
          await token({ sub: 'person-2' }),
        );
        assert.equal(otherSubject.status, 200, otherSubject.raw);
      });
    });
  });
}
