/**
 * The MCP SDK and the OData filter grammar load with a process's first request that needs them,
 * or before `serve` listens (src/http/mcp-engine.ts, src/odata/filter-expression.ts): a service
 * that answered neither kind does not load them, and a warmed one has them before its first
 * request. (Each test file is its own process: nothing loaded them before. That a first request
 * loads them is what every MCP and OData suite runs on.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mcpEngineLoaded } from '../../src/http/mcp-route.js';
import { filterGrammarLoaded } from '../../src/odata/filter-expression.js';
import { warmService } from '../../src/service.js';
import { startHarness, type Harness } from '../support/harness.js';

describe('the MCP SDK and the OData filter grammar, loaded when first needed', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ dialect: 'sqlite' });
  });
  after(() => h?.close());

  it('are not loaded by a service that has answered REST and an OData page without $filter', async () => {
    const answer = await h.app.inject({
      method: 'GET',
      url: '/api/v1/workers?limit=1',
      headers: { authorization: `Bearer ${h.tokens.staff}` },
    });
    assert.equal(answer.statusCode, 200);
    const page = await h.app.inject({
      method: 'GET',
      url: '/odata/v4/Workers?$top=1',
      headers: { authorization: `Bearer ${h.tokens.staff}` },
    });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(mcpEngineLoaded(), false);
    assert.equal(filterGrammarLoaded(), false);
  });

  it('are loaded before a warmed server listens, as serve warms it', async () => {
    await warmService(h, await h.store.listWorkspaces(), () => {});
    assert.equal(mcpEngineLoaded(), true);
    assert.equal(filterGrammarLoaded(), true);
  });
});
