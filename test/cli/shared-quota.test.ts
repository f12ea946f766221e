import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, exitOf, freePort, startServer } from '../support/cli.js';
import { startHarness, type Harness } from '../support/harness.js';
import { assertEnvelope, assertToolError, newClient } from '../support/mcp-client.js';
import { skipWithoutRedis, startRedis, type RedisServer } from '../support/redis-server.js';

/** `serve` and `mcp` read REDIS_URL: a token's budget spans the processes that share a Redis. */
const QUOTA = { VMS_READ_QUOTA_PER_MINUTE: '5', VMS_READ_REPORT_ENGINE: 'row' };

async function statuses(base: string, token: string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await fetch(`${base}/api/v1/workers?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await answer.arrayBuffer();
    seen.push(answer.status);
  }
  return seen;
}

async function serve(db: string, env: Record<string, string>) {
  const port = await freePort();
  const server = await startServer(['serve', '--db', db, '--port', String(port)], port, env);
  return { ...server, base: `http://127.0.0.1:${port}` };
}

async function stop(child: Awaited<ReturnType<typeof serve>>['child']) {
  child.kill('SIGTERM');
  return exitOf(child);
}

describe('serve with REDIS_URL unreachable', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('starts, serves (counting per instance), warns once and exits 0 on SIGTERM', async () => {
    const server = await serve(h.db, {
      ...QUOTA,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    try {
      assert.deepEqual(
        await statuses(server.base, h.tokens.staff, 6),
        [200, 200, 200, 200, 200, 429],
      );
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"quota store unavailable"'));
      assert.equal(warnings.length, 1, server.output());
      assert.match(warnings[0], /"level":40/);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });
});

describe(
  'serve and mcp over stdio sharing the quota through Redis',
  { skip: skipWithoutRedis() },
  () => {
    let h: Harness;
    let redis: RedisServer;
    before(async () => {
      redis = await startRedis();
      h = await startHarness();
    });
    after(async () => {
      await h?.close();
      await redis?.destroy();
    });

    it('counts HTTP requests and stdio tool calls of one token against one budget', async () => {
      const env = { ...QUOTA, REDIS_URL: redis.url };
      const server = await serve(h.db, env);
      const client = newClient();
      try {
        // The stdio server starts first: the budget refills a request every 12 s (5 a minute), so
        // the counted calls below go one after another, not on either side of a process's start.
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [CLI, 'mcp', '--db', h.db, '--token', h.tokens.staff],
            env: { ...(process.env as Record<string, string>), ...env },
            stderr: 'pipe',
          }),
        );
        assert.deepEqual(await statuses(server.base, h.tokens.staff, 3), [200, 200, 200]);
        const call = async () =>
          (await client.callTool({ name: 'list_suppliers', arguments: {} })) as CallToolResult;
        assertEnvelope(await call());
        assertEnvelope(await call());
        assertToolError(await call(), 'rate_limited');
        assert.deepEqual(await statuses(server.base, h.tokens.staff, 1), [429]);
        assert.deepEqual(await statuses(server.base, h.tokens.staff2, 1), [200]);
        assert.doesNotMatch(server.output(), /quota store unavailable/);
      } finally {
        await client.close();
        assert.equal(await stop(server.child), 0);
      }
    });
  },
);
