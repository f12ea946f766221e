/**
 * What the grants of one access key share and where they stop (DESIGN §4.16): one quota for the
 * key and every grant made with it, whatever the client; a scope the key does not hold is a plain
 * refusal (the tool result of an access key), never a step-up challenge an MCP host would answer
 * by asking the person again, for ever; a scope the key holds but the grant lacks is a step-up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createToken } from '../../src/auth/tokens.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';
import { rawToolCall } from '../support/mcp-client.js';
import {
  connectSignedIn,
  personWith,
  TestBrowser,
  TestOAuthHost,
} from '../support/oauth-browser.js';
import { signIn } from '../support/oauth-flow.js';

for (const dialect of DIALECTS)
  describe(`the grants of an access key (${dialect})`, () => {
    let h: Harness;
    let base = '';
    const QUOTA = 6;
    before(async () => {
      h = await startHarness({ dialect, oauthServer: true, quotaPerMinute: QUOTA });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());
    /** A worker's key as workers get them: workforce only, never money. */
    const workerKey = () =>
      createToken(
        h.store,
        { workspaceId: WS, role: 'worker', workerId: h.workerId, scopes: ['read:workforce'] },
        new Date(),
      );

    it('share one quota with the key itself, whatever the client', async () => {
      const key = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ['read:workforce'] },
        new Date(),
      );
      // Signing in reads nothing of the API: the budget is whole until the calls below.
      const first = await signIn(base, personWith({ key }), { scope: 'read:workforce' });
      const second = await signIn(base, personWith({ key }), { scope: 'read:workforce' });
      assert.notEqual(first.client.client_id, second.client.client_id);
      const tokens = [key, first.tokens.access_token, second.tokens.access_token];
      for (let i = 0; i < QUOTA; i++) {
        const answer = await get(h.app, '/api/v1/workers?limit=1', tokens[i % 3]);
        assert.equal(answer.status, 200, `request ${i + 1}: ${answer.raw}`);
      }
      for (const token of tokens)
        assert.equal((await get(h.app, '/api/v1/workers?limit=1', token)).status, 429);
      // Another key is another subject.
      assert.equal((await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff)).status, 200);
    });

    it('refuse a scope the key does not hold plainly, over MCP as a tool result', async () => {
      const { tokens } = await signIn(base, personWith({ key: await workerKey() }), {
        scope: 'read:workforce read:financial',
      });
      const mcp = await rawToolCall(base, tokens.access_token, 'list_invoices', { limit: 1 });
      assert.equal(mcp.status, 200);
      const result = (await mcp.json()).result as CallToolResult;
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.content), /insufficient_scope/);
      const rest = await fetch(`${base}/api/v1/invoices`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(rest.status, 403);
      assert.equal(
        rest.headers.get('www-authenticate'),
        'Bearer error="insufficient_scope", scope="read:financial"',
      );
    });

    it('step up a scope the key holds but the grant lacks', async () => {
      const { tokens } = await signIn(base, personWith({ key: h.tokens.staff }), {
        scope: 'read:workforce',
      });
      const mcp = await rawToolCall(base, tokens.access_token, 'list_invoices', { limit: 1 });
      assert.equal(mcp.status, 403);
      assert.equal(
        mcp.headers.get('www-authenticate'),
        `Bearer error="insufficient_scope", scope="read:workforce read:financial", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      );
    });

    it('lets an MCP host signed in with a worker key call on, without asking the person again', async () => {
      let prompts = 0;
      const person = personWith({ key: await workerKey() });
      const host = new TestOAuthHost(
        new TestBrowser((page) => {
          if (page.html.includes('name="decision"')) prompts++;
          return person(page);
        }),
      );
      const client = await connectSignedIn(new URL(`${base}/mcp`), host);
      try {
        const invoices = (await client.callTool({
          name: 'list_invoices',
          arguments: { limit: 1 },
        })) as CallToolResult;
        assert.equal(invoices.isError, true);
        const timesheets = (await client.callTool({
          name: 'list_timesheets',
          arguments: { limit: 1 },
        })) as CallToolResult;
        assert.notEqual(timesheets.isError, true);
        assert.equal(prompts, 1, 'the person was asked once, at sign-in');
      } finally {
        await client.close();
      }
    });
  });
