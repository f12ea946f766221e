import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVmsReadClient, VmsReadError } from 'vms-read-client';
import { DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';
import { TestIdentityProvider, type ScriptClient } from '../support/identity-provider.js';

const SCRIPT: ScriptClient = {
  clientId: 'ledger-sync',
  secret: 'a-long-enough-client-secret-0003',
};

/**
 * A script with client credentials (docs/identity.md): it gets tokens from the organisation's
 * identity provider by itself and hands them to the typed client through a token provider, which
 * the client calls before every request.
 */
for (const dialect of DIALECTS) {
  describe(`the typed client with a token provider (${dialect})`, () => {
    let h: Harness;
    let idp: TestIdentityProvider;
    let baseUrl = '';
    before(async () => {
      idp = await TestIdentityProvider.start({
        resources: () => [baseUrl],
        claims: (subject) =>
          subject === SCRIPT.clientId ? { vms_workspace: WS, vms_role: 'staff' } : {},
        scripts: [SCRIPT],
      });
      h = await startHarness({
        dialect,
        oauthIssuers: [idp.entry],
      });
      baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await h.close();
      await idp.close();
    });

    it('reads every worker with client credentials, a fresh token on every page (same grant, same cursors)', async () => {
      const issued: string[] = [];
      const vms = createVmsReadClient({
        baseUrl,
        token: async () => {
          const token = await idp.clientCredentials(SCRIPT, {
            scope: 'read:workforce',
            resource: baseUrl,
          });
          issued.push(token);
          return token;
        },
      });
      const ids: string[] = [];
      for await (const worker of vms.items('list_workers', { limit: 9 })) ids.push(worker.id);
      const expected = await h.all<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id',
        WS,
      );
      assert.deepEqual([...ids].sort(), expected.map((w) => w.id).sort());
      assert.ok(
        issued.length > 1 && new Set(issued).size === issued.length,
        'a new token per page',
      );
    });

    it('throws the 403 of a missing scope, with its code', async () => {
      const vms = createVmsReadClient({
        baseUrl,
        token: () => idp.clientCredentials(SCRIPT, { scope: 'read:workforce', resource: baseUrl }),
      });
      const error = await vms.call('list_invoices', {}).then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof VmsReadError);
      assert.equal(error.status, 403);
      assert.equal(error.code, 'insufficient_scope');
    });
  });
}
