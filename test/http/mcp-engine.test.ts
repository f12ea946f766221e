/**
 * The MCP SDK loads with a process's first request to /mcp, or before `serve` listens
 * (src/http/mcp-engine.ts): a service that never answers MCP does not load it, and a warmed one
 * has it before its first request. (Each test file is its own process: nothing loaded it before.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mcpEngineLoaded } from '../../src/http/mcp-route.js';
import { warmService } from '../../src/service.js';
import { startHarness, type Harness } from '../support/harness.js';

describe('the MCP SDK, loaded when first needed', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ dialect: 'sqlite' });
  });
  after(() => h?.close());

  it('is not loaded by a service that has answered only REST', async () => {
    const answer = await h.app.inject({
      method: 'GET',
      url: '/api/v1/workers?limit=1',
      headers: { authorization: `Bearer ${h.tokens.staff}` },
    });
    assert.equal(answer.statusCode, 200);
    assert.equal(mcpEngineLoaded(), false);
  });

  it('is loaded before a warmed server listens, as serve warms it', async () => {
    await warmService(h, await h.store.listWorkspaces(), () => {});
    assert.equal(mcpEngineLoaded(), true);
  });
});
