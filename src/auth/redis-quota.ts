import { Redis } from 'ioredis';
import { monotonicNow, withDeadline } from '../deadline.js';
import { createQuota, type Quota } from './quota.js';

/** Where the shared quota says that Redis stopped, or resumed, counting: the server's log. */
export interface QuotaLog {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

/** A bucket's key is this prefix and the token's id (the id, never the token). */
export const QUOTA_KEY_PREFIX = 'vms-read:quota:';

/** A request waits at most this long for Redis; then it is counted in this process instead. */
export const QUOTA_COMMAND_TIMEOUT_MS = 250;

/** How long a connection attempt may take, and requests right after a start may wait for it. */
export const QUOTA_CONNECT_TIMEOUT_MS = 1000;

/** While Redis cannot count, `quota store unavailable` is written at most this often. */
export const UNAVAILABLE_LOG_INTERVAL_MS = 60_000;

/**
 * The in-memory token bucket of quota.ts, run atomically inside Redis: KEYS[1] the bucket,
 * ARGV[1] requests a minute. Answers 0 when admitted, else the whole seconds (at least 1) until a
 * request is free again. The clock is the Redis server's (TIME), so instances whose clocks
 * disagree still count one budget; a clock that steps back refills nothing. A bucket idle for a
 * minute is full again, so it expires then and Redis forgets it.
 */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local rate = capacity / 60000
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.max(1, math.ceil((1 - tokens) / rate / 1000))
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], 60000)
return wait
`;

/** The script as a command of the client: ioredis sends EVALSHA, and EVAL when Redis lost it. */
interface QuotaCommands {
  vmsReadQuotaTake(key: string, perMinute: number): Promise<number>;
}

export interface SharedQuota extends Quota {
  /** Resolves once Redis is connected (at once when it is); tests wait on it. */
  connected(): Promise<void>;
}

export interface RedisQuotaOptions {
  /** REDIS_URL. */
  url: string;
  perMinute: number;
  log: QuotaLog;
}

/**
 * Reports an outage when it begins, and again at most once an interval while it lasts, and its
 * end once a warning has been written: an operator sees it without a line per request.
 */
function outageReport(log: QuotaLog) {
  let warnedAt = -Infinity;
  let reported = false;
  return {
    failed(reason: string) {
      const now = monotonicNow();
      if (now - warnedAt < UNAVAILABLE_LOG_INTERVAL_MS) return;
      warnedAt = now;
      reported = true;
      log.warn({ reason, counting: 'per instance' }, 'quota store unavailable');
    },
    succeeded() {
      if (!reported) return;
      reported = false;
      log.info({ counting: 'shared' }, 'quota store available again');
    },
  };
}

/**
 * The quota shared by every instance that points at one Redis (DESIGN §4.3), with the semantics
 * of the in-memory one: one atomic script per request, so concurrent instances never both spend
 * a bucket's last request.
 *
 * Redis unreachable, refusing or slower than QUOTA_COMMAND_TIMEOUT_MS fails open: the request is
 * counted by this instance's in-memory bucket instead, and the outage is logged. A read-only API
 * stays available while its budget store is not, and the per-instance bucket still bounds what
 * one token can do to each instance. Nothing waits on a connection: commands are not queued while
 * disconnected, each has a time limit, and ioredis reconnects in the background (at least once a
 * second), so the server starts, and serves, with Redis down.
 */
export function createRedisQuota({ url, perMinute, log }: RedisQuotaOptions): SharedQuota {
  const local = createQuota(perMinute);
  const outage = outageReport(log);
  const client = new Redis(url, {
    commandTimeout: QUOTA_COMMAND_TIMEOUT_MS,
    connectTimeout: QUOTA_CONNECT_TIMEOUT_MS,
    // A connection silent for a second while a command waits is dropped and made again: a hung
    // server costs a second of time-limited requests, then requests skip it (not ready).
    socketTimeout: 1000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  }) as Redis & QuotaCommands;
  client.defineCommand('vmsReadQuotaTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  // Connection errors repeat at every reconnection: `take` reports the last one, once an interval.
  let lastError = 'not connected';
  client.on('error', (error: Error) => (lastError = error.message));
  // A request that arrives before the first connection attempt has ended waits for it (within
  // the connection time limit): right after a start requests are shared, not counted here.
  let attempted = false;
  const firstAttempt = new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', resolve);
  }).then(() => {
    attempted = true;
  });
  const attemptEnded = () =>
    withDeadline(firstAttempt, QUOTA_CONNECT_TIMEOUT_MS, () => new Error('connecting')).catch(
      () => {},
    );

  const take = (tokenId: string, nowMs: number): number | Promise<number> => {
    if (client.status !== 'ready') {
      outage.failed(lastError);
      return local.take(tokenId, nowMs);
    }
    return client.vmsReadQuotaTake(QUOTA_KEY_PREFIX + tokenId, perMinute).then(
      (wait) => {
        outage.succeeded();
        return wait;
      },
      (error: Error) => {
        outage.failed(error.message);
        return local.take(tokenId, nowMs);
      },
    );
  };
  return {
    take: (tokenId, nowMs) =>
      attempted ? take(tokenId, nowMs) : attemptEnded().then(() => take(tokenId, nowMs)),
    connected: () =>
      client.status === 'ready'
        ? Promise.resolve()
        : new Promise((resolve) => client.once('ready', () => resolve())),
    close: async () => client.disconnect(),
  };
}
