import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createQuota, type Quota } from '../../src/auth/quota.js';
import {
  createRedisQuota,
  QUOTA_KEY_PREFIX,
  type QuotaLog,
  type SharedQuota,
} from '../../src/auth/redis-quota.js';
import { freePort } from '../support/cli.js';
import { skipWithoutRedis, startRedis, type RedisServer } from '../support/redis-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A QuotaLog that keeps its lines. */
function recordingLog(): QuotaLog & { lines: string[]; details: Record<string, unknown>[] } {
  const lines: string[] = [];
  const details: Record<string, unknown>[] = [];
  const record = (level: string) => (detail: Record<string, unknown>, message: string) => {
    lines.push(`${level} ${message}`);
    details.push(detail);
  };
  return { lines, details, warn: record('warn'), info: record('info') };
}

async function takeMany(quota: Quota, tokenId: string, count: number, nowMs = Date.now()) {
  const waits: number[] = [];
  for (let i = 0; i < count; i++) waits.push(await quota.take(tokenId, nowMs));
  return waits;
}

describe('the quota counted in Redis', { skip: skipWithoutRedis() }, () => {
  let redis: RedisServer;
  let raw: Redis;
  const quotas: Quota[] = [];
  /** A shared quota, once connected: a request before that may be counted in this process. */
  const shared = async (perMinute: number, log: QuotaLog = recordingLog()) => {
    const quota: SharedQuota = createRedisQuota({ url: redis.url, perMinute, log });
    quotas.push(quota);
    await quota.connected();
    return quota;
  };
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  after(async () => {
    for (const quota of quotas) await quota.close?.();
    raw.disconnect();
    await redis.destroy();
  });

  it('admits and refuses as the in-memory quota does, with the same Retry-After', async () => {
    const inRedis = await takeMany(await shared(5), 'tok_same', 7);
    const inMemory = await takeMany(createQuota(5), 'tok_same', 7);
    assert.deepEqual(inRedis.slice(0, 5), [0, 0, 0, 0, 0]);
    // 5 a minute: the next request is free in 12 s, less what has refilled since.
    for (const wait of inRedis.slice(5)) assert.ok(wait >= 1 && wait <= 12, String(wait));
    assert.deepEqual(
      inRedis.map((w) => w > 0),
      inMemory.map((w) => w > 0),
    );
  });

  it('gives quotas on one Redis one budget per token, whatever their clocks say', async () => {
    const a = await shared(3);
    const b = await shared(3);
    const now = Date.now();
    assert.deepEqual(await takeMany(a, 'tok_clock', 2, now), [0, 0]);
    // An hour ahead: a bucket counted on the caller's clock would be full again.
    assert.equal(await b.take('tok_clock', now + 3_600_000), 0);
    assert.ok((await a.take('tok_clock', now)) > 0);
    assert.ok((await b.take('tok_clock', now - 3_600_000)) > 0);
    assert.equal(await b.take('tok_other', now), 0);
  });

  it('refills continuously: after Retry-After seconds a request is admitted again', async () => {
    const quota = await shared(60);
    let admitted = 0;
    let wait = 0;
    while (wait === 0 && admitted <= 120) {
      wait = await quota.take('tok_refill', Date.now());
      if (wait === 0) admitted++;
    }
    // 60 at once, and as many more as refilled meanwhile (one a second).
    assert.ok(admitted >= 60, String(admitted));
    assert.equal(wait, 1);
    await sleep(wait * 1000);
    assert.equal(await quota.take('tok_refill', Date.now()), 0);
  });

  it('keeps a bucket under vms-read:quota:<token id>, expiring once idle a minute', async () => {
    await (await shared(10)).take('tok_key', Date.now());
    assert.equal(QUOTA_KEY_PREFIX, 'vms-read:quota:');
    const bucket = await raw.hgetall('vms-read:quota:tok_key');
    assert.deepEqual(Object.keys(bucket).sort(), ['at', 'tokens']);
    assert.ok(Math.abs(Number(bucket.tokens) - 9) < 0.01, bucket.tokens);
    const ttl = await raw.pttl('vms-read:quota:tok_key');
    assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
  });
});

describe('the Redis quota with Redis unreachable', () => {
  it('counts in this process (fail-open, still bounded) and warns once', async () => {
    const log = recordingLog();
    const quota = createRedisQuota({
      url: `redis://127.0.0.1:${await freePort()}`,
      perMinute: 5,
      log,
    });
    try {
      const waits = await takeMany(quota, 'tok_down', 7);
      assert.deepEqual(waits.slice(0, 5), [0, 0, 0, 0, 0]);
      assert.ok(waits[5] > 0 && waits[6] > 0);
      assert.deepEqual(log.lines, ['warn quota store unavailable']);
      assert.match(String(log.details[0].reason), /ECONNREFUSED/);
    } finally {
      await quota.close?.();
    }
  });
});
