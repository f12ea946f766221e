/**
 * A fetch that honours Retry-After on 429 (quota spent) and 503 (store or capacity unavailable,
 * shutting down): every vms-read operation is a read, so repeating one is safe. It waits what
 * the server asks (seconds or an HTTP date), at most `maxDelayMs` a time and `maxRetries` times;
 * past that, or without the header, the answer is returned as it came.
 */
export interface RetryOptions {
  /** Retries after the first attempt; default 2. 0 never retries. */
  maxRetries?: number;
  /** The longest single wait; a longer Retry-After is returned to the caller. Default 30 s. */
  maxDelayMs?: number;
}

const RETRY_STATUSES = new Set([429, 503]);

/** Milliseconds a Retry-After value asks for, or null when it says nothing usable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function retryingFetch(base: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const maxRetries = options.maxRetries ?? 2;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const original = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await base(original.clone());
      if (!RETRY_STATUSES.has(response.status) || attempt >= maxRetries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (wait === null || wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
