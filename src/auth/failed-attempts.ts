/**
 * Failed authentications per client address (issue 35, item 3): an address that fails
 * `FAILURES_ALLOWED` times within a window of `WINDOW_MS` gets 429 `rate_limited`, with
 * Retry-After until the window ends and its connection closed, without its token being checked
 * (no store read, no signature), for the rest of that window. A token that authenticated here
 * within the last `KNOWN_MS` is still checked as usual from that address, so clients that share
 * an address with an attacker (behind one proxy) and have called lately are not slowed (a token
 * revoked meanwhile is still refused by that check); other addresses never are. Kept in memory per instance, at most `MAX_ADDRESSES` addresses (least
 * recently failed dropped first).
 */
import { LRUCache } from 'lru-cache';

/** VMS_READ_AUTH_FAILURES_PER_MINUTE's default; 0 turns the limit off. */
export const FAILURES_ALLOWED = 20;
export const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 50_000;
/** How long a token that authenticated stays known: let through a blocked address to its check. */
const KNOWN_MS = 10 * 60_000;

interface Window {
  startedAt: number;
  failures: number;
}

export class FailedAttempts {
  /** `allowed` failures a window per address; 0: no limit. */
  constructor(private readonly allowed = FAILURES_ALLOWED) {}

  private readonly windows = new LRUCache<string, Window>({ max: MAX_ADDRESSES });
  private readonly known = new LRUCache<string, true>({ max: MAX_ADDRESSES, ttl: KNOWN_MS });

  /** Notes an Authorization header that authenticated. */
  succeeded(authorization: string): void {
    if (this.allowed === 0) return;
    this.known.set(authorization, true);
  }

  /** Whether an Authorization header authenticated lately. */
  knows(authorization: string | undefined): boolean {
    return authorization !== undefined && this.known.has(authorization);
  }

  /** Seconds until `address` may try again; 0 when it may now. */
  blockedFor(address: string, nowMs: number): number {
    const window = this.windows.get(address);
    if (this.allowed === 0) return 0;
    if (!window || nowMs - window.startedAt >= WINDOW_MS || window.failures < this.allowed)
      return 0;
    return Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - nowMs) / 1000));
  }

  /** Counts one failed authentication from `address`. */
  failed(address: string, nowMs: number): void {
    if (this.allowed === 0) return;
    const window = this.windows.get(address);
    if (!window || nowMs - window.startedAt >= WINDOW_MS)
      this.windows.set(address, { startedAt: nowMs, failures: 1 });
    else window.failures++;
  }
}
