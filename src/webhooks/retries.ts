/**
 * When a failed delivery is tried again (DESIGN §4.14): after `VMS_READ_WEBHOOK_RETRY_MS`
 * (default 5 s), doubling each time up to an hour between tries, for at least 3 days from the
 * first failure; then the subscription is marked failing and stops. A 410 disables it at once.
 * Any other non-2xx answer, a time-out or a connection error is a failure to retry.
 */

import { DEFAULT_WEBHOOK_RETRY_MS } from '../config.js';

export const DEFAULT_RETRY_MS = DEFAULT_WEBHOOK_RETRY_MS;
export const MAX_RETRY_GAP_MS = 3_600_000;
export const GIVE_UP_AFTER_MS = 3 * 86_400_000;

/** What a delivery's outcome means for its subscription. */
export type Verdict =
  | { next: 'delivered' }
  | { next: 'retry'; at: number }
  | { next: 'failing' }
  | { next: 'disabled' };

/** The pause before try number `attempt + 1`, after `attempt` failed tries (1 or more). */
export function retryGap(attempt: number, baseMs = DEFAULT_RETRY_MS): number {
  return Math.min(MAX_RETRY_GAP_MS, baseMs * 2 ** Math.min(attempt - 1, 40));
}

/**
 * The verdict on one try: `status` (or null when there was no answer), how many tries failed
 * before it, when the first of them failed (ms), and now.
 */
export function judgeAttempt(
  status: number | null,
  failedBefore: number,
  firstFailedAt: number | null,
  now: number,
  baseMs = DEFAULT_RETRY_MS,
): Verdict {
  if (status !== null && status >= 200 && status < 300) return { next: 'delivered' };
  if (status === 410) return { next: 'disabled' };
  const since = firstFailedAt ?? now;
  if (now - since >= GIVE_UP_AFTER_MS) return { next: 'failing' };
  return { next: 'retry', at: now + retryGap(failedBefore + 1, baseMs) };
}
