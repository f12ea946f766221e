import { LRUCache } from 'lru-cache';

/**
 * A per-token request budget (token bucket): `perMinute` requests a minute, refilled continuously.
 * Kept in this process's memory, so each instance counts its own requests.
 */
export interface Quota {
  /** Takes one request; returns 0 when admitted, else the seconds to wait. */
  take(tokenId: string, nowMs: number): number;
}

/** Buckets kept at most; a bucket idle for a minute is full again, so forgetting it changes nothing. */
const MAX_BUCKETS = 100_000;

export function createQuota(perMinute: number): Quota {
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
