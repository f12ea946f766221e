import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { SharedQuota } from '../../src/auth/redis-quota.js';
import type { Executor } from '../../src/operations/executor.js';
import { createService } from '../../src/service.js';
import { assertError } from '../support/assertions.js';
import { get, startHarness, type Harness } from '../support/harness.js';
import { skipWithoutRedis, startRedis, type RedisServer } from '../support/redis-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pino options whose lines are kept, parsed, for the test to read. */
function capturedLog() {
  const lines: { level: number; msg: string; reason?: string }[] = [];
  return {
    lines,
    logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    count: (msg: string) => lines.filter((line) => line.msg === msg).length,
  };
}

/** An instance's Redis connection is up: before, its requests may be counted in its own memory. */
const connected = (executor: Executor) => (executor.deps.quota as SharedQuota).connected();

const UNAVAILABLE = 'quota store unavailable';
const RECOVERED = 'quota store available again';

/**
 * Two instances (two apps with their own executors and Redis connections) over one database
 * and one Redis, as behind a load balancer: quota 5 a minute per token.
 */
describe('two instances sharing the quota through Redis', { skip: skipWithoutRedis() }, () => {
  let redis: RedisServer;
  let h: Harness;
  let a: FastifyInstance;
  let b: FastifyInstance;
  const logA = capturedLog();
  const logB = capturedLog();
  before(async () => {
    redis = await startRedis();
    h = await startHarness({ quotaPerMinute: 5, redisUrl: redis.url, logger: logA.logger });
    a = h.app;
    const service = await createService({
      store: h.store,
      facts: h.facts,
      secret: 'test-secret',
      quotaPerMinute: 5,
      redisUrl: redis.url,
      logger: logB.logger,
    });
    b = service.app;
    await b.ready();
    await connected(h.executor);
    await connected(service.executor);
  });
  after(async () => {
    await b?.close();
    await h?.close();
    await redis?.destroy();
  });

  const list = (app: FastifyInstance, token: string) => get(app, '/api/v1/workers?limit=1', token);
  const statuses = async (app: FastifyInstance, token: string, count: number) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await list(app, token)).status);
    return seen;
  };

  it('gives one budget per token: 3 requests on one and 3 on the other, the sixth is 429', async () => {
    assert.deepEqual(await statuses(a, h.tokens.staff, 3), [200, 200, 200]);
    assert.deepEqual(await statuses(b, h.tokens.staff, 2), [200, 200]);
    const sixth = await list(b, h.tokens.staff);
    assertError(sixth, 429, 'rate_limited');
    const retryAfter = Number(sixth.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 12, String(retryAfter));
    assertError(await list(a, h.tokens.staff), 429, 'rate_limited');
    // Another token of the same workspace has its own budget.
    assert.equal((await list(a, h.tokens.staff2)).status, 200);
    assert.equal(logA.count(UNAVAILABLE) + logB.count(UNAVAILABLE), 0);
  });

  it(
    'answers while Redis is down (fail-open, each instance bounding the token), warns once, shares again once it is back',
    { timeout: 60_000 },
    async () => {
      await redis.kill();
      assert.deepEqual(await statuses(a, h.tokens.worker, 3), [200, 200, 200]);
      assert.deepEqual(await statuses(b, h.tokens.worker, 3), [200, 200, 200]);
      // Counted in each instance's memory meanwhile: A's bucket for the token is spent at 5.
      assert.deepEqual(await statuses(a, h.tokens.worker, 2), [200, 200]);
      assertError(await list(a, h.tokens.worker), 429, 'rate_limited');
      assert.equal(logA.count(UNAVAILABLE), 1);
      assert.equal(logB.count(UNAVAILABLE), 1);
      assert.equal(logA.lines.find((line) => line.msg === UNAVAILABLE)?.level, 40);

      await redis.start();
      // Each instance reconnects on its own; a request after that is counted in Redis again.
      for (const [app, log] of [
        [a, logA],
        [b, logB],
      ] as const) {
        const deadline = Date.now() + 30_000;
        while (log.count(RECOVERED) === 0 && Date.now() < deadline) {
          await list(app, h.tokens.programOnly);
          await sleep(100);
        }
        assert.equal(log.count(RECOVERED), 1);
      }
      assert.deepEqual(await statuses(a, h.tokens.billing, 3), [200, 200, 200]);
      assert.deepEqual(await statuses(b, h.tokens.billing, 2), [200, 200]);
      assertError(await list(a, h.tokens.billing), 429, 'rate_limited');
      assert.equal(logA.count(UNAVAILABLE), 1);
      assert.equal(logB.count(UNAVAILABLE), 1);
    },
  );

  it(
    'answers while Redis hangs (SIGSTOP): no request waits on it past its time limit',
    {
      timeout: 30_000,
    },
    async () => {
      redis.freeze();
      try {
        assert.deepEqual(await statuses(a, h.tokens.staffNoPii, 2), [200, 200]);
      } finally {
        redis.thaw();
      }
    },
  );
});
