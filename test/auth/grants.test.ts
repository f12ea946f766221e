/**
 * How a verified OAuth token's claims become a principal (src/auth/grants.ts, DESIGN §4.12):
 * fixed workspace or role per issuer, claims named by the configuration, scopes from `scope`,
 * `scp` or the named claim, the client from `client_id` else `azp`. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { VerifiedAccessToken } from '../../src/auth/access-tokens.js';
import { grantId, principalOfGrant } from '../../src/auth/grants.js';
import { DEFAULT_CLAIMS, type OAuthIssuer } from '../../src/oauth-issuers.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const ISSUER = 'https://login.example.com';
const NOW = new Date();

function verified(
  issuer: Partial<OAuthIssuer>,
  claims: Record<string, unknown>,
): VerifiedAccessToken {
  return {
    issuer: { issuer: ISSUER, claims: { ...DEFAULT_CLAIMS }, ...issuer },
    claims: { sub: 'person-1', exp: Math.floor(NOW.getTime() / 1000) + 600, ...claims },
  };
}

for (const dialect of DIALECTS)
  describe(`OAuth claims to a principal (${dialect})`, () => {
    let db: TestDatabase;
    let worker = '';
    let supplier = '';
    before(async () => {
      db = await openTestDatabase(dialect);
      worker = (
        await db.one<{ id: string }>('SELECT id FROM workers WHERE workspace_id = ? LIMIT 1', WS)
      ).id;
      supplier = (
        await db.one<{ id: string }>('SELECT id FROM suppliers WHERE workspace_id = ? LIMIT 1', WS)
      ).id;
    });
    after(() => db.drop());

    it('takes a fixed workspace and role from the issuer, whatever the claims say', async () => {
      const principal = await principalOfGrant(
        db.store,
        verified(
          { workspace: WS, role: 'staff' },
          { vms_workspace: 'ws_team', vms_role: 'worker', scope: 'read:program' },
        ),
      );
      assert.equal(principal.workspaceId, WS);
      assert.equal(principal.role, 'staff');
      assert.deepEqual([...principal.scopes], ['read:program']);
    });

    it('reads the claims the configuration names, scopes from an array claim', async () => {
      const principal = await principalOfGrant(
        db.store,
        verified(
          {
            workspace: WS,
            claims: { ...DEFAULT_CLAIMS, role: 'app_role', worker: 'employee', scopes: 'roles' },
          },
          {
            app_role: 'worker',
            employee: worker,
            roles: ['read:workforce', 'Admin', 'read:pii'],
            scope: 'read:financial',
          },
        ),
      );
      assert.equal(principal.role, 'worker');
      assert.equal(principal.workerId, worker);
      assert.deepEqual([...principal.scopes].sort(), ['read:pii', 'read:workforce']);
    });

    it("binds a billing entity to its supplier's code", async () => {
      const principal = await principalOfGrant(
        db.store,
        verified({}, { vms_workspace: WS, vms_role: 'billing_entity', vms_supplier: supplier }),
      );
      const { code } = await db.one<{ code: string }>(
        'SELECT code FROM suppliers WHERE id = ?',
        supplier,
      );
      assert.equal(principal.supplierId, supplier);
      assert.equal(principal.supplierCode, code);
    });

    it('names the grant by issuer, subject and client (client_id, else azp)', async () => {
      const viaClientId = await principalOfGrant(
        db.store,
        verified({ workspace: WS, role: 'staff' }, { client_id: 'app-1', azp: 'other' }),
      );
      const viaAzp = await principalOfGrant(
        db.store,
        verified({ workspace: WS, role: 'staff' }, { azp: 'app-1' }),
      );
      assert.deepEqual(viaClientId.grant, {
        issuer: ISSUER,
        subject: 'person-1',
        clientId: 'app-1',
      });
      assert.equal(viaClientId.tokenId, viaAzp.tokenId);
      assert.equal(
        viaClientId.tokenId,
        grantId({ issuer: ISSUER, subject: 'person-1', clientId: 'app-1' }),
      );
      assert.match(viaClientId.tokenId, /^grant_[A-Za-z0-9_-]{43}$/);
      const noClient = await principalOfGrant(
        db.store,
        verified({ workspace: WS, role: 'staff' }, {}),
      );
      assert.notEqual(noClient.tokenId, viaClientId.tokenId);
      assert.equal(noClient.grant?.clientId, null);
    });
  });
