import { LRUCache } from 'lru-cache';

/**
 * A per-token request budget (token bucket): `perMinute` requests a minute, refilled continuously.
 * `createQuota` keeps it in this process's memory, so each instance counts its own requests;
 * `createRedisQuota` (redis-quota.ts) shares it between instances.
 */
export interface Quota {
  /**
   * Takes one request; gives 0 when admitted, else the whole seconds to wait (at least 1). The
   * in-memory quota answers at once; the shared one answers once Redis has (or has failed to).
   */
  take(tokenId: string, nowMs: number): number | Promise<number>;
  /** Releases what the quota holds outside this process (the Redis connection). */
  close?(): Promise<void>;
}

/** Buckets kept at most; a bucket idle for a minute is full again, so forgetting it changes nothing. */
const MAX_BUCKETS = 100_000;

/** The in-memory quota: it answers at once. */
export interface LocalQuota extends Quota {
  take(tokenId: string, nowMs: number): number;
}

export function createQuota(perMinute: number): LocalQuota {
  if (perMinute <= 0) return { take: () => 0 };
  const ratePerMs = perMinute / 60_000;
  const buckets = new LRUCache<string, { tokens: number; at: number }>({
    max: MAX_BUCKETS,
    ttl: 60_000,
    updateAgeOnGet: true,
  });
  return {
    take(tokenId, nowMs) {
      const bucket = buckets.get(tokenId) ?? { tokens: perMinute, at: nowMs };
      bucket.tokens = Math.min(perMinute, bucket.tokens + (nowMs - bucket.at) * ratePerMs);
      bucket.at = nowMs;
      buckets.set(tokenId, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000));
    },
  };
}
